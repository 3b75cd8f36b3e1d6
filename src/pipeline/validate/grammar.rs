//! The instruction grammar shared by the offline summarizer (which writes it) and
//! the offline reconstructor (which parses it). A language-model summarizer is
//! prompted to write the natural form, and a language-model reconstructor to read
//! it, so the roles stay interchangeable.
//!
//! ```text
//! instruction := [goal] (natural | explicit)
//! goal        := "Goal: " TEXT "."                 -- the task intent, marked
//!              | TEXT "."                          -- unmarked: the first sentence when
//!                                                     there is one sentence more than steps
//! natural     := sentence ( " " sentence )*         -- one sentence per step, or
//!                                                     per list of steps
//! sentence    := [lead " "] clause ( "; " ["and "] clause )* "."
//! lead        := "Separately," | "Apart from that," | "Independently,"
//!              | "First," | "Second," | ... | "Tenth,"  -- waits for nothing
//!              | "Then," | "Next," | "After that," | "Finally," | "Lastly,"  -- after the sentence before
//!              | "Now," | "Also,"                   -- after the steps that made what it names
//!              | "Once " quoted ( (", " | " and ") quoted )* (" is" | " are") " ready,"
//!              | "Then, once " ... " ready,"        -- both: the sentence before and the
//!                                                     steps that make the names
//! explicit    := [preamble] step ( " " step )*
//! preamble    := any text without a step marker, e.g.
//!                "Steps (each after the steps it names, otherwise in any order):"
//! step        := "(" k ")" " " [ "after " refs ", " ] clause "."   -- k = 1, 2, 3, ...
//! refs        := n | n " and " n | n ", " n ... " and " n          -- earlier step numbers
//! clause      := TEXT with, outside quotes, no ";", no sentence break (". "),
//!                no step marker "(k)"; quoted text ('...' or "...") is opaque
//! ```
//!
//! Meaning:
//! - natural: a sentence without a lead comes after the sentence before it (the
//!   first one after nothing); "Once 'x' is ready," puts it after the earliest
//!   earlier sentence that quotes `x` (the step that makes `x`), for each quoted
//!   name; "Now," puts it after the earliest earlier sentence quoting each name
//!   its own clause quotes (the screenshot saved earlier, now mailed: the name
//!   says what it waits for, without "once ... is ready"), and after nothing
//!   when no earlier sentence quotes them; "Also," means the same and reads
//!   better when the sentence before is not among those steps (a calendar
//!   export zipped in one sentence, also mailed in the next); a "waits for nothing" lead gives it no
//!   prerequisite. Steps not linked
//!   through these may run in any order.
//! - clauses of one sentence apart by "; " are steps that wait for nothing
//!   of each other; each waits for what the sentence's lead says. "Then,"
//!   or no lead after such a sentence waits for every step of it. A task
//!   whose first steps wait for nothing (files made apart, then zipped or
//!   mailed together) lists them in its first sentence, as a person lists
//!   what to get ready ("For the summer trip, in Sheets, export ...; in
//!   Image Editor, crop ...; and in Writer, ... . Then, in Mail, send ...").
//! - a task of independent pieces of work (no edge between them) with a
//!   purpose opens with a goal sentence counting them ("For the summer trip,
//!   there are three separate things to do."), and each piece's first sentence
//!   leads with its ordinal ("First,", "Second,", ...).
//! - explicit: step `k` comes after each step named in its `after` list and after
//!   nothing else; steps not linked through `after` lists may run in any order or
//!   in parallel. Numbers are positions in the text, not node ids.
//!
//! Example (natural, A → B, A → C, B and C → D):
//! `For the Q3 figures, I need the e-mail 'Q3' sent. In Sheets, export
//! 'q3.xlsx' as '/home/user/q3.pdf'. Then, in PDF Tool, compress '/home/user/q3.pdf'
//! as '/home/user/q3_small.pdf'. Once '/home/user/q3.pdf' is ready, in Writer, make
//! the cover '/home/user/cover.docx' from it. Once '/home/user/q3_small.pdf' and
//! '/home/user/cover.docx' are ready, in Mail, send 'Q3' with both attached.`
//!
//! Example (explicit, edges 1→3, 2→3, 2→4):
//! `Goal: share the Q3 report. Steps (each after the steps it names, otherwise in
//! any order): (1) open 'a.xlsx' in Sheets. (2) export 'b.pdf' in PDF Tool.
//! (3) after 1 and 2, write the summary in Writer. (4) after 2, mail 'b.pdf' to
//! bob@example.com.`

/// Starts the goal sentence in the explicit wording.
pub const GOAL: &str = "Goal:";
/// Lead of the last sentence when it follows the one before.
pub const FINALLY: &str = "Finally,";
/// Leads (lower case, without the comma) of a sentence that comes right after the
/// sentence before it.
pub const AFTER_PREVIOUS: &[&str] = &["after that", "then", "next", "finally", "lastly"];
/// Leads of a sentence that waits for nothing, in the order the summarizer takes
/// them (a task of several independent pieces of work does not repeat one).
pub const SEPARATE_LEADS: &[&str] = &["Separately,", "Apart from that,", "Independently,"];
/// Leads of the first sentence of each independent piece of work, when a task
/// is several ("There are three separate things to do. First, ... Second, ...").
pub const ORDINALS: &[&str] = &[
    "First,", "Second,", "Third,", "Fourth,", "Fifth,", "Sixth,", "Seventh,", "Eighth,", "Ninth,",
    "Tenth,",
];
/// How many pieces the announcing sentence counts, from two.
pub const COUNTS: &[&str] = &[
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
];
/// Leads (lower case, without the comma) of a sentence that waits for nothing.
pub const INDEPENDENT: &[&str] = &[
    "separately",
    "apart from that",
    "independently",
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
];
/// Lead of a sentence that comes after the steps that made the names it quotes,
/// the sentence before among them.
pub const NOW: &str = "Now,";
/// Lead of a sentence that comes after the steps that made the names it quotes,
/// the sentence before not among them.
pub const ALSO: &str = "Also,";
/// Opens the lead of a sentence that waits for the steps making the quoted names.
pub const ONCE: &str = "Once";
/// Introduces the explicit wording's numbered steps.
pub const STEPS_PREAMBLE: &str = "Steps (each after the steps it names, otherwise in any order):";
/// Introduces a step's prerequisites in the explicit wording.
pub const AFTER: &str = "after";
