"""Statistics of the results pages' verdict protocol (stdlib only, seeded).

scripts/results.py runs the simulations, scripts/results_pages.py renders the
pages; this module holds everything that decides what the numbers mean:

- `paired_change`: the relative (or absolute) change of a scheme against its
  comparator on the same seed and window;
- `bootstrap_ci` / `hierarchical_ci`: percentile bootstrap intervals with a
  fixed seed;
- `sign_test` (exact binomial, two-sided) and `wilcoxon` (signed-rank,
  two-sided; exact for n <= 20, normal approximation beyond);
- `min_samples` / `percentile_valid`: a percentile p is reported only from a
  class with at least 10 / (1 - p) samples;
- `saturation`: whether a run overloaded the device;
- `classify`: the four verdicts.
"""

import math
import random
import statistics
from fractions import Fraction

ALPHA = 0.05
BOOT_RESAMPLES = 10_000
BOOT_SEED = 20221
LEVEL = 0.95
EXACT_WILCOXON_MAX_N = 20
# Saturation: the busiest channel is busy this fraction of the run or more ...
SAT_BUSY = 0.95
# ... or the device is still working after the last arrival for more than this
# fraction of the trace's span (the queues did not drain at the offered rate).
SAT_DRAIN = 0.10



def min_workloads(alpha=None):
    """Fewest workloads at which a two-sided exact sign test can reach alpha:
    the smallest n with 2^(1-n) < alpha (6 at 5 %)."""
    alpha = ALPHA if alpha is None else alpha
    n = 1
    while 2.0 ** (1 - n) >= alpha:
        n += 1
    return n


MIN_WORKLOADS = min_workloads()

REPRODUCED = "reproduced"
DIRECTION_ONLY = "direction only"
INCONCLUSIVE = "inconclusive"
CONTRADICTED = "contradicted"


# ---------------------------------------------------------------- changes


def paired_change(new, old, mode="rel"):
    """Change of `new` against `old`: percent for mode "rel" (None when old is
    0 or either is None), plain difference for mode "abs"."""
    if new is None or old is None:
        return None
    if mode == "abs":
        return float(new - old)
    if old == 0:
        return None
    return 100.0 * (new - old) / old


# ---------------------------------------------------------------- bootstrap


def _quantile_sorted(xs, q):
    """Nearest-rank style percentile of sorted xs: the value at index
    round(q * (len - 1))."""
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))]


def bootstrap_ci(strata, stat=statistics.median, resamples=BOOT_RESAMPLES, seed=BOOT_SEED, level=LEVEL):
    """Percentile bootstrap interval of stat(all values).

    strata: a list of lists (or one flat list). Each resample draws, within
    every stratum, as many values as it holds, with replacement (so every
    window keeps its number of seeds). Returns (lo, hi), or None when there is
    no value."""
    if strata and not isinstance(strata[0], (list, tuple)):
        strata = [strata]
    strata = [list(s) for s in strata if s]
    if not strata:
        return None
    rng = random.Random(seed)
    stats = []
    for _ in range(resamples):
        xs = []
        for s in strata:
            xs.extend(rng.choices(s, k=len(s)))
        stats.append(stat(xs))
    stats.sort()
    a = (1.0 - level) / 2.0
    return _quantile_sorted(stats, a), _quantile_sorted(stats, 1.0 - a)


def hierarchical_ci(workloads, resamples=BOOT_RESAMPLES, seed=BOOT_SEED, level=LEVEL):
    """Pooled interval across workloads: each resample draws workloads with
    replacement, then seeds within each of the drawn workload's strata;
    the statistic is the mean over workloads of the per-workload medians.

    workloads: list of strata lists (as in bootstrap_ci). Returns (lo, hi)."""
    ws = [[list(s) for s in w if s] for w in workloads]
    ws = [w for w in ws if w]
    if not ws:
        return None
    rng = random.Random(seed)
    stats = []
    for _ in range(resamples):
        meds = []
        for w in rng.choices(ws, k=len(ws)):
            xs = []
            for s in w:
                xs.extend(rng.choices(s, k=len(s)))
            meds.append(statistics.median(xs))
        stats.append(statistics.fmean(meds))
    stats.sort()
    a = (1.0 - level) / 2.0
    return _quantile_sorted(stats, a), _quantile_sorted(stats, 1.0 - a)


# ---------------------------------------------------------------- tests


def sign_test(xs):
    """Exact two-sided sign test of median 0. Zeros are dropped.

    Returns (n_pos, n_neg, p) with p = min(1, 2 * P[Bin(n, 1/2) <= min(pos, neg)])."""
    pos = sum(1 for x in xs if x > 0)
    neg = sum(1 for x in xs if x < 0)
    n = pos + neg
    if n == 0:
        return 0, 0, 1.0
    k = min(pos, neg)
    tail = sum(math.comb(n, i) for i in range(k + 1))
    return pos, neg, min(1.0, 2.0 * tail / 2**n)


def sign_verdict(changes):
    """Paired changes (None dropped; each scheme's against its reference, one per
    workload) -> (median, bootstrap interval, n lower, n higher, sign test p,
    verdict), the verdict "lower" or "higher" only when the exact sign test
    reaches ALPHA and the interval excludes 0, else "inconclusive"; None without
    a value."""
    xs = [x for x in changes if x is not None]
    if not xs:
        return None
    ci = bootstrap_ci(xs)
    pos, neg, p = sign_test(xs)
    v = "inconclusive"
    if p < ALPHA and ci and (ci[1] < 0 or ci[0] > 0):
        v = "lower" if ci[1] < 0 else "higher"
    return statistics.median(xs), ci, neg, pos, p, v


SIGN_TABLE = ["| {} | median change | 95 % interval | seeds lower / higher | sign test p | verdict |",
              "|---|---|---|---|---|---|"]


def sign_verdict_row(name, changes, missing="values"):
    """A row of the table SIGN_TABLE heads: :func:`sign_verdict` of `changes`, or
    "inconclusive (no `missing`)" without a value."""
    c = sign_verdict(changes)
    if c is None:
        return f"| {name} | — | — | — | — | inconclusive (no {missing}) |"
    m, ci, neg, pos, p, v = c
    return f"| {name} | {m:+.1f} % | [{ci[0]:+.1f}, {ci[1]:+.1f}] % | {neg} / {pos} | {p:.3f} | {v} |"


def median_ci_cell(xs, digits=0):
    """The median of `xs` (None dropped) with its bootstrap interval, as a table
    cell ("—" without a value, no interval for one)."""
    xs = [x for x in xs if x is not None]
    if not xs:
        return "—"
    m = statistics.median(xs)
    if len(xs) == 1:
        return f"{m:,.{digits}f}"
    lo, hi = bootstrap_ci(xs)
    return f"{m:,.{digits}f} [{lo:,.{digits}f}, {hi:,.{digits}f}]"


def _ranks(values):
    """Average ranks (1-based) of values, ties sharing the mean of their ranks."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        r = (i + j) / 2.0 + 1.0
        for k in range(i, j + 1):
            ranks[order[k]] = r
        i = j + 1
    return ranks


def wilcoxon(xs):
    """Wilcoxon signed-rank test of median 0, two-sided. Zeros are dropped
    (Wilcoxon's convention); tied |x| share the mean rank.

    n <= 20: exact null distribution of W+ (all 2^n sign assignments, by
    dynamic programming on doubled ranks so tied half-ranks stay integers),
    p = min(1, 2 * min(P[W+ <= w], P[W+ >= w])).
    n > 20: normal approximation with tie correction and continuity
    correction. Returns (w_plus, w_minus, n, p)."""
    d = [x for x in xs if x != 0]
    n = len(d)
    if n == 0:
        return 0.0, 0.0, 0, 1.0
    ranks = _ranks([abs(x) for x in d])
    w_plus = sum(r for r, x in zip(ranks, d) if x > 0)
    w_minus = sum(ranks) - w_plus
    if n <= EXACT_WILCOXON_MAX_N:
        twice = [round(2 * r) for r in ranks]
        total = sum(twice)
        counts = [0] * (total + 1)
        counts[0] = 1
        for r in twice:
            for s in range(total, r - 1, -1):
                counts[s] += counts[s - r]
        w2 = round(2 * w_plus)
        lower = sum(counts[: w2 + 1])
        upper = sum(counts[w2:])
        p = min(1.0, 2.0 * min(lower, upper) / 2**n)
        return w_plus, w_minus, n, p
    mu = n * (n + 1) / 4.0
    ties = {}
    for r in ranks:
        ties[r] = ties.get(r, 0) + 1
    var = n * (n + 1) * (2 * n + 1) / 24.0 - sum(t**3 - t for t in ties.values()) / 48.0
    if var <= 0:
        return w_plus, w_minus, n, 1.0
    z = (abs(w_plus - mu) - 0.5) / math.sqrt(var)
    p = min(1.0, math.erfc(max(z, 0.0) / math.sqrt(2.0)))
    return w_plus, w_minus, n, p


# ---------------------------------------------------------------- percentiles

# (percentile, JSON key suffix), highest first.
PERCENTILES = [("99.99", "p99_99_ns"), ("99.9", "p99_9_ns"), ("99", "p99_ns"), ("90", "p90_ns"), ("50", "p50_ns")]


def min_samples(p):
    """Fewest samples a class needs for percentile p (a string or number, in
    percent) to be reported: ceil(10 / (1 - p/100)), in exact arithmetic
    (p99 -> 1,000, p99.9 -> 10,000, p99.99 -> 100,000)."""
    q = 1 - Fraction(str(p)) / 100
    return math.ceil(Fraction(10) / q)


def percentile_valid(p, n):
    return n >= min_samples(p)


def percentiles_at_or_below(p):
    """The PERCENTILES entries not above p, highest first."""
    keys = [x for x, _ in PERCENTILES]
    return PERCENTILES[keys.index(str(p)) :]


# ---------------------------------------------------------------- saturation


def saturation(report):
    """(saturated, reason) of one run report.

    Saturated when the busiest channel's busy fraction is >= SAT_BUSY, or when
    the simulation ran on after the trace's last arrival for more than
    SAT_DRAIN of the trace's span (sim.span_ns > (1 + SAT_DRAIN) x
    trace.span_ns). The report has no per-request time series, so latency
    growth through the run cannot be checked directly; the drain is its
    visible consequence."""
    busy = max((c.get("busy_fraction", 0.0) for c in report.get("channels", [])), default=0.0)
    if busy >= SAT_BUSY:
        return True, f"busiest channel busy {busy:.2f}"
    sim = report.get("sim", {}).get("span_ns")
    tr = (report.get("trace") or {}).get("span_ns")
    if sim and tr and sim > (1.0 + SAT_DRAIN) * tr:
        return True, f"ran {100.0 * (sim - tr) / tr:.0f} % past the last arrival"
    return False, ""


def max_busy(report):
    return max((c.get("busy_fraction", 0.0) for c in report.get("channels", [])), default=0.0)


# ---------------------------------------------------------------- verdicts


def summarize(workloads, sign, magnitude=None, magnitude_kind="pooled", alpha=ALPHA):
    """Test one claim.

    workloads: {name: strata}, strata a list of lists of paired changes (one
    list per device x window, one value per seed). sign: the paper's
    direction (-1 a reduction, +1 an increase). magnitude: the paper's size in
    the same unit (e.g. -38.7 for "-38.7 %"), or None when the claim is a
    direction only. magnitude_kind: "pooled" (the pooled interval must reach
    it) or "best" ("up to": some workload's interval must reach it).

    Returns a dict with the per-workload medians and intervals, the tests and
    the verdict."""
    per = {}
    for name, strata in workloads.items():
        strata = [[x for x in s if x is not None] for s in strata]
        strata = [s for s in strata if s]
        if not strata:
            continue
        allx = [x for s in strata for x in s]
        per[name] = {
            "n": len(allx),
            "median": statistics.median(allx),
            "ci": bootstrap_ci(strata),
            "strata": strata,
        }
    meds = [w["median"] for w in per.values()]
    pos, neg, p_sign = sign_test(meds)
    w_plus, w_minus, n_w, p_wil = wilcoxon(meds)
    pooled = statistics.fmean(meds) if meds else None
    pooled_ci = hierarchical_ci([w["strata"] for w in per.values()]) if per else None
    best_ci = None
    if per:
        best = min if sign < 0 else max
        best_ci = best((w["ci"] for w in per.values()), key=lambda ci: ci[0] if sign < 0 else ci[1])
    v = classify(pos, neg, p_sign, w_plus, w_minus, p_wil, sign, magnitude,
                 pooled_ci if magnitude_kind == "pooled" else best_ci, alpha)
    return {
        "per_workload": per,
        "sign_test": (pos, neg, p_sign),
        "wilcoxon": (w_plus, w_minus, n_w, p_wil),
        "pooled": pooled,
        "pooled_ci": pooled_ci,
        "best_ci": best_ci,
        "magnitude": magnitude,
        "magnitude_kind": magnitude_kind,
        "sign": sign,
        "verdict": v,
    }


def reaches(ci, sign, magnitude):
    """Whether interval ci reaches the paper's magnitude in the paper's
    direction (for a reduction: its lower end is <= magnitude)."""
    if magnitude is None:
        return True
    if ci is None:
        return False
    return ci[0] <= magnitude if sign < 0 else ci[1] >= magnitude


def classify(pos, neg, p_sign, w_plus, w_minus, p_wil, sign, magnitude, ci, alpha=ALPHA):
    """The verdict from the across-workload tests.

    A direction is significant when the sign test and the Wilcoxon test are
    both below alpha and agree (more positive workloads and W+ > W-, or the
    reverse). Significant in the paper's direction: "reproduced" if ci reaches
    the paper's magnitude (always, for a direction-only claim), else
    "direction only". Significant the other way: "contradicted". Otherwise
    "inconclusive"."""
    if p_sign < alpha and p_wil < alpha:
        up = pos > neg and w_plus > w_minus
        down = neg > pos and w_minus > w_plus
        if up or down:
            d = 1 if up else -1
            if d != sign:
                return CONTRADICTED
            return REPRODUCED if reaches(ci, sign, magnitude) else DIRECTION_ONLY
    return INCONCLUSIVE
