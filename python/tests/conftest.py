"""Shared fixtures: the repository, the shared trace samples and the CLI binary."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def traces():
    """The shared trace samples: $RAINSIM_TRACES, else <repo>/../shared/traces (fails, never skips)."""
    d = pathlib.Path(os.environ.get("RAINSIM_TRACES") or ROOT.parent / "shared" / "traces")
    assert d.is_dir(), f"trace samples not found at {d}: set RAINSIM_TRACES"
    return d


@pytest.fixture(scope="session")
def cli():
    """The release CLI binary (scripts/test-all.sh builds it); $RAINSIM_BIN overrides."""
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")
    b = pathlib.Path(os.environ.get("RAINSIM_BIN") or target / "release" / "rainsim")
    assert b.is_file(), f"{b} missing: cargo build --release -p rainsim"
    return b


def run_cli(cli, *args):
    return subprocess.run([str(cli), *map(str, args)], capture_output=True, text=True)
