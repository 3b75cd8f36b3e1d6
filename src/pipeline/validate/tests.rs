//! Tests across the three roles: the feedback loop on named graph shapes, the
//! natural and explicit wordings' round trips on random DAGs (property tests),
//! shuffling invariance, word counts and pass rates.

use std::collections::BTreeMap;

use proptest::prelude::*;
use rand::{Rng, SeedableRng};

use super::*;
use crate::model::{Dag, SubtaskId, Task, TaskNode};

/// A task over nodes `(id, application, instruction)` and edges `(before, after)`.
fn task(intent: &str, nodes: &[(&str, &str, &str)], edges: &[(&str, &str)]) -> Task {
    let owned: Vec<(String, String, String)> = nodes
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect();
    let e: Vec<(String, String)> = edges
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    task_owned(intent, &owned, &e)
}

fn task_owned(
    intent: &str,
    nodes: &[(String, String, String)],
    edges: &[(String, String)],
) -> Task {
    let mut dag = Dag {
        nodes: nodes.iter().map(|n| n.0.clone()).collect(),
        edges: BTreeMap::new(),
    };
    for n in nodes {
        dag.edges.insert(n.0.clone(), Vec::new());
    }
    for (a, b) in edges {
        dag.edges.entry(a.clone()).or_default().push(b.clone());
    }
    let task_nodes = nodes
        .iter()
        .map(|(id, app, instruction)| {
            (
                id.clone(),
                TaskNode {
                    subtask_id: SubtaskId(format!("sub-{id}")),
                    parameter_index: 0,
                    application: app.clone(),
                    category: "Office".into(),
                    instruction: instruction.clone(),
                },
            )
        })
        .collect();
    Task {
        task_id: None,
        task_instruction: String::new(),
        low_level_instruction: None,
        dag,
        task_intent: intent.into(),
        purpose: None,
        successful_topo: Vec::new(),
        nodes: task_nodes,
        topo_count: None,
        topo_truncated: None,
        cs_max: None,
        complexity: None,
        capabilities: Vec::new(),
        scenario: None,
        os_map_level: None,
        quality: None,
        composition: None,
        validation: Vec::new(),
    }
}

// Node instructions in the style of the starting pool.
const MAIL_PDF: (&str, &str, &str) = (
    "mail",
    "Mail",
    "Open the latest mail from accounting@example.com and save its PDF attachment as '/home/user/Downloads/invoice_april.pdf'.",
);
const TODO: (&str, &str, &str) = (
    "todo",
    "To Do",
    "In To Do, add the to-do 'Pay April invoice' and attach the file '/home/user/Downloads/invoice_april.pdf' to it.",
);
const CALENDAR: (&str, &str, &str) = (
    "calendar",
    "Calendar",
    "Create a calendar event 'Invoice payment' on 2026-06-10 at 18:00 for the to-do 'Pay April invoice'.",
);
const CALC: (&str, &str, &str) = (
    "calc",
    "Calculator",
    "Read the amounts listed in '/home/user/Documents/invoice_march.txt' and add them up in the Calculator: 1250 + 349.90 + 89.50.",
);
const RECIPE: (&str, &str, &str) = (
    "recipe",
    "Recipes",
    "Open the recipe 'Lentil Soup' in Recipes, scale it to 4 servings, and export its shopping list to '/home/user/Documents/shopping_lentil_soup.txt'.",
);
const STICKY: (&str, &str, &str) = (
    "sticky",
    "Sticky Notes",
    "Create a sticky note titled 'Shopping: Lentil Soup' that lists the items in '/home/user/Documents/shopping_lentil_soup.txt'.",
);
const WRITER: (&str, &str, &str) = (
    "writer",
    "Writer",
    "Open '/home/user/Documents/meeting_notes.md' in Writer, apply the 'Report' paragraph style to the body text, and save it as the Writer document '/home/user/Documents/meeting_notes.docx'.",
);
const SEND: (&str, &str, &str) = (
    "send",
    "Mail",
    "Write a mail to bob.lee@example.com with the subject 'Meeting notes', attach '/home/user/Documents/meeting_notes.docx', and send it.",
);
const VIDEO: (&str, &str, &str) = (
    "video",
    "Video Editor",
    "Open '/home/user/Videos/sales_talk.mp4' in the Video Editor and export its audio track as '/home/user/Music/sales_talk.mp3'.",
);
const PLAYER: (&str, &str, &str) = (
    "player",
    "Media Player",
    "Open '/home/user/Music/sales_talk.mp3' in the Media Player and play it.",
);

fn run(t: &Task) -> OfflineValidation {
    validate_offline(t, 3, 7).expect("task is summarizable")
}

#[test]
fn chain_passes_on_attempt_one() {
    let t = task(
        "File the April invoice",
        &[MAIL_PDF, TODO, CALENDAR],
        &[("mail", "todo"), ("todo", "calendar")],
    );
    let v = run(&t);
    assert!(v.passed);
    assert_eq!(v.attempts.len(), 1);
    assert_eq!(
        v.summary.task_instruction,
        "Open the latest mail from accounting@example.com and save its PDF attachment as '/home/user/Downloads/invoice_april.pdf'. Then, in To Do, add the to-do 'Pay April invoice' and attach the file '/home/user/Downloads/invoice_april.pdf' to it. Finally, create a calendar event 'Invoice payment' on 2026-06-10 at 18:00 for the to-do 'Pay April invoice'."
    );
    assert_eq!(
        v.summary.low_level_instruction,
        "1. (can start at once) Open the latest mail from accounting@example.com and save its PDF attachment as '/home/user/Downloads/invoice_april.pdf'.\n\
         2. (after step 1) In To Do, add the to-do 'Pay April invoice' and attach the file '/home/user/Downloads/invoice_april.pdf' to it.\n\
         3. (after step 2) Create a calendar event 'Invoice payment' on 2026-06-10 at 18:00 for the to-do 'Pay April invoice'."
    );
}

// Nodes that hand named files to each other (a fork after the mail and a join).
const PRINT: (&str, &str, &str) = (
    "print",
    "PDF Tool",
    "In PDF Tool, open '/home/user/Downloads/invoice_april.pdf' and print it to '/home/user/Documents/invoice_print.pdf'.",
);
const JOIN: (&str, &str, &str) = (
    "join",
    "Mail",
    "In Mail, send the mail 'April invoice' to bob@example.com with '/home/user/Documents/invoice_print.pdf' attached, naming the to-do 'Pay April invoice'.",
);

/// The print waits for the mail two sentences back, not for the to-do just
/// before it: "Also,", which suggests no order with that sentence. The join waits
/// for the sentence before it among others: "Now,".
#[test]
fn a_fork_and_join_is_worded_by_its_handoffs() {
    let t = task(
        "Get the April invoice paid",
        &[MAIL_PDF, TODO, PRINT, JOIN],
        &[
            ("mail", "todo"),
            ("mail", "print"),
            ("todo", "join"),
            ("print", "join"),
        ],
    );
    let v = run(&t);
    assert!(v.passed, "{:?}", v.attempts);
    assert_eq!(v.attempts.len(), 1);
    assert_eq!(v.summary.wording, Wording::Natural);
    assert_eq!(
        v.summary.task_instruction,
        "Open the latest mail from accounting@example.com and save its PDF attachment as '/home/user/Downloads/invoice_april.pdf'. \
         Then, in To Do, add the to-do 'Pay April invoice' and attach the file '/home/user/Downloads/invoice_april.pdf' to it. \
         Also, open '/home/user/Downloads/invoice_april.pdf' in PDF Tool and print it to '/home/user/Documents/invoice_print.pdf'. \
         Now, in Mail, send the mail 'April invoice' to bob@example.com with '/home/user/Documents/invoice_print.pdf' attached, naming the to-do 'Pay April invoice'."
    );
}

#[test]
fn a_paste_follows_its_copy_and_names_the_other_handoff() {
    // The copy hands over nothing with a name: its sentence must come right
    // before the paste's; listed with the contact, both come before it.
    const COPY: (&str, &str, &str) = (
        "copy",
        "Calculator",
        "In Calculator, square a number '19.5*4', then copy the result.",
    );
    const CONTACT: (&str, &str, &str) = (
        "contact",
        "Mail",
        "In Mail, add a contact 'bob@example.com' with Name 'bob'.",
    );
    const PASTE: (&str, &str, &str) = (
        "paste",
        "Mail",
        "In Mail, send the e-mail 'Totals' with To 'bob@example.com' and the number on the clipboard as Body.",
    );
    let t = task(
        "Send Bob the total",
        &[COPY, CONTACT, PASTE],
        &[("copy", "paste"), ("contact", "paste")],
    );
    let v = run(&t);
    assert!(v.passed, "{:?}", v.attempts);
    assert_eq!(v.attempts.len(), 1);
    assert_eq!(v.summary.wording, Wording::Natural);
    assert!(
        v.summary
            .task_instruction
            .contains("copy the result; and in Mail, add a contact 'bob@example.com' with Name 'bob'. Finally, in Mail, send"),
        "{}",
        v.summary.task_instruction
    );
}

#[test]
fn diamond_without_named_handoffs_is_worded_explicitly() {
    // writer -> recipe, writer -> sticky: the texts share no name that could say
    // what the sticky note waits for, so the explicit wording is used at once.
    let t = task(
        "Share the meeting notes",
        &[WRITER, RECIPE, STICKY, SEND],
        &[
            ("writer", "recipe"),
            ("writer", "sticky"),
            ("recipe", "send"),
            ("sticky", "send"),
        ],
    );
    let v = run(&t);
    assert!(v.passed, "{:?}", v.attempts);
    assert_eq!(v.attempts.len(), 1);
    assert_eq!(v.summary.wording, Wording::Explicit);
}

#[test]
fn fork_join_passes_on_attempt_one() {
    let t = task(
        "Prepare the week",
        &[MAIL_PDF, TODO, CALC, RECIPE, CALENDAR],
        &[
            ("mail", "todo"),
            ("mail", "calc"),
            ("mail", "recipe"),
            ("todo", "calendar"),
            ("calc", "calendar"),
            ("recipe", "calendar"),
        ],
    );
    let v = run(&t);
    assert!(v.passed, "{:?}", v.attempts);
    assert_eq!(v.attempts.len(), 1);
}

#[test]
fn two_parallel_branches_are_worded_apart() {
    // writer -> send and video -> player: the second chain waits for nothing.
    let t = task(
        "Share notes and check the talk",
        &[WRITER, SEND, VIDEO, PLAYER],
        &[("writer", "send"), ("video", "player")],
    );
    let v = run(&t);
    assert!(v.passed);
    assert_eq!(v.attempts.len(), 1);
    assert_eq!(v.summary.wording, Wording::Natural);
    assert!(
        v.summary
            .task_instruction
            .contains(". Separately, open '/home/user/Videos/sales_talk.mp4'"),
        "{}",
        v.summary.task_instruction
    );
}

#[test]
fn independent_pieces_with_a_purpose_are_counted_and_numbered() {
    // Two pieces of work for one purpose: a goal sentence counts them, each
    // opens with its ordinal, and the reading finds no edge between them.
    let mut t = task(
        "Share notes and check the talk",
        &[WRITER, SEND, VIDEO, PLAYER],
        &[("writer", "send"), ("video", "player")],
    );
    t.purpose = Some("for the sales review".into());
    let v = run(&t);
    assert!(v.passed);
    assert_eq!(v.attempts.len(), 1);
    assert_eq!(v.summary.wording, Wording::Natural);
    let text = &v.summary.task_instruction;
    assert!(
        text.starts_with("For the sales review, there are two separate things to do. First, "),
        "{text}"
    );
    assert!(
        text.contains(". Second, open '/home/user/Videos/sales_talk.mp4'"),
        "{text}"
    );
    assert!(!text.contains("Separately"), "{text}");
}

#[test]
fn a_wrong_reading_is_fixed_with_the_explicit_wording() {
    // A reader that took the natural wording's "Separately," for "Then,": the
    // feedback names the lost parallel branch and attempt 2 numbers the steps.
    let t = task(
        "Share notes and check the talk",
        &[WRITER, SEND, VIDEO, PLAYER],
        &[("writer", "send"), ("video", "player")],
    );
    let first = summarize(&t, 1, &[]).unwrap();
    assert_eq!(first.wording, Wording::Natural);
    let misread = first.task_instruction.replace("Separately,", "Then,");
    let neutral = neutral_subtasks(&t, 3).unwrap();
    let edges = neutral.to_nodes(&reconstruct(&misread, &neutral.subtasks).unwrap());
    let verdict = compare(&t.dag, &edges);
    assert_eq!(
        verdict.discrepancies(),
        &[Discrepancy::ExtraOrder {
            first: "send".into(),
            then: "video".into()
        }]
    );
    let second = summarize(&t, 2, verdict.discrepancies()).unwrap();
    assert_eq!(second.wording, Wording::Explicit);
    assert!(
        second
            .task_instruction
            .contains("(3) open '/home/user/Videos/sales_talk.mp4'"),
        "{}",
        second.task_instruction
    );
    let edges =
        neutral.to_nodes(&reconstruct(&second.task_instruction, &neutral.subtasks).unwrap());
    assert_eq!(compare(&t.dag, &edges), Verdict::Pass);
}

#[test]
fn unsummarizable_tasks_are_errors() {
    let mut t = task(
        "x",
        &[MAIL_PDF, TODO],
        &[("mail", "todo"), ("todo", "mail")],
    );
    assert!(matches!(
        summarize(&t, 1, &[]),
        Err(SummarizeError::Cycle { .. })
    ));
    t.nodes.remove("todo");
    assert_eq!(
        validate_offline(&t, 2, 0).unwrap_err(),
        SummarizeError::MissingNode { id: "todo".into() }
    );
    let empty = task("x", &[], &[]);
    assert_eq!(
        summarize(&empty, 1, &[]).unwrap_err(),
        SummarizeError::Empty
    );
}

#[test]
fn shuffled_neutral_ids_do_not_change_the_result() {
    let t = task(
        "Tidy up",
        &[WRITER, SEND, VIDEO, PLAYER, RECIPE, STICKY],
        &[
            ("writer", "send"),
            ("video", "player"),
            ("recipe", "sticky"),
            ("sticky", "send"),
        ],
    );
    for wording_attempt in [1, 2] {
        let feedback = [Discrepancy::MissingOrder {
            before: "x".into(),
            after: "y".into(),
        }];
        let fb: &[Discrepancy] = if wording_attempt == 1 { &[] } else { &feedback };
        let s = summarize(&t, wording_attempt, fb).unwrap();
        let mut results = Vec::new();
        for seed in 0..8 {
            let neutral = neutral_subtasks(&t, seed).unwrap();
            let mut edges =
                neutral.to_nodes(&reconstruct(&s.task_instruction, &neutral.subtasks).unwrap());
            edges.sort();
            results.push(edges);
        }
        assert!(results.windows(2).all(|w| w[0] == w[1]), "{results:?}");
    }
}

/// Distinct synthetic node instructions, in the pool's style.
fn synthetic_instruction(i: usize) -> (String, String) {
    const APPS: &[&str] = &[
        "Writer",
        "Sheets",
        "Mail",
        "Image Editor",
        "Files",
        "Browser",
        "Notes",
        "Calendar",
        "Terminal",
        "PDF Tool",
        "Slides",
        "Chat",
    ];
    const TOPICS: &[&str] = &[
        "budget", "holiday", "invoice", "roadmap", "garden", "recital", "marathon", "seminar",
        "lease", "harvest", "payroll", "festival",
    ];
    let app = APPS[i % APPS.len()];
    let topic = TOPICS[i % TOPICS.len()];
    let instruction = format!(
        "In {app}, open '/home/user/Documents/{topic}_{i}.txt', add the heading '{topic} plan {i}', and save it as '/home/user/Documents/{topic}_{i}_final.docx'."
    );
    (app.to_string(), instruction)
}

/// A random task whose every edge is a named hand-off: each node opens the
/// files its predecessors saved, as pool subtasks do.
fn random_task(n: usize, edges: &[(usize, usize)]) -> Task {
    let nodes: Vec<(String, String, String)> = (0..n)
        .map(|i| {
            let (app, mut instruction) = synthetic_instruction(i);
            for &(a, _) in edges.iter().filter(|&&(_, b)| b == i) {
                let (_, made) = synthetic_instruction(a);
                let file = made.rsplit("save it as ").next().unwrap_or_default();
                instruction = instruction.replacen(
                    ", add",
                    &format!(", insert {}, add", file.trim_end_matches('.')),
                    1,
                );
            }
            (format!("n{i}"), app, instruction)
        })
        .collect();
    let e: Vec<(String, String)> = edges
        .iter()
        .map(|&(a, b)| (format!("n{a}"), format!("n{b}")))
        .collect();
    task_owned("Get the synthetic work done", &nodes, &e)
}

/// Edges `(i, j)` with `i < j` in a random relabelling, each kept with
/// probability `p`: every DAG on `n` nodes can come out.
fn random_edges(rng: &mut impl Rng, n: usize, p: f64) -> Vec<(usize, usize)> {
    let mut perm: Vec<usize> = (0..n).collect();
    rand::seq::SliceRandom::shuffle(perm.as_mut_slice(), rng);
    let mut out = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            if rng.random_bool(p) {
                out.push((perm[i], perm[j]));
            }
        }
    }
    out
}

fn dag_strategy() -> impl Strategy<Value = (usize, Vec<(usize, usize)>, u64)> {
    (1usize..=8).prop_flat_map(|n| {
        let pairs: Vec<(usize, usize)> = (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .collect();
        let m = pairs.len();
        (
            Just(n),
            proptest::collection::vec(any::<bool>(), m),
            proptest::sample::subsequence((0..n).collect::<Vec<_>>(), n).prop_shuffle(),
            any::<u64>(),
        )
            .prop_map(move |(n, keep, perm, seed)| {
                let edges = pairs
                    .iter()
                    .zip(keep)
                    .filter(|(_, k)| *k)
                    .map(|(&(i, j), _)| (perm[i], perm[j]))
                    .collect();
                (n, edges, seed)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn explicit_wording_round_trips((n, edges, seed) in dag_strategy()) {
        let t = random_task(n, &edges);
        let feedback = [Discrepancy::ExtraOrder { first: "n0".into(), then: "n1".into() }];
        let s = summarize(&t, 2, &feedback).unwrap();
        prop_assert_eq!(s.wording, Wording::Explicit);
        let neutral = neutral_subtasks(&t, seed).unwrap();
        let got = neutral.to_nodes(&reconstruct(&s.task_instruction, &neutral.subtasks).unwrap());
        prop_assert_eq!(compare(&t.dag, &got), Verdict::Pass, "{}", s.task_instruction);
    }

    #[test]
    fn full_explicit_wording_round_trips((n, edges, seed) in dag_strategy()) {
        let t = random_task(n, &edges);
        let feedback = [Discrepancy::UnknownNode { id: "z".into() }];
        let s = summarize(&t, 2, &feedback).unwrap();
        prop_assert_eq!(s.wording, Wording::ExplicitFull);
        let neutral = neutral_subtasks(&t, seed).unwrap();
        let got = neutral.to_nodes(&reconstruct(&s.task_instruction, &neutral.subtasks).unwrap());
        prop_assert_eq!(compare(&t.dag, &got), Verdict::Pass, "{}", s.task_instruction);
    }

    #[test]
    fn natural_wording_round_trips_named_handoffs((n, edges, seed) in dag_strategy()) {
        let t = random_task(n, &edges);
        let s = summarize(&t, 1, &[]).unwrap();
        prop_assert_eq!(s.wording, Wording::Natural, "{}", s.task_instruction);
        let neutral = neutral_subtasks(&t, seed).unwrap();
        let got = neutral.to_nodes(&reconstruct(&s.task_instruction, &neutral.subtasks).unwrap());
        prop_assert_eq!(compare(&t.dag, &got), Verdict::Pass, "{}", s.task_instruction);
    }
}

/// Pass rates of the offline loop over 1000 random DAGs of 2 to 10 nodes (edge
/// probability drawn from 0.15 to 0.6). Run with `--nocapture` to see the shares.
#[test]
fn random_dags_pass_within_two_attempts() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2026);
    let total = 1000;
    let (mut first, mut second) = (0, 0);
    let mut by_size: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
    for k in 0..total {
        let n = rng.random_range(2..=10);
        let p = rng.random_range(0.15..0.6);
        let edges = random_edges(&mut rng, n, p);
        let t = random_task(n, &edges);
        let v = validate_offline(&t, 2, k).unwrap();
        assert_eq!(v.summary.wording, Wording::Natural);
        let entry = by_size.entry(n).or_default();
        entry.1 += 1;
        match (v.passed, v.attempts.len()) {
            (true, 1) => {
                first += 1;
                entry.0 += 1;
            }
            (true, 2) => second += 1,
            _ => panic!("not passed within 2 attempts: {:?}", v.attempts),
        }
    }
    println!(
        "random DAGs (2-10 nodes): attempt 1 {first}/{total}, within 2 attempts {}/{total}",
        first + second
    );
    for (n, (pass, all)) in &by_size {
        println!("  {n} nodes: attempt 1 {pass}/{all}");
    }
    assert_eq!(first + second, total);
}

/// Word counts of the first wording for typical 3 to 6 node tasks built from
/// pool-style instructions. Run with `--nocapture` to see them.
#[test]
fn first_wording_word_counts() {
    let cases: Vec<(&str, Task)> = vec![
        (
            "chain-3",
            task(
                "File the April invoice",
                &[MAIL_PDF, TODO, CALENDAR],
                &[("mail", "todo"), ("todo", "calendar")],
            ),
        ),
        (
            "fork-3",
            task(
                "Shop for lentil soup",
                &[RECIPE, STICKY, CALC],
                &[("recipe", "sticky"), ("recipe", "calc")],
            ),
        ),
        (
            "diamond-4",
            task(
                "Share the meeting notes",
                &[WRITER, RECIPE, STICKY, SEND],
                &[
                    ("writer", "recipe"),
                    ("writer", "sticky"),
                    ("recipe", "send"),
                    ("sticky", "send"),
                ],
            ),
        ),
        (
            "join-4",
            task(
                "Plan the invoice payment",
                &[MAIL_PDF, CALC, TODO, CALENDAR],
                &[("mail", "todo"), ("calc", "todo"), ("todo", "calendar")],
            ),
        ),
        (
            "fork-join-5",
            task(
                "Prepare the week",
                &[MAIL_PDF, TODO, CALC, RECIPE, CALENDAR],
                &[
                    ("mail", "todo"),
                    ("mail", "calc"),
                    ("mail", "recipe"),
                    ("todo", "calendar"),
                    ("calc", "calendar"),
                    ("recipe", "calendar"),
                ],
            ),
        ),
        (
            "layers-6",
            task(
                "Wrap up the week",
                &[WRITER, VIDEO, SEND, PLAYER, RECIPE, STICKY],
                &[
                    ("writer", "send"),
                    ("video", "send"),
                    ("writer", "player"),
                    ("video", "player"),
                    ("send", "recipe"),
                    ("player", "recipe"),
                    ("recipe", "sticky"),
                ],
            ),
        ),
    ];
    let mut total = 0;
    for (name, t) in &cases {
        let compact = summarize(t, 1, &[]).unwrap();
        let explicit = summarize(
            t,
            2,
            &[Discrepancy::ExtraOrder {
                first: "a".into(),
                then: "b".into(),
            }],
        )
        .unwrap();
        let words = word_count(&compact.task_instruction);
        total += words;
        println!(
            "{name}: {} {words} words, explicit {} words",
            compact.wording,
            word_count(&explicit.task_instruction)
        );
        assert!(run(t).attempts[0].passed, "{name} should pass on attempt 1");
        assert!(words <= 40 * t.dag.nodes.len(), "{name}: {words} words");
    }
    println!(
        "mean words of the first wording: {:.1}",
        total as f64 / cases.len() as f64
    );
}

#[test]
fn steps_from_one_template_are_told_apart() {
    let t = task(
        "Print two recipes and mail one",
        &[
            (
                "soup",
                "Recipes",
                "Open the recipe 'Lentil Soup' in Recipes and print it to the PDF file '/home/user/Documents/lentil_soup.pdf'.",
            ),
            (
                "pancakes",
                "Recipes",
                "Open the recipe 'Banana Pancakes' in Recipes and print it to the PDF file '/home/user/Documents/banana_pancakes.pdf'.",
            ),
            (
                "mail",
                "Mail",
                "Write a mail to family@example.com with the subject 'Soup', attach '/home/user/Documents/lentil_soup.pdf', and send it.",
            ),
        ],
        &[("soup", "mail")],
    );
    let v = run(&t);
    assert!(v.passed, "{:?}", v.attempts);
    assert_eq!(v.attempts.len(), 1);
    assert!(
        v.summary
            .task_instruction
            .contains("Separately, open the recipe 'Banana Pancakes'"),
        "{}",
        v.summary.task_instruction
    );
}

fn messy_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("(1) ".to_string()),
        Just("(2) after 1, ".to_string()),
        Just("after 3, ".to_string()),
        Just("Goal: ".to_string()),
        Just("First, ".to_string()),
        Just("in any order: ".to_string()),
        Just("; ".to_string()),
        Just(". ".to_string()),
        Just("'".to_string()),
        Just("\"".to_string()),
        Just("é’ ".to_string()),
        "[a-z0-9 ,.;:()'\"/@-]{0,12}",
        any::<String>(),
    ];
    proptest::collection::vec(piece, 0..12).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn arbitrary_text_never_panics(instruction in messy_text(), a in messy_text(), b in messy_text()) {
        let subtasks = vec![("s1".to_string(), a.clone()), ("s2".to_string(), b.clone())];
        let _ = reconstruct(&instruction, &subtasks);
        let _ = summarize::short_clause(&a, &b);
        let t = task_owned(&instruction, &[("x".into(), b.clone(), a.clone()), ("y".into(), a, b)], &[("x".into(), "y".into())]);
        let _ = validate_offline(&t, 3, 1).unwrap();
    }
}
