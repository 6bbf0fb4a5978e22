//! Item 6: `rainsim config show` and `rainsim config list`.

use crate::support::*;
use std::path::Path;

/// Parses `config show` output as TOML.
pub fn show(args: &[&str]) -> toml::Table {
    let o = rainsim([&["config", "show"][..], args].concat()).ok();
    o.stdout.parse().unwrap_or_else(|e| panic!("`config show {}` is not TOML: {e}\n{}", args.join(" "), o.stdout))
}

/// An integer at a dotted path of a TOML table.
#[track_caller]
pub fn ti(t: &toml::Table, path: &str) -> i64 {
    tv(t, path).as_integer().unwrap_or_else(|| panic!("`{path}` is not an integer"))
}

/// A float at a dotted path of a TOML table.
#[track_caller]
pub fn tf(t: &toml::Table, path: &str) -> f64 {
    tv(t, path).as_float().unwrap_or_else(|| panic!("`{path}` is not a float"))
}

#[track_caller]
pub fn tv<'a>(t: &'a toml::Table, path: &str) -> &'a toml::Value {
    let (head, last) = path.rsplit_once('.').map_or((None, path), |(h, l)| (Some(h), l));
    let mut cur = t;
    for part in head.into_iter().flat_map(|h| h.split('.')) {
        cur = cur
            .get(part)
            .and_then(|v| v.as_table())
            .unwrap_or_else(|| panic!("config show has no [{part}] (for {path})"));
    }
    cur.get(last).unwrap_or_else(|| panic!("config show has no `{path}`"))
}

#[test]
fn show_with_set_prints_parseable_toml() {
    let t = show(&["--config", "adaptive-parity-8ch", "--set", "raid.stripe_width=8"]);
    assert_eq!(ti(&t, "raid.stripe_width"), 8, "--set not applied");
    assert_eq!(ti(&t, "geometry.channels"), 8);
    // The rest of the preset is untouched by the override.
    assert_eq!(ti(&t, "geometry.pages_per_block"), 64);
    assert_eq!(tv(&t, "raid.level").as_str(), Some("raid5"));
    // Without the override the preset's own 5 + 1 stripe shows.
    let t = show(&["--config", "adaptive-parity-8ch"]);
    assert_eq!(ti(&t, "raid.stripe_width"), 6);
    // Later --set wins over earlier.
    let t = show(&["--config", "adaptive-parity-8ch", "--set", "raid.stripe_width=8", "--set", "raid.stripe_width=7"]);
    assert_eq!(ti(&t, "raid.stripe_width"), 7);
}

/// The baseline scheme's policy values show up in the effective config.
#[test]
fn show_applies_the_baseline_scheme() {
    let scheme: toml::Table =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/schemes/baseline.toml"))
            .expect("read configs/schemes/baseline.toml")
            .parse()
            .expect("baseline.toml is TOML");
    let policy = scheme["policy"].as_table().expect("[policy] in baseline.toml");
    for with_flag in [false, true] {
        let args: &[&str] = if with_flag { &["--scheme", "baseline"] } else { &[] };
        let t = show(args);
        for (k, v) in policy {
            assert_eq!(tv(&t, &format!("policy.{k}")), v, "policy.{k} (scheme flag: {with_flag})");
        }
    }
}

/// A configuration file's own `[policy]` is what runs without `--scheme`
/// (an implicit `baseline` used to overwrite it, so `config show` did not
/// round-trip); the report names it `custom`, and a named scheme still wins.
#[test]
fn a_files_own_policy_runs_without_a_scheme() {
    let dir = TempDir::new("own-policy");
    let file = dir.join("pol.toml");
    std::fs::write(&file, "extends = \"default\"\n[policy]\nparity_update = \"adaptive\"\nread_priority = false\n")
        .unwrap();
    let t = show(&["--config", p(&file)]);
    assert_eq!(tv(&t, "policy.parity_update").as_str(), Some("adaptive"));
    assert_eq!(tv(&t, "policy.read_priority").as_bool(), Some(false));
    let trace = trace("msr_hm_0_slice1000.csv");
    let own = run_report(&dir, "own", &["--config", p(&file), "--trace", p(&trace)]);
    assert_eq!(s(&own, "scheme"), "custom");
    assert!(u(&own, "raid.adjusted") > 0, "the adaptive routine never adjusted a write");
    let named = run_report(&dir, "named", &["--config", p(&file), "--scheme", "baseline", "--trace", p(&trace)]);
    assert_eq!(s(&named, "scheme"), "baseline");
    assert_eq!(u(&named, "raid.adjusted"), 0, "baseline adjusts no routine");
    // What `config show` prints runs as what it was shown from.
    let shown = dir.join("shown.toml");
    std::fs::write(&shown, rainsim(["config", "show", "--config", "dls-4ssd", "--scheme", "adaptive"]).ok().stdout)
        .unwrap();
    assert_eq!(show(&["--config", p(&shown)]), show(&["--config", "dls-4ssd", "--scheme", "adaptive"]));
}

/// A `[precondition]` table with some keys keeps the others' documented
/// defaults (0.5 valid, 0.2 invalid), as no table does; `=default` restores
/// them (one key once left the rest at 0: a fresh device, silently).
#[test]
fn precondition_keys_default_alike_with_or_without_their_table() {
    let dir = TempDir::new("precondition-defaults");
    let file = dir.join("partial.toml");
    std::fs::write(&file, "seed = 1\n[precondition]\nlayout = \"packed\"\n").unwrap();
    let bare = dir.join("bare.toml");
    std::fs::write(&bare, "seed = 1\n").unwrap();
    for cfg in [&file, &bare] {
        let t = show(&["--config", p(cfg)]);
        assert_eq!((tf(&t, "precondition.valid"), tf(&t, "precondition.invalid")), (0.5, 0.2), "{}", p(cfg));
    }
    let t =
        show(&["--config", "default", "--set", "precondition.valid=default", "--set", "precondition.invalid=default"]);
    assert_eq!((tf(&t, "precondition.valid"), tf(&t, "precondition.invalid")), (0.5, 0.2));
}

#[test]
fn list_names_every_preset_and_scheme() {
    let o = rainsim(["config", "list"]).ok();
    let names: Vec<&str> =
        o.stdout.lines().filter(|l| l.starts_with("  ")).filter_map(|l| l.split_whitespace().next()).collect();
    for want in PRESETS.iter().chain(&["baseline"]) {
        assert!(names.contains(want), "`config list` does not name {want}:\n{}", o.stdout);
    }
    // Every preset and scheme file shipped in configs/ is listed.
    let configs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs");
    for sub in [configs.clone(), configs.join("schemes")] {
        for e in std::fs::read_dir(&sub).unwrap_or_else(|e| panic!("{}: {e}", sub.display())) {
            let name = e.expect("dir entry").file_name().to_string_lossy().into_owned();
            if let Some(stem) = name.strip_suffix(".toml") {
                assert!(
                    names.contains(&stem),
                    "{} is not listed by `config list`:\n{}",
                    sub.join(&name).display(),
                    o.stdout
                );
            }
        }
    }
    // Each listed preset resolves.
    let presets_end = o.stdout.find("schemes").expect("schemes section");
    for name in
        o.stdout[..presets_end].lines().filter(|l| l.starts_with("  ")).filter_map(|l| l.split_whitespace().next())
    {
        show(&["--config", name]);
    }
}

/// A scheme's parameter tables left out while at their defaults are shown
/// as comments, with the values a run takes: uncommented and given back as a
/// config file, they change no report.
#[test]
fn show_lists_the_schemes_tables_at_their_defaults() {
    let o = rainsim(["config", "show", "--scheme", "rep-raid"]).ok();
    let (shown, commented) = o.stdout.split_once("# in effect at their defaults").expect("the defaults' block");
    assert!(!shown.contains("[policy.rep_raid]") && !shown.contains("[policy.replicas]"), "{}", o.stdout);
    let block: String = commented
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with('#'))
        .map(|l| l.trim_start_matches("# ").trim_start_matches('#').to_string() + "\n")
        .collect();
    let tables: toml::Table = block.parse().unwrap_or_else(|e| panic!("not TOML once uncommented: {e}\n{block}"));
    assert_eq!(ti(&tables, "policy.rep_raid.window"), 1024);
    assert_eq!(ti(&tables, "policy.replicas.high_water"), 65536);
    // The values a run takes: a run with them written out reports as one without.
    let dir = TempDir::new("show-defaults");
    let file = dir.join("defaults.toml");
    std::fs::write(&file, format!("extends = \"default\"\n{block}")).unwrap();
    let run = |config: &str| {
        let out = dir.join(&format!("{}.json", config.len()));
        rainsim([
            "run",
            "--quiet",
            "--config",
            config,
            "--scheme",
            "rep-raid",
            "--set",
            "workload.requests=3000",
            "--out",
            p(&out),
        ])
        .ok();
        without_timing(read_json(&out))
    };
    let (a, b) = (run("default"), run(p(&file)));
    assert!(a == b, "differs in: {:?}", differing_keys(&a, &b));
    // Set away from its default, a table is shown and drops out of the block.
    let o = rainsim(["config", "show", "--scheme", "rep-raid", "--set", "policy.rep_raid.window=2048"]).ok();
    let (shown, commented) = o.stdout.split_once("# in effect at their defaults").expect("replicas still at defaults");
    assert!(shown.contains("[policy.rep_raid]") && !commented.contains("rep_raid"), "{}", o.stdout);
    assert!(!rainsim(["config", "show"]).ok().stdout.contains("# in effect at their defaults"));
}

/// `config show` refuses a synthetic workload the run would refuse (with the
/// same message), and lets it be when a trace replaces the workload.
#[test]
fn show_refuses_the_workload_a_run_refuses() {
    for (set, want) in
        [("workload.update_ratio=1.1", "update_ratio must be in [0, 1]"), ("workload.read_ratio=1.5", "read_ratio")]
    {
        let shown = rainsim(["config", "show", "--set", set]).fails();
        let run = rainsim(["run", "--quiet", "--set", set]).fails();
        assert!(shown.contains(want) && run.contains(want), "{shown}\n{run}");
    }
    let t = trace("msr_hm_0_slice1000.csv");
    rainsim(["config", "show", "--trace", p(&t), "--set", "workload.update_ratio=1.1"]).ok();
}

/// A file's relative `extends` is taken from the file's own directory, not
/// from where rainsim runs (it once was: the base was not found, or a file
/// of that name in the working directory was used instead); a base that is
/// missing is named with the file that extends it.
#[test]
fn a_relative_extends_is_found_beside_the_file() {
    let dir = TempDir::new("extends");
    let sub = dir.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("base.toml"), "seed = 7\n").unwrap();
    std::fs::write(sub.join("child.toml"), "extends = \"base.toml\"\n[geometry]\nchannels = 6\n").unwrap();
    let t = show(&["--config", p(&sub.join("child.toml"))]);
    assert_eq!((ti(&t, "seed"), ti(&t, "geometry.channels")), (7, 6));
    std::fs::write(sub.join("orphan.toml"), "extends = \"gone.toml\"\n").unwrap();
    let err = rainsim(["config", "show", "--config", p(&sub.join("orphan.toml"))]).fails();
    assert!(err.contains("gone.toml") && err.contains("extended by") && err.contains("orphan.toml"), "{err}");
    assert!(err.contains(p(&sub.join("gone.toml"))), "the path looked for: {err}");
}

/// The configuration keys the README's key table names: every backticked
/// name in a row's first cell, `a.{x,y}` read as `a.x` and `a.y`.
fn readme_keys() -> std::collections::BTreeSet<String> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md")).unwrap();
    let mut keys = std::collections::BTreeSet::new();
    for line in text.lines().filter(|l| l.starts_with("| `")) {
        let first = line.split('|').nth(1).unwrap_or("");
        for name in first.split('`').skip(1).step_by(2) {
            match name.split_once('{') {
                Some((head, rest)) => {
                    for leaf in rest.trim_end_matches('}').split(',') {
                        keys.insert(format!("{head}{}", leaf.trim()));
                    }
                }
                None => {
                    keys.insert(name.to_string());
                }
            }
        }
    }
    keys
}

fn leaf_keys(t: &toml::Table, prefix: &str, out: &mut Vec<String>) {
    for (k, v) in t {
        match v {
            toml::Value::Table(sub) => leaf_keys(sub, &format!("{prefix}{k}."), out),
            _ => out.push(format!("{prefix}{k}")),
        }
    }
}

/// Every key `config show` prints for every preset, and the optional array
/// and fault keys once set, has its row in the README's key table: a new
/// key without documentation fails here.
#[test]
fn every_configuration_key_is_documented_in_the_readme() {
    let documented = readme_keys();
    let presets = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs")).unwrap();
    let mut shows: Vec<Vec<String>> = presets
        .filter_map(|e| {
            let p = e.unwrap().path();
            let name = p.file_stem()?.to_str()?.to_string();
            (p.extension()? == "toml").then(|| vec!["--config".into(), name])
        })
        .collect();
    assert!(shows.len() >= 10, "the presets were found: {}", shows.len());
    let optional =
        ["array.delay_scope=window", "array.delay_window_ns=5", "array.parity=false", "array.allocation=dls"];
    let failing = [
        "array.fail_device=1",
        "array.fail_at_ns=5",
        "array.replace_after_ns=9",
        "array.rebuild=written",
        "array.rebuild_stripes=4",
    ];
    for sets in [&optional[..], &failing[..]] {
        let mut args = vec!["--config".to_string(), "dls-4ssd".to_string()];
        args.extend(sets.iter().flat_map(|s| ["--set".to_string(), s.to_string()]));
        shows.push(args);
    }
    shows.push(
        ["--set", "fault.channel=1", "--set", "fault.second_channel=2", "--set", "fault.second_at_ns=9"]
            .map(String::from)
            .to_vec(),
    );
    let mut missing = std::collections::BTreeSet::new();
    let mut seen = 0;
    for args in &shows {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut keys = Vec::new();
        leaf_keys(&show(&args), "", &mut keys);
        seen += keys.len();
        missing.extend(keys.into_iter().filter(|k| !documented.contains(k)));
    }
    assert!(seen > 1000, "config show printed keys ({seen})");
    assert!(missing.is_empty(), "keys without a row in the README's key table: {missing:?}");
    for k in ["array.delay_scope", "array.delay_window_ns", "array.parity", "ldpc.rber.gamma"] {
        assert!(documented.contains(k), "{k}");
    }
}

/// `ftl.rotating_gc`, left out of serialised configs while off, is shown as
/// a comment on a line of its own, last in [ftl]; the optional keys absent
/// by default are named after the configuration.
#[test]
fn show_comments_rotating_gc_and_names_the_unset_keys() {
    let o = rainsim(["config", "show"]).ok();
    let ftl: Vec<&str> = o.stdout.lines().skip_while(|l| *l != "[ftl]").skip(1).take_while(|l| !l.is_empty()).collect();
    assert_eq!(ftl.last(), Some(&"# rotating_gc = false  (true: ttFlash's rotating GC)"), "{}", o.stdout);
    assert_eq!(o.stdout.matches("rotating_gc").count(), 1, "{}", o.stdout);
    let last = o.stdout.lines().last().unwrap_or_default();
    assert_eq!(
        last,
        "# not set (optional keys, see the README): precondition.free_margin, precondition.target_moves_per_gc"
    );
    let o = rainsim(["config", "show", "--config", "dls-4ssd"]).ok();
    let last = o.stdout.lines().last().unwrap_or_default();
    assert!(
        last.ends_with(
            "array.fail_device, array.fail_at_ns, array.replace_after_ns, array.rebuild_stripes, array.rebuild"
        ),
        "{last}"
    );
}
