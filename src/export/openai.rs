//! OpenAI-style chat fine-tuning JSONL (`data.jsonl`): one line per step,
//! `{"messages": [system, user, assistant]}`. The user message's content is a list
//! of parts: the prompt as `{"type": "text", "text"}` and the screenshot as
//! `{"type": "image_url", "image_url": {"url": ..., "detail": "high"}}` (an object,
//! never a bare string). OpenAI's vision fine-tuning takes an image only as an
//! http(s) URL or a base64 data URL, so the URL is by default a
//! `data:image/png;base64,...` URL (and no `images/` folder is left beside the
//! file), or with `--image-base-url URL` the URL the export's `images/` folder
//! is served at joined with the image's path under it (the folder is kept, for
//! uploading). Images appear only in user messages; system and assistant
//! contents are plain strings.

use serde_json::{json, Value};

use super::training::step_examples;
use super::{ExportCx, ExportError, Written};

pub fn write(cx: &ExportCx<'_>) -> Result<Written, ExportError> {
    let mut lines: Vec<Value> = Vec::new();
    for e in step_examples(cx) {
        let url = cx.image_ref(&e.image)?;
        lines.push(json!({
            "messages": [
                {"role": "system", "content": e.system},
                {"role": "user", "content": [
                    {"type": "text", "text": e.prompt},
                    {"type": "image_url", "image_url": {"url": url, "detail": "high"}},
                ]},
                {"role": "assistant", "content": e.answer},
            ]
        }));
    }
    cx.write_jsonl("data.jsonl", &lines)?;
    Ok(Written {
        records: lines.len(),
        skipped: Vec::new(),
    })
}
