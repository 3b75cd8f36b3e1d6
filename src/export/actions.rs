//! Action spaces of the exports: one native step of OmniBench's desktop action space
//! (table 10) rendered as
//!
//! - `omnibench`: the native function call, `{"function", "args", "control_label",
//!   "control_text"}` (the actor prompt's fields);
//! - `pyautogui`: a line of pyautogui code aimed at the centre of the control's box
//!   in the screenshot the step was taken on (`pyautogui.click(x, y)`,
//!   `pyautogui.doubleClick`, `pyautogui.rightClick`, `pyautogui.scroll(-d, x=, y=)`;
//!   typing focuses the control with a click, then `pyautogui.write('...')` for
//!   text and `pyautogui.press` / `pyautogui.hotkey` for named keys and combos);
//! - `computer13`: OSWorld's `computer_13` dicts `{"action_type", "parameters"}`
//!   (CLICK, DOUBLE_CLICK, RIGHT_CLICK, MOVE_TO + SCROLL, TYPING, PRESS, HOTKEY),
//!   a list because one native step may need several (click to focus, then type).
//!
//! A wheel step scrolls down for a positive `wheel_dist`; pyautogui and OSWorld
//! scroll up for positive clicks, so the sign flips. Key names go from pywinauto
//! notation (`^s`, `{ENTER}`, `+{TAB}`) to pyautogui's names (`ctrl`, `enter`...).
//! The end of a trajectory is `Status: FINISH` / `DONE` / `{"action_type": "DONE"}`.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::env::sim::{parse_keys, KeyToken};
use crate::model::ActionCall;

/// The action space an export writes actions in (`--actions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum ActionSpace {
    /// OmniBench's native function calls aimed at control labels.
    #[default]
    Omnibench,
    /// pyautogui code with the control's centre coordinates.
    Pyautogui,
    /// OSWorld's computer_13 action dicts.
    Computer13,
}

impl ActionSpace {
    pub fn as_str(self) -> &'static str {
        match self {
            ActionSpace::Omnibench => "omnibench",
            ActionSpace::Pyautogui => "pyautogui",
            ActionSpace::Computer13 => "computer13",
        }
    }
}

/// One step to render: the native call, the control it aims at (as resolved on
/// the screenshot the step was taken on) and its label there.
#[derive(Debug, Clone, PartialEq)]
pub struct StepAction<'a> {
    pub call: &'a ActionCall,
    pub control_text: &'a str,
    pub control_label: Option<&'a str>,
    /// `[left, top, right, bottom]` in screenshot pixels.
    pub rect: Option<[i32; 4]>,
}

/// The centre of a box.
pub fn center(rect: [i32; 4]) -> (i32, i32) {
    ((rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2)
}

/// The step in `space`: a JSON object (omnibench), a string (pyautogui) or a list
/// of dicts (computer13).
pub fn render(space: ActionSpace, step: &StepAction<'_>) -> Value {
    match space {
        ActionSpace::Omnibench => omnibench(step),
        ActionSpace::Pyautogui => Value::String(pyautogui(step)),
        ActionSpace::Computer13 => Value::Array(computer13(step)),
    }
}

/// The step as the text an assistant message carries.
pub fn render_text(space: ActionSpace, step: &StepAction<'_>) -> String {
    match render(space, step) {
        Value::String(s) => s,
        other => other.to_string(),
    }
}

/// The end-of-trajectory action in `space`.
pub fn finish(space: ActionSpace) -> Value {
    match space {
        ActionSpace::Omnibench => json!({"status": "FINISH"}),
        ActionSpace::Pyautogui => Value::String("DONE".to_string()),
        ActionSpace::Computer13 => json!([{"action_type": "DONE", "parameters": {}}]),
    }
}

/// The native call as OmniBench writes it.
pub fn omnibench(step: &StepAction<'_>) -> Value {
    let call = serde_json::to_value(step.call).expect("model types always serialize");
    json!({
        "function": call["function"],
        "args": call["args"],
        "control_label": step.control_label.unwrap_or(""),
        "control_text": step.control_text,
    })
}

/// A Python string literal (single quotes).
pub fn py_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// One piece of a keyboard_input string.
#[derive(Debug, Clone, PartialEq, Eq)]
enum KeyPiece {
    Text(String),
    /// A named key pressed alone (`enter`).
    Press(String),
    /// Modifiers plus a key (`["ctrl", "s"]`).
    Hotkey(Vec<String>),
}

/// pywinauto key names to pyautogui's.
fn key_name(name: &str) -> String {
    let n = name.to_ascii_lowercase();
    match n.as_str() {
        "esc" | "escape" => "esc",
        "bs" | "bksp" | "backspace" => "backspace",
        "del" | "delete" => "delete",
        "ins" | "insert" => "insert",
        "pgup" | "pageup" => "pageup",
        "pgdn" | "pagedown" => "pagedown",
        "prtsc" | "prtscr" | "printscreen" => "printscreen",
        "lwin" | "rwin" | "win" => "win",
        "caps" | "capslock" => "capslock",
        "vk_space" | "space" => "space",
        other => other,
    }
    .to_string()
}

/// Splits pywinauto notation into text runs, presses and hotkeys.
fn key_pieces(keys: &str) -> Vec<KeyPiece> {
    let mut out: Vec<KeyPiece> = Vec::new();
    for token in parse_keys(keys) {
        match token {
            KeyToken::Char(c) => match out.last_mut() {
                Some(KeyPiece::Text(t)) => t.push(c),
                _ => out.push(KeyPiece::Text(c.to_string())),
            },
            KeyToken::Combo(combo) => {
                let mut mods = Vec::new();
                let mut rest = combo.as_str();
                while let Some(c) = rest.chars().next() {
                    let m = match c {
                        '^' => "ctrl",
                        '%' => "alt",
                        '+' if rest.len() > 1 => "shift",
                        _ => break,
                    };
                    mods.push(m.to_string());
                    rest = &rest[1..];
                }
                let key = rest
                    .strip_prefix('{')
                    .and_then(|r| r.strip_suffix('}'))
                    .map(key_name)
                    .unwrap_or_else(|| rest.to_ascii_lowercase());
                if key.is_empty() {
                    // Modifiers alone (`^` at the end): press them.
                    out.push(KeyPiece::Hotkey(mods));
                } else if mods.is_empty() {
                    out.push(KeyPiece::Press(key));
                } else {
                    mods.push(key);
                    out.push(KeyPiece::Hotkey(mods));
                }
            }
        }
    }
    out
}

/// What a keyboard_input string does, as a whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    /// It types some text (possibly with named keys around it).
    Text,
    /// No text, at least one modifier combo (`^s`).
    Shortcut,
    /// Named keys only (`{ENTER}`).
    Press,
}

/// The [`KeyKind`] of pywinauto key notation.
pub fn key_kind(keys: &str) -> KeyKind {
    let pieces = key_pieces(keys);
    if pieces.iter().any(|p| matches!(p, KeyPiece::Text(_))) {
        KeyKind::Text
    } else if pieces.iter().any(|p| matches!(p, KeyPiece::Hotkey(_))) {
        KeyKind::Shortcut
    } else {
        KeyKind::Press
    }
}

/// The step as one line of pyautogui code.
pub fn pyautogui(step: &StepAction<'_>) -> String {
    let at = step.rect.map(center);
    match step.call {
        ActionCall::ClickInput { button, double } => {
            let (x, y) = at.unwrap_or((0, 0));
            let pos = if at.is_some() {
                format!("{x}, {y}")
            } else {
                String::new()
            };
            let sep = if at.is_some() { ", " } else { "" };
            match (button.as_str(), *double) {
                ("left", false) => format!("pyautogui.click({pos})"),
                ("left", true) => format!("pyautogui.doubleClick({pos})"),
                ("right", false) => format!("pyautogui.rightClick({pos})"),
                (b, false) => format!("pyautogui.click({pos}{sep}button={})", py_str(b)),
                (b, true) => format!("pyautogui.doubleClick({pos}{sep}button={})", py_str(b)),
            }
        }
        ActionCall::WheelMouseInput { wheel_dist } => match at {
            Some((x, y)) => format!("pyautogui.scroll({}, x={x}, y={y})", -wheel_dist),
            None => format!("pyautogui.scroll({})", -wheel_dist),
        },
        ActionCall::KeyboardInput { keys } => {
            let mut parts = Vec::new();
            if let Some((x, y)) = at {
                parts.push(format!("pyautogui.click({x}, {y})"));
            }
            for piece in key_pieces(keys) {
                parts.push(match piece {
                    KeyPiece::Text(t) => format!("pyautogui.write({})", py_str(&t)),
                    KeyPiece::Press(k) => format!("pyautogui.press({})", py_str(&k)),
                    KeyPiece::Hotkey(ks) => format!(
                        "pyautogui.hotkey({})",
                        ks.iter().map(|k| py_str(k)).collect::<Vec<_>>().join(", ")
                    ),
                });
            }
            parts.join("; ")
        }
    }
}

/// The step as OSWorld computer_13 actions.
pub fn computer13(step: &StepAction<'_>) -> Vec<Value> {
    let at = step.rect.map(center);
    let xy = |mut params: serde_json::Map<String, Value>| {
        if let Some((x, y)) = at {
            params.insert("x".into(), json!(x));
            params.insert("y".into(), json!(y));
        }
        Value::Object(params)
    };
    match step.call {
        ActionCall::ClickInput { button, double } => {
            let action = match (button.as_str(), *double) {
                ("left", true) => {
                    json!({"action_type": "DOUBLE_CLICK", "parameters": xy(Default::default())})
                }
                ("right", false) => {
                    json!({"action_type": "RIGHT_CLICK", "parameters": xy(Default::default())})
                }
                (b, double) => {
                    let mut p = serde_json::Map::new();
                    p.insert("button".into(), json!(b));
                    let mut params = xy(p);
                    params["num_clicks"] = json!(if double { 2 } else { 1 });
                    json!({"action_type": "CLICK", "parameters": params})
                }
            };
            vec![action]
        }
        ActionCall::WheelMouseInput { wheel_dist } => {
            let mut out = Vec::new();
            if at.is_some() {
                out.push(json!({"action_type": "MOVE_TO", "parameters": xy(Default::default())}));
            }
            out.push(json!({"action_type": "SCROLL", "parameters": {"dx": 0, "dy": -wheel_dist}}));
            out
        }
        ActionCall::KeyboardInput { keys } => {
            let mut out = Vec::new();
            if at.is_some() {
                let mut p = serde_json::Map::new();
                p.insert("button".into(), json!("left"));
                let mut params = xy(p);
                params["num_clicks"] = json!(1);
                out.push(json!({"action_type": "CLICK", "parameters": params}));
            }
            for piece in key_pieces(keys) {
                out.push(match piece {
                    KeyPiece::Text(t) => {
                        json!({"action_type": "TYPING", "parameters": {"text": t}})
                    }
                    KeyPiece::Press(k) => json!({"action_type": "PRESS", "parameters": {"key": k}}),
                    KeyPiece::Hotkey(ks) => {
                        json!({"action_type": "HOTKEY", "parameters": {"keys": ks}})
                    }
                });
            }
            out
        }
    }
}

/// A short imperative phrase for the step ("Click the 'Open' Button"), used as the
/// grounding instruction and in step histories.
pub fn describe(step: &StepAction<'_>, control_type: Option<&str>) -> String {
    let target = match (step.control_text.trim(), control_type) {
        ("", _) => None,
        (t, Some(ty)) if !ty.is_empty() => Some(format!("the '{t}' {ty}")),
        (t, _) => Some(format!("'{t}'")),
    };
    match step.call {
        ActionCall::ClickInput { button, double } => {
            let verb = match (button.as_str(), *double) {
                ("left", false) => "Click".to_string(),
                ("left", true) => "Double-click".to_string(),
                (b, false) => format!("{}-click", capitalize(b)),
                (b, true) => format!("Double {b}-click"),
            };
            match target {
                Some(t) => format!("{verb} {t}"),
                None => verb,
            }
        }
        ActionCall::WheelMouseInput { wheel_dist } => {
            let dir = if *wheel_dist >= 0 { "down" } else { "up" };
            let n = wheel_dist.unsigned_abs();
            match target {
                Some(t) => format!("Scroll {dir} {n} in {t}"),
                None => format!("Scroll {dir} {n}"),
            }
        }
        ActionCall::KeyboardInput { keys } => {
            let mut words = Vec::new();
            for piece in key_pieces(keys) {
                words.push(match piece {
                    KeyPiece::Text(t) => format!("type '{t}'"),
                    KeyPiece::Press(k) => format!("press {k}"),
                    KeyPiece::Hotkey(ks) => format!("press {}", ks.join("+")),
                });
            }
            let what = capitalize(&words.join(", then "));
            match target {
                Some(t) => format!("{what} in {t}"),
                None => what,
            }
        }
    }
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step<'a>(call: &'a ActionCall, rect: Option<[i32; 4]>) -> StepAction<'a> {
        StepAction {
            call,
            control_text: "Name",
            control_label: Some("4"),
            rect,
        }
    }

    #[test]
    fn clicks_aim_at_the_centre() {
        let c = ActionCall::ClickInput {
            button: "left".into(),
            double: true,
        };
        let s = step(&c, Some([10, 20, 30, 40]));
        assert_eq!(pyautogui(&s), "pyautogui.doubleClick(20, 30)");
        assert_eq!(
            computer13(&s),
            vec![json!({"action_type": "DOUBLE_CLICK", "parameters": {"x": 20, "y": 30}})]
        );
        let r = ActionCall::ClickInput {
            button: "middle".into(),
            double: false,
        };
        assert_eq!(
            pyautogui(&step(&r, Some([0, 0, 10, 10]))),
            "pyautogui.click(5, 5, button='middle')"
        );
        assert_eq!(
            computer13(&step(&r, Some([0, 0, 10, 10])))[0]["parameters"],
            json!({"button": "middle", "x": 5, "y": 5, "num_clicks": 1})
        );
    }

    #[test]
    fn typing_focuses_then_types_and_presses() {
        let k = ActionCall::KeyboardInput {
            keys: "it's{ENTER}^s+{TAB}".into(),
        };
        let s = step(&k, Some([0, 0, 100, 20]));
        assert_eq!(
            pyautogui(&s),
            "pyautogui.click(50, 10); pyautogui.write('it\\'s'); pyautogui.press('enter'); pyautogui.hotkey('ctrl', 's'); pyautogui.hotkey('shift', 'tab')"
        );
        let c = computer13(&s);
        assert_eq!(c.len(), 5);
        assert_eq!(
            c[1],
            json!({"action_type": "TYPING", "parameters": {"text": "it's"}})
        );
        assert_eq!(
            c[2],
            json!({"action_type": "PRESS", "parameters": {"key": "enter"}})
        );
        assert_eq!(
            c[3],
            json!({"action_type": "HOTKEY", "parameters": {"keys": ["ctrl", "s"]}})
        );
        assert_eq!(
            describe(&s, Some("Edit")),
            "Type 'it's', then press enter, then press ctrl+s, then press shift+tab in the 'Name' Edit"
        );
    }

    #[test]
    fn scrolling_flips_the_sign() {
        let w = ActionCall::WheelMouseInput { wheel_dist: 3 };
        let s = step(&w, Some([0, 0, 10, 10]));
        assert_eq!(pyautogui(&s), "pyautogui.scroll(-3, x=5, y=5)");
        assert_eq!(
            computer13(&s)[1],
            json!({"action_type": "SCROLL", "parameters": {"dx": 0, "dy": -3}})
        );
        let o = omnibench(&s);
        assert_eq!(o["function"], "wheel_mouse_input");
        assert_eq!(o["args"], json!({"wheel_dist": 3}));
        assert_eq!(o["control_label"], "4");
    }
}
