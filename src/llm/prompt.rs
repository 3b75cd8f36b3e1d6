//! Prompt templates: `prompts/<role>.tera` (tera 1.x), embedded in the binary with
//! `include_str!` and overridable per file from a workspace `prompts/` directory.
//!
//! A template renders one text; a line `<<<system>>>` starts the system message and a
//! line `<<<user>>>` the user message. The context is the role's request struct
//! serialized (see [`super::RoleRequest`]), so a template can only show what the
//! request carries; the coder's list of check APIs is the caller's registry.

use std::path::Path;

use serde::Serialize;
use tera::{Context, Tera};

use super::{LlmError, Role, RoleRequest};

const EMBEDDED: [(Role, &str); 6] = [
    (Role::Explorer, include_str!("../../prompts/explorer.tera")),
    (Role::Actor, include_str!("../../prompts/actor.tera")),
    (Role::Coder, include_str!("../../prompts/coder.tera")),
    (Role::Planner, include_str!("../../prompts/planner.tera")),
    (
        Role::Summarizer,
        include_str!("../../prompts/summarizer.tera"),
    ),
    (
        Role::Reconstructor,
        include_str!("../../prompts/reconstructor.tera"),
    ),
];

const SYSTEM_MARK: &str = "<<<system>>>";
const USER_MARK: &str = "<<<user>>>";

/// A rendered prompt: the system and user texts of one role request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RenderedPrompt {
    pub system: String,
    pub user: String,
}

/// Where each role's template came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateSource {
    Embedded,
    File(std::path::PathBuf),
}

/// The six compiled templates.
#[derive(Debug, Clone)]
pub struct Prompts {
    tera: Tera,
    sources: Vec<(Role, TemplateSource)>,
}

fn template_name(role: Role) -> String {
    format!("{}.tera", role.as_str())
}

impl Prompts {
    /// The templates compiled into the binary.
    pub fn embedded() -> Prompts {
        // The embedded templates are tested by the snapshot tests; a failure here
        // would be a build defect, so fall back to an empty set rather than panic.
        Prompts::load(None).unwrap_or_else(|_| Prompts {
            tera: Tera::default(),
            sources: Vec::new(),
        })
    }

    /// The embedded templates, each replaced by `dir/<role>.tera` when that file
    /// exists.
    ///
    /// # Errors
    /// [`LlmError::Prompt`] naming the template that does not read or compile.
    pub fn load(dir: Option<&Path>) -> Result<Prompts, LlmError> {
        let mut tera = Tera::default();
        tera.autoescape_on(vec![]);
        let mut sources = Vec::new();
        for (role, text) in EMBEDDED {
            let name = template_name(role);
            let file = dir.map(|d| d.join(&name)).filter(|p| p.is_file());
            let (body, source) = match file {
                Some(path) => {
                    let body = std::fs::read_to_string(&path).map_err(|e| LlmError::Prompt {
                        role,
                        message: format!("cannot read {}: {e}", path.display()),
                    })?;
                    (body, TemplateSource::File(path))
                }
                None => (text.to_string(), TemplateSource::Embedded),
            };
            tera.add_raw_template(&name, &body)
                .map_err(|e| LlmError::Prompt {
                    role,
                    message: error_chain(&e),
                })?;
            sources.push((role, source));
        }
        Ok(Prompts { tera, sources })
    }

    pub fn source(&self, role: Role) -> Option<&TemplateSource> {
        self.sources
            .iter()
            .find(|(r, _)| *r == role)
            .map(|(_, s)| s)
    }

    /// Renders the template of `R::ROLE` with `req` as context.
    ///
    /// # Errors
    /// [`LlmError::Prompt`] when rendering fails or the markers are missing.
    pub fn render<R: RoleRequest>(&self, req: &R) -> Result<RenderedPrompt, LlmError> {
        let role = R::ROLE;
        let mut context = Context::from_serialize(req).map_err(|e| LlmError::Prompt {
            role,
            message: error_chain(&e),
        })?;
        for (name, text) in req.rendered_fields() {
            context.insert(name, &text);
        }
        let text = self
            .tera
            .render(&template_name(role), &context)
            .map_err(|e| LlmError::Prompt {
                role,
                message: error_chain(&e),
            })?;
        split(role, &text)
    }
}

fn split(role: Role, text: &str) -> Result<RenderedPrompt, LlmError> {
    let missing = |what: &str| LlmError::Prompt {
        role,
        message: format!("the template has no line {what}"),
    };
    let s = text.find(SYSTEM_MARK).ok_or_else(|| missing(SYSTEM_MARK))?;
    let u = text.find(USER_MARK).ok_or_else(|| missing(USER_MARK))?;
    if u < s {
        return Err(LlmError::Prompt {
            role,
            message: format!("{USER_MARK} comes before {SYSTEM_MARK}"),
        });
    }
    Ok(RenderedPrompt {
        system: text[s + SYSTEM_MARK.len()..u].trim().to_string(),
        user: text[u + USER_MARK.len()..].trim().to_string(),
    })
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::{NeutralSubtask, ReconstructRequest};

    #[test]
    fn override_dir_replaces_one_template() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("reconstructor.tera"),
            "<<<system>>>\nS\n<<<user>>>\n{{ instruction }}",
        )
        .unwrap();
        let prompts = Prompts::load(Some(dir.path())).unwrap();
        let req = ReconstructRequest {
            instruction: "do X".into(),
            subtasks: vec![NeutralSubtask {
                id: "A".into(),
                instruction: "x".into(),
            }],
        };
        let p = prompts.render(&req).unwrap();
        assert_eq!(p.system, "S");
        assert_eq!(p.user, "do X");
        assert!(matches!(
            prompts.source(Role::Reconstructor),
            Some(TemplateSource::File(_))
        ));
        assert_eq!(prompts.source(Role::Actor), Some(&TemplateSource::Embedded));
    }

    #[test]
    fn broken_override_names_the_role() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("planner.tera"), "{% for %}").unwrap();
        let err = Prompts::load(Some(dir.path())).unwrap_err();
        assert!(err.to_string().contains("planner.tera"), "{err}");
    }
}
