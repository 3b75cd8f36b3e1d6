//! The model budget of one synth process: `--max-calls N` and `--max-cost USD`.
//!
//! Every stage builds its own client, but one command (`synth run`) runs many
//! stages: the budget is shared by all of them ([`crate::stage::LlmSetup`] holds
//! it, [`super::ClientOptions`] hands it to each client). A request is taken from
//! the budget before it is sent; once the budget is spent every further request
//! fails with [`LlmError::BudgetSpent`], which stages treat like any failed call
//! (the unit stays pending for the next run), and `synth run` stops after the
//! stage in which it ran out. Cost is known only after a reply, so the run can
//! overshoot `--max-cost` by the requests in flight.
//!
//! The budget also keeps what each role spent (requests, tokens, dollars) over
//! the whole command, for the stages' progress bars and `synth run`'s summary.

use std::sync::atomic::{AtomicU64, Ordering};

use super::{LlmError, Role};

/// Limits and what was spent against them (HTTP requests, retries included, and
/// dollars at the configured prices).
#[derive(Debug, Default)]
pub struct Budget {
    max_requests: Option<u64>,
    max_cost_usd: Option<f64>,
    /// Per role, indexed by [`Role::index`]; the totals are their sums.
    roles: [RoleCounters; Role::ALL.len()],
}

#[derive(Debug, Default)]
struct RoleCounters {
    requests: AtomicU64,
    prompt_tokens: AtomicU64,
    completion_tokens: AtomicU64,
    cost_nano_usd: AtomicU64,
}

/// What one role spent so far in this command.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct RoleSpend {
    pub role: Role,
    /// HTTP requests sent, retries included.
    pub requests: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cost_usd: f64,
}

impl std::fmt::Display for RoleSpend {
    /// `actor 120 req · 48.2k/3.1k tok · $0.0123`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} req · {}/{} tok · ${:.4}",
            self.role.as_str(),
            self.requests,
            thousands(self.prompt_tokens),
            thousands(self.completion_tokens),
            self.cost_usd
        )
    }
}

/// A token count in few characters: 950, 48.2k, 1.3M.
fn thousands(n: u64) -> String {
    match n {
        0..=999 => n.to_string(),
        1_000..=999_999 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

impl Budget {
    pub fn new(max_requests: Option<u64>, max_cost_usd: Option<f64>) -> Budget {
        Budget {
            max_requests,
            max_cost_usd,
            ..Budget::default()
        }
    }

    /// Takes one request from the budget.
    ///
    /// # Errors
    /// [`LlmError::BudgetSpent`] when the requests or the cost reached a limit.
    pub fn take(&self, role: Role) -> Result<(), LlmError> {
        if let Some(limit) = self.spent_limit() {
            return Err(LlmError::BudgetSpent { limit });
        }
        self.roles[role.index()]
            .requests
            .fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Adds the tokens and cost of a reply to `role`.
    pub fn spend(&self, role: Role, prompt_tokens: u64, completion_tokens: u64, cost_usd: f64) {
        let nano = (cost_usd * 1e9).round() as u64;
        let r = &self.roles[role.index()];
        r.prompt_tokens.fetch_add(prompt_tokens, Ordering::Relaxed);
        r.completion_tokens
            .fetch_add(completion_tokens, Ordering::Relaxed);
        r.cost_nano_usd.fetch_add(nano, Ordering::Relaxed);
    }

    /// What each role that sent a request spent, in [`Role::ALL`] order.
    pub fn by_role(&self) -> Vec<RoleSpend> {
        Role::ALL
            .iter()
            .map(|&role| {
                let r = &self.roles[role.index()];
                RoleSpend {
                    role,
                    requests: r.requests.load(Ordering::Relaxed),
                    prompt_tokens: r.prompt_tokens.load(Ordering::Relaxed),
                    completion_tokens: r.completion_tokens.load(Ordering::Relaxed),
                    cost_usd: r.cost_nano_usd.load(Ordering::Relaxed) as f64 / 1e9,
                }
            })
            .filter(|s| s.requests > 0)
            .collect()
    }

    /// One line for a progress bar, each role's spend joined by `; `, or `None`
    /// before the first request (an offline run shows nothing).
    pub fn line(&self) -> Option<String> {
        let roles = self.by_role();
        (!roles.is_empty()).then(|| {
            roles
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        })
    }

    /// HTTP requests sent and dollars spent so far.
    pub fn used(&self) -> (u64, f64) {
        let (mut requests, mut nano) = (0, 0);
        for r in &self.roles {
            requests += r.requests.load(Ordering::Relaxed);
            nano += r.cost_nano_usd.load(Ordering::Relaxed);
        }
        (requests, nano as f64 / 1e9)
    }

    /// The limit reached, in words (`--max-calls 100`), if one is.
    pub fn spent_limit(&self) -> Option<String> {
        let (requests, cost) = self.used();
        if let Some(max) = self.max_requests.filter(|m| requests >= *m) {
            return Some(format!("--max-calls {max}: {requests} requests sent"));
        }
        if let Some(max) = self.max_cost_usd.filter(|m| cost >= *m) {
            return Some(format!("--max-cost {max}: ${cost:.4} spent"));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_stop_at_the_call_limit() {
        let b = Budget::new(Some(2), None);
        assert!(b.take(Role::Actor).is_ok() && b.take(Role::Coder).is_ok());
        let err = b.take(Role::Actor).unwrap_err();
        assert!(err.to_string().contains("--max-calls 2"), "{err}");
        assert!(!err.is_transient());
    }

    #[test]
    fn requests_stop_once_the_cost_reaches_the_limit() {
        let b = Budget::new(None, Some(0.01));
        assert!(b.take(Role::Explorer).is_ok());
        b.spend(Role::Explorer, 100, 20, 0.004);
        assert!(b.take(Role::Explorer).is_ok());
        b.spend(Role::Explorer, 100, 20, 0.006);
        assert!(matches!(
            b.take(Role::Explorer),
            Err(LlmError::BudgetSpent { .. })
        ));
    }

    #[test]
    fn no_limit_never_stops() {
        let b = Budget::default();
        for _ in 0..1000 {
            b.take(Role::Planner).unwrap();
        }
        assert_eq!(b.spent_limit(), None);
    }

    #[test]
    fn each_role_keeps_its_own_spend() {
        let b = Budget::default();
        assert_eq!(b.line(), None, "nothing sent, nothing shown");
        for _ in 0..3 {
            b.take(Role::Actor).unwrap();
            b.spend(Role::Actor, 16_000, 1_200, 0.01);
        }
        b.take(Role::Coder).unwrap();
        b.spend(Role::Coder, 800, 90, 0.0005);
        let roles = b.by_role();
        assert_eq!(roles.len(), 2);
        assert_eq!((roles[0].role, roles[0].requests), (Role::Actor, 3));
        assert_eq!(roles[0].prompt_tokens, 48_000);
        assert_eq!(
            b.line().unwrap(),
            "actor 3 req · 48.0k/3.6k tok · $0.0300; coder 1 req · 800/90 tok · $0.0005"
        );
        assert_eq!(b.used().0, 4);
        assert!((b.used().1 - 0.0305).abs() < 1e-9);
    }
}
