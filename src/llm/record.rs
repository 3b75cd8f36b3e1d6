//! The call record: every model call, keyed by a hash of what was asked.
//!
//! Owns the record type ([`CallRecord`]), the call key, and the JSONL export and
//! import (for the `replay` backend). The rows live in the store's `model_calls`
//! table, read and written through [`crate::store::calls::CallLog`].
//!
//! The key is the sha256 of (role, model, rendered messages, sampling parameters);
//! images enter it as their own sha256. The API key is part of neither the key nor
//! the row.

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{LlmError, Role};

/// Who speaks a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Speaker {
    System,
    User,
    Assistant,
}

/// A message as recorded and hashed. An attached image is represented by its
/// sha256; the bytes travel beside it (see the client).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: Speaker,
    pub content: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_sha256: Option<String>,
}

/// The sampling parameters that enter the call key.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SamplingParams {
    pub temperature: f32,
    pub max_tokens: Option<u32>,
    pub json_mode: bool,
    /// Which new sample of the same request this is within one run: `None` the
    /// first time it is asked, `Some(n)` the n-th time again (a verify round or a
    /// validation attempt with the same prompt). It enters the key, so a repeated
    /// question is not answered from the record of the first one, and it is sent
    /// as the request's `seed`; absent for the first ask, so keys recorded before
    /// it existed still match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample: Option<u32>,
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in digest {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// The request as recorded: `{"messages": [...], "params": {...}}`.
pub fn request_json(messages: &[ChatMessage], params: &SamplingParams) -> serde_json::Value {
    serde_json::json!({ "messages": messages, "params": params })
}

/// The call key: sha256 hex of role, model, messages and sampling parameters.
pub fn call_key(
    role: Role,
    model: &str,
    messages: &[ChatMessage],
    params: &SamplingParams,
) -> String {
    let canonical = serde_json::json!({
        "role": role,
        "model": model,
        "request": request_json(messages, params),
    });
    sha256_hex(canonical.to_string().as_bytes())
}

/// What became of one recorded exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallOutcome {
    /// The reply parsed and validated.
    Accepted,
    /// The reply did not parse or validate and was re-asked.
    Invalid,
    /// The reply did not parse or validate and no re-ask was left.
    Rejected,
    /// No reply: the transport gave up.
    Error,
}

crate::store::status::text_enum!(CallOutcome, "call outcome" {
    Accepted => "accepted",
    Invalid => "invalid",
    Rejected => "rejected",
    Error => "error",
});

/// One row of `model_calls`, also one line of a replay JSONL file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    pub key_hash: String,
    pub role: Role,
    pub model: String,
    pub run_id: String,
    pub request: serde_json::Value,
    pub reply: Option<String>,
    #[serde(default)]
    pub prompt_tokens: u64,
    #[serde(default)]
    pub completion_tokens: u64,
    #[serde(default)]
    pub cost_usd: f64,
    #[serde(default)]
    pub latency_ms: u64,
    #[serde(default)]
    pub http_attempts: u32,
    pub outcome: CallOutcome,
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub created_at: Option<String>,
    /// Faults met by this exchange, by class (see [`crate::store::calls::CALL_FAULTS_MIGRATION`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub faults: BTreeMap<String, u32>,
}

/// Writes every record with a reply as one JSON line (the replay file format);
/// returns how many.
///
/// # Errors
/// Write errors.
pub fn export_jsonl(records: &[CallRecord], out: &mut dyn Write) -> Result<usize, LlmError> {
    let mut n = 0;
    for rec in records.iter().filter(|r| r.reply.is_some()) {
        let line = serde_json::to_string(rec).map_err(|e| LlmError::ReplayFile {
            path: "<export>".into(),
            line: n + 1,
            message: e.to_string(),
        })?;
        writeln!(out, "{line}").map_err(|e| LlmError::ReplayFile {
            path: "<export>".into(),
            line: n + 1,
            message: e.to_string(),
        })?;
        n += 1;
    }
    Ok(n)
}

/// Reads a replay JSONL file into key → latest record with a reply.
///
/// # Errors
/// [`LlmError::ReplayFile`] naming the path and line.
pub fn load_jsonl(path: &Path) -> Result<HashMap<String, CallRecord>, LlmError> {
    let err = |line: usize, message: String| LlmError::ReplayFile {
        path: path.display().to_string(),
        line,
        message,
    };
    let file = std::fs::File::open(path).map_err(|e| err(0, e.to_string()))?;
    let mut map = HashMap::new();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| err(i + 1, e.to_string()))?;
        if line.trim().is_empty() {
            continue;
        }
        let rec: CallRecord = serde_json::from_str(&line).map_err(|e| err(i + 1, e.to_string()))?;
        if rec.reply.is_some() {
            map.insert(rec.key_hash.clone(), rec);
        }
    }
    Ok(map)
}

/// Usage of one role and model, summed over recorded calls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct RoleUsage {
    pub role: String,
    pub model: String,
    /// Recorded exchanges (cache hits are not recorded again).
    pub calls: u64,
    pub http_attempts: u64,
    pub accepted: u64,
    pub invalid: u64,
    pub rejected: u64,
    pub errors: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cost_usd: f64,
    pub mean_latency_ms: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msgs(text: &str) -> Vec<ChatMessage> {
        vec![ChatMessage {
            role: Speaker::User,
            content: text.into(),
            image_sha256: None,
        }]
    }

    const P: SamplingParams = SamplingParams {
        temperature: 0.0,
        max_tokens: None,
        json_mode: true,
        sample: None,
    };

    #[test]
    fn key_depends_on_every_part() {
        let k = call_key(Role::Coder, "m", &msgs("a"), &P);
        assert_eq!(k.len(), 64);
        assert_eq!(k, call_key(Role::Coder, "m", &msgs("a"), &P));
        assert_ne!(k, call_key(Role::Actor, "m", &msgs("a"), &P));
        assert_ne!(k, call_key(Role::Coder, "n", &msgs("a"), &P));
        assert_ne!(k, call_key(Role::Coder, "m", &msgs("b"), &P));
        let p2 = SamplingParams {
            temperature: 0.5,
            ..P
        };
        assert_ne!(k, call_key(Role::Coder, "m", &msgs("a"), &p2));
        let again = SamplingParams {
            sample: Some(1),
            ..P
        };
        assert_ne!(k, call_key(Role::Coder, "m", &msgs("a"), &again));
    }

    #[test]
    fn a_first_ask_keeps_the_key_it_had_before_samples_were_counted() {
        let v = serde_json::to_value(P).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"temperature": 0.0, "max_tokens": null, "json_mode": true})
        );
    }

    #[test]
    fn bad_jsonl_line_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("calls.jsonl");
        std::fs::write(&path, "\n{oops\n").unwrap();
        let err = load_jsonl(&path).unwrap_err().to_string();
        assert!(err.contains("calls.jsonl:2"), "{err}");
    }
}
