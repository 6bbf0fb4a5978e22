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
    # The fitted point of 2026-12-05: min_queued and min_skew at their smallest, beta at its largest.
    text = page_for({"max_gap": 4, "min_queued": 2, "min_skew": 1, "beta": 2.0})
    flat = " ".join(text.split())
    assert ("**The fitted point lies on the edge of the grid** on `min_queued` (= 2, the smallest value searched), "
            "`min_skew` (= 1, the smallest value searched), `beta` (= 2.0, the largest value searched): the optimum "
            "may lie outside the grid") in flat
    # max_gap = 4 is the largest gap a 5+1 update can have: an edge, but nothing lies beyond it.
    assert "On the edge but not a gap in the search: `max_gap` = 4" in flat
    assert [k for k, _ in fb.grid_edges(fb.point([4, 2, 1, 2.0]))] == ["min_queued", "min_skew", "beta"]


def test_an_interior_optimum_says_nothing():
    text = page_for({"max_gap": 2, "min_queued": 4, "min_skew": 2, "beta": 1.0})
    assert "edge of the grid" not in text and "On the edge" not in text
