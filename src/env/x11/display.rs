//! The X display as synth uses it: screen capture (GetImage), input through the
//! XTest extension (pointer motion, buttons, wheel, keys), and the window
//! manager's view of the windows (EWMH `_NET_CLIENT_LIST`, `_NET_ACTIVE_WINDOW`,
//! `_NET_WM_NAME`, `WM_CLASS`).

use std::time::Duration;

use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    Atom, AtomEnum, ConnectionExt as _, ImageFormat, Window, BUTTON_PRESS_EVENT,
    BUTTON_RELEASE_EVENT, KEY_PRESS_EVENT, KEY_RELEASE_EVENT, MOTION_NOTIFY_EVENT,
};
use x11rb::protocol::xtest::ConnectionExt as _;
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;

use crate::env::EnvError;

fn fail(message: impl Into<String>) -> EnvError {
    EnvError::backend("x11", message)
}

fn x_err(e: impl std::fmt::Display) -> EnvError {
    fail(format!("X request failed: {e}"))
}

/// A top-level window as the window manager lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowInfo {
    pub id: Window,
    pub title: String,
    /// The class part of WM_CLASS ("Mousepad").
    pub class: String,
}

/// A connection to one display.
pub struct Display {
    conn: RustConnection,
    root: Window,
    width: u16,
    height: u16,
    min_keycode: u8,
    keysyms_per_keycode: u8,
    keysyms: Vec<u32>,
}

impl std::fmt::Debug for Display {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Display({}x{})", self.width, self.height)
    }
}

/// Keysyms of the named keys of the action notation (`{enter}`, `{tab}`...).
fn named_keysym(name: &str) -> Option<u32> {
    let k = match name.to_ascii_lowercase().as_str() {
        "enter" | "return" => 0xff0d,
        "tab" => 0xff09,
        "esc" | "escape" => 0xff1b,
        "backspace" | "bs" | "bksp" => 0xff08,
        "delete" | "del" => 0xffff,
        "home" => 0xff50,
        "left" => 0xff51,
        "up" => 0xff52,
        "right" => 0xff53,
        "down" => 0xff54,
        "pgup" | "pageup" => 0xff55,
        "pgdn" | "pagedown" => 0xff56,
        "end" => 0xff57,
        "insert" | "ins" => 0xff63,
        "space" => 0x20,
        f if f.len() >= 2 && f.starts_with('f') => {
            let n: u32 = f[1..].parse().ok()?;
            if (1..=12).contains(&n) {
                0xffbd + n
            } else {
                return None;
            }
        }
        _ => return None,
    };
    Some(k)
}

/// The keysym of a typed character (Latin-1 characters are their own keysym).
fn char_keysym(c: char) -> Option<u32> {
    match c {
        '\n' => Some(0xff0d),
        '\t' => Some(0xff09),
        c if (c as u32) >= 0x20 && (c as u32) <= 0xff => Some(c as u32),
        _ => None,
    }
}

const SHIFT_L: u32 = 0xffe1;
const CONTROL_L: u32 = 0xffe3;
const ALT_L: u32 = 0xffe9;

/// A key combination in the action notation: modifiers (`^` ctrl, `%` alt, `+`
/// shift) then one key, named (`{enter}`) or a character. None when not one.
pub fn combo_keysyms(combo: &str) -> Option<Vec<u32>> {
    let mut mods = Vec::new();
    let mut rest = combo;
    loop {
        match rest.chars().next()? {
            '^' => mods.push(CONTROL_L),
            '%' => mods.push(ALT_L),
            '+' if rest.len() > 1 => mods.push(SHIFT_L),
            _ => break,
        }
        rest = &rest[1..];
    }
    let key = if let Some(name) = rest.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
        named_keysym(name)?
    } else {
        let mut cs = rest.chars();
        let c = cs.next()?;
        if cs.next().is_some() {
            return None;
        }
        char_keysym(c.to_ascii_lowercase())?
    };
    mods.push(key);
    Some(mods)
}

impl Display {
    /// Connects to `display` (":71").
    ///
    /// # Errors
    /// When the display does not answer or lacks the XTest extension.
    pub fn connect(display: &str) -> Result<Display, EnvError> {
        let (conn, screen) = x11rb::connect(Some(display))
            .map_err(|e| fail(format!("cannot open display {display}: {e}")))?;
        let s = &conn.setup().roots[screen];
        let (root, width, height) = (s.root, s.width_in_pixels, s.height_in_pixels);
        let min_keycode = conn.setup().min_keycode;
        let max_keycode = conn.setup().max_keycode;
        conn.xtest_get_version(2, 2)
            .map_err(x_err)?
            .reply()
            .map_err(|e| fail(format!("display {display} has no XTest extension: {e}")))?;
        let map = conn
            .get_keyboard_mapping(min_keycode, max_keycode - min_keycode + 1)
            .map_err(x_err)?
            .reply()
            .map_err(x_err)?;
        Ok(Display {
            conn,
            root,
            width,
            height,
            min_keycode,
            keysyms_per_keycode: map.keysyms_per_keycode,
            keysyms: map.keysyms,
        })
    }

    /// Paints the root window (the desktop behind the windows) in `rgb`
    /// (0xRRGGBB on a 24-bit true-colour screen).
    ///
    /// # Errors
    /// When the display fails.
    pub fn paint_background(&self, rgb: u32) -> Result<(), EnvError> {
        use x11rb::protocol::xproto::ChangeWindowAttributesAux;
        self.conn
            .change_window_attributes(
                self.root,
                &ChangeWindowAttributesAux::new().background_pixel(rgb),
            )
            .map_err(x_err)?;
        self.conn
            .clear_area(false, self.root, 0, 0, 0, 0)
            .map_err(x_err)?;
        self.flush()
    }

    /// The screen as RGB8 pixels with its width and height.
    ///
    /// # Errors
    /// When the capture fails or the screen's format is not 24/32-bit true colour.
    pub fn capture_rgb(&self) -> Result<(Vec<u8>, u32, u32), EnvError> {
        let (w, h) = (self.width, self.height);
        let img = self
            .conn
            .get_image(ImageFormat::Z_PIXMAP, self.root, 0, 0, w, h, !0)
            .map_err(x_err)?
            .reply()
            .map_err(x_err)?;
        let pixels = usize::from(w) * usize::from(h);
        if img.data.len() < pixels * 4 {
            return Err(fail(format!(
                "unexpected screen format: depth {}, {} bytes for {pixels} pixels",
                img.depth,
                img.data.len()
            )));
        }
        let mut rgb = Vec::with_capacity(pixels * 3);
        for px in img.data.chunks_exact(4).take(pixels) {
            rgb.extend([px[2], px[1], px[0]]);
        }
        Ok((rgb, u32::from(w), u32::from(h)))
    }

    /// The screen as PNG bytes.
    ///
    /// # Errors
    /// See [`Display::capture_rgb`].
    pub fn capture_png(&self) -> Result<Vec<u8>, EnvError> {
        let (rgb, w, h) = self.capture_rgb()?;
        crate::env::render::encode_rgb(&rgb, w, h)
    }

    fn fake(&self, kind: u8, detail: u8, x: i16, y: i16) -> Result<(), EnvError> {
        self.conn
            .xtest_fake_input(kind, detail, 0, self.root, x, y, 0)
            .map_err(x_err)?;
        Ok(())
    }

    fn flush(&self) -> Result<(), EnvError> {
        self.conn.flush().map_err(x_err)?;
        self.conn.sync().map_err(x_err)?;
        Ok(())
    }

    /// Moves the pointer to (x, y) and clicks `button` (1 left, 2 middle, 3 right)
    /// once or twice.
    ///
    /// # Errors
    /// When the display fails.
    pub fn click(&self, x: i32, y: i32, button: u8, double: bool) -> Result<(), EnvError> {
        let (x, y) = (clamp16(x), clamp16(y));
        self.fake(MOTION_NOTIFY_EVENT, 0, x, y)?;
        self.flush()?;
        std::thread::sleep(Duration::from_millis(30));
        for _ in 0..if double { 2 } else { 1 } {
            self.fake(BUTTON_PRESS_EVENT, button, x, y)?;
            self.fake(BUTTON_RELEASE_EVENT, button, x, y)?;
            self.flush()?;
            std::thread::sleep(Duration::from_millis(40));
        }
        Ok(())
    }

    /// Turns the wheel `dist` notches at (x, y): positive down, negative up.
    ///
    /// # Errors
    /// When the display fails.
    pub fn scroll(&self, x: i32, y: i32, dist: i32) -> Result<(), EnvError> {
        let (x, y) = (clamp16(x), clamp16(y));
        self.fake(MOTION_NOTIFY_EVENT, 0, x, y)?;
        let button = if dist > 0 { 5 } else { 4 };
        for _ in 0..dist.unsigned_abs().min(50) {
            self.fake(BUTTON_PRESS_EVENT, button, x, y)?;
            self.fake(BUTTON_RELEASE_EVENT, button, x, y)?;
        }
        self.flush()
    }

    /// The keycode of `keysym` and whether Shift is needed for it.
    fn keycode(&self, keysym: u32) -> Option<(u8, bool)> {
        let per = usize::from(self.keysyms_per_keycode);
        self.keysyms.chunks(per).enumerate().find_map(|(i, syms)| {
            let code = self.min_keycode.checked_add(u8::try_from(i).ok()?)?;
            if syms.first() == Some(&keysym) {
                Some((code, false))
            } else if syms.get(1) == Some(&keysym) {
                Some((code, true))
            } else {
                None
            }
        })
    }

    /// Presses the keys of `keysyms` in order, then releases them in reverse (a
    /// combination; one key is a plain key press).
    ///
    /// # Errors
    /// A keysym the keyboard map lacks, or a display failure.
    pub fn keys(&self, keysyms: &[u32]) -> Result<(), EnvError> {
        let mut pressed = Vec::new();
        for &k in keysyms {
            let (code, shift) = self
                .keycode(k)
                .ok_or_else(|| fail(format!("no key for keysym {k:#x}")))?;
            if shift {
                let (s, _) = self.keycode(SHIFT_L).ok_or_else(|| fail("no Shift key"))?;
                self.fake(KEY_PRESS_EVENT, s, 0, 0)?;
                pressed.push(s);
            }
            self.fake(KEY_PRESS_EVENT, code, 0, 0)?;
            pressed.push(code);
        }
        for code in pressed.into_iter().rev() {
            self.fake(KEY_RELEASE_EVENT, code, 0, 0)?;
        }
        self.flush()?;
        std::thread::sleep(Duration::from_millis(15));
        Ok(())
    }

    /// Types `text` one character at a time.
    ///
    /// # Errors
    /// A character the keyboard map cannot type, or a display failure.
    pub fn type_text(&self, text: &str) -> Result<(), EnvError> {
        for (i, c) in text.chars().enumerate() {
            let k = char_keysym(c).ok_or_else(|| fail(format!("cannot type {c:?}")))?;
            self.keys(&[k])?;
            // A leading slash opens a GTK file chooser's location field: keys
            // typed while it opens are lost ("/tmp/a" arrived as "/p/a").
            if i == 0 && c == '/' {
                std::thread::sleep(Duration::from_millis(300));
            }
        }
        Ok(())
    }

    fn atom(&self, name: &str) -> Result<Atom, EnvError> {
        Ok(self
            .conn
            .intern_atom(false, name.as_bytes())
            .map_err(x_err)?
            .reply()
            .map_err(x_err)?
            .atom)
    }

    fn property(&self, win: Window, name: &str) -> Result<Vec<u8>, EnvError> {
        let atom = self.atom(name)?;
        Ok(self
            .conn
            .get_property(false, win, atom, AtomEnum::ANY, 0, 4096)
            .map_err(x_err)?
            .reply()
            .map_err(x_err)?
            .value)
    }

    fn windows_of(&self, name: &str) -> Result<Vec<Window>, EnvError> {
        let raw = self.property(self.root, name)?;
        Ok(raw
            .chunks_exact(4)
            .map(|b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
            .collect())
    }

    fn info(&self, id: Window) -> Result<WindowInfo, EnvError> {
        let mut title = String::from_utf8_lossy(&self.property(id, "_NET_WM_NAME")?).to_string();
        if title.is_empty() {
            title = String::from_utf8_lossy(&self.property(id, "WM_NAME")?).to_string();
        }
        let class_raw = self.property(id, "WM_CLASS")?;
        let class = class_raw
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .nth(1)
            .map(|p| String::from_utf8_lossy(p).to_string())
            .unwrap_or_default();
        Ok(WindowInfo { id, title, class })
    }

    /// The class of the application window `w` belongs to: its own, or, for a
    /// dialog whose class names no application (LibreOffice's dialogs are
    /// "Soffice" over a "libreoffice-calc" window), the class of the window it
    /// is transient for (`WM_TRANSIENT_FOR`, followed up to 4 levels).
    pub fn owner_classes(&self, w: &WindowInfo) -> Vec<String> {
        let mut classes = vec![w.class.clone()];
        let mut id = w.id;
        for _ in 0..4 {
            let Some(owner) = self.transient_for(id) else {
                break;
            };
            let Ok(info) = self.info(owner) else { break };
            classes.push(info.class);
            id = owner;
        }
        classes
    }

    /// Whether `w` is a dialog: transient for another window (`WM_TRANSIENT_FOR`).
    pub fn is_transient(&self, w: &WindowInfo) -> bool {
        self.transient_for(w.id).is_some()
    }

    /// The window `id` is transient for (`WM_TRANSIENT_FOR`), if any other.
    fn transient_for(&self, id: Window) -> Option<Window> {
        let raw = self.property(id, "WM_TRANSIENT_FOR").ok()?;
        raw.get(..4)
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .map(u32::from_ne_bytes)
            .filter(|&o| o != 0 && o != self.root && o != id)
    }

    /// The top-level windows, in the window manager's order (oldest first).
    ///
    /// # Errors
    /// When the display fails.
    pub fn windows(&self) -> Result<Vec<WindowInfo>, EnvError> {
        // A window can close between the list and the read: it is gone, not an
        // error.
        Ok(self
            .windows_of("_NET_CLIENT_LIST")?
            .into_iter()
            .filter_map(|w| self.info(w).ok())
            .collect())
    }

    /// The process ids of the top-level windows (`_NET_WM_PID`), where known.
    pub fn window_pids(&self) -> Vec<u32> {
        let Ok(ids) = self.windows_of("_NET_CLIENT_LIST") else {
            return Vec::new();
        };
        ids.into_iter()
            .filter_map(|w| {
                let raw = self.property(w, "_NET_WM_PID").ok()?;
                let b: [u8; 4] = raw.get(..4)?.try_into().ok()?;
                Some(u32::from_ne_bytes(b)).filter(|&p| p > 1)
            })
            .collect()
    }

    /// Is a window manager running (it names its check window on the root)?
    pub fn has_window_manager(&self) -> bool {
        self.windows_of("_NET_SUPPORTING_WM_CHECK")
            .is_ok_and(|ws| ws.first().is_some_and(|&w| w != 0))
    }

    /// The window with the input focus, as the window manager says.
    ///
    /// # Errors
    /// When the display fails.
    pub fn active_window(&self) -> Result<Option<WindowInfo>, EnvError> {
        match self.windows_of("_NET_ACTIVE_WINDOW")?.first() {
            Some(&w) if w != 0 => Ok(self.info(w).ok()),
            _ => Ok(None),
        }
    }
}

fn clamp16(v: i32) -> i16 {
    v.clamp(0, i32::from(i16::MAX)) as i16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combos_become_modifier_and_key_keysyms() {
        assert_eq!(combo_keysyms("^s"), Some(vec![CONTROL_L, u32::from(b's')]));
        assert_eq!(combo_keysyms("{enter}"), Some(vec![0xff0d]));
        assert_eq!(combo_keysyms("+{tab}"), Some(vec![SHIFT_L, 0xff09]));
        assert_eq!(combo_keysyms("%{f4}"), Some(vec![ALT_L, 0xffc1]));
        assert_eq!(combo_keysyms("^S"), Some(vec![CONTROL_L, u32::from(b's')]));
        assert_eq!(combo_keysyms("{nosuchkey}"), None);
        assert_eq!(combo_keysyms("ab"), None);
    }
}
