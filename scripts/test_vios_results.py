"""The VIOS page's runs, pairing, verdicts and tables, on reports made by hand."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import results  # noqa: E402
import verdict as V  # noqa: E402
import vios_claims as C  # noqa: E402
import vios_page  # noqa: E402
import vios_results  # noqa: E402

PROFILES = [results.Workload(f"vios-{t}", "profile", [("synthetic", None)], 1000) for t in C.TRACES[:8]]
TRACE = results.Workload("t.csv", "trace", [("records 1–10", Path("a")), ("records 11–20", Path("b"))], 20, "msr")


def report(read=100e3, write=500e3, ratio=0.3, busy=0.5, held=0, tprog=420e3, n=1000):
    lat = lambda mean, count: {"count": count, "mean_ns": mean, "sum_ns": mean * count,  # noqa: E731
                               **{k: mean * 2 for _, k in V.PERCENTILES}}
    return {
        "latency": {"read": lat(read, n // 4), "write": lat(write, n - n // 4), "all": lat(write, n)},
        "conflicts": {"ratio": ratio, "read_conflicts": int(ratio * n / 4), "write_conflicts": int(ratio * n * 3 / 4)},
        "host": {"held_by_queue_depth": held},
        "channels": [{"busy_fraction": busy}],
        "sim": {"span_ns": 100}, "trace": {"span_ns": 100},
        "process_variation": {"program_tprog_mean_ns": tprog, "block_tprog_mean_ns": 420e3,
                              "block_tprog_p5_ns": 333333, "block_tprog_p95_ns": 500000},
        "gc": {"count": 0}, "precondition": {"trace_pages_needed": 5}, "flash_ops": {"host_read": 10},
    }


def context(cells, seeds=(1, 2), wls=PROFILES, panels=("main",)):
    """cells(scheme, workload, window, seed, panel) -> report, for every run of the panels."""
    reports = {}
    for panel in panels:
        for wl in wls:
            for win in range(len(wl.windows)):
                for seed in seeds:
                    for sc in C.SCHEMES:
                        reports[(C.PRESET, sc, wl.name, win, seed, panel)] = cells(sc, wl, win, seed, panel)
    profiles = [w for w in wls if w.kind == "profile"]
    traces = [w for w in wls if w.kind != "profile"]
    groups = {"main": list(seeds), "sweep": list(seeds), "one": [1]}
    return C.make_context(reports, profiles, traces, [], groups, 1000, 10, list(panels), "abc")


def claim(cid):
    return next(c for c in C.claims() if c.cid == cid)


def scaled(write_vios=1.0, read_vios=1.0, piq=1.0, jitter=0.0, sat=None):
    """VIOS's write and read latency as a multiple of NOOP's (PIQ's: `piq`), a
    little seed-dependent noise, and the workloads whose runs saturate."""

    def cells(sc, wl, win, seed, panel):
        k = 1.0 + jitter * seed
        f = {"noop": (1.0, 1.0), "piq": (piq, 1.0), "vios": (write_vios * piq * k, read_vios)}[sc]
        return report(read=100e3 * f[1], write=500e3 * f[0], busy=0.99 if sat and wl.name in sat else 0.5)

    return cells


def test_a_large_consistent_cut_reproduces_and_a_small_one_is_direction_only():
    ctx = context(scaled(write_vios=0.7, jitter=0.001))
    assert C.evaluate(ctx, claim("W1"))["verdict"] == V.REPRODUCED  # −30 % reaches −22.93 %
    ctx = context(scaled(write_vios=0.95, jitter=0.001))
    s = C.evaluate(ctx, claim("W2"))
    assert s["verdict"] == V.DIRECTION_ONLY  # −5 % does not reach −7.71 %
    # Every workload's median: the mean of seeds 1 and 2's changes, 0.95 × 1.001 and 0.95 × 1.002.
    assert abs(s["pooled"] - 100 * (0.95 * 1.0015 - 1)) < 1e-9


def test_a_slower_vios_contradicts_and_a_coin_flip_is_inconclusive():
    ctx = context(scaled(write_vios=1.2))
    assert C.evaluate(ctx, claim("W2"))["verdict"] == V.CONTRADICTED

    def mixed(sc, wl, win, seed, panel):
        up = PROFILES.index(wl) % 2 == 0
        return report(write=500e3 * (1.1 if up and sc == "vios" else 0.9 if sc == "vios" else 1.0))

    assert C.evaluate(context(mixed), claim("W2"))["verdict"] == V.INCONCLUSIVE


def test_saturated_replicates_are_left_out_of_the_verdict():
    sat = {w.name for w in PROFILES[:3]}
    s = C.evaluate(context(scaled(write_vios=0.7, sat=sat)), claim("W1"))
    assert s["counts"]["saturated"] == 3 * 2 and s["counts"]["replicates"] == 8 * 2
    assert set(s["per_workload"]) == {w.name for w in PROFILES[3:]}
    # Five workloads left: below the sign test's reach, so not significant.
    assert s["verdict"] == V.INCONCLUSIVE


def test_reads_equal_to_piqs_reproduce_r2_and_far_off_contradict_it():
    assert C.evaluate(context(scaled(read_vios=1.0)), claim("R2"))["verdict"] == V.REPRODUCED
    assert C.evaluate(context(scaled(read_vios=1.2)), claim("R2"))["verdict"] == V.CONTRADICTED


def test_the_wear_trend_is_the_difference_of_the_two_paired_changes():
    gain = {C.wear_panel(6000): 0.98, C.wear_panel(15000): 0.90}

    def cells(sc, wl, win, seed, panel):
        return report(write=500e3 * (gain[panel] if sc == "vios" else 1.0))

    ctx = context(cells, panels=tuple(gain))
    s = C.evaluate(ctx, claim("E+"))
    assert all(abs(w["median"] - (-8.0)) < 1e-9 for w in s["per_workload"].values())
    assert s["verdict"] == V.REPRODUCED  # −8 points reach the paper's −7.38


def test_table_1_cells_come_from_the_runs():
    def cells(sc, wl, win, seed, panel):
        return report(ratio=0.5 if sc == "noop" else 0.25, held=100 * seed)

    text = vios_page.table1_section(context(cells, wls=PROFILES + [TRACE]))
    prn = next(line for line in text.splitlines() if line.startswith("| `vios-prn`"))
    cells_ = [c.strip() for c in prn.strip("|").split("|")]
    assert cells_[1:3] == ["37,678 / 261,787", "59.89 %"]  # the paper's row
    assert cells_[3:5] == ["125 / 375", "13 % / 25 %"]  # NOOP's conflicts; reads among them: paper, ours
    assert cells_[5:8] == ["50.00 %", "25.00 %", "25.00 %"]  # NOOP, PIQ, VIOS: medians of the runs
    assert cells_[8] == "15.00 %"  # held: median of 100 and 200 of 1,000 requests
    sample = next(line for line in text.splitlines() if line.startswith("| `t.csv`"))
    assert sample.startswith("| `t.csv` | – | – |")  # no paper row for a sample


def test_the_page_renders_with_the_main_panel_only():
    text = vios_page.render(context(scaled(write_vios=0.9, jitter=0.001), seeds=(1,)))
    assert "## The paper's claims: verdicts" in text and "| W2 |" in text
    assert "| E6 |" not in text  # the wear panel was not run: no verdict without its runs


def test_the_sweeps_set_the_keys_in_their_units():
    plan = {label: (sets, schemes, seeds) for label, sets, schemes, seeds, _ in vios_results.panels(False)}
    assert plan["main"] == ([], C.SCHEMES, "main")
    assert plan["tprog=200"][0] == ["timing.program_ns=200000"]
    assert plan["chips=32"][0] == ["geometry.chips_per_channel=4"]
    assert plan["pe=6000"][0] == ["process_variation.initial_pe_cycles=6000"]
    assert plan["qd=8"] == (["host.queue_depth=8"], C.SCHEMES, "one")
    assert plan["kappa=1,pe=15000"][0] == ["process_variation.ber_exponent=1",
                                           "process_variation.initial_pe_cycles=15000"]
    # Every panel a claim reads is run.
    for c in C.claims():
        assert all(p in plan for p in C.panels_of(c)), c.cid
