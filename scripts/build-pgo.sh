#!/usr/bin/env bash
# Builds rainsim with profile-guided optimisation: target/pgo/release/rainsim.
#
#   bash scripts/build-pgo.sh          # about 3 minutes on 2 cores
#
# 1. an instrumented build (target/pgo-gen) runs a training set of built-in
#    workloads: every scheme on the 8-channel RAID-5 preset, the other
#    presets, an array, and a synthetic trace file of each text format;
# 2. llvm-profdata merges the profiles (rustup's `llvm-tools` component,
#    installed here if missing: it must match rustc's LLVM, which Debian's
#    llvm packages do not);
# 3. the optimised build reads them (target/pgo);
# 4. the PGO binary must give the plain release build's reports, byte for
#    byte apart from their `timing` section, on a set of configurations
#    and traces, or the script fails.
# PGO changes code layout and inlining only, never a result; README,
# "Profile-guided build", has what it gains.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$root/target/pgo-work
rm -rf "$work"
mkdir -p "$work/profiles" "$work/traces" "$work/reports"

host=$(rustc -vV | sed -n 's/^host: //p')
profdata=$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata
if [ ! -x "$profdata" ]; then
    echo "== installing rustup's llvm-tools (llvm-profdata matching rustc's LLVM)"
    rustup component add llvm-tools || {
        echo "error: llvm-profdata is missing and 'rustup component add llvm-tools' failed;" >&2
        echo "       install that component, then run this script again" >&2
        exit 1
    }
fi

echo "== instrumented build (target/pgo-gen)"
CARGO_TARGET_DIR=$root/target/pgo-gen RUSTFLAGS="-Cprofile-generate=$work/profiles" \
    cargo build --release --locked -p rainsim
gen=$root/target/pgo-gen/release/rainsim

echo "== training"
for f in ssdsim msr spc systor; do
    python3 scripts/synthetic_trace.py "$work/traces/train.$f" --requests 100000 --format "$f" >/dev/null
done
"$gen" bench --config rep-raid-8ch --requests 200000 --runs 1 >/dev/null
for s in bpu noop piq adaptive vios degraded gc-tolerant-read cr5m fusionraid rep-raid; do
    "$gen" bench --config rep-raid-8ch --scheme "$s" --requests 30000 --runs 1 >/dev/null
done
for f in ssdsim msr spc systor; do
    "$gen" run --config rep-raid-8ch --trace "$work/traces/train.$f" --quiet
done
"$gen" run --config default --quiet --set workload.requests=20000
"$gen" run --config vios-128g --scheme vios --quiet --set workload.requests=20000
"$gen" run --config adaptive-parity-8ch --scheme adaptive --quiet --set workload.requests=20000
"$gen" run --config degraded-mode-8ch --scheme degraded --quiet --set workload.requests=20000
"$gen" run --config dls-4ssd --quiet --set workload.requests=20000

echo "== merging the profiles"
"$profdata" merge -o "$work/merged.profdata" "$work/profiles"

echo "== optimised build (target/pgo)"
CARGO_TARGET_DIR=$root/target/pgo RUSTFLAGS="-Cprofile-use=$work/merged.profdata" \
    cargo build --release --locked -p rainsim
pgo=$root/target/pgo/release/rainsim

echo "== same reports as the plain release build"
cargo build --release --locked -p rainsim
plain=$root/target/release/rainsim
n=0
check() {
    n=$((n + 1))
    "$plain" run --quiet --out "$work/reports/plain.$n.json" "$@"
    "$pgo" run --quiet --out "$work/reports/pgo.$n.json" "$@"
    python3 - "$work/reports/plain.$n.json" "$work/reports/pgo.$n.json" "$*" <<'EOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for r in (a, b):
    r.pop("timing", None)
if a != b:
    sys.exit(f"error: the PGO binary's report differs from the plain build's: run {sys.argv[3]}")
EOF
}
check --config rep-raid-8ch --set workload.requests=20000
check --config rep-raid-8ch --scheme rep-raid --set workload.requests=20000
check --config rep-raid-8ch --trace "$work/traces/train.msr"
check --config vios-128g --scheme vios --set workload.requests=5000
check --config adaptive-parity-8ch --scheme adaptive --set workload.requests=5000 --verify
check --config dls-8ssd-30-400 --set workload.requests=5000
check --config default --scheme gc-tolerant-read --set workload.requests=5000 --set seed=7
echo "ok: $pgo ($n configurations report as the plain build does)"
