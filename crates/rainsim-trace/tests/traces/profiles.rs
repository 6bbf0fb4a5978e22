//! Every workload profile in `configs/workloads/` reproduces the paper's
//! table row it names, within 5 %. The expected numbers are the profile's
//! `[expect]` table (the paper's numbers, next to the row citation); a new
//! file is covered without touching this test.

use rainsim_trace::profile::Expect;
use rainsim_trace::{generate, stats, SyntheticSpec};
use serde::Deserialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Profile {
    expect: Expect,
    workload: SyntheticSpec,
}

pub fn profile_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/workloads");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    assert!(files.len() >= 3, "no profiles in {}", dir.display());
    files
}

fn within(name: &str, what: &str, got: f64, want: f64) -> Option<String> {
    let rel = (got - want).abs() / want.abs().max(f64::MIN_POSITIVE);
    (rel > 0.05).then(|| format!("{name}: {what} {got:.4} vs the table's {want} ({:.1} % off)", rel * 100.0))
}

#[test]
fn every_profile_matches_its_table_row() {
    let mut errors = Vec::new();
    for path in profile_files() {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let p: Profile = toml::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let e = &p.expect;
        let head: String = text.lines().take_while(|l| l.starts_with('#')).collect::<Vec<_>>().join("\n");
        assert!(head.starts_with("# synthetic:"), "{name}: the header must start with '# synthetic:'");
        for cited in [&e.paper, &e.table, &format!("row {}", e.row)] {
            assert!(head.contains(cited.as_str()), "{name}: the header does not cite {cited}");
        }
        assert!(name.ends_with(&e.row), "{name}: file name and row {} disagree", e.row);
        assert!(e.requests >= 1_000_000, "{name}: {} requests < 1M", e.requests);
        assert_eq!(p.workload.requests, e.requests, "{name}: request count");
        let cap = (e.capacity_gib * (1u64 << 30) as f64) as u64;
        let t = generate(&p.workload, cap, 1).unwrap_or_else(|err| panic!("{name}: {err}"));
        let s = stats(&t.requests, e.update_page_bytes.unwrap_or(8192));
        assert_eq!(s.requests, e.requests, "{name}");
        let kib = |b: f64| b / 1024.0;
        let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
        let checks = [
            Some(("write ratio", s.write_ratio, e.write_ratio)),
            Some(("update ratio", s.update_ratio, e.update_ratio)),
            Some(("mean inter-arrival ms", s.inter_arrival.mean_ns / 1e6, e.mean_interarrival_ms)),
            e.mean_size_kib.map(|w| ("mean request size KiB", kib(s.avg_size_bytes), w)),
            e.write_size_kib.map(|w| ("mean write size KiB", kib(s.avg_write_size), w)),
            e.write_volume_gib.map(|w| ("write volume GiB", gib(s.bytes_written), w)),
        ];
        errors.extend(checks.into_iter().flatten().filter_map(|(what, got, want)| within(&name, what, got, want)));
        eprintln!(
            "{name:<28} {} req, write {:.4}, mean {:.2} KiB, write {:.2} KiB, update {:.4}, written {:.2} GiB, gap {:.3} ms ({} {} {})",
            s.requests,
            s.write_ratio,
            kib(s.avg_size_bytes),
            kib(s.avg_write_size),
            s.update_ratio,
            gib(s.bytes_written),
            s.inter_arrival.mean_ns / 1e6,
            e.preset,
            e.table,
            e.row
        );
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}
