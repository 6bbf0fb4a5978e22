"""The BPU fit page (scripts/fit_bpu.py) on summaries made by hand (no runs)."""

import fit_bpu as fb


def summary(mean_ms):
    return {"by_seed": [mean_ms * 1e6] * 3, "mean_ns": mean_ms * 1e6, "p99_9_ns": 3e6, "adjusted": 10,
            "updates": 100}


def page_for(best_values):
    best = fb.point([best_values[k] for k in fb.GRID])
    unfitted = fb.point([fb.UNFITTED[k] for k in fb.GRID])
    rows = {fb.key(best): summary(1.0), fb.key(unfitted): summary(1.1)}
    refs = {"baseline": summary(1.1), "adaptive": summary(1.0)}
    return fb.page(rows, best, unfitted, refs, "2026-12-06")


def test_an_optimum_on_the_grids_edge_is_flagged():
    # beta at its largest, min_queued at 1 (inside the grid), min_skew at 0 (the lowest possible).
    text = page_for({"max_gap": 4, "min_queued": 1, "min_skew": 0, "beta": 8.0})
    flat = " ".join(text.split())
    assert ("**The fitted point lies on the edge of the grid** on `beta` (= 8.0, the largest value searched): the "
            "optimum may lie outside the grid") in flat
    # max_gap = 4 is the largest gap a 5+1 update can have, min_skew = 0 turns its class off: edges, but
    # nothing lies beyond them.
    assert ("On the edge but not a gap in the search: `max_gap` = 4 (the pre-read gaps of 5+1 updates are 0, 2 "
            "and 4, so these values give every distinct behaviour); `min_skew` = 0 (0 never counts their queues "
            "as even).") in flat
    assert [k for k, _ in fb.grid_edges(fb.point([4, 1, 0, 8.0]))] == ["beta"]
    # The largest min_queued is an edge to search past; its smallest (0) is not.
    assert fb.grid_edges(fb.point([2, 16, 2, 1.0])) == [("min_queued", "largest")]
    assert fb.grid_edges(fb.point([2, 0, 2, 1.0])) == []


def test_an_interior_optimum_says_nothing():
    text = page_for({"max_gap": 2, "min_queued": 4, "min_skew": 2, "beta": 1.0})
    assert "edge of the grid" not in text and "On the edge" not in text
