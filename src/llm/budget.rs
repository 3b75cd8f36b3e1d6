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

use std::sync::atomic::{AtomicU64, Ordering};

use super::LlmError;

/// Limits and what was spent against them (HTTP requests, retries included, and
/// dollars at the configured prices).
#[derive(Debug, Default)]
pub struct Budget {
    max_requests: Option<u64>,
    max_cost_usd: Option<f64>,
    requests: AtomicU64,
    cost_nano_usd: AtomicU64,
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
    pub fn take(&self) -> Result<(), LlmError> {
        if let Some(limit) = self.spent_limit() {
            return Err(LlmError::BudgetSpent { limit });
        }
        self.requests.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Adds the cost of a reply.
    pub fn spend(&self, cost_usd: f64) {
        self.cost_nano_usd
            .fetch_add((cost_usd * 1e9).round() as u64, Ordering::Relaxed);
    }

    /// HTTP requests sent and dollars spent so far.
    pub fn used(&self) -> (u64, f64) {
        (
            self.requests.load(Ordering::Relaxed),
            self.cost_nano_usd.load(Ordering::Relaxed) as f64 / 1e9,
        )
    }

    /// The limit reached, in words (`--max-calls 100`), if one is.
    pub fn spent_limit(&self) -> Option<String> {
        let requests = self.requests.load(Ordering::Relaxed);
        let cost = self.cost_nano_usd.load(Ordering::Relaxed) as f64 / 1e9;
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
        assert!(b.take().is_ok() && b.take().is_ok());
        let err = b.take().unwrap_err();
        assert!(err.to_string().contains("--max-calls 2"), "{err}");
        assert!(!err.is_transient());
    }

    #[test]
    fn requests_stop_once_the_cost_reaches_the_limit() {
        let b = Budget::new(None, Some(0.01));
        assert!(b.take().is_ok());
        b.spend(0.004);
        assert!(b.take().is_ok());
        b.spend(0.006);
        assert!(matches!(b.take(), Err(LlmError::BudgetSpent { .. })));
    }

    #[test]
    fn no_limit_never_stops() {
        let b = Budget::default();
        for _ in 0..1000 {
            b.take().unwrap();
        }
        assert_eq!(b.spent_limit(), None);
    }
}
