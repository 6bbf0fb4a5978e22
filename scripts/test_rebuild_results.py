"""The rebuild page's verdicts and cells, on rows made by hand."""

import rebuild_results as rr


def rows(preset, scheme, p999s, n=20_000):
    out = []
    for seed, v in enumerate(p999s, 1):
        r = {"preset": preset, "scheme": scheme, "seed": seed, "rebuild_s": 30.0 + seed,
             "pages_rebuilt": 1000, "reads_reconstructed": 10}
        for p in rr.PHASES:
            r[f"{p}_n"] = n
            r[f"{p}_mean"] = 500.0
            r[f"{p}_p99"] = 700.0
            r[f"{p}_p999"] = v
            r[f"{p}_p9999"] = None if v is None else v * 1.5
        out.append(r)
    return out


def page_with(degraded, gc_tolerant, base=None):
    base = base or [1000.0] * 6
    rs = rows("degraded-mode-8ch", "baseline", base)
    rs += rows("degraded-mode-8ch", "degraded", degraded)
    rs += rows("degraded-mode-8ch", "gc-tolerant-read", gc_tolerant)
    for s in ["baseline", "bpu", "adaptive"]:
        rs += rows("adaptive-parity-8ch", s, [1000.0] * 6)
    return rr.page(rs, 6, 1000)


def verdict_line(text, scheme):
    # The first verdict table of the page (read p99.9 during the rebuild).
    return next(line for line in text.splitlines() if line.startswith(f"| {scheme} |") and "%" in line)


def test_six_of_six_lower_with_an_interval_below_zero_is_consistently_lower():
    text = page_with([900.0, 910, 920, 905, 915, 890], [1000.0, 1010, 990, 1000, 1020, 980])
    assert verdict_line(text, "degraded").endswith("| consistently lower |")
    # Mixed directions (and ties) are a coin flip.
    assert verdict_line(text, "gc-tolerant-read").endswith("| not consistent |")


def test_five_of_six_is_not_enough_for_the_sign_test():
    text = page_with([900.0, 910, 920, 905, 915, 1100], [1200.0] * 6)
    assert verdict_line(text, "degraded").endswith("| not consistent |")
    assert verdict_line(text, "gc-tolerant-read").endswith("| consistently higher |")


def test_the_seeds_are_labelled_replicates_of_one_workload_not_a_verdict():
    text = page_with([900.0] * 6, [1000.0] * 6)
    heads = [x for x in text.splitlines() if x.startswith("| scheme | median change |")]
    assert heads and all(h.endswith("| across the seeds of this one workload |") for h in heads)
    flat = " ".join(text.split())
    assert "replicates of it, not separate workloads" in flat and "was not tested" in flat
    for word in ("reproduced", "inconclusive", "contradicted", "direction only"):
        assert word not in text


def test_a_percentile_without_samples_is_a_dash_not_a_number():
    rs = rows("degraded-mode-8ch", "baseline", [None] * 6)
    cell = rr.med_ci([r["during_p999"] for r in rs])
    assert cell == "—"
    assert rr.med_ci([5.0, 5.0, 5.0]).startswith("5 [5, 5]")


def test_the_caution_quotes_the_first_baseline_run_and_the_control_run():
    rs = [r for p, ss in rr.SETUPS for sc in ss for r in rows(p, sc, [1000.0] * 6)]
    control = dict(rs[0], seed=1, before_p99=5000.0, before_mean=2000.0, before_n=90_000)
    flat = " ".join(rr.page(rs, 6, 1000, control).split())
    assert ("read p99 0.70 ms over its first 180 s, 5.00 ms over its first 740 s "
            "(mean 0.50 ms, then 2.00 ms)") in flat
    # Without a control run, or with one that ended before its failure time (its
    # "before" no longer than the early run's), the caution states no numbers it
    # did not measure, and keeps its conclusion.
    for c in (None, dict(control, before_n=20_000)):
        flat = " ".join(rr.page(rs, 6, 1000, c).split())
        assert "control run" not in flat and "grows with GC whether or not anything fails." in flat
        assert "the comparisons that hold are between schemes within a phase" in flat


def priority_rows(preset, stripes, priority, p999s, w_p999s, rebuild=40.0):
    out = rows(preset, "baseline", p999s)
    for r in out:
        r.update(stripes=stripes, priority=priority, rebuild_s=rebuild, during_w_n=50_000,
                 during_w_p999=w_p999s[r["seed"] - 1])
    return out


def section(text, start):
    lines = text.splitlines()
    i = lines.index(start)
    j = next((k for k in range(i + 1, len(lines)) if lines[k].startswith("## ")), len(lines))
    return lines[i:j]


def test_the_priority_runs_pair_with_low_at_their_own_rate_and_stay_out_of_the_main_tables():
    base = rows("degraded-mode-8ch", "baseline", [1000.0] * 6)
    rs = base + rows("degraded-mode-8ch", "degraded", [1000.0] * 6)
    rs += rows("degraded-mode-8ch", "gc-tolerant-read", [1000.0] * 6)
    for s in ["baseline", "bpu", "adaptive"]:
        rs += rows("adaptive-parity-8ch", s, [1000.0] * 6)
    p = "degraded-mode-8ch"
    for r in base:
        r["during_w_p999"], r["during_w_n"] = 2000.0, 50_000
    # At the main rate: background's writes lower on every seed, high's higher.
    rs += priority_rows(p, rr.REBUILD_STRIPES, "high", [1000.0] * 6, [2100.0, 2200, 2150, 2300, 2120, 2250])
    rs += priority_rows(p, rr.REBUILD_STRIPES, "background", [1000.0] * 6, [1500.0, 1600, 1550, 1700, 1520, 1650])
    # At 16: "low" there is far lower than "low" at the main rate, so background
    # is higher than its own rate's reference though lower than the main rate's.
    rs += priority_rows(p, 16, "low", [1000.0] * 6, [500.0] * 6, rebuild=20.0)
    # High at 16 with a wild read tail: were it in the main tables, the
    # baseline's p99.9 would move and "degraded" would no longer be flat.
    rs += priority_rows(p, 16, "high", [9e6] * 6, [500.0] * 6, rebuild=20.0)
    rs += priority_rows(p, 16, "background", [1000.0] * 6, [900.0, 910, 920, 930, 940, 950], rebuild=20.0)
    text = rr.page(rs, 6, 1000)
    sec = section(text, "## Rebuild priority")
    heads = [i for i, x in enumerate(sec) if x.startswith("Against `low` at the same rate, write p99.9")]
    assert len(heads) == 1
    w = sec[heads[0]:heads[0] + 9]
    row = lambda name: next(x for x in w if x.startswith(f"| {name} |"))
    assert row(f"{rr.REBUILD_STRIPES}, background").endswith("| consistently lower |")
    assert row(f"{rr.REBUILD_STRIPES}, high").endswith("| consistently higher |")
    assert row("16, background").endswith("| consistently higher |")
    assert row("16, high").endswith("| not consistent |")
    # The main table of the preset still holds the six main runs per scheme.
    main = section(text, "## `degraded-mode-8ch`")
    assert "| degraded | +0.0 % |" in "\n".join(main)
    # Every run is listed, with its rate and priority.
    runs = section(text, "## Runs")
    assert sum(1 for x in runs if x.startswith("| degraded-mode-8ch | baseline | 16 | background |")) == 6
    # The adaptive preset has no priority runs: no section of its own.
    assert "### `adaptive-parity-8ch`" not in sec


def test_priority_jobs_add_every_other_setting_once():
    jobs = rr.priority_jobs(3)
    per = len(rr.PRIORITY_STRIPES) * len(rr.PRIORITIES) - 1
    assert len(jobs) == len(rr.SETUPS) * per * 3 == len(set(jobs))
    assert all(s == "baseline" for _, s, *_ in jobs)
    assert not any((st, pr) == (rr.REBUILD_STRIPES, "low") for *_, st, pr in jobs)
