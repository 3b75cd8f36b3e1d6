//! The committed subtask pool (`subtask_pool/pool.jsonl`): the output of
//! `synth explore && synth verify` on the whole simulated desktop with the offline
//! backend, exported with `synth pool export`.
//!
//! Composition works from this file without running the first stage, so these tests
//! pin what composition needs from it: every line is a
//! well-formed subtask as `model::Subtask` serializes it, every input resource of
//! every instantiated subtask holds on the initial desktop or is produced by another
//! instance, the dependency graph over instances has no cycles, and the graph is rich
//! enough for every level of every complexity dimension (OmniBench table 2): a chain
//! of 5+ dependent instances, 5+ mutually independent instances around one instance,
//! and a connected component spanning 4+ categories.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use synth::model::{placeholders, Subtask};
use synth::resources::{initial_resources, instantiate, validate_subtask, Catalog, Resource};

/// The simulated desktop's applications and their categories (the fixed list).
const APPS: [(&str, &str); 28] = [
    ("Mail", "Social Communication"),
    ("Chat", "Social Communication"),
    ("Media Player", "Multimedia Playback"),
    ("Photos", "Multimedia Playback"),
    ("Image Editor", "Multimedia Editing"),
    ("Video Editor", "Multimedia Editing"),
    ("Writer", "Office"),
    ("Sheets", "Office"),
    ("Slides", "Office"),
    ("Text Editor", "Office"),
    ("Calculator", "Utility Tools"),
    ("Archiver", "Utility Tools"),
    ("PDF Tool", "Utility Tools"),
    ("Calendar", "Utility Tools"),
    ("Code Editor", "Programming"),
    ("Terminal", "Programming"),
    ("Files", "System Management"),
    ("Settings", "System Management"),
    ("Browser", "Web Browsing"),
    ("Feed Reader", "Web Browsing"),
    ("Screenshot Tool", "Screen Capture"),
    ("Screen Recorder", "Screen Capture"),
    ("To Do", "Task Management"),
    ("Kanban", "Task Management"),
    ("Notes", "Note Management"),
    ("Sticky Notes", "Note Management"),
    ("Recipes", "Lifestyle"),
    ("Finance", "Lifestyle"),
];

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The pool's lines, each with the subtask parsed from it.
fn pool_lines(workspace: &Path) -> Vec<(String, Subtask)> {
    let path = workspace.join("subtask_pool").join("pool.jsonl");
    let text = std::fs::read_to_string(&path).expect("subtask_pool/pool.jsonl is readable");
    text.lines()
        .enumerate()
        .map(|(n, line)| {
            let subtask: Subtask = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("pool.jsonl line {}: {e}", n + 1));
            (line.to_string(), subtask)
        })
        .collect()
}

/// One instantiated subtask: (subtask, parameter set) with its resources.
#[derive(Clone)]
struct Instance {
    name: String,
    category: String,
    inputs: BTreeSet<Resource>,
    outputs: BTreeSet<Resource>,
}

fn instances(catalog: &Catalog, pool: &[(String, Subtask)]) -> Vec<Instance> {
    let mut out = Vec::new();
    for (_, s) in pool {
        for index in 0..s.available_parameters.len() {
            let (inputs, outputs) = instantiate(catalog, s, index)
                .unwrap_or_else(|e| panic!("subtask {} set {index}: {e}", s.id));
            out.push(Instance {
                name: format!(
                    "{} [{index}] {}",
                    s.application,
                    s.instruction(index).unwrap()
                ),
                category: s.category.clone().unwrap_or_default(),
                inputs: inputs.into_iter().collect(),
                outputs: outputs.into_iter().collect(),
            });
        }
    }
    out
}

/// The dependency graph over instances: `succ[a]` holds every `b != a` with an
/// input resource equal to an output resource of `a`.
fn successors(instances: &[Instance]) -> Vec<BTreeSet<usize>> {
    let mut producers: BTreeMap<&Resource, Vec<usize>> = BTreeMap::new();
    for (a, inst) in instances.iter().enumerate() {
        for r in &inst.outputs {
            producers.entry(r).or_default().push(a);
        }
    }
    let mut succ = vec![BTreeSet::new(); instances.len()];
    for (b, inst) in instances.iter().enumerate() {
        for r in &inst.inputs {
            for &a in producers.get(r).map(Vec::as_slice).unwrap_or(&[]) {
                if a != b {
                    succ[a].insert(b);
                }
            }
        }
    }
    succ
}

/// Every instance reachable from each instance by one or more edges.
fn reachability(succ: &[BTreeSet<usize>]) -> Vec<BTreeSet<usize>> {
    (0..succ.len())
        .map(|start| {
            let mut seen = BTreeSet::new();
            let mut stack: Vec<usize> = succ[start].iter().copied().collect();
            while let Some(v) = stack.pop() {
                if seen.insert(v) {
                    stack.extend(succ[v].iter().copied());
                }
            }
            seen
        })
        .collect()
}

/// The longest path (in nodes) starting at `v`, memoised; the graph is acyclic.
fn longest_from(
    v: usize,
    succ: &[BTreeSet<usize>],
    memo: &mut Vec<Option<Vec<usize>>>,
) -> Vec<usize> {
    if let Some(path) = &memo[v] {
        return path.clone();
    }
    let mut best = vec![v];
    for &w in &succ[v] {
        let tail = longest_from(w, succ, memo);
        if tail.len() + 1 > best.len() {
            best = std::iter::once(v).chain(tail).collect();
        }
    }
    memo[v] = Some(best.clone());
    best
}

/// A set of mutually independent instances (no path between any two) picked
/// greedily from `candidates`, fewest descendants first.
fn independent_subset(candidates: &BTreeSet<usize>, reach: &[BTreeSet<usize>]) -> Vec<usize> {
    let mut order: Vec<usize> = candidates.iter().copied().collect();
    order.sort_by_key(|&c| reach[c].len());
    let mut chosen: Vec<usize> = Vec::new();
    for c in order {
        if chosen
            .iter()
            .all(|&d| !reach[c].contains(&d) && !reach[d].contains(&c))
        {
            chosen.push(c);
        }
    }
    chosen
}

#[test]
fn lines_are_subtasks_as_the_model_serializes_them() {
    let ws = workspace();
    let catalog = Catalog::load(&ws).unwrap();
    let pool = pool_lines(&ws);
    assert!(pool.len() >= 220, "only {} subtasks", pool.len());
    let apps: BTreeMap<&str, &str> = APPS.into_iter().collect();
    for (line, s) in &pool {
        assert_eq!(
            &serde_json::to_string(s).unwrap(),
            line,
            "line of {} does not round-trip",
            s.id
        );
        uuid::Uuid::parse_str(&s.id.0).unwrap_or_else(|e| panic!("id {}: {e}", s.id));
        assert_eq!(s.os, "Linux", "{}", s.id);
        let category = s.category.as_deref().unwrap_or_default();
        assert_eq!(
            apps.get(s.application.as_str()).copied(),
            Some(category),
            "{}: application '{}' with category '{category}'",
            s.id,
            s.application
        );
        assert!(catalog.categories.iter().any(|c| c == category));
        // Eighteen parameter sets at most, twenty-four for a subtask that
        // sends or files what it reads (a chain may end in it), spread over
        // the desktop's topics (each topic's tasks need sets of their own),
        // and three more on files made within its category (the explorer's
        // `domain` sets, for tasks that keep to one category).
        assert!((1..=27).contains(&s.available_parameters.len()), "{}", s.id);
        validate_subtask(&catalog, s).unwrap_or_else(|e| panic!("subtask {}: {e}", s.id));
        let checks = &s.evaluation.as_ref().expect("an evaluation").checks;
        // The coder checks the window, every typed value, every control the
        // path clicks and the outputs: a mail with an attachment needs nine,
        // a zip of five files fifteen (each file picked and held in the zip).
        assert!(
            (2..=16).contains(&checks.len()),
            "{}: {} checks",
            s.id,
            checks.len()
        );
        for check in checks {
            for arg in check.call.args() {
                for name in placeholders(arg) {
                    assert!(
                        s.available_parameters.iter().all(|p| p.contains_key(&name)),
                        "{}: check placeholder {{{name}}} lacks a value",
                        s.id
                    );
                }
            }
        }
        // One verified trajectory per kept parameter set.
        let mut indexes: Vec<usize> = s
            .trajectories
            .iter()
            .map(|t| {
                t.parameter_index
                    .expect("trajectories name their parameter set")
            })
            .collect();
        indexes.sort_unstable();
        assert_eq!(
            indexes,
            (0..s.available_parameters.len()).collect::<Vec<_>>(),
            "{}: one trajectory per parameter set",
            s.id
        );
        let provenance = s.provenance.as_ref().expect("a provenance");
        assert_eq!(provenance.backend, "offline");
    }
    let ids: Vec<&str> = pool.iter().map(|(_, s)| s.id.0.as_str()).collect();
    assert!(
        ids.windows(2).all(|w| w[0] < w[1]),
        "ids are not sorted and unique"
    );
    let used_apps: BTreeSet<&str> = pool.iter().map(|(_, s)| s.application.as_str()).collect();
    let used_categories: BTreeSet<&str> = pool
        .iter()
        .filter_map(|(_, s)| s.category.as_deref())
        .collect();
    assert!(used_apps.len() >= 24, "{} applications", used_apps.len());
    assert_eq!(used_categories.len(), catalog.categories.len());
}

#[test]
fn every_input_holds_initially_or_is_produced() {
    // Verify keeps a subtask whose inputs it could put in place, even when the
    // subtask that produces them was rejected; composition then never places it.
    // Nearly every instance must still be placeable.
    let ws = workspace();
    let catalog = Catalog::load(&ws).unwrap();
    let initial = initial_resources(&ws, &catalog).unwrap();
    let insts = instances(&catalog, &pool_lines(&ws));
    let mut unplaceable = Vec::new();
    for (b, inst) in insts.iter().enumerate() {
        for r in &inst.inputs {
            let produced = insts
                .iter()
                .enumerate()
                .any(|(a, other)| a != b && other.outputs.contains(r));
            if !initial.contains(r) && !produced {
                unplaceable.push(format!("{r} of '{}'", inst.name));
            }
        }
    }
    assert!(
        unplaceable.len() * 10 <= insts.len(),
        "{} of {} instances have an input nothing provides: {unplaceable:?}",
        unplaceable.len(),
        insts.len()
    );
}

#[test]
fn dependency_graph_reaches_every_complexity_level() {
    let ws = workspace();
    let catalog = Catalog::load(&ws).unwrap();
    let pool = pool_lines(&ws);
    let all = instances(&catalog, &pool);
    // The graph through files and records. The clipboard is one place, not a
    // value: a copy of a PDF and a paste that exports that PDF depend on each
    // other through it (the composer never places such a pair together), so
    // its edges are left out of the levels measured here.
    let insts: Vec<Instance> = all
        .iter()
        .map(|i| Instance {
            inputs: i
                .inputs
                .iter()
                .filter(|r| {
                    catalog
                        .kinds
                        .get(&r.kind)
                        .is_none_or(|k| k.holder.is_none())
                })
                .cloned()
                .collect(),
            ..i.clone()
        })
        .collect();
    let succ = successors(&insts);
    let reach = reachability(&succ);
    let edges: usize = succ.iter().map(BTreeSet::len).sum();

    // Composition needs DAGs: no instance may reach itself.
    for (a, r) in reach.iter().enumerate() {
        assert!(!r.contains(&a), "'{}' lies on a cycle", insts[a].name);
    }

    // Easy levels: lone instances and single edges exist.
    assert!(succ.iter().any(BTreeSet::is_empty));
    assert!(edges >= 4, "{edges} edges");

    // Hierarchy hard: a chain of 5+ instances, each depending on the previous one.
    let mut memo = vec![None; insts.len()];
    let chain = (0..insts.len())
        .map(|v| longest_from(v, &succ, &mut memo))
        .max_by_key(Vec::len)
        .unwrap();
    for w in chain.windows(2) {
        assert!(succ[w[0]].contains(&w[1]));
    }
    assert!(
        chain.len() >= 5,
        "longest chain has {} instances",
        chain.len()
    );

    // Branch hard: 5+ mutually independent instances that all feed one instance
    // (or all depend on one), so they can sit together in one connected task.
    let mut pred = vec![BTreeSet::new(); insts.len()];
    for (a, s) in succ.iter().enumerate() {
        for &b in s {
            pred[b].insert(a);
        }
    }
    let fan_in = (0..insts.len())
        .map(|v| independent_subset(&pred[v], &reach).len())
        .max()
        .unwrap();
    let fan_out = (0..insts.len())
        .map(|v| independent_subset(&succ[v], &reach).len())
        .max()
        .unwrap();
    assert!(
        fan_in.max(fan_out) >= 5,
        "widest fan-in {fan_in}, fan-out {fan_out}"
    );

    // Knowledge hard: a connected component spanning 4+ categories.
    let mut parent: Vec<usize> = (0..insts.len()).collect();
    fn root(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    for (a, s) in succ.iter().enumerate() {
        for &b in s {
            let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
            parent[ra] = rb;
        }
    }
    let mut components: BTreeMap<usize, BTreeSet<&str>> = BTreeMap::new();
    for (v, inst) in insts.iter().enumerate() {
        let r = root(&mut parent, v);
        components.entry(r).or_default().insert(&inst.category);
    }
    let most_categories = components.values().map(BTreeSet::len).max().unwrap();
    assert!(most_categories >= 4, "{most_categories} categories at most");

    println!(
        "starting pool: {} subtasks, {} instances, {} dependency edges, longest chain {}, \
         widest fan-in {fan_in}, widest fan-out {fan_out}, most categories in a component \
         {most_categories}",
        pool.len(),
        insts.len(),
        edges,
        chain.len()
    );
    for v in &chain {
        println!("  chain: {}", insts[*v].name);
    }
}
