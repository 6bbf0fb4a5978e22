"""Rep-RAID's results page, part 2: formatting helpers and the page's tables
(per profile, tails, claims, balance, Table 4, GC split and roles, activity,
memory)."""

import statistics

import results_pages as RP
import verdict as V
from rep_raid_claims import (B, C5, F, HEADLINE, NAMES, R, SCHEMES, TABLE4, TRACES, gc_die_time, gc_erases,
    page_moves, reorg_time, rep, write_mean)

# ---------------------------------------------------------------- formatting helpers


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fms(ns, d=2):
    return "–" if ns is None else f"{ns / 1e6:,.{d}f}"


def fint(x):
    return "–" if x is None else f"{x:,.0f}"


def fpct(x):
    return "–" if x is None else f"{x:+.1f} %"


def short(wl):
    return wl.replace("rep-raid-", "")


def paired(reports, preset, scheme, ref, wl, seeds, fn):
    """Paired % changes of scheme against ref over the seeds."""
    out = []
    for s in seeds:
        a, b = reports.get((preset, scheme, wl, s)), reports.get((preset, ref, wl, s))
        if a is not None and b is not None:
            ch = V.paired_change(fn(a), fn(b))
            if ch is not None:
                out.append(ch)
    return out


def have(reports, preset, scheme, wl, seeds):
    """The reports of (preset, scheme, wl) over the seeds that have one (a failed run has none)."""
    return [reports[(preset, scheme, wl, s)] for s in seeds if (preset, scheme, wl, s) in reports]


def vals(reports, preset, scheme, wl, seeds, fn):
    return [fn(r) for r in have(reports, preset, scheme, wl, seeds)]


def sat_mark(reports, preset, scheme, wl, seeds):
    return f" {RP.DAGGER}" if any(V.saturation(r)[0] for r in have(reports, preset, scheme, wl, seeds)) else ""


def per_workload_table(reports, preset, workloads, seeds, fn, fmt, rel=True):
    """Rows per workload: each scheme's median over seeds, and (rel) its median
    paired change against RAID-5 in parentheses."""
    rows = []
    for wl in workloads:
        cells = [f"`{short(wl)}`"]
        for sc in SCHEMES:
            v = med(vals(reports, preset, sc, wl, seeds, fn))
            cell = fmt(v)
            if rel and sc != B:
                cell += f" ({fpct(med(paired(reports, preset, sc, B, wl, seeds, fn)))})"
            cells.append(cell + sat_mark(reports, preset, sc, wl, seeds))
        rows.append(cells)
    return RP.table(["workload"] + [NAMES[s] for s in SCHEMES], rows)


def tail_cell(rs, cls, p):
    if not rs:
        return "–"
    n = min(RP.PCLASS[cls][0](r) for r in rs)
    if not V.percentile_valid(p, n):
        return "n too small"
    return fms(med([r["latency"][cls][RP.PKEY[p]] for r in rs]))


def tail_table(reports, preset, workloads, seeds):
    rows = []
    for wl in workloads:
        cells = [f"`{short(wl)}`"]
        for sc in SCHEMES:
            rs = have(reports, preset, sc, wl, seeds)
            cells.append(" / ".join(tail_cell(rs, cls, "99.99") for cls in ("all", "write", "read")))
        n = min((r["latency"]["read"]["count"] for r in have(reports, preset, B, wl, seeds)), default=None)
        rows.append(cells + [fint(n)])
    return RP.table(["workload"] + [NAMES[s] for s in SCHEMES] + ["fewest reads (RAID-5)"], rows)


def verdict_cell(s):
    note = [V.family_note(s)] if "verdict_alone" in s else []
    if s.get("note"):
        note.append(s["note"])
    cnt = s.get("counts") or {}
    left = [f"{cnt[k]} {k}" for k in ("saturated", "n too small", "undefined") if cnt.get(k)]
    if left:
        note.append("left out: " + ", ".join(left))
    return f"**{s['verdict']}**" + (f" ({'; '.join(note)})" if note else "")


def paper_size(c):
    """RP.paper_size, with a direction-only claim's direction named."""
    if c.magnitude is None:
        return "higher" if c.sign > 0 else "lower"
    return RP.paper_size(c)


def claims_table(comps, res, unit_label):
    """The claims with the paper's size, ours and the verdict; res: {cid: summary}."""
    head = ["id", "the paper's claim (§4)", "paper", "ours: pooled change [95 % CI]", f"{unit_label}s − / +",
            "sign p", "Wilcoxon p", "verdict"]
    rows = []
    for c in comps:
        s = res[c.cid]
        pos, neg, p_sign = s["sign_test"]
        what = f" ({RP.PNAME[s['used']]})" if s.get("used") else ""
        rows.append([c.cid, c.claim, paper_size(c), f"{RP.fnum(s['pooled'])} {RP.fci(s['pooled_ci'])}{what}",
                     f"{neg} / {pos}", RP.fp(p_sign), RP.fp(s["wilcoxon"][3]), verdict_cell(s)])
    return RP.table(head, rows)


def host_data_programs(channel):
    """A channel's programs of host data: the host's pages and, under
    replication, their second copies (`replica_program`, absent from reports
    before 0.2.5, which counted second copies as host programs)."""
    o = channel["ops_by_origin"]
    return o["host_program"] + o.get("replica_program", 0)


def balance_table(reports, preset, workloads, seeds):
    """Per scheme: host programs of the busiest channel over the median channel's, and which channel."""
    rows = []
    for sc in SCHEMES:
        ratios, where = [], []
        for wl in workloads:
            for r in have(reports, preset, sc, wl, seeds):
                hp = [host_data_programs(c) for c in r["channels"]]
                m = statistics.median(hp)
                if m:
                    ratios.append(max(hp) / m)
                    where.append(hp.index(max(hp)))
        if ratios:
            top = max(set(where), key=where.count)
            rows.append([NAMES[sc], f"{min(ratios):.2f}–{max(ratios):.2f} (median {statistics.median(ratios):.2f})",
                         f"channel {top} in {where.count(top)} of {len(where)} runs"])
    return RP.table(["scheme", "busiest channel's host programs ÷ the median channel's", "busiest channel"], rows)


def balance_ratio(reports, preset, scheme, workloads, seeds):
    xs = []
    for wl in workloads:
        for r in have(reports, preset, scheme, wl, seeds):
            hp = [host_data_programs(c) for c in r["channels"]]
            if statistics.median(hp):
                xs.append(max(hp) / statistics.median(hp))
    return statistics.median(xs) if xs else None


def profile_detail(comps, res_w, workloads):
    """Per profile: median change over its seeds for each claim (the profile-unit evaluation)."""
    rows = []
    for c in comps:
        cells = [c.cid]
        for wl in workloads:
            w = res_w[c.cid]["per_workload"].get(wl)
            cells.append("–" if w is None else f"{w['median']:+.1f}")
        rows.append(cells)
    return RP.table(["id"] + [f"`{short(w)}`" for w in workloads], rows)


# ---------------------------------------------------------------- page sections


def table4(reports, preset, seeds):
    head = ["trace"] + [f"{NAMES[s]} ours / paper" for s in SCHEMES] + [
        f"{NAMES[s]} vs RAID-5 ours / paper" for s in SCHEMES[1:]]
    rows, ours_rel, paper_rel = [], {s: [] for s in SCHEMES[1:]}, {s: [] for s in SCHEMES[1:]}
    for t in TRACES:
        wl = f"rep-raid-{t}"
        paper = dict(zip(SCHEMES, TABLE4[t]))
        cells = [f"`{t}`"]
        for sc in SCHEMES:
            cells.append(f"{fint(med(vals(reports, preset, sc, wl, seeds, gc_erases)))} / {paper[sc]:,}")
        for sc in SCHEMES[1:]:
            o = med(paired(reports, preset, sc, B, wl, seeds, gc_erases))
            p = V.paired_change(paper[sc], paper[B])
            ours_rel[sc].append(o)
            paper_rel[sc].append(p)
            cells.append(f"{fpct(o)} / {p:+.2f} %")
        rows.append(cells)
    mean = ["mean of the traces' changes"] + [""] * len(SCHEMES)
    for sc in SCHEMES[1:]:
        o = [x for x in ours_rel[sc] if x is not None]
        mean.append(f"{fpct(statistics.fmean(o) if o else None)} / {statistics.fmean(paper_rel[sc]):+.2f} %")
    rows.append(mean)
    return RP.table(head, rows)


def gc_split_table(reports, preset, workloads, seeds):
    rows = []
    for wl in workloads:
        cells = [f"`{short(wl)}`"]
        for sc in SCHEMES:
            g = med(vals(reports, preset, sc, wl, seeds, gc_die_time))
            o = med(vals(reports, preset, sc, wl, seeds, reorg_time))
            cells.append("–" if g is None else f"{g / 1e9:,.1f} + {o / 1e9:,.2f}")
        rows.append(cells)
    return RP.table(["workload"] + [f"{NAMES[s]}: GC + reorg (s)" for s in SCHEMES], rows)


def roles_table(reports, preset, workloads, seeds):
    rows = []
    keys = ["gc_moves_valid", "gc_moves_semi_valid", "gc_moves_semi_invalid", "gc_moves_replica"]
    for wl in workloads:
        for sc in SCHEMES[1:]:
            rs = have(reports, preset, sc, wl, seeds)
            if not rs:
                continue
            tot = med([page_moves(r) for r in rs])
            parts = [med([rep(r, k) for r in rs]) for k in keys]
            rows.append([f"`{short(wl)}`", NAMES[sc], fint(tot)] + [
                f"{fint(p)} ({100.0 * p / tot:.0f} %)" if tot else fint(p) for p in parts])
    return RP.table(["workload", "scheme", "moves", "valid", "semi-valid", "semi-invalid", "replica"], rows)


def activity_table(reports, preset, workloads, seeds):
    rows = []
    for wl in workloads:
        for sc in SCHEMES[1:]:
            rs = have(reports, preset, sc, wl, seeds)
            if not rs:
                continue

            def m(k):
                return fint(med([rep(r, k) for r in rs]))

            fstar = "–"
            if sc == R:
                fs = [rep(r, "threshold_end") for r in rs]
                hist = [len(rep(r, "threshold_history") or []) for r in rs]
                fstar = f"{med(fs):.2f} ({med(hist):,.0f} values)"
            rows.append([f"`{short(wl)}`", NAMES[sc], m("replica_writes"), m("new_replicas"), m("replica_reads"),
                         m("converted_chunks"),
                         f"{m('conversions_idle')} / {m('conversions_high_water')} / {m('conversions_full_stripe')}",
                         f"{m('reorg_case_a')} / {m('reorg_case_b')}", m("table_full"), m("max_entries"),
                         fint(med([rep(r, "max_table_bytes") for r in rs]) / 1000.0), fstar])
    return RP.table(["workload", "scheme", "replica writes", "new replicas", "replica reads", "chunks converted",
                     "conversions idle / high-water / whole stripe", "reorganisations (a) / (b)", "table full",
                     "max entries", "max table KB", "f* at the end (values taken)"], rows)


def memory_table(reports, preset, workloads, seeds):
    rows = []
    for sc in SCHEMES[1:]:
        rs = [r for wl in workloads for r in have(reports, preset, sc, wl, seeds)]
        if not rs:
            continue
        b = [rep(r, "max_table_bytes") for r in rs]
        e = [rep(r, "max_entries") for r in rs]
        paper = {C5: "452.3 KB (\"related work\")", F: "452.3 KB (\"related work\")", R: "485.8 KB"}[sc]
        rows.append([NAMES[sc], f"{statistics.median(e):,.0f} / {max(e):,}",
                     f"{statistics.median(b) / 1000:,.1f} / {max(b) / 1000:,.1f} KB", paper])
    return RP.table(["scheme", "max entries: median / largest run", "max table bytes (8 B / entry): median / largest",
                     "paper (§4.4)"], rows)


def cr5m_worse(reports, preset, workloads, seeds):
    rows = []
    for wl in workloads:
        ch = paired(reports, preset, C5, B, wl, seeds, write_mean)
        worse = "worse" if ch and all(x > 0 for x in ch) else ("better" if ch and all(x < 0 for x in ch) else "mixed")
        paper = "worse" if short(wl) in ("src1_2", "hm_0") else "better"
        rows.append([f"`{short(wl)}`", paper, ", ".join(f"{x:+.1f} %" for x in ch), worse])
    return RP.table(["trace", "paper (Fig. 8a)", "ours: CR5M vs RAID-5 write latency, per seed", "ours"], rows)


def saturation_lines(reports, preset, workloads, seeds):
    rows = []
    for wl in workloads:
        rs = [r for sc in SCHEMES for r in have(reports, preset, sc, wl, seeds)]
        sat = [r for r in rs if V.saturation(r)[0]]
        busy = max(V.max_busy(r) for r in rs)
        rows.append([f"`{short(wl)}`", f"{len(sat)} of {len(rs)}", f"{busy:.2f}"])
    return RP.table(["workload", "saturated runs", "busiest channel's busy fraction, largest"], rows)


def cpu_minutes(reports):
    return sum(r["timing"]["cpu_s"] + r["timing"]["setup_s"] for r in reports.values()) / 60.0


def headline_table(res_main, comps):
    by = {c.cid: c for c in comps}
    rows = []
    for cid in HEADLINE:
        c, s = by[cid], res_main[cid]
        rows.append([cid, c.claim, RP.paper_size(c),
                     f"{RP.fnum(s['pooled'])} {RP.fci(s['pooled_ci'])}", s["verdict"]])
    return RP.table(["id", "claim", "paper", "ours (pooled, 95 % CI)", "verdict"], rows)
