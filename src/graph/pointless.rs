//! Pointless steps: nodes a person would not ask for, whatever the graph's shape.
//!
//! Three patterns, all read from the instances' typed resources:
//! - an **unused result** ([`PointlessKind::UnusedResult`]): a node with no
//!   successor whose outputs are all state that vanishes (the clipboard, media
//!   playing, a calculator's display: kinds that take no parameter). A copy
//!   nobody pastes is no result.
//! - a **repeated product** ([`PointlessKind::RepeatedProduct`]): two nodes that
//!   make the same kind of file from the same input in the same way (a zip of one
//!   file in Files and another in Archiver, two PDFs of one document); one
//!   application making two copies with different changes is not a repeat.
//!
//! - a **replaced result** ([`PointlessKind::Replaced`]): two nodes that put
//!   something in the one place that holds a single thing (the clipboard, a
//!   kind's `holder`): the later copy replaces the earlier, and a paste after
//!   both uses only one of them.
//! - an **unrelated paste** ([`PointlessKind::UnrelatedPaste`]): a message (a
//!   node that makes no file) that carries a file and, as its text, content
//!   copied from something that file does not come from: an e-mail with
//!   `backup.sh` attached and the code of `analysis.py` as its body.
//!
//! - a **format shuffle** ([`PointlessKind::FormatShuffle`]): a file saved
//!   back in a format it already had on its way into the task (PDF → Word
//!   document → PDF).
//!
//! - a **chained conversion** ([`PointlessKind::ChainedConversion`]): a print
//!   made in the task converted again (a web page printed to PDF, the PDF
//!   converted to a Word document), a file only converted, then only
//!   converted again, a record only exported as a file and the file only
//!   converted (a recipe's text printed to PDF in a word processor), or any
//!   file taken through plain text into a richer format (PDF → text → Word
//!   document): the middle format is a detour.
//! - a **lone archive** ([`PointlessKind::LoneArchive`]): one file packed into
//!   an archive, whatever follows: a mail or a message carries the file itself,
//!   and zipping one document or video saves nothing.
//! - an **unsent archive** ([`PointlessKind::UnsentArchive`]): several files
//!   packed into an archive that nothing in the task sends or files: a zip
//!   is made to hand files on together, not to be left in a folder.
//! - a **round trip** ([`PointlessKind::RoundTrip`]): a node that reads a file
//!   and something made from that same file (a deck's exported text pasted back
//!   into the deck).
//! - a **text-only copy** ([`PointlessKind::TextOnlyCopy`]): a file only saved
//!   as plain text (a kind that keeps none of a document's properties,
//!   `keeps_props = []`) and left at the end: a workbook's rows, a PDF's pages
//!   or a recipe made in the task from a page's text as a .txt nobody uses.
//! - an **unsuited edit** ([`PointlessKind::UnsuitedEdit`]): an edit made on
//!   content it does not suit, as the applications' specs declare it (a screen
//!   capture rotated, blurred or captioned like a photo).
//! - a **repeated change** ([`PointlessKind::RepeatedChange`]): an edit that
//!   sets a property of a file (its rotation, brightness, caption: the
//!   `set_prop` effects in the applications' specs) that a node before it
//!   already set on the file it came from (rotated in Image Editor, then
//!   rotated again in Photos).
//! - a **file filed twice** ([`PointlessKind::FiledTwice`]): one file attached
//!   to two records that keep track of work or pass it on (`tracker` and
//!   `sends` kinds in `resources.toml`: a to-do, a note and a mail for one
//!   report), or something made from it in one of them (a card with the
//!   report and a chat message with the report's text).
//! - **two messages to one person** ([`PointlessKind::SentTwiceToOne`]): two
//!   mails of one task to the same address; one mail would carry both files.
//! - **filing beside the result** ([`PointlessKind::FiledBeside`]): a note,
//!   to-do or card that only holds a file the task made, or a setting made
//!   of it (the wallpaper), left beside another result of the task (the
//!   ledger imported into the budget and also kept in a note).
//! - an **unused edited copy** ([`PointlessKind::UnusedEdit`]): a node saves
//!   a changed copy of a file (a centred document) that nothing uses, while
//!   another node of the task uses the original: the work on the copy is lost
//!   on the way; or a print of a file (a PDF), or a changed copy in another
//!   format (a list given a heading and saved as .docx), that nothing uses
//!   while the original is sent, filed or packed as it was.
//! - **markup read as prose** ([`PointlessKind::MarkupAsProse`]): a markup
//!   file's source (a web page's HTML, a table's CSV: `rendered_by` in `resources.toml`)
//!   copied as text or made into another kind of file (a PDF printed from the
//!   source) in an application that does not render it.
//!
//! - a **bare conversion** ([`PointlessKind::BareConversion`]): a file only
//!   saved in another format that is no print (a CSV re-saved as a workbook)
//!   and left at the end.
//! - an **unchanged copy** ([`PointlessKind::UnchangedCopy`]): a file only
//!   saved again in its own format under a new name (a real editor's Save As
//!   of `welcome.txt` as `welcome_final.txt`), whatever then uses it.
//! - a **given address or a file copied** ([`PointlessKind::CopiedGiven`]): a
//!   web address the task names, or a picture, opened only to copy it,
//!   unchanged, for a paste (the pasting application inserts the file).
//! - a **conversion to carry** ([`PointlessKind::ConvertedToCarry`]): a file
//!   only converted to a format that is no print (a script saved as .txt, an
//!   invoice PDF made a Word document) so that a mail, a to-do or a message
//!   carries it: it could carry the original. Likewise a web page saved as a
//!   file only for a mail to carry it: the mail could carry the link.
//!
//! - a **paste under another name** ([`PointlessKind::PastedUnderAnotherName`]):
//!   a named record (a recipe, a note) whose pasted content was copied from
//!   something its name does not name (the lentil soup page's text as the
//!   steps of a curry).
//! - an **attachment left behind** ([`PointlessKind::AttachmentLeftBehind`]):
//!   a record made to hold a file (a note with a PDF attached) saved as plain
//!   text, which keeps the record's words and loses the file.
//! - **two visits** ([`PointlessKind::TwoVisits`]): a file, page or record
//!   opened again only to copy from it.
//! - a **lost change** ([`PointlessKind::LostChange`]): a change made to a
//!   file (a property its edits set, a picture inserted) that a later node
//!   drops by keeping only a kind that does not hold it (the document's text
//!   copied, a deck's fade exported to PDF).
//! - a **spoiled edit** ([`PointlessKind::SpoiledEdit`]): an edit that an
//!   earlier change to its file defeats (`spoiled_by`: a picture shrunk, then
//!   made the wallpaper).
//! - an **unsent file** ([`PointlessKind::Unsent`]): an edit made only so
//!   that a file travels (`for_sending`: a PDF compressed) with nothing in the
//!   task sending it (a mail, a chat message: `sends` kinds), itself or in
//!   an archive.
//! - a **blank capture** ([`PointlessKind::BlankCapture`]): a screenshot or a
//!   screen recording that reads nothing, so it shows no work of the task
//!   (readers rejected a recording of the bare desktop mailed as the book
//!   club's footage).
//! - a **self review** ([`PointlessKind::SelfReview`]): a remark for someone
//!   else (`reviews`: a comment on a PDF) left on a file the task made itself
//!   ("Looks good to me" on one's own deck).
//!
//! The composer never keeps a task with any of them ([`pointless`] over its growing
//! graph); [`task_pointless`] finds them in a stored task for its quality flags.

use serde::{Deserialize, Serialize};

use crate::graph::pool::{attached_slots, Pool, Slim};
use crate::model::Task;

/// What makes a node (or a pair) pointless.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PointlessKind {
    /// Node `a` ends the task with nothing that lasts (`b == a`).
    UnusedResult,
    /// Nodes `a` and `b` make the same kind of thing from the same input.
    RepeatedProduct,
    /// Nodes `a` and `b` both fill the same holder (the clipboard).
    Replaced,
    /// Node `a` puts something on the clipboard that no node pastes, beside an
    /// output that is used ("save the recording, then copy its path" before an
    /// editor that opens the file by name) (`b == a`).
    UnusedCopy,
    /// Node `b` sends a message (it makes no file) carrying a file and content
    /// that node `a` copied from something the file does not come from.
    UnrelatedPaste,
    /// Nodes `a` and `b` each save the same file in another format without
    /// changing it (a text copy and a PDF of one calendar export): copies made
    /// to lengthen a task, not work anyone needs twice.
    CopiesOfOne,
    /// Node `b` saves a file back in a kind it already had on its way into the
    /// task, a way through node `a`'s change of format (a PDF converted to a
    /// Word document, that exported as PDF again): format shuffling, not work.
    FormatShuffle,
    /// Node `b` saves a file in another format, a file node `a` made by
    /// changing the format of another file or of a page: a print (a web page
    /// printed to PDF, the PDF converted to a Word document; a deck exported as
    /// PDF, the PDF converted to text), whatever else either node changes on
    /// the way, or any file when both only convert (a PDF saved as text, that
    /// text saved as a Word document): a detour, not a goal.
    ChainedConversion,
    /// Node `a` packs a single file into an archive (`b == a`): a zip of one
    /// file is no deliverable, and a mail or a message carries the file itself.
    LoneArchive,
    /// Node `a` packs several files into an archive that no node of the task
    /// sends, attaches or files (`b == a`): files are zipped together to be
    /// handed on together, and readers rejected every task that zipped a
    /// topic's work only to leave the zip in a folder. A node that mails or
    /// attaches the archive ties it up.
    UnsentArchive,
    /// Node `b` combines a file with something made from that same file
    /// (through node `a`): a deck's own text pasted back into the deck; or
    /// carries both on (a recipe's text and the PDF printed from it, mailed
    /// together).
    RoundTrip,
    /// Node `a` only saves a file of another kind as plain text, and nothing
    /// uses the copy (`b == a`): a CSV saved as .txt, a PDF converted to text
    /// and left there.
    TextOnlyCopy,
    /// Node `b` makes an edit that suits other content than what node `a`
    /// made (its effects' `suits` against what `a`'s effects say they make,
    /// `shows`, in the applications' specs): a screen capture rotated, flipped, blurred or
    /// captioned as if it were a photo.
    UnsuitedEdit,
    /// Node `b` sets a property of a file (rotation, brightness) that node `a`
    /// already set on the file it came from: the same change made twice.
    RepeatedChange,
    /// Node `a` reads a markup file (a web page's HTML) as prose in an
    /// application that does not render it: copies its source as text, or
    /// makes a file of another kind of it (a PDF printed from the source, a
    /// .txt) (`b == a`).
    MarkupAsProse,
    /// Nodes `a` and `b` each file or send the same file: a record that keeps
    /// track of work (a `tracker` kind: a to-do, a note, a calendar event) or a
    /// message that passes it on (a `sends` kind: a mail, a chat message), of
    /// the file or of something made from it (its text copied into the to-do):
    /// a person files or sends a report once, not in a to-do, a mail and the
    /// chat.
    FiledTwice,
    /// Nodes `a` and `b` each only send a message of one application to the
    /// same recipient (two mails to bob@example.com in one task, each with a
    /// file and a stock body): a person sends one mail with both files.
    /// Readers rejected a task that mailed Bob twice with the same body.
    SentTwiceToOne,
    /// Node `a` only files (a note, a to-do or a card holding it) a file
    /// made in the task and ends the task beside another result (`b == a`):
    /// the ledger's CSV exported, imported into the budget and also kept in a
    /// note 'Reference: expense ledger'. The filing is side work the goal does
    /// not ask for; a reader rejected three such tasks in one sample. Filing
    /// is the whole goal only when it is the task's one result. So is making
    /// the file a setting of the desktop (a photo set as the wallpaper):
    /// three readers in a row rejected a task that set the edited photo as
    /// the wallpaper and mailed it besides as two goals.
    FiledBeside,
    /// Node `a` saves a changed copy of a file (same kind, new name) that no
    /// node uses, while node `b` uses the original: the to-do gets the
    /// un-centred document and the centred one is left behind. Or node `a`
    /// prints the file (a PDF) that nothing uses while node `b` only sends or
    /// files the original (the recipe's raw .txt mailed, its PDF left
    /// behind), or changes it and saves it in another format that nothing
    /// uses while node `b` sends, files or packs the original (a checklist
    /// given a heading and saved as .docx, the plain .md zipped). A node
    /// reading the copy ties it up.
    UnusedEdit,
    /// Node `a` only converts a file to a format that is no print (a script
    /// saved as .txt, an invoice PDF made a Word document), and node `b` only
    /// carries the converted file on (attaches it to a mail, a to-do or a
    /// message, making no file): the record could carry the original. A node
    /// that works on the converted file ties it up.
    ConvertedToCarry,
    /// Node `a` only saves a file in another format that is no print (a CSV
    /// re-saved as a workbook, a text file as a Word document), and nothing
    /// uses the copy (`b == a`): the same content in a new format is no
    /// result. (Plain text is [`PointlessKind::TextOnlyCopy`].)
    BareConversion,
    /// Node `a` only saves a file again in its own format under a new name,
    /// changing nothing (a text file saved as another text file, a zip as
    /// another zip) (`b == a`): the copy holds no work, and whatever uses it
    /// could use the original. An in-place save is no copy.
    UnchangedCopy,
    /// Node `a` opens an address the task gives (a `linked` value no node of
    /// the task made) or a file only to copy it unchanged (`b == a`): what
    /// pastes it could take the address as the instruction gives it, or
    /// insert the file itself. Readers rejected a browser opened only to copy
    /// a given web address into a chat (two rounds) and Photos opened only to
    /// copy a picture into a document or a deck, from the desktop or made
    /// earlier in the task (three rounds). Copying a file's or a page's text,
    /// code or cells (a `quoted` clipboard kind) takes its content and is no
    /// such copy; a picture edited in the node that copies it is work of its
    /// own.
    #[serde(alias = "copied_given_address")]
    CopiedGiven,
    /// Node `b` makes a named record (a recipe 'Red lentil curry', a note, an
    /// e-mail by its subject) with content node `a` copied from something
    /// whose names share no word with the record's: the banana pancakes'
    /// text as the steps of a lentil curry.
    PastedUnderAnotherName,
    /// Node `b` saves as plain text a record node `a` made to hold a file (a
    /// note with a PDF attached exported as a .txt): the text keeps the
    /// record's words and leaves the file behind, so whatever the text is
    /// used for, the file's work is lost on the way.
    AttachmentLeftBehind,
    /// One of nodes `a` and `b` only copies from a file, page or record the
    /// other opens, in the same application or as the one thing the other
    /// reads: a web page saved, then visited again to copy its text; a text
    /// file printed in one editor and opened in another only to copy it. A
    /// person copies while it is open.
    TwoVisits,
    /// Node `b` keeps only what drops a change node `a` made to the file `b`
    /// reads, or to one that file was made from: a picture inserted into a
    /// brief, the brief exported as PDF, then only the PDF's text copied on;
    /// a fade added to a deck, then the deck exported as PDF. `b`'s outputs
    /// (files and copies) are all of kinds whose `keeps_props` lack the
    /// property.
    LostChange,
    /// Node `b`'s edit is defeated by a change node `a` made to the file
    /// before it (its effects' `spoiled_by` in the applications' specs): a
    /// picture halved in size, then made the wallpaper.
    SpoiledEdit,
    /// Node `a` makes an edit only so that a file travels (its effects'
    /// `for_sending`: a PDF compressed) and no node of the task sends what
    /// it makes (`b == a`), itself or in an archive: a compressed PDF left
    /// in a folder, or attached to one's own note (readers called that
    /// compression padding). A node that mails or posts it ties it up.
    Unsent,
    /// Node `a` captures the screen (a screenshot, a recording) and reads
    /// nothing (`b == a`): it shows no work of the task, whatever it is named
    /// after.
    BlankCapture,
    /// Node `b` leaves a remark for someone else (its effects' `reviews`: a
    /// comment on a PDF) on a file node `a` made in the task, or one made from
    /// it: a person comments on what others hand over, not on their own export.
    SelfReview,
}

impl PointlessKind {
    /// Does a later node leave the finding in place? Most do: a repeated
    /// product stays repeated whatever is added. The others are loose ends a
    /// node using the result ties up (a zip of one file that is then mailed,
    /// a copy that is then pasted).
    pub fn lasting(self) -> bool {
        !matches!(
            self,
            PointlessKind::UnusedResult
                | PointlessKind::UnsentArchive
                | PointlessKind::UnusedCopy
                | PointlessKind::TextOnlyCopy
                | PointlessKind::UnusedEdit
                | PointlessKind::ConvertedToCarry
                | PointlessKind::BareConversion
                | PointlessKind::Unsent
                | PointlessKind::FiledBeside
        )
    }
}

/// One finding; `a`, `b` are positions in the node list given (or the task's
/// `dag.nodes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Pointless {
    pub a: usize,
    pub b: usize,
    pub kind: PointlessKind,
}

/// Does instance `x` make only state that vanishes unused?
pub(crate) fn only_transient(pool: &Pool<'_>, x: usize) -> bool {
    let outputs = &pool.slim[x].outputs;
    !outputs.is_empty()
        && outputs.iter().all(|&r| {
            let kind = &pool.resource(r as usize).kind;
            pool.catalog().kinds.get(kind).is_some_and(|k| !k.parameter)
        })
}

/// The holders (the clipboard) instance `x` puts something in.
fn holders<'p>(pool: &'p Pool<'_>, x: usize) -> Vec<&'p str> {
    holders_of(pool, &pool.slim[x].outputs)
}

/// The holders of the kinds of `resources`.
fn holders_of<'p>(pool: &'p Pool<'_>, resources: &[u32]) -> Vec<&'p str> {
    let mut out: Vec<&str> = resources
        .iter()
        .filter_map(|&r| {
            let kind = &pool.resource(r as usize).kind;
            pool.catalog().kinds.get(kind)?.holder.as_deref()
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Do instances `a` and `b` both fill one holder, or both read one? (The
/// composer's fast check.) Two copies replace each other; two pastes of one copy
/// are refused too: the second is no hand-off an instruction can name ("once the
/// text is copied" points at no quoted name), and a person pastes what they just
/// copied.
pub(crate) fn shares_holder(pool: &Pool<'_>, a: usize, b: usize) -> bool {
    let (sa, sb) = (&pool.slim[a], &pool.slim[b]);
    let both = |x: &[u32], y: &[u32]| {
        let hy = holders_of(pool, y);
        !hy.is_empty() && holders_of(pool, x).iter().any(|h| hy.contains(h))
    };
    both(&sa.outputs, &sb.outputs) || both(&sa.inputs, &sb.inputs)
}

/// The (input, output file kind) pairs instance `x` makes: which file it turns
/// into which kind of file. In-place edits (the output is the input) and inputs
/// that are plain desktop state (an application being open) do not count.
fn products<'p>(pool: &'p Pool<'_>, x: usize) -> Vec<(u32, &'p str)> {
    let s = &pool.slim[x];
    let mut out = Vec::new();
    for &i in s.inputs.iter() {
        let kind = &pool.resource(i as usize).kind;
        let lasting = pool.catalog().kinds.get(kind).is_some_and(|k| k.parameter);
        if !lasting {
            continue;
        }
        for &o in s.outputs.iter().filter(|&&o| o != i) {
            let out_kind = pool.resource(o as usize).kind.as_str();
            if pool
                .catalog()
                .kinds
                .get(out_kind)
                .is_some_and(|k| k.is_path())
            {
                out.push((i, out_kind));
            }
        }
    }
    out
}

/// Do instances `a` and `b` make the same kind of file from the same input in
/// the same way? Two applications doing it (a zip in Files and one in Archiver,
/// a PDF from Writer and one from Text Editor) repeat each other; one
/// application doing it with different changes (a blurred copy and a grey one
/// from Image Editor) makes two different things. Nor do two nodes that each
/// put one picture into a different document (the report and the deck, each
/// exported as PDF): a node of several files makes something of all of them,
/// so it repeats another only on the same files.
fn repeats(
    pool: &Pool<'_>,
    made: &[Vec<(u32, &str)>],
    a: usize,
    b: usize,
    xa: usize,
    xb: usize,
) -> bool {
    let (sa, sb) = (&pool.slim[xa], &pool.slim[xb]);
    let same_way = sa.app != sb.app || sa.changes == sb.changes;
    let files = |x: &Slim| -> Vec<u32> {
        x.inputs
            .iter()
            .copied()
            .filter(|&i| is_path(pool, i))
            .collect()
    };
    let (fa, fb) = (files(sa), files(sb));
    let same_files = (fa.len() < 2 && fb.len() < 2) || fa == fb;
    same_way && same_files && made[a].iter().any(|p| made[b].contains(p))
}

/// Do nodes `a` and `b` (positions in `nodes`) each make a record that files
/// or sends (a to-do, a note, an event, a mail, a chat message) the same file: each files it, or something
/// made from it among `nodes` (a card holding the invoice's Word copy and a
/// to-do holding that copy's text)? See [`PointlessKind::FiledTwice`]. A
/// record made from another record (a card with a note's text) is follow-up
/// work on that record, and files made from a record (a recipe's printout and
/// its shopping list) are different things, not one file filed again.
fn files_twice(pool: &Pool<'_>, nodes: &[usize], a: usize, b: usize) -> bool {
    // An archive counts too: a file packed with others and sent besides
    // goes two ways (the archive is what is sent).
    let tracks = |x: usize| {
        pool.slim[x].outputs.iter().any(|&r| {
            let kind = &pool.resource(r as usize).kind;
            pool.catalog()
                .kinds
                .get(kind)
                .is_some_and(|k| k.delivers() || k.wraps)
        })
    };
    if !tracks(nodes[a]) || !tracks(nodes[b]) {
        return false;
    }
    // Back through what was made of a file (its copy, its text, an edited
    // copy), not through records (a recipe's shopping list and its printout
    // are two things) nor through other tracker records.
    let stop = |z: usize| tracks(z) || !pool.slim[z].inputs.iter().any(|&r| is_path(pool, r));
    let behind = |x: usize| files_behind(pool, nodes, x, &stop);
    let from_a = behind(nodes[a]);
    behind(nodes[b]).iter().any(|r| from_a.contains(r))
}

/// The files node `x` reads, and those behind what it reads: the files read by
/// the nodes among `nodes` that made its inputs, and so on back, not past the
/// nodes `stop` names.
fn files_behind(
    pool: &Pool<'_>,
    nodes: &[usize],
    x: usize,
    stop: &dyn Fn(usize) -> bool,
) -> Vec<u32> {
    let mut files = Vec::new();
    let mut seen = vec![x];
    let mut todo = vec![x];
    while let Some(y) = todo.pop() {
        for &r in pool.slim[y].inputs.iter() {
            if is_path(pool, r) && !files.contains(&r) {
                files.push(r);
            }
            for &z in nodes {
                if !seen.contains(&z) && makes(pool, z, r) {
                    seen.push(z);
                    if !stop(z) {
                        todo.push(z);
                    }
                }
            }
        }
    }
    files
}

/// (a, b) pairs where node `a`, which nothing follows, saves a changed copy of
/// a file that node `b` reads as it was (see [`PointlessKind::UnusedEdit`]).
fn unused_edits(pool: &Pool<'_>, nodes: &[usize], has_successor: &[bool]) -> Vec<(usize, usize)> {
    let kind = |r: u32| pool.resource(r as usize).kind.as_str();
    let mut found = Vec::new();
    for (a, &x) in nodes.iter().enumerate() {
        if has_successor[a] {
            continue;
        }
        let s = &pool.slim[x];
        let edited: Vec<u32> = s
            .inputs
            .iter()
            .copied()
            .filter(|&i| {
                formatted_file(pool, i)
                    && s.outputs
                        .iter()
                        .any(|&o| o != i && kind(o) == kind(i) && makes(pool, x, o))
            })
            .collect();
        // A print left behind while the file it was made from is sent or filed
        // as it was (a recipe printed to PDF, and the raw .txt mailed).
        let printed: Vec<u32> = s
            .inputs
            .iter()
            .copied()
            .filter(|&i| {
                formatted_file(pool, i)
                    && !is_print(pool, i)
                    && s.outputs
                        .iter()
                        .any(|&o| is_print(pool, o) && makes(pool, x, o))
            })
            .collect();
        // A file changed and saved in another format left behind while the
        // file as it was is sent, filed or packed (a packing list given a
        // heading in Writer and saved as .docx, and the plain .md zipped and
        // mailed): the reader of the task expects the better version to go.
        let restyled: Vec<u32> = s
            .inputs
            .iter()
            .copied()
            .filter(|&i| {
                formatted_file(pool, i)
                    && !s.changes_nothing
                    && s.outputs.iter().any(|&o| {
                        formatted_file(pool, o)
                            && kind(o) != kind(i)
                            && !is_print(pool, o)
                            && makes(pool, x, o)
                    })
            })
            .collect();
        for (b, &y) in nodes.iter().enumerate() {
            let reads = |files: &[u32]| {
                files
                    .iter()
                    .any(|i| pool.slim[y].inputs.binary_search(i).is_ok())
            };
            let carries = only_carries(pool, y) || wraps(pool, y);
            if b != a && (reads(&edited) || ((reads(&printed) || reads(&restyled)) && carries)) {
                found.push((a, b));
            }
        }
    }
    found
}

/// Does instance `y` only carry what it reads: it makes records (a mail sent,
/// a to-do) and no file, nor anything that vanishes (an open document, the
/// clipboard)?
fn only_carries(pool: &Pool<'_>, y: usize) -> bool {
    let outputs = &pool.slim[y].outputs;
    !outputs.is_empty()
        && outputs.iter().all(|&r| {
            let kind = &pool.resource(r as usize).kind;
            pool.catalog()
                .kinds
                .get(kind)
                .is_some_and(|k| k.parameter && !k.is_path())
        })
}

/// (a, b) pairs where node `a` only converts a file to a format that is no
/// print and every node reading the converted file, node `b` among them, only
/// carries it on (see [`PointlessKind::ConvertedToCarry`]).
fn converted_to_carry(pool: &Pool<'_>, nodes: &[usize]) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    for (a, &x) in nodes.iter().enumerate() {
        // A page saved under a name typed for it is still only saved.
        let saved = match pool.slim[x].changes_nothing {
            true => linked_saves(pool, x),
            false => Vec::new(),
        };
        let converted = match plain_copy(pool, x) {
            true => conversions(pool, x),
            false => Vec::new(),
        };
        let made = converted
            .into_iter()
            .map(|(_, o)| (o, Carried::Converted))
            .chain(saved.into_iter().map(|o| (o, Carried::Page)))
            .chain(
                record_exports(pool, x)
                    .into_iter()
                    .map(|o| (o, Carried::Record)),
            )
            .chain(
                copied_file_text(pool, x)
                    .into_iter()
                    .map(|o| (o, Carried::Text)),
            );
        for (o, how) in made {
            if is_print(pool, o) && how != Carried::Record {
                continue;
            }
            let readers: Vec<usize> = (0..nodes.len())
                .filter(|&b| b != a && pool.slim[nodes[b]].inputs.binary_search(&o).is_ok())
                .collect();
            // A saved page is a detour only for a reader that attaches it
            // as it is: a recipe imported from it takes its content in. A
            // record's export is one only for a tracker that files it (a
            // card 'Share pancakes recipe' could name the recipe); a mail
            // takes it to someone without the application. A file's text
            // copied is one for a message that says it and attaches nothing.
            let carried = |b: usize| {
                let y = nodes[b];
                only_carries(pool, y)
                    && match how {
                        Carried::Converted => true,
                        Carried::Page => attaches(pool, y, o),
                        Carried::Record => attaches(pool, y, o) && only_files(pool, y),
                        Carried::Text => {
                            only_sends(pool, y)
                                && !pool.slim[y].inputs.iter().any(|&i| is_path(pool, i))
                        }
                    }
            };
            // A page zipped on the way is carried all the same when what
            // reads the zip only attaches it (the Lisbon page saved, zipped
            // and mailed: a reader would send the link).
            let zipped = |b: usize| how == Carried::Page && zipped_to_carry(pool, nodes, b, o);
            if !readers.is_empty() && readers.iter().all(|&b| carried(b) || zipped(b)) {
                found.extend(readers.into_iter().map(|b| (a, b)));
            }
        }
    }
    found.sort_unstable();
    found.dedup();
    found
}

/// Does node `b` (of `nodes`) pack file `o` into archives that every node
/// reading them only carries, attached as they are (a mail)?
fn zipped_to_carry(pool: &Pool<'_>, nodes: &[usize], b: usize, o: u32) -> bool {
    let y = nodes[b];
    if !packed_by(pool, y).contains(&o) {
        return false;
    }
    let wraps = |r: u32| {
        let kind = &pool.resource(r as usize).kind;
        pool.catalog().kinds.get(kind).is_some_and(|k| k.wraps)
    };
    let archives: Vec<u32> = pool.slim[y]
        .outputs
        .iter()
        .copied()
        .filter(|&w| wraps(w))
        .collect();
    !archives.is_empty()
        && archives.iter().all(|&w| {
            let readers: Vec<usize> = nodes
                .iter()
                .copied()
                .filter(|&z| z != y && pool.slim[z].inputs.binary_search(&w).is_ok())
                .collect();
            !readers.is_empty()
                && readers
                    .iter()
                    .all(|&z| only_carries(pool, z) && attaches(pool, z, w))
        })
}

/// How a file [`converted_to_carry`] looks at was made.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Carried {
    /// Converted from a file without a change.
    Converted,
    /// Saved from a web page a message passes on by its address.
    Page,
    /// Only exported from a record (a recipe, a note).
    Record,
    /// A file's whole text copied to the clipboard: a message that says it
    /// (a four-page lease pasted into a chat) could carry the file.
    Text,
}

/// The clipboard values instance `x` only copies out of a file that quote it
/// (`quoted` in `resources.toml`: the PDF's text, a document's text), changing
/// nothing and taking no value of its own.
fn copied_file_text(pool: &Pool<'_>, x: usize) -> Vec<u32> {
    let s = &pool.slim[x];
    if !plain_copy(pool, x) || !s.inputs.iter().any(|&i| formatted_file(pool, i)) {
        return Vec::new();
    }
    s.outputs
        .iter()
        .copied()
        .filter(|&o| {
            pool.is_held(o)
                && pool
                    .catalog()
                    .kinds
                    .get(&pool.resource(o as usize).kind)
                    .is_some_and(|k| k.quoted)
        })
        .collect()
}

/// Does instance `y` only send what it makes (`sends` kinds: a mail, a chat
/// message)?
fn only_sends(pool: &Pool<'_>, y: usize) -> bool {
    pool.slim[y].outputs.iter().all(|&r| {
        pool.catalog()
            .kinds
            .get(&pool.resource(r as usize).kind)
            .is_some_and(|k| k.sends)
    })
}

/// Do instances `x` and `y` each only send a message of one application to
/// one recipient (see [`PointlessKind::SentTwiceToOne`])? The recipient is an
/// input both read that is neither a file nor on the clipboard: the address
/// a mail goes to.
fn sent_to_one(pool: &Pool<'_>, x: usize, y: usize) -> bool {
    let (sx, sy) = (&pool.slim[x], &pool.slim[y]);
    let recipient = |r: u32| !is_path(pool, r) && !pool.is_held(r);
    sx.app == sy.app
        && !sx.outputs.is_empty()
        && !sy.outputs.is_empty()
        && only_sends(pool, x)
        && only_sends(pool, y)
        && sx
            .inputs
            .iter()
            .any(|&r| recipient(r) && sy.inputs.binary_search(&r).is_ok())
}

/// The files instance `x` only exports from a record (a recipe, a note),
/// changing nothing and taking no value of its own.
fn record_exports(pool: &Pool<'_>, x: usize) -> Vec<u32> {
    let s = &pool.slim[x];
    if !plain_copy(pool, x) || !s.inputs.iter().any(|&i| is_record(pool, i)) {
        return Vec::new();
    }
    s.outputs
        .iter()
        .copied()
        .filter(|&o| formatted_file(pool, o))
        .collect()
}

/// The nodes (positions in `nodes`) that only file a file made in the task,
/// or make it a setting, and end it beside another node that ends it (see
/// [`PointlessKind::FiledBeside`]).
fn filed_beside(pool: &Pool<'_>, nodes: &[usize], has_successor: &[bool]) -> Vec<usize> {
    if has_successor.iter().filter(|&&s| !s).count() < 2 {
        return Vec::new();
    }
    let made_here = |x: usize, r: u32| nodes.iter().any(|&z| z != x && makes(pool, z, r));
    (0..nodes.len())
        .filter(|&a| {
            let x = nodes[a];
            !has_successor[a]
                && (only_files(pool, x) || only_sets(pool, x))
                && pool.slim[x]
                    .inputs
                    .iter()
                    .any(|&r| is_path(pool, r) && made_here(x, r))
        })
        .collect()
}

/// Does instance `y` only file what it makes (`tracker` kinds: a to-do, a
/// Kanban card, a note), sending nothing?
fn only_files(pool: &Pool<'_>, y: usize) -> bool {
    pool.slim[y].outputs.iter().all(|&r| {
        pool.catalog()
            .kinds
            .get(&pool.resource(r as usize).kind)
            .is_some_and(|k| k.tracker && !k.sends)
    })
}

/// Does instance `y` only change a setting of the desktop (`setting` kinds:
/// a picture made the wallpaper)?
fn only_sets(pool: &Pool<'_>, y: usize) -> bool {
    let outputs = &pool.slim[y].outputs;
    !outputs.is_empty()
        && outputs.iter().all(|&r| {
            pool.catalog()
                .kinds
                .get(&pool.resource(r as usize).kind)
                .is_some_and(|k| k.setting)
        })
}

/// The files instance `x` saves from a record a message passes on by its
/// address (a web page saved as HTML: `linked` in `resources.toml`).
fn linked_saves(pool: &Pool<'_>, x: usize) -> Vec<u32> {
    let s = &pool.slim[x];
    let linked = s.inputs.iter().any(|&i| {
        pool.catalog()
            .kinds
            .get(&pool.resource(i as usize).kind)
            .is_some_and(|k| k.linked)
    });
    if !linked {
        return Vec::new();
    }
    s.outputs
        .iter()
        .copied()
        .filter(|&o| formatted_file(pool, o))
        .collect()
}

/// Does instance `x` only save what it reads in another form: an instruction
/// that changes nothing, with no value beyond its inputs and outputs? (A
/// value such as the page to export makes it an extraction, not a copy.)
fn plain_copy(pool: &Pool<'_>, x: usize) -> bool {
    let s = &pool.slim[x];
    if !s.changes_nothing {
        return false;
    }
    let index = pool.instance(x).parameter_index;
    let Some(params) = pool.subtask_of(x).available_parameters.get(index) else {
        return true;
    };
    let own: Vec<&str> = s
        .inputs
        .iter()
        .chain(s.outputs.iter())
        .filter_map(|&r| pool.resource(r as usize).parameter.as_deref())
        .collect();
    // A picked file's shown name (`img_path_file` beside `img_path`) is the
    // file itself, no value of its own.
    params.iter().all(|(k, v)| {
        own.contains(&v.as_str())
            || k.strip_suffix("_file")
                .is_some_and(|slot| params.contains_key(slot))
    })
}

/// Do instances `a` and `b` both save one input file as something else
/// without changing it (see [`PointlessKind::CopiesOfOne`])?
fn copies_of_one(
    pool: &Pool<'_>,
    made: &[Vec<(u32, &str)>],
    a: usize,
    b: usize,
    xa: usize,
    xb: usize,
) -> bool {
    let plain = |x: usize| plain_copy(pool, x);
    plain(xa)
        && plain(xb)
        && made[a]
            .iter()
            .any(|(i, _)| made[b].iter().any(|(j, _)| i == j))
}

/// Is `r` a file whose format counts: a path kind that is no folder and no
/// archive (packing files into a zip keeps their format)?
fn formatted_file(pool: &Pool<'_>, r: u32) -> bool {
    let kind = &pool.resource(r as usize).kind;
    pool.catalog()
        .kinds
        .get(kind)
        .is_some_and(|k| !k.file_kinds.is_empty() && !k.directory && !k.wraps)
}

/// Is resource `r` of a plain format that keeps no document property
/// (`keeps_props = []`: plain text)?
fn keeps_nothing(pool: &Pool<'_>, r: u32) -> bool {
    pool.catalog()
        .kinds
        .get(&pool.resource(r as usize).kind)
        .and_then(|k| k.keeps_props.as_ref())
        .is_some_and(|keeps| keeps.is_empty())
}

/// Is resource `r` of a print format (`print` in `resources.toml`: a PDF)?
fn is_print(pool: &Pool<'_>, r: u32) -> bool {
    let kind = &pool.resource(r as usize).kind;
    pool.catalog().kinds.get(kind).is_some_and(|k| k.print)
}

/// The files (or pages) instance `x` saves in another format: (input, output)
/// pairs of formatted files whose kinds differ (a document exported as PDF),
/// and of something that is no file nor a holder's content with a print
/// format made of it (a web page printed to PDF).
fn conversions(pool: &Pool<'_>, x: usize) -> Vec<(u32, u32)> {
    let s = &pool.slim[x];
    let kind = |r: u32| pool.resource(r as usize).kind.as_str();
    let page = |r: u32| {
        pool.catalog()
            .kinds
            .get(kind(r))
            .is_some_and(|k| k.parameter && !k.is_path() && k.holder.is_none())
    };
    let mut out = Vec::new();
    for &i in s.inputs.iter() {
        let file = formatted_file(pool, i);
        for &o in s.outputs.iter().filter(|&&o| formatted_file(pool, o)) {
            if (file && kind(o) != kind(i)) || (page(i) && is_print(pool, o)) {
                out.push((i, o));
            }
        }
    }
    out
}

/// File `r`'s way into the task among `nodes`: the positions of the nodes that
/// changed a format on it, and the kinds it had (its own included).
#[derive(Default)]
struct Way<'p> {
    converted_by: Vec<usize>,
    kinds: Vec<&'p str>,
}

/// Does instance `y` make resource `r` (write it without reading it: an edit in
/// place does not make the file)?
fn makes(pool: &Pool<'_>, y: usize, r: u32) -> bool {
    let s = &pool.slim[y];
    s.outputs.binary_search(&r).is_ok() && s.inputs.binary_search(&r).is_err()
}

fn way_in<'p>(pool: &'p Pool<'_>, nodes: &[usize], r: u32, depth: usize, way: &mut Way<'p>) {
    way.kinds.push(pool.resource(r as usize).kind.as_str());
    if depth == 0 {
        return;
    }
    let Some((k, &y)) = nodes.iter().enumerate().find(|&(_, &y)| makes(pool, y, r)) else {
        return;
    };
    let converted: Vec<u32> = conversions(pool, y)
        .into_iter()
        .filter(|&(_, o)| o == r)
        .map(|(i, _)| i)
        .collect();
    if !converted.is_empty() && !way.converted_by.contains(&k) {
        way.converted_by.push(k);
    }
    for &i in pool.slim[y]
        .inputs
        .iter()
        .filter(|&&i| formatted_file(pool, i))
    {
        way_in(pool, nodes, i, depth - 1, way);
    }
}

/// Does adding instance `x` to `nodes` make a format shuffle? (The composer's
/// check while a graph grows: a shuffle never goes away by adding nodes.)
pub(crate) fn shuffles_with(pool: &Pool<'_>, nodes: &[u32], x: u32) -> bool {
    let mut all: Vec<usize> = nodes.iter().map(|&v| v as usize).collect();
    all.push(x as usize);
    let before = format_shuffles(pool, &all[..all.len() - 1]).len();
    format_shuffles(pool, &all).len() > before
}

/// (a, b) pairs where node `b` saves a file back in a kind it already had on
/// its way in, a way that went through node `a`'s conversion (PDF → Word
/// document → PDF; see [`PointlessKind::FormatShuffle`]).
fn format_shuffles(pool: &Pool<'_>, nodes: &[usize]) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    for (b, &x) in nodes.iter().enumerate() {
        for (i, o) in conversions(pool, x) {
            let mut way = Way::default();
            way_in(pool, nodes, i, nodes.len(), &mut way);
            let Some(&a) = way.converted_by.first() else {
                continue;
            };
            let back = way.kinds.contains(&pool.resource(o as usize).kind.as_str());
            if back && !found.contains(&(a, b)) {
                found.push((a, b));
            }
        }
    }
    found
}

/// (a, b) pairs where node `b` converts a file that node `a` made by
/// converting another file or a page, when that file is a print (a PDF,
/// whatever else either node changes) or both nodes only convert (see
/// [`PointlessKind::ChainedConversion`]). A document made richer step by step
/// (a text given a heading as Markdown, styled as a Word document, exported as
/// PDF) is no detour.
fn chained_conversions(pool: &Pool<'_>, nodes: &[usize]) -> Vec<(usize, usize)> {
    let converted = |y: usize, r: u32| conversions(pool, y).iter().any(|&(_, o)| o == r);
    let plain = |x: usize| plain_copy(pool, x);
    // Rich → plain text → rich: what the text dropped (layout, styles) does
    // not come back, whatever either node adds.
    let through_text = |y: usize, i: u32, o: u32| {
        keeps_nothing(pool, i)
            && !keeps_nothing(pool, o)
            && conversions(pool, y).iter().any(|&(src, made)| {
                made == i && formatted_file(pool, src) && !keeps_nothing(pool, src)
            })
    };
    // A record (a recipe) only exported as a file, and the file only
    // converted again (the recipe's text printed to PDF in a word processor).
    let exported = |y: usize, r: u32| {
        plain(y) && makes(pool, y, r) && pool.slim[y].inputs.iter().any(|&j| is_record(pool, j))
    };
    let mut found = Vec::new();
    for (b, &x) in nodes.iter().enumerate() {
        for (i, o) in conversions(pool, x) {
            for (a, &y) in nodes.iter().enumerate() {
                let detour = is_print(pool, i) || (plain(x) && plain(y)) || through_text(y, i, o);
                let chained = (converted(y, i) && detour) || (plain(x) && exported(y, i));
                if a != b && makes(pool, y, i) && chained && !found.contains(&(a, b)) {
                    found.push((a, b));
                }
            }
        }
    }
    found
}

/// Is `r` a record: a kind with a value that is no file and lives in no
/// holder (a recipe, a web page, a contact)?
fn is_record(pool: &Pool<'_>, r: u32) -> bool {
    pool.catalog()
        .kinds
        .get(&pool.resource(r as usize).kind)
        .is_some_and(|k| k.parameter && !k.is_path() && k.holder.is_none())
}

/// What resource `r` shows among `nodes`, with the position of the node that
/// declared it: what the node that made `r` declares it makes, else what the input
/// that node edited shows (a cropped copy of a screen capture, or the capture
/// copied to the clipboard, is still a screen capture; a PDF of a document a
/// photo was pasted into shows the document); for a file no node makes, what the
/// desktop says it shows (`[shows]` in `desktop.toml`: a contact list), with no
/// position. `None` for what no declared content goes into.
fn content_in<'p>(
    pool: &'p Pool<'_>,
    nodes: &[usize],
    r: u32,
    depth: usize,
) -> Option<(Option<usize>, &'p str)> {
    let Some((k, &y)) = nodes.iter().enumerate().find(|&(_, &y)| makes(pool, y, r)) else {
        let path = pool.resource(r as usize).parameter.as_deref()?;
        return pool.catalog().shows.get(path).map(|c| (None, c.as_str()));
    };
    if let Some(c) = pool.content(y).makes.as_deref() {
        return Some((Some(k), c));
    }
    if depth == 0 {
        return None;
    }
    // What a node made shows what it edited (the document a picture was
    // pasted into, not the picture).
    edited_inputs(pool, y)
        .into_iter()
        .find_map(|i| content_in(pool, nodes, i, depth - 1))
}

/// (a, b) pairs where node `b` makes an edit that does not suit what node `a`
/// made (see [`PointlessKind::UnsuitedEdit`]).
fn unsuited_edits(pool: &Pool<'_>, nodes: &[usize]) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    for (b, &x) in nodes.iter().enumerate() {
        let Some(suits) = &pool.content(x).suits else {
            continue;
        };
        for i in edited_inputs(pool, x) {
            let Some((a, c)) = content_in(pool, nodes, i, nodes.len()) else {
                continue;
            };
            // A desktop file's content: the edit alone is the finding (`a ==
            // b`); a node's own content is no finding of its own edit.
            let (a, made) = match a {
                Some(a) => (a, true),
                None => (b, false),
            };
            let other = !made || a != b;
            if other && !suits.iter().any(|s| s == c) && !found.contains(&(a, b)) {
                found.push((a, b));
            }
        }
    }
    found
}

/// (a, b) pairs where node `b` sets a property that node `a` set before it on
/// the file `b` edits or on one that file was made from (see
/// [`PointlessKind::RepeatedChange`]).
fn repeated_changes(pool: &Pool<'_>, nodes: &[usize]) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    for (b, &x) in nodes.iter().enumerate() {
        let sets = &pool.content(x).sets;
        if sets.is_empty() {
            continue;
        }
        for a in makers_before(pool, nodes, x) {
            if pool.content(nodes[a]).sets.iter().any(|p| sets.contains(p))
                && !found.contains(&(a, b))
            {
                found.push((a, b));
            }
        }
    }
    found
}

/// The positions of the nodes that made the file instance `x` edits, and the
/// files those were made from, nearest first along each way
/// ([`edited_inputs`] followed upstream).
fn makers_before(pool: &Pool<'_>, nodes: &[usize], x: usize) -> Vec<usize> {
    let mut makers = Vec::new();
    let mut files = edited_inputs(pool, x);
    let mut seen: Vec<u32> = Vec::new();
    while let Some(r) = files.pop() {
        if seen.contains(&r) || seen.len() > nodes.len() * 4 {
            continue;
        }
        seen.push(r);
        let Some((a, &y)) = nodes.iter().enumerate().find(|&(_, &y)| makes(pool, y, r)) else {
            continue;
        };
        makers.push(a);
        files.extend(edited_inputs(pool, y));
    }
    makers
}

/// The properties instance `x` gives the file it makes: its edits' (`sets`)
/// and what a file it inserts becomes there (`inserted_as`: a picture put
/// into a document).
fn changes_made<'p>(pool: &'p Pool<'_>, x: usize) -> Vec<&'p str> {
    let s = &pool.slim[x];
    let kind = |r: u32| pool.resource(r as usize).kind.as_str();
    let mut props: Vec<&str> = pool.content(x).sets.iter().map(String::as_str).collect();
    for &i in s.inputs.iter().filter(|&&i| is_path(pool, i)) {
        let saved_apart = s
            .outputs
            .iter()
            .any(|&o| formatted_file(pool, o) && kind(o) != kind(i));
        let inserted = pool
            .catalog()
            .kinds
            .get(kind(i))
            .and_then(|k| k.inserted_as.as_deref());
        if let Some(p) = inserted.filter(|_| saved_apart) {
            props.push(p);
        }
    }
    props
}

/// Does resource `r` keep property `p` (its kind's `keeps_props`; a kind
/// without the list keeps every property)?
fn keeps(pool: &Pool<'_>, r: u32, p: &str) -> bool {
    pool.catalog()
        .kinds
        .get(&pool.resource(r as usize).kind)
        .and_then(|k| k.keeps_props.as_ref())
        .is_none_or(|list| list.iter().any(|q| q == p))
}

/// (a, b) pairs of [`PointlessKind::LostChange`]: every file or copy node `b`
/// makes drops a property node `a` gave the file `b` reads (or one it was
/// made from).
fn lost_changes(pool: &Pool<'_>, nodes: &[usize]) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    for (b, &x) in nodes.iter().enumerate() {
        let kept: Vec<u32> = pool.slim[x]
            .outputs
            .iter()
            .copied()
            .filter(|&r| formatted_file(pool, r) || pool.is_held(r))
            .collect();
        if kept.is_empty() {
            continue;
        }
        for a in makers_before(pool, nodes, x) {
            let lost = changes_made(pool, nodes[a])
                .into_iter()
                .any(|p| kept.iter().all(|&r| !keeps(pool, r, p)));
            if lost && !found.contains(&(a, b)) {
                found.push((a, b));
            }
        }
    }
    found
}

/// Does instance `x` make an edit only for a file to travel (`for_sending`)
/// while no node of `nodes` sends what it makes, itself or packed in an
/// archive ([`PointlessKind::Unsent`])?
fn unsent(pool: &Pool<'_>, nodes: &[usize], x: usize) -> bool {
    if !pool.content(x).for_sending {
        return false;
    }
    // What x makes, and the archives of the task that pack it (a compressed
    // PDF zipped with the photos and mailed travels in the zip).
    let mut travels: Vec<u32> = pool.slim[x].outputs.to_vec();
    loop {
        let before = travels.len();
        for &w in nodes {
            let packs = pool.slim[w].inputs.iter().any(|r| travels.contains(r));
            if w != x && packs && wraps(pool, w) {
                for &o in pool.slim[w].outputs.iter() {
                    if !travels.contains(&o) {
                        travels.push(o);
                    }
                }
            }
        }
        if travels.len() == before {
            break;
        }
    }
    !nodes.iter().any(|&y| {
        y != x
            && only_carries(pool, y)
            && sends(pool, y)
            && pool.slim[y].inputs.iter().any(|r| travels.contains(r))
    })
}

/// Does instance `y` send something on (a mail, a chat message: `sends` kinds)?
fn sends(pool: &Pool<'_>, y: usize) -> bool {
    pool.slim[y].outputs.iter().any(|&r| {
        let kind = &pool.resource(r as usize).kind;
        pool.catalog().kinds.get(kind).is_some_and(|k| k.sends)
    })
}

/// Does instance `y` make a file that wraps others (an archive)?
fn wraps(pool: &Pool<'_>, y: usize) -> bool {
    pool.slim[y].outputs.iter().any(|&r| {
        let kind = &pool.resource(r as usize).kind;
        pool.catalog().kinds.get(kind).is_some_and(|k| k.wraps)
    })
}

/// (a, b) pairs of [`PointlessKind::SpoiledEdit`]: node `a` gave the file
/// node `b` edits (or one it was made from) a property that `b`'s edit is
/// spoiled by.
fn spoiled_edits(pool: &Pool<'_>, nodes: &[usize]) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    for (b, &x) in nodes.iter().enumerate() {
        let spoiled_by = &pool.content(x).spoiled_by;
        if spoiled_by.is_empty() {
            continue;
        }
        for a in makers_before(pool, nodes, x) {
            let spoils = changes_made(pool, nodes[a])
                .into_iter()
                .any(|p| spoiled_by.iter().any(|q| q == p));
            if spoils && !found.contains(&(a, b)) {
                found.push((a, b));
            }
        }
    }
    found
}

/// The inputs instance `x` edits, whose content its edits must suit: its one
/// file, or of several files those of a kind it saves (the document a picture
/// is inserted into, not the picture); without files, every input (a picture
/// on the clipboard).
fn edited_inputs(pool: &Pool<'_>, x: usize) -> Vec<u32> {
    let s = &pool.slim[x];
    let kind = |r: u32| pool.resource(r as usize).kind.as_str();
    let files: Vec<u32> = s
        .inputs
        .iter()
        .copied()
        .filter(|&i| is_path(pool, i))
        .collect();
    match files.len() {
        0 => s.inputs.to_vec(),
        1 => files,
        _ => files
            .into_iter()
            .filter(|&i| s.outputs.iter().any(|&o| kind(o) == kind(i)))
            .collect(),
    }
}

/// Does instance `x` read a markup file as prose (see
/// [`PointlessKind::MarkupAsProse`]): in an application that does not render
/// it, copy text from it (not code), or make a file of another kind from it
/// that is no archive?
fn reads_markup_as_prose(pool: &Pool<'_>, x: usize) -> bool {
    let s = &pool.slim[x];
    let app = &pool.instance(x).application;
    let spec = |r: u32| pool.catalog().kinds.get(&pool.resource(r as usize).kind);
    let markup = |r: u32| spec(r).is_some_and(|k| !k.rendered_by.is_empty());
    let source = s.inputs.iter().any(|&i| {
        spec(i).is_some_and(|k| !k.rendered_by.is_empty() && !k.rendered_by.contains(app))
    });
    if !source {
        return false;
    }
    let prose = crate::env::spec::clipboard_kind("text");
    s.outputs.iter().any(|&o| {
        pool.resource(o as usize).kind == prose || (formatted_file(pool, o) && !markup(o))
    })
}

/// Does instance `x` pack exactly one file (no folder) into an archive?
fn packs_one_file(pool: &Pool<'_>, x: usize) -> bool {
    let kind = |r: u32| pool.catalog().kinds.get(&pool.resource(r as usize).kind);
    let packed = packed_by(pool, x);
    packed.len() == 1 && kind(packed[0]).is_some_and(|k| !k.directory)
}

/// How many files and folders instance `x` packs into an archive (0 when it
/// makes none).
fn packed_files(pool: &Pool<'_>, x: usize) -> usize {
    packed_by(pool, x).len()
}

/// The files and folders instance `x` packs into an archive it makes (none
/// when it makes no archive).
fn packed_by(pool: &Pool<'_>, x: usize) -> Vec<u32> {
    let s = &pool.slim[x];
    let kind = |r: u32| pool.catalog().kinds.get(&pool.resource(r as usize).kind);
    if !s.outputs.iter().any(|&o| kind(o).is_some_and(|k| k.wraps)) {
        return Vec::new();
    }
    s.inputs
        .iter()
        .copied()
        .filter(|&i| kind(i).is_some_and(|k| k.is_path() && !k.wraps))
        .collect()
}

/// Does instance `x` only export, as plain text, a record another node of
/// the task made from a file or the clipboard (a recipe made from a web
/// page's text, then exported as a .txt): the text goes back to a file it
/// came from (see
/// [`PointlessKind::TextOnlyCopy`]). A record of the desktop (a shopping list)
/// exported as text is a file of its own.
fn exports_made_record_as_text(pool: &Pool<'_>, nodes: &[usize], x: usize) -> bool {
    let s = &pool.slim[x];
    // The record's maker took its content from a file or the clipboard (a
    // recipe pasted from a page), not from what was typed (a note written).
    let from_text = |y: usize| {
        pool.slim[y]
            .inputs
            .iter()
            .any(|&r| is_path(pool, r) || pool.is_held(r))
    };
    let made_record = s.inputs.iter().any(|&i| {
        is_record(pool, i)
            && nodes
                .iter()
                .any(|&y| y != x && makes(pool, y, i) && from_text(y))
    });
    plain_copy(pool, x)
        && made_record
        && s.outputs
            .iter()
            .any(|&o| formatted_file(pool, o) && keeps_nothing(pool, o))
}

/// Does instance `x` only save a file of another kind as plain text (see
/// [`PointlessKind::TextOnlyCopy`])?
fn copies_as_text_only(pool: &Pool<'_>, x: usize) -> bool {
    plain_copy(pool, x)
        && conversions(pool, x)
            .iter()
            .any(|&(_, o)| keeps_nothing(pool, o))
}

/// Does instance `x` only save a file in another format that is no print (see
/// [`PointlessKind::BareConversion`])?
fn converts_only(pool: &Pool<'_>, x: usize) -> bool {
    plain_copy(pool, x)
        && conversions(pool, x)
            .iter()
            .any(|&(i, o)| is_path(pool, i) && !is_print(pool, o))
}

/// Does instance `x` only copy an address the task gives or a file (see
/// [`PointlessKind::CopiedGiven`])? It changes nothing, reads only files and
/// `linked` values that no node among `nodes` makes, and fills only the
/// clipboard with no quoted content.
fn copies_given(pool: &Pool<'_>, nodes: &[usize], x: usize) -> bool {
    let s = &pool.slim[x];
    let kind = |r: u32| pool.catalog().kinds.get(&pool.resource(r as usize).kind);
    let given = |i: u32| {
        is_path(pool, i)
            || (kind(i).is_some_and(|k| k.linked) && !nodes.iter().any(|&y| makes(pool, y, i)))
    };
    let holds_no_quote = |o: u32| pool.is_held(o) && kind(o).is_some_and(|k| !k.quoted);
    !s.inputs.is_empty()
        && !s.outputs.is_empty()
        && s.inputs.iter().all(|&i| given(i))
        && s.outputs.iter().all(|&o| holds_no_quote(o))
        && plain_copy(pool, x)
}

/// Does instance `x` only save a file again in the format it has (see
/// [`PointlessKind::UnchangedCopy`])? Every file it makes has the kind of a
/// file it reads, and it makes at least one.
fn copies_unchanged(pool: &Pool<'_>, x: usize) -> bool {
    let s = &pool.slim[x];
    let kind = |r: u32| pool.resource(r as usize).kind.as_str();
    let made: Vec<u32> = s
        .outputs
        .iter()
        .copied()
        .filter(|&o| is_path(pool, o) && !s.inputs.contains(&o))
        .collect();
    !made.is_empty()
        && plain_copy(pool, x)
        && made.iter().all(|&o| {
            s.inputs
                .iter()
                .any(|&i| is_path(pool, i) && kind(i) == kind(o))
        })
}

/// Everything the nodes among `nodes` made `r` from: the resources upstream of
/// `r`, following each producer's inputs (a node that edits a file in place
/// does not make it).
fn upstream(pool: &Pool<'_>, nodes: &[usize], r: u32, seen: &mut Vec<u32>) {
    for &y in nodes.iter().filter(|&&y| makes(pool, y, r)) {
        for &i in pool.slim[y].inputs.iter() {
            if !seen.contains(&i) {
                seen.push(i);
                upstream(pool, nodes, i, seen);
            }
        }
    }
}

/// `r` and what it was made from, following each maker's main input (the
/// document opened, not the picture inserted into it), without clipboard
/// contents and unnamed resources: the content `r` carries on.
fn main_line(pool: &Pool<'_>, nodes: &[usize], r: u32) -> Vec<u32> {
    let mut line = vec![r];
    let mut at = r;
    while let Some(&y) = nodes.iter().find(|&&y| makes(pool, y, at)) {
        match pool.slim[y].main_input {
            Some(m) if !line.contains(&m) => {
                line.push(m);
                at = m;
            }
            _ => break,
        }
    }
    line.retain(|&o| !pool.is_held(o) && pool.resource(o as usize).parameter.is_some());
    line
}

/// (a, b) pairs where node `b` makes or edits a file from a file and, among its
/// other inputs, something node `a` made from that file (see
/// [`PointlessKind::RoundTrip`]).
fn round_trips(pool: &Pool<'_>, nodes: &[usize]) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    for (b, &x) in nodes.iter().enumerate() {
        // A message may carry a file and text taken from it, or two files
        // made apart from one (a ledger's chart and its totals); a file may
        // not be made of itself twice, and nothing carries a file beside one
        // made from it (a recipe's text and the PDF printed from it, mailed
        // together).
        let makes_file = pool.slim[x].outputs.iter().any(|&o| is_path(pool, o));
        let inputs = &pool.slim[x].inputs;
        if !makes_file && inputs.iter().filter(|&&r| is_path(pool, r)).count() < 2 {
            continue;
        }
        // Two files joined that go back to one origin (a web page's text made
        // a recipe and its PDF, and the page printed, appended to it): the
        // content twice. An origin is what each maker worked on, not what it
        // put in (one picture inserted into a brief and into a deck, the two
        // merged, is no content twice: [`main_line`]).
        // Each input's upstream, walked once: the pair test below reads it
        // for every other input.
        let ups: Vec<Vec<u32>> = inputs
            .iter()
            .map(|&i| {
                let mut from = Vec::new();
                upstream(pool, nodes, i, &mut from);
                from
            })
            .collect();
        let origins: Vec<Vec<u32>> = inputs.iter().map(|&i| main_line(pool, nodes, i)).collect();
        for (k, &i) in inputs.iter().enumerate() {
            let from = &ups[k];
            let back = inputs.iter().enumerate().any(|(m, &j)| {
                let joined_twice = makes_file
                    && is_path(pool, i)
                    && origins[m].iter().any(|o| origins[k].contains(o));
                let lineage = from.contains(&j) && (makes_file || is_path(pool, i));
                j != i && is_path(pool, j) && (lineage || joined_twice)
            });
            if !back {
                continue;
            }
            let made_by = nodes.iter().position(|&y| makes(pool, y, i));
            if let Some(a) = made_by {
                if a != b && !found.contains(&(a, b)) {
                    found.push((a, b));
                }
            }
        }
    }
    found
}

/// Adds a finding of `kind` for each (a, b) pair.
fn push_pairs(found: &mut Vec<Pointless>, pairs: Vec<(usize, usize)>, kind: PointlessKind) {
    found.extend(pairs.into_iter().map(|(a, b)| Pointless { a, b, kind }));
}

/// The pointless nodes among instances `nodes`, where `has_successor[k]` says
/// whether node `k` hands something on in the task.
pub fn pointless(pool: &Pool<'_>, nodes: &[usize], has_successor: &[bool]) -> Vec<Pointless> {
    let mut found = Vec::new();
    for (a, &x) in nodes.iter().enumerate() {
        if !has_successor[a] && only_transient(pool, x) {
            found.push(Pointless {
                a,
                b: a,
                kind: PointlessKind::UnusedResult,
            });
        }
    }
    for (a, &x) in nodes.iter().enumerate() {
        let unpasted = pool.slim[x].outputs.iter().any(|&r| {
            pool.is_held(r)
                && !nodes
                    .iter()
                    .any(|&y| pool.slim[y].inputs.binary_search(&r).is_ok())
        });
        // (A node with nothing else is `UnusedResult` already.)
        let reported = !has_successor[a] && only_transient(pool, x);
        if unpasted && !reported {
            found.push(Pointless {
                a,
                b: a,
                kind: PointlessKind::UnusedCopy,
            });
        }
    }
    for (b, &x) in nodes.iter().enumerate() {
        for a in unrelated_pastes(pool, nodes, x) {
            found.push(Pointless {
                a,
                b,
                kind: PointlessKind::UnrelatedPaste,
            });
        }
    }
    push_pairs(
        &mut found,
        format_shuffles(pool, nodes),
        PointlessKind::FormatShuffle,
    );
    push_pairs(
        &mut found,
        chained_conversions(pool, nodes),
        PointlessKind::ChainedConversion,
    );
    push_pairs(
        &mut found,
        round_trips(pool, nodes),
        PointlessKind::RoundTrip,
    );
    for (a, &x) in nodes.iter().enumerate() {
        if packs_one_file(pool, x) {
            found.push(Pointless {
                a,
                b: a,
                kind: PointlessKind::LoneArchive,
            });
        } else if !has_successor[a] && packed_files(pool, x) >= 2 {
            found.push(Pointless {
                a,
                b: a,
                kind: PointlessKind::UnsentArchive,
            });
        }
    }
    push_pairs(
        &mut found,
        unsuited_edits(pool, nodes),
        PointlessKind::UnsuitedEdit,
    );
    push_pairs(
        &mut found,
        repeated_changes(pool, nodes),
        PointlessKind::RepeatedChange,
    );
    push_pairs(
        &mut found,
        lost_changes(pool, nodes),
        PointlessKind::LostChange,
    );
    push_pairs(
        &mut found,
        spoiled_edits(pool, nodes),
        PointlessKind::SpoiledEdit,
    );
    for (a, &x) in nodes.iter().enumerate() {
        if unsent(pool, nodes, x) {
            found.push(Pointless {
                a,
                b: a,
                kind: PointlessKind::Unsent,
            });
        }
    }
    for (a, &x) in nodes.iter().enumerate() {
        let content = pool.content(x);
        if content.captures && pool.slim[x].inputs.is_empty() {
            found.push(Pointless {
                a,
                b: a,
                kind: PointlessKind::BlankCapture,
            });
        }
    }
    for (b, &x) in nodes.iter().enumerate() {
        if !pool.content(x).reviews {
            continue;
        }
        if let Some(&a) = makers_before(pool, nodes, x).first() {
            found.push(Pointless {
                a,
                b,
                kind: PointlessKind::SelfReview,
            });
        }
    }
    for (a, &x) in nodes.iter().enumerate() {
        if reads_markup_as_prose(pool, x) {
            found.push(Pointless {
                a,
                b: a,
                kind: PointlessKind::MarkupAsProse,
            });
        }
    }
    for (a, &x) in nodes.iter().enumerate() {
        if !has_successor[a]
            && (copies_as_text_only(pool, x) || exports_made_record_as_text(pool, nodes, x))
        {
            found.push(Pointless {
                a,
                b: a,
                kind: PointlessKind::TextOnlyCopy,
            });
        }
    }
    for (a, &x) in nodes.iter().enumerate() {
        if copies_given(pool, nodes, x) {
            found.push(Pointless {
                a,
                b: a,
                kind: PointlessKind::CopiedGiven,
            });
        }
    }
    for (a, &x) in nodes.iter().enumerate() {
        if copies_unchanged(pool, x) {
            found.push(Pointless {
                a,
                b: a,
                kind: PointlessKind::UnchangedCopy,
            });
        }
    }
    for (a, &x) in nodes.iter().enumerate() {
        let text_only = copies_as_text_only(pool, x);
        if !has_successor[a] && !text_only && converts_only(pool, x) {
            found.push(Pointless {
                a,
                b: a,
                kind: PointlessKind::BareConversion,
            });
        }
    }
    push_pairs(
        &mut found,
        converted_to_carry(pool, nodes),
        PointlessKind::ConvertedToCarry,
    );
    push_pairs(
        &mut found,
        pasted_under_another_name(pool, nodes),
        PointlessKind::PastedUnderAnotherName,
    );
    push_pairs(
        &mut found,
        attachments_left_behind(pool, nodes),
        PointlessKind::AttachmentLeftBehind,
    );
    push_pairs(
        &mut found,
        two_visits(pool, nodes),
        PointlessKind::TwoVisits,
    );
    push_pairs(
        &mut found,
        unused_edits(pool, nodes, has_successor),
        PointlessKind::UnusedEdit,
    );
    for a in filed_beside(pool, nodes, has_successor) {
        found.push(Pointless {
            a,
            b: a,
            kind: PointlessKind::FiledBeside,
        });
    }
    for a in 0..nodes.len() {
        for b in a + 1..nodes.len() {
            if files_twice(pool, nodes, a, b) {
                found.push(Pointless {
                    a,
                    b,
                    kind: PointlessKind::FiledTwice,
                });
            }
        }
    }
    for a in 0..nodes.len() {
        for b in a + 1..nodes.len() {
            if sent_to_one(pool, nodes[a], nodes[b]) {
                found.push(Pointless {
                    a,
                    b,
                    kind: PointlessKind::SentTwiceToOne,
                });
            }
        }
    }
    let made: Vec<Vec<(u32, &str)>> = nodes.iter().map(|&x| products(pool, x)).collect();
    let held: Vec<Vec<&str>> = nodes.iter().map(|&x| holders(pool, x)).collect();
    for a in 0..nodes.len() {
        for b in a + 1..nodes.len() {
            if repeats(pool, &made, a, b, nodes[a], nodes[b]) {
                found.push(Pointless {
                    a,
                    b,
                    kind: PointlessKind::RepeatedProduct,
                });
            }
            if copies_of_one(pool, &made, a, b, nodes[a], nodes[b]) {
                found.push(Pointless {
                    a,
                    b,
                    kind: PointlessKind::CopiesOfOne,
                });
            }
            if held[a].iter().any(|h| held[b].contains(h)) {
                found.push(Pointless {
                    a,
                    b,
                    kind: PointlessKind::Replaced,
                });
            }
        }
    }
    found
}

/// Is resource `r` a file or folder?
fn is_path(pool: &Pool<'_>, r: u32) -> bool {
    let kind = &pool.resource(r as usize).kind;
    pool.catalog().kinds.get(kind).is_some_and(|k| k.is_path())
}

/// A file's folder name and its name without extensions, lowercase: what ties
/// `~/Documents/report.docx` to `/home/user/Documents/report.pdf`, and tells
/// `~/Projects/backup.sh` from `~/Projects/scripts/backup.sh`.
fn stem(path: &str) -> Option<String> {
    let mut parts = path.trim_end_matches('/').rsplit('/');
    let name = parts.next()?.split('.').next()?.trim();
    let folder = parts.next().unwrap_or_default();
    (!name.is_empty()).then(|| format!("{folder}/{name}").to_lowercase())
}

/// The stems of what instance `x` reads: its file inputs and the paths its
/// parameters name (the file of a shell command `cat ~/Projects/backup.sh`).
fn read_stems(pool: &Pool<'_>, x: usize) -> Vec<String> {
    let mut out: Vec<String> = pool.slim[x]
        .inputs
        .iter()
        .filter(|&&r| is_path(pool, r))
        .filter_map(|&r| stem(pool.resource(r as usize).parameter.as_deref()?))
        .collect();
    let index = pool.instance(x).parameter_index;
    if let Some(params) = pool.subtask_of(x).available_parameters.get(index) {
        let paths = params
            .values()
            .flat_map(|v| v.split_whitespace())
            .map(|t| t.trim_matches(|c| c == '\'' || c == '"'))
            .filter(|t| t.contains('/') && !t.contains("://"));
        out.extend(paths.filter_map(stem));
    }
    out
}

/// The stems file `r` comes from among `nodes`: its own, and those of what the
/// node that made it read, back to the desktop's files.
fn lineage(pool: &Pool<'_>, nodes: &[usize], r: u32, out: &mut Vec<String>, depth: usize) {
    out.extend(
        pool.resource(r as usize)
            .parameter
            .as_deref()
            .and_then(stem),
    );
    if depth == 0 {
        return;
    }
    let made_by = nodes.iter().filter(|&&y| {
        let s = &pool.slim[y];
        s.outputs.binary_search(&r).is_ok() && s.inputs.binary_search(&r).is_err()
    });
    for &y in made_by {
        out.extend(read_stems(pool, y));
        for &i in pool.slim[y].inputs.iter().filter(|&&i| is_path(pool, i)) {
            lineage(pool, nodes, i, out, depth - 1);
        }
    }
}

/// The positions of the nodes whose copy instance `x` sends beside a file that
/// does not come from what they copied (see [`PointlessKind::UnrelatedPaste`]).
/// Only a message counts: pasting into a document that is then saved is editing
/// it, and any content may go in.
fn unrelated_pastes(pool: &Pool<'_>, nodes: &[usize], x: usize) -> Vec<usize> {
    let s = &pool.slim[x];
    let files: Vec<u32> = s
        .inputs
        .iter()
        .copied()
        .filter(|&r| is_path(pool, r))
        .collect();
    if files.is_empty() || s.outputs.iter().any(|&r| is_path(pool, r)) {
        return Vec::new();
    }
    let mut carried = Vec::new();
    for &f in &files {
        lineage(pool, nodes, f, &mut carried, nodes.len());
    }
    let mut found = Vec::new();
    for &h in s.inputs.iter().filter(|&&r| pool.is_held(r)) {
        for (a, &c) in nodes.iter().enumerate() {
            let copied = c != x && pool.slim[c].outputs.binary_search(&h).is_ok();
            if copied && !read_stems(pool, c).iter().any(|t| carried.contains(t)) {
                found.push(a);
            }
        }
    }
    found
}

/// Is resource `r` a named record: no file, no holder's content, with a value
/// (a recipe's name, a note's title, a mail's subject)?
fn is_named_record(pool: &Pool<'_>, r: u32) -> bool {
    !is_path(pool, r) && !pool.is_held(r) && pool.resource(r as usize).parameter.is_some()
}

/// The lower-case words of three or more letters in `text`: what ties a name
/// to a file, a page or another name ('lentil' in 'Lentil soup' and in
/// `https://recipes.example.com/lentil-soup`).
fn name_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_lowercase)
        .collect()
}

/// (a, b) pairs of [`PointlessKind::PastedUnderAnotherName`]: `b` pastes
/// what `a` copied into a named record, and fewer than half of the record
/// name's words appear in `a`'s values ('Red lentil curry' with the text of
/// the lentil soup page; 'Lentil soup' is that page's, and a note 'Science
/// reading' may hold a paragraph of the science feed), or the name leaves
/// out a word of the subject a copied page's address names ('Lentil salad'
/// with the text of the lentil soup page). A message is
/// left to [`PointlessKind::UnrelatedPaste`] (its subject is a sentence), and
/// a name of no such word (a title 'Hi') says nothing.
fn pasted_under_another_name(pool: &Pool<'_>, nodes: &[usize]) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    let sends = |r: u32| {
        pool.catalog()
            .kinds
            .get(&pool.resource(r as usize).kind)
            .is_some_and(|k| k.sends)
    };
    for (b, &y) in nodes.iter().enumerate() {
        let s = &pool.slim[y];
        let named: Vec<String> = s
            .outputs
            .iter()
            .filter(|&&r| {
                is_named_record(pool, r) && !sends(r) && s.inputs.binary_search(&r).is_err()
            })
            .filter_map(|&r| pool.resource(r as usize).parameter.as_deref())
            .flat_map(name_words)
            .collect();
        if named.is_empty() {
            continue;
        }
        for &h in s.inputs.iter().filter(|&&r| pool.is_held(r)) {
            for (a, &x) in nodes.iter().enumerate() {
                if x == y || pool.slim[x].outputs.binary_search(&h).is_err() {
                    continue;
                }
                let index = pool.instance(x).parameter_index;
                let source: Vec<String> = pool
                    .subtask_of(x)
                    .available_parameters
                    .get(index)
                    .into_iter()
                    .flat_map(|p| p.values())
                    .flat_map(|v| name_words(v))
                    .collect();
                let shared = named.iter().filter(|w| source.contains(w)).count();
                // A page names its subject in its address: every word of it
                // belongs in the record's name (the lentil soup page is no
                // lentil salad's steps).
                let page_subject: Vec<String> = pool
                    .subtask_of(x)
                    .available_parameters
                    .get(index)
                    .into_iter()
                    .flat_map(|p| p.values())
                    .filter_map(|v| page_subject(v))
                    .flat_map(name_words)
                    .collect();
                let other_subject = page_subject.iter().any(|w| !named.contains(w));
                if 2 * shared < named.len() || other_subject || of_another(pool, nodes, x, y) {
                    found.push((a, b));
                }
            }
        }
    }
    found
}

/// The subject a web address names: its last path segment
/// ("https://recipes.example.com/lentil-soup" → "lentil-soup"); `None` for
/// what is no web address or names only its site.
fn page_subject(value: &str) -> Option<&str> {
    let rest = value
        .strip_prefix("https://")
        .or_else(|| value.strip_prefix("http://"))?;
    let (_, path) = rest.split_once('/')?;
    path.trim_end_matches('/')
        .rsplit('/')
        .next()
        .map(|seg| seg.split(['?', '#', '.']).next().unwrap_or(seg))
        .filter(|seg| !seg.is_empty())
}

/// Does what instance `x` copied come from another record of a kind that `y`
/// names (the Pancakes recipe exported, opened and copied, pasted as the
/// steps of a recipe 'Buckwheat pancakes')? Looks back through the nodes
/// that made `x`'s inputs.
fn of_another(pool: &Pool<'_>, nodes: &[usize], x: usize, y: usize) -> bool {
    let sy = &pool.slim[y];
    let named: Vec<u32> = sy
        .outputs
        .iter()
        .copied()
        .filter(|&r| is_named_record(pool, r) && sy.inputs.binary_search(&r).is_err())
        .collect();
    let mut seen: Vec<usize> = vec![x];
    let mut stack = vec![x];
    while let Some(v) = stack.pop() {
        for &i in pool.slim[v].inputs.iter() {
            let res = pool.resource(i as usize);
            let other = named.iter().any(|&r| {
                let n = pool.resource(r as usize);
                n.kind == res.kind && n.parameter != res.parameter
            });
            if other {
                return true;
            }
            for &w in nodes {
                if !seen.contains(&w) && pool.slim[w].outputs.binary_search(&i).is_ok() {
                    seen.push(w);
                    stack.push(w);
                }
            }
        }
    }
    false
}

/// (a, b) pairs of [`PointlessKind::TwoVisits`]: `a` before `b` in `nodes`,
/// one of them only copying from a named thing (every output on the
/// clipboard; the thing a file, a page or a record: an input with a parameter
/// that is not on the clipboard, which neither changes) that the other opens:
/// in the same application, or as the one thing it reads. A picture inserted
/// into a deck is not opened, and a mail attaching a file does not open it
/// ([`only_carries`]).
fn two_visits(pool: &Pool<'_>, nodes: &[usize]) -> Vec<(usize, usize)> {
    let copies_only = |x: usize| {
        let out = &pool.slim[x].outputs;
        !out.is_empty() && out.iter().all(|&r| pool.is_held(r))
    };
    let visited = |x: usize| -> Vec<u32> {
        let s = &pool.slim[x];
        s.inputs
            .iter()
            .copied()
            .filter(|&r| {
                !pool.is_held(r)
                    && pool.resource(r as usize).parameter.is_some()
                    && s.modifies.binary_search(&r).is_err()
            })
            .collect()
    };
    let read: Vec<Vec<u32>> = nodes.iter().map(|&x| visited(x)).collect();
    // Does node `o` open `r`, which node `c` only copies from?
    let opens = |c: usize, o: usize, r: u32| {
        copies_only(nodes[c])
            && !only_carries(pool, nodes[o])
            && (pool.slim[nodes[c]].app == pool.slim[nodes[o]].app || read[o] == [r])
    };
    let mut found = Vec::new();
    for a in 0..nodes.len() {
        for b in a + 1..nodes.len() {
            let twice = read[a]
                .iter()
                .any(|&r| read[b].contains(&r) && (opens(a, b, r) || opens(b, a, r)));
            if twice {
                found.push((a, b));
            }
        }
    }
    found
}

/// Does instance `x` attach resource `r` to what it makes, as it is ("with
/// '{pdf_path}' attached": [`attached_slots`]), rather than take its content
/// in (a recipe imported from a saved page)?
fn attaches(pool: &Pool<'_>, x: usize, r: u32) -> bool {
    let subtask = pool.subtask_of(x);
    let Some(value) = pool.resource(r as usize).parameter.as_ref() else {
        return false;
    };
    subtask
        .available_parameters
        .get(pool.instance(x).parameter_index)
        .is_some_and(|values| {
            attached_slots(&subtask.instruction_template)
                .iter()
                .any(|slot| values.get(*slot) == Some(value))
        })
}

/// (a, b) pairs of [`PointlessKind::AttachmentLeftBehind`]: `a` makes a
/// named record with a file attached ([`attached_slots`]), and `b` reads
/// that record and no file and saves plain text. A record that took a
/// file's content in (a note containing a text file's lines) keeps it.
fn attachments_left_behind(pool: &Pool<'_>, nodes: &[usize]) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    for (a, &x) in nodes.iter().enumerate() {
        let sa = &pool.slim[x];
        if !sa
            .inputs
            .iter()
            .any(|&r| is_path(pool, r) && attaches(pool, x, r))
        {
            continue;
        }
        let records = sa
            .outputs
            .iter()
            .filter(|&&r| is_named_record(pool, r) && sa.inputs.binary_search(&r).is_err());
        for &rec in records {
            for (b, &y) in nodes.iter().enumerate() {
                let sb = &pool.slim[y];
                if y != x
                    && sb.inputs.binary_search(&rec).is_ok()
                    && !sb.inputs.iter().any(|&r| is_path(pool, r))
                    && sb
                        .outputs
                        .iter()
                        .any(|&r| is_path(pool, r) && keeps_nothing(pool, r))
                {
                    found.push((a, b));
                }
            }
        }
    }
    found
}

/// The pointless nodes of a stored task; positions are in `task.dag.nodes`. Nodes
/// whose (subtask, parameter set) is not in `pool` are skipped.
pub fn task_pointless(pool: &Pool<'_>, task: &Task) -> Vec<Pointless> {
    let ids = &task.dag.nodes;
    let mut keep = Vec::new();
    let mut nodes = Vec::new();
    let mut has_successor = Vec::new();
    for (k, id) in ids.iter().enumerate() {
        let Some(x) = task
            .nodes
            .get(id)
            .and_then(|n| pool.find(&n.subtask_id, n.parameter_index))
        else {
            continue;
        };
        keep.push(k);
        nodes.push(x);
        has_successor.push(task.dag.edges.get(id).is_some_and(|s| !s.is_empty()));
    }
    pointless(pool, &nodes, &has_successor)
        .into_iter()
        .map(|p| Pointless {
            a: keep[p.a],
            b: keep[p.b],
            ..p
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::graph::pool::tests::{subtask, tiny_catalog};
    use crate::model::{Subtask, SubtaskId};
    use crate::resources::Resource;

    /// The tiny catalogue with "doc" a Word document and file kinds "pdf",
    /// "txt" and "zip" (an archive, `wraps`).
    /// The findings among `nodes` when every node has a successor, as
    /// (a, b, kind).
    fn findings(pool: &Pool<'_>, nodes: &[usize]) -> Vec<(usize, usize, PointlessKind)> {
        pointless(pool, nodes, &vec![true; nodes.len()])
            .into_iter()
            .map(|p| (p.a, p.b, p.kind))
            .collect()
    }

    fn office_catalog() -> crate::resources::Catalog {
        let mut cat = tiny_catalog();
        cat.kinds.get_mut("doc").unwrap().file_kinds = vec!["docx".into()];
        for ext in ["pdf", "txt", "zip"] {
            let mut k = cat.kinds["doc"].clone();
            k.file_kinds = vec![ext.into()];
            k.wraps = ext == "zip";
            // Plain text keeps no document property.
            k.keeps_props = (ext == "txt").then(Vec::new);
            cat.kinds.insert(ext.into(), k);
        }
        cat
    }

    #[test]
    fn one_picture_in_two_documents_is_no_repeat() {
        let mut cat = office_catalog();
        let mut png = cat.kinds["doc"].clone();
        png.file_kinds = vec!["png".into()];
        cat.kinds.insert("png".into(), png);
        let pic = "/home/user/Pictures/p.png";
        let subs = vec![
            subtask(
                "report",
                "Writer",
                &["doc", "png"],
                &["pdf"],
                &[&[
                    ("doc", "/home/user/Documents/r.docx"),
                    ("png", pic),
                    ("pdf", "/home/user/Documents/r.pdf"),
                ]],
            ),
            subtask(
                "notes",
                "Text Editor",
                &["txt", "png"],
                &["pdf"],
                &[&[
                    ("txt", "/home/user/Documents/n.txt"),
                    ("png", pic),
                    ("pdf", "/home/user/Documents/n.pdf"),
                ]],
            ),
            subtask(
                "print",
                "Photos",
                &["png"],
                &["pdf"],
                &[&[("png", pic), ("pdf", "/home/user/Documents/p.pdf")]],
            ),
            subtask(
                "print_again",
                "Image Editor",
                &["png"],
                &["pdf"],
                &[&[("png", pic), ("pdf", "/home/user/Documents/p2.pdf")]],
            ),
        ];
        let initial: BTreeSet<Resource> = [
            Resource::new("doc", Some("/home/user/Documents/r.docx".into())),
            Resource::new("txt", Some("/home/user/Documents/n.txt".into())),
            Resource::new("png", Some(pic.into())),
        ]
        .into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let find = |id: &str| pool.find(&SubtaskId(id.into()), 0).unwrap();
        let repeated = |nodes: &[usize]| {
            findings(&pool, nodes)
                .iter()
                .any(|f| f.2 == PointlessKind::RepeatedProduct)
        };
        assert!(
            !repeated(&[find("report"), find("notes")]),
            "the picture put into the report and into the notes"
        );
        assert!(
            repeated(&[find("print"), find("print_again")]),
            "the picture printed to PDF twice"
        );
    }

    #[test]
    fn one_file_is_filed_or_sent_once() {
        let mut cat = office_catalog();
        let mut todo = cat.kinds["img"].clone();
        todo.file_kinds = vec![];
        todo.tracker = true;
        cat.kinds.insert("todo".into(), todo.clone());
        cat.kinds.insert("note".into(), todo.clone());
        let mut sent = todo;
        sent.tracker = false;
        sent.sends = true;
        cat.kinds.insert("sent".into(), sent);
        let docx = "/home/user/Documents/a.docx";
        let other = "/home/user/Documents/b.docx";
        let subs = vec![
            subtask(
                "task",
                "To Do",
                &["doc"],
                &["todo"],
                &[&[("doc", docx), ("todo", "Read a")]],
            ),
            subtask(
                "note",
                "Notes",
                &["doc"],
                &["note"],
                &[
                    &[("doc", docx), ("note", "On a")],
                    &[("doc", other), ("note", "On b")],
                ],
            ),
            subtask(
                "mail",
                "Mail",
                &["doc"],
                &["img"],
                &[&[("doc", docx), ("img", "sent")]],
            ),
            subtask(
                "chat",
                "Chat",
                &["doc"],
                &["sent"],
                &[&[("doc", docx), ("sent", "Carol")]],
            ),
            subtask(
                "as_text",
                "Writer",
                &["doc"],
                &["txt"],
                &[&[("doc", docx), ("txt", "/home/user/Documents/a.txt")]],
            ),
            subtask(
                "note_text",
                "Notes",
                &["txt"],
                &["note"],
                &[&[("txt", "/home/user/Documents/a.txt"), ("note", "A's text")]],
            ),
        ];
        let initial: BTreeSet<Resource> = [
            Resource::new("doc", Some(docx.into())),
            Resource::new("doc", Some(other.into())),
        ]
        .into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let find = |id: &str, i| pool.find(&SubtaskId(id.into()), i).unwrap();
        let kinds = |nodes: &[usize]| findings(&pool, nodes);
        assert_eq!(
            kinds(&[find("task", 0), find("note", 0)]),
            vec![(0, 1, PointlessKind::FiledTwice)],
            "a.docx in a to-do and in a note"
        );
        assert!(
            kinds(&[find("task", 0), find("note", 1)]).is_empty(),
            "two files"
        );
        assert!(
            kinds(&[find("task", 0), find("mail", 0)]).is_empty(),
            "filed, and made into a picture"
        );
        assert_eq!(
            kinds(&[find("task", 0), find("chat", 0)]),
            vec![(0, 1, PointlessKind::FiledTwice)],
            "a.docx in a to-do and sent in the chat"
        );
        // The to-do holds a.docx, the note what was made from it.
        let made_from = kinds(&[find("task", 0), find("as_text", 0), find("note_text", 0)]);
        assert!(
            made_from.contains(&(0, 2, PointlessKind::FiledTwice)),
            "a.docx in a to-do and its text in a note: {made_from:?}"
        );
        assert!(
            !kinds(&[find("as_text", 0), find("note_text", 0), find("note", 1)])
                .iter()
                .any(|f| f.2 == PointlessKind::FiledTwice),
            "a's text and b.docx are two files"
        );
    }

    #[test]
    fn a_file_is_not_converted_only_to_be_carried() {
        let mut cat = office_catalog();
        cat.kinds.get_mut("pdf").unwrap().print = true;
        let docx = "/home/user/Documents/a.docx";
        let txt = "/home/user/Documents/a.txt";
        let pdf = "/home/user/Documents/a.pdf";
        let subs = vec![
            subtask(
                "convert",
                "Writer",
                &["doc"],
                &["txt"],
                &[&[("doc", docx), ("txt", txt)]],
            ),
            subtask(
                "export",
                "Writer",
                &["doc"],
                &["pdf"],
                &[&[("doc", docx), ("pdf", pdf)]],
            ),
            // `img` stands for a record here: a mail sent.
            subtask(
                "mail_txt",
                "Mail",
                &["txt"],
                &["img"],
                &[&[("txt", txt), ("img", "sent a")]],
            ),
            subtask(
                "mail_pdf",
                "Mail",
                &["pdf"],
                &["img"],
                &[&[("pdf", pdf), ("img", "sent b")]],
            ),
            subtask(
                "edit",
                "Text Editor",
                &["txt"],
                &["txt:new_txt"],
                &[&[("txt", txt), ("new_txt", "/home/user/Documents/b.txt")]],
            ),
        ];
        let initial: BTreeSet<Resource> = [Resource::new("doc", Some(docx.into()))].into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let find = |id: &str| pool.find(&SubtaskId(id.into()), 0).unwrap();
        let kinds = |nodes: &[usize]| findings(&pool, nodes);
        assert_eq!(
            kinds(&[find("convert"), find("mail_txt")]),
            vec![(0, 1, PointlessKind::ConvertedToCarry)],
            "the mail could carry a.docx"
        );
        assert!(
            kinds(&[find("export"), find("mail_pdf")]).is_empty(),
            "a print is made to be sent"
        );
        assert!(
            kinds(&[find("convert"), find("mail_txt"), find("edit")]).is_empty(),
            "the text is worked on as well"
        );
    }

    #[test]
    fn a_record_exported_as_text_is_not_only_printed() {
        let mut cat = office_catalog();
        cat.kinds.get_mut("pdf").unwrap().print = true;
        let txt = "/home/user/Documents/Pancakes recipe.txt";
        // `img` stands for a recipe here: a parameterised kind, no file.
        let subs = vec![
            subtask(
                "export",
                "Recipes",
                &["img"],
                &["txt"],
                &[&[("img", "Pancakes"), ("txt", txt)]],
            ),
            subtask(
                "print",
                "Writer",
                &["txt"],
                &["pdf"],
                &[&[("txt", txt), ("pdf", "/home/user/Documents/pancakes.pdf")]],
            ),
            subtask(
                "titled",
                "Writer",
                &["txt"],
                &["pdf"],
                &[&[
                    ("txt", txt),
                    ("title", "Sunday breakfast"),
                    ("pdf", "/home/user/Documents/breakfast.pdf"),
                ]],
            ),
        ];
        let initial: BTreeSet<Resource> = [Resource::new("img", Some("Pancakes".into()))].into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let find = |id: &str| pool.find(&SubtaskId(id.into()), 0).unwrap();
        assert_eq!(
            findings(&pool, &[find("export"), find("print")]),
            vec![(0, 1, PointlessKind::ChainedConversion)],
            "the recipe's text only printed to PDF"
        );
        assert!(
            findings(&pool, &[find("export"), find("titled")]).is_empty(),
            "the text is worked on before the print"
        );
    }

    #[test]
    fn a_recipe_made_in_the_task_is_not_exported_back_to_text() {
        let cat = office_catalog();
        let page = "/home/user/Downloads/oat_pancakes.txt";
        // `img` stands for a recipe here: a parameterised kind, no file.
        let subs = vec![
            subtask(
                "import",
                "Recipes",
                &["txt"],
                &["img"],
                &[&[("txt", page), ("img", "Oat pancakes")]],
            ),
            subtask(
                "export",
                "Recipes",
                &["img"],
                &["txt:new_txt"],
                &[
                    &[
                        ("img", "Oat pancakes"),
                        ("new_txt", "/home/user/Documents/Oat pancakes.txt"),
                    ],
                    &[
                        ("img", "Pancakes"),
                        ("new_txt", "/home/user/Documents/Pancakes.txt"),
                    ],
                ],
            ),
        ];
        let initial: BTreeSet<Resource> = [
            Resource::new("img", Some("Pancakes".into())),
            Resource::new("txt", Some(page.into())),
        ]
        .into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let find = |id: &str, i| pool.find(&SubtaskId(id.into()), i).unwrap();
        let kinds = |nodes: &[usize], succ: &[bool]| {
            pointless(&pool, nodes, succ)
                .iter()
                .map(|p| p.kind)
                .collect::<Vec<_>>()
        };
        assert!(
            kinds(&[find("import", 0), find("export", 0)], &[true, false])
                .contains(&PointlessKind::TextOnlyCopy),
            "the page's text made a recipe and went back to text"
        );
        assert!(
            !kinds(&[find("export", 1)], &[false]).contains(&PointlessKind::TextOnlyCopy),
            "a recipe of the desktop as a text file of its own"
        );
    }

    #[test]
    fn a_record_is_not_exported_only_for_a_card_to_file_it() {
        let mut cat = office_catalog();
        // `img` is a recipe, `card` a Kanban card, `mail` a sent mail.
        let mut card = cat.kinds["img"].clone();
        card.tracker = true;
        cat.kinds.insert("card".into(), card);
        let mut mail = cat.kinds["img"].clone();
        mail.sends = true;
        cat.kinds.insert("mail".into(), mail);
        let txt = "/home/user/Documents/Pancakes.txt";
        let attach = |id: &str, app: &str, kind: &str, name: &str| Subtask {
            instruction_template: format!("In {app}, add '{{{kind}}}' with '{{txt}}' attached."),
            ..subtask(id, app, &["txt"], &[kind], &[&[("txt", txt), (kind, name)]])
        };
        let subs = vec![
            subtask(
                "export",
                "Recipes",
                &["img"],
                &["txt"],
                &[&[("img", "Pancakes"), ("txt", txt)]],
            ),
            attach("card", "Kanban", "card", "Share pancakes recipe"),
            attach("mail", "Mail", "mail", "Pancakes for Sunday"),
        ];
        let initial: BTreeSet<Resource> = [Resource::new("img", Some("Pancakes".into()))].into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let find = |id: &str| pool.find(&SubtaskId(id.into()), 0).unwrap();
        assert!(
            findings(&pool, &[find("export"), find("card")]).contains(&(
                0,
                1,
                PointlessKind::ConvertedToCarry
            )),
            "the card could name the recipe"
        );
        assert!(
            !findings(&pool, &[find("export"), find("mail")])
                .iter()
                .any(|f| f.2 == PointlessKind::ConvertedToCarry),
            "a mail takes the recipe to someone without the application"
        );
    }

    #[test]
    fn a_message_carries_a_file_not_its_whole_text_pasted() {
        let mut cat = office_catalog();
        cat.kinds.get_mut("clip").unwrap().holder = Some("clipboard".into());
        cat.kinds.get_mut("clip").unwrap().quoted = true;
        // `img` stands for a chat message here, `doc` for a deck.
        cat.kinds.get_mut("img").unwrap().sends = true;
        let pdf = "/home/user/Documents/lease.pdf";
        let subs = vec![
            subtask("copy", "PDF Tool", &["pdf"], &["clip"], &[&[("pdf", pdf)]]),
            subtask(
                "chat",
                "Chat",
                &["clip"],
                &["img"],
                &[&[("img", "to Alice")]],
            ),
            subtask(
                "slide",
                "Slides",
                &["clip"],
                &["doc"],
                &[&[("doc", "/home/user/Documents/lease_notes.docx")]],
            ),
        ];
        let initial: BTreeSet<Resource> = [Resource::new("pdf", Some(pdf.into()))].into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let find = |id: &str| pool.find(&SubtaskId(id.into()), 0).unwrap();
        assert!(
            findings(&pool, &[find("copy"), find("chat")]).contains(&(
                0,
                1,
                PointlessKind::ConvertedToCarry
            )),
            "the chat could carry the lease"
        );
        assert!(
            !findings(&pool, &[find("copy"), find("slide")])
                .iter()
                .any(|f| f.2 == PointlessKind::ConvertedToCarry),
            "the text is worked into a document"
        );
    }

    #[test]
    fn a_web_page_is_not_saved_only_to_be_mailed() {
        let mut cat = office_catalog();
        cat.kinds.get_mut("pdf").unwrap().print = true;
        let mut page = cat.kinds["address"].clone();
        page.typed = false;
        page.linked = true;
        cat.kinds.insert("page".into(), page);
        let mut html = cat.kinds["doc"].clone();
        html.file_kinds = vec!["html".into()];
        cat.kinds.insert("html".into(), html);
        let url = "https://travel.example.com/lisbon";
        let subs = vec![
            subtask(
                "save",
                "Browser",
                &["page"],
                &["html"],
                &[&[("page", url), ("html", "/home/user/Downloads/lisbon.html")]],
            ),
            subtask(
                "print",
                "Browser",
                &["page"],
                &["pdf"],
                &[&[("page", url), ("pdf", "/home/user/Downloads/lisbon.pdf")]],
            ),
            // `img` stands for a record here: a mail sent.
            Subtask {
                instruction_template: "In Mail, send '{img}' with '{html}' attached.".into(),
                ..subtask(
                    "mail_html",
                    "Mail",
                    &["html"],
                    &["img"],
                    &[&[
                        ("html", "/home/user/Downloads/lisbon.html"),
                        ("img", "sent a"),
                    ]],
                )
            },
            // A recipe (`img` again) imported from the saved page takes its content in.
            subtask(
                "import",
                "Recipes",
                &["html"],
                &["img"],
                &[&[
                    ("html", "/home/user/Downloads/lisbon.html"),
                    ("img", "Lisbon"),
                ]],
            ),
            subtask(
                "mail_pdf",
                "Mail",
                &["pdf"],
                &["img"],
                &[&[
                    ("pdf", "/home/user/Downloads/lisbon.pdf"),
                    ("img", "sent b"),
                ]],
            ),
            Subtask {
                instruction_template: "In Archiver, compress '{html}' into '{zip}'.".into(),
                ..subtask(
                    "zip",
                    "Archiver",
                    &["html"],
                    &["zip"],
                    &[&[
                        ("html", "/home/user/Downloads/lisbon.html"),
                        ("zip", "/home/user/Downloads/lisbon.zip"),
                    ]],
                )
            },
            Subtask {
                instruction_template: "In Mail, send '{img}' with '{zip}' attached.".into(),
                ..subtask(
                    "mail_zip",
                    "Mail",
                    &["zip"],
                    &["img"],
                    &[&[
                        ("zip", "/home/user/Downloads/lisbon.zip"),
                        ("img", "sent c"),
                    ]],
                )
            },
        ];
        let initial: BTreeSet<Resource> = [Resource::new("page", Some(url.into()))].into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let find = |id: &str| pool.find(&SubtaskId(id.into()), 0).unwrap();
        assert_eq!(
            findings(&pool, &[find("save"), find("mail_html")]),
            vec![(0, 1, PointlessKind::ConvertedToCarry)],
            "the mail could carry the link"
        );
        assert!(
            findings(&pool, &[find("print"), find("mail_pdf")]).is_empty(),
            "a page printed to PDF is made to be sent"
        );
        assert!(
            findings(&pool, &[find("save"), find("import")]).is_empty(),
            "the page's content is taken in"
        );
        assert!(
            findings(&pool, &[find("save"), find("zip"), find("mail_zip")]).contains(&(
                0,
                1,
                PointlessKind::ConvertedToCarry
            )),
            "the page zipped and mailed: the mail could carry the link"
        );
    }

    #[test]
    fn a_given_address_is_not_opened_only_to_copy_it() {
        let mut cat = office_catalog();
        let mut page = cat.kinds["address"].clone();
        page.typed = false;
        page.linked = true;
        cat.kinds.insert("page".into(), page);
        cat.kinds.get_mut("clip").unwrap().holder = Some("clipboard".into());
        let mut text = cat.kinds["clip"].clone();
        text.quoted = true;
        cat.kinds.insert("text".into(), text);
        let url = "https://docs.example.com";
        let copy = |id: &str, what: &str, out: &str| Subtask {
            instruction_template: format!("open a web address '{{page}}', then copy {what}"),
            ..subtask(id, "Browser", &["page"], &[out], &[&[("page", url)]])
        };
        let subs = vec![
            copy("copy_link", "the address", "clip"),
            copy("copy_text", "the page text", "text"),
            // `img` stands for a chat message sent.
            subtask(
                "send_link",
                "Chat",
                &["clip"],
                &["img"],
                &[&[("img", "sent a")]],
            ),
            subtask(
                "send_text",
                "Chat",
                &["text"],
                &["img"],
                &[&[("img", "sent b")]],
            ),
        ];
        let initial: BTreeSet<Resource> = [Resource::new("page", Some(url.into()))].into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let find = |id: &str| pool.find(&SubtaskId(id.into()), 0).unwrap();
        let nodes = [find("copy_link"), find("send_link")];
        assert!(
            pointless(&pool, &nodes, &[true, false])
                .into_iter()
                .any(|p| (p.a, p.b, p.kind) == (0, 0, PointlessKind::CopiedGiven)),
            "the chat could take the address as given"
        );
        assert!(PointlessKind::CopiedGiven.lasting());
        let nodes = [find("copy_text"), find("send_text")];
        assert!(
            !pointless(&pool, &nodes, &[true, false])
                .iter()
                .any(|p| p.kind == PointlessKind::CopiedGiven),
            "the page's text is its content, not the address"
        );
    }

    #[test]
    fn one_person_gets_one_message() {
        let mut cat = office_catalog();
        cat.kinds.get_mut("img").unwrap().sends = true;
        let mail = |id: &str, to: &str, file: &str, sent: &str| Subtask {
            instruction_template: "In Mail, send '{img}' to '{address}' with '{pdf}' attached."
                .into(),
            ..subtask(
                id,
                "Mail",
                &["address", "pdf"],
                &["img"],
                &[&[("address", to), ("pdf", file), ("img", sent)]],
            )
        };
        let (a, b) = ("/home/user/Documents/a.pdf", "/home/user/Documents/b.pdf");
        let subs = vec![
            mail("bob_a", "bob@example.com", a, "sent a"),
            mail("bob_b", "bob@example.com", b, "sent b"),
            mail("carol_b", "carol@example.com", b, "sent c"),
        ];
        let initial: BTreeSet<Resource> = [
            Resource::new("pdf", Some(a.into())),
            Resource::new("pdf", Some(b.into())),
            Resource::new("address", Some("bob@example.com".into())),
            Resource::new("address", Some("carol@example.com".into())),
        ]
        .into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let find = |id: &str| pool.find(&SubtaskId(id.into()), 0).unwrap();
        let kinds = |nodes: &[usize]| {
            pointless(&pool, nodes, &[false, false])
                .into_iter()
                .map(|p| (p.a, p.b, p.kind))
                .collect::<Vec<_>>()
        };
        assert!(
            kinds(&[find("bob_a"), find("bob_b")]).contains(&(0, 1, PointlessKind::SentTwiceToOne)),
            "Bob could get one mail with both files"
        );
        assert!(
            !kinds(&[find("bob_a"), find("carol_b")])
                .iter()
                .any(|k| k.2 == PointlessKind::SentTwiceToOne),
            "two people, two mails"
        );
    }

    #[test]
    fn a_file_made_in_the_task_is_not_filed_beside_its_result() {
        let mut cat = office_catalog();
        let mut note = cat.kinds["img"].clone();
        note.file_kinds = vec![];
        note.tracker = true;
        let mut wallpaper = note.clone();
        wallpaper.tracker = false;
        wallpaper.setting = true;
        cat.kinds.insert("note".into(), note);
        cat.kinds.insert("wallpaper".into(), wallpaper);
        let (csv, pdf) = ("/home/user/Documents/l.txt", "/home/user/Documents/l.pdf");
        let subs = vec![
            subtask(
                "export",
                "Finance",
                &["doc"],
                &["txt"],
                &[&[("doc", "/home/user/Documents/l.docx"), ("txt", csv)]],
            ),
            subtask(
                "print",
                "Writer",
                &["txt"],
                &["pdf"],
                &[&[("txt", csv), ("pdf", pdf)]],
            ),
            subtask(
                "keep",
                "Notes",
                &["txt"],
                &["note"],
                &[&[("txt", csv), ("note", "Reference: ledger")]],
            ),
            subtask(
                "wallpaper",
                "Photos",
                &["txt"],
                &["wallpaper"],
                &[&[("txt", csv), ("wallpaper", "wallpaper=l.txt")]],
            ),
        ];
        let initial: BTreeSet<Resource> = [Resource::new(
            "doc",
            Some("/home/user/Documents/l.docx".into()),
        )]
        .into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let find = |id: &str| pool.find(&SubtaskId(id.into()), 0).unwrap();
        let beside = |nodes: &[usize], has_successor: &[bool]| {
            pointless(&pool, nodes, has_successor)
                .into_iter()
                .filter(|p| p.kind == PointlessKind::FiledBeside)
                .map(|p| p.a)
                .collect::<Vec<_>>()
        };
        let (export, print, keep) = (find("export"), find("print"), find("keep"));
        assert_eq!(
            beside(&[export, print, keep], &[true, false, false]),
            vec![2],
            "the ledger printed, and its text also kept in a note"
        );
        assert!(
            beside(&[export, keep], &[true, false]).is_empty(),
            "keeping the exported ledger in a note is the whole task"
        );
        let wallpaper = find("wallpaper");
        assert_eq!(
            beside(&[export, print, wallpaper], &[true, false, false]),
            vec![2],
            "the ledger printed, and also made the wallpaper: two goals"
        );
        assert!(
            beside(&[export, wallpaper], &[true, false]).is_empty(),
            "the new wallpaper is the whole task"
        );
        assert!(
            !PointlessKind::FiledBeside.lasting(),
            "a node that goes on from the other result ends the side work"
        );
    }

    #[test]
    fn a_given_picture_is_not_opened_only_to_copy_it() {
        let mut cat = office_catalog();
        let mut png = cat.kinds["doc"].clone();
        png.file_kinds = vec!["png".into()];
        cat.kinds.insert("png".into(), png);
        cat.kinds.get_mut("clip").unwrap().holder = Some("clipboard".into());
        let pic = "/home/user/Pictures/beach.png";
        let small = "/home/user/Pictures/beach_small.png";
        let doc = "/home/user/Documents/trip.docx";
        let paste = |id: &str, out: &str| {
            Subtask {
            instruction_template: "open a document '{doc}', then paste the copied image into the document, then save it as '{pdf}'".into(),
            ..subtask(id, "Writer", &["doc", "clip"], &["pdf"], &[&[("doc", doc), ("pdf", out)]])
        }
        };
        let subs = vec![
            Subtask {
                instruction_template: "view a picture '{png}', then copy the picture".into(),
                ..subtask("copy", "Photos", &["png"], &["clip"], &[&[("png", pic)], &[("png", small)]])
            },
            Subtask {
                instruction_template: "open an image '{png}', then resize the image to half, then save it as '{new_png}'".into(),
                ..subtask(
                    "resize",
                    "Image Editor",
                    &["png"],
                    &["png:new_png"],
                    &[&[("png", pic), ("new_png", small)]],
                )
            },
            paste("paste", "/home/user/Documents/trip.pdf"),
            Subtask {
                instruction_template:
                    "open an image '{png}', then resize the image to half, then copy the image"
                        .into(),
                ..subtask("shrink_copy", "Image Editor", &["png"], &["clip"], &[&[("png", pic)]])
            },
        ];
        let initial: BTreeSet<Resource> = [
            Resource::new("png", Some(pic.into())),
            Resource::new("doc", Some(doc.into())),
        ]
        .into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let find = |id: &str, p: usize| pool.find(&SubtaskId(id.into()), p).unwrap();
        let given = [find("copy", 0), find("paste", 0)];
        assert!(
            pointless(&pool, &given, &[true, false])
                .into_iter()
                .any(|p| (p.a, p.b, p.kind) == (0, 0, PointlessKind::CopiedGiven)),
            "the document could take the picture from its file"
        );
        let made = [find("resize", 0), find("copy", 1), find("paste", 0)];
        assert!(
            pointless(&pool, &made, &[true, true, false])
                .iter()
                .any(|p| (p.a, p.kind) == (1, PointlessKind::CopiedGiven)),
            "the resized picture's file can be inserted as well"
        );
        let edited = [find("shrink_copy", 0), find("paste", 0)];
        assert!(
            !pointless(&pool, &edited, &[true, false])
                .iter()
                .any(|p| p.kind == PointlessKind::CopiedGiven),
            "a picture resized in the node that copies it is work of its own"
        );
    }

    #[test]
    fn an_edited_copy_is_used_when_others_use_the_original() {
        let mut cat = office_catalog();
        let mut sent = cat.kinds["img"].clone();
        sent.file_kinds = vec![];
        sent.sends = true;
        cat.kinds.insert("sent".into(), sent);
        cat.kinds.get_mut("pdf").unwrap().print = true;
        let docx = "/home/user/Documents/a.docx";
        let centred = "/home/user/Documents/a_centered.docx";
        let subs = vec![
            subtask(
                "centre",
                "Writer",
                &["doc"],
                &["doc:new"],
                &[&[("doc", docx), ("new", centred)]],
            ),
            subtask(
                "mail",
                "Mail",
                &["doc"],
                &["img"],
                &[
                    &[("doc", docx), ("img", "sent a")],
                    &[("doc", centred), ("img", "sent b")],
                ],
            ),
            subtask(
                "print",
                "PDF Tool",
                &["doc"],
                &["pdf"],
                &[&[("doc", docx), ("pdf", "/home/user/Documents/a.pdf")]],
            ),
            subtask(
                "send",
                "Chat",
                &["doc"],
                &["sent"],
                &[&[("doc", docx), ("sent", "Carol")]],
            ),
        ];
        let initial: BTreeSet<Resource> = [Resource::new("doc", Some(docx.into()))].into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let find = |id: &str, i| pool.find(&SubtaskId(id.into()), i).unwrap();
        let kinds = |nodes: &[usize], succ: &[bool]| -> Vec<(usize, usize, PointlessKind)> {
            pointless(&pool, nodes, succ)
                .into_iter()
                .map(|p| (p.a, p.b, p.kind))
                .collect()
        };
        let (centre, mail_a, mail_b) = (find("centre", 0), find("mail", 0), find("mail", 1));
        assert_eq!(
            kinds(&[centre, mail_a], &[false, false]),
            vec![(0, 1, PointlessKind::UnusedEdit)],
            "the original mailed, the centred copy left behind"
        );
        assert!(
            !PointlessKind::UnusedEdit.lasting(),
            "a reader of the copy ties it up"
        );
        assert!(
            kinds(&[centre, mail_b, mail_a], &[true, false, false]).is_empty(),
            "the copy mailed too"
        );
        assert_eq!(
            kinds(&[find("print", 0), mail_a], &[false, false]),
            vec![(0, 1, PointlessKind::UnusedEdit)],
            "a PDF printed and left behind while the document itself is mailed"
        );
        assert!(
            kinds(&[find("print", 0), mail_a], &[true, false]).is_empty(),
            "the print used by a node after it"
        );
        assert_eq!(
            kinds(&[find("print", 0), find("send", 0)], &[false, false]),
            vec![(0, 1, PointlessKind::UnusedEdit)],
            "a PDF printed and left behind while the document is sent in the chat"
        );
        assert!(
            kinds(&[centre], &[false]).is_empty(),
            "nothing else reads a.docx"
        );
    }

    #[test]
    fn a_restyled_copy_left_behind_while_the_plain_file_is_packed_is_unused() {
        let cat = office_catalog();
        let txt = "/home/user/Documents/list.txt";
        let subs = vec![
            subtask(
                "heading",
                "Writer",
                &["txt"],
                &["doc"],
                &[&[("txt", txt), ("doc", "/home/user/Documents/list.docx")]],
            ),
            subtask(
                "pack",
                "Archiver",
                &["txt"],
                &["zip"],
                &[&[("txt", txt), ("zip", "/home/user/Documents/moving.zip")]],
            ),
        ];
        let initial: BTreeSet<Resource> = [Resource::new("txt", Some(txt.into()))].into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let find = |id: &str| pool.find(&SubtaskId(id.into()), 0).unwrap();
        let unused = |nodes: &[usize], succ: &[bool]| {
            pointless(&pool, nodes, succ)
                .iter()
                .any(|p| (p.a, p.b, p.kind) == (0, 1, PointlessKind::UnusedEdit))
        };
        assert!(
            unused(&[find("heading"), find("pack")], &[false, true]),
            "the heading's .docx left behind, the plain file zipped"
        );
        assert!(
            !unused(&[find("heading"), find("pack")], &[true, true]),
            "the .docx used by a node after it"
        );
    }

    #[test]
    fn a_document_is_not_taken_through_plain_text() {
        let cat = office_catalog();
        let pdf = "/home/user/Documents/a.pdf";
        let txt = "/home/user/Documents/a.txt";
        let notes = "/home/user/Documents/notes.txt";
        let subs = vec![
            subtask(
                "to_text",
                "PDF Tool",
                &["pdf"],
                &["txt"],
                &[&[("pdf", pdf), ("txt", txt), ("comment", "check")]],
            ),
            subtask(
                "to_doc",
                "Writer",
                &["txt"],
                &["doc"],
                &[
                    &[
                        ("txt", txt),
                        ("doc", "/home/user/Documents/a.docx"),
                        ("title", "A"),
                    ],
                    &[
                        ("txt", notes),
                        ("doc", "/home/user/Documents/n.docx"),
                        ("title", "N"),
                    ],
                ],
            ),
        ];
        let initial: BTreeSet<Resource> = [
            Resource::new("pdf", Some(pdf.into())),
            Resource::new("txt", Some(notes.into())),
        ]
        .into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let find = |id: &str, i| pool.find(&SubtaskId(id.into()), i).unwrap();
        let found = |nodes: &[usize]| -> Vec<(usize, usize, PointlessKind)> {
            pointless(&pool, nodes, &[true, false][2 - nodes.len()..])
                .into_iter()
                .map(|p| (p.a, p.b, p.kind))
                .collect()
        };
        assert_eq!(
            found(&[find("to_text", 0), find("to_doc", 0)]),
            vec![(0, 1, PointlessKind::ChainedConversion)],
            "PDF → text → Word document loses the layout, whatever each adds"
        );
        assert!(
            found(&[find("to_doc", 1)]).is_empty(),
            "a text file of the desktop made a Word document"
        );
    }

    #[test]
    fn a_file_changes_format_once_and_never_back() {
        let cat = office_catalog();
        let docx = "/home/user/Documents/a.docx";
        let pdf = "/home/user/Documents/a.pdf";
        let signed = "/home/user/Documents/a_signed.pdf";
        let subs = vec![
            subtask(
                "export",
                "Writer",
                &["doc"],
                &["pdf"],
                &[&[("doc", docx), ("pdf", pdf)]],
            ),
            subtask(
                "convert",
                "PDF Tool",
                &["pdf"],
                &["doc"],
                &[&[("pdf", pdf), ("doc", "/home/user/Documents/a_2.docx")]],
            ),
            subtask(
                "sign",
                "PDF Tool",
                &["pdf"],
                &["pdf:new_pdf"],
                &[&[("pdf", pdf), ("new_pdf", signed)]],
            ),
            subtask(
                "zip",
                "Archiver",
                &["pdf"],
                &["zip"],
                &[&[("pdf", signed), ("zip", "/home/user/Documents/a.zip")]],
            ),
        ];
        let initial: BTreeSet<Resource> = [Resource::new("doc", Some(docx.into()))].into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let find = |id: &str| pool.find(&SubtaskId(id.into()), 0).unwrap();
        let shuffles = |nodes: &[usize]| -> Vec<(usize, usize)> {
            pointless(&pool, nodes, &vec![true; nodes.len()])
                .into_iter()
                .filter(|p| p.kind == PointlessKind::FormatShuffle)
                .map(|p| (p.a, p.b))
                .collect()
        };
        assert_eq!(
            shuffles(&[find("export"), find("convert")]),
            vec![(0, 1)],
            "a document exported as PDF and converted back to a document"
        );
        assert!(
            shuffles(&[find("export"), find("sign"), find("zip")]).is_empty(),
            "exported, signed and packed: one change of format"
        );
        assert!(shuffles_with(
            &pool,
            &[find("export") as u32],
            find("convert") as u32
        ));
        assert!(!shuffles_with(
            &pool,
            &[find("export") as u32],
            find("sign") as u32
        ));
    }

    #[test]
    fn a_record_takes_pasted_content_only_under_its_own_name() {
        let mut cat = tiny_catalog();
        cat.kinds.get_mut("clip").unwrap().holder = Some("clipboard".into());
        // Copied text quotes what it came from (a `quoted` clipboard kind).
        cat.kinds.get_mut("clip").unwrap().quoted = true;
        // "img" stands for a recipe here: a parameterised kind, no file.
        let page = [("url", "https://recipes.example.com/lentil-soup")];
        let subs = vec![
            subtask("copy", "Browser", &[], &["clip"], &[&page]),
            subtask(
                "add",
                "Recipes",
                &["clip"],
                &["img"],
                &[
                    &[("img", "Lentil soup")],
                    &[("img", "Red lentil curry")],
                    &[("img", "Hi")],
                    &[("img", "Lentil salad")],
                ],
            ),
        ];
        let pool = Pool::new(&cat, &subs, &BTreeSet::new()).unwrap();
        let find = |id: &str, i| pool.find(&SubtaskId(id.into()), i).unwrap();
        let copy = find("copy", 0);
        assert!(findings(&pool, &[copy, find("add", 0)]).is_empty());
        assert_eq!(
            findings(&pool, &[copy, find("add", 1)]),
            vec![(0, 1, PointlessKind::PastedUnderAnotherName)],
            "the lentil soup page as a curry's steps"
        );
        assert!(
            findings(&pool, &[copy, find("add", 2)]).is_empty(),
            "a name of no word of three letters says nothing"
        );
        assert_eq!(
            findings(&pool, &[copy, find("add", 3)]),
            vec![(0, 1, PointlessKind::PastedUnderAnotherName)],
            "the lentil soup page as a salad's steps"
        );
        // Another recipe's text, through a file and a copy of it.
        cat.kinds.get_mut("doc").unwrap().file_kinds = vec!["txt".into()];
        let subs = vec![
            subtask(
                "export",
                "Recipes",
                &["img"],
                &["doc"],
                &[&[("img", "Pancakes"), ("doc", "/home/user/pancakes.txt")]],
            ),
            subtask(
                "copy",
                "Writer",
                &["doc"],
                &["clip"],
                &[&[("doc", "/home/user/pancakes.txt")]],
            ),
            subtask(
                "add",
                "Recipes",
                &["clip"],
                &["img"],
                &[&[("img", "Oat pancakes")]],
            ),
        ];
        let initial: BTreeSet<Resource> = [Resource::new("img", Some("Pancakes".into()))].into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let find = |id: &str| pool.find(&SubtaskId(id.into()), 0).unwrap();
        assert_eq!(
            findings(&pool, &[find("export"), find("copy"), find("add")]),
            vec![(1, 2, PointlessKind::PastedUnderAnotherName)],
            "the Pancakes recipe's text as the steps of 'Oat pancakes'"
        );
    }

    #[test]
    fn two_files_of_one_origin_are_not_joined() {
        let cat = office_catalog();
        let url = [("address", "https://recipes.example.com/soup")];
        let subs = vec![
            subtask(
                "print",
                "Browser",
                &["address"],
                &["pdf"],
                &[&[url[0], ("pdf", "/home/user/page.pdf")]],
            ),
            subtask(
                "save",
                "Reader",
                &["address"],
                &["pdf"],
                &[&[url[0], ("pdf", "/home/user/soup.pdf")]],
            ),
            subtask(
                "merge",
                "PDF Tool",
                &["pdf", "pdf:other_pdf"],
                &["pdf:new_pdf"],
                &[&[
                    ("pdf", "/home/user/soup.pdf"),
                    ("other_pdf", "/home/user/page.pdf"),
                    ("new_pdf", "/home/user/both.pdf"),
                ]],
            ),
        ];
        let initial: BTreeSet<Resource> = [Resource::new("address", Some(url[0].1.into()))].into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let find = |id: &str| pool.find(&SubtaskId(id.into()), 0).unwrap();
        let found = findings(&pool, &[find("print"), find("save"), find("merge")]);
        assert!(
            found
                .iter()
                .any(|f| f.2 == PointlessKind::RoundTrip && f.1 == 2),
            "{found:?}"
        );
    }

    #[test]
    fn two_documents_with_one_picture_merged_are_no_content_twice() {
        let mut cat = office_catalog();
        let mut png = cat.kinds["doc"].clone();
        png.file_kinds = vec!["png".into()];
        cat.kinds.insert("png".into(), png);
        let photo = "/home/user/Pictures/demo.png";
        let cropped = "/home/user/Pictures/demo_cropped.png";
        let into = |id: &str, app: &str, doc: &str, pdf: &str| {
            subtask(
                id,
                app,
                &["doc", "png"],
                &["pdf"],
                &[&[("doc", doc), ("png", cropped), ("pdf", pdf)]],
            )
        };
        let subs = vec![
            subtask(
                "crop",
                "Image Editor",
                &["png"],
                &["png:new_png"],
                &[&[("png", photo), ("new_png", cropped)]],
            ),
            into(
                "brief",
                "Writer",
                "/home/user/Documents/brief.docx",
                "/home/user/Documents/brief.pdf",
            ),
            into(
                "deck",
                "Slides",
                "/home/user/Documents/deck.docx",
                "/home/user/Documents/deck.pdf",
            ),
            subtask(
                "merge",
                "PDF Tool",
                &["pdf", "pdf:other_pdf"],
                &["pdf:new_pdf"],
                &[&[
                    ("pdf", "/home/user/Documents/brief.pdf"),
                    ("other_pdf", "/home/user/Documents/deck.pdf"),
                    ("new_pdf", "/home/user/Documents/launch.pdf"),
                ]],
            ),
        ];
        let initial: BTreeSet<Resource> = [
            Resource::new("png", Some(photo.into())),
            Resource::new("doc", Some("/home/user/Documents/brief.docx".into())),
            Resource::new("doc", Some("/home/user/Documents/deck.docx".into())),
        ]
        .into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let find = |id: &str| pool.find(&SubtaskId(id.into()), 0).unwrap();
        let nodes = [find("crop"), find("brief"), find("deck"), find("merge")];
        let found = findings(&pool, &nodes);
        assert!(
            !found.iter().any(|f| f.2 == PointlessKind::RoundTrip),
            "the brief and the deck are two documents: {found:?}"
        );
    }

    #[test]
    fn a_mail_carries_a_file_or_what_was_made_of_it_not_both() {
        let mut cat = office_catalog();
        cat.kinds.get_mut("img").unwrap().sends = true;
        let txt = "/home/user/Documents/recipe.txt";
        let pdf = "/home/user/Documents/recipe.pdf";
        let other = "/home/user/Documents/other.pdf";
        let subs = vec![
            subtask(
                "print",
                "Writer",
                &["txt"],
                &["pdf"],
                &[&[("txt", txt), ("pdf", pdf)]],
            ),
            // "img" stands for a sent mail here.
            subtask(
                "mail",
                "Mail",
                &["txt", "pdf"],
                &["img"],
                &[
                    &[("txt", txt), ("pdf", pdf), ("img", "Recipe")],
                    &[("txt", txt), ("pdf", other), ("img", "Both")],
                ],
            ),
        ];
        let initial: BTreeSet<Resource> = [
            Resource::new("txt", Some(txt.into())),
            Resource::new("pdf", Some(other.into())),
        ]
        .into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let find = |id: &str, i| pool.find(&SubtaskId(id.into()), i).unwrap();
        assert!(
            findings(&pool, &[find("print", 0), find("mail", 0)]).contains(&(
                0,
                1,
                PointlessKind::RoundTrip
            ))
        );
        assert!(
            findings(&pool, &[find("mail", 1)]).is_empty(),
            "two files of their own"
        );
    }

    #[test]
    fn one_page_opened_twice_is_one_visit_too_many() {
        let mut cat = office_catalog();
        cat.kinds.get_mut("clip").unwrap().holder = Some("clipboard".into());
        let page = "/home/user/Downloads/page.txt";
        let subs = vec![
            subtask(
                "save",
                "Browser",
                &["txt"],
                &["pdf"],
                &[&[("txt", page), ("pdf", "/home/user/Downloads/page.pdf")]],
            ),
            subtask("copy", "Browser", &["txt"], &["clip"], &[&[("txt", page)]]),
            subtask(
                "copy_elsewhere",
                "Writer",
                &["txt"],
                &["clip"],
                &[&[("txt", page)]],
            ),
            subtask(
                "print_elsewhere",
                "Writer",
                &["txt"],
                &["doc"],
                &[&[("txt", page), ("doc", "/home/user/Documents/page.docx")]],
            ),
            subtask(
                "insert",
                "Slides",
                &["doc", "txt"],
                &["pdf"],
                &[&[
                    ("doc", "/home/user/Documents/deck.docx"),
                    ("txt", page),
                    ("pdf", "/home/user/Documents/deck.pdf"),
                ]],
            ),
        ];
        let initial: BTreeSet<Resource> = [
            Resource::new("txt", Some(page.into())),
            Resource::new("doc", Some("/home/user/Documents/deck.docx".into())),
        ]
        .into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let find = |id: &str| pool.find(&SubtaskId(id.into()), 0).unwrap();
        let two = |a: &str, b: &str| {
            findings(&pool, &[find(a), find(b)])
                .iter()
                .any(|f| f.2 == PointlessKind::TwoVisits)
        };
        assert!(two("save", "copy"), "one application, one page");
        assert!(
            two("save", "copy_elsewhere"),
            "opened elsewhere only to copy it"
        );
        // Two applications each making something of one file: a hub, not a
        // repeat; nor is a file the other node only joins in.
        assert!(!two("save", "print_elsewhere"));
        assert!(!two("copy_elsewhere", "insert"));
    }

    #[test]
    fn a_record_holding_a_file_is_not_saved_as_plain_text() {
        let cat = office_catalog();
        // "img" stands for a note here: a parameterised kind, no file.
        let subs = vec![
            subtask(
                "attach",
                "Notes",
                &["pdf"],
                &["img"],
                &[&[("pdf", "/home/user/a.pdf"), ("img", "Reference: a")]],
            ),
            subtask("write", "Notes", &[], &["img"], &[&[("img", "Groceries")]]),
            subtask(
                "export",
                "Notes",
                &["img"],
                &["txt"],
                &[
                    &[("img", "Reference: a"), ("txt", "/home/user/a_note.txt")],
                    &[("img", "Groceries"), ("txt", "/home/user/groceries.txt")],
                ],
            ),
        ];
        let mut subs = subs;
        subs[0].instruction_template =
            "In Notes, create a note '{img}' with '{pdf}' attached.".into();
        // A note that takes a file's content in keeps it.
        let mut took_in = subs[0].clone();
        took_in.id = SubtaskId("take_in".into());
        took_in.instruction_template =
            "In Notes, create a note '{img}' containing the text of '{pdf}'.".into();
        subs.push(took_in);
        let initial: BTreeSet<Resource> =
            [Resource::new("pdf", Some("/home/user/a.pdf".into()))].into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let find = |id: &str, i| pool.find(&SubtaskId(id.into()), i).unwrap();
        assert_eq!(
            findings(&pool, &[find("attach", 0), find("export", 0)]),
            vec![(0, 1, PointlessKind::AttachmentLeftBehind)]
        );
        assert!(findings(&pool, &[find("write", 0), find("export", 1)]).is_empty());
        assert!(findings(&pool, &[find("take_in", 0), find("export", 0)]).is_empty());
    }

    #[test]
    fn a_message_carries_a_file_and_text_copied_from_that_file_only() {
        let mut cat = tiny_catalog();
        cat.kinds.get_mut("doc").unwrap().file_kinds = vec!["txt".into()];
        cat.kinds.get_mut("clip").unwrap().holder = Some("clipboard".into());
        // Copied text quotes its file (a `quoted` clipboard kind).
        cat.kinds.get_mut("clip").unwrap().quoted = true;
        cat.kinds.get_mut("img").unwrap().sends = true;
        let a = [("doc", "/home/user/Documents/a.txt")];
        let b = [("doc", "/home/user/Documents/b.txt")];
        let b_sent = [("doc", "/home/user/Documents/b.txt"), ("img", "news")];
        let subs = vec![
            subtask("copy", "Writer", &["doc"], &["clip"], &[&a, &b]),
            subtask("mail", "Mail", &["doc", "clip"], &["img"], &[&b_sent]),
            subtask("paste", "Slides", &["doc", "clip"], &["doc"], &[&b]),
            subtask(
                "shell",
                "Terminal",
                &[],
                &["clip"],
                &[&[("cmd", "cat ~/Documents/b.txt")]],
            ),
        ];
        // "img" stands for a sent message here: a parameterised kind, no file.
        let initial: BTreeSet<Resource> = [
            Resource::new("doc", Some("/home/user/Documents/a.txt".into())),
            Resource::new("doc", Some("/home/user/Documents/b.txt".into())),
        ]
        .into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let find = |id: &str, i| pool.find(&SubtaskId(id.into()), i).unwrap();
        let (copy_a, copy_b) = (find("copy", 0), find("copy", 1));
        let (mail, paste, shell) = (find("mail", 0), find("paste", 0), find("shell", 0));
        let kinds = |nodes: &[usize]| findings(&pool, nodes);
        assert_eq!(
            kinds(&[copy_a, mail]),
            vec![(0, 1, PointlessKind::UnrelatedPaste)],
            "a.txt's text sent with b.txt attached"
        );
        assert!(kinds(&[copy_b, mail]).is_empty(), "b.txt's own text");
        assert!(kinds(&[shell, mail]).is_empty(), "the shell printed b.txt");
        assert!(
            kinds(&[copy_a, paste]).is_empty(),
            "pasting into a saved file edits it"
        );
    }

    #[test]
    fn an_archive_of_several_files_is_sent_not_left_in_a_folder() {
        let cat = office_catalog();
        let zip = "/home/user/Documents/kit.zip";
        let subs = vec![
            subtask(
                "export",
                "Writer",
                &["doc"],
                &["pdf"],
                &[&[
                    ("doc", "/home/user/Documents/a.docx"),
                    ("pdf", "/home/user/Documents/a.pdf"),
                ]],
            ),
            subtask(
                "pack",
                "Archiver",
                &["pdf", "txt"],
                &["zip"],
                &[&[
                    ("pdf", "/home/user/Documents/a.pdf"),
                    ("txt", "/home/user/Documents/notes.txt"),
                    ("zip", zip),
                ]],
            ),
            subtask(
                "mail",
                "Mail",
                &["zip"],
                &["img"],
                &[&[("zip", zip), ("img", "sent")]],
            ),
        ];
        let initial: BTreeSet<Resource> = [
            Resource::new("doc", Some("/home/user/Documents/a.docx".into())),
            Resource::new("txt", Some("/home/user/Documents/notes.txt".into())),
        ]
        .into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let find = |id: &str| pool.find(&SubtaskId(id.into()), 0).unwrap();
        let (export, pack, mail) = (find("export"), find("pack"), find("mail"));
        assert_eq!(
            pointless(&pool, &[export, pack], &[true, false])
                .into_iter()
                .map(|p| (p.a, p.kind))
                .collect::<Vec<_>>(),
            vec![(1, PointlessKind::UnsentArchive)],
            "a PDF and a note zipped and left there"
        );
        assert!(!PointlessKind::UnsentArchive.lasting(), "a mail ties it up");
        assert!(
            pointless(&pool, &[export, pack, mail], &[true, true, false]).is_empty(),
            "the zip mailed"
        );
    }

    #[test]
    fn conversions_in_a_row_lone_archives_and_round_trips_are_pointless() {
        let mut cat = office_catalog();
        cat.kinds.get_mut("clip").unwrap().holder = Some("clipboard".into());
        // Copied text quotes its file (a `quoted` clipboard kind).
        cat.kinds.get_mut("clip").unwrap().quoted = true;
        cat.kinds.get_mut("pdf").unwrap().print = true;
        let docx = "/home/user/Documents/a.docx";
        let pdf = "/home/user/Documents/a.pdf";
        let zip = "/home/user/Documents/a.zip";
        let subs = vec![
            subtask(
                "export",
                "Writer",
                &["doc"],
                &["pdf"],
                &[&[("doc", docx), ("pdf", pdf)]],
            ),
            subtask(
                "convert",
                "PDF Tool",
                &["pdf"],
                &["txt"],
                &[&[("pdf", pdf), ("txt", "/home/user/Documents/a.txt")]],
            ),
            subtask(
                "save",
                "PDF Tool",
                &["pdf"],
                &["doc"],
                &[&[("pdf", pdf), ("doc", "/home/user/Documents/a_word.docx")]],
            ),
            subtask(
                "pack",
                "Archiver",
                &["pdf"],
                &["zip"],
                &[&[("pdf", pdf), ("zip", zip)]],
            ),
            subtask(
                "mail",
                "Mail",
                &["zip"],
                &["img"],
                &[&[("zip", zip), ("img", "sent")]],
            ),
            subtask("copy", "PDF Tool", &["pdf"], &["clip"], &[&[("pdf", pdf)]]),
            Subtask {
                instruction_template: "open '{pdf}' and save it as '{final_pdf}'".into(),
                ..subtask(
                    "resave",
                    "PDF Tool",
                    &["pdf"],
                    &["pdf:final_pdf"],
                    &[&[
                        ("pdf", pdf),
                        ("final_pdf", "/home/user/Documents/a_final.pdf"),
                    ]],
                )
            },
            subtask(
                "paste",
                "Writer",
                &["doc", "clip"],
                &["doc"],
                &[&[("doc", docx)]],
            ),
        ];
        let initial: BTreeSet<Resource> = [Resource::new("doc", Some(docx.into()))].into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let find = |id: &str| pool.find(&SubtaskId(id.into()), 0).unwrap();
        let kinds = |nodes: &[&str], last_ends: bool| -> Vec<(usize, usize, PointlessKind)> {
            let nodes: Vec<usize> = nodes.iter().map(|n| find(n)).collect();
            let mut succ = vec![true; nodes.len()];
            *succ.last_mut().unwrap() = !last_ends;
            pointless(&pool, &nodes, &succ)
                .into_iter()
                .map(|p| (p.a, p.b, p.kind))
                .collect()
        };
        assert_eq!(
            kinds(&["export", "convert"], false),
            vec![(0, 1, PointlessKind::ChainedConversion)],
            "a document exported as PDF, the PDF converted to text"
        );
        assert_eq!(
            kinds(&["export", "pack"], true),
            vec![(1, 1, PointlessKind::LoneArchive)],
            "one PDF zipped and left there"
        );
        assert_eq!(
            kinds(&["export", "pack", "mail"], true),
            vec![(1, 1, PointlessKind::LoneArchive)],
            "a mail carries the PDF itself"
        );
        assert!(PointlessKind::LoneArchive.lasting());
        assert_eq!(
            kinds(&["convert"], true),
            vec![(0, 0, PointlessKind::TextOnlyCopy)],
            "a PDF converted to text and left there"
        );
        assert_eq!(
            kinds(&["save"], true),
            vec![(0, 0, PointlessKind::BareConversion)],
            "a PDF converted to a Word document and left there"
        );
        assert!(
            kinds(&["export"], true).is_empty(),
            "a document exported as PDF is a deliverable"
        );
        assert_eq!(
            kinds(&["export", "resave"], false),
            vec![(1, 1, PointlessKind::UnchangedCopy)],
            "the PDF saved again as another PDF, changing nothing"
        );
        assert!(PointlessKind::UnchangedCopy.lasting());
        assert_eq!(
            kinds(&["export", "copy", "paste"], false),
            vec![(1, 2, PointlessKind::RoundTrip)],
            "the document's own text pasted back into it"
        );
        assert!(
            kinds(&["copy", "paste"], false).is_empty(),
            "text of a PDF on the desktop pasted into a document"
        );
    }

    #[test]
    fn a_screen_capture_is_not_edited_like_a_photo() {
        let mut cat = office_catalog();
        cat.kinds.get_mut("img").unwrap().file_kinds = vec!["png".into()];
        let shot = "/home/user/Pictures/shot.png";
        let cropped = "/home/user/Pictures/shot_cropped.png";
        let photo = "/home/user/Pictures/photo.png";
        let subs = vec![
            subtask(
                "capture",
                "Screenshot Tool",
                &[],
                &["img"],
                &[&[("img", shot)]],
            ),
            subtask(
                "crop",
                "Image Editor",
                &["img"],
                &["img:new_img"],
                &[&[("img", shot), ("new_img", cropped)]],
            ),
            subtask(
                "blur",
                "Image Editor",
                &["img"],
                &["img:new_img"],
                &[
                    &[
                        ("img", shot),
                        ("new_img", "/home/user/Pictures/shot_blurred.png"),
                    ],
                    &[
                        ("img", cropped),
                        ("new_img", "/home/user/Pictures/c_blurred.png"),
                    ],
                    &[
                        ("img", photo),
                        ("new_img", "/home/user/Pictures/photo_blurred.png"),
                    ],
                ],
            ),
        ];
        let initial: BTreeSet<Resource> = [Resource::new("img", Some(photo.into()))].into();
        let mut pool = Pool::new(&cat, &subs, &initial).unwrap();
        pool.mark_contents(|s| match s.id.0.as_str() {
            "capture" => crate::graph::Content {
                makes: Some("screen capture".into()),
                ..Default::default()
            },
            "blur" => crate::graph::Content {
                suits: Some(vec!["photo".into()]),
                ..Default::default()
            },
            _ => crate::graph::Content::default(),
        });
        let find = |id: &str, i| pool.find(&SubtaskId(id.into()), i).unwrap();
        let kinds = |nodes: &[usize]| findings(&pool, nodes);
        let capture = find("capture", 0);
        assert_eq!(
            kinds(&[capture, find("blur", 0)]),
            vec![(0, 1, PointlessKind::UnsuitedEdit)],
            "a screenshot blurred"
        );
        assert_eq!(
            kinds(&[capture, find("crop", 0), find("blur", 1)]),
            vec![(0, 2, PointlessKind::UnsuitedEdit)],
            "a cropped screenshot is still a screenshot"
        );
        assert!(
            kinds(&[capture, find("crop", 0)]).is_empty(),
            "a screenshot cropped"
        );
        assert!(
            kinds(&[find("blur", 2)]).is_empty(),
            "a picture of the desktop blurred"
        );
    }

    #[test]
    fn a_capture_that_reads_nothing_is_blank() {
        let mut cat = tiny_catalog();
        cat.kinds.get_mut("img").unwrap().file_kinds = vec!["png".into()];
        let photo = "/home/user/Pictures/photo.png";
        let shot = "/home/user/Pictures/book_club.png";
        let subs = vec![
            subtask(
                "capture",
                "Screenshot Tool",
                &[],
                &["img"],
                &[&[("img", shot)]],
            ),
            subtask(
                "capture_shown",
                "Screenshot Tool",
                &["img"],
                &["img:new_img"],
                &[&[("img", photo), ("new_img", shot)]],
            ),
            subtask(
                "crop",
                "Image Editor",
                &["img"],
                &["img:new_img"],
                &[&[("img", shot), ("new_img", "/home/user/Pictures/c.png")]],
            ),
        ];
        let initial: BTreeSet<Resource> = [Resource::new("img", Some(photo.into()))].into();
        let mut pool = Pool::new(&cat, &subs, &initial).unwrap();
        pool.mark_contents(|s| crate::graph::Content {
            captures: s.id.0.starts_with("capture"),
            ..Default::default()
        });
        let find = |id: &str| pool.find(&SubtaskId(id.into()), 0).unwrap();
        assert_eq!(
            findings(&pool, &[find("capture"), find("crop")]),
            vec![(0, 0, PointlessKind::BlankCapture)],
            "a capture of the bare screen, cropped"
        );
        assert!(
            PointlessKind::BlankCapture.lasting(),
            "nothing later fills the screen it showed"
        );
        assert!(
            findings(&pool, &[find("capture_shown"), find("crop")]).is_empty(),
            "a capture of a picture the task opens"
        );
    }

    #[test]
    fn a_comment_goes_on_a_file_someone_handed_over() {
        let cat = office_catalog();
        let doc = "/home/user/Documents/deck.docx";
        let pdf = "/home/user/Documents/deck.pdf";
        let invoice = "/home/user/Downloads/invoice.pdf";
        let subs = vec![
            subtask(
                "export",
                "Writer",
                &["doc"],
                &["pdf"],
                &[&[("doc", doc), ("pdf", pdf)]],
            ),
            subtask(
                "comment",
                "PDF Tool",
                &["pdf"],
                &["pdf:out"],
                &[
                    &[
                        ("pdf", pdf),
                        ("out", "/home/user/Documents/deck_comment.pdf"),
                    ],
                    &[
                        ("pdf", invoice),
                        ("out", "/home/user/Downloads/invoice_comment.pdf"),
                    ],
                ],
            ),
        ];
        let initial: BTreeSet<Resource> = [
            Resource::new("doc", Some(doc.into())),
            Resource::new("pdf", Some(invoice.into())),
        ]
        .into();
        let mut pool = Pool::new(&cat, &subs, &initial).unwrap();
        pool.mark_contents(|s| crate::graph::Content {
            reviews: s.id.0 == "comment",
            ..Default::default()
        });
        let export = pool.find(&SubtaskId("export".into()), 0).unwrap();
        let own = pool.find(&SubtaskId("comment".into()), 0).unwrap();
        let handed = pool.find(&SubtaskId("comment".into()), 1).unwrap();
        assert_eq!(
            findings(&pool, &[export, own]),
            vec![(0, 1, PointlessKind::SelfReview)],
            "a comment on the task's own export"
        );
        assert!(
            findings(&pool, &[handed]).is_empty(),
            "a comment on an invoice from the desktop"
        );
    }

    #[test]
    fn a_change_made_twice_along_a_chain_is_pointless() {
        let mut cat = office_catalog();
        cat.kinds.get_mut("img").unwrap().file_kinds = vec!["jpg".into()];
        let photo = "/home/user/Pictures/photo.jpg";
        let rotated = "/home/user/Pictures/photo_rotated.jpg";
        let subs = vec![
            subtask(
                "rotate",
                "Image Editor",
                &["img"],
                &["img:new_img"],
                &[&[("img", photo), ("new_img", rotated)]],
            ),
            subtask(
                "crop",
                "Image Editor",
                &["img"],
                &["img:new_img"],
                &[&[("img", rotated), ("new_img", "/home/user/Pictures/c.jpg")]],
            ),
            subtask(
                "turn",
                "Photos",
                &["img"],
                &["img:new_img"],
                &[
                    &[
                        ("img", "/home/user/Pictures/c.jpg"),
                        ("new_img", "/home/user/Pictures/d.jpg"),
                    ],
                    &[("img", photo), ("new_img", "/home/user/Pictures/e.jpg")],
                ],
            ),
        ];
        let initial: BTreeSet<Resource> = [Resource::new("img", Some(photo.into()))].into();
        let mut pool = Pool::new(&cat, &subs, &initial).unwrap();
        pool.mark_contents(|s| crate::graph::Content {
            sets: match s.id.0.as_str() {
                "rotate" | "turn" => vec!["rotation".into()],
                _ => vec!["crop".into()],
            },
            ..Default::default()
        });
        let find = |id: &str, i| pool.find(&SubtaskId(id.into()), i).unwrap();
        let kinds = |nodes: &[usize]| findings(&pool, nodes);
        assert_eq!(
            kinds(&[find("rotate", 0), find("crop", 0), find("turn", 0)]),
            vec![(0, 2, PointlessKind::RepeatedChange)],
            "rotated, cropped, then rotated again"
        );
        assert!(
            kinds(&[find("rotate", 0), find("crop", 0)]).is_empty(),
            "rotated, then cropped"
        );
        assert!(
            !kinds(&[find("turn", 1)])
                .iter()
                .any(|f| f.2 == PointlessKind::RepeatedChange),
            "a desktop photo rotated once"
        );
    }

    #[test]
    fn a_picture_inserted_then_only_the_text_copied_is_a_lost_change() {
        let mut cat = office_catalog();
        let mut png = cat.kinds["doc"].clone();
        png.file_kinds = vec!["png".into()];
        png.inserted_as = Some("picture".into());
        cat.kinds.insert("png".into(), png);
        cat.kinds.get_mut("pdf").unwrap().keeps_props = Some(vec!["picture".into()]);
        let clip = cat.kinds.get_mut("clip").unwrap();
        clip.holder = Some("clipboard".into());
        clip.keeps_props = Some(vec!["sort".into()]);
        let brief = "/home/user/Documents/brief.docx";
        let pdf = "/home/user/Documents/brief.pdf";
        let subs = vec![
            subtask(
                "insert",
                "Writer",
                &["doc", "png"],
                &["pdf"],
                &[&[
                    ("doc", brief),
                    ("png", "/home/user/Pictures/p.png"),
                    ("pdf", pdf),
                ]],
            ),
            subtask(
                "export",
                "Writer",
                &["doc"],
                &["pdf"],
                &[&[("doc", brief), ("pdf", pdf)]],
            ),
            subtask("copy", "PDF Tool", &["pdf"], &["clip"], &[&[("pdf", pdf)]]),
            subtask(
                "merge",
                "PDF Tool",
                &["pdf"],
                &["pdf:out"],
                &[&[("pdf", pdf), ("out", "/home/user/Documents/all.pdf")]],
            ),
        ];
        let initial: BTreeSet<Resource> = [
            Resource::new("doc", Some(brief.into())),
            Resource::new("png", Some("/home/user/Pictures/p.png".into())),
        ]
        .into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let find = |id: &str| pool.find(&SubtaskId(id.into()), 0).unwrap();
        let lost = |nodes: &[usize]| -> Vec<(usize, usize)> {
            findings(&pool, nodes)
                .into_iter()
                .filter(|f| f.2 == PointlessKind::LostChange)
                .map(|f| (f.0, f.1))
                .collect()
        };
        assert_eq!(
            lost(&[find("insert"), find("copy")]),
            vec![(0, 1)],
            "the picture is dropped by copying the PDF's text"
        );
        assert!(
            lost(&[find("export"), find("copy")]).is_empty(),
            "a PDF's text copied when nothing but text was put in"
        );
        assert!(
            lost(&[find("insert"), find("merge")]).is_empty(),
            "a PDF keeps the picture"
        );
    }

    #[test]
    fn a_file_prepared_for_sending_is_sent() {
        let mut cat = office_catalog();
        let mut mail = cat.kinds["address"].clone();
        mail.typed = false;
        let mut note = mail.clone();
        note.tracker = true;
        mail.sends = true;
        cat.kinds.insert("mail".into(), mail);
        cat.kinds.insert("note".into(), note);
        let pdf = "/home/user/Documents/r.pdf";
        let small = "/home/user/Documents/r_small.pdf";
        let subs = vec![
            subtask(
                "compress",
                "PDF Tool",
                &["pdf"],
                &["pdf:out"],
                &[&[("pdf", pdf), ("out", small)]],
            ),
            subtask(
                "send",
                "Mail",
                &["pdf"],
                &["mail"],
                &[&[("pdf", small), ("mail", "Report")]],
            ),
            subtask(
                "merge",
                "PDF Tool",
                &["pdf"],
                &["pdf:out"],
                &[&[("pdf", small), ("out", "/home/user/Documents/all.pdf")]],
            ),
            subtask(
                "file",
                "Notes",
                &["pdf"],
                &["note"],
                &[&[("pdf", small), ("note", "Report")]],
            ),
            subtask(
                "zip",
                "Archiver",
                &["pdf"],
                &["zip"],
                &[&[("pdf", small), ("zip", "/home/user/Documents/r.zip")]],
            ),
            subtask(
                "send_zip",
                "Mail",
                &["zip"],
                &["mail"],
                &[&[("zip", "/home/user/Documents/r.zip"), ("mail", "Files")]],
            ),
        ];
        let initial: BTreeSet<Resource> = [Resource::new("pdf", Some(pdf.into()))].into();
        let mut pool = Pool::new(&cat, &subs, &initial).unwrap();
        pool.mark_contents(|s| crate::graph::Content {
            for_sending: s.id.0 == "compress",
            ..Default::default()
        });
        let find = |id: &str| pool.find(&SubtaskId(id.into()), 0).unwrap();
        let unsent = |nodes: &[usize]| -> Vec<(usize, usize)> {
            findings(&pool, nodes)
                .into_iter()
                .filter(|f| f.2 == PointlessKind::Unsent)
                .map(|f| (f.0, f.1))
                .collect()
        };
        assert_eq!(
            unsent(&[find("compress")]),
            vec![(0, 0)],
            "left in a folder"
        );
        assert_eq!(
            unsent(&[find("compress"), find("merge")]),
            vec![(0, 0)],
            "compressed, then merged into another PDF nobody sends"
        );
        assert!(
            unsent(&[find("compress"), find("send")]).is_empty(),
            "compressed, then mailed"
        );
        assert_eq!(
            unsent(&[find("compress"), find("file")]),
            vec![(0, 0)],
            "compressed, then attached to one's own note"
        );
        assert_eq!(
            unsent(&[find("compress"), find("zip")]),
            vec![(0, 0)],
            "compressed, then zipped and left in a folder"
        );
        assert!(
            unsent(&[find("compress"), find("zip"), find("send_zip")]).is_empty(),
            "compressed, zipped and the zip mailed: it travels in the zip"
        );
    }

    #[test]
    fn a_picture_shrunk_then_made_the_wallpaper_is_a_spoiled_edit() {
        let mut cat = tiny_catalog();
        cat.kinds.get_mut("img").unwrap().file_kinds = vec!["png".into()];
        let cat_png = "/home/user/Pictures/cat.png";
        let small = "/home/user/Pictures/cat_small.png";
        let subs = vec![
            subtask(
                "shrink",
                "Image Editor",
                &["img"],
                &["img:new_img"],
                &[&[("img", cat_png), ("new_img", small)]],
            ),
            subtask(
                "caption",
                "Image Editor",
                &["img"],
                &["img:new_img"],
                &[&[("img", cat_png), ("new_img", small)]],
            ),
            subtask(
                "wallpaper",
                "Photos",
                &["img"],
                &["clip"],
                &[&[("img", small)]],
            ),
        ];
        let initial: BTreeSet<Resource> = [Resource::new("img", Some(cat_png.into()))].into();
        let mut pool = Pool::new(&cat, &subs, &initial).unwrap();
        pool.mark_contents(|s| match s.id.0.as_str() {
            "shrink" => crate::graph::Content {
                sets: vec!["size".into()],
                ..Default::default()
            },
            "caption" => crate::graph::Content {
                sets: vec!["caption".into()],
                ..Default::default()
            },
            _ => crate::graph::Content {
                spoiled_by: vec!["size".into()],
                ..Default::default()
            },
        });
        let find = |id: &str| pool.find(&SubtaskId(id.into()), 0).unwrap();
        let spoiled = |nodes: &[usize]| -> Vec<(usize, usize)> {
            findings(&pool, nodes)
                .into_iter()
                .filter(|f| f.2 == PointlessKind::SpoiledEdit)
                .map(|f| (f.0, f.1))
                .collect()
        };
        assert_eq!(
            spoiled(&[find("shrink"), find("wallpaper")]),
            vec![(0, 1)],
            "halved, then made the wallpaper"
        );
        assert!(
            spoiled(&[find("caption"), find("wallpaper")]).is_empty(),
            "captioned, then made the wallpaper"
        );
    }

    #[test]
    fn a_desktop_file_is_edited_as_what_it_shows() {
        let mut cat = office_catalog();
        cat.kinds.get_mut("img").unwrap().file_kinds = vec!["jpg".into()];
        let receipt = "/home/user/Pictures/receipt.jpg";
        let beach = "/home/user/Pictures/beach.jpg";
        cat.shows.insert(receipt.into(), "document scan".into());
        let params = |stem: &str| -> Vec<(&'static str, String)> {
            vec![
                ("img", format!("/home/user/Pictures/{stem}.jpg")),
                ("new_img", format!("/home/user/Pictures/{stem}_2.jpg")),
            ]
        };
        let mut caption = subtask("caption", "Image Editor", &["img"], &["img:new_img"], &[]);
        let mut rotate = subtask("rotate", "Image Editor", &["img"], &["img:new_img"], &[]);
        for s in [&mut caption, &mut rotate] {
            s.available_parameters = ["receipt", "beach"]
                .iter()
                .map(|stem| {
                    params(stem)
                        .into_iter()
                        .map(|(k, v)| (k.to_string(), v))
                        .collect()
                })
                .collect();
        }
        let initial: BTreeSet<Resource> = [receipt, beach]
            .iter()
            .map(|p| Resource::new("img", Some(p.to_string())))
            .collect();
        let subs = vec![caption, rotate];
        let mut pool = Pool::new(&cat, &subs, &initial).unwrap();
        pool.mark_contents(|s| crate::graph::Content {
            suits: Some(match s.id.0.as_str() {
                "caption" => vec!["photo".into()],
                _ => vec!["photo".into(), "document scan".into()],
            }),
            ..Default::default()
        });
        let find = |id: &str, i| pool.find(&SubtaskId(id.into()), i).unwrap();
        let kinds = |nodes: &[usize]| -> Vec<(usize, usize, PointlessKind)> {
            pointless(&pool, nodes, &vec![false; nodes.len()])
                .into_iter()
                .map(|p| (p.a, p.b, p.kind))
                .collect()
        };
        assert_eq!(
            kinds(&[find("caption", 0)]),
            vec![(0, 0, PointlessKind::UnsuitedEdit)],
            "a scanned receipt captioned like a photo"
        );
        assert!(kinds(&[find("rotate", 0)]).is_empty(), "a scan rotated");
        assert!(
            kinds(&[find("caption", 1)]).is_empty(),
            "a file the desktop says nothing about suits every edit"
        );
    }

    #[test]
    fn a_page_is_converted_once_and_its_source_is_not_read_as_prose() {
        let mut cat = office_catalog();
        let mut html = cat.kinds["doc"].clone();
        html.file_kinds = vec!["html".into()];
        html.rendered_by = vec!["Browser".into()];
        cat.kinds.insert("html".into(), html);
        cat.kinds.get_mut("pdf").unwrap().print = true;
        let url = cat.kinds["img"].clone();
        cat.kinds.insert("url".into(), url);
        let prose = cat.kinds["clip"].clone();
        cat.kinds
            .insert(crate::env::spec::clipboard_kind("text").into(), prose);
        let page = "https://news.example.com";
        let pdf = "/home/user/Downloads/news.pdf";
        let saved = "/home/user/Downloads/news.html";
        let subs = vec![
            subtask(
                "print",
                "Browser",
                &["url"],
                &["pdf"],
                &[&[("url", page), ("pdf", pdf)]],
            ),
            subtask(
                "save_page",
                "Browser",
                &["url"],
                &["html"],
                &[&[("url", page), ("html", saved)]],
            ),
            // Highlights text on the way: a conversion all the same.
            subtask(
                "highlight_to_word",
                "PDF Tool",
                &["pdf"],
                &["doc"],
                &[&[("pdf", pdf), ("doc", "/home/user/Downloads/news.docx")]],
            ),
            subtask(
                "sign",
                "PDF Tool",
                &["pdf"],
                &["pdf:new_pdf"],
                &[&[
                    ("pdf", pdf),
                    ("new_pdf", "/home/user/Downloads/news_signed.pdf"),
                ]],
            ),
            subtask(
                "print_source",
                "Text Editor",
                &["html"],
                &["pdf"],
                &[&[
                    ("html", saved),
                    ("pdf", "/home/user/Downloads/news_source.pdf"),
                ]],
            ),
            subtask(
                "render",
                "Browser",
                &["html"],
                &["pdf"],
                &[&[
                    ("html", saved),
                    ("pdf", "/home/user/Downloads/news_page.pdf"),
                ]],
            ),
            subtask(
                "copy_source",
                "Text Editor",
                &["html"],
                &["text_in_clipboard"],
                &[&[("html", saved)]],
            ),
            subtask(
                "format",
                "Code Editor",
                &["html"],
                &["html:new_html"],
                &[&[
                    ("html", saved),
                    ("new_html", "/home/user/Downloads/news_formatted.html"),
                ]],
            ),
            subtask(
                "pack",
                "Archiver",
                &["html"],
                &["zip"],
                &[&[("html", saved), ("zip", "/home/user/Downloads/news.zip")]],
            ),
        ];
        let initial: BTreeSet<Resource> = [Resource::new("url", Some(page.into()))].into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let find = |id: &str| pool.find(&SubtaskId(id.into()), 0).unwrap();
        let kinds = |nodes: &[&str]| -> Vec<(usize, usize, PointlessKind)> {
            let nodes: Vec<usize> = nodes.iter().map(|n| find(n)).collect();
            pointless(&pool, &nodes, &vec![true; nodes.len()])
                .into_iter()
                .map(|p| (p.a, p.b, p.kind))
                .collect()
        };
        assert_eq!(
            kinds(&["print", "highlight_to_word"]),
            vec![(0, 1, PointlessKind::ChainedConversion)],
            "a page printed to PDF, the PDF converted to a Word document"
        );
        assert!(
            kinds(&["print", "sign"]).is_empty(),
            "a printed page signed"
        );
        assert_eq!(
            kinds(&["save_page", "print_source"]),
            vec![(1, 1, PointlessKind::MarkupAsProse)],
            "a saved page's source printed as text"
        );
        assert_eq!(
            kinds(&["save_page", "copy_source"]),
            vec![(1, 1, PointlessKind::MarkupAsProse)],
            "a saved page's source copied as text"
        );
        assert!(
            kinds(&["save_page", "render"]).is_empty(),
            "a saved page printed from the browser"
        );
        assert!(
            kinds(&["save_page", "format"]).is_empty(),
            "a saved page's code formatted"
        );
        assert!(
            kinds(&["save_page", "pack"])
                .iter()
                .all(|f| f.2 == PointlessKind::LoneArchive),
            "a saved page zipped is no prose (only a lone archive)"
        );
    }
}
