#!/usr/bin/env python3
"""docs/results/rebuild.md: read tail latency before, during and after a channel
failure and its rebuild, per scheme, on the degraded-mode and adaptive presets.

Every run replays the preset's one synthetic workload (its seed redraws the
stream, but the seeds are replicates of that one workload, not several
workloads), fails one channel at FAIL_NS, puts a replacement in at once and
rebuilds REBUILD_STRIPES stripes at a time at low priority. Per scheme: the
rebuild's duration and the read p99 / p99.9 of each phase (a percentile only
from a phase with at least 10 / (1 - p) reads), with 95 % percentile-bootstrap
intervals of the median over the seeds; against the preset's baseline, the
paired relative change of the read p99.9 during the rebuild, with an exact sign
test over the seeds: "consistently lower" or "consistently higher" only when the
sign test reaches 5 % and the interval excludes 0, else "not consistent". That
says whether the effect held across the seeds of this one workload; it is not a
verdict across workloads and does not say the effect generalises. Then each
preset's baseline under each rebuild priority (PRIORITIES) at PRIORITY_STRIPES
stripes at a time: rebuild time and read and write p99.9 during the rebuild,
each priority against "low" at the same rate, the same way.

Usage: python3 scripts/rebuild_results.py [--seeds N] [--requests N] [--out FILE]
(the defaults took under two minutes on two cores on 2026-12-05)
(the release CLI at target/release/rainsim is built first if missing).
"""

import argparse
import concurrent.futures as cf
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import verdict  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
CLI = ROOT / "target" / "release" / "rainsim"
FAIL_NS = 180_000_000_000
# The control run's failure time: late enough that nearly the whole run is
# "before" (see the page's "Read with care").
CONTROL_NS = 740_000_000_000
CHANNEL = 3
REBUILD_STRIPES = 2
SETUPS = [
    ("degraded-mode-8ch", ["baseline", "degraded", "gc-tolerant-read"]),
    ("adaptive-parity-8ch", ["baseline", "bpu", "adaptive"]),
]
PHASES = ["before", "during", "after"]
# The priority section: each preset's baseline at these rates, each priority
# against "low" (the default, and the main tables' setting) at the same rate.
PRIORITIES = ["low", "high", "background"]
PRIORITY_STRIPES = [REBUILD_STRIPES, 16]


def run(preset, scheme, seed, requests, fail_ns=FAIL_NS, stripes=REBUILD_STRIPES, priority="low"):
    with tempfile.TemporaryDirectory() as d:
        out = pathlib.Path(d) / "r.json"
        cmd = [
            str(CLI), "run", "--config", preset, "--scheme", scheme, "--quiet", "--out", str(out),
            "--set", f"seed={seed}", "--set", f"workload.requests={requests}",
            "--set", f"fault.channel={CHANNEL}", "--set", f"fault.at_ns={fail_ns}",
            "--set", f"fault.rebuild_stripes={stripes}", "--set", f"fault.rebuild_priority={priority}",
        ]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        r = json.loads(out.read_text())
    f = r["fault"]
    row = {"preset": preset, "scheme": scheme, "seed": seed, "stripes": stripes, "priority": priority,
           "rebuild_s": (f["rebuilt_at_ns"] - f["replaced_at_ns"]) / 1e9 if f["rebuilt_at_ns"] else None,
           "pages_rebuilt": f["pages_rebuilt"], "reads_reconstructed": f["reads_reconstructed"]}
    for p in PHASES:
        rd = f[p]["read"]
        row[f"{p}_n"] = rd["count"]
        row[f"{p}_mean"] = rd["mean_us"]
        row[f"{p}_p99"] = rd["p99_us"]
        row[f"{p}_p999"] = rd["p99_9_us"]
        row[f"{p}_p9999"] = rd["p99_99_us"]
        row[f"{p}_w_n"] = f[p]["write"]["count"]
        row[f"{p}_w_p999"] = f[p]["write"]["p99_9_us"]
    return row


def is_main(r):
    """Whether row `r` is of the main tables' setting (the priority section's
    other rows are not)."""
    return r.get("stripes", REBUILD_STRIPES) == REBUILD_STRIPES and r.get("priority", "low") == "low"


def priority_jobs(seeds):
    """The priority section's runs the main tables do not already hold."""
    return [(p, "baseline", seed, st, pr) for p, _ in SETUPS for st in PRIORITY_STRIPES for pr in PRIORITIES
            if (st, pr) != (REBUILD_STRIPES, "low") for seed in range(1, seeds + 1)]


def priority_section(rows):
    """Per preset, its baseline under each rebuild priority and rate: the
    rebuild's time and the read and write p99.9 during it, and each priority
    against "low" at the same rate, paired by seed."""
    out = [
        "## Rebuild priority",
        "",
        "Each preset's `baseline` again, its rebuild at each `fault.rebuild_priority` and at",
        f"{' and '.join(str(s) for s in PRIORITY_STRIPES)} stripes at a time, same seeds: `low` (the tables above) queues",
        "a rebuild read at the tail of its die's read queue, `high` at the head, `background` where",
        "the die takes it only when no other read and no program it may take waits for it (see",
        "\"Channel failure and rebuild\" in the README). Cells as above; writes' p99.9 from the same",
        "phase. The comparisons hold `low` at the same rate as the reference.",
        "",
    ]
    for preset, _ in SETUPS:
        mine = [r for r in rows if r["preset"] == preset and r["scheme"] == "baseline"]
        if not any(not is_main(r) for r in mine):
            continue
        out += [f"### `{preset}`", "",
                "| stripes at once | priority | rebuild (s) | reads / writes during | read p99.9 during | write p99.9 during |",
                "|---|---|---|---|---|---|"]
        cell = {}
        for st in PRIORITY_STRIPES:
            for pr in PRIORITIES:
                rs = [r for r in mine if r.get("stripes", REBUILD_STRIPES) == st and r.get("priority", "low") == pr]
                cell[st, pr] = rs
                if not rs:
                    continue
                n = (f"{statistics.median([r['during_n'] for r in rs]):,.0f} / "
                     f"{statistics.median([r.get('during_w_n', 0) for r in rs]):,.0f}")
                out.append(f"| {st} | {pr} | {med_ci([r['rebuild_s'] for r in rs], 1).replace(',', '')} | {n} | "
                           f"{med_ci([r['during_p999'] for r in rs])} | {med_ci([r.get('during_w_p999') for r in rs])} |")
        for key, name in (("during_p999", "read p99.9"), ("during_w_p999", "write p99.9"), ("rebuild_s", "rebuild time")):
            out += ["", f"Against `low` at the same rate, {name} (paired by seed; seeds of one workload):", "",
                    verdict.SIGN_TABLE[0].format("stripes, priority"), verdict.SIGN_TABLE[1]]
            for st in PRIORITY_STRIPES:
                base = {r["seed"]: r for r in cell[st, "low"]}
                for pr in PRIORITIES[1:]:
                    ch = (verdict.paired_change(r.get(key), base[r["seed"]].get(key))
                          for r in cell[st, pr] if r["seed"] in base)
                    out.append(verdict.sign_verdict_row(f"{st}, {pr}", ch, name))
        out.append("")
    return out


med_ci = verdict.median_ci_cell


def control_text(rows, control):
    """The caution's numbers: the first seed's baseline on the first preset
    before its failure, and the control run (failure at CONTROL_NS) before its."""
    preset = SETUPS[0][0]
    early = next((r for r in rows if r["preset"] == preset and r["scheme"] == "baseline" and r["seed"] == 1), None)
    conclusion = [
        "So \"after\" is later, not healthier, than \"during\", and the phases cannot be compared",
        "with each other; the comparisons that hold are between schemes within a phase.",
    ]
    # Numbers only from runs that reached both failure times: the control's
    # "before" then holds more reads than the early run's.
    if (early is None or control is None or early["before_p99"] is None or control["before_p99"] is None
            or control["before_n"] <= early["before_n"] or early["during_n"] + early["after_n"] == 0):
        return ["with GC whether or not anything fails.", *conclusion]
    ms = lambda us: f"{us / 1000:.2f} ms"
    return [
        f"with GC whether or not anything fails. A control run of `{preset}`, baseline,",
        f"seed 1, with no failure until {CONTROL_NS / 1e9:.0f} s: read p99 {ms(early['before_p99'])} over its",
        f"first {FAIL_NS / 1e9:.0f} s, {ms(control['before_p99'])} over its first {CONTROL_NS / 1e9:.0f} s (mean",
        f"{ms(early['before_mean'])}, then {ms(control['before_mean'])}).",
        *conclusion,
    ]


def page(rows, seeds, requests, control=None):
    out = [
        "# Read tail latency through a channel failure and its rebuild",
        "",
        "Generated by `python3 scripts/rebuild_results.py` "
        f"({seeds} seeds, {requests:,} requests each); do not edit by hand.",
        "",
        "No paper measured this: what a channel failure and the rebuild that follows do to",
        "the read tail, per scheme. Each run replays the preset's one synthetic workload (the",
        f"seed redraws its stream), fails channel {CHANNEL} at {FAIL_NS / 1e9:.0f} s, puts a replacement in",
        f"at once and rebuilds {REBUILD_STRIPES} stripes at a time at low priority (its reads at the tails of",
        "the dies' read queues, behind host reads; as reads they pass queued programs under read priority);",
        "see \"Channel failure and rebuild\" in the README for the model. Phases are by",
        "completion time: before the failure, during it (until the rebuild ends), after.",
        "The phases also differ in when they fall in the run (the aged device collects",
        "more garbage as the run goes on), so compare schemes within a phase, not one",
        "scheme across phases. The last section runs each preset's baseline under each",
        "rebuild priority, at two rates.",
        "",
        "**One workload, its seeds replicates.** The seeds redraw one synthetic workload: they",
        "are replicates of it, not separate workloads, so nothing here is a verdict on a claim",
        "in the sense of the paper pages. The last column of each comparison says whether the",
        "effect held across these seeds (*consistently lower* / *consistently higher*: exact",
        f"sign test over the seeds p < {verdict.ALPHA} and the interval off 0; with six seeds p = 0.031",
        "only when all six move the same way), else *not consistent*. A consistent effect is",
        "consistent across the seeds of this one workload; whether it holds on other workloads",
        "was not tested.",
        "Cells: median over the seeds [95 % percentile-bootstrap interval], µs; a",
        "percentile appears only from a phase with at least 10 / (1 − p) reads",
        "(p99.99: 100,000).",
        "",
        "**Read with care:** over a run this long the aged presets' read tail grows",
        *control_text(rows, control),
        "",
    ]
    for preset, schemes in SETUPS:
        out += [f"## `{preset}`", ""]
        out += ["| scheme | rebuild (s) | reads before / during / after | p99.9 before | p99.9 during | p99.9 after | p99.99 before | p99.99 during | p99.99 after |",
                "|---|---|---|---|---|---|---|---|---|"]
        by = {s: [r for r in rows if r["preset"] == preset and r["scheme"] == s and is_main(r)] for s in schemes}
        for s in schemes:
            rs = by[s]
            n = " / ".join(f"{statistics.median([r[f'{p}_n'] for r in rs]):,.0f}" for p in PHASES)
            out.append(
                f"| {s} | {med_ci([r['rebuild_s'] for r in rs]).replace(',', '')} | {n} | "
                + " | ".join(med_ci([r[f"{p}_{q}"] for r in rs]) for q in ("p999", "p9999") for p in PHASES)
                + " |"
            )
        base = {r["seed"]: r for r in by["baseline"]}
        for q, name in (("p999", "p99.9"), ("p9999", "p99.99")):
            out += ["", f"Against `baseline`, read {name} during the rebuild (paired by seed; seeds of one workload):",
                    "",
                    verdict.SIGN_TABLE[0].format("scheme"), verdict.SIGN_TABLE[1]]
            for s in schemes[1:]:
                ch = (verdict.paired_change(r[f"during_{q}"], base[r["seed"]][f"during_{q}"]) for r in by[s])
                out.append(verdict.sign_verdict_row(s, ch, name))
        out.append("")
    out += priority_section(rows)
    out += ["## Runs", "",
            "| preset | scheme | stripes at once | priority | seed | rebuild (s) | chunks rebuilt | reads reconstructed "
            "| read p99.9 during | read p99.99 during | write p99.9 during |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        f = lambda x: "—" if x is None else f"{x:,.0f}"
        rb = "—" if r["rebuild_s"] is None else f"{r['rebuild_s']:.2f}"
        out.append(f"| {r['preset']} | {r['scheme']} | {r.get('stripes', REBUILD_STRIPES)} | {r.get('priority', 'low')} | "
                   f"{r['seed']} | {rb} | {r['pages_rebuilt']:,} | {r['reads_reconstructed']:,} | "
                   f"{f(r['during_p999'])} | {f(r['during_p9999'])} | {f(r.get('during_w_p999'))} |")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=6)
    # 750 s at 2,000 IOPS: about 108,000 reads before the failure (at 180 s),
    # 150,000 during a two-stripe rebuild and 190,000 after: p99.99 in each.
    ap.add_argument("--requests", type=int, default=1_500_000)
    ap.add_argument("--out", default=str(ROOT / "docs" / "results" / "rebuild.md"))
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    if not CLI.exists():
        subprocess.run(["cargo", "build", "--release", "--locked", "-p", "rainsim"], cwd=ROOT, check=True)
    jobs = [(p, s, seed) for p, ss in SETUPS for s in ss for seed in range(1, a.seeds + 1)]
    with cf.ThreadPoolExecutor(a.workers) as ex:
        ctl = ex.submit(run, SETUPS[0][0], "baseline", 1, a.requests, CONTROL_NS)
        rows = list(ex.map(lambda j: run(*j, a.requests), jobs))
        rows += list(ex.map(lambda j: run(j[0], j[1], j[2], a.requests, stripes=j[3], priority=j[4]),
                            priority_jobs(a.seeds)))
        control = ctl.result()
    pathlib.Path(a.out).write_text(page(rows, a.seeds, a.requests, control))
    print(f"wrote {a.out} ({len(rows)} runs and a control run)")


if __name__ == "__main__":
    main()
