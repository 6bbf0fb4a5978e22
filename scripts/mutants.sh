#!/usr/bin/env bash
# Mutation testing of the model crate with cargo-mutants (installed on first use).
#
#   scripts/mutants.sh                 # every mutant in the model's core modules (hours on 2 cores)
#   scripts/mutants.sh --shard 0/4     # one quarter of them (run 0/4 … 3/4 on four machines or nights)
#   scripts/mutants.sh --changed       # only mutants in lines changed since origin/main (or HEAD~1)
#   scripts/mutants.sh --file crates/rainsim-model/src/ftl/mod.rs   # one file
#   MUTANTS_TIMEOUT=120 scripts/mutants.sh --file …                  # a fixed test timeout
#
# Results land in mutants.out/ (caught.txt, missed.txt, timeout.txt). A missed
# mutant is killed by a new test or listed, with the reason it is equivalent,
# in docs/mutants-equivalent.md.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cargo-mutants >/dev/null 2>&1; then
  echo "installing cargo-mutants (once)" >&2
  cargo install cargo-mutants --locked
fi
# cargo-mutants builds a copy of the tree elsewhere: point the tests at the
# shared trace samples beside this checkout.
export RAINSIM_TRACES="${RAINSIM_TRACES:-$(cd .. && pwd)/shared/traces}"
# The modules the model's premises live in (issue: ftl, raid, policy, ssd,
# report, verify, flash), the event queue, the channel schedulers, the host
# interface, and everything the report is gathered and built with (metrics/).
files=(
  -f 'crates/rainsim-model/src/ftl/**/*.rs'
  -f 'crates/rainsim-model/src/raid/*.rs'
  -f 'crates/rainsim-model/src/policy/*.rs'
  -f 'crates/rainsim-model/src/ssd/*.rs'
  -f 'crates/rainsim-model/src/metrics/*.rs'
  -f 'crates/rainsim-model/src/verify.rs'
  -f 'crates/rainsim-model/src/flash/*.rs'
  -f 'crates/rainsim-model/src/engine.rs'
  -f 'crates/rainsim-model/src/sched/*.rs'
  -f 'crates/rainsim-model/src/host/*.rs'
)
# Run it on an otherwise idle machine: under load the tests slow down and
# cargo-mutants counts the slowdown as a timeout. The floor of 300 s keeps a
# loaded minute from passing for a hang.
# MUTANTS_TIMEOUT=S sets the test timeout instead (seconds; e.g. 120 on an idle
# machine, for a file whose mutants often hang: each hang then costs 2 minutes, not 5).
args=(--package rainsim-model --test-package rainsim-model --jobs 1)
if [[ -n "${MUTANTS_TIMEOUT:-}" ]]; then
  args+=(--timeout "$MUTANTS_TIMEOUT")
else
  args+=(--timeout-multiplier 3 --minimum-test-timeout 300)
fi
# With cargo-nextest, a caught mutant's test run stops at its first failing
# test (nextest's fail-fast), where cargo test finishes the whole binary.
if cargo nextest --version >/dev/null 2>&1; then
  args+=(--test-tool nextest)
fi
case "${1:-}" in
  --changed)
    base=$(git rev-parse --verify -q origin/main || git rev-parse HEAD~1)
    git diff "$base" > /tmp/rainsim-mutants.diff
    exec cargo mutants "${args[@]}" "${files[@]}" --in-diff /tmp/rainsim-mutants.diff
    ;;
  --file)
    exec cargo mutants "${args[@]}" -f "$2" "${@:3}"
    ;;
  *)
    exec cargo mutants "${args[@]}" "${files[@]}" "$@"
    ;;
esac
