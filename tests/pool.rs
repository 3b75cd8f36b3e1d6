//! `synth pool import` / `synth pool export` and `synth stats`, driven through the
//! real binary in a temporary workspace.

mod common;

use common::Workspace;

const LINE_A: &str = r#"{"id":"00000000-0000-0000-0000-00000000000a","instruction_template":"Open '{xlsx_path}' and copy all cells","application":"Sheets","category":"Office","OS":"Linux","available_parameters":[{"xlsx_path":"/home/user/Documents/budget.xlsx"}],"input_resources":["xlsx_path"],"output_resources":["table_in_clipboard"],"evaluation":{"checks":[{"api":"check_mouse_clicks","args":{"text":"Copy"}}]}}"#;
const LINE_B: &str = r#"{"id":"00000000-0000-0000-0000-00000000000b","instruction_template":"Paste the table into a new document and save it as '{docx_path}'","application":"Writer","category":"Office","OS":"Linux","available_parameters":[{"docx_path":"/home/user/Documents/table.docx"}],"input_resources":["table_in_clipboard"],"output_resources":["docx_path"]}"#;

#[test]
fn import_export_round_trip_is_byte_identical() {
    let ws = Workspace::new();
    std::fs::write(ws.file("in.jsonl"), format!("{LINE_B}\n{LINE_A}\n")).unwrap();
    ws.ok(&["--quiet", "pool", "import", "in.jsonl"]);
    let first = ws.ok(&["pool", "export"]);
    assert!(first.starts_with(r#"{"id":"00000000-0000-0000-0000-00000000000a""#));
    ws.ok(&["--quiet", "pool", "export", "--out", "out/pool.jsonl"]);
    let file = std::fs::read_to_string(ws.file("out/pool.jsonl")).unwrap();
    assert_eq!(first, file);

    // A fresh store importing the export exports the same bytes.
    ws.ok(&[
        "--quiet",
        "--db",
        "other.sqlite",
        "pool",
        "import",
        "out/pool.jsonl",
    ]);
    let again = ws.ok(&["--db", "other.sqlite", "pool", "export"]);
    assert_eq!(first, again);
}

#[test]
fn a_bad_line_is_refused_with_file_and_line_and_the_store_is_unchanged() {
    let ws = Workspace::new();
    std::fs::write(ws.file("good.jsonl"), format!("{LINE_A}\n")).unwrap();
    ws.ok(&["--quiet", "pool", "import", "good.jsonl"]);
    let before = ws.ok(&["pool", "export"]);

    let bad_kind = LINE_B.replace("\"docx_path\"]", "\"hologram_path\"]");
    let bad_placeholder = LINE_B.replace("{docx_path}", "{pptx_path}");
    for (bad, expected) in [
        (
            "{\"id\": 1,".to_string(),
            "bad.jsonl:2: not a valid subtask",
        ),
        (bad_kind, "unknown resource kind 'hologram_path'"),
        (bad_placeholder, "placeholder '{pptx_path}' has no value"),
    ] {
        std::fs::write(ws.file("bad.jsonl"), format!("{LINE_B}\n{bad}\n")).unwrap();
        let out = ws.synth(&["pool", "import", "bad.jsonl"]);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(expected), "{err}");
        assert!(err.contains("bad.jsonl:2"), "{err}");
        assert_eq!(ws.ok(&["pool", "export"]), before);
    }
}

#[test]
fn stats_counts_the_pool_as_json() {
    let ws = Workspace::new();
    std::fs::write(ws.file("in.jsonl"), format!("{LINE_A}\n{LINE_B}\n")).unwrap();
    ws.ok(&["--quiet", "pool", "import", "in.jsonl"]);
    let json: serde_json::Value = serde_json::from_str(&ws.ok(&["stats", "--json"])).unwrap();
    assert_eq!(json["pool"]["verified"], 2);
    assert_eq!(json["pool"]["applications"], 2);
    assert_eq!(json["pool"]["per_category"]["Office"], 2);
    assert_eq!(json["tasks"]["total"], 0);
}

#[test]
fn a_malformed_config_names_the_file_and_line() {
    let ws = Workspace::new();
    std::fs::write(ws.file("synth.toml"), "seed = 3\njobz = 2\n").unwrap();
    let out = ws.synth(&["stats"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("synth.toml:2"), "{err}");
    assert!(err.contains("jobz"), "{err}");
}

/// The committed real-desktop pool loads as its README says (`synth pool
/// import subtask_pool/x11/pool.jsonl`): every subtask's category is one the
/// catalogue knows.
#[test]
fn the_committed_x11_pool_imports() {
    let ws = Workspace::new();
    ws.ok(&["--quiet", "pool", "import", "subtask_pool/x11/pool.jsonl"]);
    let pool = std::fs::read_to_string(ws.file("subtask_pool/x11/pool.jsonl")).unwrap();
    let exported = ws.ok(&["pool", "export"]);
    assert_eq!(exported.lines().count(), pool.lines().count());
}

/// OSWorld's programs, by the id its task files give them, as the x11
/// catalogue launches them (words of the entry's command).
const OSWORLD_PROGRAMS: &[(&str, &[&str])] = &[
    ("chrome", &["chromium"]),
    ("gimp", &["gimp"]),
    ("libreoffice_calc", &["libreoffice", "--calc"]),
    ("libreoffice_impress", &["libreoffice", "--impress"]),
    ("libreoffice_writer", &["libreoffice", "--writer"]),
    ("thunderbird", &["thunderbird"]),
    ("vlc", &["vlc"]),
    ("vscode", &["code"]),
];

/// Tasks exported to OSWorld from the x11 pool name, in `related_apps`, the
/// ids of the programs they used: every application of the committed x11 pool
/// has an id in `resources/osworld.toml`, and an id other than `os` only when
/// the catalogue entry launches that OSWorld program (AbiWord, a word
/// processor, once claimed `libreoffice_writer`).
#[test]
fn the_x11_pool_names_only_the_osworld_programs_it_used() {
    let ws = Workspace::new();
    let ids = synth::export::osworld::load_apps(ws.path()).unwrap();
    let catalogue = synth::env::x11::load_catalogue(ws.path()).unwrap();
    let pool = std::fs::read_to_string(ws.file("subtask_pool/x11/pool.jsonl")).unwrap();
    let used: std::collections::BTreeSet<String> = pool
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["application"].as_str().unwrap().to_string()
        })
        .collect();
    let names: Vec<&str> = catalogue.iter().map(|e| e.name.as_str()).collect();
    for app in &used {
        assert!(
            names.contains(&app.as_str()),
            "{app} is not in the x11 catalogue"
        );
    }
    for entry in catalogue.iter().filter(|e| !e.launcher) {
        let id = ids
            .get(&entry.name)
            .unwrap_or_else(|| panic!("{} has no OSWorld id", entry.name));
        if id == "os" {
            continue;
        }
        let (_, words) = OSWORLD_PROGRAMS
            .iter()
            .find(|(i, _)| i == id)
            .unwrap_or_else(|| panic!("no OSWorld program is known for '{id}'"));
        assert!(
            words.iter().all(|w| entry.command.iter().any(|c| c == w)),
            "{} maps to '{id}' but launches {:?}, not OSWorld's program",
            entry.name,
            entry.command
        );
    }
}
