//! The instantiated subtask pool and its dependency relation.
//!
//! An instance is a pair (subtask, index into its `available_parameters`) with the
//! input and output [`Resource`]s that [`resources::instantiate`] gives it. Instance
//! `b` depends on instance `a` (edge `a → b`) iff some output resource of `a` equals,
//! kind and parameter, some input resource of `b`. An instance never
//! depends on itself (a subtask that edits a file in place reads and writes the same
//! resource).
//!
//! Instances are kept sorted by (subtask id, parameter index), so everything derived
//! from a pool is independent of the order the subtasks were given in.
//!
//! Owns: interning resources, the dependency relation (both directions, as compact
//! adjacency lists), which instances can ever be placed, which resources each
//! instance modifies (for [`crate::graph::clashes`]), and scopes (the sets of
//! instances a task is composed from). Reads only what the caller passes in; no I/O.
//!
//! # Modifies
//! An instance *modifies* an input resource when it changes that artefact rather
//! than only reading it: the resource (kind and value) is among both its inputs and
//! its outputs (an in-place edit, found here), or the caller marks the subtask as
//! editing the files it opens ([`Pool::mark_edited_inputs`], fed from the
//! applications' specs by the compose stage).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use crate::model::{Subtask, SubtaskId};
use crate::resources::{self, Catalog, Resource, ResourceError};
use crate::topics::{CircleSet, TopicSet};

/// The category given to subtasks that carry none.
pub const UNCATEGORIZED: &str = "Uncategorized";

/// Why a pool cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PoolError {
    #[error("subtask {subtask}, parameter set {index}: {source}")]
    Instantiate {
        subtask: SubtaskId,
        index: usize,
        #[source]
        source: ResourceError,
    },
    #[error("the pool has {0} instances, more than the 4,294,967,295 supported")]
    TooLarge(usize),
}

/// One instantiated subtask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instance {
    /// Index into the subtask slice the pool was built from.
    pub subtask: usize,
    pub parameter_index: usize,
    pub inputs: Vec<Resource>,
    pub outputs: Vec<Resource>,
    pub application: String,
    pub category: String,
    /// The inputs this instance changes (in-place edits and marked file edits),
    /// sorted, without repeats. See the module docs.
    pub modifies: Vec<Resource>,
}

/// Compact per-instance data used by the composer's inner loops.
#[derive(Debug, Clone)]
pub(crate) struct Slim {
    pub inputs: Box<[u32]>,
    pub outputs: Box<[u32]>,
    /// Its first input in slot order: what it opens or works on (the document
    /// a picture is inserted into, not the picture).
    pub main_input: Option<u32>,
    /// Inputs it modifies (sorted ids).
    pub modifies: Box<[u32]>,
    pub app: u32,
    pub category: u32,
    /// The changes its instruction names that take no parameter ("apply the dark
    /// theme", "blur the image"), one bit per change phrase (by hash): two
    /// subtasks of one application with a common bit repeat a change.
    pub changes: u64,
    /// Its instruction only opens, saves, exports and the like: it changes
    /// nothing, with or without a parameter ([`changes_nothing`]).
    pub changes_nothing: bool,
    /// The topics of its parameter values ([`crate::topics`]).
    pub topics: TopicSet,
    /// The circles (work, home) of its values and instruction text.
    pub circles: CircleSet,
}

/// Verbs of instruction clauses that change nothing in the artefact they act
/// on ("giving the text file '{txt_path}'" only names what the clause before
/// it made).
pub(crate) const NO_CHANGE: &[&str] = &[
    "save", "select", "choose", "open", "copy", "click", "export", "convert", "print", "send",
    "preview", "play", "view", "show", "go", "repeat", "giving",
];

/// The change phrases of an instruction template as bits (see [`Slim::changes`]):
/// its clauses (split at commas and "then") that hold no placeholder or quote, are
/// not the application prefix ("In Writer") and do not start with a verb that
/// changes nothing ("save the deck", "choose Bills").
pub(crate) fn change_bits(template: &str) -> u64 {
    let changes = |c: &str| {
        let verb = c.split_whitespace().next().unwrap_or("").to_lowercase();
        !c.is_empty()
            && !c.contains('{')
            && !c.contains('\'')
            && !c.starts_with("In ")
            && !NO_CHANGE.contains(&verb.as_str())
    };
    template
        .trim_end_matches('.')
        .split(',')
        .map(|c| c.trim().trim_start_matches("then ").trim())
        .filter(|c| changes(c))
        .fold(0u64, |m, c| {
            let mut h: u64 = 0xcbf2_9ce4_8422_2325;
            for b in c.to_lowercase().bytes() {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
            m | 1 << (h % 64)
        })
}

/// Does every clause of `template` (split at commas and "then", the
/// application prefix aside) start with a verb that changes nothing ("open a
/// workbook '{csv}', then save the workbook under a new name as '{xlsx}'")?
pub(crate) fn changes_nothing(template: &str) -> bool {
    template
        .trim_end_matches('.')
        .split(',')
        .map(|c| c.trim().trim_start_matches("then ").trim())
        .filter(|c| !c.is_empty() && !c.starts_with("In "))
        .all(|c| {
            let verb = c.split_whitespace().next().unwrap_or("").to_lowercase();
            NO_CHANGE.contains(&verb.as_str())
        })
}

/// The slots whose file `template` attaches to what it makes ("with
/// '{pdf_path}' attached", "attach '{docx_path}'", "attach the file
/// '{pdf_path}' to it"): the record or message carries the file as it is,
/// rather than taking its content in (a note "containing the text of
/// '{txt_path}'", a recipe imported from a saved page).
///
/// A list of slots ("with '{a}', '{b}' and '{c}' attached") is attached as a
/// whole.
pub(crate) fn attached_slots(template: &str) -> Vec<&str> {
    let mut out = Vec::new();
    // The slots of the list being read, the current one last.
    let mut list: Vec<&str> = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find("'{") {
        let before = rest[..open].trim_end().to_lowercase();
        let Some(close) = rest[open..].find("}'") else {
            break;
        };
        let slot = &rest[open + 2..open + close];
        let after = &rest[open + close + 2..];
        let continues = rest[..open] == *", " || rest[..open] == *" and ";
        if !continues {
            list.clear();
        }
        list.push(slot);
        if after.starts_with(" attached") {
            out.append(&mut list);
        } else if before.ends_with("attach") || before.ends_with("attach the file") {
            out.push(slot);
        }
        rest = after;
    }
    out
}

/// A set of instances that tasks are composed from, with a label that becomes the
/// task's `task_intent` (until intents exist, each weakly connected component of the
/// dependency graph is a scope).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scope {
    pub label: String,
    /// Instance indices into the pool, sorted, without repeats.
    pub members: Vec<usize>,
}

impl Scope {
    /// A scope over the given instance indices (sorted and deduplicated here).
    pub fn new(label: impl Into<String>, mut members: Vec<usize>) -> Scope {
        members.sort_unstable();
        members.dedup();
        Scope {
            label: label.into(),
            members,
        }
    }
}

/// The instantiated pool: instances, interned resources and the dependency relation.
#[derive(Debug)]
pub struct Pool<'a> {
    catalog: &'a Catalog,
    subtasks: &'a [Subtask],
    /// Interned resources: id `r` is `resources[r]`.
    resources: Vec<Resource>,
    instances: Vec<Instance>,
    pub(crate) slim: Vec<Slim>,
    /// `initial[r]`: resource `r` holds on the initial desktop.
    pub(crate) initial: Vec<bool>,
    /// `placeable[i]`: every input of `i` can be met, from the initial desktop or by
    /// instances that are themselves placeable (least fixed point).
    pub(crate) placeable: Vec<bool>,
    /// `typed[r]`: readers type resource `r` in (its kind's `typed`), so no node
    /// hands it to them.
    typed: Vec<bool>,
    succ_start: Vec<u32>,
    succ: Vec<u32>,
    pred_start: Vec<u32>,
    pred: Vec<u32>,
    /// Per instance, what it makes and what its edits suit
    /// ([`Pool::mark_contents`]); all `None` until marked.
    contents: Vec<Content>,
}

/// What an instance makes and what its edits suit, by content (a screen
/// capture, a photo), as the applications' specs declare it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Content {
    /// What the files or images it makes show (`"screen capture"`).
    pub makes: Option<String>,
    /// The contents its edits make sense on (`["photo"]`); `None`: any.
    pub suits: Option<Vec<String>>,
    /// The properties its edits set on the file it works on (`["rotation"]`):
    /// a second node setting one of them again on the same file repeats the work.
    pub sets: Vec<String>,
    /// The properties whose change on the file before it defeats its edit
    /// (`["size"]` for making a picture the wallpaper).
    pub spoiled_by: Vec<String>,
    /// Its edit is made only so that the file travels (a PDF compressed): a
    /// node of the task must send or file what it makes.
    pub for_sending: bool,
    /// It captures the screen (a screenshot, a recording): what it makes shows
    /// whatever is on the screen, so with no input it shows nothing of a task.
    pub captures: bool,
    /// Its edit is a remark for someone else (a comment on a PDF): made on a
    /// file someone handed over, not on one the task itself made.
    pub reviews: bool,
}

impl<'a> Pool<'a> {
    /// Instantiates every parameter set of every subtask and builds the dependency
    /// relation. `initial` is the set of resources that hold on the initial desktop
    /// ([`resources::initial_resources`]).
    ///
    /// # Errors
    /// [`PoolError::Instantiate`] names the first subtask whose resources cannot be
    /// instantiated (unknown kind, missing parameter).
    pub fn new(
        catalog: &'a Catalog,
        subtasks: &'a [Subtask],
        initial: &BTreeSet<Resource>,
    ) -> Result<Pool<'a>, PoolError> {
        let mut order: Vec<(usize, usize)> = subtasks
            .iter()
            .enumerate()
            .flat_map(|(s, st)| (0..st.available_parameters.len()).map(move |p| (s, p)))
            .collect();
        order.sort_by(|a, b| subtasks[a.0].id.cmp(&subtasks[b.0].id).then(a.1.cmp(&b.1)));
        if order.len() > u32::MAX as usize {
            return Err(PoolError::TooLarge(order.len()));
        }

        let mut res_ids: HashMap<Resource, u32> = HashMap::new();
        let mut res_list: Vec<Resource> = Vec::new();
        let mut app_ids: BTreeMap<String, u32> = BTreeMap::new();
        let mut cat_ids: BTreeMap<String, u32> = BTreeMap::new();
        let mut instances = Vec::with_capacity(order.len());
        let mut slim = Vec::with_capacity(order.len());
        let mut intern = |r: &Resource| -> u32 {
            if let Some(&id) = res_ids.get(r) {
                return id;
            }
            let id = res_list.len() as u32;
            res_list.push(r.clone());
            res_ids.insert(r.clone(), id);
            id
        };
        for &(s, p) in &order {
            let st = &subtasks[s];
            let (inputs, outputs) = resources::instantiate(catalog, st, p).map_err(|source| {
                PoolError::Instantiate {
                    subtask: st.id.clone(),
                    index: p,
                    source,
                }
            })?;
            let main_input = inputs.first().map(&mut intern);
            let mut ins: Vec<u32> = inputs.iter().map(&mut intern).collect();
            ins.sort_unstable();
            ins.dedup();
            let mut outs: Vec<u32> = outputs.iter().map(&mut intern).collect();
            outs.sort_unstable();
            outs.dedup();
            let modifies: Vec<u32> = ins
                .iter()
                .copied()
                .filter(|r| outs.binary_search(r).is_ok())
                .collect();
            let category = st
                .category
                .clone()
                .unwrap_or_else(|| UNCATEGORIZED.to_string());
            let next_app = app_ids.len() as u32;
            let app = *app_ids.entry(st.application.clone()).or_insert(next_app);
            let next_cat = cat_ids.len() as u32;
            let cat = *cat_ids.entry(category.clone()).or_insert(next_cat);
            let mut modified: Vec<Resource> = inputs
                .iter()
                .filter(|r| outputs.contains(r))
                .cloned()
                .collect();
            modified.sort();
            modified.dedup();
            slim.push(Slim {
                inputs: ins.into_boxed_slice(),
                outputs: outs.into_boxed_slice(),
                main_input,
                modifies: modifies.into_boxed_slice(),
                app,
                category: cat,
                changes: change_bits(&st.instruction_template),
                changes_nothing: changes_nothing(&st.instruction_template),
                topics: catalog
                    .topics
                    .of(st.available_parameters[p].values().map(String::as_str)),
                circles: catalog.topics.circles_of(
                    st.available_parameters[p]
                        .values()
                        .map(String::as_str)
                        .chain([st.instruction_template.as_str()]),
                ),
            });
            instances.push(Instance {
                subtask: s,
                parameter_index: p,
                inputs,
                outputs,
                application: st.application.clone(),
                category,
                modifies: modified,
            });
        }
        let initial_flags: Vec<bool> = res_list.iter().map(|r| initial.contains(r)).collect();

        // Producers and consumers of every resource.
        let nres = res_list.len();
        let mut producers: Vec<Vec<u32>> = vec![Vec::new(); nres];
        let mut consumers: Vec<Vec<u32>> = vec![Vec::new(); nres];
        for (i, s) in slim.iter().enumerate() {
            for &r in s.outputs.iter() {
                producers[r as usize].push(i as u32);
            }
            for &r in s.inputs.iter() {
                consumers[r as usize].push(i as u32);
            }
        }

        // A value readers type in (an e-mail address) is handed by nobody: it
        // holds when the desktop starts with it, never because a node made it.
        let typed: Vec<bool> = res_list
            .iter()
            .map(|r| catalog.kinds.get(&r.kind).is_some_and(|k| k.typed))
            .collect();

        // Placeable: least fixed point from the initial desktop.
        let n = slim.len();
        let mut missing: Vec<usize> = slim
            .iter()
            .map(|s| {
                s.inputs
                    .iter()
                    .filter(|&&r| !initial_flags[r as usize])
                    .count()
            })
            .collect();
        let mut available = initial_flags.clone();
        let mut placeable = vec![false; n];
        let mut queue: Vec<usize> = (0..n).filter(|&i| missing[i] == 0).collect();
        for &i in &queue {
            placeable[i] = true;
        }
        while let Some(i) = queue.pop() {
            for &r in slim[i].outputs.iter() {
                if available[r as usize] || typed[r as usize] {
                    continue;
                }
                available[r as usize] = true;
                for &c in &consumers[r as usize] {
                    let c = c as usize;
                    missing[c] -= 1;
                    if missing[c] == 0 && !placeable[c] {
                        placeable[c] = true;
                        queue.push(c);
                    }
                }
            }
        }

        // Dependency edges among placeable instances, both directions (CSR).
        let mut preds_of: Vec<Vec<u32>> = vec![Vec::new(); n];
        for b in 0..n {
            if !placeable[b] {
                continue;
            }
            let list = &mut preds_of[b];
            for &r in slim[b].inputs.iter().filter(|&&r| !typed[r as usize]) {
                for &a in &producers[r as usize] {
                    if a as usize != b && placeable[a as usize] {
                        list.push(a);
                    }
                }
            }
            list.sort_unstable();
            list.dedup();
        }
        let mut succs_of: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (b, ps) in preds_of.iter().enumerate() {
            for &a in ps {
                succs_of[a as usize].push(b as u32);
            }
        }
        let (pred_start, pred) = to_csr(&preds_of);
        let (succ_start, succ) = to_csr(&succs_of);

        Ok(Pool {
            catalog,
            subtasks,
            resources: res_list,
            instances,
            slim,
            initial: initial_flags,
            placeable,
            typed,
            succ_start,
            succ,
            pred_start,
            pred,
            contents: vec![Content::default(); n],
        })
    }

    pub fn catalog(&self) -> &'a Catalog {
        self.catalog
    }

    /// Marks the file inputs of every instance whose subtask `edits` accepts as
    /// modified: the subtask changes the file it opens (a property, a line, a save),
    /// so a task must order it against every other node that reads that file. Only
    /// inputs of path kinds (`file_kinds` or `directory` in `resources.toml`) are
    /// marked, and of those not a file joined into the one it opens (see
    /// [`joined_in`]): inserting a picture into a report changes the report,
    /// not the picture. Marks add to what is already marked (in-place edits
    /// stay).
    pub fn mark_edited_inputs(&mut self, edits: impl Fn(&Subtask) -> bool) {
        for (i, inst) in self.instances.iter_mut().enumerate() {
            let subtask = &self.subtasks[inst.subtask];
            if !edits(subtask) {
                continue;
            }
            let joined = joined_in(subtask, inst.parameter_index);
            let slim = &mut self.slim[i];
            let mut modifies: Vec<u32> = slim.modifies.to_vec();
            for &r in slim.inputs.iter() {
                let res = &self.resources[r as usize];
                if res.parameter.as_ref().is_some_and(|v| joined.contains(v)) {
                    continue;
                }
                if self
                    .catalog
                    .kinds
                    .get(&res.kind)
                    .is_some_and(|k| k.is_path())
                {
                    modifies.push(r);
                }
            }
            modifies.sort_unstable();
            modifies.dedup();
            inst.modifies = modifies
                .iter()
                .map(|&r| self.resources[r as usize].clone())
                .collect();
            inst.modifies.sort();
            slim.modifies = modifies.into_boxed_slice();
        }
    }

    /// Sets what every instance makes and suits to what `content` says of its
    /// subtask (fed from the applications' specs by the compose stage), for
    /// [`crate::graph::pointless`]: an edit that suits photos is not applied to
    /// a screen capture.
    pub fn mark_contents(&mut self, content: impl Fn(&Subtask) -> Content) {
        for (i, inst) in self.instances.iter().enumerate() {
            self.contents[i] = content(&self.subtasks[inst.subtask]);
        }
    }

    /// What instance `i` makes and suits ([`Pool::mark_contents`]).
    pub(crate) fn content(&self, i: usize) -> &Content {
        &self.contents[i]
    }

    /// Interned resource `r` (ids as in the composer's compact data).
    pub(crate) fn resource(&self, r: usize) -> &Resource {
        &self.resources[r]
    }

    /// The applications of the pool's subtasks, sorted, without repeats.
    pub fn applications(&self) -> Vec<&'a str> {
        let mut apps: Vec<&'a str> = self
            .subtasks
            .iter()
            .map(|s| s.application.as_str())
            .collect();
        apps.sort_unstable();
        apps.dedup();
        apps
    }

    pub fn subtasks(&self) -> &'a [Subtask] {
        self.subtasks
    }

    /// Number of instances.
    pub fn len(&self) -> usize {
        self.instances.len()
    }

    pub fn is_empty(&self) -> bool {
        self.instances.is_empty()
    }

    /// Instance `i` (indices follow (subtask id, parameter index) order).
    pub fn instance(&self, i: usize) -> &Instance {
        &self.instances[i]
    }

    pub fn instances(&self) -> &[Instance] {
        &self.instances
    }

    /// The subtask of instance `i`.
    pub fn subtask_of(&self, i: usize) -> &'a Subtask {
        &self.subtasks[self.instances[i].subtask]
    }

    /// The index of instance (subtask `id`, parameter set `parameter_index`).
    pub fn find(&self, id: &SubtaskId, parameter_index: usize) -> Option<usize> {
        self.instances
            .binary_search_by(|inst| {
                self.subtasks[inst.subtask]
                    .id
                    .cmp(id)
                    .then(inst.parameter_index.cmp(&parameter_index))
            })
            .ok()
    }

    /// Can instance `i` ever be placed? (Every input is on the initial desktop or
    /// produced by an instance that can itself be placed.)
    pub fn is_placeable(&self, i: usize) -> bool {
        self.placeable[i]
    }

    /// Can instance `i` be placed with no predecessor at all?
    pub fn is_root(&self, i: usize) -> bool {
        self.slim[i]
            .inputs
            .iter()
            .all(|&r| self.initial[r as usize])
    }

    /// The placeable instances that depend on `a` (edges `a → b`), sorted.
    pub fn dependents(&self, a: usize) -> &[u32] {
        &self.succ[self.succ_start[a] as usize..self.succ_start[a + 1] as usize]
    }

    /// The placeable instances `b` depends on (edges `a → b`), sorted.
    pub fn dependencies(&self, b: usize) -> &[u32] {
        &self.pred[self.pred_start[b] as usize..self.pred_start[b + 1] as usize]
    }

    /// Does `b` depend on `a` (some output of `a` is an input of `b` that readers
    /// do not type in, `a != b`)?
    /// Defined for every pair, placeable or not.
    pub fn depends_on(&self, b: usize, a: usize) -> bool {
        a != b
            && self.slim[b]
                .inputs
                .iter()
                .any(|r| !self.typed[*r as usize] && self.slim[a].outputs.binary_search(r).is_ok())
    }

    /// Number of dependency edges among placeable instances.
    pub fn edge_count(&self) -> usize {
        self.succ.len()
    }

    /// Splits `scope` into the weakly connected parts of the dependency graph
    /// restricted to its placeable members (largest first, ties by smallest
    /// member), each keeping the label. An intent's subtasks may connect through
    /// some parameter sets only; composing in one part at a time keeps every grown
    /// task inside a part that can actually reach its size.
    pub fn connected_parts(&self, scope: &Scope) -> Vec<Scope> {
        let members: Vec<usize> = scope
            .members
            .iter()
            .copied()
            .filter(|&i| i < self.len() && self.placeable[i])
            .collect();
        let inside = |i: u32| members.binary_search(&(i as usize)).is_ok();
        let mut seen = vec![false; members.len()];
        let mut parts: Vec<Vec<usize>> = Vec::new();
        for k in 0..members.len() {
            if seen[k] {
                continue;
            }
            seen[k] = true;
            let mut part = vec![members[k]];
            let mut q = 0;
            while q < part.len() {
                let v = part[q];
                q += 1;
                for &w in self.dependents(v).iter().chain(self.dependencies(v)) {
                    if inside(w) {
                        let pos = members.binary_search(&(w as usize)).unwrap_or(0);
                        if !seen[pos] {
                            seen[pos] = true;
                            part.push(w as usize);
                        }
                    }
                }
            }
            part.sort_unstable();
            parts.push(part);
        }
        parts.sort_by(|a, b| b.len().cmp(&a.len()).then(a[0].cmp(&b[0])));
        parts
            .into_iter()
            .map(|m| Scope::new(scope.label.clone(), m))
            .collect()
    }

    /// The topics of instance `i`'s parameter values.
    pub fn topics_of(&self, i: usize) -> TopicSet {
        self.slim[i].topics
    }

    /// Splits `scope` by topic, then into connected parts ([`Pool::connected_parts`]):
    /// one scope per topic among its members, holding the members of that topic and
    /// those of no topic. A member whose values belong to two topics (a holiday
    /// photo inserted into a code review) is in no scope, and a member of no topic
    /// that fills a holder (copies something to the clipboard) joins no topical
    /// scope: what it copies is about nothing the task is about. A scope with no
    /// topical member keeps its members of no topic. Every task composed inside one of these keeps to one
    /// topic.
    pub fn topic_parts(&self, scope: &Scope) -> Vec<Scope> {
        let present = scope
            .members
            .iter()
            .filter(|&&i| i < self.len())
            .map(|&i| self.slim[i].topics)
            .filter(|t| t.len() == 1)
            .fold(TopicSet::default(), TopicSet::union);
        if present.is_empty() {
            let neutral: Vec<usize> = scope
                .members
                .iter()
                .copied()
                .filter(|&i| i < self.len() && self.slim[i].topics.is_empty())
                .collect();
            return self.connected_parts(&Scope::new(scope.label.clone(), neutral));
        }
        let mut parts: Vec<Scope> = present
            .iter()
            .flat_map(|t| {
                let members: Vec<usize> = scope
                    .members
                    .iter()
                    .copied()
                    .filter(|&i| {
                        i < self.len()
                            && match self.slim[i].topics.single() {
                                Some(u) => u == t,
                                None => self.slim[i].topics.is_empty() && !self.fills_holder(i),
                            }
                            && self.slim[i].circles.within(self.circle_of_topic(t))
                    })
                    .collect();
                self.connected_parts(&Scope::new(scope.label.clone(), members))
            })
            .collect();
        parts.sort_by(|a, b| {
            b.members
                .len()
                .cmp(&a.members.len())
                .then(a.members.cmp(&b.members))
        });
        parts
    }

    /// The circle of topic `t`; files of no topic ([`crate::topics::LOOSE_FILES`])
    /// keep company with no circle.
    pub(crate) fn circle_of_topic(&self, t: usize) -> CircleSet {
        self.catalog.topics.circle_of_topic(t)
    }

    /// Does instance `i` make a resource whose kind has a holder (the clipboard)?
    fn fills_holder(&self, i: usize) -> bool {
        self.slim[i].outputs.iter().any(|&r| self.is_held(r))
    }

    /// Is resource `r` of a kind with a holder (the clipboard)?
    pub(crate) fn is_held(&self, r: u32) -> bool {
        self.catalog
            .kinds
            .get(&self.resources[r as usize].kind)
            .is_some_and(|k| k.holder.is_some())
    }

    /// The weakly connected components of the dependency graph over placeable
    /// instances, largest first (ties by smallest member), each labelled with its
    /// applications. Instances that can never be placed belong to no scope.
    pub fn components(&self) -> Vec<Scope> {
        let n = self.len();
        let mut comp = vec![u32::MAX; n];
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for start in 0..n {
            if !self.placeable[start] || comp[start] != u32::MAX {
                continue;
            }
            let id = groups.len() as u32;
            let mut members = vec![start];
            comp[start] = id;
            let mut k = 0;
            while k < members.len() {
                let v = members[k];
                k += 1;
                for &w in self.dependents(v).iter().chain(self.dependencies(v)) {
                    if comp[w as usize] == u32::MAX {
                        comp[w as usize] = id;
                        members.push(w as usize);
                    }
                }
            }
            members.sort_unstable();
            groups.push(members);
        }
        groups.sort_by(|a, b| b.len().cmp(&a.len()).then(a[0].cmp(&b[0])));
        groups
            .into_iter()
            .enumerate()
            .map(|(k, members)| {
                let mut apps: BTreeMap<&str, usize> = BTreeMap::new();
                for &m in &members {
                    *apps
                        .entry(self.instances[m].application.as_str())
                        .or_default() += 1;
                }
                let mut by_use: Vec<(&str, usize)> = apps.into_iter().collect();
                by_use.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
                let mut names: Vec<&str> = by_use.iter().take(4).map(|e| e.0).collect();
                names.sort_unstable();
                let more = by_use.len().saturating_sub(4);
                let mut label = format!("component {}: {}", k + 1, names.join(", "));
                if more > 0 {
                    label.push_str(&format!(" and {more} more"));
                }
                Scope::new(label, members)
            })
            .collect()
    }
}

fn to_csr(lists: &[Vec<u32>]) -> (Vec<u32>, Vec<u32>) {
    let mut start = Vec::with_capacity(lists.len() + 1);
    let mut flat = Vec::with_capacity(lists.iter().map(Vec::len).sum());
    start.push(0u32);
    for l in lists {
        flat.extend_from_slice(l);
        start.push(flat.len() as u32);
    }
    (start, flat)
}

/// Do two sorted id lists share an element?
#[inline]
pub(crate) fn intersects(a: &[u32], b: &[u32]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => return true,
        }
    }
    false
}

/// The values of the files `subtask` (parameter set `p`) joins into the one it
/// opens: inputs declared with a slot of their own (`img_path:other_img_path`,
/// a picture inserted; `pdf_path:other_pdf_path`, a PDF appended) beside an
/// input declared by its kind alone (the document opened), when they are not
/// also the opened one. Empty when every input is declared one way (nothing
/// says which file is opened, so each may be).
fn joined_in(subtask: &Subtask, p: usize) -> BTreeSet<String> {
    let Some(values) = subtask.available_parameters.get(p) else {
        return BTreeSet::new();
    };
    let (bare, slotted): (Vec<&String>, Vec<&String>) = subtask
        .input_resources
        .iter()
        .partition(|d| !d.contains(':'));
    let opened: BTreeSet<&String> = bare.iter().filter_map(|k| values.get(*k)).collect();
    if opened.is_empty() {
        return BTreeSet::new();
    }
    slotted
        .iter()
        .filter_map(|d| d.split_once(':').map(|(_, slot)| slot))
        .filter_map(|slot| values.get(slot))
        .filter(|v| !opened.contains(v))
        .cloned()
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::ParameterSet;
    use crate::resources::KindSpec;

    #[test]
    fn attached_files_are_told_from_files_taken_in() {
        assert_eq!(
            attached_slots("In Notes, create a note '{note_title}' with '{pdf_path}' attached."),
            ["pdf_path"]
        );
        assert_eq!(
            attached_slots(
                "In To Do, add the to-do '{todo_item}' and attach the file '{pdf_path}' to it."
            ),
            ["pdf_path"]
        );
        assert_eq!(
            attached_slots("Write a mail to {email_address} with the subject '{email_sent}', attach '{docx_path}', and send it."),
            ["docx_path"]
        );
        assert!(attached_slots(
            "In Notes, create a note titled '{note_title}' containing the text of '{txt_path}'."
        )
        .is_empty());
        assert_eq!(
            attached_slots("In Mail, send the e-mail '{email_sent}' to '{email_address}', with '{csv_path}', '{img_path}' and '{pdf_path}' attached and with '{body}' as the body."),
            ["csv_path", "img_path", "pdf_path"]
        );
    }

    #[test]
    fn change_bits_name_the_changes_not_the_values() {
        let themed = change_bits(
            "In Slides, open a deck '{pptx_path}', then apply the dark theme, then save the deck under a new name as '{new_pptx_path}'.",
        );
        let exported = change_bits(
            "In Slides, open a deck '{pptx_path}', then apply the dark theme, then export the deck as PDF as '{pdf_path}'.",
        );
        let plain = change_bits(
            "In Slides, open a deck '{pptx_path}', then export the deck as PDF as '{pdf_path}'.",
        );
        assert_ne!(themed, 0);
        assert_eq!(themed & exported, themed, "the same change in both");
        assert_eq!(plain & themed, 0, "opening and exporting are no changes");
        assert_eq!(change_bits("In Mail, send the e-mail '{email_sent}'."), 0);
        assert!(changes_nothing(
            "In Sheets, open a workbook '{csv}', then save the workbook under a new name as '{xlsx}'."
        ));
        assert!(!changes_nothing(
            "In Writer, open '{md}', then apply the '{style}' paragraph style, then save as '{docx}'."
        ));
    }

    /// A catalogue with two parameterised kinds and one without a parameter.
    pub(crate) fn tiny_catalog() -> Catalog {
        let mut kinds = BTreeMap::new();
        for (name, parameter) in [
            ("doc", true),
            ("img", true),
            ("clip", false),
            ("address", true),
        ] {
            kinds.insert(
                name.to_string(),
                KindSpec {
                    description: name.to_string(),
                    parameter,
                    file_kinds: vec![],
                    directory: false,
                    phrase: None,
                    phrase_in: Default::default(),
                    holder: None,
                    keeps_props: None,
                    machine_text: false,
                    wraps: false,
                    typed: name == "address",
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
        Catalog {
            kinds,
            categories: vec!["Office".into(), "Utility Tools".into()],
            scenarios: vec![],
            capabilities: vec![],
            topics: Default::default(),
            shows: Default::default(),
            incidental: Default::default(),
        }
    }

    pub(crate) fn subtask(
        id: &str,
        app: &str,
        inputs: &[&str],
        outputs: &[&str],
        params: &[&[(&str, &str)]],
    ) -> Subtask {
        Subtask {
            id: SubtaskId(id.to_string()),
            instruction_template: format!("{id} with {{doc}}"),
            application: app.to_string(),
            category: Some("Office".into()),
            os: "Linux".into(),
            available_parameters: params
                .iter()
                .map(|p| {
                    p.iter()
                        .map(|(k, v)| (k.to_string(), v.to_string()))
                        .collect::<ParameterSet>()
                })
                .collect(),
            input_resources: inputs.iter().map(|s| s.to_string()).collect(),
            output_resources: outputs.iter().map(|s| s.to_string()).collect(),
            evaluation: None,
            trajectories: vec![],
            provenance: None,
        }
    }

    #[test]
    fn dependency_needs_kind_and_parameter() {
        let cat = tiny_catalog();
        let subs = vec![
            subtask("a", "Writer", &["doc"], &["clip"], &[&[("doc", "/x")]]),
            subtask("b", "Writer", &["clip"], &["img"], &[&[("img", "/y")]]),
            subtask(
                "c",
                "Photos",
                &["img"],
                &[],
                &[&[("img", "/y")], &[("img", "/z")]],
            ),
        ];
        let initial: BTreeSet<Resource> = [Resource::new("doc", Some("/x".into()))].into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        assert_eq!(pool.len(), 4);
        let a = pool.find(&SubtaskId("a".into()), 0).unwrap();
        let b = pool.find(&SubtaskId("b".into()), 0).unwrap();
        let c0 = pool.find(&SubtaskId("c".into()), 0).unwrap();
        let c1 = pool.find(&SubtaskId("c".into()), 1).unwrap();
        assert!(pool.depends_on(b, a));
        assert!(pool.depends_on(c0, b));
        assert!(!pool.depends_on(c1, b), "different parameter, no edge");
        assert!(!pool.is_placeable(c1), "/z is never made");
        assert!(pool.is_root(a) && !pool.is_root(b));
        let comps = pool.components();
        assert_eq!(comps.len(), 1);
        assert_eq!(comps[0].members, vec![a, b, c0]);
    }

    #[test]
    fn a_typed_value_made_by_a_node_is_no_dependency() {
        let cat = tiny_catalog();
        let subs = vec![
            subtask(
                "add",
                "Mail",
                &[],
                &["address"],
                &[&[("address", "omar@x")]],
            ),
            subtask(
                "send",
                "Mail",
                &["address"],
                &[],
                &[&[("address", "omar@x")], &[("address", "ann@x")]],
            ),
        ];
        let initial: BTreeSet<Resource> = [Resource::new("address", Some("ann@x".into()))].into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let add = pool.find(&SubtaskId("add".into()), 0).unwrap();
        let to_omar = pool.find(&SubtaskId("send".into()), 0).unwrap();
        let to_ann = pool.find(&SubtaskId("send".into()), 1).unwrap();
        assert!(
            !pool.depends_on(to_omar, add),
            "adding the contact hands nothing on"
        );
        assert!(
            !pool.is_placeable(to_omar),
            "only addresses the desktop has are read"
        );
        assert!(pool.is_placeable(to_ann) && pool.is_root(to_ann));
    }

    #[test]
    fn order_of_subtasks_does_not_matter() {
        let cat = tiny_catalog();
        let mut subs = vec![
            subtask("b", "Writer", &["clip"], &[], &[&[]]),
            subtask("a", "Writer", &[], &["clip"], &[&[]]),
        ];
        let pool1 = Pool::new(&cat, &subs, &BTreeSet::new()).unwrap();
        let ids1: Vec<String> = (0..2).map(|i| pool1.subtask_of(i).id.0.clone()).collect();
        subs.reverse();
        let pool2 = Pool::new(&cat, &subs, &BTreeSet::new()).unwrap();
        let ids2: Vec<String> = (0..2).map(|i| pool2.subtask_of(i).id.0.clone()).collect();
        assert_eq!(ids1, ids2);
        assert_eq!(ids1, vec!["a", "b"]);
    }

    #[test]
    fn topic_parts_keep_one_topic_and_leave_mixed_members_out() {
        let mut cat = tiny_catalog();
        cat.kinds.get_mut("clip").unwrap().holder = Some("clipboard".into());
        let topic = |name: &str| crate::topics::Topic {
            name: name.into(),
            purpose: format!("for the {name}"),
            words: vec![name.into()],
            circle: None,
            notes: Vec::new(),
            figures: Vec::new(),
        };
        cat.topics = crate::topics::Topics::new(vec![topic("trip"), topic("code")]).unwrap();
        let subs = vec![
            subtask(
                "p",
                "Writer",
                &[],
                &["doc"],
                &[&[("doc", "/h/trip_notes.doc")]],
            ),
            subtask(
                "w",
                "Writer",
                &["doc"],
                &["img"],
                &[&[("doc", "/h/trip_notes.doc"), ("img", "/h/trip_pic.png")]],
            ),
            // Reads the trip's notes, writes the code's picture: two topics.
            subtask(
                "k",
                "Writer",
                &["doc"],
                &["img"],
                &[&[("doc", "/h/trip_notes.doc"), ("img", "/h/code.png")]],
            ),
            // Copies something of no topic: not pasted into the trip's work.
            subtask("n", "Calculator", &[], &["clip"], &[&[("display", "1+2")]]),
            subtask(
                "m",
                "Mail",
                &["clip", "img"],
                &[],
                &[&[("img", "/h/trip_pic.png"), ("to", "alice@example.com")]],
            ),
        ];
        let pool = Pool::new(&cat, &subs, &BTreeSet::new()).unwrap();
        let id = |s: &str| pool.find(&SubtaskId(s.into()), 0).unwrap();
        assert_eq!(pool.topics_of(id("k")).len(), 2);
        let all = Scope::new("all", (0..pool.len()).collect());
        let parts = pool.topic_parts(&all);
        let holds = |i: usize| parts.iter().any(|p| p.members.contains(&i));
        assert!(holds(id("p")) && holds(id("w")));
        assert!(!holds(id("k")), "two topics: {parts:?}");
        assert!(!holds(id("n")), "a copy of no topic joins no topical scope");
        // The mail needs the copy, which no scope holds, so nothing places it
        // with the trip's work: still, no part mixes topics.
        for p in &parts {
            let t = p
                .members
                .iter()
                .fold(TopicSet::default(), |t, &i| t.union(pool.topics_of(i)));
            assert!(t.len() <= 1, "{p:?}");
        }
    }

    #[test]
    fn bad_subtask_is_named() {
        let cat = tiny_catalog();
        let subs = vec![subtask("bad", "Writer", &["nope"], &[], &[&[]])];
        let err = Pool::new(&cat, &subs, &BTreeSet::new()).unwrap_err();
        assert!(err.to_string().contains("bad"), "{err}");
    }
}
