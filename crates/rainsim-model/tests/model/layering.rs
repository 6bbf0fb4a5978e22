//! The module graph: which top-level modules of the model name which others
//! (`crate::x` paths outside `#[cfg(test)]` code). The stack's layering is a
//! property of the source, so it is checked on the source.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type Graph = BTreeMap<String, BTreeSet<String>>;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).expect("readable source folder") {
        let p = e.expect("directory entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Top-level module → the top-level modules its non-test code names.
fn module_graph() -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut modules = BTreeMap::new();
    for e in std::fs::read_dir(&src).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        if name != "lib" {
            modules.insert(name, p);
        }
    }
    let mut g = Graph::new();
    for (name, path) in &modules {
        let mut files = Vec::new();
        if path.is_dir() {
            rust_files(path, &mut files);
        } else {
            files.push(path.clone());
        }
        let deps = g.entry(name.clone()).or_default();
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap();
            for (i, _) in code.match_indices("crate::") {
                let rest = &code[i + "crate::".len()..];
                let m: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if m != *name && modules.contains_key(&m) {
                    deps.insert(m);
                }
            }
        }
    }
    g
}

/// A cycle through `from`, if any (depth-first search for a path back).
fn cycle_through(g: &Graph, from: &str) -> Option<Vec<String>> {
    fn walk(g: &Graph, at: &str, goal: &str, path: &mut Vec<String>, seen: &mut BTreeSet<String>) -> bool {
        for next in g.get(at).into_iter().flatten() {
            if next == goal {
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if walk(g, next, goal, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![from.to_string()];
    walk(g, from, from, &mut path, &mut BTreeSet::new()).then_some(path)
}

#[test]
fn no_import_loops_between_modules() {
    let g = module_graph();
    assert!(g.len() > 15, "found only {:?}", g.keys());
    let loops: Vec<String> = g.keys().filter_map(|m| cycle_through(&g, m)).map(|c| c.join(" → ")).collect();
    assert!(loops.is_empty(), "import loops: {loops:#?}");
}

#[test]
fn the_raid_layer_asks_through_its_port() {
    let g = module_graph();
    let raid = &g["raid"];
    // It names neither the device above it, nor the policies and metrics it
    // reaches through `RaidPort` and `RaidProbe`, nor the verifier.
    for above in ["ssd", "policy", "metrics", "verify", "config", "device_state", "host"] {
        assert!(!raid.contains(above), "raid/ imports {above}: {raid:?}");
    }
    // The engine knows nothing about flash; policies do not read the configuration.
    assert!(g["engine"].is_empty(), "engine imports {:?}", g["engine"]);
    assert!(!g["policy"].contains("config"), "policy imports config");
    assert!(!g["policy"].contains("ssd"), "policy imports ssd");
}

#[test]
fn the_check_sees_a_loop() {
    // The checker itself: a graph with a loop is reported, one without is not.
    let mut g = Graph::new();
    g.entry("a".into()).or_default().insert("b".into());
    g.entry("b".into()).or_default().insert("c".into());
    g.entry("c".into()).or_default();
    assert_eq!(cycle_through(&g, "a"), None);
    g.get_mut("c").unwrap().insert("a".into());
    assert_eq!(cycle_through(&g, "a").unwrap(), ["a", "b", "c"]);
}
