//! The one retry policy of the layer.
//!
//! async-openai retries 429, 5xx and connection errors on its own; the client
//! installs a plain transport (`Client::with_http_service`) so that this policy is
//! the only one: up to `max_retries` retries after the first attempt on transient
//! errors ([`super::LlmError::is_transient`]), waiting `base * 2^n` capped at `max`,
//! with full jitter in `[d/2, d]`, or the server's `Retry-After` (capped at `max`)
//! when it sent one.

use std::time::Duration;

use rand::Rng;

/// The longest `Retry-After` honoured; longer requests are cut to this.
pub const RETRY_AFTER_CEILING: Duration = Duration::from_secs(300);

/// Exponential backoff with jitter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    pub max_retries: u32,
    pub base: Duration,
    pub max: Duration,
}

impl RetryPolicy {
    pub fn from_config(cfg: &super::LlmConfig) -> RetryPolicy {
        RetryPolicy {
            max_retries: cfg.max_retries,
            base: Duration::from_millis(cfg.backoff_base_ms),
            max: Duration::from_millis(cfg.backoff_max_ms.max(cfg.backoff_base_ms)),
        }
    }

    /// The wait before retry number `retry` (0 for the first retry).
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(after) = retry_after {
            return after.min(RETRY_AFTER_CEILING);
        }
        let exp = self
            .base
            .saturating_mul(2u32.saturating_pow(retry.min(20)))
            .min(self.max);
        let nanos = exp.as_nanos().min(u64::MAX as u128) as u64;
        if nanos < 2 {
            return exp;
        }
        Duration::from_nanos(rand::rng().random_range(nanos / 2..=nanos))
    }
}

/// Parses a `Retry-After` header value: delta seconds (possibly fractional).
/// HTTP-date values are not honoured (the backoff applies instead).
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    let secs: f64 = value.trim().parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(3600.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_grow_within_jitter_and_cap() {
        let p = RetryPolicy {
            max_retries: 5,
            base: Duration::from_millis(100),
            max: Duration::from_millis(350),
        };
        for _ in 0..50 {
            let d0 = p.delay(0, None);
            assert!(d0 >= Duration::from_millis(50) && d0 <= Duration::from_millis(100));
            let d1 = p.delay(1, None);
            assert!(d1 >= Duration::from_millis(100) && d1 <= Duration::from_millis(200));
            let d5 = p.delay(5, None);
            assert!(d5 <= Duration::from_millis(350));
        }
        assert_eq!(
            p.delay(0, Some(Duration::from_millis(300))),
            Duration::from_millis(300)
        );
        assert_eq!(
            p.delay(0, Some(Duration::from_secs(6000))),
            RETRY_AFTER_CEILING
        );
    }

    #[test]
    fn retry_after_seconds() {
        assert_eq!(parse_retry_after("2"), Some(Duration::from_secs(2)));
        assert_eq!(parse_retry_after("0.25"), Some(Duration::from_millis(250)));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
    }
}
