//! Application specs: the data format of `resources/apps/<app>.toml` and the closed
//! vocabulary of [`Op`]s a control may trigger. Owns parsing (with file and line in
//! errors) and the static questions a planner asks about an effect: which resource
//! kinds it can produce ([`Op::produces`]).
//!
//! String arguments of effects are templates: `{name}` is replaced by the window's
//! field `name` (an Edit's typed text), or by one of the context values `selected`,
//! `selected_path`, `selected_<field>` (a field of the selected record, e.g.
//! `selected_amount`), `cwd`, `doc_path`, `doc_name`, `doc_stem`, `doc_dir`,
//! `home`, `clipboard`, `n` (a counter that grows on every use).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use toml::Spanned;

use super::EnvError;

/// Control types, as UI Automation names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ControlType {
    Button,
    Edit,
    MenuItem,
    ListItem,
    TabItem,
    CheckBox,
    Text,
    List,
    Document,
    Hyperlink,
    ComboBox,
}

impl ControlType {
    pub fn as_str(self) -> &'static str {
        match self {
            ControlType::Button => "Button",
            ControlType::Edit => "Edit",
            ControlType::MenuItem => "MenuItem",
            ControlType::ListItem => "ListItem",
            ControlType::TabItem => "TabItem",
            ControlType::CheckBox => "CheckBox",
            ControlType::Text => "Text",
            ControlType::List => "List",
            ControlType::Document => "Document",
            ControlType::Hyperlink => "Hyperlink",
            ControlType::ComboBox => "ComboBox",
        }
    }

    /// Laid out side by side in a toolbar row (else a full-width block).
    pub fn is_inline(self) -> bool {
        matches!(
            self,
            ControlType::Button
                | ControlType::MenuItem
                | ControlType::TabItem
                | ControlType::CheckBox
                | ControlType::Hyperlink
                | ControlType::ComboBox
                | ControlType::ListItem
        )
    }
}

/// One effect: an operation and an optional phrase explorers may use to word
/// instructions ("export the document as PDF").
///
/// Two optional words say what content the effect makes or suits, for the
/// composer ([`content_of`]): `shows` names what a file or image the effect
/// makes shows (`"screen capture"` for Screenshot Tool's captures), and
/// `suits` lists the contents the effect makes sense on (rotating or
/// captioning suits a `"photo"`, not a capture of the screen; blurring suits a
/// capture, whose private details it hides, not a photo). An edit with `suits`
/// is never applied to something showing content it does not list (made by a
/// node, or declared in `desktop.toml`'s `[shows]`); a file of no declared
/// content suits it. `spoiled_by` lists document properties whose change on
/// the file before this effect defeats it (a picture halved in size, then made
/// the wallpaper): the composer never puts such a change before it.
/// `for_sending` marks an edit made only so that a file travels (a PDF
/// compressed): a task that makes it also sends or files the file.
/// `reviews` marks an edit that is a remark for someone else (a comment on a
/// PDF): it is made on a file the task was handed, never on one the task made
/// itself ("Looks good to me" on one's own export).
/// `names` is what a person calls a file with this change, as a part of its
/// name (`"totals"` for adding a total row: `budget_totals.xlsx`); without it
/// the explorer names a changed copy from the phrase's own words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Effect {
    #[serde(flatten)]
    pub op: Op,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub describe: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shows: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suits: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spoiled_by: Vec<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub for_sending: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reviews: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub names: Option<String>,
}

/// The closed vocabulary of effects over the shared desktop state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "do", rename_all = "snake_case", deny_unknown_fields)]
pub enum Op {
    /// Show another screen of the same window (pushes the current one).
    Goto { screen: String },
    /// Back to the previous screen.
    Back,
    /// Launch (or focus) an application.
    Launch { app: String },
    /// Close the window.
    Close,
    /// Set a window field (template value).
    SetField { field: String, value: String },
    /// Append to a window field: calculator keys, or an item of a list (a
    /// mail's attachments) with `sep` between items.
    AppendField {
        field: String,
        value: String,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        sep: String,
    },
    /// Evaluate the arithmetic in `field` and put the result in `into`.
    Evaluate { field: String, into: String },
    /// Stop unless a condition holds (`doc`, `selection`, `clipboard`, `playing`,
    /// `field:NAME`), showing `message` in an error dialog.
    Require { when: String, message: String },
    /// Open a file as this window's document; error dialog if it is missing or its
    /// extension is not one of `kinds`.
    OpenFile { path: String, kinds: Vec<String> },
    /// A new, unsaved document of extension `kind`.
    NewDocument { kind: String },
    /// Write the document to its path (error dialog when it has none).
    Save,
    /// Write the document to `path` (its extension must be one of `kinds`; the first
    /// kind is appended when the path has no extension); the document now has it.
    SaveAs { path: String, kinds: Vec<String> },
    /// Write a converted copy of the document (extension `kind`) to `path`.
    Export { path: String, kind: String },
    /// Copy to the clipboard: `selection` (selected item as text), `document`
    /// (document text), `table` (spreadsheet cells), `image` (the open image), or a
    /// template as text. `gives` says what copied text is, for what may paste it
    /// (see [`CLIPBOARD_CONTENTS`]; `text` when absent).
    Copy {
        what: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        gives: Option<String>,
    },
    /// Paste the clipboard into the document (`into = "document"`) or a field.
    /// `accepts` names the contents that make sense there (see
    /// [`CLIPBOARD_CONTENTS`]; text when empty): the clipboard kinds a subtask
    /// that pastes here reads. `files`, when given, limits a paste into the
    /// document to documents of these extensions (prose goes into a .txt or .md,
    /// not into a .csv).
    Paste {
        into: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        accepts: Vec<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        files: Vec<String>,
    },
    /// Set a property of the open document (rendered as `@prop: value` when saved).
    SetProp { prop: String, value: String },
    /// Append a line to the open document. `files`, when given, names the
    /// document extensions the line makes sense in (a date goes into a text or
    /// a letter, not into a CSV table or a calendar export). With `totals`, the
    /// line is a table row: `text` in its first cell and the sum of each
    /// column whose values are all numbers in the others ("Total,,633600").
    AppendDoc {
        text: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        files: Vec<String>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        totals: bool,
    },
    /// Append the file at `path` (its extension one of `kinds`) to the open
    /// document: another PDF after this one, a picture into a text or a deck, a
    /// CSV table's rows into a workbook.
    InsertFile { path: String, kinds: Vec<String> },
    /// Create a file (parents must exist). With `each` (a collection), the
    /// content's first line is a header and the rest is written once per record
    /// of the collection, its fields as placeholders: Finance's ledger export
    /// `label,amount,category` then `{label},{amount},{category}`.
    CreateFile {
        path: String,
        content: String,
        #[serde(default)]
        each: Option<String>,
    },
    /// Create a folder (parents must exist).
    CreateDir { path: String },
    /// Rename a file or folder (`to` without `/` stays in the same folder).
    Rename { from: String, to: String },
    /// Move a file or folder into folder `to_dir`.
    Move { from: String, to_dir: String },
    /// Copy a file into folder `to_dir`.
    CopyFile { from: String, to_dir: String },
    /// Delete a file or folder (recursively).
    Delete { path: String },
    /// Compress the paths listed in `sources` (separated by `;`) into zip `path`.
    Compress { sources: String, path: String },
    /// Extract zip `path` into folder `dest` (created if missing).
    Extract { path: String, dest: String },
    /// Play a media file (audio or video).
    Play { path: String },
    /// Stop playback.
    Stop,
    /// Add a record to a named collection; `fields` are templates; a record whose
    /// key field is empty is refused with an error dialog. Sending mail is adding to
    /// `sent_mail`.
    AddRecord {
        collection: String,
        fields: BTreeMap<String, String>,
    },
    /// Delete the record of `collection` whose key equals `key`.
    DeleteRecord { collection: String, key: String },
    /// Change a system setting.
    SetSetting { key: String, value: String },
    /// Save a screenshot of the current screen as PNG `path` (its content describes
    /// the screen) or, with an empty path, put the image on the clipboard.
    Capture { path: String },
    /// Save a screen recording (video) to `path`.
    Record { path: String },
    /// Navigate the browser to `url` (error dialog for unknown sites).
    Visit { url: String },
    /// Save the current page as HTML `path`.
    Download { path: String },
    /// Open a file in another application (`app = "default"`: the application
    /// whose `defaults` lists the file's extension); it must list the extension in
    /// its `opens`.
    OpenWith { app: String, path: String },
    /// Set one field of the record of `collection` whose key equals `key`.
    SetRecordField {
        collection: String,
        key: String,
        field: String,
        value: String,
    },
    /// Run a shell command line (`ls`, `cd`, `mkdir`, `touch`, `rm`, `mv`, `cp`,
    /// `cat`, `echo TEXT > FILE`, `python FILE`, `zip`, `unzip`).
    Run { command: String },
    /// Show a status message.
    Message { text: String },
}

impl Op {
    /// The effect's name in app files.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Goto { .. } => "goto",
            Op::Back => "back",
            Op::Launch { .. } => "launch",
            Op::Close => "close",
            Op::SetField { .. } => "set_field",
            Op::AppendField { .. } => "append_field",
            Op::Evaluate { .. } => "evaluate",
            Op::Require { .. } => "require",
            Op::OpenFile { .. } => "open_file",
            Op::NewDocument { .. } => "new_document",
            Op::Save => "save",
            Op::SaveAs { .. } => "save_as",
            Op::Export { .. } => "export",
            Op::Copy { .. } => "copy",
            Op::Paste { .. } => "paste",
            Op::SetProp { .. } => "set_prop",
            Op::AppendDoc { .. } => "append_doc",
            Op::InsertFile { .. } => "insert_file",
            Op::CreateFile { .. } => "create_file",
            Op::CreateDir { .. } => "create_dir",
            Op::Rename { .. } => "rename",
            Op::Move { .. } => "move",
            Op::CopyFile { .. } => "copy_file",
            Op::Delete { .. } => "delete",
            Op::Compress { .. } => "compress",
            Op::Extract { .. } => "extract",
            Op::Play { .. } => "play",
            Op::Stop => "stop",
            Op::AddRecord { .. } => "add_record",
            Op::DeleteRecord { .. } => "delete_record",
            Op::SetSetting { .. } => "set_setting",
            Op::Capture { .. } => "capture",
            Op::Record { .. } => "record",
            Op::Visit { .. } => "visit",
            Op::Download { .. } => "download",
            Op::Run { .. } => "run",
            Op::OpenWith { .. } => "open_with",
            Op::SetRecordField { .. } => "set_record_field",
            Op::Message { .. } => "message",
        }
    }

    /// The clipboard kinds a paste reads (`accepts`, text when empty); empty for
    /// every other effect.
    pub fn pasted_kinds(&self) -> Vec<String> {
        let Op::Paste { accepts, .. } = self else {
            return vec![];
        };
        if accepts.is_empty() {
            return vec![clipboard_kind("text").to_string()];
        }
        let mut out: Vec<String> = accepts
            .iter()
            .map(|a| clipboard_kind(a).to_string())
            .collect();
        out.dedup();
        out
    }

    /// The resource kinds this effect can make hold, for a planner. Path kinds are
    /// given for the file extensions named in the effect; `kind_of_ext` maps an
    /// extension to its path kinds (from `resources.toml`).
    pub fn produces(&self, kind_of_ext: &dyn Fn(&str) -> Vec<String>) -> Vec<String> {
        let doc_kinds = |exts: &[String]| -> Vec<String> {
            let mut out = Vec::new();
            for e in exts {
                out.extend(kind_of_ext(e));
                if let Some(k) = processing_kind(e) {
                    out.push(k.to_string());
                }
            }
            out
        };
        let mut out: Vec<String> = match self {
            Op::OpenFile { kinds, .. } => kinds
                .iter()
                .filter_map(|e| processing_kind(e).map(str::to_string))
                .collect(),
            Op::NewDocument { kind } => processing_kind(kind)
                .map(|k| vec![k.to_string()])
                .unwrap_or_default(),
            Op::SaveAs { kinds, .. } => doc_kinds(kinds),
            Op::Export { kind, .. } => kind_of_ext(kind),
            Op::Copy { what, gives } => match what.as_str() {
                "table" => vec![clipboard_kind("table").into()],
                "image" => vec![clipboard_kind("image").into()],
                _ => vec![clipboard_kind(gives.as_deref().unwrap_or("text")).into()],
            },
            Op::CreateDir { .. } | Op::Extract { .. } => vec!["dir_path".into()],
            Op::Compress { .. } => kind_of_ext("zip"),
            Op::Play { .. } => vec!["media_playing".into()],
            Op::AddRecord { collection, .. } => collection_spec(collection)
                .map(|c| vec![c.kind.to_string()])
                .unwrap_or_default(),
            Op::SetSetting { .. } => vec!["setting_value".into()],
            Op::Capture { path } if path.is_empty() => vec!["img_in_clipboard".into()],
            Op::Capture { .. } => kind_of_ext("png"),
            Op::Record { .. } => kind_of_ext("mp4"),
            Op::Visit { .. } => vec!["url".into()],
            Op::Download { .. } => kind_of_ext("html"),
            Op::Evaluate { .. } => vec!["calc_result".into()],
            Op::OpenWith { .. } => ["txt", "docx", "xlsx", "pptx", "png", "mp4", "pdf", "py"]
                .iter()
                .filter_map(|e| processing_kind(e).map(str::to_string))
                .chain(std::iter::once("media_playing".to_string()))
                .collect(),
            Op::CreateFile { path, .. } => {
                let ext = path.rsplit('.').next().unwrap_or("");
                kind_of_ext(ext)
            }
            _ => Vec::new(),
        };
        out.sort();
        out.dedup();
        out
    }
}

/// What a copy puts on the clipboard, for what may paste it: prose (`text`),
/// source `code`, a `number`, the `name` of an item (a task, a card, an event),
/// an `address` (a web address or a file path), a `table`, an `image`.
pub const CLIPBOARD_CONTENTS: &[&str] = &[
    "text", "code", "number", "name", "address", "path", "table", "image",
];

/// The resource kind of clipboard content `content` (one of
/// [`CLIPBOARD_CONTENTS`]; anything else is text).
pub fn clipboard_kind(content: &str) -> &'static str {
    match content {
        "code" => "code_in_clipboard",
        "number" => "number_in_clipboard",
        "name" => "name_in_clipboard",
        "address" => "address_in_clipboard",
        "path" => "path_in_clipboard",
        "table" => "table_in_clipboard",
        "image" => "img_in_clipboard",
        _ => "text_in_clipboard",
    }
}

/// The `*_in_processing` kind of a document extension.
pub fn processing_kind(ext: &str) -> Option<&'static str> {
    Some(match ext {
        "txt" | "md" => "txt_in_processing",
        "docx" => "docx_in_processing",
        "xlsx" | "csv" => "xlsx_in_processing",
        "pptx" => "pptx_in_processing",
        "png" | "jpg" | "jpeg" => "img_in_processing",
        "mp4" | "mkv" => "video_in_processing",
        "pdf" => "pdf_in_processing",
        "py" | "js" | "rs" | "sh" => "code_in_processing",
        _ => return None,
    })
}

/// A named collection of records: its key field and the resource kind it backs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CollectionSpec {
    pub name: &'static str,
    pub key: &'static str,
    pub kind: &'static str,
}

/// The closed set of collections.
pub const COLLECTIONS: &[CollectionSpec] = &[
    CollectionSpec {
        name: "contacts",
        key: "email",
        kind: "email_address",
    },
    CollectionSpec {
        name: "sent_mail",
        key: "subject",
        kind: "email_sent",
    },
    CollectionSpec {
        name: "chat_messages",
        key: "to",
        kind: "chat_message_sent",
    },
    CollectionSpec {
        name: "calendar_events",
        key: "title",
        kind: "calendar_event",
    },
    CollectionSpec {
        name: "todos",
        key: "title",
        kind: "todo_item",
    },
    CollectionSpec {
        name: "cards",
        key: "title",
        kind: "todo_item",
    },
    CollectionSpec {
        name: "notes",
        key: "title",
        kind: "note_title",
    },
    CollectionSpec {
        name: "sticky_notes",
        key: "title",
        kind: "note_title",
    },
    CollectionSpec {
        name: "playlists",
        key: "name",
        kind: "playlist_name",
    },
    CollectionSpec {
        name: "recipes",
        key: "name",
        kind: "recipe_name",
    },
    CollectionSpec {
        name: "expenses",
        key: "label",
        kind: "expense_record",
    },
    CollectionSpec {
        name: "bookmarks",
        key: "url",
        kind: "bookmark",
    },
    CollectionSpec {
        name: "feeds",
        key: "url",
        kind: "feed_subscription",
    },
    CollectionSpec {
        name: "history",
        key: "url",
        kind: "url",
    },
];

pub fn collection_spec(name: &str) -> Option<&'static CollectionSpec> {
    COLLECTIONS.iter().find(|c| c.name == name)
}

/// Where a List control's items come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "source", rename_all = "snake_case", deny_unknown_fields)]
pub enum ItemSource {
    /// Fixed items.
    Static { values: Vec<String> },
    /// The entries of a folder (template, usually `{cwd}`); folders end with `/`.
    Dir {
        path: String,
        #[serde(default)]
        kinds: Vec<String>,
    },
    /// The key field of each record of a collection.
    Collection { name: String },
    /// The lines of the open document.
    DocLines,
    /// The open windows' titles.
    Windows,
}

/// One control of a screen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControlSpec {
    pub text: String,
    #[serde(rename = "type")]
    pub control_type: ControlType,
    /// The field an Edit (or CheckBox, ComboBox) stores its value in; defaults to
    /// the text in lower case with `_` for spaces.
    #[serde(default)]
    pub field: Option<String>,
    /// The text of the parent control on the same screen (default: the window).
    #[serde(default)]
    pub parent: Option<String>,
    /// Shown only when this condition holds (see [`Op::Require`]).
    #[serde(default)]
    pub when: Option<String>,
    /// Effects of a left click (ListItem items: after selecting).
    #[serde(default)]
    pub click: Vec<Effect>,
    /// Effects of `{ENTER}` typed into an Edit.
    #[serde(default)]
    pub enter: Vec<Effect>,
    /// Effects of a double click on one of a List's items (after selecting it).
    #[serde(default)]
    pub double: Vec<Effect>,
    /// A List's items.
    #[serde(default)]
    pub items: Option<ItemSource>,
    /// Visible rows of a List (default 8).
    #[serde(default)]
    pub rows: Option<usize>,
    /// For Text: a template shown as the control text; for ComboBox: its options.
    #[serde(default)]
    pub value: Option<String>,
    #[serde(default)]
    pub options: Vec<String>,
    #[serde(default)]
    pub describe: Option<String>,
    /// For an Edit: how a value typed into it reads in a request, `{}` standing
    /// for the value ("to '{}'", "with '{}' attached"). A value pasted into it
    /// reads the same with the clipboard's content in place of `'{}'` ("with the
    /// copied text as the body").
    #[serde(default)]
    pub says: Option<String>,
}

impl ControlSpec {
    /// The field name of an Edit / CheckBox / ComboBox.
    pub fn field_name(&self) -> String {
        self.field.clone().unwrap_or_else(|| slug(&self.text))
    }
}

/// `"File name"` -> `"file_name"`.
pub fn slug(text: &str) -> String {
    let mut s: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    while s.contains("__") {
        s = s.replace("__", "_");
    }
    s.trim_matches('_').to_string()
}

/// One screen of an application.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScreenSpec {
    /// Window title template (default: `{doc_name} - App` or the app name).
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub controls: Vec<Spanned<ControlSpec>>,
    /// Key combos on this screen (override the app's).
    #[serde(default)]
    pub keys: BTreeMap<String, Vec<Effect>>,
}

/// An application.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppSpec {
    pub name: String,
    pub category: String,
    /// The manual an exploring model reads.
    pub docs: String,
    /// The first screen.
    pub start: String,
    /// File extensions the app can open as its document (for `open_with`).
    #[serde(default)]
    pub opens: Vec<String>,
    /// File extensions the app is the default application for.
    #[serde(default)]
    pub defaults: Vec<String>,
    /// Initial values of window fields.
    #[serde(default)]
    pub fields: BTreeMap<String, String>,
    /// Initial folder of the window (`cwd`).
    #[serde(default)]
    pub cwd: Option<String>,
    /// Key combos available on every screen.
    #[serde(default)]
    pub keys: BTreeMap<String, Vec<Effect>>,
    pub screens: BTreeMap<String, ScreenSpec>,
    /// What the application's own data is ("expense ledger"): a file it makes
    /// from no input (an export of the ledger) is named after it, not after a
    /// subject it says nothing of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holds: Option<String>,
}

/// An app spec with where it came from.
#[derive(Debug, Clone)]
pub struct LoadedApp {
    pub spec: AppSpec,
    pub path: PathBuf,
    pub text: String,
}

impl LoadedApp {
    /// The 1-based line of a byte offset in the source.
    pub fn line_of(&self, offset: usize) -> usize {
        self.text[..offset.min(self.text.len())]
            .matches('\n')
            .count()
            + 1
    }
}

/// Parses one app file.
pub fn parse_app(path: &Path, text: &str) -> Result<LoadedApp, EnvError> {
    let spec: AppSpec = toml::from_str(text).map_err(|e| EnvError::Spec {
        path: path.to_path_buf(),
        line: e
            .span()
            .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1)
            .unwrap_or(1),
        message: e.message().to_string(),
    })?;
    Ok(LoadedApp {
        spec,
        path: path.to_path_buf(),
        text: text.to_string(),
    })
}

/// Loads every `resources/apps/*.toml` under `workspace`, sorted by file name.
pub fn load_apps(workspace: &Path) -> Result<Vec<LoadedApp>, EnvError> {
    let dir = workspace.join("resources").join("apps");
    let entries = std::fs::read_dir(&dir).map_err(|source| EnvError::Io {
        path: dir.clone(),
        source,
    })?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("toml"))
        .collect();
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(&path).map_err(|source| EnvError::Io {
            path: path.clone(),
            source,
        })?;
        out.push(parse_app(&path, &text)?);
    }
    Ok(out)
}

impl Op {
    /// Does the effect change a file at its path (a save over the open document's
    /// path, a rename, move or delete)?
    pub fn writes_in_place(&self) -> bool {
        matches!(
            self,
            Op::Save | Op::Rename { .. } | Op::Move { .. } | Op::Delete { .. }
        )
    }

    /// Does the effect change the open document in memory (a property, a line, an
    /// inserted file, pasted content)? The file changes only when it is saved.
    pub fn changes_document(&self) -> bool {
        match self {
            Op::SetProp { .. } | Op::AppendDoc { .. } | Op::InsertFile { .. } => true,
            Op::Paste { into, .. } => into == "document",
            _ => false,
        }
    }
}

/// Does `subtask` change a file it takes as input? Decided from data: the controls
/// its evaluation clicks (`check_mouse_clicks`) and the keys it presses
/// (`check_key_presses`), looked up by text in its application's spec (every screen).
/// It does when one of them writes a file in place ([`Op::writes_in_place`]), or
/// when it changes the open document ([`Op::changes_document`]) and never saves it
/// under a new name: the window is left holding the opened file with changes, and
/// whoever opens that file in the same application next finds them. A subtask that
/// changes a document and saves it as a new file leaves the file it opened as it
/// was (the window now holds the new one), so nodes that only read that file may
/// run beside it. A subtask of an application with no spec edits nothing. Feeds
/// [`crate::graph::Pool::mark_edited_inputs`].
pub fn edits_its_input(apps: &[LoadedApp], subtask: &crate::model::Subtask) -> bool {
    let triggered: Vec<&Op> = triggered_effects(apps, subtask)
        .into_iter()
        .map(|e| &e.op)
        .collect();
    let saved_as_new = triggered.iter().any(|op| matches!(op, Op::SaveAs { .. }));
    triggered.iter().any(|op| op.writes_in_place())
        || (!saved_as_new && triggered.iter().any(|op| op.changes_document()))
}

/// The effects `subtask` triggers: those of the controls its evaluation
/// clicks (`check_mouse_clicks`) and the keys it presses (`check_key_presses`),
/// looked up by text in its application's spec (every screen). Empty for an
/// application with no spec or a subtask with no evaluation.
fn triggered_effects<'a>(
    apps: &'a [LoadedApp],
    subtask: &'a crate::model::Subtask,
) -> Vec<&'a Effect> {
    use crate::model::CheckCall;
    let Some(app) = apps.iter().find(|a| a.spec.name == subtask.application) else {
        return Vec::new();
    };
    let Some(eval) = &subtask.evaluation else {
        return Vec::new();
    };
    let effects = effects_of(&app.spec);
    let mut out: Vec<&Effect> = Vec::new();
    for c in eval.checks.iter().filter(|c| c.expect) {
        let (text, event): (&str, &[&str]) = match &c.call {
            CheckCall::CheckMouseClicks { text } => (text, &["click", "double"]),
            CheckCall::CheckKeyPresses { keys } => (keys, &["key"]),
            _ => continue,
        };
        out.extend(
            effects
                .iter()
                .filter(|(_, t, ev, _)| t == text && event.contains(ev))
                .map(|(_, _, _, e)| *e),
        );
    }
    out
}

/// What `subtask` makes and what its edits suit, from its effects' `shows`
/// and `suits` (see [`Effect`]): the content of what it makes (the first
/// declared), and the contents every edit that declares `suits` accepts
/// (`None`: any; empty when two edits suit disjoint contents). Feeds
/// [`crate::graph::Pool::mark_contents`].
pub fn content_of(apps: &[LoadedApp], subtask: &crate::model::Subtask) -> crate::graph::Content {
    let effects = triggered_effects(apps, subtask);
    let makes = effects.iter().find_map(|e| e.shows.clone());
    let mut suits: Option<Vec<String>> = None;
    for e in effects.iter().filter(|e| !e.suits.is_empty()) {
        suits = Some(match suits {
            None => e.suits.clone(),
            Some(s) => s.into_iter().filter(|c| e.suits.contains(c)).collect(),
        });
    }
    let mut sets: Vec<String> = effects
        .iter()
        .filter_map(|e| match &e.op {
            Op::SetProp { prop, .. } => Some(prop.clone()),
            _ => None,
        })
        .collect();
    sets.sort();
    sets.dedup();
    let mut spoiled_by: Vec<String> = effects
        .iter()
        .flat_map(|e| e.spoiled_by.iter().cloned())
        .collect();
    spoiled_by.sort();
    spoiled_by.dedup();
    crate::graph::Content {
        makes,
        suits,
        sets,
        spoiled_by,
        for_sending: effects.iter().any(|e| e.for_sending),
        captures: effects
            .iter()
            .any(|e| matches!(e.op, Op::Capture { .. } | Op::Record { .. })),
        reviews: effects.iter().any(|e| e.reviews),
    }
}

/// Every effect of an app with where it is declared: (screen, control text, event).
pub fn effects_of(app: &AppSpec) -> Vec<(String, String, &'static str, &Effect)> {
    let mut out = Vec::new();
    for (key, effects) in &app.keys {
        for e in effects {
            out.push((String::new(), key.clone(), "key", e));
        }
    }
    for (sid, screen) in &app.screens {
        for (key, effects) in &screen.keys {
            for e in effects {
                out.push((sid.clone(), key.clone(), "key", e));
            }
        }
        for c in &screen.controls {
            let c = c.get_ref();
            for (ev, list) in [
                ("click", &c.click),
                ("enter", &c.enter),
                ("double", &c.double),
            ] {
                for e in list {
                    out.push((sid.clone(), c.text.clone(), ev, e));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn effects_parse_with_describe_and_reject_unknown_ops() {
        let text = r#"
name = "X"
category = "Office"
docs = "d"
start = "main"
[screens.main]
[[screens.main.controls]]
text = "Save"
type = "Button"
click = [{ do = "save_as", path = "{file_name}", kinds = ["docx"], describe = "save it" }]
"#;
        let app = parse_app(Path::new("x.toml"), text).unwrap();
        let c = app.spec.screens["main"].controls[0].get_ref();
        assert_eq!(c.click[0].describe.as_deref(), Some("save it"));
        assert_eq!(c.click[0].op.name(), "save_as");
        let bad = text.replace("save_as", "explode");
        let err = parse_app(Path::new("x.toml"), &bad)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("x.toml:10:"), "{err}");
    }

    #[test]
    fn slug_makes_field_names() {
        assert_eq!(slug("File name:"), "file_name");
        assert_eq!(slug("  To  "), "to");
    }
}
