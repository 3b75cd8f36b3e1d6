//! The language-model layer: role trait, backends, prompts, call record, retries.
