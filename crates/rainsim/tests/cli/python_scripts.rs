//! The unit tests of the scripts (`scripts/test_*.py`: the verdict
//! statistics of the results pages, the fuzz campaign of whole runs), run
//! with `python3 -m unittest` so that `cargo test --workspace` covers them
//! too; the campaign's runs use this build's CLI (`RAINSIM_BIN`). Fails,
//! never skips, when `python3` is missing.

use std::path::Path;
use std::process::Command;

#[test]
fn results_scripts_unittests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let scripts = root.join("scripts");
    assert!(scripts.is_dir(), "scripts directory not found at {}", scripts.display());
    let out = Command::new("python3")
        .args(["-m", "unittest", "discover", "-s", "scripts", "-p", "test_*.py"])
        .current_dir(&root)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("RAINSIM_BIN", env!("CARGO_BIN_EXE_rainsim"))
        .output()
        .unwrap_or_else(|e| {
            panic!("could not run python3 ({e}): the results scripts' unit tests need Python 3.11 or later on PATH")
        });
    let text = format!(
        "--- stdout ---\n{}\n--- stderr ---\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "python3 -m unittest discover -s scripts failed ({:?}):\n{text}", out.status);
    // An empty discovery also exits 0 on older Pythons: insist that tests ran.
    assert!(text.contains("Ran ") && !text.contains("Ran 0 tests"), "no Python test ran:\n{text}");
}
