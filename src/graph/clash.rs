//! Clashes: two nodes of a task that neither precedes the other (no path either way
//! in the DAG) while one of them changes an artefact the other uses.
//!
//! A node *modifies* the inputs listed in [`crate::graph::Instance::modifies`]
//! (in-place edits, and the files of a subtask that edits what it opens, see
//! [`crate::graph::Pool::mark_edited_inputs`]); it *reads* its inputs. Two unordered
//! nodes clash on a resource when both modify it ([`ClashKind::BothModify`]: two
//! branches protecting, compressing or rotating the same PDF) or one modifies what
//! the other reads ([`ClashKind::ModifiesRead`]: the reader sees the file before or
//! after the change depending on the order the agent picks). Producing an output is
//! not modifying: a node that consumes it is ordered after its producers anyway.
//! The composer never makes a task with a clash; [`clashes`] and [`task_clashes`]
//! find them in any node set or stored task.

use serde::{Deserialize, Serialize};

use crate::graph::pool::{intersects, Pool};
use crate::model::Task;
use crate::resources::Resource;

/// How two unordered nodes clash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClashKind {
    /// Both modify the resource.
    BothModify,
    /// Node `a` modifies the resource and node `b` only reads it.
    ModifiesRead,
    /// Both save the file (two makers of one file: the ledger's PDF from
    /// Sheets and from Text Editor), so one overwrites the other.
    BothMake,
}

/// One clash between nodes `a` and `b` (positions in the node list given, or in
/// the task's `dag.nodes`) on `resource`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Clash {
    pub a: usize,
    pub b: usize,
    pub resource: Resource,
    pub kind: ClashKind,
}

/// Do instances `x` and `v` clash if left unordered? (The composer's fast check.)
#[inline]
pub(crate) fn clash_pair(pool: &Pool<'_>, x: u32, v: u32) -> bool {
    let sx = &pool.slim[x as usize];
    let sv = &pool.slim[v as usize];
    // Modified inputs are inputs, so this covers both kinds; two makers of
    // one file (a PDF of the ledger from Sheets and from Text Editor) write
    // it both.
    intersects(&sx.modifies, &sv.inputs)
        || intersects(&sv.modifies, &sx.inputs)
        || (intersects(&sx.outputs, &sv.outputs) && intersects(&made(pool, x), &made(pool, v)))
}

/// The files instance `x` saves that it did not read (sorted ids): two
/// instances saving one file (the ledger's PDF, made by Sheets and by Text
/// Editor) overwrite each other, and no edge orders them.
fn made(pool: &Pool<'_>, x: u32) -> Vec<u32> {
    let s = &pool.slim[x as usize];
    s.outputs
        .iter()
        .copied()
        .filter(|&r| s.inputs.binary_search(&r).is_err())
        .filter(|&r| {
            let kind = &pool.resource(r as usize).kind;
            pool.catalog().kinds.get(kind).is_some_and(|k| k.is_path())
        })
        .collect()
}

/// The clashes among pool instances `nodes` composed into one task, whose edges are
/// all dependency pairs among them (as the composer makes them). Each clashing pair
/// is reported once per resource; `a`, `b` are positions in `nodes`, `a < b` for
/// [`ClashKind::BothModify`], `a` the modifier for [`ClashKind::ModifiesRead`]. Empty for
/// every task the composer makes.
///
/// # Panics
/// If an index in `nodes` is not an instance of `pool`.
pub fn clashes(pool: &Pool<'_>, nodes: &[usize]) -> Vec<Clash> {
    let n = nodes.len();
    let mut edges = Vec::new();
    for a in 0..n {
        for b in 0..n {
            if pool.depends_on(nodes[b], nodes[a]) {
                edges.push((a, b));
            }
        }
    }
    clashes_with_edges(pool, nodes, &edges)
}

/// The clashes of a stored task, ordered by its own `dag` edges; `a`, `b` are
/// positions in `task.dag.nodes`. Nodes whose (subtask, parameter set) is not in
/// `pool` are skipped (a task of an older pool).
pub fn task_clashes(pool: &Pool<'_>, task: &Task) -> Vec<Clash> {
    let ids = &task.dag.nodes;
    let found: Vec<Option<usize>> = ids
        .iter()
        .map(|id| {
            task.nodes
                .get(id)
                .and_then(|node| pool.find(&node.subtask_id, node.parameter_index))
        })
        .collect();
    let keep: Vec<usize> = (0..ids.len()).filter(|&k| found[k].is_some()).collect();
    let nodes: Vec<usize> = keep.iter().filter_map(|&k| found[k]).collect();
    let local = |id: &str| {
        ids.iter()
            .position(|x| x == id)
            .and_then(|k| keep.iter().position(|&j| j == k))
    };
    // Ordering goes through every node, skipped ones included: compute reachability
    // over the full task, then restrict.
    let n = ids.len();
    let mut reach = vec![vec![false; n]; n];
    for (from, tos) in &task.dag.edges {
        if let Some(a) = ids.iter().position(|x| x == from) {
            for to in tos {
                if let Some(b) = ids.iter().position(|x| x == to) {
                    reach[a][b] = true;
                }
            }
        }
    }
    close(&mut reach);
    let mut edges = Vec::new();
    for (a, row) in reach.iter().enumerate() {
        for (b, &r) in row.iter().enumerate() {
            if r {
                if let (Some(la), Some(lb)) = (local(&ids[a]), local(&ids[b])) {
                    edges.push((la, lb));
                }
            }
        }
    }
    clashes_with_edges(pool, &nodes, &edges)
        .into_iter()
        .map(|c| Clash {
            a: keep[c.a],
            b: keep[c.b],
            ..c
        })
        .collect()
}

/// Transitive closure in place.
fn close(reach: &mut [Vec<bool>]) {
    let n = reach.len();
    for k in 0..n {
        for i in 0..n {
            if i != k && reach[i][k] {
                let (row_i, row_k) = if i < k {
                    let (a, b) = reach.split_at_mut(k);
                    (&mut a[i], &b[0])
                } else {
                    let (a, b) = reach.split_at_mut(i);
                    (&mut b[0], &a[k])
                };
                for (to, &via) in row_i.iter_mut().zip(row_k.iter()) {
                    *to |= via;
                }
            }
        }
    }
}

fn clashes_with_edges(pool: &Pool<'_>, nodes: &[usize], edges: &[(usize, usize)]) -> Vec<Clash> {
    let n = nodes.len();
    let mut reach = vec![vec![false; n]; n];
    for &(a, b) in edges {
        reach[a][b] = true;
    }
    close(&mut reach);
    let mut out = Vec::new();
    let res = |r: u32| pool.resource(r as usize).clone();
    for a in 0..n {
        for b in a + 1..n {
            if reach[a][b] || reach[b][a] {
                continue;
            }
            let sa = &pool.slim[nodes[a]];
            let sb = &pool.slim[nodes[b]];
            for &r in sa.modifies.iter() {
                if sb.modifies.binary_search(&r).is_ok() {
                    out.push(Clash {
                        a,
                        b,
                        resource: res(r),
                        kind: ClashKind::BothModify,
                    });
                } else if sb.inputs.binary_search(&r).is_ok() {
                    out.push(Clash {
                        a,
                        b,
                        resource: res(r),
                        kind: ClashKind::ModifiesRead,
                    });
                }
            }
            for &r in sb.modifies.iter() {
                if sa.modifies.binary_search(&r).is_err() && sa.inputs.binary_search(&r).is_ok() {
                    out.push(Clash {
                        a: b,
                        b: a,
                        resource: res(r),
                        kind: ClashKind::ModifiesRead,
                    });
                }
            }
            let theirs = made(pool, nodes[b] as u32);
            for r in made(pool, nodes[a] as u32) {
                if theirs.binary_search(&r).is_ok() {
                    out.push(Clash {
                        a,
                        b,
                        resource: res(r),
                        kind: ClashKind::BothMake,
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::graph::pool::tests::{subtask, tiny_catalog};
    use crate::model::SubtaskId;
    use crate::resources::KindSpec;

    /// The tiny catalogue with a `pdf` file kind.
    fn pdf_catalog() -> crate::resources::Catalog {
        let mut cat = tiny_catalog();
        cat.kinds.insert(
            "pdf".into(),
            KindSpec {
                description: "a pdf".into(),
                parameter: true,
                file_kinds: vec!["pdf".into()],
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
        cat
    }

    #[test]
    fn an_edit_beside_a_read_of_the_same_file_clashes() {
        let cat = pdf_catalog();
        let p = |v: &'static str| -> Vec<(&'static str, &'static str)> { vec![("pdf", v)] };
        let (x, y) = (p("/x.pdf"), p("/y.pdf"));
        let subs = vec![
            subtask("protect", "PDF Tool", &["pdf"], &["clip"], &[&x, &y]),
            subtask(
                "read",
                "PDF Tool",
                &["pdf"],
                &["img"],
                &[&[("pdf", "/x.pdf"), ("img", "/i")]],
            ),
            subtask("view", "Viewer", &["pdf"], &[], &[&x]),
            subtask("compress", "PDF Tool", &["pdf"], &[], &[&x]),
        ];
        let initial: BTreeSet<Resource> = [
            Resource::new("pdf", Some("/x.pdf".into())),
            Resource::new("pdf", Some("/y.pdf".into())),
        ]
        .into();
        let mut pool = Pool::new(&cat, &subs, &initial).unwrap();
        let find = |pool: &Pool<'_>, id: &str, k| pool.find(&SubtaskId(id.into()), k).unwrap();
        let (px, py) = (find(&pool, "protect", 0), find(&pool, "protect", 1));
        let (read, view) = (find(&pool, "read", 0), find(&pool, "view", 0));
        let compress = find(&pool, "compress", 0);
        // Before marking, reading the same file twice is fine.
        assert!(clashes(&pool, &[px, read, view]).is_empty());
        pool.mark_edited_inputs(|s| s.id.0 == "protect" || s.id.0 == "compress");
        assert_eq!(
            pool.instance(px).modifies,
            vec![Resource::new("pdf", Some("/x.pdf".into()))]
        );
        let found = clashes(&pool, &[read, px]);
        assert_eq!(
            found,
            vec![Clash {
                a: 1,
                b: 0,
                resource: Resource::new("pdf", Some("/x.pdf".into())),
                kind: ClashKind::ModifiesRead,
            }]
        );
        // Another file: no clash (writing the same clipboard is not modifying).
        assert!(clashes(&pool, &[py, read, view]).is_empty());
        assert!(clashes(&pool, &[px, py]).is_empty());
        let both = clashes(&pool, &[px, compress]);
        assert_eq!(both.len(), 1);
        assert_eq!(both[0].kind, ClashKind::BothModify);
        assert_eq!(
            both[0].resource,
            Resource::new("pdf", Some("/x.pdf".into()))
        );
    }

    #[test]
    fn a_picture_inserted_into_a_document_is_read_not_edited() {
        let mut cat = tiny_catalog();
        for (kind, ext) in [("doc", "docx"), ("img", "png")] {
            cat.kinds.get_mut(kind).unwrap().file_kinds = vec![ext.into()];
        }
        let (doc, pic) = ("/report.docx", "/photo.png");
        let subs = vec![
            // The picture has a slot of its own: it is joined into the report.
            subtask(
                "insert",
                "Writer",
                &["doc", "img:other_img"],
                &["clip"],
                &[&[("doc", doc), ("other_img", pic)]],
            ),
            // Both by kind alone: nothing says which one is opened.
            subtask(
                "either",
                "Writer",
                &["doc", "img"],
                &["clip"],
                &[&[("doc", doc), ("img", pic)]],
            ),
            subtask("crop", "Image Editor", &["img"], &[], &[&[("img", pic)]]),
        ];
        let initial: BTreeSet<Resource> = [
            Resource::new("doc", Some(doc.into())),
            Resource::new("img", Some(pic.into())),
        ]
        .into();
        let mut pool = Pool::new(&cat, &subs, &initial).unwrap();
        pool.mark_edited_inputs(|s| s.id.0 != "crop");
        let find = |id: &str| pool.find(&SubtaskId(id.into()), 0).unwrap();
        let (insert, either, crop) = (find("insert"), find("either"), find("crop"));
        assert_eq!(
            pool.instance(insert).modifies,
            vec![Resource::new("doc", Some(doc.into()))]
        );
        // The report changes, the picture does not: cropping a copy of it
        // beside the insertion clashes with nothing.
        assert!(clashes(&pool, &[insert, crop]).is_empty());
        assert_eq!(pool.instance(either).modifies.len(), 2);
        assert_eq!(clashes(&pool, &[either, crop]).len(), 1);
    }

    #[test]
    fn an_in_place_edit_is_ordered_before_its_readers() {
        let cat = tiny_catalog();
        let d = [("doc", "/d")];
        let subs = vec![
            subtask("edit", "Writer", &["doc"], &["doc"], &[&d]),
            subtask("read", "Writer", &["doc"], &["clip"], &[&d]),
        ];
        let initial: BTreeSet<Resource> = [Resource::new("doc", Some("/d".into()))].into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let e = pool.find(&SubtaskId("edit".into()), 0).unwrap();
        let r = pool.find(&SubtaskId("read".into()), 0).unwrap();
        assert_eq!(pool.instance(e).modifies.len(), 1);
        // edit -> read is an edge, so the pair is ordered.
        assert!(pool.depends_on(r, e));
        assert!(clashes(&pool, &[e, r]).is_empty());
        assert!(clash_pair(&pool, e as u32, r as u32));
    }

    #[test]
    fn two_makers_of_one_file_clash() {
        let cat = pdf_catalog();
        let subs = vec![
            subtask(
                "sheet",
                "Sheets",
                &["img"],
                &["pdf"],
                &[&[("img", "/a"), ("pdf", "/out.pdf")]],
            ),
            subtask(
                "print",
                "Text Editor",
                &["img"],
                &["pdf"],
                &[&[("img", "/b"), ("pdf", "/out.pdf")]],
            ),
            subtask(
                "other",
                "Writer",
                &["img"],
                &["pdf"],
                &[&[("img", "/a"), ("pdf", "/else.pdf")]],
            ),
        ];
        let pool = Pool::new(&cat, &subs, &BTreeSet::new()).unwrap();
        let find = |id: &str| pool.find(&SubtaskId(id.into()), 0).unwrap();
        let (sheet, print, other) = (find("sheet"), find("print"), find("other"));
        assert!(clash_pair(&pool, sheet as u32, print as u32));
        assert!(!clash_pair(&pool, sheet as u32, other as u32));
        let found = clashes(&pool, &[sheet, print]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].kind, ClashKind::BothMake);
        assert_eq!(
            found[0].resource,
            Resource::new("pdf", Some("/out.pdf".into()))
        );
    }
}
