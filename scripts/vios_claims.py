"""The VIOS page's paper and claims (vios-variation-aware-scheduler, Cui et
al., NPC'16): its numbers, the panels scripts/vios_results.py runs, how runs
are paired, and the claims the page tests. The statistics are
scripts/verdict.py's; scripts/vios_page.py renders the page."""

from dataclasses import dataclass, field

import results_pages as RP
import verdict as V

PRESET = "vios-128g"
SCHEMES = ["noop", "piq", "vios"]

# Table 1 (NOOP, 12 K P/E cycles, the first 500,000 I/Os of each trace):
# read I/O, write I/O, read conflicts, write conflicts, conflicts ratio (%).
PAPER_T1 = {
    "prn": (61422, 438578, 37678, 261787, 59.89),
    "fin": (129342, 370658, 12135, 129379, 28.30),
    "hm": (139527, 360473, 54387, 168864, 44.65),
    "mds": (26301, 473699, 10947, 12570, 4.70),
    "proj": (151549, 348451, 38615, 32852, 14.29),
    "rsrch": (43803, 456197, 19413, 217828, 47.45),
    "src": (81377, 418623, 28146, 360549, 77.74),
    "stg": (43818, 456182, 21657, 210355, 46.40),
    "ts": (76687, 423313, 27566, 7161, 6.95),
    "usr": (206983, 293017, 91391, 9068, 20.09),
    "wdev": (102663, 397337, 48986, 170202, 43.84),
    "web": (239458, 260542, 89753, 19184, 21.79),
}
TRACES = list(PAPER_T1)
# Fig. 7: write-latency reduction of VIOS relative to PIQ (%), mean over traces.
PAPER_WEAR = {6000: 2.25, 9000: 5.25, 12000: 7.71, 15000: 9.63}
# Fig. 8: VIOS's write latency, 64 -> 32 chips (%), the traces the text names.
PAPER_CHIPS = {"src": 59.48, "wdev": 36.09, "mds": 6.05, "ts": 5.29, "usr": 4.91}
# Fig. 9 (rsrch only, in the text): reduction vs PIQ at 200 and 550 µs; and 64 -> 32 chips.
PAPER_RSRCH_TPROG = {200: 4.83, 550: 10.85}
PAPER_RSRCH_CHIPS = {64: 10.92, 32: 13.63}
# Equivalence margin of "VIOS reads ≈ PIQ's" (our choice: the paper gives none).
EQUIV_MARGIN = 5.0

# Panels beside the main runs ("main": 12 K, 8 chips a channel, 600 µs, window 32).
ABLATIONS = [
    ("alloc=in-order", ["policy.block_allocation=in-order"]),
    ("slow=in-order", ["policy.variation_aware.slow=in-order"]),
]
WEAR = [6000, 9000, 15000]
CHIPS = [7, 6, 5, 4]  # chips per channel (8 in the preset)
TPROG = [200, 250, 300, 350, 400, 450, 500, 550]  # µs at ΔVp 0.30 (600 in the preset)
WINDOWS = [8, 16, 64]  # host.queue_depth (32 in the preset)
KAPPAS = [1, 3]  # process_variation.ber_exponent (2 in the preset)
KAPPA_WEAR = [6000, 15000]


def label(key, v):
    """A panel's label from its swept key and value."""
    short = {"process_variation.initial_pe_cycles": ("pe", v), "geometry.chips_per_channel": ("chips", 8 * v),
             "timing.program_ns": ("tprog", v), "host.queue_depth": ("qd", v)}[key]
    return f"{short[0]}={short[1]}"


def raw(key, v):
    """The config value of a swept value (tPROG is swept in µs, configured in ns)."""
    return v * 1000 if key == "timing.program_ns" else v


def kappa_label(kappa, pe):
    return f"kappa={kappa},pe={pe}"


def wear_panel(pe, kappa=2):
    if kappa != 2:
        return kappa_label(kappa, pe)
    return "main" if pe == 12000 else label("process_variation.initial_pe_cycles", pe)


def chips_panel(chips):
    return "main" if chips == 64 else f"chips={chips}"


def tprog_panel(us):
    return "main" if us == 600 else f"tprog={us}"


def window_panel(q):
    return "main" if q == 32 else f"qd={q}"


@dataclass
class Context(RP.Context):
    """RP.Context (reports keyed by (preset, scheme, workload, window, seed,
    panel); `seeds`: the main panel's) plus the page's own lists."""

    profiles: list = field(default_factory=list)
    traces: list = field(default_factory=list)
    seed_groups: dict = field(default_factory=dict)
    requests: int = 0


def make_context(reports, profiles, traces, skipped, seeds, requests, window, panels, rev, quick=False):
    return Context(reports=reports, workloads=profiles + traces, seeds=seeds["main"], window=window,
                   skipped=skipped, skipped_profiles=[], variants=panels, variant_notes=[], sens_workloads=[],
                   sens_seeds=[], rev=rev, quick=quick, profiles=profiles, traces=traces, seed_groups=seeds,
                   requests=requests)


# ---------------------------------------------------------------- metrics


def read_mean(r):
    return r["latency"]["read"]["mean_ns"] if r["latency"]["read"]["count"] else None


def write_mean(r):
    return r["latency"]["write"]["mean_ns"] if r["latency"]["write"]["count"] else None


def conflict_ratio(r):
    return r["conflicts"]["ratio"]


def held_share(r):
    return r["host"]["held_by_queue_depth"] / max(1, r["latency"]["all"]["count"])


def prog_tprog(r):
    return r["process_variation"]["program_tprog_mean_ns"]


# ---------------------------------------------------------------- pairing


def get(ctx, scheme, wl, win, seed, panel):
    return ctx.reports.get((PRESET, scheme, wl.name, win, seed, panel))


def all_seeds(ctx):
    return sorted({s for g in ctx.seed_groups.values() for s in g}) or ctx.seeds


def _replicates(ctx, wls, runs, value, counts):
    """{workload: strata}: `value(reports)` per (window, seed) where every run of
    `runs` ([(scheme, panel)]) exists; a replicate with a saturated run, or
    whose value is undefined, is left out and counted."""
    out = {}
    for wl in wls:
        strata = []
        for win in range(len(wl.windows)):
            vals = []
            for seed in all_seeds(ctx):
                rs = [get(ctx, sc, wl, win, seed, p) for sc, p in runs]
                if any(r is None for r in rs):
                    continue
                counts["replicates"] += 1
                if any(V.saturation(r)[0] for r in rs):
                    counts["saturated"] += 1
                    continue
                v = value(rs)
                if v is None:
                    counts["undefined"] += 1
                    continue
                vals.append(v)
            if vals:
                strata.append(vals)
        if strata:
            out[wl.name] = strata
    return out


def change(metric, new, ref):
    """Paired % change of `metric`, run `new` = (scheme, panel) against `ref`."""

    def build(ctx, wls, counts):
        return _replicates(ctx, wls, [new, ref], lambda rs: V.paired_change(metric(rs[0]), metric(rs[1])), counts)

    return build


def trend(metric, scheme, ref, hi, lo):
    """Paired change of `scheme` vs `ref` at panel `hi` minus the same at panel
    `lo`, in percentage points."""

    def value(rs):
        a, b = V.paired_change(metric(rs[0]), metric(rs[1])), V.paired_change(metric(rs[2]), metric(rs[3]))
        return None if a is None or b is None else a - b

    def build(ctx, wls, counts):
        return _replicates(ctx, wls, [(scheme, hi), (ref, hi), (scheme, lo), (ref, lo)], value, counts)

    return build


def differing(s):
    """Workloads whose median paired change is not 0: where the compared schemes
    did something different (a scheduler with nothing to reorder changes nothing)."""
    return sum(1 for w in s["per_workload"].values() if w["median"] != 0)


def equivalence(s, margin=EQUIV_MARGIN):
    """Verdict of a "no difference" claim from summarize()'s result: inconclusive
    unless the schemes differed on at least MIN_WORKLOADS workloads (identical
    runs show no difference because nothing was tested); then reproduced when the
    pooled interval lies within ± margin, contradicted when it lies wholly
    outside, else inconclusive."""
    ci = s["pooled_ci"]
    if ci is None or differing(s) < V.MIN_WORKLOADS:
        return V.INCONCLUSIVE
    lo, hi = ci
    if -margin <= lo and hi <= margin:
        return V.REPRODUCED
    if lo > margin or hi < -margin:
        return V.CONTRADICTED
    return V.INCONCLUSIVE


def direction(s):
    """A neutral reading of a change no paper claims: lower, higher or no significant difference."""
    pos, neg, p_sign = s["sign_test"]
    w_plus, w_minus, _, p_wil = s["wilcoxon"]
    if p_sign < V.ALPHA and p_wil < V.ALPHA:
        if neg > pos and w_minus > w_plus:
            return "lower"
        if pos > neg and w_plus > w_minus:
            return "higher"
    return "no significant difference"


@dataclass
class Claim:
    cid: str
    text: str  # the paper's claim, with its figure
    comparison: str
    pool: str  # "profiles" or "traces"
    build: object  # (ctx, workloads, counts) -> {workload: strata}
    sign: int = -1
    magnitude: float = None
    kind: str = "pooled"
    unit: str = "%"
    equivalent: bool = False  # a "no difference" claim (EQUIV_MARGIN)


def evaluate(ctx, c):
    counts = {"replicates": 0, "saturated": 0, "undefined": 0}
    wls = ctx.profiles if c.pool == "profiles" else ctx.traces
    s = V.summarize(c.build(ctx, wls, counts), c.sign, c.magnitude, c.kind)
    if c.equivalent:
        s["verdict"] = equivalence(s)
        s["equivalent"] = True  # decided by an interval: outside the family (verdict.family_adjust)
    s["counts"] = counts
    return s


def pooled(ctx, build, wls=None):
    """summarize() of a change no claim names (sign and magnitude unused)."""
    counts = {"replicates": 0, "saturated": 0, "undefined": 0}
    s = V.summarize(build(ctx, ctx.profiles if wls is None else wls, counts), -1)
    s["counts"] = counts
    return s


def claims():
    W, R = write_mean, read_mean
    main = lambda sc: (sc, "main")  # noqa: E731
    out = []
    for pool, suffix, where in (("profiles", "", "Table 1 profiles"), ("traces", "s", "shared traces")):
        out += [
            Claim("R1" + suffix, "Read latency −17.66 % vs NOOP (12 K, mean; Fig. 5)", f"VIOS vs NOOP, read, {where}",
                  pool, change(R, main("vios"), main("noop")), magnitude=-17.66),
            Claim("R2" + suffix, f"VIOS's read latency ≈ PIQ's (Fig. 5; our margin ±{EQUIV_MARGIN:g} %)",
                  f"VIOS vs PIQ, read, {where}", pool, change(R, main("vios"), main("piq")), equivalent=True),
            Claim("W1" + suffix, "Write latency −22.93 % vs NOOP (12 K, mean; Fig. 6)",
                  f"VIOS vs NOOP, write, {where}", pool, change(W, main("vios"), main("noop")), magnitude=-22.93),
            Claim("W2" + suffix, "Write latency −7.71 % vs PIQ (12 K, mean; Fig. 6)", f"VIOS vs PIQ, write, {where}",
                  pool, change(W, main("vios"), main("piq")), magnitude=-7.71),
            Claim("W3" + suffix, "Write latency up to −17.17 % vs PIQ (src; Fig. 6)", f"VIOS vs PIQ, write, {where}",
                  pool, change(W, main("vios"), main("piq")), magnitude=-17.17, kind="best"),
        ]
    for pe in WEAR:
        out.append(Claim(f"E{pe // 1000}", f"Write latency −{PAPER_WEAR[pe]} % vs PIQ at {pe // 1000} K (Fig. 7)",
                         f"VIOS vs PIQ, write, {pe // 1000} K", "profiles",
                         change(W, ("vios", wear_panel(pe)), ("piq", wear_panel(pe))), magnitude=-PAPER_WEAR[pe]))
    gap = round(PAPER_WEAR[6000] - PAPER_WEAR[15000], 2)
    out += [
        Claim("E+", f"The reduction vs PIQ grows with wear: 2.25 % at 6 K → 9.63 % at 15 K ({gap:+} points; Fig. 7)",
              "(VIOS vs PIQ at 15 K) − (at 6 K), write, points", "profiles",
              trend(W, "vios", "piq", wear_panel(15000), wear_panel(6000)), magnitude=gap, unit="pt"),
        Claim("C1", "Write latency rises from 64 to 32 chips (Fig. 8)", "VIOS at 32 chips vs at 64, write", "profiles",
              change(W, ("vios", chips_panel(32)), ("vios", "main")), sign=+1),
        Claim("C2", "… by up to +59.48 % (src; Fig. 8)", "VIOS at 32 chips vs at 64, write", "profiles",
              change(W, ("vios", chips_panel(32)), ("vios", "main")), sign=+1, magnitude=59.48, kind="best"),
        Claim("C3", "The reduction vs PIQ grows as chips fall (rsrch: 10.92 % at 64 → 13.63 % at 32; §4.2)",
              "(VIOS vs PIQ at 32 chips) − (at 64), write, points", "profiles",
              trend(W, "vios", "piq", chips_panel(32), "main"), unit="pt"),
        Claim("T1", "The reduction vs PIQ grows with base tPROG (rsrch: 4.83 % at 200 µs → 10.85 % at 550; Fig. 9)",
              "(VIOS vs PIQ at 550 µs) − (at 200), write, points", "profiles",
              trend(W, "vios", "piq", tprog_panel(550), tprog_panel(200)), unit="pt"),
    ]
    return out


def panels_of(c):
    """The panels a claim's runs come from."""
    cid = c.cid.rstrip("s")
    if cid[0] == "E" and cid[1:].isdigit():
        return [wear_panel(int(cid[1:]) * 1000)]
    return {"E+": [wear_panel(6000), wear_panel(15000)], "C1": [chips_panel(32)], "C2": [chips_panel(32)],
            "C3": [chips_panel(32)], "T1": [tprog_panel(200), tprog_panel(550)]}.get(cid, ["main"])


def available(ctx, c):
    """Whether the runs a claim needs were made (a --quick run skips most panels)."""
    made = {k[-1] for k in ctx.reports}
    return all(p in made for p in panels_of(c))
