//! Screenshots: the [`Scene`] (a compact, serde-serializable layout snapshot made by
//! the simulator's layout) and its rendering to a 1280x800 PNG with the bundled
//! DejaVu Sans font: wallpaper, window chrome, controls drawn by type, taskbar, and
//! optionally numbered set-of-marks boxes. Rendering is a pure function of the scene,
//! so the same scene always gives the same bytes.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::{ControlInfo, EnvError};

pub const SCREEN_WIDTH: u32 = 1280;
pub const SCREEN_HEIGHT: u32 = 800;
const FONT_PX: f32 = 14.0;
/// Average advance used to decide what fits (matches the renderer's truncation).
const CHAR_W: i32 = 8;

static FONT_BYTES: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// A control as drawn.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SceneControl {
    pub label: String,
    pub text: String,
    pub control_type: String,
    pub rect: [i32; 4],
    /// An Edit's name, drawn left of its box.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caption: Option<String>,
    /// Lines drawn inside (Text, Document, an Edit's value).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<String>,
    #[serde(default)]
    pub selected: bool,
    #[serde(default)]
    pub checked: bool,
    /// (first visible row, total rows, visible rows) of a scrollable control.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scroll: Option<(usize, usize, usize)>,
}

/// Everything the screenshot shows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scene {
    pub title: String,
    /// The active application (None: the desktop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    pub controls: Vec<SceneControl>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// (title, message) of a modal message box.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog: Option<(String, String)>,
    pub clock: String,
}

/// `text`'s first line as drawn in `width` pixels (an ellipsis marks a cut).
pub fn fits(text: &str, width: i32) -> String {
    let line = text.lines().next().unwrap_or("");
    let max = ((width - 12) / CHAR_W).max(1) as usize;
    if line.chars().count() <= max {
        line.to_string()
    } else {
        let mut s: String = line.chars().take(max.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

fn is_taskbar(c: &SceneControl) -> bool {
    c.rect[1] >= SCREEN_HEIGHT as i32 - 40
}

impl Scene {
    /// The texts visible on the screenshot (what OCR would read), as drawn.
    pub fn drawn_texts(&self) -> Vec<String> {
        let mut out = vec![self.title.clone()];
        for c in &self.controls {
            let w = c.rect[2] - c.rect[0];
            match c.control_type.as_str() {
                "Edit" => {
                    if let Some(cap) = &c.caption {
                        out.push(fits(cap, 176));
                    }
                    out.extend(c.lines.iter().map(|l| fits(l, w)));
                }
                "Text" | "Document" => out.extend(c.lines.iter().map(|l| fits(l, w))),
                "List" => {}
                _ => out.push(fits(&c.text, w)),
            }
        }
        if let Some(s) = &self.status {
            out.push(fits(s, SCREEN_WIDTH as i32 - 24));
        }
        if let Some((t, _)) = &self.dialog {
            out.push(t.clone());
        }
        out.push(self.clock.clone());
        out.retain(|t| !t.is_empty());
        out
    }
}

type Rgb = [u8; 3];

/// RGB8 pixels, row-major, `w` by `h`.
struct Canvas {
    px: Vec<u8>,
    w: usize,
    h: usize,
}

/// The bundled font (compiled in; a unit test proves it parses, so `None` would
/// only mean a broken build, in which case text is simply not drawn).
fn font() -> Option<&'static fontdue::Font> {
    static FONT: OnceLock<Option<fontdue::Font>> = OnceLock::new();
    FONT.get_or_init(|| {
        fontdue::Font::from_bytes(FONT_BYTES, fontdue::FontSettings::default()).ok()
    })
    .as_ref()
}

/// Rasterised glyphs by (character, size bits).
type GlyphCache = HashMap<(char, u32), (fontdue::Metrics, Vec<u8>)>;

thread_local! {
    static GLYPHS: RefCell<GlyphCache> = RefCell::new(HashMap::new());
}

impl Canvas {
    fn new() -> Canvas {
        Canvas {
            px: vec![0; (SCREEN_WIDTH * SCREEN_HEIGHT * 3) as usize],
            w: SCREEN_WIDTH as usize,
            h: SCREEN_HEIGHT as usize,
        }
    }

    fn fill(&mut self, r: [i32; 4], c: Rgb) {
        let x0 = r[0].clamp(0, self.w as i32) as usize;
        let x1 = r[2].clamp(0, self.w as i32) as usize;
        let y0 = r[1].clamp(0, self.h as i32) as usize;
        let y1 = r[3].clamp(0, self.h as i32) as usize;
        for y in y0..y1 {
            let row = y * self.w * 3;
            for x in x0..x1 {
                let i = row + x * 3;
                self.px[i..i + 3].copy_from_slice(&c);
            }
        }
    }

    fn stroke(&mut self, r: [i32; 4], c: Rgb) {
        self.fill([r[0], r[1], r[2], r[1] + 1], c);
        self.fill([r[0], r[3] - 1, r[2], r[3]], c);
        self.fill([r[0], r[1], r[0] + 1, r[3]], c);
        self.fill([r[2] - 1, r[1], r[2], r[3]], c);
    }

    fn blend(&mut self, x: i32, y: i32, c: Rgb, a: u8) {
        if x < 0 || y < 0 || x >= self.w as i32 || y >= self.h as i32 || a == 0 {
            return;
        }
        let i = (y as usize * self.w + x as usize) * 3;
        for (dst, src) in self.px[i..i + 3].iter_mut().zip(c) {
            let bg = *dst as u32;
            *dst = ((src as u32 * a as u32 + bg * (255 - a as u32)) / 255) as u8;
        }
    }

    /// Draws one line of text with its top-left at (x, y), clipped at `max_x`.
    fn text(&mut self, x: i32, y: i32, text: &str, size: f32, c: Rgb, max_x: i32) {
        let Some(f) = font() else {
            return;
        };
        let baseline = y + (size * 0.95) as i32;
        let mut pen = x as f32;
        GLYPHS.with(|cache| {
            let mut cache = cache.borrow_mut();
            for ch in text.chars() {
                let key = (ch, size.to_bits());
                let (m, bitmap) = cache.entry(key).or_insert_with(|| f.rasterize(ch, size));
                let gx = pen.round() as i32 + m.xmin;
                if gx + m.width as i32 > max_x {
                    break;
                }
                let gy = baseline - m.height as i32 - m.ymin;
                for row in 0..m.height {
                    for col in 0..m.width {
                        let a = bitmap[row * m.width + col];
                        self.blend(gx + col as i32, gy + row as i32, c, a);
                    }
                }
                pen += m.advance_width;
            }
        });
    }

    fn text_width(text: &str, size: f32) -> i32 {
        let Some(f) = font() else {
            return 0;
        };
        text.chars()
            .map(|c| f.metrics(c, size).advance_width)
            .sum::<f32>() as i32
    }
}

fn mark_color(ty: &str) -> Rgb {
    match ty {
        "Button" => [220, 50, 47],
        "Edit" => [38, 139, 210],
        "MenuItem" => [133, 153, 0],
        "ListItem" => [211, 54, 130],
        "TabItem" => [181, 137, 0],
        "CheckBox" => [42, 161, 152],
        "Document" => [108, 113, 196],
        "Hyperlink" => [0, 102, 204],
        _ => [120, 120, 120],
    }
}

const INK: Rgb = [32, 33, 36];
const MUTED: Rgb = [95, 99, 104];
const WHITE: Rgb = [255, 255, 255];

/// Renders a scene as PNG bytes; `marks` draws numbered set-of-marks boxes.
pub fn render_png(scene: &Scene, marks: bool) -> Result<Vec<u8>, EnvError> {
    encode_rgb(&render_rgb(scene, marks), SCREEN_WIDTH, SCREEN_HEIGHT)
}

/// Renders a scene as raw RGB8 pixels (row-major, 1280x800).
pub fn render_rgb(scene: &Scene, marks: bool) -> Vec<u8> {
    let mut cv = Canvas::new();
    let w = SCREEN_WIDTH as i32;
    let h = SCREEN_HEIGHT as i32;
    let bar = h - 40;
    // Wallpaper: a vertical gradient.
    for y in 0..bar {
        let t = y as f32 / bar as f32;
        let c = [
            (28.0 + 20.0 * t) as u8,
            (78.0 + 40.0 * t) as u8,
            (120.0 + 50.0 * t) as u8,
        ];
        cv.fill([0, y, w, y + 1], c);
    }
    match &scene.app {
        None => {
            cv.text(
                40,
                16,
                "Desktop - double-click or click an application to open it",
                FONT_PX,
                WHITE,
                w - 20,
            );
        }
        Some(_) => {
            // The maximized window: title bar, content, status bar.
            cv.fill([0, 0, w, 32], [232, 234, 237]);
            cv.fill([0, 31, w, 32], [200, 200, 200]);
            cv.fill([8, 8, 24, 24], [66, 133, 244]);
            cv.text(32, 8, &fits(&scene.title, w - 140), FONT_PX, INK, w - 100);
            cv.fill([0, 32, w, bar - 22], [250, 250, 250]);
            cv.fill([0, bar - 22, w, bar], [236, 236, 236]);
            if let Some(s) = &scene.status {
                cv.text(12, bar - 19, &fits(s, w - 24), 12.0, MUTED, w - 12);
            }
        }
    }
    if let Some((title, _)) = &scene.dialog {
        let r = [390, 300, 890, 460];
        cv.fill([r[0] + 4, r[1] + 4, r[2] + 4, r[3] + 4], [150, 150, 150]);
        cv.fill(r, WHITE);
        cv.fill([r[0], r[1], r[2], r[1] + 32], [245, 222, 222]);
        cv.text(r[0] + 12, r[1] + 8, title, FONT_PX, INK, r[2] - 8);
        cv.stroke(r, [120, 120, 120]);
    }
    // Taskbar.
    cv.fill([0, bar, w, h], [31, 36, 48]);
    let clock_w = Canvas::text_width(&scene.clock, FONT_PX);
    cv.text(w - 16 - clock_w, bar + 12, &scene.clock, FONT_PX, WHITE, w);
    for c in &scene.controls {
        draw_control(&mut cv, scene, c);
    }
    if marks {
        for c in &scene.controls {
            draw_mark(&mut cv, c.rect, &c.label, &c.control_type);
        }
    }
    cv.px
}

/// One set-of-marks box: the control's outline and its label in a filled tab.
fn draw_mark(cv: &mut Canvas, rect: [i32; 4], label: &str, control_type: &str) {
    let col = mark_color(control_type);
    cv.stroke(rect, col);
    let tw = Canvas::text_width(label, 11.0);
    let box_r = [rect[0], rect[1], rect[0] + tw + 6, rect[1] + 14];
    cv.fill(box_r, col);
    cv.text(box_r[0] + 3, box_r[1] + 1, label, 11.0, WHITE, box_r[2] + 2);
}

/// A captured screenshot (PNG of any size) with set-of-marks boxes drawn over
/// `controls`, as PNG.
pub fn mark_png(png_bytes: &[u8], controls: &[ControlInfo]) -> Result<Vec<u8>, EnvError> {
    let err = |e: &dyn std::fmt::Display| EnvError::Render(e.to_string());
    let mut dec = png::Decoder::new(std::io::Cursor::new(png_bytes));
    dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = dec.read_info().map_err(|e| err(&e))?;
    let mut buf = vec![0; reader.output_buffer_size().unwrap_or(0)];
    let info = reader.next_frame(&mut buf).map_err(|e| err(&e))?;
    let (w, h) = (info.width as usize, info.height as usize);
    let channels = info.color_type.samples();
    let mut px = Vec::with_capacity(w * h * 3);
    for p in buf[..w * h * channels].chunks_exact(channels) {
        match channels {
            1 | 2 => px.extend([p[0]; 3]),
            _ => px.extend(&p[..3]),
        }
    }
    let mut cv = Canvas { px, w, h };
    for c in controls {
        draw_mark(&mut cv, c.rect, &c.label, &c.control_type);
    }
    encode_rgb(&cv.px, w as u32, h as u32)
}

/// RGB8 pixels as PNG bytes.
pub fn encode_rgb(px: &[u8], width: u32, height: u32) -> Result<Vec<u8>, EnvError> {
    let mut out = Vec::with_capacity(200_000);
    {
        let mut enc = png::Encoder::new(&mut out, width, height);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Fast);
        let mut w = enc
            .write_header()
            .map_err(|e| EnvError::Render(e.to_string()))?;
        w.write_image_data(px)
            .map_err(|e| EnvError::Render(e.to_string()))?;
    }
    Ok(out)
}

fn draw_control(cv: &mut Canvas, scene: &Scene, c: &SceneControl) {
    let r = c.rect;
    let width = r[2] - r[0];
    let centered = |cv: &mut Canvas, text: &str, col: Rgb| {
        let t = fits(text, width);
        let tw = Canvas::text_width(&t, FONT_PX);
        let x = r[0] + ((width - tw) / 2).max(4);
        cv.text(x, r[1] + (r[3] - r[1] - 16) / 2, &t, FONT_PX, col, r[2] - 2);
    };
    if is_taskbar(c) {
        let bg = if c.selected {
            [70, 80, 104]
        } else {
            [48, 55, 72]
        };
        cv.fill(r, bg);
        if c.selected {
            cv.fill([r[0] + 8, r[3] - 3, r[2] - 8, r[3]], [100, 170, 255]);
        }
        centered(cv, &c.text, WHITE);
        return;
    }
    match c.control_type.as_str() {
        "Button" if r[1] < 32 => {
            // Title-bar buttons.
            let glyph = if c.text == "Close" { "x" } else { "_" };
            centered(cv, glyph, INK);
        }
        "Button" | "ComboBox" => {
            cv.fill(r, [240, 240, 240]);
            cv.stroke(r, [170, 170, 170]);
            let t = if c.control_type == "ComboBox" {
                format!("{} v", c.text)
            } else {
                c.text.clone()
            };
            centered(cv, &t, INK);
        }
        "MenuItem" => {
            cv.fill(r, [244, 246, 248]);
            centered(cv, &c.text, INK);
        }
        "TabItem" => {
            cv.fill(r, [230, 238, 248]);
            cv.fill([r[0], r[3] - 2, r[2], r[3]], [66, 133, 244]);
            centered(cv, &c.text, INK);
        }
        "Hyperlink" => {
            let t = fits(&c.text, width);
            cv.text(r[0] + 4, r[1] + 6, &t, FONT_PX, [26, 13, 171], r[2]);
            let tw = Canvas::text_width(&t, FONT_PX).min(width - 4);
            cv.fill(
                [r[0] + 4, r[1] + 22, r[0] + 4 + tw, r[1] + 23],
                [26, 13, 171],
            );
        }
        "CheckBox" => {
            let b = [r[0] + 4, r[1] + 7, r[0] + 18, r[1] + 21];
            cv.fill(b, WHITE);
            cv.stroke(b, [90, 90, 90]);
            if c.checked {
                cv.fill([b[0] + 3, b[1] + 3, b[2] - 3, b[3] - 3], [66, 133, 244]);
            }
            cv.text(
                r[0] + 24,
                r[1] + 6,
                &fits(&c.text, width - 20),
                FONT_PX,
                INK,
                r[2],
            );
        }
        "Edit" => {
            if let Some(cap) = &c.caption {
                cv.text(12, r[1] + 7, &fits(cap, 176), FONT_PX, MUTED, r[0] - 4);
            }
            cv.fill(r, WHITE);
            let border = if c.selected {
                [66, 133, 244]
            } else {
                [150, 150, 150]
            };
            cv.stroke(r, border);
            let v = c.lines.first().cloned().unwrap_or_default();
            cv.text(r[0] + 6, r[1] + 7, &fits(&v, width), FONT_PX, INK, r[2] - 4);
        }
        "Text" => {
            for (i, l) in c.lines.iter().enumerate() {
                cv.text(
                    r[0] + 2,
                    r[1] + 2 + i as i32 * 20,
                    &fits(l, width),
                    FONT_PX,
                    INK,
                    r[2],
                );
            }
        }
        "List" => {
            cv.fill(r, WHITE);
            cv.stroke(r, [190, 190, 190]);
            if let Some((first, total, rows)) = c.scroll {
                if total > rows {
                    let track = [r[2] - 12, r[1] + 2, r[2] - 2, r[3] - 2];
                    cv.fill(track, [232, 232, 232]);
                    let th = (track[3] - track[1]) as usize;
                    let top = track[1] + (th * first / total) as i32;
                    let len = ((th * rows / total) as i32).max(12);
                    cv.fill(
                        [track[0], top, track[2], (top + len).min(track[3])],
                        [160, 160, 160],
                    );
                }
            }
        }
        "ListItem" if scene.app.is_none() => {
            cv.fill([r[0], r[1], r[0] + 44, r[3]], [240, 240, 240]);
            let initial: String = c.text.chars().take(1).collect();
            cv.text(
                r[0] + 15,
                r[1] + 13,
                &initial,
                16.0,
                [40, 90, 160],
                r[0] + 44,
            );
            cv.text(
                r[0] + 52,
                r[1] + 13,
                &fits(&c.text, width - 52),
                FONT_PX,
                WHITE,
                r[2],
            );
        }
        "ListItem" => {
            if c.selected {
                cv.fill(r, [204, 228, 255]);
            }
            cv.text(
                r[0] + 8,
                r[1] + 4,
                &fits(&c.text, width - 8),
                FONT_PX,
                INK,
                r[2] - 2,
            );
        }
        "Document" => {
            cv.fill(r, WHITE);
            cv.stroke(r, [200, 200, 200]);
            for (i, l) in c.lines.iter().enumerate() {
                cv.text(
                    r[0] + 10,
                    r[1] + 6 + i as i32 * 20,
                    &fits(l, width - 10),
                    FONT_PX,
                    INK,
                    r[2] - 6,
                );
            }
        }
        _ => centered(cv, &c.text, INK),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn font_parses_and_text_fits() {
        assert!(font().unwrap().metrics('A', FONT_PX).advance_width > 0.0);
        assert_eq!(fits("hello", 200), "hello");
        assert!(fits(&"x".repeat(100), 100).ends_with('…'));
    }
}
