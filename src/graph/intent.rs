//! A composed task's own intent: what the task delivers and why, in one sentence.
//!
//! The intent group a task was composed in only anchors composition; its label
//! speaks for the whole group and names files a given task may never touch. The
//! statement here is derived from the task alone:
//! - what it delivers: every output of a node that no other node of the task
//!   consumes (the results a user is left with), in the task's order, leaving out
//!   state that vanishes (the clipboard, media playing) when something lasting is
//!   delivered too;
//! - what it starts from: every input no node of the task produces (what is on the
//!   desktop already);
//! - why: the purpose the caller gives: the task's topic's (`topics.toml`, "for
//!   the summer trip") when its nodes keep to one, else none.
//!
//! Each resource is worded by its kind's `phrase` (`resources.toml`). A value is
//! quoted only when the node's own instruction quotes it, so every quoted value of
//! the statement belongs to a node of the task.

use crate::resources::{Catalog, Resource};

/// One node of a task as the statement sees it.
#[derive(Debug, Clone, Copy)]
pub struct IntentNode<'a> {
    /// The application the node works in: it names its records ("the card" in
    /// Kanban for a to-do item).
    pub application: &'a str,
    pub instruction: &'a str,
    pub inputs: &'a [Resource],
    pub outputs: &'a [Resource],
}

/// The task's intent statement: "<Purpose>, I need <results>, using <starting
/// points>." (the starting points only for one result and up to two of them). `order` lists node indices in a topological order; `purpose` is
/// why the task is done ("for the summer trip"), if known.
pub fn statement(
    catalog: &Catalog,
    nodes: &[IntentNode<'_>],
    order: &[usize],
    purpose: Option<&str>,
) -> String {
    let produced: Vec<&Resource> = nodes.iter().flat_map(|n| n.outputs).collect();
    let consumed: Vec<&Resource> = nodes.iter().flat_map(|n| n.inputs).collect();
    let mut results: Vec<String> = Vec::new();
    let mut transient: Vec<String> = Vec::new();
    let mut sources: Vec<String> = Vec::new();
    for &v in order {
        let node = &nodes[v];
        // A message or record that carries files made in the task says which
        // ("the e-mail 'Trip' sent with the archive '.../trip.zip'"): the
        // files are what the work before it was for.
        let carried_files: Vec<&Resource> = node
            .inputs
            .iter()
            .filter(|r| produced.contains(r) && r.parameter.is_some())
            .filter(|r| catalog.kinds.get(&r.kind).is_some_and(|k| k.is_path()))
            .collect();
        let mut carried: Vec<String> = if carried_files.len() > MAX_BY_BASE_NAME {
            by_kind(catalog, &carried_files, node)
        } else if carried_files.len() > MAX_NAMED_FILES {
            by_base_name(catalog, &carried_files, node)
        } else {
            carried_files
                .iter()
                .map(|r| phrase(catalog, r, node))
                .collect()
        };
        carried.extend(pasted_copies(catalog, nodes, node));
        for r in node.outputs.iter().filter(|r| !consumed.contains(r)) {
            let mut p = phrase(catalog, r, node);
            let delivers = catalog.kinds.get(&r.kind).is_some_and(|k| k.delivers());
            if delivers && !carried.is_empty() {
                p = format!("{p} with {}", join_and(&carried));
            }
            if catalog.kinds.get(&r.kind).is_some_and(|k| !k.parameter) {
                push_new(&mut transient, p.clone());
            }
            push_new(&mut results, p);
        }
        for r in node.inputs.iter().filter(|r| !produced.contains(r)) {
            // Starting points worth naming are the ones the user recognises by a
            // value; an open document or the clipboard is implied by the steps,
            // and a value typed in (the address a mail goes to) is no thing
            // the work uses ("using the contact ..." where no contact is opened).
            let typed = catalog.kinds.get(&r.kind).is_some_and(|k| k.typed);
            if r.parameter.is_some() && !typed && quotes(node.instruction, r) {
                push_new(&mut sources, phrase(catalog, r, node));
            }
        }
    }
    // State that vanishes (the clipboard, media playing) is no goal beside a
    // result that lasts.
    let lasting: Vec<String> = results
        .iter()
        .filter(|r| !transient.contains(r))
        .cloned()
        .collect();
    if !lasting.is_empty() {
        results = lasting;
    }
    if results.is_empty() {
        results.push("the work done".to_string());
    }
    // A result carrying files goes last: "the to-do item 'X' with the image
    // 'a.png' and the document 'b.docx'" read as a to-do holding both.
    results.sort_by_key(|r| r.contains(" with "));
    let mut sentence = String::new();
    match purpose {
        Some(purpose) => {
            sentence.push_str(&capitalize(purpose));
            sentence.push_str(", I need ");
        }
        None => sentence.push_str("I need "),
    }
    sentence.push_str(&join_and(&results));
    // "using", not "from": the starting points are what the work needs (a
    // contact a mail goes to is no source of it). A request names what it
    // starts from when that is short; a list of three, or beside several
    // results, reads as an inventory, and the steps name them all anyway.
    // A starting point the results already name ("with the text of the PDF
    // 'a.pdf'") is not named again.
    sources.retain(|s| !results.iter().any(|r| r.contains(s.as_str())));
    if !sources.is_empty() && sources.len() <= 2 && results.len() == 1 {
        sentence.push_str(", using ");
        sentence.push_str(&join_and(&sources));
    }
    sentence.push('.');
    sentence
}

/// What `node` pastes that another node of the task copied, each named by
/// where it was copied from with its kind's `pasted` phrase ("the result of
/// '36*1.50+24*2'", "the text of the web page '...'"): the copying node's
/// quoted input, else the first value its instruction quotes. A paste whose
/// source the copying node does not quote is left out.
fn pasted_copies(
    catalog: &Catalog,
    nodes: &[IntentNode<'_>],
    node: &IntentNode<'_>,
) -> Vec<String> {
    let mut out = Vec::new();
    for r in node.inputs {
        let Some(pattern) = catalog.kinds.get(&r.kind).and_then(|k| k.pasted.as_deref()) else {
            continue;
        };
        let Some(copier) = nodes.iter().find(|n| n.outputs.contains(r)) else {
            continue;
        };
        let from_input = copier
            .inputs
            .iter()
            .find(|i| i.parameter.is_some() && quotes(copier.instruction, i))
            .map(|i| phrase(catalog, i, copier));
        let source =
            from_input.or_else(|| first_quoted(copier.instruction).map(|v| format!("'{v}'")));
        if let Some(source) = source {
            push_new(&mut out, pattern.replace("{}", &source));
        }
    }
    out
}

/// The first value an instruction quotes ('...'), if any.
fn first_quoted(instruction: &str) -> Option<&str> {
    let start = instruction.find('\'')? + 1;
    let len = instruction[start..].find('\'')?;
    Some(&instruction[start..start + len]).filter(|v| !v.is_empty())
}

/// Most files a message or record is said to carry by their full names: more
/// read as an inventory of paths ("sent with '/home/user/...',
/// '/home/user/...', ..."), so they are said by base name
/// ([`MAX_BY_BASE_NAME`]) or, past that, by kind; the instruction names each.
const MAX_NAMED_FILES: usize = 2;

/// Most files a message or record is said to carry by their base names
/// ("sent with the deck 'launch_deck.pptx', the text file 'brief.txt' and the
/// workbook 'sales.xlsx'"); more are said by kind.
const MAX_BY_BASE_NAME: usize = 5;

/// `files` each said by its kind and its base name: readers took a goal "sent
/// with the slide deck, the text file and the workbook" for a list of file
/// types, not the work it sends.
fn by_base_name(catalog: &Catalog, files: &[&Resource], node: &IntentNode<'_>) -> Vec<String> {
    files
        .iter()
        .map(|r| {
            let path = r.parameter.as_deref().unwrap_or_default();
            let base = path.rsplit('/').next().unwrap_or(path);
            match catalog.kinds.get(&r.kind) {
                Some(kind) => kind.phrase_in_app(node.application, Some(base)),
                None => format!("'{base}'"),
            }
        })
        .collect()
}

/// `files` said by kind, in order of first appearance, a kind met more than
/// once counted ("two images").
fn by_kind(catalog: &Catalog, files: &[&Resource], node: &IntentNode<'_>) -> Vec<String> {
    let mut kinds: Vec<(String, usize)> = Vec::new();
    for r in files {
        let plain = match catalog.kinds.get(&r.kind) {
            Some(kind) => kind.phrase_in_app(node.application, None),
            None => format!("the {}", r.kind.replace('_', " ")),
        };
        match kinds.iter_mut().find(|(p, _)| *p == plain) {
            Some((_, n)) => *n += 1,
            None => kinds.push((plain, 1)),
        }
    }
    kinds
        .into_iter()
        .map(|(plain, n)| match n {
            1 => plain,
            n => {
                let noun = plain.strip_prefix("the ").unwrap_or(&plain);
                let count = ["two", "three", "four", "five", "six"]
                    .get(n - 2)
                    .map_or_else(|| n.to_string(), |w| w.to_string());
                format!("{count} {noun}s")
            }
        })
        .collect()
}

fn push_new(list: &mut Vec<String>, item: String) {
    if !list.contains(&item) {
        list.push(item);
    }
}

/// The resource worded by its kind as the node's application names it, with its
/// value quoted only when the node's instruction quotes it.
fn phrase(catalog: &Catalog, r: &Resource, node: &IntentNode<'_>) -> String {
    let value = r
        .parameter
        .as_deref()
        .filter(|_| quotes(node.instruction, r));
    // A `key=value` pair is a changed setting: a goal says what changed ("the
    // new wallpaper"), not the pair the desktop stores, whether or not the
    // instruction quotes the pair (its key names the setting, not a value).
    if let Some((key, _)) = r.parameter.as_deref().and_then(|v| v.split_once('=')) {
        if !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return format!("the new {}", key.replace('_', " "));
        }
    }
    match catalog.kinds.get(&r.kind) {
        Some(kind) => kind.phrase_in_app(node.application, value),
        None => match value {
            Some(v) => format!("'{v}'"),
            None => r.kind.replace('_', " "),
        },
    }
}

fn quotes(instruction: &str, r: &Resource) -> bool {
    r.parameter
        .as_deref()
        .is_some_and(|v| instruction.contains(&format!("'{v}'")))
}

fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().collect::<String>() + chars.as_str(),
        None => String::new(),
    }
}

/// "a", "a and b", "a, b and c".
fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn catalog() -> Catalog {
        Catalog::load(Path::new(env!("CARGO_MANIFEST_DIR"))).expect("the committed catalogues load")
    }

    fn r(kind: &str, value: Option<&str>) -> Resource {
        Resource::new(kind, value.map(str::to_string))
    }

    #[test]
    fn names_results_and_starting_points_of_the_task_only() {
        let cat = catalog();
        let pdf = [r("pdf_path", Some("/home/user/a.pdf"))];
        let txt = [r("txt_path", Some("/home/user/a.txt"))];
        let url = [r("url", Some("https://example.com/a"))];
        let nodes = [
            IntentNode {
                application: "Browser",
                instruction: "In Browser, open 'https://example.com/a' and print it to '/home/user/a.pdf'.",
                inputs: &url,
                outputs: &pdf,
            },
            IntentNode {
                application: "PDF Tool",
                instruction: "In PDF Tool, open '/home/user/a.pdf' and convert it to text as '/home/user/a.txt'.",
                inputs: &pdf,
                outputs: &txt,
            },
        ];
        let s = statement(&cat, &nodes, &[0, 1], Some("to keep what you found online"));
        assert_eq!(
            s,
            "To keep what you found online, I need the text file '/home/user/a.txt', using the web page 'https://example.com/a'."
        );
        assert!(
            !s.contains("a.pdf"),
            "an intermediate file is not a result: {s}"
        );
    }

    #[test]
    fn a_message_with_a_pasted_copy_says_what_was_copied() {
        let cat = catalog();
        let clip = [r("number_in_clipboard", None)];
        let sent = [r("chat_message_sent", Some("Carol"))];
        let nodes = [
            IntentNode {
                application: "Calculator",
                instruction: "In Calculator, calculate '36*1.50+24*2' and copy the result.",
                inputs: &[],
                outputs: &clip,
            },
            IntentNode {
                application: "Chat",
                instruction: "In Chat, send 'Carol' the copied number in a message.",
                inputs: &clip,
                outputs: &sent,
            },
        ];
        let s = statement(&cat, &nodes, &[0, 1], None);
        assert!(
            s.ends_with(" sent with the result of '36*1.50+24*2'."),
            "the goal says what the message carries: {s}"
        );
        // A copy of a file's text names the file once.
        let pdf = [r("pdf_path", Some("/home/user/a.pdf"))];
        let clip = [r("text_in_clipboard", None)];
        let nodes = [
            IntentNode {
                application: "PDF Tool",
                instruction: "Open the PDF '/home/user/a.pdf' in PDF Tool and copy the PDF text.",
                inputs: &pdf,
                outputs: &clip,
            },
            IntentNode {
                application: "Chat",
                instruction: "In Chat, send 'Carol' the copied text in a message.",
                inputs: &clip,
                outputs: &sent,
            },
        ];
        let s = statement(&cat, &nodes, &[0, 1], None);
        assert_eq!(s.matches("a.pdf").count(), 1, "{s}");
    }

    #[test]
    fn unquoted_values_and_unknown_purposes_stay_unnamed() {
        let cat = catalog();
        let out = [
            r("setting_value", Some("volume=0")),
            r("text_in_clipboard", None),
        ];
        let nodes = [IntentNode {
            application: "Settings",
            instruction: "In Settings, set volume to 0, then copy it.",
            inputs: &[],
            outputs: &out,
        }];
        assert_eq!(
            statement(&cat, &nodes, &[0], None),
            "I need the new volume."
        );
        let wall = [r("setting_value", Some("wallpaper=beach.jpg"))];
        let nodes = [IntentNode {
            application: "Photos",
            instruction:
                "In Photos, view a picture 'beach.jpg', then set the picture as wallpaper.",
            inputs: &[],
            outputs: &wall,
        }];
        assert_eq!(
            statement(&cat, &nodes, &[0], Some("for the summer trip")),
            "For the summer trip, I need the new wallpaper."
        );
    }

    #[test]
    fn an_address_typed_in_is_no_starting_point() {
        let cat = catalog();
        let inputs = [
            r("pdf_path", Some("/home/user/a.pdf")),
            r("email_address", Some("bob@example.com")),
        ];
        let sent = [r("email_sent", Some("Rent"))];
        let nodes = [IntentNode {
            application: "Mail",
            instruction: "In Mail, send the e-mail 'Rent' to 'bob@example.com' with '/home/user/a.pdf' attached.",
            inputs: &inputs,
            outputs: &sent,
        }];
        let s = statement(&cat, &nodes, &[0], None);
        assert!(s.contains("using the PDF '/home/user/a.pdf'"), "{s}");
        assert!(!s.contains("bob@example.com"), "{s}");
    }

    #[test]
    fn a_message_names_the_file_made_in_the_task_that_it_carries() {
        let cat = catalog();
        let zip = r("zip_path", Some("/home/user/Documents/trip.zip"));
        let pdf = [r("pdf_path", Some("/home/user/Documents/plan.pdf"))];
        let packed = [zip.clone()];
        let mail_in = [zip, r("email_address", Some("bob@example.com"))];
        let sent = [r("email_sent", Some("Trip"))];
        let nodes = [
            IntentNode {
                application: "Archiver",
                instruction: "In Archiver, add '/home/user/Documents/plan.pdf' to the archive list and compress it into a zip archive as '/home/user/Documents/trip.zip'.",
                inputs: &pdf,
                outputs: &packed,
            },
            IntentNode {
                application: "Mail",
                instruction: "In Mail, send the e-mail 'Trip' to 'bob@example.com' with '/home/user/Documents/trip.zip' attached.",
                inputs: &mail_in,
                outputs: &sent,
            },
        ];
        let s = statement(&cat, &nodes, &[0, 1], Some("for the summer trip"));
        assert!(
            s.starts_with("For the summer trip, I need the e-mail 'Trip' sent with ")
                && s.contains("'/home/user/Documents/trip.zip'"),
            "{s}"
        );
    }

    #[test]
    fn a_message_carrying_many_files_says_them_by_name_then_by_kind() {
        let cat = catalog();
        let made = [
            r("img_path", Some("/home/user/Pictures/a.png")),
            r("img_path", Some("/home/user/Pictures/b.png")),
            r("pdf_path", Some("/home/user/Documents/c.pdf")),
        ];
        let mut mail_in = made.to_vec();
        mail_in.push(r("email_address", Some("bob@example.com")));
        let sent = [r("email_sent", Some("Trip"))];
        let makers: Vec<[Resource; 1]> = made.iter().map(|m| [m.clone()]).collect();
        let mut nodes: Vec<IntentNode<'_>> = makers
            .iter()
            .map(|out| IntentNode {
                application: "Image Editor",
                instruction: "In Image Editor, save it.",
                inputs: &[],
                outputs: out,
            })
            .collect();
        nodes.push(IntentNode {
            application: "Mail",
            instruction: "In Mail, send the e-mail 'Trip' to 'bob@example.com' with '/home/user/Pictures/a.png', '/home/user/Pictures/b.png' and '/home/user/Documents/c.pdf' attached.",
            inputs: &mail_in,
            outputs: &sent,
        });
        let s = statement(&cat, &nodes, &[0, 1, 2, 3], None);
        assert!(!s.contains("/home/user"), "{s}");
        assert!(
            s.contains("sent with the image 'a.png', the image 'b.png' and the PDF 'c.pdf'"),
            "{s}"
        );
        // Six files are said by kind.
        let six: Vec<Resource> = (0..6)
            .map(|i| r("img_path", Some(&format!("/home/user/Pictures/{i}.png"))))
            .collect();
        let makers: Vec<[Resource; 1]> = six.iter().map(|m| [m.clone()]).collect();
        let mut nodes: Vec<IntentNode<'_>> = makers
            .iter()
            .map(|out| IntentNode {
                application: "Image Editor",
                instruction: "In Image Editor, save it.",
                inputs: &[],
                outputs: out,
            })
            .collect();
        nodes.push(IntentNode {
            application: "Mail",
            instruction: "In Mail, send the e-mail 'Trip' with the six pictures attached.",
            inputs: &six,
            outputs: &sent,
        });
        let s = statement(&cat, &nodes, &[0, 1, 2, 3, 4, 5, 6], None);
        assert!(s.contains("sent with six images"), "{s}");
    }

    #[test]
    fn a_result_carrying_files_comes_after_the_others() {
        let cat = catalog();
        let png = r("img_path", Some("/home/user/Pictures/a.png"));
        let doc = r("docx_path", Some("/home/user/Documents/b.docx"));
        let made_png = [png.clone()];
        let (insert_in, insert_out) = ([png.clone()], [doc]);
        let todo_in = [png];
        let todo = [r("todo_item", Some("Follow up"))];
        let nodes = [
            IntentNode {
                application: "Image Editor",
                instruction: "Open '/home/user/Pictures/x.png' and save it as '/home/user/Pictures/a.png'.",
                inputs: &[],
                outputs: &made_png,
            },
            IntentNode {
                application: "To Do",
                instruction: "In To Do, create a task 'Follow up' with '/home/user/Pictures/a.png' attached.",
                inputs: &todo_in,
                outputs: &todo,
            },
            IntentNode {
                application: "Writer",
                instruction: "Insert the picture '/home/user/Pictures/a.png' and save it as '/home/user/Documents/b.docx'.",
                inputs: &insert_in,
                outputs: &insert_out,
            },
        ];
        let s = statement(&cat, &nodes, &[0, 1, 2], None);
        let (doc_at, todo_at) = (s.find("b.docx").unwrap(), s.find("'Follow up'").unwrap());
        assert!(doc_at < todo_at, "{s}");
        assert!(
            s.ends_with("with the image '/home/user/Pictures/a.png'."),
            "{s}"
        );
    }

    #[test]
    fn a_record_is_named_as_its_application_names_it() {
        let cat = catalog();
        let pdf = [r("pdf_path", Some("/home/user/a.pdf"))];
        let card = [r("todo_item", Some("Pay the rent"))];
        let instruction =
            "In Kanban, create the card 'Pay the rent' with '/home/user/a.pdf' attached.";
        let node = |application| IntentNode {
            application,
            instruction,
            inputs: &pdf,
            outputs: &card,
        };
        assert_eq!(
            statement(&cat, &[node("Kanban")], &[0], None),
            "I need the card 'Pay the rent', using the PDF '/home/user/a.pdf'."
        );
        assert_eq!(
            statement(&cat, &[node("To Do")], &[0], None),
            "I need the to-do item 'Pay the rent', using the PDF '/home/user/a.pdf'."
        );
    }
}
