//! GroundUI-style grounding set (`grounding.jsonl`), in the row shape AgentStudio's
//! `GUIGroundingEval` reads: one line per step that aims at a visible control,
//! `{"image", "instruction", "bbox": [left, top, right, bottom], "resolution":
//! [w, h], "source", "platform"}` plus synth's `id`, `task_id`, `control_text`,
//! `control_type` and `window_title`. The image path is relative to the export's
//! `images/` folder (AgentStudio opens `<folder of the jsonl>/images/<image>`). The
//! instruction is the single-step phrase of the action ("Click the 'Open'
//! Button"); the box is the control's box on that screenshot (from the replay), in
//! pixels. A prediction is correct when its point falls strictly inside the box.

use serde_json::{json, Value};

use super::actions::describe;
use super::agentstudio::{step_id, PLATFORM, SOURCE};
use super::training::{no_image_token, step_action};
use super::{ExportCx, ExportError, Written};
use crate::env::{SCREEN_HEIGHT, SCREEN_WIDTH};

pub fn write(cx: &ExportCx<'_>) -> Result<Written, ExportError> {
    let mut lines: Vec<Value> = Vec::new();
    for (_, t, r) in cx.trajectories() {
        for (k, (a, s)) in t.actions.iter().zip(&r.steps).enumerate() {
            let Some(c) = s.control.as_ref() else {
                continue;
            };
            let [l, top, right, bottom] = c.rect;
            if right <= l || bottom <= top {
                continue;
            }
            let step = step_action(a, Some(c));
            lines.push(json!({
                "image": cx.image_ref(&r.images[k])?,
                "instruction": no_image_token(&describe(&step, Some(&c.control_type))),
                "bbox": c.rect,
                "resolution": [SCREEN_WIDTH, SCREEN_HEIGHT],
                "source": SOURCE,
                "platform": PLATFORM,
                "id": step_id(t, k),
                "task_id": t.task_id,
                "control_text": c.control_text,
                "control_type": c.control_type,
                "window_title": s.window_title,
            }));
        }
    }
    cx.write_jsonl("grounding.jsonl", &lines)?;
    Ok(Written {
        records: lines.len(),
        skipped: Vec::new(),
    })
}
