//! The offline summarizer: a documented, rule-based baseline (not a language model)
//! that words a task's DAG as a high-level instruction in the grammar of
//! [`super::grammar`] and as a numbered step-by-step low-level instruction.
//!
//! Wording by attempt (see [`wording_for`]):
//! - attempt 1, or no feedback: [`Wording::Natural`], the way a person asks for the
//!   work: the task's goal, then one sentence per node with the node's whole
//!   instruction (every action its evaluation checks), in an order that follows
//!   hand-offs. A sentence says what it waits for only where the DAG orders it:
//!   "Then," after the sentence before, "Now," when the files its clause names
//!   say what it waits for (the steps that made them, the sentence before among
//!   them; "Also," when it is not), "Once '<file>' is ready,"
//!   after the steps that made the named files when they do not, "Separately,"
//!   when it waits for nothing. When some
//!   dependency cannot be said that way (a hand-off without a name to quote), the
//!   explicit wording is used at once.
//! - after structural feedback (orders added or missing): [`Wording::Explicit`],
//!   numbered steps, each naming the steps it comes after (the transitive
//!   reduction), with short clauses.
//! - after any other feedback (steps not recognised) or from attempt 3 on:
//!   [`Wording::ExplicitFull`], the same with each node's whole instruction as its
//!   clause, so steps are easier to tell apart.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::compare::Discrepancy;
use super::relations::Relations;
use super::text;
use crate::model::Task;

/// How the high-level instruction is worded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Wording {
    #[serde(alias = "compact")]
    Natural,
    Explicit,
    ExplicitFull,
}

impl fmt::Display for Wording {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Wording::Natural => "natural",
            Wording::Explicit => "explicit",
            Wording::ExplicitFull => "explicit_full",
        })
    }
}

/// A summarized task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// The high-level instruction, in the grammar of [`super::grammar`].
    pub task_instruction: String,
    /// One numbered line per node in the task's first topological order, each with
    /// the node's whole instruction and the earlier steps it needs.
    pub low_level_instruction: String,
    pub wording: Wording,
}

/// Why a task cannot be summarized.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SummarizeError {
    #[error("the task has no nodes")]
    Empty,
    #[error("node '{id}' is in the DAG but has no entry in the task's nodes")]
    MissingNode { id: String },
    #[error("the task's DAG has a cycle through {nodes:?}")]
    Cycle { nodes: Vec<String> },
}

/// The wording for `attempt` (1-based) given the previous comparison's feedback.
pub fn wording_for(attempt: u32, feedback: &[Discrepancy]) -> Wording {
    if attempt <= 1 || feedback.is_empty() {
        Wording::Natural
    } else if attempt == 2 && feedback.iter().all(Discrepancy::is_structural) {
        Wording::Explicit
    } else {
        Wording::ExplicitFull
    }
}

/// Summarizes `task` for `attempt` (1-based) after `feedback` (the discrepancies
/// of the previous attempt; empty on the first).
///
/// # Errors
/// An empty DAG, a DAG node without a [`crate::model::TaskNode`], or a cyclic DAG.
pub fn summarize(
    task: &Task,
    attempt: u32,
    feedback: &[Discrepancy],
) -> Result<Summary, SummarizeError> {
    let rel = Relations::from_dag(&task.dag);
    if rel.len() == 0 {
        return Err(SummarizeError::Empty);
    }
    let mut nodes = Vec::with_capacity(rel.len());
    for id in &rel.ids {
        let node = task
            .nodes
            .get(id)
            .ok_or_else(|| SummarizeError::MissingNode { id: id.clone() })?;
        nodes.push(node);
    }
    let order = rel
        .topo_order(task.successful_topo.first().map(Vec::as_slice))
        .ok_or_else(|| SummarizeError::Cycle {
            nodes: rel
                .cycles()
                .into_iter()
                .flatten()
                .map(|i| rel.ids[i].clone())
                .collect(),
        })?;

    let mut wording = wording_for(attempt, feedback);
    let mut order = order;
    let mut high = String::new();
    if wording == Wording::Natural {
        let chained = chain_order(&rel, &order);
        let texts: Vec<String> = nodes
            .iter()
            .map(|n| natural_clause(&n.instruction))
            .collect();
        // The chained order first; when one of its hand-offs has no name to
        // quote (a paste waits for a copy two sentences back), the first other
        // topological order in which every hand-off can be said.
        let purpose = task
            .purpose
            .as_deref()
            .map(|p| text::sanitize(p).trim().to_string())
            .filter(|p| !p.is_empty());
        // Independent pieces of work are told one after the other. Files made
        // apart and then gathered are listed first: five starts told with
        // "Separately," "Apart from that," ... read as a template.
        let worded = starts_first(&rel, &chained)
            .into_iter()
            .chain(std::iter::once(chained))
            .chain(topological_orders(&rel, NATURAL_ORDERS))
            .map(|o| by_piece(&rel, o))
            .find_map(|o| natural_body(&rel, &o, &texts, purpose.as_deref()).map(|body| (o, body)));
        match worded {
            Some((chained, body)) => {
                // With a purpose, the request opens with it ("For the summer
                // trip, take a screenshot ..."); the intent, which names every
                // result again, stays in its own field. Without one, the
                // request is the work alone: readers took an opening "I need
                // the chat message to 'Bob' sent, using ..." for a template.
                high.push_str(&body);
                order = chained;
            }
            None => wording = Wording::Explicit,
        }
    }
    if wording != Wording::Natural {
        let clauses: Vec<String> = nodes
            .iter()
            .map(|n| match wording {
                Wording::ExplicitFull => full_clause(&n.instruction, &n.application),
                _ => short_clause(&n.instruction, &n.application),
            })
            .collect();
        high = goal_sentence(&task.task_intent);
        if !high.is_empty() {
            high.push(' ');
        }
        high.push_str(&explicit_body(&rel, &order, &clauses));
    }

    let mut position = vec![0usize; rel.len()];
    for (p, &u) in order.iter().enumerate() {
        position[u] = p + 1;
    }
    let low_lines: Vec<String> = order
        .iter()
        .enumerate()
        .map(|(p, &u)| {
            let mut needs: Vec<usize> = rel.preds(u).into_iter().map(|w| position[w]).collect();
            needs.sort_unstable();
            let needs_text = match needs.as_slice() {
                [] => "can start at once".to_string(),
                [one] => format!("after step {one}"),
                many => {
                    let items: Vec<String> = many.iter().map(usize::to_string).collect();
                    format!("after steps {}", text::join_and(&items))
                }
            };
            let instruction = nodes[u].instruction.split_whitespace().collect::<Vec<_>>();
            format!("{}. ({needs_text}) {}", p + 1, instruction.join(" "))
        })
        .collect();

    Ok(Summary {
        task_instruction: high,
        low_level_instruction: low_lines.join("\n"),
        wording,
    })
}

fn goal_sentence(intent: &str) -> String {
    let goal = text::sanitize(intent);
    if goal.is_empty() {
        String::new()
    } else {
        format!("{} {}.", super::grammar::GOAL, goal)
    }
}

/// A node's whole instruction as one clause: grammar characters removed, no final
/// full stop, and the explorer's step-by-step form ("In Writer, open a document
/// 'a.md', then insert the picture 'b.png', then save the document under a new
/// name as 'c.docx'") said the way a person asks ("open 'a.md' in Writer, insert
/// the picture 'b.png' and save it as 'c.docx'"). Every action and every quoted
/// value stays; only the glue changes.
fn natural_clause(instruction: &str) -> String {
    let clause = text::sanitize(instruction);
    let clause = clause.trim().trim_end_matches('.');
    let Some((app, rest)) = clause
        .strip_prefix("In ")
        .and_then(|r| r.split_once(", "))
        .filter(|(app, _)| !app.contains('\''))
    else {
        return clause.to_string();
    };
    let phrases = sent_to(picked_items(text::split_outside(rest, &[", then "])));
    let mut out: Vec<String> = Vec::with_capacity(phrases.len());
    for (i, phrase) in phrases.iter().enumerate() {
        let phrase = phrase
            .replacen(" under a new name as '", " as '", 1)
            .replacen(" under a name as '", " as '", 1)
            .replacen(" under a name '", " as '", 1)
            .replacen(" as PDF as '", " as the PDF '", 1)
            .replacen(" to a PDF as '", " to the PDF '", 1);
        let phrase = computed_outputs(&phrase);
        if i == 0 {
            out.push(match opened(&phrase) {
                Some(("", quoted, more)) => format!("open {quoted} in {app}{more}"),
                Some((what, quoted, more)) => format!("open the {what} {quoted} in {app}{more}"),
                None => format!("in {app}, {phrase}"),
            });
        } else {
            out.push(refer_back(&phrase));
        }
    }
    text::join_and(&out)
}

/// Opening a person in a list and then sending said as sending to the person:
/// "open 'Dave' in People, then send the file 'a.pdf'" reads "send 'Dave' the
/// file 'a.pdf'" (a reviewer read the first as the screen, not the request).
fn sent_to(mut phrases: Vec<String>) -> Vec<String> {
    let person = phrases.first().and_then(|p| {
        let rest = p.strip_prefix("open '")?;
        let (name, list) = rest.split_once("' in ")?;
        let plain = |w: &str| !w.is_empty() && !w.contains(['\'', '/', '.', ',']);
        (plain(name) && plain(list) && !list.contains(' ')).then(|| name.to_string())
    });
    let sends = phrases.get(1).and_then(|p| {
        let rest = p.strip_prefix("send ")?;
        (rest.starts_with("a ") || rest.starts_with("the ")).then(|| rest.to_string())
    });
    if let (Some(name), Some(what)) = (person, sends) {
        // "a chat message saying the copied text" is the screen's wording:
        // what is sent is the copied text.
        let what = what
            .strip_prefix("a chat message saying ")
            .filter(|w| w.starts_with("the copied "))
            .map_or(what.clone(), |w| format!("{w} in a message"));
        phrases.splice(0..2, [format!("send '{name}' {what}")]);
    }
    phrases
}

/// Selecting an item and then acting on "it" said as acting on the item ("select
/// 'a.txt', then add it to the archive list" reads "add 'a.txt' to the archive
/// list"), and "repeat with 'b.txt'" after it said as one action on both ("add
/// 'a.txt' and 'b.txt' to the archive list"): a request names what is done to
/// which files, not the clicks that pick them.
fn picked_items(phrases: Vec<&str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(phrases.len());
    for phrase in phrases {
        let previous = out.last().map(String::as_str).unwrap_or("");
        let selected = previous
            .strip_prefix("select '")
            .and_then(|r| r.strip_suffix('\''))
            .filter(|item| !item.contains('\''));
        let acts_on_it = phrase
            .split_once(' ')
            .filter(|(verb, rest)| *verb != "select" && rest.starts_with("it "));
        if let (Some(item), Some((verb, rest))) = (selected, acts_on_it) {
            let merged = format!("{verb} '{item}'{}", &rest[2..]);
            *out.last_mut().expect("a previous phrase") = merged;
            continue;
        }
        // "select 'Standup', then export an event as an .ics file": the event
        // exported is the one selected ("export the event 'Standup' as ...").
        let acts_on_one = phrase.split_once(' ').and_then(|(verb, rest)| {
            let rest = rest
                .strip_prefix("a ")
                .or_else(|| rest.strip_prefix("an "))?;
            let (noun, more) = rest.split_once(' ').unwrap_or((rest, ""));
            let plain = |w: &str| !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase());
            (verb != "select" && plain(verb) && plain(noun)).then_some((verb, noun, more))
        });
        if let (Some(item), Some((verb, noun, more))) = (selected, acts_on_one) {
            let more = if more.is_empty() {
                String::new()
            } else {
                format!(" {more}")
            };
            let merged = format!("{verb} the {noun} '{item}'{more}");
            *out.last_mut().expect("a previous phrase") = merged;
            continue;
        }
        let again = phrase.strip_prefix("repeat with ").and_then(quoted_list);
        let one_quoted = text::quoted_spans(previous);
        if let (Some(items), [first]) = (again, one_quoted.as_slice()) {
            let mut all = vec![first.to_string()];
            all.extend(items.iter().map(|i| format!("'{i}'")));
            let (last, rest) = all.split_last().expect("two or more items");
            let listed = format!("{} and {last}", rest.join(", "));
            let merged = previous.replacen(first, &listed, 1);
            *out.last_mut().expect("a previous phrase") = merged;
            continue;
        }
        out.push(phrase.to_string());
    }
    out
}

/// The items of a quoted list ("'a.txt'", "'a.txt' and 'b.pdf'", "'a.txt',
/// 'b.pdf' and 'c.png'"), or `None` when `s` is anything else.
fn quoted_list(s: &str) -> Option<Vec<&str>> {
    let mut items = Vec::new();
    let mut rest = s;
    loop {
        let inner = rest.strip_prefix('\'')?;
        let close = inner.find('\'')?;
        items.push(&inner[..close]);
        rest = &inner[close + 1..];
        if rest.is_empty() {
            return Some(items);
        }
        rest = rest
            .strip_prefix(", ")
            .or_else(|| rest.strip_prefix(" and "))?;
    }
}

/// The clause naming what the application names itself (", giving the
/// calendar file '/home/user/a.ics'") said as a person would: where the files
/// go, in brackets ("export an event as an .ics file (saved as
/// '/home/user/a.ics')"; "... to the calendar file '...'" read as spliced from
/// a template to a reviewer); a setting's stored
/// form ('wallpaper=a.png') is left out, the action before it says what was set.
/// Other outputs (a record) keep the clause.
fn computed_outputs(phrase: &str) -> String {
    let parts = text::split_outside(phrase, &[", giving "]);
    let [head, tail] = parts.as_slice() else {
        return phrase.to_string();
    };
    let quoted = text::quoted_spans(tail);
    if quoted.is_empty() {
        return phrase.to_string();
    }
    if quoted.iter().all(|q| q.contains('=')) {
        return head.to_string();
    }
    if quoted.iter().all(|q| q[1..].starts_with('/')) {
        if let [file] = quoted.as_slice() {
            if let Some(action) = named_after(head, file) {
                return format!("{action} under {file}");
            }
        }
        let files: Vec<String> = quoted.iter().map(|q| q.to_string()).collect();
        return format!("{head} (saved as {})", text::join_and(&files));
    }
    phrase.to_string()
}

/// `head` without its closing " named 'x'" when `file` (quoted) is that name
/// with a folder and an extension: "print the page to PDF named 'sales'" for
/// '/home/user/Downloads/sales.pdf' is "print the page to PDF" (said once,
/// "under '...sales.pdf'", not "named 'sales' (saved as ...)").
fn named_after<'h>(head: &'h str, file: &str) -> Option<&'h str> {
    let (action, name) = head.rsplit_once(" named '")?;
    let name = name.strip_suffix('\'')?;
    let path = file.trim_matches('\'');
    let stem = std::path::Path::new(path).file_stem()?.to_str()?;
    (stem == name && !name.contains('\'')).then_some(action)
}

/// "open a text file 'x'" (or "open 'x'"), possibly with more after the quote:
/// what the file is without its article ("text file"), the quoted name and what
/// follows it.
fn opened(phrase: &str) -> Option<(&str, &str, &str)> {
    let rest = phrase.strip_prefix("open ")?;
    let start = rest.find('\'')?;
    let what = rest[..start].trim();
    // Only a short description of the file before its name.
    if what.split_whitespace().count() > 3 {
        return None;
    }
    let what = ["a ", "an ", "the "]
        .iter()
        .find_map(|a| what.strip_prefix(a))
        .unwrap_or(what);
    let end = start + 1 + rest[start + 1..].find('\'')?;
    let name = &rest[start + 1..end];
    // A file or a web address, not a person or an item ("open 'Dave' in People").
    if !name.contains(['/', '.']) {
        return None;
    }
    Some((what, &rest[start..=end], &rest[end + 1..]))
}

/// A later action on the file the clause opened says "it": "save the document as
/// 'c.docx'" reads "save it as 'c.docx'", "export the deck as PDF" reads "export
/// it as PDF".
fn refer_back(phrase: &str) -> String {
    const VERBS: &[&str] = &["save", "export", "print", "convert", "copy", "compress"];
    const THINGS: &[&str] = &[
        "the document",
        "the text",
        "the deck",
        "the workbook",
        "the sheet",
        "the image",
        "the file",
        "the PDF",
        "the video",
        "the note",
        "the board",
        "the list",
    ];
    let mut words = phrase.splitn(2, ' ');
    let (Some(verb), Some(rest)) = (words.next(), words.next()) else {
        return phrase.to_string();
    };
    if !VERBS.contains(&verb) {
        return phrase.to_string();
    }
    for thing in THINGS {
        if let Some(after) = rest.strip_prefix(thing) {
            if after.is_empty()
                || [" as ", " to ", " into ", ","]
                    .iter()
                    .any(|w| after.starts_with(w))
            {
                return format!("{verb} it{after}");
            }
        }
    }
    phrase.to_string()
}

/// A topological order that follows hand-offs: after each node, the next is one of
/// its successors when one is ready, so a chain reads as a chain. A node whose
/// successors all still wait for other nodes comes after those when it can (the
/// copy right before its paste, once the document it goes into is made), so the
/// successor can follow it. Ties keep the order of `preferred` (a topological
/// order of the DAG).
pub(crate) fn chain_order(rel: &Relations, preferred: &[usize]) -> Vec<usize> {
    let n = rel.len();
    let mut placed = vec![false; n];
    let mut order: Vec<usize> = Vec::with_capacity(n);
    let preds: Vec<Vec<usize>> = (0..n).map(|v| rel.preds(v)).collect();
    let succs: Vec<Vec<usize>> = (0..n)
        .map(|v| (0..n).filter(|&w| preds[w].contains(&v)).collect())
        .collect();
    while order.len() < n {
        let ready = |v: usize| !placed[v] && preds[v].iter().all(|&u| placed[u]);
        let waits = |v: usize| {
            !succs[v].is_empty()
                && succs[v]
                    .iter()
                    .all(|&s| preds[s].iter().any(|&u| u != v && !placed[u]))
        };
        let last = order.last().copied();
        let next = preferred
            .iter()
            .copied()
            .find(|&v| ready(v) && last.is_some_and(|l| preds[v].contains(&l)))
            .or_else(|| preferred.iter().copied().find(|&v| ready(v) && !waits(v)))
            .or_else(|| preferred.iter().copied().find(|&v| ready(v)));
        let Some(v) = next else { break };
        placed[v] = true;
        order.push(v);
    }
    order
}

/// `order` with the steps that wait for nothing moved to the front, when the
/// task is one piece that gathers two or more of them and `order` does not
/// already lead with them (see the grammar's listed steps): the rest keep
/// their order, so the result is still topological. `None` otherwise.
fn starts_first(rel: &Relations, order: &[usize]) -> Option<Vec<usize>> {
    use super::grammar::ORDINALS;
    let is_start = |v: usize| rel.preds(v).is_empty();
    let starts = order.iter().filter(|&&v| is_start(v)).count();
    let one_piece = rel.pieces_along(order).iter().all(|&p| p == 0);
    let leads = order[..starts].iter().all(|&v| is_start(v));
    if !one_piece || leads || !(2..=ORDINALS.len()).contains(&starts) {
        return None;
    }
    let (mut first, rest): (Vec<usize>, Vec<usize>) = order.iter().partition(|&&v| is_start(v));
    first.extend(rest);
    Some(first)
}

/// Topological orders tried for the natural wording after the chained one.
const NATURAL_ORDERS: usize = 200;

/// Up to `limit` topological orders of `rel`, in lexicographic order of node
/// index (depth-first).
fn topological_orders(rel: &Relations, limit: usize) -> Vec<Vec<usize>> {
    fn go(
        rel: &Relations,
        preds: &[Vec<usize>],
        placed: &mut Vec<bool>,
        order: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
        limit: usize,
    ) {
        if out.len() >= limit {
            return;
        }
        if order.len() == rel.len() {
            out.push(order.clone());
            return;
        }
        for v in 0..rel.len() {
            if !placed[v] && preds[v].iter().all(|&u| placed[u]) {
                placed[v] = true;
                order.push(v);
                go(rel, preds, placed, order, out, limit);
                order.pop();
                placed[v] = false;
            }
        }
    }
    let preds: Vec<Vec<usize>> = (0..rel.len()).map(|v| rel.preds(v)).collect();
    let mut out = Vec::new();
    go(
        rel,
        &preds,
        &mut vec![false; rel.len()],
        &mut Vec::new(),
        &mut out,
        limit,
    );
    out
}

/// `order` with each weakly connected piece of the task together, pieces in the
/// order their first node comes (still a topological order: no edge joins two
/// pieces).
fn by_piece(rel: &Relations, order: Vec<usize>) -> Vec<usize> {
    let piece = rel.pieces_along(&order);
    let mut grouped = order;
    grouped.sort_by_key(|&v| piece[v]);
    grouped
}

/// Leads for a sentence that comes right after the one before it, by position.
const NEXT_LEADS: &[&str] = &["Then,", "Next,", "After that,"];

/// The natural body: one sentence per node in `order`, each with the lead that
/// states its dependencies (module docs). `None` when a dependency on an earlier,
/// non-adjacent step has no quoted value that names it unambiguously.
fn natural_body(
    rel: &Relations,
    order: &[usize],
    clauses: &[String],
    purpose: Option<&str>,
) -> Option<String> {
    use super::grammar::{ALSO, COUNTS, FINALLY, NOW, ONCE, ORDINALS, SEPARATE_LEADS};
    let reduction = rel.reduction();
    let last = order.len().saturating_sub(1);
    let mut sentences = Vec::with_capacity(order.len() + 1);
    let mut separate = 0;
    // Several independent pieces with a purpose: a goal sentence counts them
    // and each piece opens with its ordinal (see the grammar).
    let piece = rel.pieces_along(order);
    let pieces = piece.iter().max().map_or(0, |&m| m + 1);
    let jobs = match purpose {
        Some(purpose) if (2..=ORDINALS.len()).contains(&pieces) => {
            sentences.push(format!(
                "{}, there are {} separate things to do.",
                text::capitalize(purpose),
                COUNTS[pieces - 2]
            ));
            true
        }
        _ => false,
    };
    // One piece whose first steps wait for nothing (files made apart, then
    // zipped and mailed together): they are listed in the first sentence,
    // apart by "; " ("For the trip, export ...; crop ...; and write ..."),
    // as a person lists what to get ready. Readers rejected a sentence
    // counting them first ("get three things ready first") as filler.
    let starts = order
        .iter()
        .take_while(|&&v| !reduction.iter().any(|&(_, b)| b == v))
        .count();
    let listed = if !jobs && pieces == 1 && (2..=ORDINALS.len()).contains(&starts) {
        let parts: Vec<String> = order[..starts]
            .iter()
            .enumerate()
            .map(|(k, &v)| match purpose {
                Some(purpose) if k == 0 => {
                    format!(
                        "{}, {}",
                        text::capitalize(purpose),
                        text::decapitalize(&clauses[v])
                    )
                }
                _ if k == 0 => text::capitalize(&clauses[v]),
                _ => text::decapitalize(&clauses[v]),
            })
            .collect();
        let (last_part, head) = parts.split_last()?;
        sentences.push(format!("{}; and {last_part}.", head.join("; ")));
        starts
    } else {
        0
    };
    // The steps of the sentence before: "Then," and no lead wait for all.
    let mut before: Vec<usize> = order[..listed].to_vec();
    let mut started = vec![false; pieces];
    for (p, &v) in order.iter().enumerate().skip(listed) {
        let mut preds: Vec<usize> = reduction
            .iter()
            .filter(|&&(_, b)| b == v)
            .map(|&(a, _)| a)
            .collect();
        preds.sort_by_key(|u| order.iter().position(|w| w == u));
        let clause = &clauses[v];
        let opens_piece = !std::mem::replace(&mut started[piece[v]], true);
        // Waits for every step of the sentence before.
        let after_before = !before.is_empty() && before.iter().all(|u| preds.contains(u));
        let sentence = if jobs && opens_piece {
            format!("{} {}", ORDINALS[piece[v]], text::decapitalize(clause))
        } else if p == 0 {
            match purpose {
                Some(purpose) => format!(
                    "{}, {}",
                    text::capitalize(purpose),
                    text::decapitalize(clause)
                ),
                None => text::capitalize(clause),
            }
        } else if preds.is_empty() {
            let lead = SEPARATE_LEADS[separate % SEPARATE_LEADS.len()];
            separate += 1;
            format!("{lead} {}", text::decapitalize(clause))
        } else if after_before && preds.len() == before.len() {
            let lead = if p == last && p > 1 {
                FINALLY
            } else {
                NEXT_LEADS[(sentences.len().max(1) - 1) % NEXT_LEADS.len()]
            };
            format!("{lead} {}", text::decapitalize(clause))
        } else if said_by_names(rel, order, clauses, p, &preds) {
            // The names in the clause say what it waits for ("Now, mail
            // '/home/user/shot.png' to ...": the screenshot saved earlier);
            // "Also," when the sentence before is no part of it, so no order
            // with it is suggested.
            let lead = if after_before { NOW } else { ALSO };
            format!("{lead} {}", text::decapitalize(clause))
        } else {
            // The sentence before is said with "Then,"; the others by a name each
            // (a paste waits for the copy just before it and a file made earlier).
            let mut names = Vec::with_capacity(preds.len());
            for &u in preds
                .iter()
                .filter(|&&u| !after_before || !before.contains(&u))
            {
                let at = order.iter().position(|&w| w == u)?;
                names.push(format!("'{}'", handoff_name(order, clauses, at, v)?));
            }
            let verb = if names.len() == 1 { "is" } else { "are" };
            let once = format!(
                "{} {} {verb} ready,",
                ONCE.to_lowercase(),
                text::join_and(&names)
            );
            if after_before {
                format!("{} {once} {}", NEXT_LEADS[0], text::decapitalize(clause))
            } else {
                format!("{} {}", text::capitalize(&once), text::decapitalize(clause))
            }
        };
        sentences.push(format!("{sentence}."));
        before = vec![v];
    }
    Some(sentences.join(" "))
}

/// Does "Now," say exactly what the step at position `p` of `order` waits for?
/// It puts the step after the earliest earlier step quoting each name its clause
/// quotes: true when every such step comes before it in the DAG (no order is
/// invented: a desktop file an unrelated step also opened would invent one) and
/// every direct predecessor in `preds` is one of them or comes before one.
fn said_by_names(
    rel: &Relations,
    order: &[usize],
    clauses: &[String],
    p: usize,
    preds: &[usize],
) -> bool {
    let v = order[p];
    let makers: Vec<usize> = text::quoted_spans(&clauses[v])
        .into_iter()
        .filter_map(|q| {
            order[..p]
                .iter()
                .copied()
                .find(|&w| text::quoted_spans(&clauses[w]).contains(&q))
        })
        .collect();
    !makers.is_empty()
        && makers.iter().all(|&m| rel.before(m, v))
        && preds
            .iter()
            .all(|&u| makers.iter().any(|&m| m == u || rel.before(u, m)))
}

/// A quoted value that the step at position `at` shares with `consumer` and that
/// no step before `at` names, so "once '<value>' is ready" points at that step.
fn handoff_name<'a>(
    order: &[usize],
    clauses: &'a [String],
    at: usize,
    consumer: usize,
) -> Option<&'a str> {
    let shared = text::quoted_spans(&clauses[consumer]);
    text::quoted_spans(&clauses[order[at]])
        .into_iter()
        .filter(|q| shared.contains(q))
        .find(|q| {
            order[..at]
                .iter()
                .all(|&w| !text::quoted_spans(&clauses[w]).contains(q))
        })
        .map(|q| q.trim_matches(|c| c == '\'' || c == '"'))
}

/// The explicit body: numbered steps in `order`, each naming the steps it comes
/// after in the transitive reduction.
fn explicit_body(rel: &Relations, order: &[usize], clauses: &[String]) -> String {
    use super::grammar::{AFTER, STEPS_PREAMBLE};
    let mut position = vec![0usize; rel.len()];
    for (p, &u) in order.iter().enumerate() {
        position[u] = p + 1;
    }
    let reduction = rel.reduction();
    let steps: Vec<String> = order
        .iter()
        .enumerate()
        .map(|(p, &v)| {
            let mut after: Vec<usize> = reduction
                .iter()
                .filter(|&&(_, b)| b == v)
                .map(|&(a, _)| position[a])
                .collect();
            after.sort_unstable();
            if after.is_empty() {
                format!("({}) {}.", p + 1, clauses[v])
            } else {
                let refs: Vec<String> = after.iter().map(usize::to_string).collect();
                format!(
                    "({}) {AFTER} {}, {}.",
                    p + 1,
                    text::join_and(&refs),
                    clauses[v]
                )
            }
        })
        .collect();
    format!("{STEPS_PREAMBLE} {}", steps.join(" "))
}

/// Separators between the parts of a node instruction, longest first.
const SEGMENT_SEPARATORS: &[&str] = &[
    ", and then ",
    ", and ",
    ", then ",
    " and then ",
    ", ",
    "; ",
    " and ",
];

/// A short clause for a node: the instruction's first part (two parts when the
/// first is only a setting such as "In the Code Editor"), plus the last later part
/// that names a new quoted item, path or address (usually the resource the step
/// produces), plus "in <application>" when the application is not named yet.
/// Grammar characters are removed (see [`text::sanitize`]); the first letter is
/// lower-cased.
pub fn short_clause(instruction: &str, application: &str) -> String {
    let cleaned = text::sanitize(instruction);
    let parts: Vec<&str> = text::split_outside(&cleaned, SEGMENT_SEPARATORS)
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect();
    if parts.is_empty() {
        return with_application(String::new(), application);
    }
    let mut used = 1;
    let mut head = parts[0].to_string();
    if is_setting(&head) && parts.len() > 1 {
        head = format!("{head}, {}", parts[1]);
        used = 2;
    }
    let tail = parts[used..].iter().rev().find(|p| {
        mentions(p)
            .iter()
            .any(|item| !head.to_lowercase().contains(&item.to_lowercase()))
    });
    let mut clause = head;
    if let Some(tail) = tail {
        clause.push_str(" and ");
        clause.push_str(tail);
    }
    with_application(text::decapitalize(&clause), application)
}

/// The node's whole instruction as a clause (grammar characters removed), plus
/// "in <application>" when the application is not named.
pub fn full_clause(instruction: &str, application: &str) -> String {
    with_application(
        text::decapitalize(&text::sanitize(instruction)),
        application,
    )
}

fn with_application(clause: String, application: &str) -> String {
    let app = application.trim();
    if app.is_empty() || clause.to_lowercase().contains(&app.to_lowercase()) {
        return clause;
    }
    if clause.is_empty() {
        return format!("use {app}");
    }
    format!("{clause} in {app}")
}

/// "In the Code Editor", "Using the file manager": a setting, not an action.
fn is_setting(part: &str) -> bool {
    let lower = part.to_lowercase();
    ["in ", "using ", "on ", "with ", "from "]
        .iter()
        .any(|p| lower.starts_with(p))
        && text::word_count(part) <= 5
}

/// Quoted items, paths, e-mail addresses and URLs named in `part`.
fn mentions(part: &str) -> Vec<String> {
    let mut out: Vec<String> = text::quoted_spans(part)
        .into_iter()
        .map(str::to_string)
        .collect();
    for word in part.split_whitespace() {
        if word.contains('@') || word.contains("://") || word.starts_with('/') {
            out.push(word.trim_end_matches([',', '.']).to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_that_wait_for_nothing_are_listed_in_the_first_sentence() {
        let ids: Vec<String> = (0..5).map(|i| format!("n{i}")).collect();
        let edge = |a: usize, b: usize| (ids[a].clone(), ids[b].clone());
        let texts = |v: &[&str]| v.iter().map(|t| t.to_string()).collect::<Vec<_>>();
        // Three starts, then the step that gathers them and one after it.
        let gather = Relations::new(
            ids.clone(),
            &[edge(0, 3), edge(1, 3), edge(2, 3), edge(3, 4)],
        );
        let clauses = texts(&[
            "in A, save '/f0'",
            "in B, save '/f1'",
            "in C, save '/f2'",
            "in D, pack '/f0', '/f1' and '/f2' as '/f3'",
            "in E, send '/f3'",
        ]);
        let body = natural_body(&gather, &[0, 1, 2, 3, 4], &clauses, Some("for the trip")).unwrap();
        assert_eq!(
            body,
            "For the trip, in A, save '/f0'; in B, save '/f1'; and in C, save '/f2'. \
             Then, in D, pack '/f0', '/f1' and '/f2' as '/f3'. Finally, in E, send '/f3'."
        );
        // No sentence counts them ("get three things ready first": filler
        // to readers), and no ordinals.
        assert!(
            !body.contains("things") && !body.contains("First,"),
            "{body}"
        );
        let parsed = super::super::reconstruct::parse_for(&body, Some(5)).unwrap();
        let mut edges = parsed.edges.clone();
        edges.sort_unstable();
        assert_eq!(edges, [(0, 3), (1, 3), (2, 3), (3, 4)], "{body}");
        // A start whose branch goes on before the others begin is moved
        // after the list; its second step says what it waits for by name.
        let branch = Relations::new(
            ids.clone(),
            &[edge(0, 1), edge(1, 4), edge(2, 4), edge(3, 4)],
        );
        let clauses = texts(&[
            "in A, save '/f0'",
            "in B, open '/f0' and save '/f1'",
            "in C, save '/f2'",
            "in D, save '/f3'",
            "in E, send '/f1', '/f2' and '/f3'",
        ]);
        let order = starts_first(&branch, &[0, 1, 2, 3, 4]).unwrap();
        assert_eq!(order, [0, 2, 3, 1, 4]);
        let body = natural_body(&branch, &order, &clauses, Some("for the trip")).unwrap();
        assert!(
            body.starts_with("For the trip, in A, save '/f0'; in C"),
            "{body}"
        );
        let parsed = super::super::reconstruct::parse_for(&body, Some(5)).unwrap();
        let mut edges = parsed.edges.clone();
        edges.sort_unstable();
        // Positions in the text: A 0, C 1, D 2, B 3, E 4.
        assert_eq!(edges, [(0, 3), (1, 4), (2, 4), (3, 4)], "{body}");
        assert!(
            starts_first(&gather, &[0, 1, 2, 3, 4]).is_none(),
            "already leads"
        );
    }

    #[test]
    fn outputs_the_application_names_read_as_a_person_says_them() {
        assert_eq!(
            natural_clause("In Calendar, select 'Standup', then export an event as an .ics file, giving the calendar file '/home/user/Documents/Standup.ics'."),
            "in Calendar, export the event 'Standup' as an .ics file (saved as '/home/user/Documents/Standup.ics')"
        );
        // A name typed for the file is said once, with where it goes.
        assert_eq!(
            natural_clause("In Browser, open a web address 'https://a.example.com', then print the page to PDF named 'sales', giving the PDF '/home/user/Downloads/sales.pdf'."),
            "open the web address 'https://a.example.com' in Browser and print the page to PDF under '/home/user/Downloads/sales.pdf'"
        );
        assert_eq!(
            natural_clause("In Photos, view a picture '/home/user/Pictures/a.png', then set the picture as wallpaper, giving the setting 'wallpaper=a.png'."),
            "in Photos, view a picture '/home/user/Pictures/a.png' and set the picture as wallpaper"
        );
    }

    #[test]
    fn short_clause_keeps_the_action_and_the_produced_file() {
        assert_eq!(
            short_clause(
                "Open the recipe 'Lentil Soup' in Recipes, scale it to 4 servings, and export its shopping list to '/home/user/Documents/shopping.txt'.",
                "Recipes"
            ),
            "open the recipe 'Lentil Soup' in Recipes and export its shopping list to '/home/user/Documents/shopping.txt'"
        );
    }

    #[test]
    fn short_clause_merges_a_leading_setting_and_names_the_application() {
        assert_eq!(
            short_clause(
                "In the Terminal, run 'sh /home/user/backup.sh' so that it writes the archive '/home/user/b.zip'.",
                "Terminal"
            ),
            "in the Terminal, run 'sh /home/user/backup.sh' so that it writes the archive '/home/user/b.zip'"
        );
        assert_eq!(
            short_clause("Create a sticky note titled 'Shopping' that lists the items in '/home/user/a.txt'.", "Sticky Notes"),
            "create a sticky note titled 'Shopping' that lists the items in '/home/user/a.txt' in Sticky Notes"
        );
    }

    #[test]
    fn short_clause_drops_parts_without_new_items() {
        assert_eq!(
            short_clause(
                "Open '/home/user/Videos/a.mp4' in the Media Player and play it in full screen.",
                "Media Player"
            ),
            "open '/home/user/Videos/a.mp4' in the Media Player"
        );
    }

    #[test]
    fn items_picked_by_clicks_are_named_as_what_is_done_to_them() {
        assert_eq!(
            natural_clause(
                "In Archiver, select '/home/user/a.txt', then add it to the archive list, then repeat with '/home/user/b.txt', then compress the list into a zip archive as '/home/user/ab.zip'."
            ),
            "in Archiver, add '/home/user/a.txt' and '/home/user/b.txt' to the archive list and compress it into a zip archive as '/home/user/ab.zip'"
        );
        // A bundle of several files, listed once.
        assert_eq!(
            natural_clause(
                "In Archiver, select '/home/user/a.txt', then add it to the archive list, then repeat with '/home/user/b.pdf', '/home/user/c.png' and '/home/user/d.xlsx', then compress the list into a zip archive as '/home/user/kit.zip'."
            ),
            "in Archiver, add '/home/user/a.txt', '/home/user/b.pdf', '/home/user/c.png' and '/home/user/d.xlsx' to the archive list and compress it into a zip archive as '/home/user/kit.zip'"
        );
        // An action on "a recipe" right after selecting one acts on that one.
        assert_eq!(
            natural_clause("In Recipes, select 'Pancakes', then export a recipe as text."),
            "in Recipes, export the recipe 'Pancakes' as text"
        );
        // A selection the next action does not take up stays.
        assert_eq!(
            natural_clause("In Files, select 'a.txt', then open the Trash."),
            "in Files, select 'a.txt' and open the Trash"
        );
    }

    #[test]
    fn a_natural_clause_keeps_every_action_and_drops_the_glue() {
        assert_eq!(
            natural_clause(
                "In Writer, open a document '/home/user/a.md', then insert the picture \
                 '/home/user/b.png', then copy the document text, then save the document \
                 under a new name as '/home/user/c.docx'."
            ),
            "open the document '/home/user/a.md' in Writer, insert the picture '/home/user/b.png', \
             copy the document text and save it as '/home/user/c.docx'"
        );
        assert_eq!(
            natural_clause(
                "In Screenshot Tool, save a screenshot under a name as '/home/user/s.png'."
            ),
            "in Screenshot Tool, save a screenshot as '/home/user/s.png'"
        );
        assert_eq!(
            natural_clause(
                "In Slides, open a deck 'd.pptx', then export the deck as PDF as 'd.pdf'."
            ),
            "open the deck 'd.pptx' in Slides and export it as the PDF 'd.pdf'"
        );
        assert_eq!(
            natural_clause("In Chat, open 'Dave' in People, then send a chat message."),
            "in Chat, send 'Dave' a chat message"
        );
        assert_eq!(
            natural_clause(
                "In Chat, open 'Carol' in People, then send the file '/home/user/a.pdf'."
            ),
            "in Chat, send 'Carol' the file '/home/user/a.pdf'"
        );
        assert_eq!(
            natural_clause(
                "In Chat, open 'Alice' in People, then send a chat message saying the copied number."
            ),
            "in Chat, send 'Alice' the copied number in a message"
        );
        // Not the explorer's form: left as written.
        let own = "Open the recipe 'Soup' in Recipes and scale it to 4 servings.";
        assert_eq!(natural_clause(own), own.trim_end_matches('.'));
    }

    #[test]
    fn wording_escalates_with_feedback() {
        let structural = [Discrepancy::ExtraOrder {
            first: "a".into(),
            then: "b".into(),
        }];
        let other = [Discrepancy::UnknownNode { id: "z".into() }];
        assert_eq!(wording_for(1, &[]), Wording::Natural);
        assert_eq!(wording_for(2, &structural), Wording::Explicit);
        assert_eq!(wording_for(2, &other), Wording::ExplicitFull);
        assert_eq!(wording_for(3, &structural), Wording::ExplicitFull);
        assert_eq!(wording_for(2, &[]), Wording::Natural);
    }
}
