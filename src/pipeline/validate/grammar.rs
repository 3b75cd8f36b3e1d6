//! The instruction grammar shared by the offline summarizer (which writes it) and
//! the offline reconstructor (which parses it). A language-model summarizer should
//! be prompted to write the same forms, and a language-model reconstructor to read
//! them, so the roles stay interchangeable.
//!
//! ```text
//! instruction := [goal] (compact | explicit)
//! goal        := "Goal: " TEXT "."                      -- the task intent
//! compact     := layer ( " " layer )*                    -- one sentence per layer
//! layer       := [lead " "] group "."
//! lead        := "First," | "Then," | "Next," | "After that," | "Finally," | "Lastly,"
//! group       := clause | "in any order: " clause ( "; " clause )+
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
//! - compact: every step of a layer comes after every step of the previous layer
//!   (hence after all earlier layers); steps of one layer may run in any order.
//!   Leads are decoration: each sentence is one layer whatever its lead.
//! - explicit: step `k` comes after each step named in its `after` list and after
//!   nothing else; steps not linked through `after` lists may run in any order or
//!   in parallel. Numbers are positions in the text, not node ids.
//!
//! Example (compact, nodes A, B → C → D):
//! `Goal: share the Q3 report. First, in any order: open 'a.xlsx' in Sheets;
//! export 'b.pdf' in PDF Tool. Then, write the summary in Writer. Finally, mail
//! it to bob@example.com.`
//!
//! Example (explicit, edges 1→3, 2→3, 2→4):
//! `Goal: share the Q3 report. Steps (each after the steps it names, otherwise in
//! any order): (1) open 'a.xlsx' in Sheets. (2) export 'b.pdf' in PDF Tool.
//! (3) after 1 and 2, write the summary in Writer. (4) after 2, mail 'b.pdf' to
//! bob@example.com.`

/// Starts the goal sentence.
pub const GOAL: &str = "Goal:";
/// Lead of the first layer.
pub const FIRST: &str = "First,";
/// Lead of a middle layer.
pub const THEN: &str = "Then,";
/// Lead of the last layer.
pub const FINALLY: &str = "Finally,";
/// Every lead the parser accepts (lower case, without the comma).
pub const LEADS: &[&str] = &["after that", "first", "then", "next", "finally", "lastly"];
/// Opens a group of steps that may run in any order; items are separated by "; ".
pub const ANY_ORDER: &str = "in any order:";
/// Introduces the explicit wording's numbered steps.
pub const STEPS_PREAMBLE: &str = "Steps (each after the steps it names, otherwise in any order):";
/// Introduces a step's prerequisites in the explicit wording.
pub const AFTER: &str = "after";
