//! Building the effective configuration: preset or file → scheme overlay →
//! workload profile (`--workload`) → `--set key=value` overrides, merged as TOML tables and then parsed once
//! (so unknown keys are reported with their path). A preset or file may start
//! with `extends = "<preset or file>"`: it is then an overlay on that base.

use rainsim_model::Config;
use std::path::Path;
use toml::{Table, Value};

/// Device presets shipped with rainsim (`configs/*.toml`), by name.
pub const PRESETS: &[(&str, &str)] = &[
    ("default", include_str!("../../../configs/default.toml")),
    ("rep-raid-8ch", include_str!("../../../configs/rep-raid-8ch.toml")),
    ("rep-raid-8ch-7p1", include_str!("../../../configs/rep-raid-8ch-7p1.toml")),
    ("degraded-mode-8ch", include_str!("../../../configs/degraded-mode-8ch.toml")),
    ("degraded-mode-16ch", include_str!("../../../configs/degraded-mode-16ch.toml")),
    ("degraded-mode-16ch-5p1", include_str!("../../../configs/degraded-mode-16ch-5p1.toml")),
    ("degraded-mode-16ch-7p1", include_str!("../../../configs/degraded-mode-16ch-7p1.toml")),
    ("adaptive-parity-6ch", include_str!("../../../configs/adaptive-parity-6ch.toml")),
    ("adaptive-parity-8ch", include_str!("../../../configs/adaptive-parity-8ch.toml")),
    ("adaptive-parity-8ch-7p1", include_str!("../../../configs/adaptive-parity-8ch-7p1.toml")),
    ("vios-128g", include_str!("../../../configs/vios-128g.toml")),
    ("dls-4ssd", include_str!("../../../configs/dls-4ssd.toml")),
    ("dls-8ssd", include_str!("../../../configs/dls-8ssd.toml")),
    ("dls-4ssd-30-400", include_str!("../../../configs/dls-4ssd-30-400.toml")),
    ("dls-8ssd-30-400", include_str!("../../../configs/dls-8ssd-30-400.toml")),
];

/// Schemes (named sets of policy-axis values, `configs/schemes/*.toml`).
pub const SCHEMES: &[(&str, &str)] = &[
    ("baseline", include_str!("../../../configs/schemes/baseline.toml")),
    ("gc-tolerant-read", include_str!("../../../configs/schemes/gc-tolerant-read.toml")),
    ("degraded", include_str!("../../../configs/schemes/degraded.toml")),
    ("bpu", include_str!("../../../configs/schemes/bpu.toml")),
    ("adaptive", include_str!("../../../configs/schemes/adaptive.toml")),
    ("noop", include_str!("../../../configs/schemes/noop.toml")),
    ("piq", include_str!("../../../configs/schemes/piq.toml")),
    ("vios", include_str!("../../../configs/schemes/vios.toml")),
    ("cr5m", include_str!("../../../configs/schemes/cr5m.toml")),
    ("fusionraid", include_str!("../../../configs/schemes/fusionraid.toml")),
    ("rep-raid", include_str!("../../../configs/schemes/rep-raid.toml")),
];

/// Workload profiles (`configs/workloads/*.toml`): synthetic workloads matched
/// to the papers' trace tables. Only their `[workload]` table is used.
pub const WORKLOADS: &[(&str, &str)] = &[
    ("adaptive-parity-Ali_0", include_str!("../../../configs/workloads/adaptive-parity-Ali_0.toml")),
    ("adaptive-parity-Ali_1", include_str!("../../../configs/workloads/adaptive-parity-Ali_1.toml")),
    ("adaptive-parity-hm_0", include_str!("../../../configs/workloads/adaptive-parity-hm_0.toml")),
    ("adaptive-parity-lun0", include_str!("../../../configs/workloads/adaptive-parity-lun0.toml")),
    ("adaptive-parity-lun1", include_str!("../../../configs/workloads/adaptive-parity-lun1.toml")),
    ("adaptive-parity-lun2", include_str!("../../../configs/workloads/adaptive-parity-lun2.toml")),
    ("degraded-mode-ads_0", include_str!("../../../configs/workloads/degraded-mode-ads_0.toml")),
    ("degraded-mode-hm_1", include_str!("../../../configs/workloads/degraded-mode-hm_1.toml")),
    ("degraded-mode-lun0", include_str!("../../../configs/workloads/degraded-mode-lun0.toml")),
    ("degraded-mode-lun1", include_str!("../../../configs/workloads/degraded-mode-lun1.toml")),
    ("degraded-mode-src2_0", include_str!("../../../configs/workloads/degraded-mode-src2_0.toml")),
    ("degraded-mode-wdev_0", include_str!("../../../configs/workloads/degraded-mode-wdev_0.toml")),
    ("rep-raid-hm_0", include_str!("../../../configs/workloads/rep-raid-hm_0.toml")),
    ("rep-raid-mds_0", include_str!("../../../configs/workloads/rep-raid-mds_0.toml")),
    ("rep-raid-src1_2", include_str!("../../../configs/workloads/rep-raid-src1_2.toml")),
    ("rep-raid-src2_0", include_str!("../../../configs/workloads/rep-raid-src2_0.toml")),
    ("rep-raid-stg_0", include_str!("../../../configs/workloads/rep-raid-stg_0.toml")),
    ("rep-raid-stg_1", include_str!("../../../configs/workloads/rep-raid-stg_1.toml")),
    ("rep-raid-ts_0", include_str!("../../../configs/workloads/rep-raid-ts_0.toml")),
    ("rep-raid-wdev_0", include_str!("../../../configs/workloads/rep-raid-wdev_0.toml")),
    ("rep-raid-web_0", include_str!("../../../configs/workloads/rep-raid-web_0.toml")),
    ("vios-fin", include_str!("../../../configs/workloads/vios-fin.toml")),
    ("vios-hm", include_str!("../../../configs/workloads/vios-hm.toml")),
    ("vios-mds", include_str!("../../../configs/workloads/vios-mds.toml")),
    ("vios-prn", include_str!("../../../configs/workloads/vios-prn.toml")),
    ("vios-proj", include_str!("../../../configs/workloads/vios-proj.toml")),
    ("vios-rsrch", include_str!("../../../configs/workloads/vios-rsrch.toml")),
    ("vios-src", include_str!("../../../configs/workloads/vios-src.toml")),
    ("vios-stg", include_str!("../../../configs/workloads/vios-stg.toml")),
    ("vios-ts", include_str!("../../../configs/workloads/vios-ts.toml")),
    ("vios-usr", include_str!("../../../configs/workloads/vios-usr.toml")),
    ("vios-wdev", include_str!("../../../configs/workloads/vios-wdev.toml")),
    ("vios-web", include_str!("../../../configs/workloads/vios-web.toml")),
];

/// A configuration problem, said for a person.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct SettingsError(pub String);

fn parse_table(text: &str, origin: &str) -> Result<Table, SettingsError> {
    text.parse::<Table>().map_err(|e| SettingsError(format!("{origin}: {e}")))
}

/// Loads a preset by name or a TOML file by path, with what it extends.
pub fn load_base(config: Option<&str>) -> Result<(Table, String), SettingsError> {
    load_layer(config.unwrap_or("default"), 0, None)
}

/// One layer: a preset by name, else a file. `from` is the file that extends
/// this one, if any: a relative path is taken from that file's directory, as
/// an include is, not from the working directory.
fn load_layer(name: &str, depth: u32, from: Option<&Path>) -> Result<(Table, String), SettingsError> {
    if depth > 8 {
        return Err(SettingsError(format!("{name}: 'extends' nests more than 8 deep (a cycle?)")));
    }
    let mut file = None;
    let mut table = if let Some((_, text)) = PRESETS.iter().find(|(n, _)| *n == name) {
        parse_table(text, &format!("preset {name}"))?
    } else {
        let dir = from.and_then(Path::parent).filter(|d| !d.as_os_str().is_empty());
        let path = match dir {
            Some(d) if Path::new(name).is_relative() => d.join(name),
            _ => Path::new(name).to_path_buf(),
        };
        if !path.exists() {
            let names: Vec<&str> = PRESETS.iter().map(|(n, _)| *n).collect();
            let by = from.map(|f| format!(" (extended by {}, looked for {})", f.display(), path.display()));
            return Err(SettingsError(format!(
                "'{name}'{} is neither a file nor a preset; presets: {}",
                by.unwrap_or_default(),
                names.join(", ")
            )));
        }
        let name = &path.display().to_string();
        file = Some(path.clone());
        let text = std::fs::read_to_string(path).map_err(|e| SettingsError(format!("{name}: {e}")))?;
        let table = parse_table(&text, name)?;
        if !table.contains_key("extends") {
            // Parsed alone first, so that a mistake in the file is reported
            // with its line and column (the merged table has lost them).
            toml::from_str::<Config>(&text).map_err(|e| SettingsError(format!("{name}: {e}")))?;
        }
        table
    };
    match table.remove("extends") {
        None => Ok((table, name.to_string())),
        Some(Value::String(base)) => {
            let (mut merged, _) = load_layer(&base, depth + 1, file.as_deref())?;
            merge(&mut merged, table);
            Ok((merged, name.to_string()))
        }
        Some(v) => Err(SettingsError(format!("{name}: 'extends' must be a preset name or file path, not {v}"))),
    }
}

/// Deep-merges `over` into `base` (tables merge, everything else replaces).
pub fn merge(base: &mut Table, over: Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(Value::Table(b)), Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

/// Applies one `key.path=value` override; the value is read as TOML
/// (`8`, `0.5`, `true`, `"x"`, `[1, 2]`) or else taken as a bare string.
/// The bare words `default`, `detect` and `all` remove the key, restoring its
/// default (e.g. `trace.device=all`, `trace.format=detect`).
pub fn apply_set(table: &mut Table, set: &str) -> Result<(), SettingsError> {
    let (key, raw) = set
        .split_once('=')
        .ok_or_else(|| SettingsError(format!("--set '{set}': expected key=value, e.g. raid.stripe_width=8")))?;
    let key = key.trim();
    let raw = raw.trim();
    let value = match format!("v = {raw}").parse::<Table>() {
        Ok(mut t) => t.remove("v").expect("parsed key"),
        // Digits TOML cannot hold would otherwise become a string and fail
        // as "invalid type": say what the limit is.
        Err(_) if raw.parse::<u128>().is_ok() || raw.strip_prefix('-').is_some_and(|d| d.parse::<u128>().is_ok()) => {
            return Err(SettingsError(format!(
                "--set '{set}': {raw} is beyond the integers a configuration can hold \
                 ({} to {}; seeds are 0 to {})",
                i64::MIN,
                i64::MAX,
                i64::MAX
            )))
        }
        Err(_) => Value::String(raw.to_string()),
    };
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(SettingsError(format!("--set '{set}': empty key segment")));
    }
    let mut t = table;
    for p in &parts[..parts.len() - 1] {
        let entry = t.entry(p.to_string()).or_insert_with(|| Value::Table(Table::new()));
        t = match entry {
            Value::Table(inner) => inner,
            _ => return Err(SettingsError(format!("--set '{set}': '{p}' is a value, not a section"))),
        };
    }
    let last = parts[parts.len() - 1].to_string();
    if matches!(raw, "default" | "detect" | "all") {
        t.remove(&last);
    } else {
        t.insert(last, value);
    }
    Ok(())
}

/// The `[workload]` table of a profile, by name or file path.
pub fn load_workload(name: &str) -> Result<Table, SettingsError> {
    let (mut table, origin) = if let Some((_, text)) = WORKLOADS.iter().find(|(n, _)| *n == name) {
        (parse_table(text, &format!("workload {name}"))?, format!("workload {name}"))
    } else if Path::new(name).is_file() {
        let text = std::fs::read_to_string(name).map_err(|e| SettingsError(format!("{name}: {e}")))?;
        (parse_table(&text, name)?, name.to_string())
    } else {
        let names: Vec<&str> = WORKLOADS.iter().map(|(n, _)| *n).collect();
        return Err(SettingsError(format!(
            "unknown workload '{name}' (not a file either); workloads: {}",
            names.join(", ")
        )));
    };
    // `[expect]` holds the published statistics a profile is checked against.
    if let Some(k) = table.keys().find(|k| *k != "workload" && *k != "expect") {
        return Err(SettingsError(format!(
            "{origin}: a workload holds only a [workload] table (and [expect]), not `{k}`; device keys go in a \
             config file (--config) or --set"
        )));
    }
    // Not read by a run, but checked: a misspelt key would leave a number
    // silently unchecked by the profile tests.
    if let Some(e) = table.remove("expect") {
        if let Err(e) = e.try_into::<rainsim_trace::profile::Expect>() {
            return Err(SettingsError(format!("{origin}: [expect]: {e}")));
        }
    }
    match table.remove("workload") {
        // Checked alone, so that a bad key names this file, not the preset.
        Some(Value::Table(w)) => match Value::Table(w.clone()).try_into::<rainsim_trace::SyntheticSpec>() {
            Ok(_) => Ok(w),
            Err(e) => Err(SettingsError(format!("{origin}: [workload]: {e}"))),
        },
        _ => Err(SettingsError(format!("{origin}: no [workload] table"))),
    }
}

/// What the user asked for.
#[derive(Debug, Clone, Default)]
pub struct Request<'a> {
    /// Preset name or file path.
    pub config: Option<&'a str>,
    /// Scheme name.
    pub scheme: Option<&'a str>,
    /// Workload profile name or file: replaces the `[workload]` section.
    pub workload: Option<&'a str>,
    /// `--set` overrides in order.
    pub sets: &'a [String],
}

/// A page size given for statistics or an address map (`--page-bytes`,
/// Python's `page_bytes`): whole 512-byte sectors, 512 B to 1 MiB.
pub fn page_bytes(v: i64) -> Result<u32, String> {
    if !(512..=1 << 20).contains(&v) || v % 512 != 0 {
        return Err(format!("{v} is not a multiple of 512 from 512 to 1048576 (whole sectors up to 1 MiB)"));
    }
    Ok(v as u32)
}

/// The description of a preset, scheme or profile file: the first sentence
/// of its leading comment, cut at a word before `max` characters (with `…`).
pub fn describe(text: &str, max: usize) -> String {
    let joined: Vec<&str> =
        text.lines().map_while(|l| l.trim_start().strip_prefix('#')).map(str::trim).filter(|l| !l.is_empty()).collect();
    let joined = joined.join(" ");
    // A full stop ends the sentence unless it ends an abbreviation (`Fig. 7`, `Eq. 3`).
    const ABBREVIATIONS: [&str; 10] = ["Fig", "Figs", "Eq", "Eqs", "Alg", "Sec", "al", "e.g", "i.e", "cf"];
    let end = joined
        .match_indices(". ")
        .map(|(i, _)| i)
        .find(|&i| !ABBREVIATIONS.contains(&joined[..i].rsplit([' ', '(']).next().unwrap_or("")))
        .map_or(joined.len(), |i| i + 1);
    let first = &joined[..end];
    if first.chars().count() <= max {
        return first.to_string();
    }
    let cut: String = first.chars().take(max).collect();
    let at = cut.rfind(' ').unwrap_or(cut.len());
    format!("{}…", cut[..at].trim_end_matches([',', ';', ':']))
}

/// The scheme a run reports: the one named, else the scheme whose tables,
/// merged where `--scheme` would merge them, give this same configuration
/// (`baseline` first: a preset's own), else `custom` (a configuration with
/// its own `[policy]`, which no scheme overrides unless one is named).
pub fn scheme_label(req: &Request, cfg: &Config) -> String {
    if let Some(s) = req.scheme {
        return s.to_string();
    }
    // The `--set policy.*` overrides are what may make a configuration
    // other than a scheme: they are left out of the candidates.
    let sets: Vec<String> = req.sets.iter().filter(|s| !s.trim_start().starts_with("policy.")).cloned().collect();
    SCHEMES
        .iter()
        .map(|(n, _)| *n)
        .find(|n| resolve(&Request { scheme: Some(n), sets: &sets, ..req.clone() }).is_ok_and(|c| &c == cfg))
        .unwrap_or("custom")
        .to_string()
}

/// Builds and validates the effective configuration.
pub fn resolve(req: &Request) -> Result<Config, SettingsError> {
    let (mut table, origin) = load_base(req.config)?;
    if let Some(s) = req.scheme {
        let Some((_, text)) = SCHEMES.iter().find(|(n, _)| *n == s) else {
            let names: Vec<&str> = SCHEMES.iter().map(|(n, _)| *n).collect();
            return Err(SettingsError(format!("unknown scheme '{s}'; schemes: {}", names.join(", "))));
        };
        // A scheme is a point on every policy axis: the base's own axis
        // choices give way to it (its parameter tables merge as tables do),
        // so that no axis the scheme file leaves at its default survives
        // from a configuration file.
        if let Some(Value::Table(p)) = table.get_mut("policy") {
            p.retain(|_, v| v.is_table());
        }
        merge(&mut table, parse_table(text, &format!("scheme {s}"))?);
    }
    if let Some(w) = req.workload {
        // Replaced, not merged: a profile is a whole workload, and keys left
        // over from the preset would change the statistics it reproduces.
        table.insert("workload".to_string(), Value::Table(load_workload(w)?));
    }
    let had_array = table.contains_key("array");
    for s in req.sets {
        apply_set(&mut table, s)?;
    }
    // A `--set array.KEY` on a single device would make a 4-device array of
    // it unseen: only `array.devices` does that.
    if let (false, Some(Value::Table(a))) = (had_array, table.get("array")) {
        if !a.contains_key("devices") {
            let keys: Vec<String> = a.keys().map(|k| format!("array.{k}")).collect();
            return Err(SettingsError(format!(
                "--set {}: {} has no [array] (it is one device); --set array.devices=N (3 to 64) makes it an \
                 array of N such devices",
                if keys.is_empty() { "array.*".to_string() } else { keys.join(", ") },
                req.config.unwrap_or("default")
            )));
        }
    }
    // Errors of the merged configuration name everything merged into it.
    let mut what = origin;
    if let Some(s) = req.scheme {
        what += &format!(", scheme {s}");
    }
    if let Some(w) = req.workload {
        what += &format!(", workload {w}");
    }
    if !req.sets.is_empty() {
        what += " with --set";
    }
    let cfg: Config = Table::try_into(table).map_err(|e| SettingsError(format!("{what}: {e}")))?;
    cfg.validate().map_err(|e| SettingsError(format!("{what}: {e}")))?;
    if let Some(a) = &cfg.array {
        if rainsim_model::array::shape(&cfg, a).0 == 0 {
            return Err(SettingsError(format!(
                "{what}: array.chunk_kib = {} is more than a device holds ({} bytes host-visible): lower \
                 array.chunk_kib or enlarge the device ([geometry])",
                a.chunk_kib,
                rainsim_model::run::device_capacity_bytes(&cfg)
            )));
        }
    }
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `extends` may chain 8 layers below the named file (a preset last),
    /// not 9: files c0 … cN, each extending the next, cN the preset.
    #[test]
    fn extends_chains_at_most_8_deep() {
        let tmp = tempfile::Builder::new().prefix("rainsim-extends-").tempdir().unwrap();
        let dir = tmp.path();
        let chain = |n: usize| {
            for i in 0..n {
                let base = if i + 1 == n { "default".to_string() } else { format!("c{}.toml", i + 1) };
                std::fs::write(dir.join(format!("c{i}.toml")), format!("extends = \"{base}\"\n")).unwrap();
            }
            load_base(Some(dir.join("c0.toml").to_str().unwrap()))
        };
        // 8 files: the preset at depth 8.
        assert!(chain(8).is_ok());
        let e = chain(9).unwrap_err().0;
        assert!(e.ends_with("default: 'extends' nests more than 8 deep (a cycle?)"), "{e}");
    }

    #[test]
    fn a_description_is_the_first_sentence_of_the_comment() {
        let text = "# gc-tolerant-read: a read (Yan et al., FAST'17),\n# rebuilt from its stripe. Every other\n# axis.\n[policy]\n# not this";
        assert_eq!(describe(text, 200), "gc-tolerant-read: a read (Yan et al., FAST'17), rebuilt from its stripe.");
        assert_eq!(describe(text, 30), "gc-tolerant-read: a read (Yan…");
        assert_eq!(describe("#one line without a stop\nx = 1", 80), "one line without a stop");
        assert_eq!(
            describe("# the model (Eq. 3, Fig. 5, e.g. this). Not this.", 80),
            "the model (Eq. 3, Fig. 5, e.g. this)."
        );
        for (name, text) in PRESETS.iter().chain(SCHEMES) {
            let d = describe(text, 160);
            assert!(d.ends_with('.') || d.ends_with('…'), "{name}: {d}");
        }
    }

    /// Without `--scheme` a configuration keeps its own `[policy]` (the
    /// implicit `baseline` used to overwrite a file's); a preset's is
    /// `baseline`'s, so its runs are what they were.
    #[test]
    fn without_a_scheme_the_configurations_own_policy_stands() {
        for (p, _) in PRESETS {
            let req = Request { config: Some(p), ..Default::default() };
            let own = resolve(&req).unwrap();
            let base = resolve(&Request { scheme: Some("baseline"), ..req.clone() }).unwrap();
            assert!(own == base, "preset {p}: its own policy is not baseline's");
            assert_eq!(scheme_label(&req, &own), "baseline", "preset {p}");
        }
        let dir = tempfile::Builder::new().prefix("rainsim-policy-").tempdir().unwrap();
        let file = dir.path().join("pol.toml");
        let text = "extends = \"default\"\n[policy]\nparity_update = \"adaptive\"\nread_routing = \"degraded\"\n";
        std::fs::write(&file, text).unwrap();
        let path = file.to_str().unwrap();
        let req = Request { config: Some(path), ..Default::default() };
        let cfg = resolve(&req).unwrap();
        assert_eq!(cfg.policy.parity_update, rainsim_model::policy::ParityUpdateKind::Adaptive);
        assert_eq!(cfg.policy.read_routing, rainsim_model::policy::ReadRoutingKind::Degraded);
        assert_eq!(scheme_label(&req, &cfg), "custom");
        // A named scheme still overrides the file's axes.
        let named = Request { scheme: Some("baseline"), ..req.clone() };
        let b = resolve(&named).unwrap();
        assert_eq!(b.policy.parity_update, rainsim_model::policy::ParityUpdateKind::FewestPrereads);
        assert_eq!(scheme_label(&named, &b), "baseline");
        // Axes a scheme file leaves at their defaults are the scheme's too:
        // a file's host scheduler or replication is not baseline's.
        for (axis, want) in [("host_scheduler = \"piq\"", "piq"), ("replication = \"rep-raid\"", "rep-raid")] {
            std::fs::write(&file, format!("extends = \"default\"\n[policy]\n{axis}\n")).unwrap();
            let cfg = resolve(&req).unwrap();
            assert_eq!(scheme_label(&req, &cfg), want, "{axis}");
            let named = resolve(&Request { scheme: Some("baseline"), ..req.clone() }).unwrap();
            assert_eq!(
                named,
                resolve(&Request { config: Some("default"), scheme: Some("baseline"), ..Default::default() }).unwrap(),
                "--scheme baseline over {axis}"
            );
        }
        // A policy axis set on the command line is not a scheme's choice.
        let sets = ["policy.parity_update=bpu".to_string()];
        let set_req = Request { config: Some("default"), sets: &sets, ..Default::default() };
        let cfg = resolve(&set_req).unwrap();
        assert_ne!(scheme_label(&set_req, &cfg), "baseline");
        // A file holding exactly a scheme's tables reports that scheme.
        std::fs::write(&file, format!("extends = \"default\"\n{}", SCHEMES.iter().find(|s| s.0 == "bpu").unwrap().1))
            .unwrap();
        let cfg = resolve(&req).unwrap();
        assert_eq!(scheme_label(&req, &cfg), "bpu");
    }

    /// `--set array.KEY` on a configuration without `[array]` is an error
    /// unless it sets `array.devices` (it once made a 4-device array).
    #[test]
    fn an_array_key_alone_does_not_make_an_array() {
        for set in ["array.queue_depth=0", "array.allocation=dls", "array.fail_device=default"] {
            let sets = [set.to_string()];
            let e = resolve(&Request { config: Some("default"), sets: &sets, ..Default::default() }).unwrap_err();
            assert!(e.0.contains("has no [array]") && e.0.contains("array.devices=N"), "{set}: {e}");
        }
        let sets = ["array.devices=3".to_string(), "array.allocation=rr".to_string()];
        let cfg = resolve(&Request { config: Some("default"), sets: &sets, ..Default::default() }).unwrap();
        assert_eq!(cfg.array.map(|a| a.devices), Some(3));
        let sets = ["array.allocation=rr".to_string()];
        assert!(resolve(&Request { config: Some("dls-4ssd"), sets: &sets, ..Default::default() }).is_ok());
    }

    #[test]
    fn every_preset_and_scheme_resolves() {
        for (p, _) in PRESETS {
            for (s, _) in SCHEMES {
                resolve(&Request { config: Some(p), scheme: Some(s), ..Default::default() })
                    .unwrap_or_else(|e| panic!("preset {p} scheme {s}: {e}"));
            }
        }
    }

    /// An invalid merged configuration is named by all that went into it,
    /// and a plane of one block is not told to raise over-provisioning
    /// (which stays below 1).
    #[test]
    fn invalid_merges_name_their_parts() {
        let sets = vec!["geometry.blocks_per_plane=1".to_string()];
        let req = Request { config: Some("default"), scheme: Some("bpu"), sets: &sets, workload: None };
        let e = resolve(&req).unwrap_err().to_string();
        assert!(e.starts_with("default, scheme bpu with --set: invalid configuration"), "{e}");
        assert!(e.contains("blocks_per_plane to at least 7") && !e.contains("over_provisioning to"), "{e}");
        let sets = vec!["geometry.blocks_per_plane=2".to_string()];
        let req = Request { config: None, scheme: None, sets: &sets, workload: Some("vios-fin") };
        let e = resolve(&req).unwrap_err().to_string();
        assert!(
            e.contains(", workload vios-fin with --set") && e.contains("over_provisioning to at least 0.500"),
            "{e}"
        );
    }

    #[test]
    fn set_overrides_and_rejects_unknown_keys() {
        let sets = vec!["raid.stripe_width=8".to_string(), "seed=99".into(), "policy.read_priority=false".into()];
        let cfg = resolve(&Request { config: Some("adaptive-parity-8ch"), scheme: None, sets: &sets, workload: None })
            .unwrap();
        assert_eq!(cfg.raid.stripe_width, 8);
        assert_eq!(cfg.seed, 99);
        assert!(!cfg.policy.read_priority);
        let bad = vec!["raid.stripe_wdith=8".to_string()];
        let e = resolve(&Request { config: None, scheme: None, sets: &bad, workload: None }).unwrap_err().to_string();
        assert!(e.contains("stripe_wdith"), "{e}");
        let bad = vec!["raid.stripe_width=99".to_string()];
        let e = resolve(&Request { config: None, scheme: None, sets: &bad, workload: None }).unwrap_err().to_string();
        assert!(e.contains("stripe_width"), "{e}");
        let e =
            resolve(&Request { config: Some("no-such"), scheme: None, ..Default::default() }).unwrap_err().to_string();
        assert!(e.contains("rep-raid-8ch"), "lists presets: {e}");
        // A variant preset is its base with its own keys on top.
        let base =
            resolve(&Request { config: Some("degraded-mode-16ch"), scheme: None, ..Default::default() }).unwrap();
        let v =
            resolve(&Request { config: Some("degraded-mode-16ch-7p1"), scheme: None, ..Default::default() }).unwrap();
        assert_eq!(v.raid.stripe_width, 8);
        assert_eq!(Config { raid: base.raid.clone(), ..v }, base);
        // Bare default words clear an optional key set earlier.
        let sets = vec!["trace.device=3".to_string(), "trace.device=all".into(), "trace.format=detect".into()];
        let cfg = resolve(&Request { config: None, scheme: None, sets: &sets, workload: None }).unwrap();
        assert_eq!((cfg.trace.device, cfg.trace.format), (None, None));
    }

    /// Every file in configs/workloads/ is embedded, and each one resolves on
    /// the preset its `[expect]` names, within that preset's capacity.
    #[test]
    fn every_workload_is_embedded_and_fits_its_preset() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/workloads");
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
            .collect();
        files.sort();
        let mut names: Vec<String> = WORKLOADS.iter().map(|(n, _)| n.to_string()).collect();
        names.sort();
        assert_eq!(files, names, "WORKLOADS must list every file in configs/workloads/");
        for (name, text) in WORKLOADS {
            let t: Table = text.parse().unwrap();
            let expect = t["expect"].as_table().unwrap();
            let preset = expect["preset"].as_str().unwrap();
            let cfg = resolve(&Request { config: Some(preset), workload: Some(name), ..Default::default() })
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let cap = rainsim_model::run::capacity_bytes(&cfg) as f64 / (1u64 << 30) as f64;
            let assumed = expect["capacity_gib"].as_float().unwrap();
            assert!(assumed <= cap && cap - assumed < 0.01, "{name}: assumes {assumed} GiB, {preset} has {cap}");
            assert!(cfg.workload.footprint_gib.unwrap() <= cap, "{name}");
            assert_eq!(cfg.workload.requests, expect["requests"].as_integer().unwrap() as u64, "{name}");
        }
        let sets = vec!["workload.read_sizes=[{bytes=512,weight=1.0}]".to_string()];
        let cfg = resolve(&Request { workload: Some("rep-raid-wdev_0"), sets: &sets, ..Default::default() }).unwrap();
        assert_eq!(cfg.workload.read_sizes.len(), 1, "--set still applies after the profile");
        let e = resolve(&Request { workload: Some("no-such"), ..Default::default() }).unwrap_err().to_string();
        assert!(e.contains("unknown workload 'no-such'") && e.contains("degraded-mode-hm_1"), "{e}");
    }
}
