//! `rainsim config show` and `rainsim config list`.

use super::{out, resolve, Res};
use crate::settings::{self, PRESETS, SCHEMES, WORKLOADS};
use crate::Setup;
use rainsim_model::Config;

/// `rainsim config show`.
pub fn config_show(setup: &Setup) -> Res {
    let cfg = resolve(setup, setup.scheme.as_deref(), &[])?;
    // The run would refuse this workload: so does its configuration's display.
    if setup.trace.is_none() {
        cfg.workload.validate()?;
    }
    let mut text = toml::to_string_pretty(&cfg)?;
    // `ftl.rotating_gc` is left out of serialised configs while off (so that
    // reports stay as they were); show it as a comment, last in [ftl], so the
    // output still equals the report's `config`.
    if !cfg.ftl.rotating_gc {
        if let Some(at) = text.find("[ftl]\n") {
            let end = text[at..].find("\n\n").map_or(text.len(), |e| at + e + 1);
            text.insert_str(end, "# rotating_gc = false  (true: ttFlash's rotating GC)\n");
        }
    }
    outf!("{text}");
    let defaults = scheme_tables_at_defaults(&cfg)?;
    if !defaults.is_empty() {
        outln!("\n# in effect at their defaults (left out above and of the report's `config`):");
        for line in defaults.lines() {
            outln!("{}", if line.is_empty() { "#".to_string() } else { format!("# {line}") });
        }
    }
    // Keys that are absent by default do not appear above; say they exist.
    let p = &cfg.precondition;
    let healthy = cfg.array.as_ref().is_some_and(|a| a.fail_device.is_none());
    let kept = cfg.array.as_ref().is_some_and(|a| a.replace_after_ns.is_none());
    let unset: Vec<&str> = [
        ("precondition.free_margin", p.free_margin.is_none()),
        ("precondition.hot_utilization", p.hot_utilization.is_none()),
        ("precondition.target_moves_per_gc", p.target_moves_per_gc.is_none()),
        ("array.fail_device, array.fail_at_ns", healthy),
        ("array.replace_after_ns, array.rebuild_stripes, array.rebuild", kept),
    ]
    .iter()
    .filter(|(_, unset)| *unset)
    .map(|(k, _)| *k)
    .collect();
    if !unset.is_empty() {
        outln!("\n# not set (optional keys, see the README): {}", unset.join(", "));
    }
    Ok(())
}

/// The parameter tables of the configuration's schemes that serialised
/// configs leave out while at their defaults (so that reports of runs
/// without them stay as they were), as TOML: empty when none is in effect.
fn scheme_tables_at_defaults(cfg: &Config) -> Result<String, toml::ser::Error> {
    use rainsim_model::policy::{replication::ReplicationKind, spec::BlockAllocationKind};
    let p = &cfg.policy;
    let mut policy = toml::Table::new();
    let mut put = |key: &str, value: Result<toml::Value, toml::ser::Error>| value.map(|v| policy.insert(key.into(), v));
    if p.replication != ReplicationKind::None && p.replicas.is_default() {
        put("replicas", toml::Value::try_from(&p.replicas))?;
    }
    if p.replication == ReplicationKind::RepRaid && p.rep_raid.is_default() {
        put("rep_raid", toml::Value::try_from(&p.rep_raid))?;
    }
    if p.block_allocation == BlockAllocationKind::VariationAware && p.variation_aware.is_default() {
        put("variation_aware", toml::Value::try_from(&p.variation_aware))?;
    }
    if policy.is_empty() {
        return Ok(String::new());
    }
    let mut root = toml::Table::new();
    root.insert("policy".into(), toml::Value::Table(policy));
    toml::to_string_pretty(&root)
}

/// `rainsim config list`.
pub fn config_list() -> Res {
    outln!("presets (--config NAME):");
    for (name, text) in PRESETS {
        outln!("  {name:<22} {}", settings::describe(text, 160));
    }
    outln!("schemes (--scheme NAME):");
    for (name, text) in SCHEMES {
        outln!("  {name:<22} {}", settings::describe(text, 160));
    }
    outln!("workloads (--workload NAME; synthetic, matched to a paper's trace table):");
    for (name, text) in WORKLOADS {
        let first = text.lines().next().unwrap_or("").trim_start_matches('#').trim();
        let first = first.strip_prefix("synthetic: ").unwrap_or(first);
        outln!("  {name:<28} {first}");
    }
    Ok(())
}
