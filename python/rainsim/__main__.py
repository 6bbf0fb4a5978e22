"""``python -m rainsim sweep FILE`` and ``python -m rainsim report RUN.json ... -o report.html``."""

from __future__ import annotations

import argparse
import sys

import rainsim
from rainsim._sweep import BACKENDS


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rainsim", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sweep", help="run every combination of a TOML sweep file's [grid] (resumable)")
    s.add_argument("file")
    s.add_argument("--out", help="directory of the reports (default: the file's `out`, else results)")
    s.add_argument("--backend", choices=BACKENDS)
    s.add_argument("--workers", type=int)
    s.add_argument("--address", help="Ray cluster address (backend ray)")
    s.add_argument("--csv", help="also write the frame of the sweep as CSV here")
    r = sub.add_parser("report", help="one self-contained HTML page of one or several JSON reports")
    r.add_argument("runs", nargs="+", help="JSON reports, or a sweep's directory")
    r.add_argument("-o", "--out", default="report.html")
    r.add_argument("--title")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "sweep":
            df = rainsim.sweep(a.file, out=a.out, backend=a.backend, workers=a.workers, address=a.address)
            if a.csv:
                df.write_csv(a.csv) if hasattr(df, "write_csv") else df.to_csv(a.csv, index=False)
            print(df)
        else:
            print(rainsim.report(a.runs, out=a.out, title=a.title))
    except (ValueError, OSError, ImportError) as e:  # RainsimError is a ValueError
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted: the runs completed are stored; run the sweep again to finish it", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
