//! The HTTP side of `--env osworld`: one call per endpoint of OSWorld's in-VM
//! server (`desktop_env/server/main.py`, a Flask app on port 5000), with the
//! payloads its own client controllers send and the replies it gives.
//!
//! | call | endpoint | request | reply |
//! | --- | --- | --- | --- |
//! | [`Client::platform`] | `GET /platform` | - | text ("Linux") |
//! | [`Client::screen_size`] | `POST /screen_size` | - | `{"width", "height"}` |
//! | [`Client::screenshot`] | `GET /screenshot` | - | PNG |
//! | [`Client::accessibility`] | `GET /accessibility` | - | `{"AT": xml}` |
//! | [`Client::execute`] | `POST /execute` | `{"command": [...], "shell": false}` | `{"status", "output", "error", "returncode"}` |
//! | [`Client::launch`] | `POST /setup/launch` | `{"command": [...], "shell": false}` | text |
//! | [`Client::open_file`] | `POST /setup/open_file` | `{"path"}` | text |
//! | [`Client::upload`] | `POST /setup/upload` | multipart `file_path`, `file_data` | text |
//! | [`Client::file`] | `POST /file` | form `file_path` | the file's bytes (404: none) |
//! | [`Client::list_directory`] | `POST /list_directory` | `{"path"}` | `{"directory_tree": tree}` (400: not a folder) |
//!
//! Every failure is one [`EnvError::Backend`] naming the server and the
//! endpoint. Transient failures (no connection, a timeout, 502/503/504) are tried
//! again twice after a short pause; an answer the server meant (another status)
//! is not.

use std::time::Duration;

use reqwest::blocking::{multipart, Client as Http, RequestBuilder};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::env::EnvError;

/// Attempts of one call: the first and two more for transient failures.
const ATTEMPTS: u32 = 3;
/// Pause before the second attempt (doubled before the third).
const PAUSE: Duration = Duration::from_millis(300);
/// Opening a connection.
const CONNECT_LIMIT: Duration = Duration::from_secs(5);
/// A quick call (the tree of a big document takes seconds on a VM).
const QUICK_LIMIT: Duration = Duration::from_secs(60);
/// `/execute`: the server gives a command 120 s.
const EXECUTE_LIMIT: Duration = Duration::from_secs(130);

pub(crate) fn fail(message: impl Into<String>) -> EnvError {
    EnvError::backend("osworld", message)
}

/// What `/execute` answers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Executed {
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub output: String,
    #[serde(default)]
    pub error: String,
    #[serde(default)]
    pub returncode: i64,
}

/// A folder of `/list_directory`'s tree.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct DirTree {
    #[serde(default)]
    pub name: String,
    #[serde(rename = "type", default)]
    pub kind: String,
    #[serde(default)]
    pub children: Vec<DirTree>,
}

/// The body of one request, rebuilt for every attempt.
enum Body<'a> {
    Empty,
    Json(Value),
    Form(&'a [(&'a str, &'a str)]),
    Upload { path: &'a str, bytes: &'a [u8] },
}

/// A server's answer that was not a transient failure.
struct Reply {
    status: u16,
    bytes: Vec<u8>,
}

/// A client of one OSWorld server (`http://HOST:5000`).
pub struct Client {
    base: String,
    http: Http,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Client({})", self.base)
    }
}

impl Client {
    /// A client of the server at `url` (its scheme and host; a trailing `/` is
    /// dropped). Nothing is sent yet.
    ///
    /// # Errors
    /// A URL that is not `http://` or `https://`, or an HTTP stack that cannot start.
    pub fn new(url: &str) -> Result<Client, EnvError> {
        let base = url.trim().trim_end_matches('/').to_string();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(fail(format!(
                "--osworld-url '{url}' is not an http:// URL of the VM's server (http://HOST:5000)"
            )));
        }
        let http = off_runtime(|| {
            Http::builder()
                .connect_timeout(CONNECT_LIMIT)
                .timeout(QUICK_LIMIT)
                .build()
        })
        .map_err(|e| fail(format!("cannot start an HTTP client: {e}")))?;
        Ok(Client { base, http })
    }

    /// The server's address.
    pub fn url(&self) -> &str {
        &self.base
    }

    /// `GET /platform`: the VM's operating system ("Linux").
    pub fn platform(&self) -> Result<String, EnvError> {
        let r = self.ok("GET", "/platform", Body::Empty, QUICK_LIMIT)?;
        Ok(String::from_utf8_lossy(&r).trim().to_string())
    }

    /// `POST /screen_size`: the screen's width and height in pixels.
    pub fn screen_size(&self) -> Result<(u32, u32), EnvError> {
        #[derive(Deserialize)]
        struct Size {
            width: u32,
            height: u32,
        }
        let s: Size = self.json("POST", "/screen_size", Body::Empty, QUICK_LIMIT)?;
        Ok((s.width, s.height))
    }

    /// `GET /screenshot`: the screen as PNG.
    pub fn screenshot(&self) -> Result<Vec<u8>, EnvError> {
        let png = self.ok("GET", "/screenshot", Body::Empty, QUICK_LIMIT)?;
        if !png.starts_with(b"\x89PNG\r\n\x1a\n") {
            return Err(self.error("/screenshot", "the answer is not a PNG image"));
        }
        Ok(png)
    }

    /// `GET /accessibility`: the accessibility tree as OSWorld's XML.
    pub fn accessibility(&self) -> Result<String, EnvError> {
        #[derive(Deserialize)]
        struct Tree {
            #[serde(rename = "AT")]
            at: Option<String>,
        }
        let t: Tree = self.json("GET", "/accessibility", Body::Empty, QUICK_LIMIT)?;
        t.at.ok_or_else(|| self.error("/accessibility", "the answer has no tree (\"AT\": null)"))
    }

    /// `POST /execute`: runs `command` (no shell) and waits for it.
    pub fn execute(&self, command: &[String]) -> Result<Executed, EnvError> {
        let body = Body::Json(json!({ "command": command, "shell": false }));
        self.json("POST", "/execute", body, EXECUTE_LIMIT)
    }

    /// `POST /setup/launch`: starts `command` (no shell) without waiting.
    pub fn launch(&self, command: &[String]) -> Result<(), EnvError> {
        let body = Body::Json(json!({ "command": command, "shell": false }));
        self.ok("POST", "/setup/launch", body, QUICK_LIMIT)
            .map(drop)
    }

    /// `POST /setup/open_file`: opens `path` with the VM's default application.
    pub fn open_file(&self, path: &str) -> Result<(), EnvError> {
        let body = Body::Json(json!({ "path": path }));
        self.ok("POST", "/setup/open_file", body, QUICK_LIMIT)
            .map(drop)
    }

    /// `POST /setup/upload`: writes `bytes` to `path` in the VM (its folder must exist).
    pub fn upload(&self, path: &str, bytes: &[u8]) -> Result<(), EnvError> {
        self.ok(
            "POST",
            "/setup/upload",
            Body::Upload { path, bytes },
            QUICK_LIMIT,
        )
        .map(drop)
    }

    /// `POST /file`: the bytes of the VM's file `path`; None when there is none.
    pub fn file(&self, path: &str) -> Result<Option<Vec<u8>>, EnvError> {
        let form = [("file_path", path)];
        let r = self.send("POST", "/file", &|| Body::Form(&form), QUICK_LIMIT)?;
        match r.status {
            200 => Ok(Some(r.bytes)),
            404 => Ok(None),
            _ => Err(self.status_error("/file", &r)),
        }
    }

    /// `POST /list_directory`: the tree below the VM's folder `path`; None when
    /// it is not a folder.
    pub fn list_directory(&self, path: &str) -> Result<Option<DirTree>, EnvError> {
        #[derive(Deserialize)]
        struct Listing {
            directory_tree: DirTree,
        }
        let body = || Body::Json(json!({ "path": path }));
        let r = self.send("POST", "/list_directory", &body, QUICK_LIMIT)?;
        match r.status {
            200 => serde_json::from_slice::<Listing>(&r.bytes)
                .map(|l| Some(l.directory_tree))
                .map_err(|e| self.error("/list_directory", format!("unexpected answer: {e}"))),
            400 => Ok(None),
            _ => Err(self.status_error("/list_directory", &r)),
        }
    }

    /// A call whose answer must be 200; its body.
    fn ok(
        &self,
        method: &str,
        endpoint: &str,
        body: Body<'_>,
        limit: Duration,
    ) -> Result<Vec<u8>, EnvError> {
        // The body is rebuilt per attempt; JSON values are cloned.
        let make = || match &body {
            Body::Empty => Body::Empty,
            Body::Json(v) => Body::Json(v.clone()),
            Body::Form(f) => Body::Form(f),
            Body::Upload { path, bytes } => Body::Upload { path, bytes },
        };
        let r = self.send(method, endpoint, &make, limit)?;
        if r.status == 200 {
            Ok(r.bytes)
        } else {
            Err(self.status_error(endpoint, &r))
        }
    }

    /// A call whose answer must be 200 and JSON of type `T`.
    fn json<T: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        endpoint: &str,
        body: Body<'_>,
        limit: Duration,
    ) -> Result<T, EnvError> {
        let bytes = self.ok(method, endpoint, body, limit)?;
        serde_json::from_slice(&bytes)
            .map_err(|e| self.error(endpoint, format!("unexpected answer: {e}")))
    }

    /// Sends a request, trying transient failures again; any answer the server
    /// meant is returned with its status.
    fn send<'b>(
        &self,
        method: &str,
        endpoint: &str,
        body: &dyn Fn() -> Body<'b>,
        limit: Duration,
    ) -> Result<Reply, EnvError> {
        let url = format!("{}{endpoint}", self.base);
        let mut last = String::new();
        for attempt in 0..ATTEMPTS {
            if attempt > 0 {
                std::thread::sleep(PAUSE * 2u32.pow(attempt - 1));
            }
            let request = self.request(method, &url, body(), limit);
            match off_runtime(|| request.send().and_then(|r| Ok((r.status(), r.bytes()?)))) {
                Ok((status, bytes)) if !matches!(status.as_u16(), 502..=504) => {
                    return Ok(Reply {
                        status: status.as_u16(),
                        bytes: bytes.to_vec(),
                    })
                }
                Ok((status, _)) => last = format!("the server answered {status}"),
                Err(e) if e.is_connect() => last = format!("cannot connect ({})", root_cause(&e)),
                Err(e) if e.is_timeout() => {
                    last = format!("no answer within {} s", limit.as_secs())
                }
                Err(e) => last = root_cause(&e),
            }
        }
        Err(self.error(endpoint, format!("{last} (tried {ATTEMPTS} times)")))
    }

    fn request(&self, method: &str, url: &str, body: Body<'_>, limit: Duration) -> RequestBuilder {
        let rb = match method {
            "GET" => self.http.get(url),
            _ => self.http.post(url),
        }
        .timeout(limit);
        match body {
            Body::Empty => rb,
            Body::Json(v) => rb.json(&v),
            Body::Form(f) => rb.form(f),
            Body::Upload { path, bytes } => {
                let name = path.rsplit('/').next().unwrap_or("file").to_string();
                let part = multipart::Part::bytes(bytes.to_vec()).file_name(name);
                rb.multipart(
                    multipart::Form::new()
                        .text("file_path", path.to_string())
                        .part("file_data", part),
                )
            }
        }
    }

    /// One error naming the server and the endpoint.
    fn error(&self, endpoint: &str, what: impl std::fmt::Display) -> EnvError {
        fail(format!("{}{endpoint}: {what}", self.base))
    }

    fn status_error(&self, endpoint: &str, r: &Reply) -> EnvError {
        let text = String::from_utf8_lossy(&r.bytes);
        let said = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| {
                ["message", "error"]
                    .iter()
                    .find_map(|k| v.get(k).and_then(Value::as_str).map(str::to_string))
            })
            .unwrap_or_else(|| text.chars().take(200).collect());
        self.error(
            endpoint,
            format!("the server answered {}: {}", r.status, said.trim()),
        )
    }
}

/// The innermost cause of an HTTP error ("Connection refused (os error 111)").
fn root_cause(e: &dyn std::error::Error) -> String {
    let mut cause = e;
    while let Some(next) = cause.source() {
        cause = next;
    }
    cause.to_string()
}

/// Runs `f` on a thread of its own when called inside an async runtime (where
/// reqwest's blocking client must not wait), else right here.
fn off_runtime<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    if tokio::runtime::Handle::try_current().is_ok() {
        std::thread::scope(|s| s.spawn(f).join().expect("HTTP thread panicked"))
    } else {
        f()
    }
}
