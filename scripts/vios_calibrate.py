"""Arrival rates of the VIOS workload profiles (configs/workloads/vios-*.toml).

The paper's Table 1 gives, per trace, the read and write counts of its first
500,000 I/Os and the share of them that met a conflict under NOOP at 12 K P/E
cycles; it does not say at what rate it replayed them. A profile's mean gap
is therefore the one at which NOOP on the vios-128g preset (its own admission
window, seed 1, the profile's first CAL_REQUESTS requests) counts the row's
conflict ratio: a bisection on the logarithm of the gap. A gap at which the
run saturates (scripts/verdict.py's rule) is never chosen: if the row's ratio
needs one, the smallest unsaturated gap found stands, and it is reported.

    .venv/bin/python scripts/vios_results.py --calibrate

prints the gaps; they are written into the profiles by hand, with the ratio
reached (Table 1's ratio is then an input of the profiles, not a result).
"""

import math

import verdict as V

CAL_REQUESTS = 100_000
CAL_SEED = 1
LO_NS, HI_NS = 20_000, 20_000_000  # gaps searched
TOLERANCE = 0.005  # of the conflict ratio (0.5 percentage points)
STEPS = 12


def conflict_ratio(rainsim, preset, profile, gap_ns):
    """(NOOP's conflict ratio, saturated?) at mean gap `gap_ns`."""
    r = rainsim.run(
        config=preset,
        scheme="noop",
        workload=profile,
        set=[f"workload.requests={CAL_REQUESTS}", f"workload.mean_interarrival_ns={gap_ns}", f"seed={CAL_SEED}"],
    ).data
    return r["conflicts"]["ratio"], V.saturation(r)[0]


def round_gap(ns):
    """Three significant figures, in ns."""
    digits = max(0, int(math.floor(math.log10(ns))) - 2)
    return int(round(ns / 10**digits) * 10**digits)


def calibrate(rainsim, preset, profile, target, log=print):
    """The gap (ns) whose conflict ratio is nearest `target` without saturating,
    with the ratio reached: (gap, ratio, steps)."""
    lo, hi = math.log(LO_NS), math.log(HI_NS)  # the ratio falls as the gap grows
    best = None
    for step in range(STEPS):
        gap = round_gap(math.exp((lo + hi) / 2))
        ratio, sat = conflict_ratio(rainsim, preset, profile, gap)
        log(f"  {profile}: gap {gap:,} ns -> conflicts {ratio:.4f}{' (saturated)' if sat else ''}")
        if sat:
            lo = math.log(gap)  # too busy: longer gaps only
            continue
        if best is None or abs(ratio - target) < abs(best[1] - target):
            best = (gap, ratio)
        if abs(ratio - target) <= TOLERANCE:
            break
        if ratio > target:
            lo = math.log(gap)
        else:
            hi = math.log(gap)
    return best[0], best[1], step + 1
