//! Scripted walkthroughs of every simulated application: each drives the app through
//! the action space and asserts the desktop state, the resource rules and the check
//! APIs.

mod common;

use std::path::PathBuf;
use std::sync::OnceLock;

use synth::env::{run_check, Environment, Probes, Setup, SimDesktop, StepOutcome};
use synth::model::{Action, ActionCall, CheckCall};
use synth::resources::Resource;

fn base() -> &'static SimDesktop {
    static DESK: OnceLock<SimDesktop> = OnceLock::new();
    DESK.get_or_init(|| SimDesktop::load(&PathBuf::from(env!("CARGO_MANIFEST_DIR"))).unwrap())
}

/// A fresh desktop with `app` launched.
fn open(app: &str) -> SimDesktop {
    let mut d = base().clone();
    d.reset(&Setup {
        launch: vec![app.to_string()],
        ..Setup::default()
    })
    .unwrap();
    d
}

fn act(call: ActionCall, text: &str) -> Action {
    Action {
        call,
        control_label: None,
        control_text: text.to_string(),
    }
}

fn click(d: &mut SimDesktop, text: &str) -> StepOutcome {
    common::reveal(d, text);
    let out = d.step(&act(
        ActionCall::ClickInput {
            button: "left".into(),
            double: false,
        },
        text,
    ));
    assert!(
        out.ok,
        "click '{text}' failed: {:?}",
        out.observation.feedback
    );
    out
}

fn dclick(d: &mut SimDesktop, text: &str) -> StepOutcome {
    common::reveal(d, text);
    let out = d.step(&act(
        ActionCall::ClickInput {
            button: "left".into(),
            double: true,
        },
        text,
    ));
    assert!(
        out.ok,
        "double-click '{text}' failed: {:?}",
        out.observation.feedback
    );
    out
}

fn type_in(d: &mut SimDesktop, control: &str, keys: &str) -> StepOutcome {
    let out = d.step(&act(
        ActionCall::KeyboardInput { keys: keys.into() },
        control,
    ));
    assert!(
        out.ok,
        "typing into '{control}' failed: {:?}",
        out.observation.feedback
    );
    out
}

fn no_dialog(out: &StepOutcome) {
    assert!(
        out.observation.scene.dialog.is_none(),
        "unexpected dialog: {:?}",
        out.observation.scene.dialog
    );
}

fn holds(d: &SimDesktop, kind: &str, p: Option<&str>) -> bool {
    d.holds(&Resource::new(kind, p.map(str::to_string)))
}

fn check(d: &SimDesktop, c: CheckCall) -> bool {
    run_check(&c, d.probes())
}

const DOCS: &str = "/home/user/Documents";

#[test]
fn writer_edits_and_exports_a_document() {
    let mut d = open("Writer");
    assert!(!holds(&d, "docx_in_processing", None));
    click(&mut d, "Open");
    click(&mut d, "quarterly_report.docx");
    no_dialog(&click(&mut d, "Open file"));
    assert!(holds(&d, "docx_in_processing", None));
    click(&mut d, "Page");
    type_in(&mut d, "Page", "{ENTER}Profit doubled.");
    click(&mut d, "Bold");
    click(&mut d, "Export PDF");
    type_in(&mut d, "PDF name", "q3.pdf{ENTER}");
    assert!(holds(&d, "pdf_path", Some("/home/user/Documents/q3.pdf")));
    assert!(check(
        &d,
        CheckCall::CheckFileContains {
            file_path: format!("{DOCS}/q3.pdf"),
            text: "Profit doubled.".into()
        }
    ));
    d.step(&act(ActionCall::KeyboardInput { keys: "^s".into() }, ""));
    assert!(check(
        &d,
        CheckCall::CheckFileContains {
            file_path: format!("{DOCS}/quarterly_report.docx"),
            text: "@style: bold".into()
        }
    ));
    assert!(check(
        &d,
        CheckCall::CheckKeyPresses {
            keys: "ctrl+s".into()
        }
    ));
    assert!(check(
        &d,
        CheckCall::CheckKeyboardTypes {
            text: "Profit doubled.".into()
        }
    ));
    assert!(check(
        &d,
        CheckCall::CheckMouseClicks {
            text: "export pdf".into()
        }
    ));
    assert!(check(
        &d,
        CheckCall::CheckWindowOpen {
            title: "quarterly_report.docx".into()
        }
    ));
    // Save As under a new name and kind.
    click(&mut d, "Save As");
    type_in(&mut d, "File name", "/home/user/Desktop/summary.md{ENTER}");
    assert!(holds(&d, "md_path", Some("/home/user/Desktop/summary.md")));
    assert!(holds(&d, "txt_in_processing", None));
}

#[test]
fn writer_reports_missing_and_wrong_kind_files_in_a_dialog() {
    let mut d = open("Writer");
    click(&mut d, "Open");
    type_in(&mut d, "File name", "/home/user/nothing.docx{ENTER}");
    let obs = d.observe();
    assert_eq!(obs.scene.dialog.as_ref().unwrap().0, "Error");
    assert!(check(
        &d,
        CheckCall::CheckTextExistsViaControl {
            text: "File not found".into()
        }
    ));
    click(&mut d, "OK");
    type_in(&mut d, "File name", "team_budget.xlsx{ENTER}");
    assert!(check(
        &d,
        CheckCall::CheckTextExists {
            text: "Cannot open".into()
        }
    ));
    assert!(!holds(&d, "docx_in_processing", None));
}

#[test]
fn sheets_table_pastes_into_writer() {
    let mut d = open("Sheets");
    click(&mut d, "Open");
    dclick(&mut d, "team_budget.xlsx");
    assert!(holds(&d, "xlsx_in_processing", None));
    click(&mut d, "Add Row");
    type_in(&mut d, "Row cells", "Snacks,40{ENTER}");
    click(&mut d, "Sort A-Z");
    click(&mut d, "Copy Table");
    assert!(holds(&d, "table_in_clipboard", None));
    assert!(check(
        &d,
        CheckCall::CheckClipboardContains {
            text: "Snacks,40".into()
        }
    ));
    click(&mut d, "Save As");
    type_in(&mut d, "File name", "budget_copy.csv{ENTER}");
    assert!(holds(
        &d,
        "csv_path",
        Some("/home/user/Documents/budget_copy.csv")
    ));
    d.launch("Writer").unwrap();
    click(&mut d, "New");
    click(&mut d, "Paste");
    assert!(check(
        &d,
        CheckCall::CheckTextExistsViaControl {
            text: "Venue hire,1200".into()
        }
    ));
    click(&mut d, "Save As");
    type_in(&mut d, "File name", "budget_note{ENTER}");
    assert!(holds(
        &d,
        "docx_path",
        Some("/home/user/Documents/budget_note.docx")
    ));
}

#[test]
fn slides_takes_a_screenshot_via_image_editor() {
    let mut d = open("Photos");
    d.launch("Screenshot Tool").unwrap();
    click(&mut d, "Capture to Clipboard");
    assert!(holds(&d, "img_in_clipboard", None));
    d.launch("Image Editor").unwrap();
    click(&mut d, "Paste as New");
    click(&mut d, "Crop");
    click(&mut d, "Save As");
    type_in(&mut d, "File name", "cropped.png{ENTER}");
    assert!(holds(
        &d,
        "img_path",
        Some("/home/user/Pictures/cropped.png")
    ));
    click(&mut d, "Copy");
    d.launch("Slides").unwrap();
    click(&mut d, "New");
    click(&mut d, "New Slide");
    type_in(&mut d, "Slide title", "Results{ENTER}");
    click(&mut d, "Paste");
    click(&mut d, "Theme Dark");
    click(&mut d, "Save As");
    type_in(&mut d, "File name", "results.pptx{ENTER}");
    assert!(holds(
        &d,
        "pptx_path",
        Some("/home/user/Documents/results.pptx")
    ));
    assert!(check(
        &d,
        CheckCall::CheckFileContains {
            file_path: format!("{DOCS}/results.pptx"),
            text: "[image: Screenshot of Photos".into()
        }
    ));
    click(&mut d, "Slideshow");
    assert!(check(
        &d,
        CheckCall::CheckWindowOpen {
            title: "Slideshow".into()
        }
    ));
}

#[test]
fn text_editor_and_pdf_tool() {
    let mut d = open("Text Editor");
    click(&mut d, "New");
    click(&mut d, "Text");
    type_in(&mut d, "Text", "Shopping: milk");
    click(&mut d, "Save As");
    type_in(&mut d, "File name", "shopping.txt{ENTER}");
    assert!(holds(
        &d,
        "txt_path",
        Some("/home/user/Documents/shopping.txt")
    ));
    click(&mut d, "Print to PDF");
    type_in(&mut d, "PDF name", "shopping{ENTER}");
    d.launch("PDF Tool").unwrap();
    click(&mut d, "Open");
    dclick(&mut d, "shopping.pdf");
    assert!(holds(&d, "pdf_in_processing", None));
    type_in(&mut d, "Signer", "Ana");
    click(&mut d, "Sign");
    click(&mut d, "Convert to Word");
    type_in(&mut d, "Document name", "shopping_signed{ENTER}");
    assert!(check(
        &d,
        CheckCall::CheckFileContains {
            file_path: format!("{DOCS}/shopping_signed.docx"),
            text: "signature: Ana".into()
        }
    ));
}

#[test]
fn files_archiver_and_mail_chain() {
    let mut d = open("Files");
    click(&mut d, "Documents");
    type_in(&mut d, "Name", "Reports");
    click(&mut d, "New Folder");
    assert!(holds(&d, "dir_path", Some("/home/user/Documents/Reports")));
    click(&mut d, "meeting_notes.txt");
    click(&mut d, "Copy");
    dclick(&mut d, "Reports/");
    click(&mut d, "Paste Here");
    click(&mut d, "Copy here");
    assert!(check(
        &d,
        CheckCall::CheckFileExists {
            file_path: format!("{DOCS}/Reports/meeting_notes.txt")
        }
    ));
    click(&mut d, "meeting_notes.txt");
    type_in(&mut d, "Name", "minutes.txt");
    click(&mut d, "Rename");
    assert!(holds(
        &d,
        "txt_path",
        Some("/home/user/Documents/Reports/minutes.txt")
    ));
    click(&mut d, "Up");
    click(&mut d, "Reports/");
    click(&mut d, "Compress");
    assert!(holds(
        &d,
        "zip_path",
        Some("/home/user/Documents/Reports.zip")
    ));
    // Archiver extracts it elsewhere.
    d.launch("Archiver").unwrap();
    click(&mut d, "Reports.zip");
    type_in(&mut d, "Destination", "/home/user/Desktop/unpacked");
    click(&mut d, "Extract To");
    assert!(check(
        &d,
        CheckCall::CheckFileContains {
            file_path: "/home/user/Desktop/unpacked/Reports/minutes.txt".into(),
            text: "Meeting notes".into()
        }
    ));
    // Mail it.
    d.launch("Mail").unwrap();
    click(&mut d, "Compose");
    type_in(&mut d, "To", "bob@example.com");
    type_in(&mut d, "Subject", "Reports archive");
    click(&mut d, "Attach");
    click(&mut d, "Documents");
    dclick(&mut d, "Reports.zip");
    no_dialog(&click(&mut d, "Send"));
    assert!(holds(&d, "email_sent", Some("Reports archive")));
    assert!(check(
        &d,
        CheckCall::CheckTextExistsViaControl {
            text: "Reports archive".into()
        }
    ));
    // Delete the original folder.
    d.launch("Files").unwrap();
    click(&mut d, "Reports/");
    click(&mut d, "Delete");
    assert!(!check(
        &d,
        CheckCall::CheckDirExists {
            dir_path: format!("{DOCS}/Reports")
        }
    ));
}

#[test]
fn mail_contacts_and_chat() {
    let mut d = open("Mail");
    assert!(holds(&d, "email_address", Some("alice@example.com")));
    click(&mut d, "Contacts");
    type_in(&mut d, "Name", "Erin");
    type_in(&mut d, "E-mail", "erin@example.com");
    click(&mut d, "Add Contact");
    assert!(holds(&d, "email_address", Some("erin@example.com")));
    // The address book shows 6 rows; the new contact sorts last, below the fold.
    let scrolled = d.step(&act(
        ActionCall::WheelMouseInput { wheel_dist: 10 },
        "Address book",
    ));
    assert!(scrolled.ok, "{:?}", scrolled.observation.feedback);
    click(&mut d, "erin@example.com");
    click(&mut d, "Write to");
    type_in(&mut d, "Subject", "Hello Erin");
    click(&mut d, "Send");
    assert!(holds(&d, "email_sent", Some("Hello Erin")));
    let mut c = open("Chat");
    click(&mut c, "Bob");
    type_in(&mut c, "Message", "See you at 5{ENTER}");
    assert!(holds(&c, "chat_message_sent", Some("Bob")));
    assert!(check(
        &c,
        CheckCall::CheckTextExistsViaOcr {
            text: "bob: see you at 5".into()
        }
    ));
    click(&mut c, "Back");
    click(&mut c, "Busy");
    assert!(holds(&c, "setting_value", Some("Busy")));
    assert!(holds(&c, "setting_value", Some("chat_status=Busy")));
}

#[test]
fn media_player_scrolls_and_plays() {
    let mut d = open("Media Player");
    // More audio files than the 10 visible rows: the last is hidden until scrolled.
    assert!(!d
        .observe()
        .controls
        .iter()
        .any(|c| c.control_text == "rain_sounds.wav"));
    let hidden = d.step(&act(
        ActionCall::ClickInput {
            button: "left".into(),
            double: false,
        },
        "rain_sounds.wav",
    ));
    assert!(!hidden.ok);
    let out = d.step(&act(
        ActionCall::WheelMouseInput { wheel_dist: 10 },
        "Library",
    ));
    assert!(out.ok);
    assert!(out
        .observation
        .controls
        .iter()
        .any(|c| c.control_text == "rain_sounds.wav"));
    dclick(&mut d, "rain_sounds.wav");
    assert!(holds(&d, "media_playing", None));
    click(&mut d, "Stop");
    assert!(!holds(&d, "media_playing", None));
    click(&mut d, "Playlists");
    type_in(&mut d, "Playlist name", "Evening");
    click(&mut d, "Create Playlist");
    assert!(holds(&d, "playlist_name", Some("Evening")));
    assert!(holds(&d, "playlist_name", Some("Morning Mix")));
}

#[test]
fn photos_and_settings_wallpaper() {
    let mut d = open("Photos");
    click(&mut d, "sea_sunset.jpg");
    click(&mut d, "View");
    assert!(holds(&d, "img_in_processing", None));
    click(&mut d, "Set as Wallpaper");
    assert!(holds(&d, "setting_value", Some("sea_sunset.jpg")));
    click(&mut d, "Copy");
    assert!(holds(&d, "img_in_clipboard", None));
    type_in(&mut d, "New name", "sunset.jpg");
    click(&mut d, "Rename");
    assert!(holds(
        &d,
        "img_path",
        Some("/home/user/Pictures/sunset.jpg")
    ));
    let mut s = open("Settings");
    click(&mut s, "Personalization");
    click(&mut s, "Dark theme");
    assert!(holds(&s, "setting_value", Some("Dark")));
    assert!(check(
        &s,
        CheckCall::CheckTextExistsViaOcr {
            text: "Theme: Dark".into()
        }
    ));
    click(&mut s, "Network");
    click(&mut s, "Bluetooth on");
    assert!(holds(&s, "setting_value", Some("bluetooth=On")));
}

#[test]
fn video_editor_trims_a_recording() {
    let mut d = open("Files");
    d.launch("Screen Recorder").unwrap();
    click(&mut d, "Start Recording");
    click(&mut d, "Stop and Save");
    let rec = "/home/user/Videos/Recording-1.mp4";
    assert!(
        holds(&d, "video_path", Some(rec)),
        "{:?}",
        d.observe().feedback
    );
    click(&mut d, "Open in Video Editor");
    assert!(holds(&d, "video_in_processing", None));
    type_in(&mut d, "Trim start", "0");
    type_in(&mut d, "Trim end", "30");
    click(&mut d, "Trim");
    click(&mut d, "Add Music");
    click(&mut d, "Export");
    type_in(&mut d, "Video name", "/home/user/Videos/trimmed.mp4{ENTER}");
    assert!(check(
        &d,
        CheckCall::CheckFileContains {
            file_path: "/home/user/Videos/trimmed.mp4".into(),
            text: "trim: 0-30s".into()
        }
    ));
    click(&mut d, "Preview");
    assert!(holds(&d, "media_playing", None));
}

#[test]
fn calculator_computes_and_copies() {
    let mut d = open("Calculator");
    for k in ["1", "2", "×", "3", "+", "4"] {
        click(&mut d, k);
    }
    click(&mut d, "=");
    assert!(holds(&d, "calc_result", None));
    assert!(check(
        &d,
        CheckCall::CheckTextExistsViaControl {
            text: "Result: 40".into()
        }
    ));
    click(&mut d, "Copy Result");
    assert!(check(
        &d,
        CheckCall::CheckClipboardContains { text: "40".into() }
    ));
    click(&mut d, "C");
    type_in(&mut d, "Display", "(2{+}3)*10{ENTER}");
    assert!(check(
        &d,
        CheckCall::CheckTextExists {
            text: "Result: 50".into()
        }
    ));
    type_in(&mut d, "Display", "2{+}{ENTER}");
    assert!(d.observe().scene.dialog.is_some());
}

#[test]
fn calendar_todo_kanban_notes() {
    let mut d = open("Calendar");
    click(&mut d, "New Event");
    type_in(&mut d, "Title", "Dentist");
    type_in(&mut d, "Date", "2026-12-01");
    click(&mut d, "Save Event");
    assert!(holds(&d, "calendar_event", Some("Dentist")));
    click(&mut d, "Dentist");
    click(&mut d, "Export .ics");
    assert!(holds(
        &d,
        "ics_path",
        Some("/home/user/Documents/Dentist.ics")
    ));
    let mut t = open("To Do");
    type_in(&mut t, "New task", "Buy milk{ENTER}");
    assert!(holds(&t, "todo_item", Some("Buy milk")));
    click(&mut t, "Buy milk");
    click(&mut t, "Complete");
    let mut k = open("Kanban");
    type_in(&mut k, "Card title", "Write spec");
    click(&mut k, "Add Card");
    assert!(holds(&k, "todo_item", Some("Write spec")));
    click(&mut k, "Write spec");
    click(&mut k, "Move to Done");
    assert!(check(
        &k,
        CheckCall::CheckTextExistsViaControl {
            text: "Write spec: Done".into()
        }
    ));
    let mut n = open("Notes");
    click(&mut n, "New Note");
    type_in(&mut n, "Title", "Ideas");
    type_in(&mut n, "Body", "Build a boat");
    click(&mut n, "Save Note");
    assert!(holds(&n, "note_title", Some("Ideas")));
    let mut s = open("Sticky Notes");
    type_in(&mut s, "New sticky", "Call mom{ENTER}");
    assert!(holds(&s, "note_title", Some("Call mom")));
}

#[test]
fn code_editor_and_terminal() {
    let mut d = open("Code Editor");
    dclick(&mut d, "analysis.py");
    assert!(holds(&d, "code_in_processing", None));
    click(&mut d, "Run");
    assert!(check(
        &d,
        CheckCall::CheckTextExistsViaControl {
            text: "Hello from the analysis script".into()
        }
    ));
    type_in(&mut d, "File name", "tool.py");
    click(&mut d, "New File");
    click(&mut d, "Editor");
    type_in(&mut d, "Editor", "print('tool')");
    d.step(&act(ActionCall::KeyboardInput { keys: "^s".into() }, ""));
    assert!(check(
        &d,
        CheckCall::CheckFileContains {
            file_path: "/home/user/Projects/tool.py".into(),
            text: "print('tool')".into()
        }
    ));
    let mut t = open("Terminal");
    for cmd in [
        "mkdir /home/user/Projects/site",
        "cd /home/user/Projects/site",
        "echo hello > index.html",
        "zip ../site.zip index.html",
        "ls",
    ] {
        type_in(&mut t, "Command", &format!("{cmd}{{ENTER}}"));
    }
    assert!(holds(
        &t,
        "html_path",
        Some("/home/user/Projects/site/index.html")
    ));
    assert!(holds(&t, "zip_path", Some("/home/user/Projects/site.zip")));
    assert!(check(
        &t,
        CheckCall::CheckTextExistsViaOcr {
            text: "index.html".into()
        }
    ));
    type_in(&mut t, "Command", "cat ../../../../../etc/passwd{ENTER}");
    assert!(check(
        &t,
        CheckCall::CheckTextExistsViaControl {
            text: "not a valid path".into()
        }
    ));
}

#[test]
fn browser_and_feed_reader() {
    let mut d = open("Browser");
    type_in(&mut d, "Address", "weather.example.com{ENTER}");
    assert!(check(
        &d,
        CheckCall::CheckWindowOpen {
            title: "https://weather.example.com".into()
        }
    ));
    click(&mut d, "Bookmark");
    assert!(holds(&d, "bookmark", Some("https://weather.example.com")));
    type_in(&mut d, "Save name", "weather");
    click(&mut d, "Save Page");
    assert!(holds(
        &d,
        "html_path",
        Some("/home/user/Downloads/weather.html")
    ));
    type_in(&mut d, "Address", "unknown.example.org{ENTER}");
    assert!(d.observe().scene.dialog.is_some());
    assert!(holds(&d, "url", Some("https://news.example.com")));
    let mut f = open("Feed Reader");
    type_in(&mut f, "Feed URL", "https://blog.example.net/feed{ENTER}");
    // A subscription is the reader's; it does not make the address a site the
    // browser knows.
    assert!(holds(
        &f,
        "feed_subscription",
        Some("https://blog.example.net/feed")
    ));
    assert!(!holds(&f, "url", Some("https://blog.example.net/feed")));
    click(&mut f, "Articles");
    dclick(&mut f, "Tips for remote work");
    click(&mut f, "Save as Text");
    assert!(holds(
        &f,
        "txt_path",
        Some("/home/user/Documents/Tips for remote work.txt")
    ));
}

#[test]
fn recipes_and_finance() {
    let mut d = open("Recipes");
    assert!(holds(&d, "recipe_name", Some("Pancakes")));
    click(&mut d, "Add Recipe");
    type_in(&mut d, "Name", "Tomato soup");
    type_in(&mut d, "Ingredients", "tomatoes, salt");
    click(&mut d, "Save Recipe");
    assert!(holds(&d, "recipe_name", Some("Tomato soup")));
    click(&mut d, "Tomato soup");
    click(&mut d, "Plan for Dinner");
    assert!(holds(&d, "calendar_event", Some("Cook Tomato soup")));
    let mut f = open("Finance");
    type_in(&mut f, "Label", "Train ticket");
    type_in(&mut f, "Amount", "42");
    click(&mut f, "Travel");
    click(&mut f, "Add Expense");
    assert!(holds(&f, "expense_record", Some("Train ticket")));
    type_in(&mut f, "Export name", "ledger");
    click(&mut f, "Train ticket: 42");
    click(&mut f, "Export CSV");
    assert!(holds(
        &f,
        "csv_path",
        Some("/home/user/Documents/ledger.csv")
    ));
    // The desktop's own expenses export with their amounts (`[records]` in
    // desktop.toml), not as 'Coffee,,'.
    for row in ["Coffee,4.50,Food", "Train ticket,42,Travel"] {
        assert!(
            check(
                &f,
                CheckCall::CheckFileContains {
                    file_path: "/home/user/Documents/ledger.csv".into(),
                    text: row.into()
                }
            ),
            "{row}"
        );
    }
}

#[test]
fn screenshot_tool_saves_files() {
    let mut d = open("Writer");
    d.launch("Screenshot Tool").unwrap();
    click(&mut d, "New Capture");
    assert!(holds(
        &d,
        "img_path",
        Some("/home/user/Pictures/Screenshot-1.png")
    ));
    assert!(check(
        &d,
        CheckCall::CheckFileContains {
            file_path: "/home/user/Pictures/Screenshot-1.png".into(),
            text: "Screenshot of Writer".into()
        }
    ));
    click(&mut d, "Open in Image Editor");
    assert!(check(
        &d,
        CheckCall::CheckWindowOpen {
            title: "Screenshot-1.png - Image Editor".into()
        }
    ));
}

#[test]
fn every_app_launches_from_the_desktop() {
    let mut d = base().clone();
    d.reset(&Setup::default()).unwrap();
    let names: Vec<String> = d.apps().iter().map(|a| a.spec.name.clone()).collect();
    assert!(names.len() >= 24);
    for name in &names {
        click(&mut d, "Start");
        click(&mut d, name);
        assert!(
            check(
                &d,
                CheckCall::CheckWindowOpen {
                    title: name.clone()
                }
            ) || d.observe().window_title.contains(name.as_str())
                || d.state().windows.iter().any(|w| &w.app == name)
        );
        assert_eq!(d.state().windows[d.state().active.unwrap()].app, *name);
    }
    assert_eq!(d.window_titles().len(), names.len());
}

/// A composed task across five categories with a dependency chain of depth 6:
/// record the screen -> trim in the video editor -> compress -> mail it, and in
/// parallel note it, plan it and add a to-do.
#[test]
fn deep_cross_category_chain() {
    let mut d = open("Screen Recorder");
    click(&mut d, "Start Recording");
    click(&mut d, "Stop and Save");
    click(&mut d, "Open in Video Editor");
    click(&mut d, "Mute");
    click(&mut d, "Export");
    type_in(
        &mut d,
        "Video name",
        "/home/user/Videos/demo_cut.mp4{ENTER}",
    );
    d.launch("Files").unwrap();
    click(&mut d, "Videos");
    click(&mut d, "demo_cut.mp4");
    click(&mut d, "Compress");
    d.launch("Mail").unwrap();
    click(&mut d, "Compose");
    type_in(&mut d, "To", "team@example.com");
    type_in(&mut d, "Subject", "Demo cut");
    click(&mut d, "Attach");
    click(&mut d, "Videos");
    dclick(&mut d, "demo_cut.mp4.zip");
    click(&mut d, "Send");
    d.launch("Calendar").unwrap();
    click(&mut d, "New Event");
    type_in(&mut d, "Title", "Demo review");
    click(&mut d, "Save Event");
    d.launch("To Do").unwrap();
    type_in(&mut d, "New task", "Collect feedback{ENTER}");
    for (k, p) in [
        ("video_path", Some("/home/user/Videos/demo_cut.mp4")),
        ("zip_path", Some("/home/user/Videos/demo_cut.mp4.zip")),
        ("email_sent", Some("Demo cut")),
        ("calendar_event", Some("Demo review")),
        ("todo_item", Some("Collect feedback")),
    ] {
        assert!(holds(&d, k, p), "{k}={p:?}");
    }
    let sent = &d.state().collections["sent_mail"];
    assert_eq!(
        sent.last().unwrap()["attachment"],
        "/home/user/Videos/demo_cut.mp4.zip"
    );
}

#[test]
fn memory_of_a_live_environment_is_small() {
    let d = open("Writer");
    let bytes = serde_json::to_vec(d.state()).unwrap().len();
    eprintln!("serialized desktop state: {bytes} bytes");
    assert!(bytes < 64 * 1024, "{bytes}");
}
