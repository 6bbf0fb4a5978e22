"""Page renderers for scripts/results.py: which runs each page needs, which of
the paper's claims it tests (and how), and the tables. The statistics live in
scripts/verdict.py."""

import statistics
from dataclasses import dataclass, field
from datetime import date

import verdict as V

# The degraded-mode paper replays each trace twice (§4.1); the adaptive paper
# does not say, and we replay twice there too so the two pages compare.
COMMON_SETS = ["trace.repeat=2"]
DAGGER = "†"


@dataclass
class Context:
    """Everything a page needs: reports keyed by (preset, scheme, workload,
    window index, seed, variant label; "main" for the main runs)."""

    reports: dict
    workloads: list
    seeds: list
    window: int
    skipped: list
    skipped_profiles: list
    variants: list
    variant_notes: list
    sens_workloads: list
    sens_seeds: list
    rev: str
    quick: bool = False

    def r(self, preset, scheme, wl, win, seed, variant="main"):
        return self.reports[(preset, scheme, wl, win, seed, variant)]

    def replicates(self, wl):
        return [(win, seed) for win in range(len(wl.windows)) for seed in self.seeds]


# ---------------------------------------------------------------- metrics


def io_time(r):
    return r["latency"]["all"]["sum_ns"]


def gc_count(r):
    return sum(c["gc_count"] for c in r["channels"])


def completed(r):
    return sum(c["ops"] for c in r["channels"])


def sd_completed(r):
    return statistics.pstdev([c["ops"] for c in r["channels"]])


def mean_blocked(r):
    return statistics.fmean(c["avg_blocked"] for c in r["channels"])


def sd_blocked(r):
    return statistics.pstdev([c["avg_blocked"] for c in r["channels"]])


def degraded_ops(r):
    return r["raid"]["degraded_reads"] + r["raid"]["degraded_updates"]


def gc_tolerant_reads(r):
    return r["raid"]["gc_tolerant_reads"]


def cv_blocked(r):
    return r["balance"]["cv_blocked"]


def adjusted(r):
    return r["raid"]["adjusted"]


def moves_per_gc(r):
    g = gc_count(r)
    return sum(c["pages_moved"] for c in r["channels"]) / g if g else None


def _chan(r):
    return [c for c in r["channels"] if c["reads"] > 0]


def _lat_count(cls):
    return lambda r: V.distinct_samples(r["latency"][cls]["count"], r)


def _chan_count(r):
    return V.distinct_samples(min((c["reads"] for c in _chan(r)), default=0), r)


# Percentile classes: (distinct requests of the class in a run, value at a JSON
# key, keys offered). Counts are of distinct requests (V.distinct_samples): the
# sample rule must not count a replayed window's copies twice.
ALL_KEYS = [k for _, k in V.PERCENTILES]
CHAN_KEYS = ["p99_99_ns", "p99_9_ns", "p99_ns"]
PCLASS = {
    "read": (_lat_count("read"), lambda r, k: r["latency"]["read"][k], ALL_KEYS),
    "write": (_lat_count("write"), lambda r, k: r["latency"]["write"][k], ALL_KEYS),
    "all": (_lat_count("all"), lambda r, k: r["latency"]["all"][k], ALL_KEYS),
    # Per-channel read tails: the class is each channel's host reads, so the
    # count is the smallest channel's.
    "chan_mean": (
        _chan_count,
        lambda r, k: statistics.fmean(c["read_" + k] for c in _chan(r)) if _chan(r) else None,
        CHAN_KEYS,
    ),
    "chan_spread": (
        _chan_count,
        lambda r, k: (max(c["read_" + k] for c in _chan(r)) - min(c["read_" + k] for c in _chan(r))) if _chan(r) else None,
        CHAN_KEYS,
    ),
}
PNAME = {k: "p" + p for p, k in V.PERCENTILES}
PKEY = {p: k for p, k in V.PERCENTILES}
PCT = {k: p for p, k in V.PERCENTILES}


# ---------------------------------------------------------------- claims


@dataclass
class Comparison:
    cid: str
    claim: str  # the paper's claim, quoted
    scheme: str
    refs: tuple  # comparator scheme(s)
    presets: list
    metric: object = None  # report -> value (None for a percentile claim)
    metric_ref: object = None  # for the comparator, when it differs
    combine: object = min  # how several comparators make one
    pclass: str = None  # percentile class, for a tail claim ...
    pct: str = None  # ... and the paper's percentile ("99.99")
    sign: int = -1
    magnitude: float = None
    kind: str = "pooled"  # or "best" for an "up to" claim
    at_least: bool = False  # the paper's words are a lower bound ("more than")
    size_stat: str = "mean"  # or "totals": the paper's size is a ratio of totals (metric only)
    mode: str = "rel"  # or "abs"
    sens: bool = False  # in the sensitivity panel
    unit: str = field(default="%")
    caveat: str = ""  # what a reader must know beside this claim's verdict

    def label(self):
        ref = self.refs[0] if len(self.refs) == 1 else f"{self.combine.__name__.replace('fmean', 'mean')}({', '.join(self.refs)})"
        return f"{self.scheme} vs {ref}"


def _counts():
    return {"replicates": 0, "saturated": 0, "n too small": 0, "undefined": 0}


def _replicates(ctx, c, variant, pool, seeds, cnt):
    """(workload, device x window index, reports of the scheme and its comparators)
    of every replicate without a saturated run; cnt counts what was left out."""
    for wl in pool if pool is not None else ctx.workloads:
        k = 0
        for preset in c.presets:
            for win in range(len(wl.windows)):
                if (preset, c.scheme, wl.name, win, seeds[0], variant) not in ctx.reports:
                    continue  # a (device, workload) the page does not run, e.g. a profile on a sweep device
                for seed in seeds:
                    if (preset, c.scheme, wl.name, win, seed, variant) not in ctx.reports:
                        continue
                    rs = [ctx.r(preset, sc, wl.name, win, seed, variant) for sc in (c.scheme,) + tuple(c.refs)]
                    cnt["replicates"] += 1
                    if any(V.saturation(r)[0] for r in rs):
                        cnt["saturated"] += 1
                        continue
                    yield wl.name, k, rs
                k += 1


def _change(c, rs, key, cnt):
    """The paired change of one replicate (None, counted, when it has none)."""
    pc = PCLASS.get(c.pclass)
    if pc:
        if min(pc[0](r) for r in rs) < V.min_samples(PCT[key]):
            cnt["n too small"] += 1
            return None
        new, olds = pc[1](rs[0], key), [pc[1](r, key) for r in rs[1:]]
    else:
        new, olds = c.metric(rs[0]), [(c.metric_ref or c.metric)(r) for r in rs[1:]]
    ch = V.paired_change(new, c.combine(olds) if None not in olds else None, c.mode)
    if ch is None:
        cnt["undefined"] += 1
    return ch


def _pairs(ctx, c, variant, key, pool=None, seeds=None):
    """{workload: strata} of paired changes, and counts of what was left out."""
    cnt, acc = _counts(), {}
    for name, k, rs in _replicates(ctx, c, variant, pool, seeds or ctx.seeds, cnt):
        ch = _change(c, rs, key, cnt)
        if ch is not None:
            acc.setdefault(name, {}).setdefault(k, []).append(ch)
    return {name: list(d.values()) for name, d in acc.items()}, cnt


def _totals(ctx, c, variant, pool, seeds):
    """{workload: (scheme's total, comparator's total)}: per device x window the
    mean over its seeds, summed, as a paper's table totals one run per trace."""
    acc = {}
    for name, k, rs in _replicates(ctx, c, variant, pool, seeds or ctx.seeds, _counts()):
        pair = (c.metric(rs[0]), c.combine([(c.metric_ref or c.metric)(r) for r in rs[1:]]))
        acc.setdefault(name, {}).setdefault(k, []).append(pair)
    return {name: tuple(sum(statistics.fmean(p[i] for p in v) for v in d.values()) for i in (0, 1))
            for name, d in acc.items()}


def evaluate(ctx, c, variant="main", pool=None, seeds=None):
    """verdict.summarize of one comparison (over `pool`, default every workload,
    and `seeds`, default ctx.seeds), plus which percentile it was checked on and
    what was left out."""
    if c.pclass:
        return _evaluate_tail(ctx, c, variant, pool, seeds)
    wls, cnt = _pairs(ctx, c, variant, None, pool, seeds)
    size_ci, ratio = None, None
    if c.size_stat == "totals":
        totals = list(_totals(ctx, c, variant, pool, seeds).values())
        ratio, size_ci = V.ratio_of_totals(totals), V.ratio_of_totals_ci(totals)
    s = V.summarize(wls, c.sign, c.magnitude, c.kind, at_least=c.at_least, size_ci=size_ci,
                    own_size=c.size_stat == "totals")
    s.update(counts=cnt, used=None, note="", ratio_of_totals=(ratio, size_ci) if c.size_stat == "totals" else None)
    return s


def _evaluate_tail(ctx, c, variant, pool, seeds):
    # Never below p90: a tail claim is not checked on the median.
    keys = [k for _, k in V.percentiles_at_or_below(c.pct) if k in PCLASS[c.pclass][2] and k != "p50_ns"]
    tried = []
    for k in keys:
        wls, cnt = _pairs(ctx, c, variant, k, pool, seeds)
        tried.append((k, wls, cnt))
        if len(wls) >= V.MIN_WORKLOADS:
            break
    else:
        # No percentile reaches MIN_WORKLOADS: the one with the most workloads
        # (the highest of those, on a tie).
        tried = [max(tried, key=lambda t: len(t[1]))]
    k, wls, cnt = tried[-1]
    s = V.summarize(wls, c.sign, c.magnitude, c.kind, at_least=c.at_least)
    note = ""
    if k != PKEY[c.pct]:
        note = f"checked on {PNAME[k]}: {PNAME[PKEY[c.pct]]} has n too small"
    s.update(counts=cnt, used=k, note=note, ratio_of_totals=None)
    return s


# ---------------------------------------------------------------- formatting


def table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def fnum(x, unit="%"):
    if x is None:
        return "n/a"
    return f"{x:+.1f} %" if unit == "%" else f"{x:+,.1f}"


def fci(ci, unit="%"):
    if ci is None:
        return "–"
    lo, hi = ci
    return f"[{lo:+.1f}, {hi:+.1f}]" if unit == "%" else f"[{lo:+,.1f}, {hi:+,.1f}]"


def fp(p):
    return f"{p:.3f}" if p >= 0.001 else f"{p:.1e}"


def ms(ns):
    return "–" if ns is None else f"{ns / 1e6:,.3f}"


def s_(ns):
    return f"{ns / 1e9:,.3f}"


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


# How the degraded-mode and adaptive pages replay a workload, and what their seed drives.
REPLAY = "every window is replayed twice (`trace.repeat = 2`)"
SEED_DRIVES = "preconditioning and the synthetic workloads"


def protocol(ctx, replay=REPLAY, seed_drives=SEED_DRIVES):
    n = len(ctx.seeds)
    seeds = f"{ctx.seeds[0]}–{ctx.seeds[-1]}" if n > 1 else str(ctx.seeds[0])
    return "\n".join(
        [
            "## Protocol",
            "",
            f"- **Seeds and windows.** Every (device, scheme, workload) runs with seeds {seeds} (`--set seed=N`; the "
            f"seed drives {seed_drives}). A trace sample longer than "
            f"{ctx.window:,} requests is cut into disjoint windows of {ctx.window:,} records in file order (the config "
            "has no windowing key: the script writes each window to a file in the trace's own format, header kept); "
            f"{replay}. A *replicate* is one (device, window, seed).",
            "- **Paired change.** Per replicate, 100 × (scheme − comparator) / comparator, both run on the same "
            "device, window and seed (a plain difference where the unit says so).",
            f"- **Unit of evidence: the workload.** Per workload, the median of its replicate changes, with a 95 % "
            f"percentile bootstrap interval ({V.BOOT_RESAMPLES:,} resamples, seed {V.BOOT_SEED}; seeds resampled with "
            "replacement within each device × window).",
            "- **Across workloads.** Exact two-sided sign test (binomial, ½) and two-sided Wilcoxon signed-rank test "
            f"(exact null distribution for n ≤ {V.EXACT_WILCOXON_MAX_N}, normal approximation with tie and continuity "
            "correction beyond; zero changes dropped) on the per-workload medians. Pooled change = mean of the "
            "per-workload medians, with a 95 % interval from a two-level bootstrap (workloads with replacement, then "
            f"seeds within them; {V.BOOT_RESAMPLES:,} resamples).",
            "- **Percentiles.** pX is reported only when its class has at least 10 / (1 − X) distinct requests in "
            "the run (p99: 1,000; p99.9: 10,000; p99.99: 100,000 reads); otherwise the cell says *n too small*. A "
            "replayed window's copies count once (the report's count divided by its `trace.repeat`): a request "
            "replayed twice is not two samples of the tail. A tail claim "
            "is checked on the highest percentile, at or below the paper's and not below p90, at which at least "
            f"{V.MIN_WORKLOADS} workloads have valid replicates (replicates without enough samples are left out), "
            "and its row says so.",
            f"- **Saturation.** A run is saturated when its busiest channel is busy ≥ {V.SAT_BUSY:.0%} of the run, "
            f"or the device is still working more than {V.SAT_DRAIN:.0%} of the trace's span after the last arrival "
            "(simulated span > 1.1 × trace span: the queues did not drain at the offered rate). The report has no "
            "per-request time series, so latency growth through the run is seen only through that drain. "
            f"Saturated runs are shown (marked {DAGGER}) but a replicate with a saturated run is left out of every verdict.",
            "- **Verdicts.** *reproduced*: the sign test and the Wilcoxon test both give p < 0.05 in the paper's "
            "direction and the paper's size agrees with ours (a claim without a size needs the direction only); "
            "*direction only (size smaller / larger)*: significant in the paper's direction, the size not; "
            "*inconclusive*: not significant by both tests; *contradicted*: significant in the opposite direction. "
            f"The size, against the pooled 95 % interval: {V.SIZE_RULE}. The smallest two-sided sign-test p "
            f"with n workloads is 2^(1−n): with fewer than {V.MIN_WORKLOADS} workloads every verdict is inconclusive.",
            f"- **Many claims at once.** {V.FAMILY_RULE[0].upper() + V.FAMILY_RULE[1:]} (each column of the "
            "sensitivity panel is a family of its own).",
            "",
        ]
    )


def header(title, command, ctx, devices_text, replay=REPLAY, seed_drives=SEED_DRIVES):
    lines = [
        f"# {title}",
        "",
        f"Generated by `{command}` at commit `{ctx.rev}` on {date.today().isoformat()}. Do not edit by hand:",
        "rerun the command. Every number below comes from the run reports; the paper's numbers are quoted",
        "from its text.",
        "",
    ]
    if ctx.quick:
        lines += ["**Smoke run (`--quick`)**: few seeds and workloads; not a result.", ""]
    lines += [protocol(ctx, replay, seed_drives), "## Workloads", ""]
    for wl in ctx.workloads:
        if wl.kind == "profile":
            lines.append(f"- synthetic profile `{wl.name}` (`rainsim run --workload {wl.name}`)")
        elif len(wl.windows) == 1:
            lines.append(f"- `{wl.name}` ({wl.requests:,} requests, one window)")
        else:
            lines.append(f"- `{wl.name}` ({wl.requests:,} requests; windows: {', '.join(l for l, _ in wl.windows)})")
    if ctx.skipped:
        lines += ["", "Left out (fewer than 100 requests, too short for tail percentiles): "
                  + ", ".join(f"`{n}` ({k})" for n, k in ctx.skipped) + "."]
    if not ctx.skipped_profiles and not any(wl.kind == "profile" for wl in ctx.workloads):
        lines += ["", "No synthetic profiles in this run (none given and no `configs/workloads/*.toml` in this tree)."]
    if ctx.skipped_profiles:
        lines += ["", "Synthetic profiles not run (this build of `rainsim run` has no `--workload` flag): "
                  + ", ".join(f"`{n}`" for n, _ in ctx.skipped_profiles) + "."]
    lines += ["", devices_text, ""]
    return "\n".join(lines)


def _gc_free_groups(ctx, wl, presets, schemes):
    """The main runs of a trace sample, one list of seeds per (device, scheme,
    window); None when a GC ran in any of them."""
    groups = [[ctx.reports[k] for s in ctx.seeds if (k := (p, sc, wl.name, w, s, "main")) in ctx.reports]
              for p in presets for sc in schemes for w in range(len(wl.windows))]
    groups = [g for g in groups if g]
    return None if not groups or any(gc_count(r) for g in groups for r in g) else groups


def gc_free_samples(ctx, presets, schemes):
    """{trace sample: its main runs' groups} for the samples where no GC ran."""
    traces = [wl for wl in ctx.workloads if wl.kind != "profile"]
    return {wl.name: g for wl in traces if (g := _gc_free_groups(ctx, wl, presets, schemes))}


def gc_free_note(ctx, presets, schemes, free=None):
    """What the seed does on the trace samples where no GC ran, from the runs:
    without GC the preconditioned layout the seed draws may change nothing.
    `free`: gc_free_samples(ctx, presets, schemes), when already at hand."""
    traces = [wl for wl in ctx.workloads if wl.kind != "profile"]
    free = gc_free_samples(ctx, presets, schemes) if free is None else free
    same = [n for n, g in free.items() if all(len({io_time(r) for r in rs}) == 1 for rs in g)]
    if not free:
        return ""
    text = (f"**Seeds on GC-free samples.** On {len(free)} of the {len(traces)} trace samples no GC ran in any "
            "main run. On a trace the seed drives only preconditioning (the trace fixes the requests). ")
    if same:
        text += (f"On {len(same)} of them every seed gave the same overall I/O time in every run: without GC the "
                 "seed changed nothing, so their seeds are identical and their intervals zero-width. Such a "
                 "workload counts once all the same (its interval is a point): the workload is the unit.")
    if len(same) < len(free):
        text += (f"{' On the other' if same else 'On'} {len(free) - len(same)} the seeds still differ, through "
                 "what preconditioning draws (the layout and, where LDPC is on, the data's ages).")
    return text


def saturation_table(ctx, presets, schemes):
    rows = []
    for wl in ctx.workloads:
        cells = [f"`{wl.name}`"]
        for p in presets:
            if (p, schemes[0], wl.name, 0, ctx.seeds[0], "main") not in ctx.reports:
                cells.append("not run")  # e.g. a profile on a sweep device
                continue
            rs = [ctx.r(p, sc, wl.name, w, s) for sc in schemes for w, s in ctx.replicates(wl)]
            sat = [r for r in rs if V.saturation(r)[0]]
            busy = med([V.max_busy(r) for r in rs])
            cells.append(f"{len(sat)} of {len(rs)}" + (f" {DAGGER}" if sat else "") + f" (busy {busy:.2f})")
        rows.append(cells)
    return (
        "## Saturated runs\n\nPer device: saturated runs of all schemes and replicates, and the median busy "
        "fraction of the busiest channel.\n\n" + table(["workload"] + presets, rows)
    )


def metric_table(ctx, preset, schemes, fn, fmt):
    """Per workload and scheme, the median over replicates (saturated runs included, marked)."""
    rows = []
    for wl in ctx.workloads:
        cells = [f"`{wl.name}`"]
        for sc in schemes:
            rs = [ctx.r(preset, sc, wl.name, w, s) for w, s in ctx.replicates(wl)]
            mark = f" {DAGGER}" if any(V.saturation(r)[0] for r in rs) else ""
            cells.append(fmt(med([fn(r) for r in rs])) + mark)
        rows.append(cells)
    return table(["workload"] + schemes, rows)


def tail_table(ctx, preset, schemes, cls):
    """p99 / p99.9 / p99.99 per scheme (median over replicates); a percentile
    whose class is too small in any of the cell's runs says so."""
    count, value, _ = PCLASS[cls]
    rows = []
    for wl in ctx.workloads:
        cells = [f"`{wl.name}`"]
        for sc in schemes:
            rs = [ctx.r(preset, sc, wl.name, w, s) for w, s in ctx.replicates(wl)]
            n = min(count(r) for r in rs)  # distinct requests (PCLASS)
            parts = []
            for p in ("99", "99.9", "99.99"):
                parts.append(ms(med([value(r, PKEY[p]) for r in rs])) if V.percentile_valid(p, n) else "n too small")
            mark = f" {DAGGER}" if any(V.saturation(r)[0] for r in rs) else ""
            cells.append(" / ".join(parts) + f" (n ≥ {n:,})" + mark)
        rows.append(cells)
    return table(["workload"] + schemes, rows)


def paper_size(c):
    """The paper's size as the claims table shows it: "up to" for a best-workload
    claim, ≥ for a lower bound."""
    if c.magnitude is None:
        return "direction"
    return ("up to " if c.kind == "best" else "≥ " if c.at_least else "") + fnum(c.magnitude, c.unit)


def _claim_note(s):
    cnt = s["counts"]
    left = [f"{cnt[k]} {k}" for k in ("saturated", "n too small", "undefined") if cnt[k]]
    parts = [V.family_note(s), s["note"],
             ("left out: " + ", ".join(left) + f" of {cnt['replicates']} replicates") if left else ""]
    if s.get("ratio_of_totals"):
        ratio, ci = s["ratio_of_totals"]
        parts.insert(0, f"size held against the ratio of totals: {fnum(ratio)} {fci(ci)}")
    return "; ".join(x for x in parts if x)


def _claim_row(c, s):
    pos, neg, p_sign = s["sign_test"]
    what = PNAME[s["used"]] if s["used"] else c.metric.__name__.replace("_", " ")
    note = _claim_note(s)
    return [c.cid, c.claim, c.label(), what, paper_size(c), f"{len(s['per_workload'])} ({neg} −, {pos} +)",
            f"{fnum(s['pooled'], c.unit)} {fci(s['pooled_ci'], c.unit)}", fp(p_sign), fp(s["wilcoxon"][3]),
            f"**{s['verdict']}**" + (f" ({note})" if note else "")]


def claims_section(ctx, comps, combined=()):
    res = {c.cid: evaluate(ctx, c) for c in comps}
    V.family_adjust(list(res.values()))
    out = ["## The paper's claims: verdicts\n"]
    out.append(
        "Workloads column: how many workloads entered the tests, and how many of their medians went down (−) and "
        "up (+); the rest are exactly 0, ties that both tests drop. Pooled: mean of the per-workload median "
        "changes [95 % interval]. Paper's size: ≥ where the paper's words are a lower bound, \"up to\" for its "
        "largest effect (the protocol's size rule). Units: % unless the claim is in counts.\n\n"
    )
    out.append(table(["id", "paper's claim", "comparison", "metric", "paper's size", "workloads", "pooled change",
                      "sign test p", "Wilcoxon p", "verdict"], [_claim_row(c, res[c.cid]) for c in comps]))
    out += [combined_section(comps, res, combined), caveats(comps), per_workload_section(ctx, comps, res)]
    return "\n".join(x for x in out if x), res


def combined_section(comps, res, combined):
    """Claims the paper makes against both comparators at once ("the least of all
    schemes"): each is worth the weaker of its halves' verdicts."""
    if not combined:
        return ""
    rows = [[" + ".join(ids), text, ", ".join(f"{i}: {res[i]['verdict']}" for i in ids),
             f"**{V.weaker(*(res[i]['verdict'] for i in ids))}**"] for ids, text in combined]
    return ("\n### Claims against both comparators\n\n"
            "The paper says the scheme is the least (or best) of all three; that holds only as far as it holds "
            "against each comparator, so the combined verdict is the weaker of the two rows above.\n\n"
            + table(["ids", "paper's claim", "halves", "combined verdict"], rows))


def caveats(comps):
    notes = [f"- **{c.cid}.** {c.caveat}" for c in comps if c.caveat]
    return "\n### Read with these verdicts\n\n" + "\n".join(notes) + "\n" if notes else ""


def per_workload_section(ctx, comps, res):
    head = ["workload"] + [c.cid for c in comps]
    rows = []
    for wl in ctx.workloads:
        cells = [f"`{wl.name}`"]
        for c in comps:
            w = res[c.cid]["per_workload"].get(wl.name)
            cells.append("–" if w is None else f"{fnum(w['median'], c.unit)} {fci(w['ci'], c.unit)} (n {w['n']})")
        rows.append(cells)
    return ("\n### Per workload: median paired change [95 % bootstrap interval] (replicates)\n\n"
            "– = no usable replicate (saturated, too few samples for the percentile, or no base).\n\n"
            + table(head, rows))


def sensitivity_section(ctx, comps, main_res):
    sens = [c for c in comps if c.sens]
    cols = ["main"] + ctx.variants
    # The main runs too over the variants' seeds: the columns then differ in the setting only.
    # Each column is a family of its own (verdict.family_adjust).
    res = {v: V.family_adjust([evaluate(ctx, c, v, ctx.sens_workloads, ctx.sens_seeds) for c in sens]) for v in cols}
    rows = []
    for i, c in enumerate(sens):
        cells = [c.cid, c.label()]
        for v in cols:
            s = res[v][i]
            used = f", {PNAME[s['used']]}" if s["used"] else ""
            alone = f"; *{s['verdict_alone']}* alone" if "verdict_alone" in s else ""
            cells.append(f"{s['verdict']} ({fnum(s['pooled'], c.unit)}{used}{alone})")
        rows.append(cells)
    out = ["## Sensitivity panel\n"]
    out.append(
        "The main claims re-tested with one setting changed on every run (same devices, windows and seeds, same "
        "protocol) over the sensitivity workloads: "
        + ", ".join(f"`{w.name}`" for w in ctx.sens_workloads)
        + f" (the trace samples and the page's first synthetic profile) with seeds {ctx.sens_seeds}, to bound the "
        "run time; the main-runs "
        "column is re-evaluated over the same workloads and the same seeds. Each cell: verdict (pooled change, "
        "and the percentile "
        "checked for tail claims). "
        "`precondition.layout` moves the page moves per GC; a variant equal to a preset's own setting is that "
        "preset's main run.\n\n"
    )
    for n in ctx.variant_notes:
        out.append(f"{n[0].upper()}{n[1:]}.\n\n")
    out.append(table(["id", "comparison"] + [f"`{v}`" if v != "main" else "main runs" for v in cols], rows))
    return "\n".join(out)


def gc_context(ctx):
    """How much each GC moves and how long it holds its die, from the main runs
    (report gc.mean_ns: moves and erase, per collection)."""
    main = [r for k, r in ctx.reports.items() if k[-1] == "main" and r["gc"]["count"]]
    moves = [m for m in (moves_per_gc(r) for r in main) if m is not None]
    if not moves:
        return ""
    held = [r["gc"]["mean_ns"] / 1e6 for r in main]
    return (f"\nContext for every verdict: our GCs move {min(moves):.0f}–{max(moves):.0f} of 64 pages each on "
            f"average over a main run (aged presets), and a GC holds its die for {min(held):.1f}–{max(held):.1f} ms "
            f"on average over a run (median run {statistics.median(held):.1f} ms; report `gc.mean_ns`). We did not "
            "tune the model to agree.\n")
