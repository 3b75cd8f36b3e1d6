//! The task-graph engine against brute force on small graphs, and the composer's
//! guarantees: requested levels, satisfied inputs, determinism across thread counts,
//! refusals and shortfalls.

use std::collections::BTreeSet;

use proptest::prelude::*;
use synth::graph::synthetic::{synthetic_pool, SyntheticPool};
use synth::graph::{
    clashes, compose, task_clashes, ClashKind, ComposeError, ComposeSpec, Pool, Profile, SmallDag,
    Target,
};
use synth::model::{Dimension, Level, Task};

/// Random DAG: edges i->j (i<j) by mask, then nodes relabelled by a permutation.
fn arb_dag() -> impl Strategy<Value = (usize, Vec<(usize, usize)>, Vec<u32>)> {
    (1usize..=8).prop_flat_map(|n| {
        (
            Just(n),
            proptest::collection::vec(any::<bool>(), n * (n - 1) / 2),
            Just((0..n).collect::<Vec<usize>>()).prop_shuffle(),
            proptest::collection::vec(0u32..3, n),
        )
            .prop_map(|(n, mask, perm, apps)| {
                let mut edges = Vec::new();
                let mut k = 0;
                for i in 0..n {
                    for j in i + 1..n {
                        if mask[k] {
                            edges.push((perm[i], perm[j]));
                        }
                        k += 1;
                    }
                }
                (n, edges, apps)
            })
    })
}

fn permutations(n: usize) -> Vec<Vec<usize>> {
    // Lexicographic order (Heap's algorithm is not lexicographic; do it by hand).
    let mut out = Vec::new();
    let mut p: Vec<usize> = (0..n).collect();
    loop {
        out.push(p.clone());
        let Some(i) = (0..n.saturating_sub(1)).rev().find(|&i| p[i] < p[i + 1]) else {
            return out;
        };
        let j = (i + 1..n).rev().find(|&j| p[j] > p[i]).unwrap();
        p.swap(i, j);
        p[i + 1..].reverse();
    }
}

fn reach(n: usize, edges: &[(usize, usize)]) -> Vec<Vec<bool>> {
    let mut r = vec![vec![false; n]; n];
    for &(a, b) in edges {
        r[a][b] = true;
    }
    for k in 0..n {
        for i in 0..n {
            for j in 0..n {
                if r[i][k] && r[k][j] {
                    r[i][j] = true;
                }
            }
        }
    }
    r
}

fn brute_orders(n: usize, edges: &[(usize, usize)]) -> Vec<Vec<usize>> {
    permutations(n)
        .into_iter()
        .filter(|p| {
            let mut pos = vec![0; n];
            for (k, &v) in p.iter().enumerate() {
                pos[v] = k;
            }
            edges.iter().all(|&(a, b)| pos[a] < pos[b])
        })
        .collect()
}

fn brute_width(n: usize, edges: &[(usize, usize)]) -> usize {
    let r = reach(n, edges);
    (0u32..1 << n)
        .filter(|&s| {
            (0..n).all(|i| s & (1 << i) == 0 || (0..n).all(|j| s & (1 << j) == 0 || !r[i][j]))
        })
        .map(|s| s.count_ones() as usize)
        .max()
        .unwrap_or(0)
}

fn brute_depth(n: usize, edges: &[(usize, usize)]) -> usize {
    fn longest(v: usize, edges: &[(usize, usize)]) -> usize {
        1 + edges
            .iter()
            .filter(|e| e.0 == v)
            .map(|e| longest(e.1, edges))
            .max()
            .unwrap_or(0)
    }
    (0..n).map(|v| longest(v, edges)).max().unwrap_or(0)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn measures_match_brute_force((n, edges, apps) in arb_dag(), cap in 1usize..50) {
        let g = SmallDag::from_edges(n, &edges).unwrap();
        let all = brute_orders(n, &edges);
        prop_assert_eq!(g.topo_count(), all.len() as u64);
        let listed: Vec<Vec<usize>> = g
            .orders(cap)
            .iter()
            .map(|o| o.iter().map(|&v| v as usize).collect())
            .collect();
        // Exactly the first `cap` valid orders in lexicographic order: valid, no
        // duplicates, and truncated iff there are more.
        let expected: Vec<Vec<usize>> = all.iter().take(cap).cloned().collect();
        prop_assert_eq!(&listed, &expected);
        prop_assert_eq!(g.orders(cap).truncated(), all.len() > cap);
        let cs = all
            .iter()
            .map(|p| p.windows(2).filter(|w| apps[w[0]] == apps[w[1]]).count())
            .max()
            .unwrap_or(0);
        prop_assert_eq!(g.cs_max(&apps), cs);
        prop_assert_eq!(g.width(), brute_width(n, &edges));
        prop_assert_eq!(g.depth(), brute_depth(n, &edges));
        let mut distinct: BTreeSet<(usize, usize)> = BTreeSet::new();
        distinct.extend(edges.iter().copied());
        prop_assert_eq!(g.edge_count(), distinct.len());
    }
}

fn small_pool() -> SyntheticPool {
    synthetic_pool(96, 20, 5).unwrap()
}

fn spec(count: usize, seed: u64) -> ComposeSpec {
    ComposeSpec {
        count,
        seed,
        ..ComposeSpec::default()
    }
}

/// Re-derives a task's measures from its JSON shape and checks the resource rule.
fn check_task(pool: &Pool<'_>, syn: &SyntheticPool, task: &Task) {
    let ids = &task.dag.nodes;
    let n = ids.len();
    let index = |id: &str| ids.iter().position(|x| x == id).unwrap();
    let mut edges = Vec::new();
    for (from, tos) in &task.dag.edges {
        for to in tos {
            edges.push((index(from), index(to)));
        }
    }
    let insts: Vec<usize> = ids
        .iter()
        .map(|id| {
            let node = &task.nodes[id];
            pool.find(&node.subtask_id, node.parameter_index).unwrap()
        })
        .collect();
    // Edges are exactly the dependency relation among the nodes.
    for a in 0..n {
        for b in 0..n {
            assert_eq!(
                edges.contains(&(a, b)),
                pool.depends_on(insts[b], insts[a]),
                "edge {a}->{b}"
            );
        }
    }
    // Every input is on the desktop or made by a predecessor.
    for b in 0..n {
        for r in &pool.instance(insts[b]).inputs {
            let ok = syn.initial.contains(r)
                || edges
                    .iter()
                    .any(|&(a, bb)| bb == b && pool.instance(insts[a]).outputs.contains(r));
            assert!(ok, "input {r} of {} unmet", ids[b]);
        }
    }
    let c = task.complexity.unwrap();
    let cats: BTreeSet<&str> = task.nodes.values().map(|t| t.category.as_str()).collect();
    assert_eq!(c.dependency, edges.len());
    assert_eq!(c.instruction, n);
    assert_eq!(c.knowledge, cats.len());
    assert_eq!(c.hierarchy, brute_depth(n, &edges));
    if n <= 10 {
        assert_eq!(c.branch, brute_width(n, &edges));
    }
    assert_eq!(
        task.successful_topo[0], *ids,
        "node ids follow the first order"
    );
    assert!(task.topo_count.unwrap() as usize >= task.successful_topo.len());
}

#[test]
fn composed_tasks_have_the_requested_levels() {
    let syn = small_pool();
    let pool = Pool::new(&syn.catalog, &syn.subtasks, &syn.initial).unwrap();
    let scopes = pool.components();
    let cases = [
        (
            Dimension::Hierarchy,
            Level::Hard,
            Dimension::Branch,
            Level::Easy,
        ),
        (
            Dimension::Branch,
            Level::Hard,
            Dimension::Knowledge,
            Level::Medium,
        ),
        (
            Dimension::Dependency,
            Level::Medium,
            Dimension::Instruction,
            Level::Medium,
        ),
        (
            Dimension::Instruction,
            Level::Hard,
            Dimension::Knowledge,
            Level::Easy,
        ),
    ];
    for (d1, l1, d2, l2) in cases {
        let mut s = spec(15, 11);
        s.profile = Profile::Free;
        s.targets.insert(d1, Target::Level(l1));
        s.targets.insert(d2, Target::Level(l2));
        let out = compose(&pool, &scopes, &s).unwrap();
        assert_eq!(
            out.tasks.len(),
            15,
            "{d1}={l1} {d2}={l2}: {:?}",
            out.shortfall()
        );
        for t in &out.tasks {
            let lv = t.complexity.unwrap().levels;
            assert_eq!(lv.get(d1), l1);
            assert_eq!(lv.get(d2), l2);
            check_task(&pool, &syn, t);
        }
    }
}

#[test]
fn omnibench_profile_tasks_are_valid_and_distinct() {
    let syn = small_pool();
    let pool = Pool::new(&syn.catalog, &syn.subtasks, &syn.initial).unwrap();
    let scopes = pool.components();
    let out = compose(&pool, &scopes, &spec(200, 3)).unwrap();
    assert_eq!(out.tasks.len(), 200, "{:?}", out.shortfall());
    let ids: BTreeSet<_> = out.tasks.iter().map(|t| t.task_id.clone()).collect();
    assert_eq!(ids.len(), 200, "no duplicate tasks");
    for t in &out.tasks {
        check_task(&pool, &syn, t);
    }
    for d in Dimension::ALL {
        let levels: BTreeSet<Level> = out
            .tasks
            .iter()
            .map(|t| t.complexity.unwrap().levels.get(d))
            .collect();
        assert!(levels.len() >= 2, "{d} takes several levels: {levels:?}");
    }
}

#[test]
fn capability_preset_sets_levels() {
    let syn = small_pool();
    let pool = Pool::new(&syn.catalog, &syn.subtasks, &syn.initial).unwrap();
    let scopes = pool.components();
    let mut s = spec(10, 1);
    s.capability = Some("parallel_planning".into());
    let out = compose(&pool, &scopes, &s).unwrap();
    assert_eq!(out.tasks.len(), 10, "{:?}", out.shortfall());
    for t in &out.tasks {
        assert!(t.capabilities.contains(&"parallel_planning".to_string()));
    }
    s.capability = Some("telepathy".into());
    assert!(matches!(
        compose(&pool, &scopes, &s),
        Err(ComposeError::UnknownCapability { .. })
    ));
}

#[test]
fn same_seed_same_tasks_with_one_and_two_threads() {
    let syn = small_pool();
    let pool = Pool::new(&syn.catalog, &syn.subtasks, &syn.initial).unwrap();
    let scopes = pool.components();
    let s = ComposeSpec {
        count: 2500, // more than one chunk
        seed: 42,
        max_orders: 20,
        ..ComposeSpec::default()
    };
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| compose(&pool, &scopes, &s).unwrap())
    };
    let one = run(1);
    let two = run(2);
    assert_eq!(one.tasks.len(), two.tasks.len());
    assert_eq!(one.tasks, two.tasks);
    assert_eq!(one.summary, two.summary);
    let other = ComposeSpec {
        seed: 43,
        ..s.clone()
    };
    let three = compose(&pool, &scopes, &ComposeSpec { count: 50, ..other }).unwrap();
    assert_ne!(three.tasks[..10], one.tasks[..10]);
}

#[test]
fn infeasible_combination_is_refused_with_a_reason() {
    let syn = small_pool();
    let pool = Pool::new(&syn.catalog, &syn.subtasks, &syn.initial).unwrap();
    let scopes = pool.components();
    let mut s = spec(5, 1);
    s.targets
        .insert(Dimension::Dependency, Target::Level(Level::Hard));
    s.targets
        .insert(Dimension::Instruction, Target::Level(Level::Easy));
    match compose(&pool, &scopes, &s) {
        Err(ComposeError::Infeasible { explanation }) => {
            assert!(explanation.contains("dependency=hard"), "{explanation}");
            assert!(explanation.contains("instruction=easy"), "{explanation}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    // A capability that contradicts an explicit target.
    let mut s = spec(5, 1);
    s.capability = Some("parallel_planning".into());
    s.targets
        .insert(Dimension::Branch, Target::Level(Level::Easy));
    assert!(matches!(
        compose(&pool, &scopes, &s),
        Err(ComposeError::Conflict { .. })
    ));
}

#[test]
fn shortfall_names_the_constraint_that_ran_dry() {
    // Only levels 1..=3 exist in a pool of 3 subtasks per group: no depth 5.
    let syn = synthetic_pool(3, 5, 1).unwrap();
    let pool = Pool::new(&syn.catalog, &syn.subtasks, &syn.initial).unwrap();
    let scopes = pool.components();
    let mut s = spec(3, 1);
    s.profile = Profile::Free;
    s.targets
        .insert(Dimension::Hierarchy, Target::Level(Level::Hard));
    s.max_attempts = 300;
    let out = compose(&pool, &scopes, &s).unwrap();
    let short = out.shortfall().expect("a shortfall");
    assert_eq!(short.made, out.tasks.len());
    assert!(
        short.constraint.starts_with("hierarchy=hard: 0 of"),
        "{}",
        short.constraint
    );
    assert!(
        short.constraint.contains("depth >= 5"),
        "{}",
        short.constraint
    );
}

/// A pool that invites clashes: every file on the desktop is read by several
/// subtasks, edited (marked) by others, edited in place by one, and copied to the
/// one clipboard by several; merges join an edit's and a read's results.
fn clash_pool(files: usize, readers: usize) -> SyntheticPool {
    use synth::model::{ParameterSet, Subtask, SubtaskId};
    use synth::resources::{KindSpec, Resource};
    let mut catalog = synth::graph::synthetic::synthetic_catalog().unwrap();
    for (kind, ext, parameter) in [
        ("pdf", Some("pdf"), true),
        ("txt", Some("txt"), true),
        ("docx", Some("docx"), true),
        ("zip", Some("zip"), true),
        ("clip", None, false),
    ] {
        catalog.kinds.insert(
            kind.into(),
            KindSpec {
                description: kind.into(),
                parameter,
                file_kinds: ext.map(|e| vec![e.to_string()]).unwrap_or_default(),
                directory: false,
                phrase: None,
                phrase_in: Default::default(),
                holder: None,
                keeps_props: None,
                machine_text: false,
                wraps: false,
                typed: false,
                implied: false,
                rendered_by: vec![],
                print: false,
                tracker: false,
                setting: false,
                sends: false,
                inserted_as: None,
                pasted: None,
                linked: false,
                quoted: false,
            },
        );
    }
    let cats = catalog.categories.clone();
    let file = |f: usize| format!("/f{f}.pdf");
    let sub =
        |id: String, k: usize, ins: &[&str], outs: &[&str], params: Vec<ParameterSet>| Subtask {
            id: SubtaskId(id.clone()),
            instruction_template: format!("{id} on {{pdf}}"),
            application: format!("App {}", k % 7),
            category: Some(cats[k % cats.len()].clone()),
            os: "Linux".into(),
            available_parameters: params,
            input_resources: ins.iter().map(|s| s.to_string()).collect(),
            output_resources: outs.iter().map(|s| s.to_string()).collect(),
            evaluation: None,
            trajectories: vec![],
            provenance: None,
        };
    let ps = |pairs: Vec<(&str, String)>| -> ParameterSet {
        pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
    };
    let mut subtasks = Vec::new();
    for j in 0..2 {
        // Two applications making two different things (a text and a document)
        // with their own changes: not a repeat of the same product. (Two
        // subtasks of one application on one file are never left unordered:
        // one sitting.)
        let kind = ["txt", "docx"][j];
        let params = (0..files)
            .map(|f| ps(vec![("pdf", file(f)), (kind, format!("/f{f}_e{j}.{kind}"))]))
            .collect();
        let mut edit = sub(format!("edit{j}"), j * 8, &["pdf"], &[kind], params);
        edit.instruction_template = format!("edit{j} on {{pdf}}, then mark part {j}");
        subtasks.push(edit);
    }
    for j in 0..readers {
        let params = (0..files)
            .map(|f| ps(vec![("pdf", file(f)), ("docx", format!("/f{f}_r{j}.docx"))]))
            .collect();
        subtasks.push(sub(format!("read{j}"), 2 + j, &["pdf"], &["docx"], params));
    }
    let params: Vec<ParameterSet> = (0..files).map(|f| ps(vec![("pdf", file(f))])).collect();
    subtasks.push(sub("inplace".into(), 3, &["pdf"], &["pdf"], params.clone()));
    for j in 0..2 {
        subtasks.push(sub(
            format!("copy{j}"),
            4 + j,
            &["pdf"],
            &["clip"],
            params.clone(),
        ));
    }
    for j in 0..2 {
        let params = (0..files)
            .map(|f| {
                // merge0 joins the text edit and a reader's document, merge1
                // the two edits (what puts them side by side in one task).
                let docx = [format!("/f{f}_r0.docx"), format!("/f{f}_e1.docx")];
                ps(vec![
                    ("txt", format!("/f{f}_e0.txt")),
                    ("docx", docx[j].clone()),
                    ("zip", format!("/f{f}_{j}.zip")),
                ])
            })
            .collect();
        subtasks.push(sub(
            format!("merge{j}"),
            5 + j,
            &["txt", "docx"],
            &["zip"],
            params,
        ));
    }
    let initial = (0..files)
        .map(|f| Resource::new("pdf", Some(file(f))))
        .collect();
    SyntheticPool {
        catalog,
        subtasks,
        initial,
    }
}

fn is_edit(s: &synth::model::Subtask) -> bool {
    s.id.0.starts_with("edit")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn composed_tasks_never_clash(files in 1usize..4, readers in 2usize..5, seed in 0u64..1000) {
        let syn = clash_pool(files, readers);
        let mut pool = Pool::new(&syn.catalog, &syn.subtasks, &syn.initial).unwrap();
        pool.mark_edited_inputs(is_edit);
        let scopes = pool.components();
        let s = ComposeSpec {
            count: 20,
            seed,
            profile: Profile::Free,
            max_attempts: 2000,
            ..ComposeSpec::default()
        };
        let out = compose(&pool, &scopes, &s).unwrap();
        prop_assert!(!out.tasks.is_empty());
        for t in &out.tasks {
            let found = task_clashes(&pool, t);
            prop_assert!(found.is_empty(), "{:?} in {:?}", found, t.nodes);
            let insts: Vec<usize> = t
                .dag
                .nodes
                .iter()
                .map(|id| pool.find(&t.nodes[id].subtask_id, t.nodes[id].parameter_index).unwrap())
                .collect();
            prop_assert!(clashes(&pool, &insts).is_empty());
        }
    }
}

#[test]
fn the_clash_pool_invites_clashes_the_composer_avoids() {
    let syn = clash_pool(4, 4);
    let plain = Pool::new(&syn.catalog, &syn.subtasks, &syn.initial).unwrap();
    let mut marked = Pool::new(&syn.catalog, &syn.subtasks, &syn.initial).unwrap();
    marked.mark_edited_inputs(is_edit);
    let s = ComposeSpec {
        count: 40,
        seed: 5,
        profile: Profile::Free,
        max_attempts: 4000,
        ..ComposeSpec::default()
    };
    // Composed without knowing the edits, many tasks put an edit beside a read.
    let blind = compose(&plain, &plain.components(), &s).unwrap();
    let clashing = blind
        .tasks
        .iter()
        .filter(|t| !task_clashes(&marked, t).is_empty())
        .count();
    assert!(
        clashing >= 3,
        "{clashing} of {} tasks clash",
        blind.tasks.len()
    );
    // Over a few seeds, both kinds of clash occur.
    let kinds: BTreeSet<ClashKind> = (5..10)
        .flat_map(|seed| {
            let s = ComposeSpec { seed, ..s.clone() };
            compose(&plain, &plain.components(), &s).unwrap().tasks
        })
        .flat_map(|t| task_clashes(&marked, &t))
        .map(|c| c.kind)
        .collect();
    assert_eq!(kinds.len(), 2, "both kinds occur: {kinds:?}");
    // Knowing them, none does, and the pool still gives tasks (fewer: the tiny
    // pool has few graphs without an edit beside a read).
    let careful = compose(&marked, &marked.components(), &s).unwrap();
    assert!(careful.tasks.len() >= 10, "{:?}", careful.shortfall());
    for t in &careful.tasks {
        assert!(task_clashes(&marked, t).is_empty(), "{:?}", t.nodes);
    }
}

#[test]
fn one_application_never_works_one_file_in_two_unordered_nodes() {
    // Two copies of one application's subtasks on every file: the composer may
    // chain them through other nodes but never leaves two of them side by side.
    // A join of two readers' documents would put them side by side (both read
    // the same PDF, neither needs the other): without the rule it is composed.
    let mut syn = clash_pool(2, 4);
    for s in syn
        .subtasks
        .iter_mut()
        .filter(|s| s.id.0.starts_with("read"))
    {
        s.application = "App 2".into();
    }
    let mut pair = syn
        .subtasks
        .iter()
        .find(|s| s.id.0 == "merge0")
        .unwrap()
        .clone();
    pair.id = synth::model::SubtaskId("pair".into());
    pair.instruction_template = "pair {docx} with {other_docx}".into();
    pair.input_resources = vec!["docx".into(), "docx:other_docx".into()];
    pair.output_resources = vec!["zip".into()];
    pair.available_parameters = (0..2)
        .map(|f| {
            [
                ("docx", format!("/f{f}_r0.docx")),
                ("other_docx", format!("/f{f}_r1.docx")),
                ("zip", format!("/f{f}_pair.zip")),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect()
        })
        .collect();
    syn.subtasks.push(pair);
    let pool = Pool::new(&syn.catalog, &syn.subtasks, &syn.initial).unwrap();
    let s = ComposeSpec {
        count: 30,
        seed: 3,
        profile: Profile::Free,
        max_attempts: 4000,
        ..ComposeSpec::default()
    };
    let out = compose(&pool, &pool.components(), &s).unwrap();
    assert!(!out.tasks.is_empty(), "{:?}", out.shortfall());
    for t in &out.tasks {
        let readers: Vec<_> = t
            .nodes
            .values()
            .filter(|n| n.subtask_id.0.starts_with("read"))
            .collect();
        assert!(
            readers.len() <= 1,
            "two readers of one file in App 2: {:?}",
            t.nodes
        );
    }
}

#[test]
fn a_free_request_spreads_over_subtasks_and_applications() {
    let syn = synthetic_pool(255, 28, 9).unwrap();
    let pool = Pool::new(&syn.catalog, &syn.subtasks, &syn.initial).unwrap();
    let scopes = pool.components();
    let s = ComposeSpec {
        count: 40,
        seed: 1,
        profile: Profile::Free,
        ..ComposeSpec::default()
    };
    let out = compose(&pool, &scopes, &s).unwrap();
    assert_eq!(out.tasks.len(), 40, "{:?}", out.shortfall());
    let d = synth::graph::diversity(&out.tasks, pool.applications().len());
    assert!(d.max_subtask_share <= 0.05, "{d}");
    assert_eq!(d.duplicate_multisets, 0, "{d}");
    assert!(d.application_share() >= 0.8, "{d}");
}

/// A subtask of application `App <app>` with one parameter set `p`.
fn one_set_subtask(
    cats: &[String],
    id: &str,
    app: usize,
    ins: &[&str],
    outs: &[&str],
    p: &[(&str, String)],
) -> synth::model::Subtask {
    use synth::model::{ParameterSet, Subtask, SubtaskId};
    Subtask {
        id: SubtaskId(id.into()),
        instruction_template: format!("{id} on {{pdf}}"),
        application: format!("App {app}"),
        category: Some(cats[app % cats.len()].clone()),
        os: "Linux".into(),
        available_parameters: vec![p
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect::<ParameterSet>()],
        input_resources: ins.iter().map(|s| s.to_string()).collect(),
        output_resources: outs.iter().map(|s| s.to_string()).collect(),
        evaluation: None,
        trajectories: vec![],
        provenance: None,
    }
}

/// A pool where one subtask makes a file that six applications read, each
/// reader's result read again by a follow-up, among unrelated chains: random
/// growth from a drawn root mostly walks the chains.
fn hub_pool() -> SyntheticPool {
    use synth::resources::Resource;
    let mut syn = clash_pool(1, 0);
    syn.subtasks.clear();
    let cats = syn.catalog.categories.clone();
    let sub = |id: &str, app: usize, ins: &[&str], outs: &[&str], p: &[(&str, String)]| {
        one_set_subtask(&cats, id, app, ins, outs, p)
    };
    // Written from scratch (a conversion read again would be a chained one).
    syn.subtasks.push(sub(
        "make",
        0,
        &[],
        &["docx"],
        &[("docx", "/hub.docx".into())],
    ));
    // Each reader makes something of its own (a card, an event, a message...).
    for j in 1..=6 {
        let kind = format!("syn_l{j}");
        let out = format!("r{j}");
        syn.subtasks.push(sub(
            &format!("read{j}"),
            j,
            &["docx"],
            &[&kind],
            &[("docx", "/hub.docx".into()), (&kind, out.clone())],
        ));
        syn.subtasks.push(sub(
            &format!("next{j}"),
            10 + j,
            &[&kind],
            &["pdf:out_pdf"],
            &[(&kind, out), ("out_pdf", format!("/n{j}.pdf"))],
        ));
    }
    for c in 0..8 {
        let start = format!("/c{c}.pdf");
        syn.initial
            .insert(Resource::new("pdf", Some(start.clone())));
        let mid = format!("/c{c}.txt");
        syn.subtasks.push(sub(
            &format!("chain{c}a"),
            20 + c,
            &["pdf"],
            &["txt"],
            &[("pdf", start), ("txt", mid.clone())],
        ));
        syn.subtasks.push(sub(
            &format!("chain{c}b"),
            30 + c,
            &["txt"],
            &["docx"],
            &[("txt", mid), ("docx", format!("/c{c}.docx"))],
        ));
    }
    syn
}

#[test]
fn a_wide_request_is_grown_from_a_file_many_applications_read() {
    let syn = hub_pool();
    let pool = Pool::new(&syn.catalog, &syn.subtasks, &syn.initial).unwrap();
    let s = ComposeSpec {
        count: 3,
        seed: 5,
        profile: Profile::Free,
        max_attempts: 400,
        targets: [(Dimension::Branch, Target::Range { min: 5, max: 6 })]
            .into_iter()
            .collect(),
        ..ComposeSpec::default()
    };
    let out = compose(&pool, &pool.components(), &s).unwrap();
    assert_eq!(out.tasks.len(), 3, "{:?}", out.shortfall());
    for t in &out.tasks {
        let c = t.complexity.as_ref().unwrap();
        assert!(c.branch >= 5, "{:?}", t.dag);
        assert!(t.nodes.values().any(|n| n.subtask_id.0 == "make"));
    }
}

#[test]
fn tasks_already_in_the_dataset_count_toward_the_subtask_cap() {
    let syn = synthetic_pool(255, 28, 9).unwrap();
    let pool = Pool::new(&syn.catalog, &syn.subtasks, &syn.initial).unwrap();
    let scopes = pool.components();
    let s = ComposeSpec {
        count: 20,
        seed: 2,
        profile: Profile::Free,
        targets: [(Dimension::Instruction, Target::Range { min: 3, max: 4 })]
            .into_iter()
            .collect(),
        ..ComposeSpec::default()
    };
    let index = |t: &Task| -> Vec<usize> {
        t.nodes
            .values()
            .map(|n| {
                pool.subtasks()
                    .iter()
                    .position(|s| s.id == n.subtask_id)
                    .unwrap()
            })
            .collect()
    };
    // A targeted request alone leans on whatever meets the target.
    let alone = compose(&pool, &scopes, &s).unwrap();
    let mut uses = std::collections::BTreeMap::<usize, usize>::new();
    for t in &alone.tasks {
        for i in index(t) {
            *uses.entry(i).or_default() += 1;
        }
    }
    let (&most, &n) = uses.iter().max_by_key(|(_, &n)| n).unwrap();
    assert!(n >= 2, "{uses:?}");
    // The same request over a dataset whose 100 nodes already hold it 20 times
    // (the cap, 5 % of all nodes, is reached) leaves it out.
    let prior: Vec<usize> = std::iter::repeat_n(most, 20)
        .chain((0..80).map(|k| (most + 1 + k % 50) % pool.subtasks().len()))
        .collect();
    let mut made = Vec::new();
    let prior = synth::graph::Prior::of_nodes(prior);
    synth::graph::compose_balanced(&pool, &scopes, &s, &prior, |t| {
        made.push(t.to_task(&pool, &s))
    })
    .unwrap();
    assert!(!made.is_empty());
    for t in &made {
        assert!(!index(t).contains(&most), "{:?}", t.nodes);
    }
}

#[test]
fn two_tasks_never_ask_for_the_same_results_from_the_same_start() {
    use synth::resources::Resource;
    // Three applications each make the value 'v' from '/in.pdf' (a blurred, a
    // brightened, a plain copy); one application makes '/out.pdf' from it. Every
    // two-node task then asks for '/out.pdf' from '/in.pdf'.
    let mut syn = clash_pool(1, 0);
    syn.subtasks.clear();
    syn.initial
        .insert(Resource::new("pdf", Some("/in.pdf".into())));
    let cats = syn.catalog.categories.clone();
    let sub = |id: &str, app: usize, ins: &[&str], outs: &[&str], p: &[(&str, &str)]| {
        let p: Vec<(&str, String)> = p.iter().map(|(k, v)| (*k, v.to_string())).collect();
        one_set_subtask(&cats, id, app, ins, outs, &p)
    };
    for k in 1..=3 {
        syn.subtasks.push(sub(
            &format!("make{k}"),
            k,
            &["pdf"],
            &["syn_l1"],
            &[("pdf", "/in.pdf"), ("syn_l1", "v")],
        ));
    }
    syn.subtasks.push(sub(
        "finish",
        9,
        &["syn_l1"],
        &["pdf:out_pdf"],
        &[("syn_l1", "v"), ("out_pdf", "/out.pdf")],
    ));
    let pool = Pool::new(&syn.catalog, &syn.subtasks, &syn.initial).unwrap();
    let s = ComposeSpec {
        count: 3,
        seed: 1,
        profile: Profile::Free,
        max_attempts: 300,
        targets: [(Dimension::Instruction, Target::Range { min: 2, max: 2 })]
            .into_iter()
            .collect(),
        ..ComposeSpec::default()
    };
    let out = compose(&pool, &pool.components(), &s).unwrap();
    // Three distinct instance sets exist; one request.
    let made: Vec<&str> = out
        .tasks
        .iter()
        .map(|t| t.task_instruction.as_str())
        .collect();
    assert_eq!(made.len(), 1, "{made:?}");
    assert!(out.shortfall().is_some());
}
