//! Reading the accessibility tree of a running application over the AT-SPI bus.
//!
//! The `atspi` client is async (zbus). The environment's methods are synchronous
//! and are called from inside the pipeline's tokio runtime, where blocking on a
//! future would panic, so the connection lives on a dedicated thread with its own
//! runtime; [`A11y::controls`] sends it a request and waits for the answer.

use std::sync::mpsc;
use std::thread;

use atspi::proxy::accessible::{AccessibleProxy, ObjectRefExt};
use atspi::proxy::proxy_ext::ProxyExt;
use atspi::{CoordType, State};

use crate::env::EnvError;

pub use crate::env::real::Node;

type Request = (String, mpsc::Sender<Result<Vec<Node>, String>>);

/// The handle to the accessibility thread.
#[derive(Debug)]
pub struct A11y {
    tx: mpsc::Sender<Request>,
}

/// Most nodes read from one application (a guard against huge trees).
const MAX_NODES: usize = 1500;

impl A11y {
    /// Starts the thread, connected to the accessibility bus of the session whose
    /// D-Bus address is `bus` (the session bus of the X display).
    ///
    /// # Errors
    /// When the runtime or the connection cannot be made.
    pub fn start(bus: Option<&str>) -> Result<A11y, EnvError> {
        let (tx, rx) = mpsc::channel::<Request>();
        let (ready_tx, ready_rx) = mpsc::channel::<Result<(), String>>();
        let bus = bus.map(str::to_string);
        thread::Builder::new()
            .name("synth-a11y".into())
            .spawn(move || {
                let rt = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e.to_string()));
                        return;
                    }
                };
                rt.block_on(async move {
                    let conn = match connect(bus.as_deref()).await {
                        Ok(c) => c,
                        Err(e) => {
                            let _ = ready_tx.send(Err(e.to_string()));
                            return;
                        }
                    };
                    let _ = ready_tx.send(Ok(()));
                    while let Ok((app, reply)) = rx.recv() {
                        let _ = reply.send(read_app(&conn, &app).await);
                    }
                });
            })
            .map_err(|e| EnvError::backend("x11", format!("cannot start a thread: {e}")))?;
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(A11y { tx }),
            Ok(Err(e)) => Err(EnvError::backend(
                "x11",
                format!("cannot connect to the accessibility bus: {e}"),
            )),
            Err(_) => Err(EnvError::backend("x11", "the accessibility thread stopped")),
        }
    }

    /// The showing nodes of every application named `app` on the bus (empty when
    /// none is registered).
    ///
    /// # Errors
    /// When the bus fails.
    pub fn nodes(&self, app: &str) -> Result<Vec<Node>, EnvError> {
        let (tx, rx) = mpsc::channel();
        self.tx
            .send((app.to_string(), tx))
            .map_err(|_| EnvError::backend("x11", "the accessibility thread stopped"))?;
        rx.recv()
            .map_err(|_| EnvError::backend("x11", "the accessibility thread stopped"))?
            .map_err(|e| EnvError::backend("x11", format!("accessibility bus: {e}")))
    }

    /// The names of the applications registered on the bus.
    ///
    /// # Errors
    /// When the bus fails.
    pub fn applications(&self) -> Result<Vec<String>, EnvError> {
        Ok(self
            .nodes("")?
            .into_iter()
            .filter(|n| n.parent.is_none())
            .map(|n| n.name)
            .collect())
    }
}

/// Connects to the accessibility bus, whose address the session bus `bus` (the
/// process's own when None) gives.
async fn connect(bus: Option<&str>) -> Result<atspi::AccessibilityConnection, String> {
    let Some(bus) = bus else {
        return atspi::AccessibilityConnection::new()
            .await
            .map_err(|e| e.to_string());
    };
    let session = atspi::zbus::connection::Builder::address(bus)
        .map_err(|e| e.to_string())?
        .build()
        .await
        .map_err(|e| e.to_string())?;
    let address = atspi::proxy::bus::BusProxy::new(&session)
        .await
        .map_err(|e| e.to_string())?
        .get_address()
        .await
        .map_err(|e| e.to_string())?;
    let address: atspi::zbus::Address = address
        .parse()
        .map_err(|e: atspi::zbus::Error| e.to_string())?;
    atspi::AccessibilityConnection::from_address(address)
        .await
        .map_err(|e| e.to_string())
}

/// Reads the showing nodes of every application registered as `app`, depth
/// first; with `app == ""` lists the registered applications (one parentless
/// node each, no children).
async fn read_app(conn: &atspi::AccessibilityConnection, app: &str) -> Result<Vec<Node>, String> {
    let root = conn
        .root_accessible_on_registry()
        .await
        .map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for child in root.get_children().await.map_err(|e| e.to_string())? {
        let Ok(proxy) = child.into_accessible_proxy(conn.connection()).await else {
            continue;
        };
        let name = proxy.name().await.unwrap_or_default();
        if app.is_empty() {
            out.push(Node {
                name,
                role: "application".into(),
                rect: [0; 4],
                parent: None,
                focused: false,
                active: false,
                text: String::new(),
            });
            continue;
        }
        // Every instance: a program started twice (Geany when it cannot reach
        // its first instance) registers twice under one name, and the window
        // in front may be the second one's.
        if name == app {
            walk(conn, &proxy, None, &mut out).await;
        }
    }
    Ok(out)
}

/// Adds the showing descendants of `node` (not `node` itself) to `out`.
async fn walk<'c>(
    conn: &'c atspi::AccessibilityConnection,
    node: &AccessibleProxy<'_>,
    parent: Option<usize>,
    out: &mut Vec<Node>,
) {
    let mut stack: Vec<(AccessibleProxy<'c>, Option<usize>)> = Vec::new();
    let Ok(children) = node.get_children().await else {
        return;
    };
    for c in children.into_iter().rev() {
        if let Ok(p) = c.into_accessible_proxy(conn.connection()).await {
            stack.push((p, parent));
        }
    }
    while let Some((p, parent)) = stack.pop() {
        if out.len() >= MAX_NODES {
            break;
        }
        let Ok(state) = p.get_state().await else {
            continue;
        };
        if !state.contains(State::Showing) {
            continue;
        }
        // The calls of one node that do not depend on each other go out
        // together: a step reads a few hundred nodes, and waiting for each
        // answer before asking the next was most of reading the tree.
        let (role, name, proxies) = tokio::join!(p.get_role_name(), p.name(), p.proxies());
        let (role, name) = (role.unwrap_or_default(), name.unwrap_or_default());
        let (mut rect, mut text) = ([0; 4], String::new());
        let manages = state.contains(State::ManagesDescendants);
        let children = async {
            // A node that manages its descendants (a spreadsheet's grid of a
            // million cells) makes them on demand: listing them never ends.
            if manages {
                None
            } else {
                p.get_children().await.ok()
            }
        };
        let children = if let Ok(proxies) = proxies {
            let extents = async {
                match proxies.component().await {
                    Ok(c) => c.get_extents(CoordType::Screen).await.ok(),
                    Err(_) => None,
                }
            };
            let wants_text =
                name.is_empty() && matches!(role.as_str(), "label" | "text" | "static");
            let shown = async {
                if !wants_text {
                    return None;
                }
                match proxies.text().await {
                    Ok(t) => t.get_text(0, 200).await.ok(),
                    Err(_) => None,
                }
            };
            let (extents, shown, children) = tokio::join!(extents, shown, children);
            if let Some((x, y, w, h)) = extents {
                rect = [x, y, x.saturating_add(w), y.saturating_add(h)];
            }
            text = shown.unwrap_or_default();
            children
        } else {
            children.await
        };
        let index = out.len();
        out.push(Node {
            name,
            role,
            rect,
            parent,
            focused: state.contains(State::Focused),
            active: state.contains(State::Active),
            text,
        });
        if let Some(children) = children {
            for c in children.into_iter().rev() {
                if let Ok(cp) = c.into_accessible_proxy(conn.connection()).await {
                    stack.push((cp, Some(index)));
                }
            }
        }
    }
}
