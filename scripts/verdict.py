"""Statistics of the results pages' verdict protocol (stdlib only, seeded).

scripts/results.py runs the simulations, the page modules over
scripts/results_pages.py render the pages; this module holds everything that
decides what the numbers mean:

- `paired_change`: the relative (or absolute) change of a scheme against its
  comparator on the same seed and window;
- `bootstrap_ci` / `hierarchical_ci`: percentile bootstrap intervals with a
  fixed seed;
- `sign_test` (exact binomial, two-sided) and `wilcoxon` (signed-rank,
  two-sided; exact for n <= 20, normal approximation beyond);
- `min_samples` / `percentile_valid` / `distinct_samples`: a percentile p is
  reported only from a class with at least 10 / (1 - p) distinct requests;
- `saturation`: whether a run overloaded the device;
- `size_reading`: where an interval lies against the paper's size;
- `classify`: the verdicts;
- `benjamini_hochberg` / `family_adjust`: one table's verdicts held to a
  false-discovery rate, so that testing many claims at once does not make
  chance results read as reproduced (or contradicted) claims.
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
DIRECTION_ONLY = "direction only"  # the prefix of the two verdicts below
SIZE_SMALLER = f"{DIRECTION_ONLY} (size smaller)"
SIZE_LARGER = f"{DIRECTION_ONLY} (size larger)"
INCONCLUSIVE = "inconclusive"
CONTRADICTED = "contradicted"
# Strongest first: a claim made of two comparisons is worth the weaker one's verdict.
VERDICTS = [REPRODUCED, SIZE_SMALLER, SIZE_LARGER, INCONCLUSIVE, CONTRADICTED]
_STRENGTH = {REPRODUCED: 3, SIZE_SMALLER: 2, SIZE_LARGER: 2, INCONCLUSIVE: 1, CONTRADICTED: 0}


def weaker(*verdicts):
    """The weakest of the verdicts (the first of equals): "Degraded has the least X"
    holds only as far as it holds against every comparator."""
    return min(verdicts, key=lambda v: _STRENGTH[v])


# The size rule, as the pages state it.
SIZE_RULE = (
    "a paper's size is read as *about* that size: *reproduced* needs the interval to contain it; an interval "
    "entirely short of it is *direction only (size smaller)*, one entirely beyond it *direction only (size "
    "larger)*. Where the paper's words are a lower bound (\"more than\", \"over\", \"at least\"; marked ≥) "
    "reaching it suffices. For an \"up to\" claim (the largest effect of any workload): *size larger* when some "
    "workload's interval lies entirely beyond the paper's value, else *reproduced* when some workload's interval "
    "contains it, else *size smaller*"
)


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


def ratio_of_totals(pairs):
    """100 x (sum of the new totals / sum of the old - 1) over (new, old) pairs, one
    per workload: a paper's "N times more in all" is this, not a mean of changes.
    inf when only the old sum is 0, None when both are."""
    a, b = sum(p[0] for p in pairs), sum(p[1] for p in pairs)
    if b == 0:
        return math.inf if a > 0 else None
    return 100.0 * (a / b - 1.0)


def ratio_of_totals_ci(pairs, resamples=BOOT_RESAMPLES, seed=BOOT_SEED, level=LEVEL):
    """Percentile bootstrap interval of ratio_of_totals, workloads drawn with
    replacement (None without a defined resample)."""
    if not pairs:
        return None
    rng = random.Random(seed)
    stats = [ratio_of_totals(rng.choices(pairs, k=len(pairs))) for _ in range(resamples)]
    stats = sorted(x for x in stats if x is not None)
    if not stats:
        return None
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


# Seeds of one workload are replicates, not workloads: what a sign test over them
# can say is whether an effect held across the seeds, never a verdict on a claim.
CONSISTENT_LOWER = "consistently lower"
CONSISTENT_HIGHER = "consistently higher"
NOT_CONSISTENT = "not consistent"


def sign_verdict(changes):
    """Paired changes (None dropped; one per seed of one workload) -> (median,
    bootstrap interval, n lower, n higher, sign test p, reading), the reading
    CONSISTENT_LOWER / CONSISTENT_HIGHER only when the exact sign test reaches
    ALPHA and the interval excludes 0, else NOT_CONSISTENT; None without a value."""
    xs = [x for x in changes if x is not None]
    if not xs:
        return None
    ci = bootstrap_ci(xs)
    pos, neg, p = sign_test(xs)
    v = NOT_CONSISTENT
    if p < ALPHA and ci and (ci[1] < 0 or ci[0] > 0):
        v = CONSISTENT_LOWER if ci[1] < 0 else CONSISTENT_HIGHER
    return statistics.median(xs), ci, neg, pos, p, v


SIGN_TABLE = ["| {} | median change | 95 % interval | seeds lower / higher | sign test p "
              "| across the seeds of this one workload |",
              "|---|---|---|---|---|---|"]


def sign_verdict_row(name, changes, missing="values"):
    """A row of the table SIGN_TABLE heads: :func:`sign_verdict` of `changes`, or
    "— (no `missing`)" without a value."""
    c = sign_verdict(changes)
    if c is None:
        return f"| {name} | — | — | — | — | — (no {missing}) |"
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


def distinct_samples(n, report):
    """A class's sample count `n` in `report`, counting each distinct request once:
    a trace replayed k times (the report's trace.repeat) holds every request k
    times, and its k copies are not k independent samples of the tail."""
    return n // max(1, (report.get("trace") or {}).get("repeat") or 1)


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


def _per_workload(workloads):
    per = {}
    for name, strata in workloads.items():
        strata = [[x for x in s if x is not None] for s in strata]
        strata = [s for s in strata if s]
        if not strata:
            continue
        allx = [x for s in strata for x in s]
        per[name] = {"n": len(allx), "median": statistics.median(allx), "ci": bootstrap_ci(strata), "strata": strata}
    return per


def summarize(workloads, sign, magnitude=None, magnitude_kind="pooled", alpha=ALPHA, at_least=False, size_ci=None,
              own_size=False):
    """Test one claim.

    workloads: {name: strata}, strata a list of lists of paired changes (one
    list per device x window, one value per seed). sign: the paper's
    direction (-1 a reduction, +1 an increase). magnitude: the paper's size in
    the same unit (e.g. -38.7 for "-38.7 %"), or None when the claim is a
    direction only. magnitude_kind: "pooled" (the pooled interval is held
    against it) or "best" ("up to": the workloads' intervals are). at_least:
    the paper's words are a lower bound. size_ci: an interval of the paper's own
    statistic, when it is not the pooled mean of changes (held against the
    magnitude instead of the pooled interval) when own_size, even when None (an
    undefined interval of that statistic reads as short of the size). See
    size_reading.

    Returns a dict with the per-workload medians and intervals, the tests, the
    size reading and the verdict."""
    per = _per_workload(workloads)
    meds = [w["median"] for w in per.values()]
    pos, neg, p_sign = sign_test(meds)
    w_plus, w_minus, n_w, p_wil = wilcoxon(meds)
    pooled_ci = hierarchical_ci([w["strata"] for w in per.values()]) if per else None
    if magnitude is None:
        size = None
    elif magnitude_kind == "best":
        size = best_size_reading([w["ci"] for w in per.values()], sign, magnitude, at_least)
    else:
        size = size_reading(size_ci if own_size else pooled_ci, sign, magnitude, at_least)
    return {
        "per_workload": per,
        "sign_test": (pos, neg, p_sign),
        "wilcoxon": (w_plus, w_minus, n_w, p_wil),
        "pooled": statistics.fmean(meds) if meds else None,
        "pooled_ci": pooled_ci,
        "magnitude": magnitude,
        "magnitude_kind": magnitude_kind,
        "at_least": at_least,
        "sign": sign,
        "size": size,
        "verdict": classify(pos, neg, p_sign, w_plus, w_minus, p_wil, sign, size, alpha),
    }


WITHIN, SMALLER, LARGER = "within", "smaller", "larger"


def size_reading(ci, sign, magnitude, at_least=False):
    """Where interval ci lies against the paper's magnitude, along the paper's
    direction: WITHIN (it contains the magnitude; with at_least, it reaches it),
    SMALLER (entirely short of it, or None) or LARGER (entirely beyond it)."""
    if ci is None:
        return SMALLER
    lo, hi = (ci[0], ci[1]) if sign > 0 else (-ci[1], -ci[0])  # effects in the paper's direction
    m = magnitude if sign > 0 else -magnitude
    if hi < m:
        return SMALLER
    if lo > m and not at_least:
        return LARGER
    return WITHIN


def best_size_reading(cis, sign, magnitude, at_least=False):
    """size_reading of an "up to" claim over the workloads' intervals: LARGER when
    one lies entirely beyond the paper's largest effect, else WITHIN when one
    contains (at_least: reaches) it, else SMALLER."""
    readings = [size_reading(ci, sign, magnitude, at_least) for ci in cis if ci is not None]
    for r in (LARGER, WITHIN):
        if r in readings:
            return r
    return SMALLER


def classify(pos, neg, p_sign, w_plus, w_minus, p_wil, sign, size, alpha=ALPHA):
    """The verdict from the across-workload tests and the size reading.

    A direction is significant when the sign test and the Wilcoxon test are
    both below alpha and agree (more positive workloads and W+ > W-, or the
    reverse). Significant in the paper's direction: REPRODUCED when size is
    WITHIN or None (a direction-only claim), else SIZE_SMALLER / SIZE_LARGER.
    Significant the other way: CONTRADICTED. Otherwise INCONCLUSIVE."""
    if p_sign < alpha and p_wil < alpha:
        up = pos > neg and w_plus > w_minus
        down = neg > pos and w_minus > w_plus
        if up or down:
            if (1 if up else -1) != sign:
                return CONTRADICTED
            return {None: REPRODUCED, WITHIN: REPRODUCED, SMALLER: SIZE_SMALLER, LARGER: SIZE_LARGER}[size]
    return INCONCLUSIVE


# ---------------------------------------------------------------- many claims at once

FAMILY_RULE = (
    "one table's claims are tested together: at 5 % each, some of many claims would come out significant by "
    "chance. Each claim's p is the larger of its sign-test and Wilcoxon p (both must pass), and the table's claims "
    "are held to the Benjamini–Hochberg procedure at a false-discovery rate of 5 % (of the verdicts it leaves "
    "significant, at most 5 % are expected to be so by chance): sorted by p, the claims up to the largest rank k "
    "whose p is below 5 % × k / m stay significant. A verdict significant alone but not after the procedure reads "
    "*inconclusive* and says what it read alone. Equivalence (\"no difference\") claims, decided by an interval, "
    "and claims no workload could test are not in the family; size intervals stay per-claim 95 %. (Holm's family-wise control would need more "
    "workloads than the pages have: over the 22 claims of Rep-RAID's main table it keeps nothing unless the "
    "smallest p is below 5 % / 22 = 0.0023, and nine workloads give a sign test no p below 0.0039.)"
)


def claim_p(s):
    """The p a summarize() result's direction is significant at: the larger
    of its two tests' (classify needs both below alpha)."""
    return max(s["sign_test"][2], s["wilcoxon"][3])


def benjamini_hochberg(ps, q=ALPHA):
    """The Benjamini-Hochberg step-up procedure over p-values `ps` at false
    discovery rate `q`: per hypothesis, (significant, q * r / m at its
    1-based rank r by p). Significant are the hypotheses up to the largest
    rank k whose p is below q * k / m (a step up: a p above its own rank's
    bound may still be significant). Ties keep their input order."""
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    k = max((r + 1 for r, i in enumerate(order) if ps[i] < q * (r + 1) / m), default=0)
    out = [None] * m
    for r, i in enumerate(order):
        out[i] = (r < k, q * (r + 1) / m)
    return out


def family_adjust(results, q=ALPHA):
    """Holds one table's summarize() results to :func:`benjamini_hochberg`,
    in place. Each gets "family": (m, its rank's bound, whether it stays
    significant); a verdict that needed significance (all but INCONCLUSIVE)
    and does not stay so becomes INCONCLUSIVE, its own kept as
    "verdict_alone". Results marked "equivalent" (an interval decides them)
    and results without a workload (nothing was tested) are left out of the
    family. Returns the results."""
    tested = [s for s in results if s is not None and not s.get("equivalent") and s["per_workload"]]
    for s, (kept, bound) in zip(tested, benjamini_hochberg([claim_p(s) for s in tested], q)):
        s["family"] = (len(tested), bound, kept)
        if not kept and s["verdict"] != INCONCLUSIVE:
            s["verdict_alone"] = s["verdict"]
            s["verdict"] = INCONCLUSIVE
    return results


def family_note(s):
    """What a verdict's cell says of the procedure for many claims: empty
    unless the verdict was significant alone and is not after it."""
    if "verdict_alone" not in s:
        return ""
    m, bound, _ = s["family"]
    return (f"*{s['verdict_alone']}* alone (p {claim_p(s):.3g}); over {m} claims (Benjamini–Hochberg) it "
            f"needed p < {bound:.3g}")
