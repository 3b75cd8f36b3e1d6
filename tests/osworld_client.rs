//! The OSWorld client (`--env osworld`) against a loopback server that speaks the
//! protocol of OSWorld's in-VM server (`desktop_env/server/main.py`) statefully:
//! it serves a PNG screenshot and an accessibility tree in OSWorld's XML, records
//! every executed command, keeps uploaded files and serves them back through
//! `/file` and `/list_directory`, and "launches" gedit by adding it to its tree
//! (through `/setup/launch`, or as GNOME's overview does: Super, "gedit",
//! Enter); text typed while gedit is open goes into its document. The tests
//! drive the client through the `Environment` trait, and the task stages
//! (`trajectories`, `bench`, `eval`, `export`) through the synth binary.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use synth::env::{run_check, EnvBackend, EnvSetup, Environment, Setup};
use synth::model::{Action, ActionCall, CheckCall, ParameterSet};
use synth::resources::Resource;

const HOME: &str = "/home/user";

/// What the fake VM holds.
#[derive(Default)]
struct Vm {
    files: BTreeMap<String, Vec<u8>>,
    dirs: BTreeSet<String>,
    /// Every `/execute` command, in order.
    executed: Vec<Vec<String>>,
    launched: Vec<Vec<String>>,
    /// The running "applications": gedit's window titles.
    gedit: Option<String>,
    /// The text of gedit's document.
    document: String,
    /// What was typed into GNOME's overview since Super opened it (None: closed).
    overview: Option<String>,
    clipboard: String,
    /// Endpoints that answer 500.
    broken: BTreeSet<String>,
}

impl Vm {
    fn programs(&self) -> Vec<String> {
        self.executed
            .iter()
            .filter(|c| c.first().map(String::as_str) == Some("python"))
            .map(|c| c[2].clone())
            .collect()
    }
}

struct Server {
    url: String,
    vm: Arc<Mutex<Vm>>,
}

fn start() -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let vm = Arc::new(Mutex::new(Vm {
        dirs: BTreeSet::from([HOME.to_string()]),
        ..Vm::default()
    }));
    // Something the VM's user already has: reset must keep it.
    vm.lock()
        .unwrap()
        .files
        .insert(format!("{HOME}/keep.txt"), b"mine".to_vec());
    let shared = vm.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let _ = serve(stream, &shared);
        }
    });
    Server { url, vm }
}

struct Request {
    method: String,
    path: String,
    content_type: String,
    body: Vec<u8>,
}

fn read_request(stream: &TcpStream) -> std::io::Result<Request> {
    let mut r = BufReader::new(stream);
    let mut line = String::new();
    r.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let path = parts.next().unwrap_or_default().to_string();
    let (mut len, mut content_type) = (0usize, String::new());
    loop {
        let mut h = String::new();
        r.read_line(&mut h)?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (k, v) = h.split_once(':').unwrap_or((h, ""));
        match k.to_ascii_lowercase().as_str() {
            "content-length" => len = v.trim().parse().unwrap_or(0),
            "content-type" => content_type = v.trim().to_string(),
            _ => {}
        }
    }
    let mut body = vec![0; len];
    r.read_exact(&mut body)?;
    Ok(Request {
        method,
        path,
        content_type,
        body,
    })
}

fn respond(mut stream: TcpStream, status: u16, content_type: &str, body: &[u8]) {
    let head = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
}

fn serve(stream: TcpStream, vm: &Mutex<Vm>) -> std::io::Result<()> {
    let req = read_request(&stream)?;
    let mut vm = vm.lock().unwrap();
    if vm.broken.contains(&req.path) {
        let body = json!({"status": "error", "message": "pyatspi exploded"}).to_string();
        respond(stream, 500, "application/json", body.as_bytes());
        return Ok(());
    }
    let json_body = || serde_json::from_slice::<Value>(&req.body).unwrap_or(Value::Null);
    let (status, ctype, body): (u16, &str, Vec<u8>) = match (req.method.as_str(), req.path.as_str())
    {
        ("GET", "/platform") => (200, "text/plain", b"Linux".to_vec()),
        ("POST", "/screen_size") => (
            200,
            "application/json",
            br#"{"width": 1920, "height": 1080}"#.to_vec(),
        ),
        ("GET", "/screenshot") => (200, "image/png", png()),
        ("GET", "/accessibility") => {
            let gedit = vm.gedit.as_deref().map(|t| (t, vm.document.as_str()));
            let at = json!({ "AT": tree(gedit) }).to_string();
            (200, "application/json", at.into_bytes())
        }
        ("POST", "/execute") | ("POST", "/setup/execute") => {
            let cmd: Vec<String> = serde_json::from_value(json_body()["command"].clone()).unwrap();
            assert_eq!(
                json_body()["shell"],
                json!(false),
                "commands run without a shell"
            );
            let output = execute(&mut vm, &cmd);
            vm.executed.push(cmd);
            let r = json!({"status": "success", "output": output, "error": "", "returncode": 0});
            (200, "application/json", r.to_string().into_bytes())
        }
        ("POST", "/setup/launch") => {
            let cmd: Vec<String> = serde_json::from_value(json_body()["command"].clone()).unwrap();
            if cmd[0] == "gedit" {
                let title = cmd
                    .get(1)
                    .map(|p| p.rsplit('/').next().unwrap().to_string())
                    .unwrap_or_else(|| "Untitled Document 1".into());
                vm.gedit = Some(format!("{title} - gedit"));
                vm.document = "Tom & Jerry".into();
            }
            vm.launched.push(cmd);
            (200, "text/plain", b"launched successfully".to_vec())
        }
        ("POST", "/setup/upload") => match multipart(&req) {
            Some((path, data)) => {
                let parent = path.rsplit_once('/').unwrap().0.to_string();
                if vm.dirs.contains(&parent) {
                    vm.files.insert(path, data);
                    (200, "text/plain", b"File Uploaded".to_vec())
                } else {
                    (500, "text/html", b"FileNotFoundError".to_vec())
                }
            }
            None => (
                400,
                "application/json",
                br#"{"error": "file_path and file_data are required"}"#.to_vec(),
            ),
        },
        ("POST", "/file") => {
            let form = urldecode_form(&req.body);
            match form.get("file_path").and_then(|p| vm.files.get(p)) {
                Some(data) => (200, "application/octet-stream", data.clone()),
                None => (
                    404,
                    "application/json",
                    br#"{"error": "File not found"}"#.to_vec(),
                ),
            }
        }
        ("POST", "/list_directory") => {
            let path = json_body()["path"].as_str().unwrap_or_default().to_string();
            if vm.dirs.contains(&path) {
                let t = json!({ "directory_tree": listing(&vm, &path) });
                (200, "application/json", t.to_string().into_bytes())
            } else {
                (
                    400,
                    "application/json",
                    br#"{"error": "The provided path is not a directory"}"#.to_vec(),
                )
            }
        }
        _ => (404, "text/html", b"Not Found".to_vec()),
    };
    respond(stream, status, ctype, &body);
    Ok(())
}

/// The effect of one executed command on the VM; what it prints.
fn execute(vm: &mut Vm, cmd: &[String]) -> String {
    match cmd[0].as_str() {
        "mkdir" => {
            for d in cmd.iter().skip(3) {
                let mut p = String::new();
                for part in d.split('/').filter(|p| !p.is_empty()) {
                    p = format!("{p}/{part}");
                    vm.dirs.insert(p.clone());
                }
            }
            String::new()
        }
        "rm" => {
            for d in cmd.iter().skip(3) {
                let under = format!("{d}/");
                vm.files.retain(|f, _| f != d && !f.starts_with(&under));
                vm.dirs.retain(|f| f != d && !f.starts_with(&under));
            }
            String::new()
        }
        "python" => {
            let program = &cmd[2];
            if program.contains("wmctrl") {
                vm.gedit = None;
            }
            if program.contains("pyautogui") {
                keyboard(vm, program);
            }
            if program.contains("sys.stdout.write(pyperclip.paste())") {
                return vm.clipboard.clone();
            }
            if let Some(at) = program.find("pyperclip.copy(\"") {
                if !program.contains("pyautogui") {
                    let lit = &program[at + "pyperclip.copy(".len()..program.len() - 1];
                    vm.clipboard = serde_json::from_str(lit).unwrap();
                }
            }
            String::new()
        }
        _ => String::new(),
    }
}

/// The key input of a pyautogui program on the fake desktop: Super opens
/// GNOME's overview, text typed there searches and Enter starts gedit when
/// that was searched (a gedit already open stays as it is); text typed
/// elsewhere goes into gedit's document when it is open.
fn keyboard(vm: &mut Vm, program: &str) {
    for line in program.lines() {
        if let Some(rest) = line.strip_prefix("pyautogui.write(") {
            let literal = &rest[..rest.rfind(", interval").unwrap()];
            let text: String = serde_json::from_str(literal).unwrap();
            match (&mut vm.overview, &vm.gedit) {
                (Some(search), _) => search.push_str(&text),
                (None, Some(_)) => vm.document.push_str(&text),
                (None, None) => {}
            }
        } else if line == r#"pyautogui.hotkey("win")"# {
            vm.overview = Some(String::new());
        } else if line == r#"pyautogui.hotkey("enter")"#
            // Enter closes the overview whatever was searched.
            && vm.overview.take().as_deref() == Some("gedit")
            && vm.gedit.is_none()
        {
            vm.gedit = Some("Untitled Document 1 - gedit".into());
            vm.document = String::new();
        }
    }
}

fn listing(vm: &Vm, dir: &str) -> Value {
    let prefix = format!("{dir}/");
    let direct = |p: &String| p.strip_prefix(&prefix).is_some_and(|r| !r.contains('/'));
    let mut children: Vec<Value> = vm
        .dirs
        .iter()
        .filter(|d| direct(d))
        .map(|d| listing(vm, d))
        .collect();
    children.extend(
        vm.files
            .keys()
            .filter(|f| direct(f))
            .map(|f| json!({"type": "file", "name": f.rsplit('/').next().unwrap()})),
    );
    json!({"type": "directory", "name": dir.rsplit('/').next().unwrap(), "children": children})
}

/// The accessibility tree, as OSWorld's server writes it.
fn tree(gedit: Option<(&str, &str)>) -> String {
    let mut xml = String::from(
        r#"<desktop-frame xmlns:st="https://accessibility.ubuntu.example.org/ns/state" xmlns:cp="https://accessibility.ubuntu.example.org/ns/component"><application name="gnome-shell" st:enabled="true"><window name="" st:showing="true" st:visible="true" cp:screencoord="(0, 0)" cp:size="(1920, 1080)"/></application>"#,
    );
    if let Some((title, document)) = gedit {
        let document = document
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;");
        xml.push_str(&format!(
            r#"<application name="gedit"><frame name="{title}" st:showing="true" st:visible="true" st:active="true" cp:screencoord="(0, 0)" cp:size="(1920, 1080)"><menu-bar name="" st:showing="true" cp:screencoord="(0, 30)" cp:size="(1920, 24)"><menu name="File" st:showing="true" st:visible="true" cp:screencoord="(4, 30)" cp:size="(40, 24)"><menu-item name="Save As…" st:visible="true" cp:screencoord="(4, 60)" cp:size="(160, 24)"/></menu></menu-bar><push-button name="Save" st:showing="true" st:visible="true" cp:screencoord="(1700, 10)" cp:size="(80, 30)"></push-button><scroll-pane name="" st:showing="true" cp:screencoord="(0, 60)" cp:size="(1920, 1000)"><text name="" st:showing="true" st:visible="true" st:editable="true" cp:screencoord="(0, 60)" cp:size="(1920, 1000)">{document}</text></scroll-pane></frame></application>"#
        ));
    }
    xml.push_str("</desktop-frame>");
    xml
}

fn png() -> Vec<u8> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, 4, 4);
    enc.set_color(png::ColorType::Rgb);
    let mut w = enc.write_header().unwrap();
    w.write_image_data(&[90u8; 48]).unwrap();
    w.finish().unwrap();
    out
}

/// `file_path` and `file_data` of a multipart form.
fn multipart(req: &Request) -> Option<(String, Vec<u8>)> {
    let boundary = req
        .content_type
        .split("boundary=")
        .nth(1)?
        .trim_matches('"');
    let sep = format!("--{boundary}");
    let body = &req.body;
    let mut fields = BTreeMap::new();
    let mut starts: Vec<usize> = Vec::new();
    let mut i = 0;
    while let Some(at) = find(&body[i..], sep.as_bytes()) {
        starts.push(i + at);
        i += at + sep.len();
    }
    for w in starts.windows(2) {
        let part = &body[w[0] + sep.len() + 2..w[1] - 2];
        let split = find(part, b"\r\n\r\n")?;
        let head = String::from_utf8_lossy(&part[..split]).to_string();
        let name = head.split("name=\"").nth(1)?.split('"').next()?.to_string();
        fields.insert(name, part[split + 4..].to_vec());
    }
    let path = String::from_utf8(fields.remove("file_path")?).ok()?;
    Some((path, fields.remove("file_data")?))
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn urldecode_form(body: &[u8]) -> BTreeMap<String, String> {
    let text = String::from_utf8_lossy(body);
    text.split('&')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (decode(k), decode(v)))
        .collect()
}

fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => {
                out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
                i += 2;
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8(out).unwrap()
}

/// The error of opening a desktop that must not open.
fn open_error(setup: &EnvSetup, slot: usize) -> String {
    match setup.open(workspace(), slot) {
        Ok(_) => panic!("the desktop opened"),
        Err(e) => e.to_string(),
    }
}

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn open(server: &Server) -> Box<dyn Environment + Send> {
    let setup = EnvSetup {
        backend: EnvBackend::Osworld,
        osworld_url: Some(server.url.clone()),
    };
    setup.open(workspace(), 0).unwrap()
}

fn with_gedit() -> Setup {
    Setup {
        launch: vec!["gedit".into()],
        ..Setup::default()
    }
}

fn act(call: ActionCall, text: &str) -> Action {
    Action {
        call,
        control_label: None,
        control_text: text.into(),
    }
}

#[test]
fn observe_reads_controls_with_their_boxes_and_the_captured_screen() {
    let server = start();
    let mut desk = open(&server);
    assert_eq!(desk.backend(), EnvBackend::Osworld);
    assert!(desk
        .applications()
        .contains(&"LibreOffice Calc".to_string()));
    let obs = desk.reset(&with_gedit()).unwrap();
    assert_eq!(
        server.vm.lock().unwrap().launched,
        [vec!["gedit".to_string()]]
    );
    assert_eq!(obs.window_title, "Untitled Document 1 - gedit");
    assert_eq!(obs.scene.app.as_deref(), Some("gedit"));
    let save = obs
        .controls
        .iter()
        .find(|c| c.control_text == "Save")
        .expect("the Save button");
    assert_eq!(save.control_type, "Button");
    assert_eq!(save.rect, [1700, 10, 1780, 40]);
    assert_eq!(save.parent_control_text, "Untitled Document 1 - gedit");
    assert_eq!(save.parent_control_type, "Window");
    let file = obs
        .controls
        .iter()
        .find(|c| c.control_text == "File")
        .unwrap();
    assert_eq!(file.control_type, "MenuItem");
    // The menu's item is not showing: not a control.
    assert!(!obs
        .controls
        .iter()
        .any(|c| c.control_text.starts_with("Save As")));
    let text = obs
        .controls
        .iter()
        .find(|c| c.control_type == "Edit")
        .unwrap();
    assert_eq!(text.control_text, "Tom & Jerry");
    let shot = obs.screenshot(false).unwrap();
    assert_eq!(shot, png());
    assert!(desk.probes().window_titles().contains(&obs.window_title));
}

#[test]
fn a_click_on_a_control_clicks_its_centre() {
    let server = start();
    let mut desk = open(&server);
    desk.reset(&with_gedit()).unwrap();
    let out = desk
        .step(&act(
            ActionCall::ClickInput {
                button: "left".into(),
                double: false,
            },
            "Save",
        ))
        .unwrap();
    assert!(out.ok);
    assert_eq!(out.observation.feedback.as_deref(), Some("Clicked 'Save'"));
    let programs = server.vm.lock().unwrap().programs();
    let last = programs.last().unwrap();
    assert!(
        last.contains("pyautogui.click(x=1740, y=25, button='left', clicks=1"),
        "{last}"
    );
    assert!(run_check(
        &CheckCall::CheckMouseClicks {
            text: "Save".into()
        },
        desk.probes()
    ));
    // A control that is not there: no input at all, and the step says so.
    let before = server.vm.lock().unwrap().executed.len();
    let out = desk
        .step(&act(
            ActionCall::ClickInput {
                button: "left".into(),
                double: false,
            },
            "Nowhere",
        ))
        .unwrap();
    assert!(!out.ok);
    assert_eq!(server.vm.lock().unwrap().executed.len(), before);
}

#[test]
fn typing_quotes_newlines_and_keys_is_quoted_python() {
    let server = start();
    let mut desk = open(&server);
    desk.reset(&with_gedit()).unwrap();
    let keys = "He said \"hi\"\nto O'Brien \\o/{ENTER}^s";
    let out = desk
        .step(&act(ActionCall::KeyboardInput { keys: keys.into() }, ""))
        .unwrap();
    assert!(out.ok);
    let programs = server.vm.lock().unwrap().programs();
    let last = programs.last().unwrap();
    let lines: Vec<&str> = last.lines().collect();
    assert_eq!(
        lines[2],
        r#"pyautogui.write("He said \"hi\"\nto O'Brien \\o/", interval=0.01)"#
    );
    assert_eq!(lines[3], r#"pyautogui.hotkey("enter")"#);
    assert_eq!(lines[4], r#"pyautogui.hotkey("ctrl", "s")"#);
    assert_eq!(lines.len(), 5, "{last}");
    let p = desk.probes();
    assert!(run_check(
        &CheckCall::CheckKeyboardTypes {
            text: "O'Brien".into()
        },
        p
    ));
    assert!(run_check(
        &CheckCall::CheckKeyPresses { keys: "^s".into() },
        p
    ));
    // An unknown key combination is refused, not sent.
    let before = server.vm.lock().unwrap().executed.len();
    let err = desk
        .step(&act(
            ActionCall::KeyboardInput {
                keys: "{BOGUS}".into(),
            },
            "",
        ))
        .unwrap_err()
        .to_string();
    assert!(err.contains("bogus"), "{err}");
    assert_eq!(server.vm.lock().unwrap().executed.len(), before);
}

#[test]
fn prepare_uploads_a_file_that_the_check_apis_read_back() {
    let server = start();
    let mut desk = open(&server);
    desk.reset(&Setup::default()).unwrap();
    let path = "/home/user/Projects/new/notes.txt";
    let input = Resource::new("txt_path", Some(path.into()));
    assert!(!desk.holds(&input));
    desk.prepare("gedit", &input, &ParameterSet::default())
        .unwrap();
    assert!(desk.holds(&input));
    let uploaded = server.vm.lock().unwrap().files.get(path).cloned().unwrap();
    let text = desk.probes().file_text(path).unwrap();
    assert_eq!(text.as_bytes(), uploaded);
    assert!(!text.is_empty());
    let first_line = text.lines().next().unwrap().to_string();
    assert!(run_check(
        &CheckCall::CheckFileContains {
            file_path: path.into(),
            text: first_line
        },
        desk.probes()
    ));
    assert!(desk.probes().dir_exists("/home/user/Projects/new"));
    assert!(desk
        .probes()
        .paths_under("/home/user/Projects")
        .contains(&(path.to_string(), false)));
    // The clipboard goes through the VM too.
    let clip = Resource::new("text_in_clipboard", Some("it's \"quoted\"\nline".into()));
    desk.prepare("gedit", &clip, &ParameterSet::default())
        .unwrap();
    assert_eq!(
        desk.probes().clipboard_text().as_deref(),
        Some("it's \"quoted\"\nline")
    );
    assert!(desk.holds(&clip));
}

#[test]
fn reset_closes_applications_removes_new_files_and_restores_the_initial_ones() {
    let server = start();
    let mut desk = open(&server);
    let setup = Setup {
        launch: vec!["gedit".into()],
        files: BTreeMap::from([("/home/user/task/a.txt".to_string(), "task file".to_string())]),
        clipboard_text: Some("clip".into()),
    };
    desk.reset(&setup).unwrap();
    assert_eq!(
        desk.probes().file_text("/home/user/task/a.txt").as_deref(),
        Some("task file")
    );
    assert_eq!(desk.probes().clipboard_text().as_deref(), Some("clip"));
    // The initial files of the real desktops are there.
    let initial = server.vm.lock().unwrap().files.len();
    assert!(initial > 10, "{initial} files");
    // The local desktop's program settings (LibreOffice's, under .config) stay
    // local: the VM keeps its own.
    let hidden: Vec<String> = (server.vm.lock().unwrap().files.keys())
        .filter(|p| p.contains("/."))
        .cloned()
        .collect();
    assert!(hidden.is_empty(), "{hidden:?}");
    desk.step(&act(
        ActionCall::ClickInput {
            button: "left".into(),
            double: false,
        },
        "Save",
    ))
    .unwrap();
    assert!(!desk.probes().events().is_empty());

    let obs = desk.reset(&Setup::default()).unwrap();
    assert_eq!(obs.window_title, "");
    assert!(obs.controls.is_empty());
    assert!(desk.probes().events().is_empty());
    assert_eq!(desk.probes().file_text("/home/user/task/a.txt"), None);
    assert!(!desk.probes().dir_exists("/home/user/task"));
    assert_eq!(desk.probes().clipboard_text(), None);
    // What the VM's user had is kept.
    assert_eq!(
        desk.probes().file_text("/home/user/keep.txt").as_deref(),
        Some("mine")
    );
    let vm = server.vm.lock().unwrap();
    assert!(vm.programs().iter().any(|p| p.contains("wmctrl")));
    assert!(vm
        .executed
        .iter()
        .any(|c| c[0] == "rm" && c.contains(&"/home/user/task".to_string())));
}

#[test]
fn a_server_error_is_one_clear_error_naming_the_endpoint() {
    let server = start();
    let mut desk = open(&server);
    desk.reset(&with_gedit()).unwrap();
    server
        .vm
        .lock()
        .unwrap()
        .broken
        .insert("/accessibility".into());
    let err = desk.observe().unwrap_err().to_string();
    assert!(err.starts_with("osworld desktop: "), "{err}");
    assert!(
        err.contains(&format!("{}/accessibility", server.url)),
        "{err}"
    );
    assert!(
        err.contains("500") && err.contains("pyatspi exploded"),
        "{err}"
    );
}

#[test]
fn an_unreachable_server_fails_quickly_with_a_clear_message() {
    // A port nobody listens on.
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{port}");
    let setup = EnvSetup {
        backend: EnvBackend::Osworld,
        osworld_url: Some(url.clone()),
    };
    let started = Instant::now();
    let err = open_error(&setup, 0);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(
        err.contains(&url) && err.contains("cannot connect"),
        "{err}"
    );
    // No URL, or a second desktop for one VM: said before anything is sent.
    let none = EnvSetup {
        backend: EnvBackend::Osworld,
        osworld_url: None,
    };
    assert!(open_error(&none, 0).contains("--osworld-url"));
    assert!(open_error(&setup, 1).contains("--jobs 1"));
}

// ---------------------------------------------------------------------------
// Task stages on the VM, through the synth binary

/// A verified gedit subtask: type a line into the document. Its demonstration
/// for each parameter set types the line, with gedit's window in front.
fn gedit_line() -> synth::model::Subtask {
    let line = |i: usize, text: &str| {
        json!({
            "trajectory_id": format!("gedit-line-p{i}"),
            "instruction": format!("In gedit, type '{text}'."),
            "observations": [],
            "subtask_id": "gedit-line",
            "parameter_index": i,
            "actions": [{
                "function": "keyboard_input", "args": {"keys": text},
                "rect": [0, 0, 0, 0], "description": "", "thought": "I type the line.",
                "effect": "Typed", "control_text": ""
            }]
        })
    };
    serde_json::from_value(json!({
        "id": "gedit-line",
        "instruction_template": "In gedit, type '{line}'.",
        "application": "gedit",
        "category": "Office",
        "OS": "Linux",
        "available_parameters": [{"line": "alpha"}, {"line": "beta"}],
        "input_resources": [],
        "output_resources": [],
        "evaluation": {"checks": [
            {"api": "check_text_exists_via_control", "args": {"text": "{line}"},
             "message": "the document does not show '{line}'"}
        ]},
        "trajectories": [line(0, "alpha"), line(1, "beta")]
    }))
    .unwrap()
}

/// A validated task of two gedit nodes, alpha then beta.
fn alpha_then_beta() -> synth::model::Task {
    let node = |i: usize, text: &str| {
        json!({"subtask_id": "gedit-line", "parameter_index": i, "application": "gedit",
               "category": "Office", "instruction": format!("In gedit, type '{text}'.")})
    };
    serde_json::from_value(json!({
        "task_id": "t-gedit",
        "task_instruction": "In gedit, type 'alpha', then type 'beta'.",
        "dag": {"nodes": ["n1", "n2"], "edges": {"n1": ["n2"], "n2": []}},
        "task_intent": "Two lines in gedit.",
        "successful_topo": [["n1", "n2"]],
        "nodes": {"n1": node(0, "alpha"), "n2": node(1, "beta")}
    }))
    .unwrap()
}

/// A workspace whose store holds the gedit subtask and the validated task.
fn gedit_workspace() -> common::Workspace {
    use synth::model::SubtaskStatus;
    use synth::store::{Store, TaskStatus};
    let ws = common::Workspace::new();
    let store = Store::open(&ws.file("generated/synth.sqlite")).unwrap();
    store
        .put_subtask(&gedit_line(), SubtaskStatus::Verified, None, None)
        .unwrap();
    let task = alpha_then_beta();
    store
        .add_dataset(
            1,
            "test",
            &json!({}),
            "test",
            1,
            std::slice::from_ref(&task),
            None,
            None,
        )
        .unwrap();
    store
        .record_validation(&task, TaskStatus::Validated, None, &[])
        .unwrap();
    ws
}

/// The global flags that run a command on the loopback VM with one desktop.
fn on_the_vm(url: &str) -> [&str; 6] {
    ["--env", "osworld", "--osworld-url", url, "--jobs", "1"]
}

fn keys_of(actions: &Value) -> Vec<String> {
    actions
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["args"]["keys"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn task_trajectories_open_each_application_from_gnome_s_overview_and_replay() {
    let server = start();
    let ws = gedit_workspace();
    let env = on_the_vm(&server.url);
    let report = ws.ok(&[&env[..], &["trajectories"]].concat());
    assert!(
        report.contains("1 replay to full coverage (100.0%)"),
        "{report}"
    );
    let text = std::fs::read_to_string(ws.file("generated/task_trajectories.jsonl")).unwrap();
    let trajs: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(trajs.len(), 1, "{text}");
    assert_eq!(
        keys_of(&trajs[0]["actions"]),
        ["{LWIN}", "gedit", "{ENTER}", "alpha", "{LWIN}", "gedit", "{ENTER}", "beta"]
    );
    // The replay typed into the document of the gedit the overview started;
    // the search went to the overview, not into the document.
    let vm = server.vm.lock().unwrap();
    assert_eq!(vm.document, "alphabeta");
    assert!(vm.launched.is_empty(), "{:?}", vm.launched);
    drop(vm);

    // The sharegpt export replays it on the VM for its screenshots.
    let out = ws.ok(&[
        &env[..],
        &["export", "--format", "sharegpt", "--out", "out"],
    ]
    .concat());
    let images: Vec<_> = walk(&ws.file("out"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "png"))
        .collect();
    assert!(!images.is_empty(), "{out}");
    assert!(
        images.iter().all(|p| std::fs::read(p).unwrap() == png()),
        "{images:?}"
    );
}

#[test]
fn bench_and_eval_score_runs_on_the_vm() {
    let server = start();
    let ws = gedit_workspace();
    let env = on_the_vm(&server.url);
    ws.ok(&[&env[..], &["bench", "--agent", "offline"]].concat());
    let scores: Value = serde_json::from_str(
        &std::fs::read_to_string(ws.file("generated/bench/offline/scores.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(scores["overall"]["success_rate"], json!(1.0), "{scores}");
    assert_eq!(scores["per_task"][0]["completed"], json!(2), "{scores}");

    // eval replays the runs on the VM: the offline agent's full marks, and a
    // run that stops after the first node completes only that node.
    let out = ws.ok(&[
        &env[..],
        &[
            "eval",
            "--runs",
            "generated/bench/offline/runs",
            "--json",
            "full.json",
        ],
    ]
    .concat());
    let full: Value =
        serde_json::from_str(&std::fs::read_to_string(ws.file("full.json")).unwrap()).unwrap();
    assert_eq!(full["overall"]["coverage_rate"], json!(1.0), "{out}");
    let run_path = ws.file("generated/bench/offline/runs/t-gedit.json");
    let mut run: Value =
        serde_json::from_str(&std::fs::read_to_string(&run_path).unwrap()).unwrap();
    assert_eq!(
        keys_of(&run["actions"])[..4],
        ["{LWIN}", "gedit", "{ENTER}", "alpha"]
    );
    run["actions"].as_array_mut().unwrap().truncate(4);
    std::fs::create_dir_all(ws.file("half")).unwrap();
    std::fs::write(ws.file("half/t-gedit.json"), run.to_string()).unwrap();
    ws.ok(&[&env[..], &["eval", "--runs", "half", "--json", "half.json"]].concat());
    let half: Value =
        serde_json::from_str(&std::fs::read_to_string(ws.file("half.json")).unwrap()).unwrap();
    // Coverage weighs a node by its depth: n1 of n1 -> n2 is 1 of 3.
    assert_eq!(half["per_task"][0]["completed"], json!(1), "{half}");
    assert_eq!(half["overall"]["coverage_rate"], json!(1.0 / 3.0), "{half}");
    assert_eq!(half["overall"]["success_rate"], json!(0.0), "{half}");
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
