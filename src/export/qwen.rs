//! Qwen2-VL style (`data.json`): a list of `{"id", "image": "images/..png",
//! "conversations": [{"from": "human", "value": "<image>\n..."}, {"from": "gpt",
//! "value": "..."}]}`, one per step. The format has no system turn, so the system
//! prompt opens the human turn after the image token.

use serde_json::{json, Value};

use super::training::step_examples;
use super::{ExportCx, ExportError, Written};

pub fn write(cx: &ExportCx<'_>) -> Result<Written, ExportError> {
    let records: Vec<Value> = step_examples(cx)
        .into_iter()
        .map(|e| {
            let image = cx.image_ref(&e.image)?;
            Ok(json!({
                "id": e.id,
                "image": image,
                "conversations": [
                    {"from": "human", "value": format!("<image>\n{}\n\n{}", e.system, e.prompt)},
                    {"from": "gpt", "value": e.answer},
                ],
            }))
        })
        .collect::<Result<_, ExportError>>()?;
    cx.write_json("data.json", &records)?;
    Ok(Written {
        records: records.len(),
        skipped: Vec::new(),
    })
}
