//! The offline reconstructor: reads dependencies back from an instruction, given
//! only its text and the subtasks' instructions under neutral ids.
//!
//! It parses the grammar of [`super::grammar`] into steps (clauses) and step-level
//! dependencies, then matches each clause to one subtask by text similarity: cosine
//! similarity of token sets weighted by inverse document frequency over the
//! subtasks (tokens shared by every subtask count little, quoted names and paths
//! count much). Each subtask is used once; the assignment maximizes the total
//! similarity (exactly, by dynamic programming over subsets, up to
//! [`EXACT_ASSIGNMENT_MAX`] steps; greedily beyond). Ties are broken by the
//! subtasks' text, then id, so the result does not depend on the order or the names
//! of the neutral ids.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::grammar::{AFTER, AFTER_PREVIOUS, ALSO, GOAL, INDEPENDENT, NOW, ONCE};
use super::text;

/// Up to this many steps the clause-to-subtask assignment is exact.
pub const EXACT_ASSIGNMENT_MAX: usize = 12;

/// Why an instruction cannot be read back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ReconstructError {
    #[error("the instruction names no step")]
    NoSteps,
    #[error("step {step} is empty")]
    EmptyStep { step: usize },
    #[error("step marker ({found}) where ({expected}) was expected")]
    StepNumber { expected: usize, found: usize },
    #[error("step {step} comes after step {reference}, which does not exist or is itself")]
    BadReference { step: usize, reference: usize },
    #[error("the instruction has {steps} steps but there are {subtasks} subtasks")]
    StepCount { steps: usize, subtasks: usize },
    #[error("subtask id '{id}' is given twice")]
    DuplicateId { id: String },
    #[error("step {step} waits for '{name}', which no earlier step names")]
    UnknownName { step: usize, name: String },
}

/// An instruction read into steps: the goal, each step's clause, and dependencies
/// `(before, after)` between step indices (0-based, in text order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedInstruction {
    pub goal: Option<String>,
    pub steps: Vec<String>,
    pub edges: Vec<(usize, usize)>,
}

/// Reads `instruction` and returns dependency edges `(before, after)` between the
/// neutral ids of `subtasks` (`(id, subtask instruction)`, any order).
///
/// # Errors
/// The text does not follow the grammar ([`parse`]), its step count differs from
/// the number of subtasks, or an id is given twice.
pub fn reconstruct(
    instruction: &str,
    subtasks: &[(String, String)],
) -> Result<Vec<(String, String)>, ReconstructError> {
    let mut seen = BTreeSet::new();
    for (id, _) in subtasks {
        if !seen.insert(id.as_str()) {
            return Err(ReconstructError::DuplicateId { id: id.clone() });
        }
    }
    let parsed = parse_for(instruction, Some(subtasks.len()))?;
    if parsed.steps.len() != subtasks.len() {
        return Err(ReconstructError::StepCount {
            steps: parsed.steps.len(),
            subtasks: subtasks.len(),
        });
    }
    let assignment = assign(&parsed.steps, subtasks);
    let mut edges: Vec<(String, String)> = parsed
        .edges
        .iter()
        .map(|&(a, b)| {
            (
                subtasks[assignment[a]].0.clone(),
                subtasks[assignment[b]].0.clone(),
            )
        })
        .collect();
    edges.sort();
    edges.dedup();
    Ok(edges)
}

/// Parses `instruction` in the grammar of [`super::grammar`]: the explicit form
/// when a step marker `(1)` occurs outside quotes, else the natural form. An
/// unmarked goal is not recognised; see [`parse_for`].
///
/// # Errors
/// No step, an empty step, step markers out of sequence, an `after` reference to a
/// missing step or to the step itself, or a name no earlier step quotes.
pub fn parse(instruction: &str) -> Result<ParsedInstruction, ReconstructError> {
    parse_for(instruction, None)
}

/// [`parse`], knowing that the instruction should have `steps` steps: a natural
/// instruction with one sentence more, and no marked goal, opens with its goal.
///
/// # Errors
/// As [`parse`].
pub fn parse_for(
    instruction: &str,
    steps: Option<usize>,
) -> Result<ParsedInstruction, ReconstructError> {
    let text = instruction.split_whitespace().collect::<Vec<_>>().join(" ");
    let (mut goal, body) = split_goal(&text);
    let markers = step_markers(body);
    let (steps, edges) = if markers.first().is_some_and(|m| m.number == 1) {
        parse_explicit(body, &markers)?
    } else {
        let mut sentences = text::sentences(body);
        let parts: usize = sentences.iter().map(|s| list_parts(s).len()).sum();
        if goal.is_none() && steps.is_some_and(|n| parts == n + 1) {
            goal = Some(sentences.remove(0).to_string());
        }
        parse_natural(&sentences)?
    };
    if steps.is_empty() {
        return Err(ReconstructError::NoSteps);
    }
    Ok(ParsedInstruction { goal, steps, edges })
}

fn split_goal(text: &str) -> (Option<String>, &str) {
    let trimmed = text.trim_start();
    if !trimmed.to_lowercase().starts_with(&GOAL.to_lowercase()) {
        return (None, trimmed);
    }
    let first = text::sentences(trimmed).into_iter().next().unwrap_or("");
    // `first` is a trimmed slice of `trimmed`; the body starts after its terminator.
    let start = first.as_ptr() as usize - trimmed.as_ptr() as usize;
    let end = (start + first.len() + 1).min(trimmed.len());
    let goal = first[GOAL.len().min(first.len())..].trim().to_string();
    (Some(goal), trimmed[end..].trim_start())
}

struct Marker {
    number: usize,
    start: usize,
    end: usize,
}

/// Every `(k)` outside quotes.
fn step_markers(body: &str) -> Vec<Marker> {
    let mask = text::quote_mask(body);
    let bytes = body.as_bytes();
    let mut out = Vec::new();
    for i in 0..bytes.len() {
        if bytes[i] != b'(' || mask[i] {
            continue;
        }
        let digits = bytes[i + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits == 0 || digits > 4 || bytes.get(i + 1 + digits) != Some(&b')') {
            continue;
        }
        if let Ok(number) = body[i + 1..i + 1 + digits].parse() {
            out.push(Marker {
                number,
                start: i,
                end: i + digits + 2,
            });
        }
    }
    out
}

type Steps = (Vec<String>, Vec<(usize, usize)>);

fn parse_explicit(body: &str, markers: &[Marker]) -> Result<Steps, ReconstructError> {
    for (i, m) in markers.iter().enumerate() {
        if m.number != i + 1 {
            return Err(ReconstructError::StepNumber {
                expected: i + 1,
                found: m.number,
            });
        }
    }
    let n = markers.len();
    let mut steps = Vec::with_capacity(n);
    let mut edges = Vec::new();
    for (i, m) in markers.iter().enumerate() {
        let end = markers.get(i + 1).map_or(body.len(), |next| next.start);
        let raw = body[m.end..end].trim().trim_end_matches('.').trim();
        let (refs, clause) = match after_prefix(raw) {
            Some((refs, clause)) => (refs, clause),
            None => (Vec::new(), raw),
        };
        if clause.is_empty() {
            return Err(ReconstructError::EmptyStep { step: i + 1 });
        }
        for r in refs {
            if r == 0 || r > n || r == i + 1 {
                return Err(ReconstructError::BadReference {
                    step: i + 1,
                    reference: r,
                });
            }
            edges.push((r - 1, i));
        }
        steps.push(clause.to_string());
    }
    Ok((steps, edges))
}

/// `after 1, 2 and 3, <clause>` (also `after step 1,` / `after steps 1 and 2,`):
/// the referenced numbers and the clause; `None` when the step has no such prefix.
fn after_prefix(step: &str) -> Option<(Vec<usize>, &str)> {
    let lower = step.to_ascii_lowercase();
    let mut rest = step;
    if !lower.starts_with(AFTER) || !step[AFTER.len()..].starts_with(' ') {
        return None;
    }
    rest = rest[AFTER.len()..].trim_start();
    for word in ["steps ", "step "] {
        if rest.to_ascii_lowercase().starts_with(word) {
            rest = &rest[word.len()..];
            break;
        }
    }
    let mut refs = Vec::new();
    loop {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        refs.push(rest[..digits].parse().ok()?);
        rest = &rest[digits..];
        let next_is_number = |r: &str| r.bytes().next().is_some_and(|b| b.is_ascii_digit());
        if let Some(r) = [", and ", " and ", ", "]
            .iter()
            .find_map(|sep| rest.strip_prefix(sep).filter(|r| next_is_number(r)))
        {
            rest = r;
            continue;
        }
        let r = rest.strip_prefix(',')?;
        return Some((refs, r.trim_start()));
    }
}

/// The steps of natural `sentences` and their edges. A sentence may list
/// steps apart by "; " ("in Sheets, export ...; in Image Editor, crop ...;
/// and in Writer, ..."): each waits for what the sentence's lead says, none
/// for another of the list; "Then," and no lead mean every step of the
/// sentence before.
fn parse_natural(sentences: &[&str]) -> Result<Steps, ReconstructError> {
    let mut steps: Vec<String> = Vec::with_capacity(sentences.len());
    let mut edges = Vec::new();
    let mut before: Vec<usize> = Vec::new();
    for sentence in sentences {
        let (lead, clause) = natural_lead(sentence);
        let clause = clause.trim().trim_end_matches('.').trim();
        let first = steps.len();
        for part in list_parts(clause) {
            let i = steps.len();
            if part.is_empty() {
                return Err(ReconstructError::EmptyStep { step: i + 1 });
            }
            match &lead {
                Lead::None | Lead::Previous => edges.extend(before.iter().map(|&b| (b, i))),
                Lead::Independent => {}
                Lead::Now => {
                    for q in text::quoted_spans(part) {
                        let maker = steps[..first]
                            .iter()
                            .position(|s| text::quoted_spans(s).contains(&q));
                        if let Some(maker) = maker.filter(|m| !edges.contains(&(*m, i))) {
                            edges.push((maker, i));
                        }
                    }
                }
                Lead::Once { previous, names } => {
                    if *previous {
                        edges.extend(before.iter().map(|&b| (b, i)));
                    }
                    for name in names {
                        let maker = steps[..first]
                            .iter()
                            .position(|s| text::quoted_spans(s).iter().any(|q| unquote(q) == *name))
                            .ok_or_else(|| ReconstructError::UnknownName {
                                step: i + 1,
                                name: name.to_string(),
                            })?;
                        if !edges.contains(&(maker, i)) {
                            edges.push((maker, i));
                        }
                    }
                }
            }
            steps.push(part.to_string());
        }
        before = (first..steps.len()).collect();
    }
    Ok((steps, edges))
}

/// The steps a natural sentence lists apart: split at "; " outside quotes,
/// the last one's "and " dropped.
fn list_parts(clause: &str) -> Vec<&str> {
    text::split_outside(clause, &["; "])
        .into_iter()
        .map(|p| strip_prefix_ci(p, "and ").unwrap_or(p).trim())
        .collect()
}

/// What a natural sentence's lead says it waits for.
enum Lead<'a> {
    /// No lead: the sentence before (nothing, for the first).
    None,
    /// "Then,": the sentence before.
    Previous,
    /// "Separately,": nothing.
    Independent,
    /// "Now," or "Also,": the steps that first quote the names its clause quotes.
    Now,
    /// "Once 'a' and 'b' are ready,": the steps that quote these names; "Then,
    /// once 'a' is ready,": those and the sentence before (`previous`).
    Once { previous: bool, names: Vec<&'a str> },
}

/// The sentence's lead and the clause after it.
fn natural_lead(sentence: &str) -> (Lead<'_>, &str) {
    for lead in [NOW, ALSO] {
        if let Some(rest) = strip_prefix_ci(sentence, lead) {
            return (Lead::Now, rest);
        }
    }
    for (leads, kind) in [(AFTER_PREVIOUS, 0), (INDEPENDENT, 1)] {
        for lead in leads {
            if let Some(rest) = strip_prefix_ci(sentence, lead) {
                if let Some(rest) = rest.strip_prefix(',') {
                    let rest = rest.trim_start();
                    if kind == 0 {
                        if let Some((names, clause)) = once_lead(rest) {
                            return (
                                Lead::Once {
                                    previous: true,
                                    names,
                                },
                                clause,
                            );
                        }
                        return (Lead::Previous, rest);
                    }
                    return (Lead::Independent, rest);
                }
            }
        }
    }
    if let Some((names, clause)) = once_lead(sentence) {
        return (
            Lead::Once {
                previous: false,
                names,
            },
            clause,
        );
    }
    (Lead::None, sentence)
}

/// The names of a leading "Once 'a' and 'b' are ready," and the clause after it.
fn once_lead(sentence: &str) -> Option<(Vec<&str>, &str)> {
    let rest = strip_prefix_ci(sentence, ONCE)?;
    // The lead ends at the first "ready," outside quotes.
    let mask = text::quote_mask(rest);
    let lower = rest.to_ascii_lowercase();
    let at = lower
        .match_indices(READY)
        .map(|(at, _)| at)
        .find(|&at| !mask[at])?;
    let names: Vec<&str> = text::quoted_spans(&rest[..at])
        .into_iter()
        .map(unquote)
        .collect();
    (!names.is_empty()).then(|| (names, rest[at + READY.len()..].trim_start()))
}

/// Ends the lead of a "Once 'x' is ready," sentence.
const READY: &str = "ready,";

fn unquote(quoted: &str) -> &str {
    quoted
        .strip_prefix(['\'', '"'])
        .and_then(|q| q.strip_suffix(['\'', '"']))
        .unwrap_or(quoted)
}

fn strip_prefix_ci<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| text[prefix.len()..].trim_start())
}

/// For each clause, the index of the subtask it is matched to.
fn assign(clauses: &[String], subtasks: &[(String, String)]) -> Vec<usize> {
    let n = clauses.len();
    // Canonical subtask order, by content, so shuffling the input changes nothing.
    let mut canon: Vec<usize> = (0..subtasks.len()).collect();
    canon.sort_by(|&a, &b| (&subtasks[a].1, &subtasks[a].0).cmp(&(&subtasks[b].1, &subtasks[b].0)));
    let sub_tokens: Vec<Vec<String>> = canon
        .iter()
        .map(|&j| text::tokens(&subtasks[j].1))
        .collect();
    let mut df: BTreeMap<&str, usize> = BTreeMap::new();
    for toks in &sub_tokens {
        for t in toks {
            *df.entry(t.as_str()).or_default() += 1;
        }
    }
    let total = sub_tokens.len().max(1) as f64;
    let weight = |t: &str| -> f64 {
        let d = df.get(t).copied().unwrap_or(0).max(1) as f64;
        let w = (1.0 + total / d).ln();
        w * w
    };
    let sub_norm: Vec<f64> = sub_tokens
        .iter()
        .map(|toks| toks.iter().map(|t| weight(t)).sum::<f64>())
        .collect();
    let score: Vec<Vec<f64>> = clauses
        .iter()
        .map(|c| {
            let ct = text::tokens(c);
            let c_norm: f64 = ct.iter().map(|t| weight(t)).sum();
            sub_tokens
                .iter()
                .zip(&sub_norm)
                .map(|(st, &s_norm)| {
                    let dot: f64 = ct
                        .iter()
                        .filter(|t| st.binary_search(t).is_ok())
                        .map(|t| weight(t))
                        .sum();
                    if dot == 0.0 {
                        0.0
                    } else {
                        dot / (c_norm * s_norm).sqrt()
                    }
                })
                .collect()
        })
        .collect();
    let canonical = if n <= EXACT_ASSIGNMENT_MAX {
        assign_exact(&score, n)
    } else {
        assign_greedy(&score, n)
    };
    canonical.into_iter().map(|j| canon[j]).collect()
}

const TIE: f64 = 1e-9;

/// Maximum-total assignment by dynamic programming over subsets of subtasks:
/// the clauses are taken in order, clause `i` with `i` subtasks already used.
fn assign_exact(score: &[Vec<f64>], n: usize) -> Vec<usize> {
    let size = 1usize << n;
    let mut best = vec![f64::NEG_INFINITY; size];
    let mut parent = vec![(usize::MAX, usize::MAX); size];
    best[0] = 0.0;
    for mask in 0..size {
        if best[mask] == f64::NEG_INFINITY {
            continue;
        }
        let i = mask.count_ones() as usize;
        if i == n {
            continue;
        }
        for (j, &s) in score[i].iter().enumerate() {
            if mask & (1 << j) != 0 {
                continue;
            }
            let next = mask | (1 << j);
            let cand = best[mask] + s;
            if cand > best[next] + TIE {
                best[next] = cand;
                parent[next] = (mask, j);
            }
        }
    }
    let mut out = vec![0; n];
    let mut mask = size - 1;
    for i in (0..n).rev() {
        let (prev, j) = parent[mask];
        out[i] = j;
        mask = prev;
    }
    out
}

/// Repeatedly matches the most similar free clause and subtask.
fn assign_greedy(score: &[Vec<f64>], n: usize) -> Vec<usize> {
    let mut out = vec![usize::MAX; n];
    let mut used = vec![false; n];
    for _ in 0..n {
        let mut pick: Option<(usize, usize, f64)> = None;
        for (i, row) in score.iter().enumerate() {
            if out[i] != usize::MAX {
                continue;
            }
            for (j, &s) in row.iter().enumerate() {
                if !used[j] && pick.is_none_or(|(_, _, b)| s > b + TIE) {
                    pick = Some((i, j, s));
                }
            }
        }
        if let Some((i, j, _)) = pick {
            out[i] = j;
            used[j] = true;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subs(items: &[(&str, &str)]) -> Vec<(String, String)> {
        items
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn natural_leads_become_edges() {
        let p = parse(
            "Goal: x. Open 'a, b'. Separately, open 'b'. Once 'a, b' and 'b' are ready, merge 'c'. Then, send 'c'. Finally, file 'd'.",
        )
        .unwrap();
        assert_eq!(p.goal.as_deref(), Some("x"));
        assert_eq!(
            p.steps,
            vec![
                "Open 'a, b'",
                "open 'b'",
                "merge 'c'",
                "send 'c'",
                "file 'd'"
            ]
        );
        assert_eq!(p.edges, vec![(0, 2), (1, 2), (2, 3), (3, 4)]);
    }

    #[test]
    fn steps_listed_in_one_sentence_wait_for_nothing_of_each_other() {
        let p = parse(
            "For the trip, export 'a.pdf'; crop 'b.jpg'; and write 'c.txt'. \
             Then, zip 'a.pdf', 'b.jpg' and 'c.txt' as 'd.zip'. \
             Now, mail 'd.zip' and 'b.jpg'; and post 'c.txt'.",
        )
        .unwrap();
        assert_eq!(p.steps.len(), 6, "{:?}", p.steps);
        assert_eq!(p.steps[2], "write 'c.txt'");
        let mut edges = p.edges.clone();
        edges.sort_unstable();
        assert_eq!(edges, [(0, 3), (1, 3), (1, 4), (2, 3), (2, 5), (3, 4)]);
    }

    #[test]
    fn then_once_waits_for_the_sentence_before_and_the_named_step() {
        let p = parse(
            "Save 'a'. Separately, copy the text. Then, once 'a' is ready, paste it into 'a'.",
        )
        .unwrap();
        assert_eq!(p.steps[2], "paste it into 'a'");
        assert_eq!(p.edges, vec![(1, 2), (0, 2)]);
    }

    #[test]
    fn an_unmarked_goal_is_the_extra_first_sentence() {
        let p = parse_for("Keep the notes tidy. Open 'a'. Then, send 'a'.", Some(2)).unwrap();
        assert_eq!(p.goal.as_deref(), Some("Keep the notes tidy"));
        assert_eq!(p.edges, vec![(0, 1)]);
        let p = parse_for("Open 'a'. Send 'a'.", Some(2)).unwrap();
        assert_eq!(p.goal, None);
        assert_eq!(
            p.edges,
            vec![(0, 1)],
            "a sentence without a lead follows the one before"
        );
    }

    #[test]
    fn explicit_steps_read_their_after_lists() {
        let p = parse(
            "Goal: x. Steps (each after the steps it names, otherwise in any order): (1) open 'a (2)'. (2) open b. (3) after 1 and 2, merge c. (4) after step 2, send d.",
        )
        .unwrap();
        assert_eq!(p.steps, vec!["open 'a (2)'", "open b", "merge c", "send d"]);
        assert_eq!(p.edges, vec![(0, 2), (1, 2), (1, 3)]);
    }

    #[test]
    fn after_lists_of_three_and_clauses_starting_with_numbers() {
        assert_eq!(
            after_prefix("after 1, 2 and 3, open x"),
            Some((vec![1, 2, 3], "open x"))
        );
        assert_eq!(after_prefix("after 2 days, open x"), None);
        assert_eq!(after_prefix("afterwards open x"), None);
    }

    #[test]
    fn malformed_instructions_are_errors() {
        assert_eq!(parse("   "), Err(ReconstructError::NoSteps));
        assert_eq!(parse("Goal: only a goal."), Err(ReconstructError::NoSteps));
        assert_eq!(
            parse("(1) a. (3) b."),
            Err(ReconstructError::StepNumber {
                expected: 2,
                found: 3
            })
        );
        assert_eq!(
            parse("(1) a. (2) after 5, b."),
            Err(ReconstructError::BadReference {
                step: 2,
                reference: 5
            })
        );
        assert_eq!(
            parse("Open a. Then,. b."),
            Err(ReconstructError::EmptyStep { step: 2 })
        );
        assert_eq!(
            parse("Open a. Once 'z' is ready, b."),
            Err(ReconstructError::UnknownName {
                step: 2,
                name: "z".into()
            })
        );
        let s = subs(&[("s1", "a"), ("s2", "b")]);
        assert_eq!(
            reconstruct("Do a.", &s),
            Err(ReconstructError::StepCount {
                steps: 1,
                subtasks: 2
            })
        );
        let dup = subs(&[("s1", "a"), ("s1", "b")]);
        assert!(matches!(
            reconstruct("First, a. Then, b.", &dup),
            Err(ReconstructError::DuplicateId { .. })
        ));
    }

    #[test]
    fn clauses_match_subtasks_by_distinctive_words() {
        let s = subs(&[
            ("s1", "Open the recipe 'Lentil Soup' in Recipes and print it to '/home/user/Documents/lentil.pdf'."),
            ("s2", "Open the recipe 'Banana Pancakes' in Recipes and print it to '/home/user/Documents/pancakes.pdf'."),
            ("s3", "Write a mail to bob@example.com, attach '/home/user/Documents/pancakes.pdf', and send it."),
        ]);
        let edges = reconstruct(
            "Open the recipe 'Lentil Soup' in Recipes. Separately, open the recipe 'Banana Pancakes' in Recipes and print it to '/home/user/Documents/pancakes.pdf'. Once '/home/user/Documents/pancakes.pdf' is ready, write a mail to bob@example.com and attach '/home/user/Documents/pancakes.pdf'.",
            &s,
        )
        .unwrap();
        let want: Vec<(String, String)> = vec![("s2".into(), "s3".into())];
        assert_eq!(edges, want);
    }
}
