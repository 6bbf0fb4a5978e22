#!/usr/bin/env python3
"""Writes a synthetic block trace for benchmarks (`rainsim bench --trace`):
Poisson arrivals (mean 0.1 ms), 4/8/12/16 KiB requests at 4 KiB-aligned
offsets over a 16 GiB span, 70 % writes, from a seeded generator (the same
arguments give the same bytes).

Usage: python3 scripts/synthetic_trace.py OUT [--requests 1000000]
       [--format ssdsim|msr|spc|systor] [--seed 1]

Formats (see the README's trace formats): ssdsim `time_ns dev lsn sectors op`
(op 1 = read); msr `ticks,host,disk,Read|Write,offset,size,resp`; spc
`asu,lba,bytes,r|w,seconds`; systor `Timestamp,Response,IOType,LUN,Offset,Size`
with a header.
"""

import argparse
import random

SPAN = 16 << 30


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--requests", type=int, default=1_000_000)
    ap.add_argument("--format", choices=["ssdsim", "msr", "spc", "systor"], default="ssdsim")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.requests < 1:
        ap.error("--requests must be at least 1")
    r = random.Random(a.seed)
    t_ns = 0.0
    with open(a.out, "w", newline="\n") as f:
        if a.format == "systor":
            f.write("Timestamp,Response,IOType,LUN,Offset,Size\n")
        for _ in range(a.requests):
            t_ns += r.expovariate(1 / 100_000.0)
            sectors = r.choice([8, 16, 24, 32])
            lba = r.randrange(0, SPAN // 512 - 32) // 8 * 8
            write = r.random() < 0.7
            t = int(t_ns)
            if a.format == "ssdsim":
                f.write(f"{t} 0 {lba} {sectors} {0 if write else 1}\n")
            elif a.format == "msr":
                f.write(f"{t // 100},bench,0,{'Write' if write else 'Read'},{lba * 512},{sectors * 512},0\n")
            elif a.format == "spc":
                f.write(f"0,{lba},{sectors * 512},{'w' if write else 'r'},{t / 1e9:.9f}\n")
            else:
                f.write(f"{t / 1e9:.9f},0.000100,{'W' if write else 'R'},0,{lba * 512},{sectors * 512}\n")


if __name__ == "__main__":
    main()
