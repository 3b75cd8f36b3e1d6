//! Input on the VM: typed [`Gesture`]s, made from synth's typed actions, written
//! as a pyautogui program that `/execute` runs with `python -c`.
//!
//! Only this module writes Python, and only from typed data: numbers are
//! formatted as numbers, key names come from a fixed table, and every text is a
//! string literal ([`py_str`]). Nothing an agent or a model writes is run as
//! code; a key combination outside the table is refused.

use crate::env::sim::KeyToken;

/// The interpreter the VM's server runs programs with (OSWorld's own client
/// controller runs `python -c`).
pub const PYTHON: &str = "python";

/// A mouse button.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Button {
    Left,
    Middle,
    Right,
}

impl Button {
    /// The button an action names ("left", "right", "middle"; anything else left).
    pub fn named(name: &str) -> Button {
        match name {
            "right" => Button::Right,
            "middle" => Button::Middle,
            _ => Button::Left,
        }
    }

    fn py(self) -> &'static str {
        match self {
            Button::Left => "'left'",
            Button::Middle => "'middle'",
            Button::Right => "'right'",
        }
    }
}

/// One input on the VM's screen (pixels).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gesture {
    Click {
        x: i32,
        y: i32,
        button: Button,
        clicks: u8,
    },
    /// Text typed as it is (newlines press Enter).
    Type(String),
    /// Keys held together, in order (pyautogui names: `ctrl`, `s`).
    Hotkey(Vec<&'static str>),
    /// Wheel clicks at a point; positive scrolls down.
    Scroll { x: i32, y: i32, clicks: i32 },
    Drag {
        from: (i32, i32),
        to: (i32, i32),
        button: Button,
    },
}

/// `text` as a Python string literal. JSON's string syntax is a subset of
/// Python's: quotes, backslashes and control characters are escaped, everything
/// else stands for itself.
pub fn py_str(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
}

/// One gesture as Python statements.
fn statement(g: &Gesture) -> String {
    match g {
        Gesture::Click {
            x,
            y,
            button,
            clicks,
        } => format!(
            "pyautogui.click(x={x}, y={y}, button={}, clicks={clicks}, interval=0.1)",
            button.py()
        ),
        // pyautogui types only what its keyboard table has (ASCII); other text
        // is pasted, keeping the clipboard as it was.
        Gesture::Type(text) if text.is_ascii() => {
            format!("pyautogui.write({}, interval=0.01)", py_str(text))
        }
        Gesture::Type(text) => format!(
            "_kept = pyperclip.paste(); pyperclip.copy({}); pyautogui.hotkey('ctrl', 'v'); time.sleep(0.2); pyperclip.copy(_kept)",
            py_str(text)
        ),
        Gesture::Hotkey(keys) => format!(
            "pyautogui.hotkey({})",
            keys.iter()
                .map(|k| py_str(k))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        // pyautogui's positive clicks scroll up.
        Gesture::Scroll { x, y, clicks } => {
            format!("pyautogui.scroll({}, x={x}, y={y})", -clicks)
        }
        Gesture::Drag { from, to, button } => format!(
            "pyautogui.moveTo({}, {}); pyautogui.dragTo({}, {}, duration=0.5, button={})",
            from.0,
            from.1,
            to.0,
            to.1,
            button.py()
        ),
    }
}

/// The program that performs `gestures` in order.
pub fn program(gestures: &[Gesture]) -> String {
    let mut lines = vec![
        "import time, pyautogui, pyperclip".to_string(),
        "pyautogui.FAILSAFE = False".to_string(),
    ];
    lines.extend(gestures.iter().map(statement));
    lines.join("\n")
}

/// The `/execute` command that runs `program`.
pub fn python_command(program: &str) -> Vec<String> {
    vec![PYTHON.to_string(), "-c".to_string(), program.to_string()]
}

/// pyautogui's name of a named key of the action notation (`{ENTER}`).
fn named_key(name: &str) -> Option<&'static str> {
    Some(match name.to_ascii_lowercase().as_str() {
        "enter" | "return" => "enter",
        "tab" => "tab",
        "esc" | "escape" => "esc",
        "backspace" | "bs" | "bksp" => "backspace",
        "delete" | "del" => "delete",
        "home" => "home",
        "end" => "end",
        "left" => "left",
        "right" => "right",
        "up" => "up",
        "down" => "down",
        "pgup" | "pageup" => "pageup",
        "pgdn" | "pagedown" => "pagedown",
        "insert" | "ins" => "insert",
        "space" => "space",
        // The Windows (Super) key: on OSWorld's GNOME it opens the overview.
        "lwin" | "rwin" | "win" | "super" => "win",
        "f1" => "f1",
        "f2" => "f2",
        "f3" => "f3",
        "f4" => "f4",
        "f5" => "f5",
        "f6" => "f6",
        "f7" => "f7",
        "f8" => "f8",
        "f9" => "f9",
        "f10" => "f10",
        "f11" => "f11",
        "f12" => "f12",
        _ => return None,
    })
}

/// pyautogui's name of a character key (letters lower case).
fn char_key(c: char) -> Option<&'static str> {
    const KEYS: &str = "abcdefghijklmnopqrstuvwxyz0123456789`-=[]\\;',./";
    if c == '\n' {
        return Some("enter");
    }
    if c == '\t' {
        return Some("tab");
    }
    if c == ' ' {
        return Some("space");
    }
    let lower = c.to_ascii_lowercase();
    KEYS.find(lower).map(|i| &KEYS[i..i + lower.len_utf8()])
}

/// A key combination of the action notation (`^s`, `%{F4}`, `+{TAB}`,
/// `{ENTER}`) as pyautogui key names; None when it is not one.
pub fn combo_keys(combo: &str) -> Option<Vec<&'static str>> {
    let mut keys = Vec::new();
    let mut rest = combo;
    loop {
        match rest.chars().next()? {
            '^' => keys.push("ctrl"),
            '%' => keys.push("alt"),
            '+' if rest.len() > 1 => keys.push("shift"),
            _ => break,
        }
        rest = &rest[1..];
    }
    let key = match rest.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
        Some(name) => named_key(name)?,
        None => {
            let mut cs = rest.chars();
            let c = cs.next()?;
            if cs.next().is_some() {
                return None;
            }
            char_key(c)?
        }
    };
    keys.push(key);
    Some(keys)
}

/// The gestures that type `keys` (action notation): runs of characters as text,
/// combinations as hotkeys, each with what the check APIs log for it.
///
/// # Errors
/// The combination that has no keys.
pub fn key_gestures(keys: &str) -> Result<Vec<Gesture>, String> {
    let mut out = Vec::new();
    let mut text = String::new();
    for token in crate::env::sim::parse_keys(keys) {
        match token {
            KeyToken::Char(c) => text.push(c),
            KeyToken::Combo(combo) => {
                if !text.is_empty() {
                    out.push(Gesture::Type(std::mem::take(&mut text)));
                }
                let k = combo_keys(&combo)
                    .ok_or_else(|| format!("unknown key combination '{combo}'"))?;
                out.push(Gesture::Hotkey(k));
            }
        }
    }
    if !text.is_empty() {
        out.push(Gesture::Type(text));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn awkward_text_becomes_a_python_literal() {
        assert_eq!(py_str(r#"say "hi" \ now"#), r#""say \"hi\" \\ now""#);
        assert_eq!(py_str("a\nb\tc'd"), r#""a\nb\tc'd""#);
        assert_eq!(py_str("\u{1}"), r#""\u0001""#);
        let p = program(&[Gesture::Type("it's \"x\"\n".into())]);
        assert!(
            p.ends_with(r#"pyautogui.write("it's \"x\"\n", interval=0.01)"#),
            "{p}"
        );
        // Not ASCII: pasted, the clipboard kept.
        let p = program(&[Gesture::Type("naïve".into())]);
        assert!(p.contains(r#"pyperclip.copy("naïve")"#), "{p}");
        assert!(p.contains("pyperclip.copy(_kept)"), "{p}");
    }

    #[test]
    fn gestures_are_pyautogui_calls() {
        let p = program(&[
            Gesture::Click {
                x: 10,
                y: 20,
                button: Button::Right,
                clicks: 2,
            },
            Gesture::Scroll {
                x: 5,
                y: 6,
                clicks: 3,
            },
            Gesture::Drag {
                from: (1, 2),
                to: (30, 40),
                button: Button::Left,
            },
            Gesture::Hotkey(vec!["ctrl", "shift", "s"]),
        ]);
        let lines: Vec<_> = p.lines().collect();
        assert_eq!(lines[0], "import time, pyautogui, pyperclip");
        assert_eq!(
            lines[2],
            "pyautogui.click(x=10, y=20, button='right', clicks=2, interval=0.1)"
        );
        assert_eq!(lines[3], "pyautogui.scroll(-3, x=5, y=6)");
        assert_eq!(
            lines[4],
            "pyautogui.moveTo(1, 2); pyautogui.dragTo(30, 40, duration=0.5, button='left')"
        );
        assert_eq!(lines[5], r#"pyautogui.hotkey("ctrl", "shift", "s")"#);
        assert_eq!(python_command("x"), ["python", "-c", "x"]);
    }

    #[test]
    fn key_notation_maps_to_pyautogui_names() {
        assert_eq!(combo_keys("^s"), Some(vec!["ctrl", "s"]));
        assert_eq!(combo_keys("^S"), Some(vec!["ctrl", "s"]));
        assert_eq!(combo_keys("%{F4}"), Some(vec!["alt", "f4"]));
        assert_eq!(combo_keys("+{TAB}"), Some(vec!["shift", "tab"]));
        assert_eq!(combo_keys("{ENTER}"), Some(vec!["enter"]));
        assert_eq!(combo_keys("{LWIN}"), Some(vec!["win"]));
        assert_eq!(combo_keys("{BOGUS}"), None);
        assert_eq!(combo_keys("^é"), None);
        let g = key_gestures("Hello{ENTER}^s").unwrap();
        assert_eq!(
            g,
            [
                Gesture::Type("Hello".into()),
                Gesture::Hotkey(vec!["enter"]),
                Gesture::Hotkey(vec!["ctrl", "s"]),
            ]
        );
        assert!(key_gestures("{NOPE}").unwrap_err().contains("{nope}"));
    }
}
