"""The array rebuild page's verdicts and cells, on rows made by hand."""

import array_rebuild_results as ar


def rows(scope, rebuild_s, run_p99, n=20_000):
    out = []
    for seed, (t, p99) in enumerate(zip(rebuild_s, run_p99), 1):
        r = {"scope": scope, "seed": seed, "rebuild_s": t, "units_rebuilt": 1000, "units_skipped": 0,
             "gc_moved": 5000}
        for p in ("before", "during", "after"):
            r[f"{p}_n"] = n
            r[f"{p}_p99"] = 700.0
            r[f"{p}_p999"] = None
        r["run_read_p99"] = p99
        r["run_read_p999"] = None
        r["run_write_p99"] = 900.0
        out.append(r)
    return out


def line(text, metric):
    return next(x for x in text.splitlines() if x.startswith(f"| {metric} |"))


def test_six_of_six_lower_with_an_interval_below_zero_is_consistently_lower_and_ties_are_not():
    rs = rows("all", [40.0] * 6, [1000.0] * 6) + rows("written", [30.0, 31, 29, 30, 32, 28], [1000.0] * 6)
    text = ar.page(rs, 6, 1000)
    assert line(text, "rebuild time").endswith("| 6 / 0 | 0.031 | consistently lower |")
    # Same values: no change, a coin flip at best.
    assert line(text, "read p99 over the run").endswith("| not consistent |")
    # Equal counts: no change either.
    assert line(text, "units rebuilt").endswith("| not consistent |")


def test_seeds_of_one_workload_are_labelled_replicates_not_a_verdict():
    rs = rows("all", [40.0] * 6, [1000.0] * 6) + rows("written", [30.0] * 6, [1000.0] * 6)
    text = ar.page(rs, 6, 1000)
    head = next(x for x in text.splitlines() if x.startswith("| metric |"))
    assert head.endswith("| across the seeds of this one workload |")
    flat = " ".join(text.split())
    assert "replicates of it, not separate workloads" in flat and "does not say the effect generalises" in flat
    # None of the paper pages' verdict words.
    for word in ("reproduced", "inconclusive", "contradicted", "direction only"):
        assert word not in text


def test_five_of_six_is_not_enough_and_a_missing_percentile_is_a_dash():
    rs = rows("all", [40.0] * 6, [1000.0] * 6) + rows("written", [30.0] * 5 + [50.0], [1200.0] * 6)
    text = ar.page(rs, 6, 1000)
    assert line(text, "rebuild time").endswith("| not consistent |")
    assert line(text, "read p99 over the run").endswith("| consistently higher |")
    assert line(text, "read p99.9 over the run").endswith("| — (no values) |")
    assert ar.med_ci([None, None]) == "—"
    # A rebuild that did not end is a dash in the runs' table, not a number.
    rs[0]["rebuild_s"] = None
    assert "| all | 1 | — |" in ar.page(rs, 6, 1000)
