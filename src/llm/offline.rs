//! The `offline` backend's seam: one optional rule-based implementation per role.
//!
//! The rule-based roles land with their stages (later issues); each plugs in by
//! setting its field of [`OfflineRoles`] without touching the HTTP code. A role with
//! no implementation answers [`LlmError::OfflineUnavailable`].

use super::roles::*;
use super::{Backend, LlmError, Role};
use crate::model::Check;

/// A deterministic, rule-based implementation of one role.
///
/// # Errors
/// An `Err` is a failure to answer at all; an answer the rules cannot make is
/// [`Outcome::Rejected`].
pub trait OfflineRole<R: RoleRequest>: Send + Sync {
    fn answer(&self, req: &R) -> Result<Outcome<R::Output>, LlmError>;
}

impl<R, F> OfflineRole<R> for F
where
    R: RoleRequest,
    F: Fn(&R) -> Result<Outcome<R::Output>, LlmError> + Send + Sync,
{
    fn answer(&self, req: &R) -> Result<Outcome<R::Output>, LlmError> {
        self(req)
    }
}

/// The offline backend: per-role implementations, each optional.
#[derive(Default)]
pub struct OfflineRoles {
    pub explorer: Option<Box<dyn OfflineRole<ExploreRequest>>>,
    pub actor: Option<Box<dyn OfflineRole<ActRequest>>>,
    pub coder: Option<Box<dyn OfflineRole<CodeRequest>>>,
    pub planner: Option<Box<dyn OfflineRole<PlanRequest>>>,
    pub summarizer: Option<Box<dyn OfflineRole<SummarizeRequest>>>,
    pub reconstructor: Option<Box<dyn OfflineRole<ReconstructRequest>>>,
}

impl std::fmt::Debug for OfflineRoles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let has = |b: bool| if b { "rule-based" } else { "not available" };
        f.debug_struct("OfflineRoles")
            .field("explorer", &has(self.explorer.is_some()))
            .field("actor", &has(self.actor.is_some()))
            .field("coder", &has(self.coder.is_some()))
            .field("planner", &has(self.planner.is_some()))
            .field("summarizer", &has(self.summarizer.is_some()))
            .field("reconstructor", &has(self.reconstructor.is_some()))
            .finish()
    }
}

fn answer<R: RoleRequest>(
    imp: Option<&dyn OfflineRole<R>>,
    req: &R,
) -> Result<Reply<R::Output>, LlmError> {
    let imp = imp.ok_or(LlmError::OfflineUnavailable { role: R::ROLE })?;
    Ok(Reply {
        outcome: imp.answer(req)?,
        info: CallInfo {
            backend: Backend::Offline,
            model: Some(format!("offline-{}", R::ROLE)),
            ..CallInfo::default()
        },
    })
}

impl OfflineRoles {
    /// Which roles have an implementation.
    pub fn available(&self) -> Vec<Role> {
        let mut out = Vec::new();
        for (role, has) in [
            (Role::Explorer, self.explorer.is_some()),
            (Role::Actor, self.actor.is_some()),
            (Role::Coder, self.coder.is_some()),
            (Role::Planner, self.planner.is_some()),
            (Role::Summarizer, self.summarizer.is_some()),
            (Role::Reconstructor, self.reconstructor.is_some()),
        ] {
            if has {
                out.push(role);
            }
        }
        out
    }
}

impl LanguageModel for OfflineRoles {
    fn backend(&self) -> Backend {
        Backend::Offline
    }
    fn explore<'a>(&'a self, req: &'a ExploreRequest) -> RoleFuture<'a, Vec<SubtaskProposal>> {
        let r = answer(self.explorer.as_deref(), req);
        Box::pin(async move { r })
    }
    fn act<'a>(&'a self, req: &'a ActRequest) -> RoleFuture<'a, ActorStep> {
        let r = answer(self.actor.as_deref(), req);
        Box::pin(async move { r })
    }
    fn code<'a>(&'a self, req: &'a CodeRequest) -> RoleFuture<'a, Vec<Check>> {
        let r = answer(self.coder.as_deref(), req);
        Box::pin(async move { r })
    }
    fn plan<'a>(&'a self, req: &'a PlanRequest) -> RoleFuture<'a, Vec<Intent>> {
        let r = answer(self.planner.as_deref(), req);
        Box::pin(async move { r })
    }
    fn summarize<'a>(&'a self, req: &'a SummarizeRequest) -> RoleFuture<'a, Summary> {
        let r = answer(self.summarizer.as_deref(), req);
        Box::pin(async move { r })
    }
    fn reconstruct<'a>(&'a self, req: &'a ReconstructRequest) -> RoleFuture<'a, Vec<Edge>> {
        let r = answer(self.reconstructor.as_deref(), req);
        Box::pin(async move { r })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req() -> ReconstructRequest {
        ReconstructRequest {
            instruction: "i".into(),
            subtasks: vec![],
        }
    }

    #[tokio::test]
    async fn missing_role_says_not_available_yet() {
        let roles = OfflineRoles::default();
        let err = roles.reconstruct(&req()).await.unwrap_err();
        assert_eq!(
            err.to_string(),
            "offline reconstructor is not available yet (use --llm openai or --llm replay)"
        );
    }

    #[tokio::test]
    async fn plugged_role_answers() {
        let roles = OfflineRoles {
            reconstructor: Some(Box::new(|_: &ReconstructRequest| {
                Ok(Outcome::Accepted(vec![Edge {
                    from: "a".into(),
                    to: "b".into(),
                }]))
            })),
            ..OfflineRoles::default()
        };
        assert_eq!(roles.available(), vec![Role::Reconstructor]);
        let reply = roles.reconstruct(&req()).await.unwrap();
        assert_eq!(reply.info.backend, Backend::Offline);
        assert_eq!(reply.outcome.accepted().unwrap().len(), 1);
    }
}
