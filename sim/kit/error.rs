//! The error of testbench checks: one message saying what went wrong, at which cycle or item,
//! with which values.

use std::fmt;

/// A failed testbench check (scoreboard, protocol checker, watchdog).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TbError {
    /// What went wrong, with indices and values.
    pub message: String,
}

impl TbError {
    /// An error with `message`.
    pub fn new(message: impl Into<String>) -> TbError {
        TbError {
            message: message.into(),
        }
    }
}

impl fmt::Display for TbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for TbError {}

impl From<crate::engine::SimError> for TbError {
    fn from(e: crate::engine::SimError) -> TbError {
        TbError::new(e.to_string())
    }
}
