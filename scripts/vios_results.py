#!/usr/bin/env python3
"""docs/results/vios.md: VIOS against NOOP and PIQ (vios-variation-aware-scheduler,
Cui et al., NPC'16) on the vios-128g preset, under the verdict protocol of
scripts/verdict.py.

    .venv/bin/python scripts/vios_results.py              # docs/results/vios.md
    .venv/bin/python scripts/vios_results.py --quick      # smoke run, page to a temp file
    .venv/bin/python scripts/vios_results.py --calibrate  # the profiles' arrival rates

Builds the rainsim package from this tree into the running interpreter (as
scripts/results.py does: run it with the venv of the README's set-up), then
runs every point as one `rainsim.sweep` on the local backend with --jobs
workers (default 1), resumable through --keep DIR. Workloads: the synthetic
profiles of the paper's Table 1 traces (configs/workloads/vios-*.toml, the
first --requests of each, default 500,000 as in the paper) and the shared
trace samples (cut into windows of 10,000 records, as scripts/results.py
does; main panel only). Panels: the main runs (NOOP, PIQ, VIOS at 12 K P/E
cycles, 64 chips, 600 µs, admission window 32), two ablations of VIOS
(its queue with in-order allocation; "a slower block" read as in order), the
wear stages 6 K/9 K/15 K (Fig. 7), 56…32 chips (Fig. 8), base tPROG 200…550
µs (Fig. 9), admission windows 8/16/64, and the BER exponent κ = 1 and 3 at
6 K and 15 K. scripts/vios_page.py turns the reports into the page.

Options: --seeds N (main panel and ablations, default 3), --sweep-seeds N
(wear stages, default 2; chip counts, tPROG, admission windows and κ run
seed 1 only, to bound the CPU time), --jobs N (default 1), --keep DIR,
--out FILE, --traces DIR, --requests N, --quick (1 seed, 4 profiles, 2
traces, the first and last value of each sweep, κ = 1 only, 100,000
requests; the page goes to a temp file).
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import results  # noqa: E402  (build, runner, trace windows)
import vios_calibrate  # noqa: E402
import vios_claims  # noqa: E402
import vios_page  # noqa: E402

ROOT = results.ROOT
PRESET = "vios-128g"
SCHEMES = ["noop", "piq", "vios"]
REQUESTS = 500_000
WINDOW = 10_000


def panels(quick):
    """[(label, sets, schemes, seed group, profiles only?)]: every run set of the page.
    Seed groups: "main" (--seeds), "sweep" (--sweep-seeds), "one" (seed 1)."""
    P = vios_claims
    out = [("main", [], SCHEMES, "main", False)]
    out += [(label, sets, ["vios"], "main", True) for label, sets in P.ABLATIONS]
    sweeps = [
        (P.WEAR, "process_variation.initial_pe_cycles", ["piq", "vios"], "sweep"),
        (P.CHIPS, "geometry.chips_per_channel", ["piq", "vios"], "one"),
        (P.TPROG, "timing.program_ns", ["piq", "vios"], "one"),
        (P.WINDOWS, "host.queue_depth", SCHEMES, "one"),
    ]
    for values, key, schemes, seeds in sweeps:
        for v in [values[0], values[-1]] if quick else values:
            out.append((P.label(key, v), [f"{key}={P.raw(key, v)}"], schemes, seeds, True))
    for kappa in P.KAPPAS[:1] if quick else P.KAPPAS:
        for pe in P.KAPPA_WEAR:
            sets = [f"process_variation.ber_exponent={kappa}", f"process_variation.initial_pe_cycles={pe}"]
            out.append((P.kappa_label(kappa, pe), sets, ["piq", "vios"], "one", True))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--traces")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--keep")
    ap.add_argument("--out")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--sweep-seeds", type=int, default=2)
    ap.add_argument("--requests", type=int)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--calibrate", action="store_true", help="print the profiles' calibrated mean gaps and stop")
    a = ap.parse_args()
    t0 = time.monotonic()
    engine = results.build()
    if a.calibrate:
        for t in vios_claims.TRACES:
            target = vios_claims.PAPER_T1[t][4] / 100.0
            gap, ratio, steps = vios_calibrate.calibrate(engine.rainsim, PRESET, f"vios-{t}", target,
                                                         log=lambda m: print(m, file=sys.stderr, flush=True))
            print(f"vios-{t}: mean_interarrival_ns = {gap}  (NOOP conflicts {ratio:.4f}, Table 1 {target:.4f}; "
                  f"{steps} runs)", flush=True)
        return
    requests = a.requests or (100_000 if a.quick else REQUESTS)
    seeds = {"main": list(range(1, (1 if a.quick else a.seeds) + 1)),
             "sweep": list(range(1, (1 if a.quick else a.sweep_seeds) + 1)), "one": [1]}
    runner = results.Runner(engine, a.keep, a.jobs)
    windir = runner.dir / "windows"
    windir.mkdir(exist_ok=True)
    traces, skipped = results.trace_workloads(engine, results.trace_dir(a.traces), WINDOW, windir,
                                              2 if a.quick else None)
    names = vios_claims.TRACES[:4] if a.quick else vios_claims.TRACES
    profiles = [results.Workload(f"vios-{t}", "profile", [("synthetic", None)], requests) for t in names]
    common = ["trace.repeat=1", f"workload.requests={requests}"]
    jobs = {}
    plan = panels(a.quick)
    for label, sets, schemes, group, profiles_only in plan:
        for wl in profiles if profiles_only else profiles + traces:
            for win in range(len(wl.windows)):
                for seed in seeds[group]:
                    for sc in schemes:
                        extra = common if wl.kind == "profile" else ["trace.repeat=1"]
                        jobs[(PRESET, sc, wl.name, win, seed, label)] = (PRESET, sc, wl, win, seed, extra + sets)
    print(f"vios: {len(profiles)} profiles, {len(traces)} traces, {len(plan)} panels, {len(jobs)} runs", file=sys.stderr)
    reports = runner.run_all(jobs)
    ctx = vios_claims.make_context(reports, profiles, traces, skipped, seeds, requests, WINDOW,
                                   [p[0] for p in plan], results.git_rev(), a.quick)
    text = vios_page.render(ctx)
    if a.out:
        out = Path(a.out)
    elif a.quick:
        out = Path(tempfile.gettempdir()) / "rainsim-quick-vios.md"
    else:
        out = ROOT / "docs" / "results" / "vios.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    walls = runner.walls
    print(f"wrote {out}: {len(walls)} runs (mean {sum(walls) / max(1, len(walls)):.2f} s per run), "
          f"{time.monotonic() - t0:.0f} s in all", file=sys.stderr)


if __name__ == "__main__":
    main()
