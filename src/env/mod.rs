//! The environment: the `Environment` trait, the simulated desktop, and the 11 check APIs.
