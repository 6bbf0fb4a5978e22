"""Rep-RAID's results page, part 1: the runs' presets, schemes and profiles,
the metrics read from a report, the paper's claims (§4) and their evaluation
under the verdict protocol (scripts/verdict.py) with the profile (the
workload) as the unit and its seeds as replicates."""

import results_pages as RP  # (Comparison, evaluate, formatting)
import verdict as V

PRESET = "rep-raid-8ch"
WIDE = "rep-raid-8ch-7p1"
B, C5, F, R = "baseline", "cr5m", "fusionraid", "rep-raid"
# RAID-5 with each chunk bound to one die of its channel, as CR5M binds its copies
# (seed 1): does that binding, rather than replication, set the cost of CR5M's GC?
BS = "baseline-static"
SCHEMES = [B, C5, F, R]
NAMES = {B: "RAID-5", C5: "CR5M", F: "FusionRAID", R: "Rep-RAID"}
TRACES = ["wdev_0", "stg_0", "stg_1", "ts_0", "web_0", "src1_2", "src2_0", "hm_0", "mds_0"]  # Table 3
PROFILES = [f"rep-raid-{t}" for t in TRACES]
MIN_TRACE_REQUESTS = 100

# Table 4: erases caused by GC (RAID-5, CR5M, FusionRAID, Rep-RAID).
TABLE4 = {
    "wdev_0": (10932, 11023, 10965, 10961),
    "stg_0": (23657, 24394, 24042, 23874),
    "stg_1": (9326, 9342, 9327, 9324),
    "ts_0": (17509, 17921, 17729, 17655),
    "web_0": (23365, 23966, 23689, 23583),
    "src1_2": (51429, 51836, 51675, 51567),
    "src2_0": (15975, 16302, 16120, 16059),
    "hm_0": (35011, 37361, 36068, 35638),
    "mds_0": (12219, 12306, 12262, 12258),
}


# ---------------------------------------------------------------- metrics (report -> value)


def write_mean(r):
    return r["latency"]["write"]["mean_ns"] if r["latency"]["write"]["count"] else None


def read_mean(r):
    return r["latency"]["read"]["mean_ns"] if r["latency"]["read"]["count"] else None


def all_mean(r):
    return r["latency"]["all"]["mean_ns"] if r["latency"]["all"]["count"] else None


def page_moves(r):
    """Valid pages GC moved (every role: valid, semi-valid, semi-invalid, replica)."""
    return sum(c["pages_moved"] for c in r["channels"])


def gc_erases(r):
    """Blocks erased by GC (one per GC; wear levelling's erases are not GC's)."""
    return r["gc"]["count"]


def gc_die_time(r):
    """Die time of all GCs, ns (moves and erases, plus case (b)'s stale-slot reads)."""
    return r["gc"]["count"] * r["gc"]["mean_ns"]


def reorg_time(r):
    """Reorganisation time, ns (the report's replication.reorg_ns; 0 without replication)."""
    return (r.get("replication") or {}).get("reorg_ns", 0)


def gc_time(r):
    """Fig. 11's GC time: GC plus stripe reorganisation, ns."""
    return gc_die_time(r) + reorg_time(r)


def rep(r, key):
    return (r.get("replication") or {}).get(key, 0)


# ---------------------------------------------------------------- claims (§4; the spec's claims table)

Cmp = RP.Comparison


def claims(presets):
    P = presets
    return [
        Cmp("W1", "CR5M write latency −6.5 % vs RAID-5 (§4.2.1, Fig. 8a)", C5, (B,), P, write_mean, magnitude=-6.5),
        Cmp("W2", "FusionRAID write latency −22.5 % vs RAID-5 (Fig. 8a)", F, (B,), P, write_mean, magnitude=-22.5),
        Cmp("W3", "Rep-RAID write latency −34.7 % vs RAID-5 (Fig. 8a)", R, (B,), P, write_mean, magnitude=-34.7),
        Cmp("W4", "Rep-RAID write latency −16.3 % vs FusionRAID (Fig. 8a)", R, (F,), P, write_mean, magnitude=-16.3),
        Cmp("R1", "CR5M read latency worse than RAID-5 in most cases (Fig. 8b)", C5, (B,), P, read_mean, sign=+1),
        Cmp("R2", "FusionRAID read latency better than RAID-5 (Fig. 8b)", F, (B,), P, read_mean),
        Cmp("R3", "Rep-RAID read latency better than RAID-5 (Fig. 8b)", R, (B,), P, read_mean),
        Cmp("R4", "Rep-RAID read latency better than FusionRAID (Fig. 8b)", R, (F,), P, read_mean),
        Cmp("A1", "Rep-RAID all-request latency −33.7 % vs RAID-5 (Fig. 8c)", R, (B,), P, all_mean, magnitude=-33.7),
        Cmp("A2", "Rep-RAID all-request latency −28.7 % vs CR5M (Fig. 8c)", R, (C5,), P, all_mean, magnitude=-28.7),
        Cmp("A3", "Rep-RAID all-request latency −16.7 % vs FusionRAID (Fig. 8c)", R, (F,), P, all_mean,
            magnitude=-16.7),
        Cmp("T1", "CR5M p99.99 latency +39.6 % vs RAID-5 (§4.2.2, Fig. 9)", C5, (B,), P, pclass="all", pct="99.99",
            sign=+1, magnitude=39.6),
        Cmp("T2", "Rep-RAID p99.99 latency −7.8 % vs FusionRAID (Fig. 9)", R, (F,), P, pclass="all", pct="99.99",
            magnitude=-7.8),
        Cmp("M1", "Rep-RAID valid page moves −31.9 % vs FusionRAID (§4.3.1, Fig. 10)", R, (F,), P, page_moves,
            magnitude=-31.9),
        Cmp("M2", "RAID-5 moves the fewest pages (Fig. 10; vs the fewest of the other three)", B, (C5, F, R), P,
            page_moves, combine=min),
        Cmp("M3", "CR5M moves the most pages in most traces (Fig. 10; vs the most of the other three)", C5,
            (B, F, R), P, page_moves, combine=max, sign=+1),
        # §2.3: "more page moves by over than 4.4X and 2.5X": lower bounds.
        Cmp("M4", "CR5M moves > 4.4× the pages of RAID-5 (§2.3, Fig. 5a; +340 %)", C5, (B,), P, page_moves, sign=+1,
            magnitude=340.0, at_least=True),
        Cmp("M5", "FusionRAID moves > 2.5× the pages of RAID-5 (§2.3, Fig. 5a; +150 %)", F, (B,), P, page_moves,
            sign=+1, magnitude=150.0, at_least=True),
        Cmp("E1", "Rep-RAID GC erases +0.69 % vs RAID-5 (§4.3.2, Table 4)", R, (B,), P, gc_erases, sign=+1,
            magnitude=0.69),
        Cmp("E2", "FusionRAID GC erases +1.08 % vs RAID-5 (Table 4)", F, (B,), P, gc_erases, sign=+1, magnitude=1.08),
        Cmp("E3", "CR5M GC erases +2.15 % vs RAID-5 (Table 4)", C5, (B,), P, gc_erases, sign=+1, magnitude=2.15),
        Cmp("G1", "Rep-RAID GC time (with reorganisation) −12.1 % vs FusionRAID (§4.3.3, Fig. 11)", R, (F,), P,
            gc_time, magnitude=-12.1),
    ]


# The paper's Rep-RAID vs FusionRAID headline comparisons, in the order of the brief's summary.
HEADLINE = ["W4", "T2", "M1", "G1", "A3", "W3", "A1", "E1"]


class Workload:
    """What results_pages' evaluation needs of a workload: a name and one window."""

    def __init__(self, name, kind="profile", requests=None, path=None, fmt=None):
        self.name, self.kind, self.requests, self.path, self.fmt = name, kind, requests, path, fmt
        self.windows = [("all", path)]

def complete(reports, preset, workloads, seeds):
    """{workload: [seeds with a report of every scheme]}."""
    return {w: [s for s in seeds if all((preset, sc, w, s) in reports for sc in SCHEMES)] for w in workloads}


# ---------------------------------------------------------------- evaluation


def context(reports, preset, workloads, seeds):
    """A results_pages.Context over reports[(preset, scheme, workload, seed)],
    with only the (workload, seed) pairs every scheme has a report of. The
    workload is the unit and its seeds are replicates (renumbered 0, 1, ... so
    that a failed first seed does not hide the rest): a profile's seeds redraw
    one workload, they are not more workloads."""
    ok = complete(reports, preset, workloads, seeds)
    rs, wls = {}, []
    for w in workloads:
        if not ok[w]:
            continue
        wls.append(Workload(w))
        for i, s in enumerate(ok[w]):
            for sc in SCHEMES:
                rs[(preset, sc, w, 0, i, "main")] = reports[(preset, sc, w, s)]
    sds = list(range(max([len(v) for v in ok.values()] + [1])))
    return RP.Context(reports=rs, workloads=wls, seeds=sds, window=0, skipped=[], skipped_profiles=[], variants=[],
                      variant_notes=[], sens_workloads=[], sens_seeds=[], rev="")


def evaluate_all(reports, preset, workloads, seeds, comps):
    """{claim id: results_pages.evaluate(...)}, the workload as the unit; the
    claims are one family (verdict.family_adjust)."""
    ctx = context(reports, preset, workloads, seeds)
    res = {c.cid: RP.evaluate(ctx, c) for c in comps}
    V.family_adjust(list(res.values()))
    return res
