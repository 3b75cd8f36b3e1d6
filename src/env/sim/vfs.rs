//! The virtual file system: an in-memory tree of folders and UTF-8 files. Paths are
//! normalised (absolute, `/`-separated, no `.` or empty parts); `..` is refused, so
//! nothing can name a place outside `/`. After fixtures are loaded the simulator
//! never touches host files.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::env::EnvError;

/// The home folder.
pub const HOME: &str = "/home/user";

/// A node of the tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "node", rename_all = "snake_case")]
pub enum Node {
    Dir,
    File { content: String },
}

/// Why a file operation failed (shown to the agent in an error dialog).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VfsError {
    #[error("'{0}' is not a valid path")]
    BadPath(String),
    #[error("'{0}' does not exist")]
    NotFound(String),
    #[error("'{0}' already exists")]
    Exists(String),
    #[error("'{0}' is not a folder")]
    NotDir(String),
    #[error("'{0}' is a folder")]
    IsDir(String),
    #[error("cannot move '{0}' into itself")]
    IntoItself(String),
}

/// Normalises `path` against folder `cwd`: `~` is the home folder, relative paths
/// join `cwd`, `.` and empty parts vanish, `..` removes the previous part and is
/// refused when it would climb above `/`.
pub fn normalize(path: &str, cwd: &str) -> Result<String, VfsError> {
    let p = path.trim().replace('\\', "/");
    if p.is_empty() || p.contains('\0') {
        return Err(VfsError::BadPath(path.to_string()));
    }
    let joined = if let Some(rest) = p.strip_prefix('~') {
        format!("{HOME}/{rest}")
    } else if p.starts_with('/') {
        p
    } else {
        format!("{cwd}/{p}")
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err(VfsError::BadPath(path.to_string()));
                }
            }
            other => parts.push(other),
        }
    }
    Ok(format!("/{}", parts.join("/")))
}

/// The parent folder of a normalised path (`/` for top-level entries).
pub fn parent(path: &str) -> &str {
    match path.rfind('/') {
        Some(0) | None => "/",
        Some(i) => &path[..i],
    }
}

/// The last component of a normalised path.
pub fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The lower-case extension of a path ("" when none).
pub fn extension(path: &str) -> String {
    let name = base_name(path);
    match name.rfind('.') {
        Some(i) if i > 0 => name[i + 1..].to_ascii_lowercase(),
        _ => String::new(),
    }
}

fn join(dir: &str, name: &str) -> String {
    if dir == "/" {
        format!("/{name}")
    } else {
        format!("{dir}/{name}")
    }
}

/// The tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Vfs {
    nodes: BTreeMap<String, Node>,
}

impl Default for Vfs {
    fn default() -> Self {
        let mut nodes = BTreeMap::new();
        nodes.insert("/".to_string(), Node::Dir);
        Vfs { nodes }
    }
}

impl Vfs {
    /// Loads a host folder (the fixtures) as `/`; the host is not read again later.
    pub fn from_host(root: &Path) -> Result<Vfs, EnvError> {
        let mut vfs = Vfs::default();
        if !root.is_dir() {
            return Ok(vfs);
        }
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            let entries = std::fs::read_dir(&dir).map_err(|source| EnvError::Io {
                path: dir.clone(),
                source,
            })?;
            for entry in entries {
                let entry = entry.map_err(|source| EnvError::Io {
                    path: dir.clone(),
                    source,
                })?;
                let host = entry.path();
                let rel = host.strip_prefix(root).unwrap_or(&host);
                let virt = format!("/{}", rel.to_string_lossy().replace('\\', "/"));
                let Ok(virt) = normalize(&virt, "/") else {
                    continue;
                };
                if host.is_dir() {
                    vfs.force_dir(&virt);
                    stack.push(host);
                } else {
                    let bytes = std::fs::read(&host).map_err(|source| EnvError::Io {
                        path: host.clone(),
                        source,
                    })?;
                    vfs.force_file(&virt, String::from_utf8_lossy(&bytes).into_owned());
                }
            }
        }
        Ok(vfs)
    }

    /// Creates a folder and its missing parents.
    pub fn force_dir(&mut self, path: &str) {
        let mut cur = String::new();
        for part in path.split('/').filter(|p| !p.is_empty()) {
            cur.push('/');
            cur.push_str(part);
            self.nodes.entry(cur.clone()).or_insert(Node::Dir);
        }
    }

    /// Writes a file, creating missing parents.
    pub fn force_file(&mut self, path: &str, content: String) {
        self.force_dir(parent(path));
        self.nodes.insert(path.to_string(), Node::File { content });
    }

    pub fn get(&self, path: &str) -> Option<&Node> {
        self.nodes.get(path)
    }

    pub fn is_file(&self, path: &str) -> bool {
        matches!(self.nodes.get(path), Some(Node::File { .. }))
    }

    pub fn is_dir(&self, path: &str) -> bool {
        matches!(self.nodes.get(path), Some(Node::Dir))
    }

    pub fn read(&self, path: &str) -> Result<&str, VfsError> {
        match self.nodes.get(path) {
            Some(Node::File { content }) => Ok(content),
            Some(Node::Dir) => Err(VfsError::IsDir(path.to_string())),
            None => Err(VfsError::NotFound(path.to_string())),
        }
    }

    /// Writes (creates or replaces) a file; the parent folder must exist.
    pub fn write(&mut self, path: &str, content: String) -> Result<(), VfsError> {
        if path == "/" {
            return Err(VfsError::BadPath(path.to_string()));
        }
        if !self.is_dir(parent(path)) {
            return Err(VfsError::NotFound(parent(path).to_string()));
        }
        if self.is_dir(path) {
            return Err(VfsError::IsDir(path.to_string()));
        }
        self.nodes.insert(path.to_string(), Node::File { content });
        Ok(())
    }

    /// Creates a folder; the parent must exist and the name be free.
    pub fn mkdir(&mut self, path: &str) -> Result<(), VfsError> {
        if self.nodes.contains_key(path) {
            return Err(VfsError::Exists(path.to_string()));
        }
        if !self.is_dir(parent(path)) {
            return Err(VfsError::NotFound(parent(path).to_string()));
        }
        self.nodes.insert(path.to_string(), Node::Dir);
        Ok(())
    }

    /// The entries directly inside a folder (names; folders end with `/`).
    pub fn list(&self, dir: &str) -> Result<Vec<String>, VfsError> {
        if !self.is_dir(dir) {
            return Err(VfsError::NotDir(dir.to_string()));
        }
        let prefix = if dir == "/" {
            "/".to_string()
        } else {
            format!("{dir}/")
        };
        let mut out = Vec::new();
        for (path, node) in self.nodes.range(prefix.clone()..) {
            if !path.starts_with(&prefix) {
                break;
            }
            let rest = &path[prefix.len()..];
            if rest.is_empty() || rest.contains('/') {
                continue;
            }
            match node {
                Node::Dir => out.push(format!("{rest}/")),
                Node::File { .. } => out.push(rest.to_string()),
            }
        }
        Ok(out)
    }

    /// The paths under `path` (itself included), in order.
    fn subtree(&self, path: &str) -> Vec<String> {
        let prefix = format!("{path}/");
        let mut out = vec![path.to_string()];
        for (p, _) in self.nodes.range(prefix.clone()..) {
            if !p.starts_with(&prefix) {
                break;
            }
            out.push(p.clone());
        }
        out
    }

    /// Deletes a file or folder with everything in it.
    pub fn remove(&mut self, path: &str) -> Result<(), VfsError> {
        if path == "/" {
            return Err(VfsError::BadPath(path.to_string()));
        }
        if !self.nodes.contains_key(path) {
            return Err(VfsError::NotFound(path.to_string()));
        }
        for p in self.subtree(path) {
            self.nodes.remove(&p);
        }
        Ok(())
    }

    /// Moves (renames) a file or folder to `to`, which must be free.
    pub fn rename(&mut self, from: &str, to: &str) -> Result<(), VfsError> {
        if !self.nodes.contains_key(from) || from == "/" {
            return Err(VfsError::NotFound(from.to_string()));
        }
        if self.nodes.contains_key(to) {
            return Err(VfsError::Exists(to.to_string()));
        }
        if to.starts_with(&format!("{from}/")) {
            return Err(VfsError::IntoItself(from.to_string()));
        }
        if !self.is_dir(parent(to)) {
            return Err(VfsError::NotFound(parent(to).to_string()));
        }
        for p in self.subtree(from) {
            if let Some(node) = self.nodes.remove(&p) {
                let new = format!("{to}{}", &p[from.len()..]);
                self.nodes.insert(new, node);
            }
        }
        Ok(())
    }

    /// Copies a file or folder to `to`, which must be free.
    pub fn copy(&mut self, from: &str, to: &str) -> Result<(), VfsError> {
        if !self.nodes.contains_key(from) {
            return Err(VfsError::NotFound(from.to_string()));
        }
        if self.nodes.contains_key(to) {
            return Err(VfsError::Exists(to.to_string()));
        }
        if to.starts_with(&format!("{from}/")) {
            return Err(VfsError::IntoItself(from.to_string()));
        }
        if !self.is_dir(parent(to)) {
            return Err(VfsError::NotFound(parent(to).to_string()));
        }
        for p in self.subtree(from) {
            if let Some(node) = self.nodes.get(&p).cloned() {
                self.nodes.insert(format!("{to}{}", &p[from.len()..]), node);
            }
        }
        Ok(())
    }

    /// Every path (folders and files), in order.
    pub fn paths(&self) -> impl Iterator<Item = (&String, &Node)> {
        self.nodes.iter()
    }

    /// Packs paths into zip text: `ZIP ARCHIVE` then, per entry, `== name` (folders
    /// end with `/`) followed by the file's lines.
    pub fn pack(&self, sources: &[String]) -> Result<String, VfsError> {
        let mut out = String::from("ZIP ARCHIVE\n");
        for src in sources {
            if !self.nodes.contains_key(src) {
                return Err(VfsError::NotFound(src.clone()));
            }
            let base = parent(src);
            for p in self.subtree(src) {
                let rel = p[base.len()..].trim_start_matches('/');
                match &self.nodes[&p] {
                    Node::Dir => out.push_str(&format!("== {rel}/\n")),
                    Node::File { content } => {
                        out.push_str(&format!("== {rel}\n"));
                        for line in content.lines() {
                            if line.starts_with("== ") {
                                // keep entry markers unambiguous
                                out.push(' ');
                            }
                            out.push_str(line);
                            out.push('\n');
                        }
                    }
                }
            }
        }
        Ok(out)
    }

    /// Unpacks zip text made by [`Vfs::pack`] into folder `dest` (created if
    /// missing); existing entries are replaced. Returns the number of entries.
    pub fn unpack(&mut self, zip: &str, dest: &str) -> Result<usize, VfsError> {
        let mut lines = zip.lines();
        if lines.next() != Some("ZIP ARCHIVE") {
            return Err(VfsError::BadPath("not a zip archive".to_string()));
        }
        if self.is_file(dest) {
            return Err(VfsError::NotDir(dest.to_string()));
        }
        if !self.is_dir(parent(dest)) && dest != "/" {
            return Err(VfsError::NotFound(parent(dest).to_string()));
        }
        self.force_dir(dest);
        let mut count = 0;
        let mut current: Option<(String, String)> = None;
        let flush = |vfs: &mut Vfs, cur: Option<(String, String)>| {
            if let Some((path, content)) = cur {
                vfs.force_file(&path, content);
            }
        };
        for line in lines {
            if let Some(name) = line.strip_prefix("== ") {
                flush(self, current.take());
                count += 1;
                // Entries stay inside `dest` (a `..` in a name cannot leave it).
                let Ok(path) = normalize(name.trim_end_matches('/'), dest) else {
                    continue;
                };
                if !path.starts_with(&format!("{}/", dest.trim_end_matches('/'))) {
                    continue;
                }
                if name.ends_with('/') {
                    self.force_dir(&path);
                } else {
                    current = Some((path, String::new()));
                }
            } else if let Some((_, content)) = current.as_mut() {
                if !content.is_empty() {
                    content.push('\n');
                }
                content.push_str(line);
            }
        }
        flush(self, current.take());
        Ok(count)
    }

    /// Joins a folder and a name.
    pub fn join(dir: &str, name: &str) -> String {
        join(dir, name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_rejects_escapes() {
        assert_eq!(normalize("a/./b", "/home/user").unwrap(), "/home/user/a/b");
        assert_eq!(normalize("~/x.txt", "/").unwrap(), "/home/user/x.txt");
        assert_eq!(normalize("../x", "/home/user").unwrap(), "/home/x");
        assert!(normalize("../../../etc/passwd", "/home/user").is_err());
        assert!(normalize("/home/../../etc", "/").is_err());
        assert_eq!(normalize("//etc//", "/").unwrap(), "/etc");
    }

    #[test]
    fn zip_round_trips() {
        let mut v = Vfs::default();
        v.force_file("/d/a/x.txt", "hello\nworld".into());
        v.force_dir("/d/a/empty");
        let zip = v.pack(&["/d/a".to_string()]).unwrap();
        v.unpack(&zip, "/out").unwrap();
        assert_eq!(v.read("/out/a/x.txt").unwrap(), "hello\nworld");
        assert!(v.is_dir("/out/a/empty"));
    }

    #[test]
    fn rename_moves_subtrees() {
        let mut v = Vfs::default();
        v.force_file("/a/b/c.txt", "x".into());
        v.rename("/a/b", "/a/z").unwrap();
        assert!(v.is_file("/a/z/c.txt"));
        assert!(!v.is_dir("/a/b"));
        assert!(v.rename("/a", "/a/z/q").is_err());
    }
}
