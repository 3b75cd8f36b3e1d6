//! `synth env lint` over the shipped apps and over deliberately broken specs.

use std::path::{Path, PathBuf};

use synth::env::lint::{lint_app, lint_workspace, LintContext};
use synth::env::sim::Vfs;
use synth::env::spec::parse_app;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn shipped_apps_pass_lint() {
    let issues = lint_workspace(&workspace()).unwrap();
    let text: Vec<String> = issues.iter().map(|i| i.to_string()).collect();
    assert!(issues.is_empty(), "{}", text.join("\n"));
}

fn ctx() -> LintContext {
    LintContext {
        categories: vec!["Office".into()],
        extensions: ["docx", "pdf", "txt"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        apps: ["Broken".to_string()].into_iter().collect(),
        fixtures: Vfs::default(),
    }
}

const BROKEN: &str = r#"name = "Broken"
category = "Office"
docs = "d"
start = "main"

[screens.main]
[[screens.main.controls]]
text = "Go"
type = "Button"
click = [{ do = "goto", screen = "nowhere" }]
[[screens.main.controls]]
text = "Go"
type = "Button"
[[screens.main.controls]]
text = "Open"
type = "Button"
click = [{ do = "open_file", path = "/home/user/missing.docx", kinds = ["docx", "odt"] }]
[[screens.main.controls]]
text = "Child"
type = "Button"
parent = "Ghost"

[screens.island]
[[screens.island.controls]]
text = "Alone"
type = "Text"
[[screens.island.controls]]
text = "To"
type = "Edit"
says = "to"
[[screens.island.controls]]
text = "Send"
type = "Button"
says = "to '{}'"
"#;

#[test]
fn broken_spec_is_reported_with_file_and_line() {
    let app = parse_app(Path::new("resources/apps/broken.toml"), BROKEN).unwrap();
    let issues: Vec<String> = lint_app(&app, &ctx())
        .iter()
        .map(|i| i.to_string())
        .collect();
    let has = |prefix: &str, needle: &str| {
        issues
            .iter()
            .any(|i| i.starts_with(prefix) && i.contains(needle))
    };
    assert!(
        has(
            "resources/apps/broken.toml:7:",
            "screen 'nowhere' does not exist"
        ),
        "{issues:#?}"
    );
    assert!(
        has("resources/apps/broken.toml:11:", "duplicate control 'Go'"),
        "{issues:#?}"
    );
    assert!(
        has("resources/apps/broken.toml:14:", "unknown file kind 'odt'"),
        "{issues:#?}"
    );
    assert!(
        has(
            "resources/apps/broken.toml:14:",
            "fixture '/home/user/missing.docx' does not exist"
        ),
        "{issues:#?}"
    );
    assert!(
        has("resources/apps/broken.toml:18:", "parent 'Ghost'"),
        "{issues:#?}"
    );
    assert!(
        has(
            "resources/apps/broken.toml:23:",
            "screen 'island' is unreachable"
        ),
        "{issues:#?}"
    );
    assert!(
        has("resources/apps/broken.toml:27:", "must hold '{}' once"),
        "{issues:#?}"
    );
    assert!(
        has("resources/apps/broken.toml:31:", "says on a Button"),
        "{issues:#?}"
    );
}

#[test]
fn unknown_effects_fail_to_parse_with_a_line() {
    let text = BROKEN.replace("\"goto\"", "\"teleport\"");
    let err = parse_app(Path::new("b.toml"), &text)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("b.toml:10:"), "{err}");
}
