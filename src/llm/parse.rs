//! Defensive extraction of JSON from a model reply.
//!
//! Models wrap JSON in code fences, prefix it with prose, or append remarks. We take
//! the first complete JSON object or array in the text (after stripping fences) and
//! report, when there is none, an error message short enough to send back on re-ask.

use serde_json::Value;

/// The first JSON object or array in `text`.
///
/// # Errors
/// A message saying why nothing parsed (sent back to the model on re-ask).
pub fn first_json_value(text: &str) -> Result<Value, String> {
    let body = strip_fences(text);
    let mut last_err = None;
    for (start, _) in body.match_indices(['{', '[']) {
        let mut stream = serde_json::Deserializer::from_str(&body[start..]).into_iter::<Value>();
        match stream.next() {
            Some(Ok(v)) => return Ok(v),
            Some(Err(e)) if last_err.is_none() => last_err = Some(e.to_string()),
            _ => {}
        }
    }
    Err(match last_err {
        Some(e) => format!("the reply is not valid JSON: {e}"),
        None => "the reply contains no JSON object".to_string(),
    })
}

/// The content of the first ``` fenced block, or the whole text when there is none.
fn strip_fences(text: &str) -> &str {
    let Some(open) = text.find("```") else {
        return text;
    };
    let after = &text[open + 3..];
    // Skip an info string such as `json`.
    let content_start = after.find('\n').map(|i| i + 1).unwrap_or(0);
    let content = &after[content_start..];
    match content.find("```") {
        Some(close) => &content[..close],
        None => content,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plain_json() {
        assert_eq!(first_json_value(r#"{"a":1}"#).unwrap(), json!({"a":1}));
    }

    #[test]
    fn fenced_json_with_prose() {
        let text = "Here you go:\n```json\n{\"a\": [1, 2]}\n```\nHope it helps {not json}";
        assert_eq!(first_json_value(text).unwrap(), json!({"a":[1,2]}));
    }

    #[test]
    fn prose_then_json_then_trailing_text() {
        let text = "Sure! {\"Status\": \"FINISH\"} and that's it.";
        assert_eq!(first_json_value(text).unwrap(), json!({"Status":"FINISH"}));
    }

    #[test]
    fn brace_in_prose_before_json() {
        let text = "use {curly} then {\"x\": 1}";
        assert_eq!(first_json_value(text).unwrap(), json!({"x":1}));
    }

    #[test]
    fn no_json_is_an_error() {
        assert!(first_json_value("I cannot help with that.")
            .unwrap_err()
            .contains("no JSON"));
        assert!(first_json_value("{\"a\": ")
            .unwrap_err()
            .contains("not valid JSON"));
    }
}
