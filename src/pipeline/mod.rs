//! The pipeline stages.
