"""The degraded-mode and adaptive-parity pages (scripts/degraded_mode_page.py,
adaptive_parity_page.py, over results_pages.py): pairing,
the sample rule, the sensitivity panel, D5's statistic, combined claims and the
setup text, on reports made by hand (no simulation runs)."""

import functools
import re

import pytest

import results
import adaptive_parity_page as APP
import degraded_mode_page as DM
import results_pages as RP
import verdict as V

TRACES = [results.Workload(f"t{i}.csv", "trace", [("all", None)], 1000, "msr") for i in range(6)]
# Twelve workloads (sign-test p 2^-11 when all agree): enough for a claim to stay significant
# among the page's other claims (verdict.family_adjust).
TWELVE = [results.Workload(f"w{i}.csv", "trace", [("all", None)], 1000, "msr") for i in range(12)]
PROFILE = results.Workload("degraded-mode-hm_1", "profile", [("synthetic", None)], None)


@pytest.fixture(autouse=True)
def fewer_resamples(monkeypatch):
    """300 resamples instead of 10,000: the tests check verdicts and cells, not the
    intervals' last digit."""
    for name in ("bootstrap_ci", "hierarchical_ci", "ratio_of_totals_ci"):
        monkeypatch.setattr(V, name, functools.partial(getattr(V, name), resamples=300))


def report(io=1.0, reads=5000, repeat=2, gcs=0, gc_ms=6.0, blocked=1.0, sd_blocked=0.0, deg=0, gtr=0, moves=0):
    """A report with the keys the pages read: io = overall I/O time in s; reads =
    the report's read count (a replayed window's copies included)."""
    lat = lambda n: {"count": n, "sum_ns": io * 1e9, "mean_ns": 1e6,  # noqa: E731
                     **{k: 1e6 * (i + 1) for i, (_, k) in enumerate(reversed(V.PERCENTILES))}}
    chans = [{"gc_count": gcs / 4, "ops": 1000, "avg_blocked": blocked + sd_blocked * (c - 1.5), "busy_fraction": 0.2,
              "pages_moved": moves / 4, "reads": reads / 4, "read_p99_99_ns": 4e6, "read_p99_9_ns": 3e6,
              "read_p99_ns": 2e6, "gc_estimate_mean_ns": gc_ms * 1e6, "gc_mean_ns": gc_ms * 1e6} for c in range(4)]
    return {"latency": {"read": lat(reads), "write": lat(reads), "all": lat(2 * reads)}, "channels": chans,
            "raid": {"degraded_reads": deg, "degraded_updates": 0, "gc_tolerant_reads": gtr, "adjusted": 0,
                     "rmw": 1, "rcw": 1},
            "balance": {"cv_blocked": 0.1, "cv_gc": 0.1}, "gc": {"count": gcs, "mean_ns": gc_ms * 1e6},
            "sim": {"span_ns": 100}, "trace": {"span_ns": 100, "repeat": repeat}}


def context(cells, presets, schemes, wls=TRACES, seeds=(1, 2), variants=(), sens_seeds=None):
    """cells(preset, scheme, workload index, seed, variant) -> report kwargs."""
    reports = {}
    sens_seeds = list(sens_seeds or seeds)
    for variant in ("main",) + tuple(variants):
        for p in presets:
            for i, wl in enumerate(wls):
                for seed in seeds if variant == "main" else sens_seeds:
                    for sc in schemes:
                        reports[(p, sc, wl.name, 0, seed, variant)] = report(**cells(p, sc, i, seed, variant))
    return RP.Context(reports=reports, workloads=list(wls), seeds=list(seeds), window=10_000, skipped=[],
                      skipped_profiles=[], variants=list(variants), variant_notes=[], sens_workloads=list(wls),
                      sens_seeds=sens_seeds, rev="abc")


def dm_context(cells, **kw):
    return context(cells, DM.DegradedMode().presets(), DM.SCHEMES_DM, **kw)


def claim(cid, page=DM.DegradedMode()):
    return next(c for c in page.comparisons() if c.cid == cid)


def test_the_sample_rule_counts_a_replayed_window_once():
    # 1,016 reads in each report, the window replayed twice: 508 distinct, too few for p99
    # (1,000), enough for p90 (100). D4 falls back to p90, where counting copies gave p99.
    ctx = dm_context(lambda p, sc, i, s, v: {"reads": 1016, "repeat": 2})
    s = RP.evaluate(ctx, claim("D4"))
    assert s["used"] == "p90_ns" and s["note"] == "checked on p90: p99.99 has n too small"
    cell = RP.tail_table(ctx, "degraded-mode-8ch", DM.SCHEMES_DM, "read").splitlines()[2].split(" | ")[1]
    assert cell == "n too small / n too small / n too small (n ≥ 508)"
    # The same count without a replay is 1,016 distinct reads: p99 is valid.
    ctx = dm_context(lambda p, sc, i, s, v: {"reads": 1016, "repeat": 1})
    assert RP.evaluate(ctx, claim("D4"))["used"] == "p99_ns"


def test_the_sensitivity_panels_main_column_uses_the_variants_seeds():
    # Degraded 10 % faster than baseline on seeds 1-2, 10 % slower on seeds 3-5. The variant
    # ran seeds 1-2 only: the main column must be read over the same seeds (−10 %), not all
    # five (+10 %, the other way).
    def cells(p, sc, i, s, v):
        return {"io": (0.9 if s <= 2 else 1.1) * (1 + 0.01 * i) if sc == "degraded" else 1.0}

    ctx = dm_context(cells, wls=TWELVE, seeds=(1, 2, 3, 4, 5), variants=("ldpc.enabled=true",), sens_seeds=[1, 2])
    comps = DM.DegradedMode().comparisons()
    text = RP.sensitivity_section(ctx, comps, {})
    row = next(x for x in text.splitlines() if x.startswith("| D3 |"))
    main, variant = [c.strip() for c in row.strip("|").split("|")][2:4]
    assert main.startswith("reproduced (-") and main == variant
    assert RP.evaluate(ctx, claim("D3"))["verdict"] == V.CONTRADICTED  # all five seeds
    assert "re-evaluated over the same workloads and the same seeds" in text


def test_d5s_size_is_the_ratio_of_totals_not_the_mean_of_changes():
    # Six workloads with 201 degraded operations against 10 GC-tolerant reads (+1,910 %, the
    # paper's 20.1x, on every run) and four GC-free ones with 3,000 against none (no change).
    # Mean of changes: +1,910 %. Ratio of totals (two devices, per workload the mean over
    # seeds): (4 x 6,000 + 6 x 402) / (6 x 20) = 220.1: +21,910 %, far beyond 20.1x.
    def cells(p, sc, i, s, v):
        if sc != "degraded" and sc != "gc-tolerant-read":
            return {}
        return {"deg": 201 if i < 6 else 3000} if sc == "degraded" else {"gtr": 10 if i < 6 else 0}

    wls = TRACES + [results.Workload(f"u{i}.csv", "trace", [("all", None)], 1000, "msr") for i in range(4)]
    s = RP.evaluate(dm_context(cells, wls=wls), claim("D5"))
    assert len(s["per_workload"]) == 6 and s["pooled"] == pytest.approx(1910.0)
    assert s["ratio_of_totals"][0] == pytest.approx(100 * (26_412 / 120 - 1))
    assert s["verdict"] == V.SIZE_LARGER
    assert RP._claim_note(s).startswith("size held against the ratio of totals: +21910.0 %")


def test_a_claim_against_both_comparators_takes_the_weaker_verdict():
    # Degraded has fewer blocked requests than baseline on every workload (D11 reproduced) but
    # not than GC-tolerant read, which it beats on half the workloads only (D12 inconclusive).
    def cells(p, sc, i, s, v):
        b = {"baseline": 1.0, "gc-tolerant-read": 0.5, "degraded": 0.5 + (0.1 if i % 2 else -0.1) + 0.01 * i}
        return {"blocked": b[sc]}

    ctx = dm_context(cells, wls=TWELVE)
    page = DM.DegradedMode()
    text, res = RP.claims_section(ctx, page.comparisons(), page.combined)
    assert res["D11"]["verdict"] == V.REPRODUCED and res["D12"]["verdict"] == V.INCONCLUSIVE
    row = next(x for x in text.splitlines() if x.startswith("| D11 + D12 |"))
    assert row.endswith("| D11: reproduced, D12: inconclusive | **inconclusive** |")
    # Six workloads (p 2/64 at best) among the page's claims, most of them flat (p = 1): D11 is
    # significant alone, not over the family, and its row says so.
    text, res = RP.claims_section(dm_context(cells), page.comparisons(), page.combined)
    m = res["D11"]["family"][0]
    assert res["D11"]["verdict"] == V.INCONCLUSIVE and res["D11"]["verdict_alone"] == V.REPRODUCED and m > 2
    row = next(x for x in text.splitlines() if x.startswith("| D11 |"))
    assert f"**inconclusive** (*reproduced* alone (p 0.0312); over {m} claims (Benjamini–Hochberg)" in row


def test_the_adaptive_page_computes_how_long_a_gc_holds_its_die():
    ms = [5.0, 11.0, 6.0, 7.0, 8.0, 9.0]
    ctx = context(lambda p, sc, i, s, v: {"gcs": 8, "moves": 24, "gc_ms": ms[i]}, APP.AP, APP.SCHEMES_AP)
    text = RP.gc_context(ctx)
    assert "a GC holds its die for 5.0–11.0 ms on average over a run (median run 7.5 ms" in text
    page = APP.AdaptiveParity().render(ctx)
    assert "tens of ms" not in page and "holds its die for 5.0–11.0 ms" in page


def test_gc_free_samples_say_their_seeds_are_identical_only_when_they_are():
    same = dm_context(lambda p, sc, i, s, v: {"io": 1.0 + 0.1 * i, "gcs": 0 if i < 4 else 8})
    note = RP.gc_free_note(same, DM.DegradedMode().presets(), DM.SCHEMES_DM)
    assert note.startswith("**Seeds on GC-free samples.** On 4 of the 6 trace samples no GC ran")
    assert "On 4 of them every seed gave the same overall I/O time" in note and "still differ" not in note
    differ = dm_context(lambda p, sc, i, s, v: {"io": 1.0 + 0.1 * s, "gcs": 0})
    note = RP.gc_free_note(differ, DM.DegradedMode().presets(), DM.SCHEMES_DM)
    assert "every seed gave the same" not in note and "On 6 the seeds still differ" in note


def test_the_degraded_mode_page_states_its_setup():
    # GC-tolerant read 10 % slower than baseline on GC-free samples: its die binding alone.
    def cells(p, sc, i, s, v):
        return {"io": {"baseline": 1.0, "gc-tolerant-read": 1.1 + 0.01 * i, "degraded": 0.95}[sc]}

    text = DM.DegradedMode().render(dm_context(cells))
    flat = " ".join(text.split())
    assert "binds each stripe to one die per channel, so its programs lose the choice of die" in flat
    assert "there `gc-tolerant-read` is slower on 6 of them (D2's per-workload medians +10.0 to +15.0 %)" in flat
    assert "- **D1.** Where GC-tolerate Read is slower than Baseline with no GC at all" in text
    assert "- **D5.** The paper's 20.1× is a ratio of totals (Table 4: 805,252" in text
    assert re.search(r"\| D15 \|[^\n]*\| ≥ -7\.4 % \|", text)
    assert "a paper's size is read as *about* that size" in flat and "distinct requests" in flat
