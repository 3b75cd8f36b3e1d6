//! LLaMA-Factory multimodal ShareGPT: `data.json` (a list of
//! `{"system", "messages": [{"role": "user", "content": "...<image>"}, {"role":
//! "assistant", "content": "..."}], "images": ["images/..png"]}`) and
//! `dataset_info.json` registering it as `synth_sharegpt` (`formatting: sharegpt`,
//! columns `messages`, `images`, `system`, and the role/content tags). One example
//! per step ([`super::training`]); each user message carries exactly one `<image>`
//! and each example exactly one image, so the token count equals `len(images)`.
//! Image paths are relative to the output folder (LLaMA-Factory's `dataset_dir`).

use serde_json::{json, Value};

use super::training::step_examples;
use super::{ExportCx, ExportError, Written};

/// The dataset name in `dataset_info.json`.
pub const DATASET_NAME: &str = "synth_sharegpt";

/// The `dataset_info.json` entry.
pub fn dataset_info(file_name: &str) -> Value {
    json!({
        DATASET_NAME: {
            "file_name": file_name,
            "formatting": "sharegpt",
            "columns": {"messages": "messages", "images": "images", "system": "system"},
            "tags": {
                "role_tag": "role",
                "content_tag": "content",
                "user_tag": "user",
                "assistant_tag": "assistant"
            }
        }
    })
}

pub fn write(cx: &ExportCx<'_>) -> Result<Written, ExportError> {
    let records: Vec<Value> = step_examples(cx)
        .into_iter()
        .map(|e| {
            let image = cx.image_ref(&e.image)?;
            Ok(json!({
                "system": e.system,
                "messages": [
                    {"role": "user", "content": format!("{}\n<image>", e.prompt)},
                    {"role": "assistant", "content": e.answer},
                ],
                "images": [image],
            }))
        })
        .collect::<Result<_, ExportError>>()?;
    cx.write_json("data.json", &records)?;
    cx.write_json("dataset_info.json", &dataset_info("data.json"))?;
    Ok(Written {
        records: records.len(),
        skipped: Vec::new(),
    })
}
