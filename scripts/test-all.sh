#!/usr/bin/env bash
# Every test, Rust and Python: cargo test and the API docs' links, then the
# Python package (built with maturin into .venv) and its pytest suite. Exits
# non-zero if any test fails or if pytest collects no test.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"

echo "== cargo fmt --check (the code's formatting is rustfmt's, by rustfmt.toml)"
if cargo fmt --version >/dev/null 2>&1; then
  cargo fmt --all -- --check
else
  echo "!! WARNING: rustfmt is missing (rustup component add rustfmt): formatting NOT checked" >&2
fi

echo "== cargo test --workspace --locked"
cargo test --workspace --locked

echo "== cargo doc (a broken or ambiguous link in the API docs fails)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked

echo "== release CLI (the Python tests compare against it)"
cargo build --release --locked -p rainsim

echo "== Python environment (.venv)"
PY="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PY" -m venv .venv
VPY="$ROOT/.venv/bin/python"
"$VPY" -m pip install -q --disable-pip-version-check --upgrade pip
"$VPY" -m pip install -q --disable-pip-version-check \
  "maturin>=1.9,<2" "pytest>=8" "pandas>=2" "pyarrow>=14" "polars>=1" "matplotlib>=3.7" \
  "dask[distributed]>=2024.1" "ray>=2.9" "pillow>=10"

echo "== build the package (maturin develop --release)"
( export VIRTUAL_ENV="$ROOT/.venv" PATH="$ROOT/.venv/bin:$PATH"; maturin develop --release --locked -q )

if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    echo "== installing chromium (apt-get) for the HTML rendering test"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "!! WARNING: chromium is missing and this is not root: the HTML rendering test will be SKIPPED" >&2
    echo "!!          (install it with: apt-get install -y chromium; in CI it is required)" >&2
  fi
fi

echo "== pytest"
set +e
"$VPY" -m pytest -q -rs python/tests scripts/test_verdict.py scripts/test_results.py scripts/test_rebuild_results.py scripts/test_array_rebuild_results.py scripts/test_vios_results.py scripts/test_dls_results.py scripts/test_rep_raid_results.py scripts/test_fuzz_runs.py
rc=$?
set -e
if [ "$rc" = 5 ]; then
  echo "error: pytest collected no test" >&2
  exit 1
fi
exit "$rc"
