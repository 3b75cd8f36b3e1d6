//! Screenshots for the report: replays the first actions of a stored trajectory in
//! a fresh simulated desktop and keeps each observation as a half-size PNG, with
//! the box of the control the next action aims at.

use base64::Engine as _;
use serde::Serialize;

use super::ReportError;
use crate::env::{Desktops, Observation};
use crate::model::{ActionCall, TrajectoryAction};

/// One screenshot of a sample trajectory.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Frame {
    /// The step about to be taken (1-based); for the closing frame, the last step
    /// taken.
    pub step: usize,
    /// What the step does ("click 'Save'"), or "after step N" for the closing frame.
    pub caption: String,
    /// Did the simulated desktop accept the action?
    pub ok: bool,
    /// The desktop's feedback on the action, if any.
    pub feedback: Option<String>,
    /// The box of the target control as percentages of the screenshot
    /// `[left, top, width, height]`, when it could be found.
    pub target: Option<[f64; 4]>,
    /// The frame after the last step shown (no action of its own).
    pub closing: bool,
    /// The PNG, base64-encoded (for a data URL).
    pub png_base64: String,
    pub width: u32,
    pub height: u32,
}

/// Replays up to `steps` actions from a fresh desktop (no setup, as the
/// trajectories stage replays them): one frame before each action, and one after
/// the last.
///
/// # Errors
/// A failed reset or screenshot.
pub fn replay(
    desktops: &dyn Desktops,
    actions: &[TrajectoryAction],
    steps: usize,
    cache: &ShotCache,
) -> Result<Vec<Frame>, ReportError> {
    let mut env = desktops.open(rayon::current_thread_index().unwrap_or(0))?;
    let mut obs = env.reset(&crate::env::Setup::default())?;
    let mut frames = Vec::new();
    let shown = steps.min(actions.len());
    for (i, a) in actions.iter().take(shown).enumerate() {
        let (png_base64, width, height) = cache.shot(&obs)?;
        let target = target_box(&obs, a);
        let out = env.step(&a.to_action())?;
        frames.push(Frame {
            step: i + 1,
            caption: describe(a),
            ok: out.ok,
            feedback: out.observation.feedback.clone(),
            target,
            closing: false,
            png_base64,
            width,
            height,
        });
        obs = out.observation;
    }
    if shown > 0 {
        let (png_base64, width, height) = cache.shot(&obs)?;
        frames.push(Frame {
            step: shown,
            caption: format!("after step {shown}"),
            ok: true,
            feedback: None,
            target: None,
            closing: true,
            png_base64,
            width,
            height,
        });
    }
    Ok(frames)
}

/// A short caption of an action: the call and its control, then what it did when
/// that was recorded (the step's `description` is the screen before the action,
/// not a caption of it).
pub fn describe(a: &TrajectoryAction) -> String {
    let call = call_text(a);
    match a.effect.trim() {
        "" => call,
        effect => format!("{call}: {effect}"),
    }
}

fn call_text(a: &TrajectoryAction) -> String {
    let on = if a.control_text.is_empty() {
        String::new()
    } else {
        format!(" on '{}'", a.control_text)
    };
    match &a.call {
        ActionCall::ClickInput { button, double } => format!(
            "{}{} click{on}",
            if *double { "double " } else { "" },
            button
        ),
        ActionCall::WheelMouseInput { wheel_dist } => format!("scroll {wheel_dist}{on}"),
        // The text typed, not its key notation ('4*16+2', not '4*16{+}2').
        ActionCall::KeyboardInput { keys } => {
            format!("type '{}'{on}", crate::env::sim::keys_as_text(keys))
        }
    }
}

/// The target control's box as percentages: the recorded rect when there is one,
/// else the control of the observation with the action's label or text.
fn target_box(obs: &Observation, a: &TrajectoryAction) -> Option<[f64; 4]> {
    let rect = if a.rect != [0; 4] {
        a.rect
    } else {
        obs.controls
            .iter()
            .find(|c| a.control_label.as_deref() == Some(c.label.as_str()))
            .or_else(|| {
                obs.controls
                    .iter()
                    .find(|c| !a.control_text.is_empty() && c.control_text == a.control_text)
            })?
            .rect
    };
    let (w, h) = (
        f64::from(crate::env::SCREEN_WIDTH),
        f64::from(crate::env::SCREEN_HEIGHT),
    );
    let [l, t, r, b] = rect.map(f64::from);
    if r <= l || b <= t {
        return None;
    }
    let pct = |v: f64, full: f64| (100.0 * v / full).clamp(0.0, 100.0);
    Some([pct(l, w), pct(t, h), pct(r - l, w), pct(b - t, h)])
}

/// Screenshots already made, by scene: every sample starts on the same desktop,
/// and rendering is the slow part of a replay. Shared by parallel replays; a
/// scene two threads render at once is rendered twice (same bytes), never waited on.
#[derive(Debug, Default)]
pub struct ShotCache {
    shots: std::sync::Mutex<Vec<(crate::env::Scene, Shot)>>,
}

/// A screenshot: base64 PNG, width, height.
type Shot = (String, u32, u32);

impl ShotCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(crate::env::Scene, Shot)>> {
        // The cache holds finished entries only, so a poisoned lock is still usable.
        self.shots.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The observation's screenshot at half size, base64-encoded, with its size.
    /// Only rendered screenshots are cached: a captured one is new every time.
    fn shot(&self, obs: &Observation) -> Result<Shot, ReportError> {
        let rendered = obs.captured.is_none();
        if let Some((_, s)) = self
            .lock()
            .iter()
            .find(|(scene, _)| rendered && *scene == obs.scene)
        {
            return Ok(s.clone());
        }
        let png = obs.screenshot(false)?;
        let (small, w, h) = half_size(&png)?;
        let s = (
            base64::engine::general_purpose::STANDARD.encode(small),
            w,
            h,
        );
        if rendered {
            self.lock().push((obs.scene.clone(), s.clone()));
        }
        Ok(s)
    }
}

/// Decodes a PNG (8-bit RGB or RGBA, or anything the decoder expands to that),
/// averages 2x2 blocks and encodes the result as an RGB PNG.
pub fn half_size(png_bytes: &[u8]) -> Result<(Vec<u8>, u32, u32), ReportError> {
    let err = |e: &dyn std::fmt::Display| ReportError::Image(e.to_string());
    let mut decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(|e| err(&e))?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| ReportError::Image("image too large".into()))?;
    let mut buf = vec![0u8; size];
    let info = reader.next_frame(&mut buf).map_err(|e| err(&e))?;
    let channels = match info.color_type {
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Indexed => {
            return Err(ReportError::Image("indexed colour not expanded".into()))
        }
    };
    let (w, h) = (info.width as usize, info.height as usize);
    let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
    let mut out = Vec::with_capacity(nw * nh * 3);
    for y in 0..nh {
        for x in 0..nw {
            let mut acc = [0u32; 3];
            let mut n = 0u32;
            for (dy, dx) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                let (sx, sy) = ((2 * x + dx).min(w - 1), (2 * y + dy).min(h - 1));
                let p = &buf[sy * info.line_size + sx * channels..];
                for (c, a) in acc.iter_mut().enumerate() {
                    *a += u32::from(if channels >= 3 { p[c] } else { p[0] });
                }
                n += 1;
            }
            out.extend(acc.iter().map(|a| (a / n) as u8));
        }
    }
    let mut bytes = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut bytes, nw as u32, nh as u32);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::High);
        let mut writer = enc.write_header().map_err(|e| err(&e))?;
        writer.write_image_data(&out).map_err(|e| err(&e))?;
        writer.finish().map_err(|e| err(&e))?;
    }
    Ok((bytes, nw as u32, nh as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32, px: impl Fn(u32, u32) -> [u8; 3]) -> Vec<u8> {
        let mut data = Vec::new();
        for y in 0..h {
            for x in 0..w {
                data.extend(px(x, y));
            }
        }
        let mut bytes = Vec::new();
        let mut enc = png::Encoder::new(&mut bytes, w, h);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut wr = enc.write_header().unwrap();
        wr.write_image_data(&data).unwrap();
        wr.finish().unwrap();
        bytes
    }

    #[test]
    fn half_size_averages_blocks() {
        // Left half black, right half white, 4x2 -> 2x1: one black, one white pixel.
        let src = png(4, 2, |x, _| if x < 2 { [0, 0, 0] } else { [255, 255, 255] });
        let (small, w, h) = half_size(&src).unwrap();
        assert_eq!((w, h), (2, 1));
        let mut dec = png::Decoder::new(std::io::Cursor::new(small))
            .read_info()
            .unwrap();
        let mut buf = vec![0; dec.output_buffer_size().unwrap()];
        dec.next_frame(&mut buf).unwrap();
        assert_eq!(&buf[..6], &[0, 0, 0, 255, 255, 255]);
    }

    #[test]
    fn half_size_rejects_garbage_without_panicking() {
        assert!(half_size(b"not a png").is_err());
    }

    #[test]
    fn actions_are_described_by_call_and_control() {
        let a = TrajectoryAction {
            call: ActionCall::ClickInput {
                button: "left".into(),
                double: true,
            },
            rect: [0; 4],
            description: String::new(),
            thought: String::new(),
            effect: String::new(),
            control_text: "Writer".into(),
            control_label: None,
        };
        assert_eq!(describe(&a), "double left click on 'Writer'");
        let typed = TrajectoryAction {
            call: ActionCall::KeyboardInput {
                keys: "4*16{+}2*32".into(),
            },
            control_text: "Display".into(),
            ..a
        };
        assert_eq!(describe(&typed), "type '4*16+2*32' on 'Display'");
    }

    #[test]
    fn a_replay_gives_a_frame_per_step_and_one_after() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let desktops = crate::env::EnvSetup::default().desktops(root).unwrap();
        let desk = desktops.as_ref();
        let obs = desk
            .open(0)
            .unwrap()
            .reset(&crate::env::Setup::default())
            .unwrap();
        let first = obs.controls.first().expect("the desktop shows launchers");
        let a = TrajectoryAction {
            call: ActionCall::ClickInput {
                button: "left".into(),
                double: true,
            },
            rect: [0; 4],
            description: String::new(),
            thought: String::new(),
            effect: String::new(),
            control_text: first.control_text.clone(),
            control_label: None,
        };
        let cache = ShotCache::default();
        let frames = replay(desk, &[a.clone(), a.clone()], 1, &cache).unwrap();
        let again = replay(desk, &[a], 1, &cache).unwrap();
        assert_eq!(frames, again);
        assert_eq!(cache.lock().len(), 2);
        assert_eq!(frames.len(), 2);
        assert!(frames[0].target.is_some());
        assert_eq!((frames[0].width, frames[0].height), (640, 400));
        assert!(frames[1].caption.contains("after step 1"));
    }
}
