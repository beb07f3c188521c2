//! Compile errors: every one names the line of the document it comes from.

use std::fmt;

/// One error of a compilation, with the 1-based line (0 when it concerns no line, e.g. an
/// unreadable file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    /// 1-based line in the document (0: not tied to a line).
    pub line: u32,
    /// What is wrong.
    pub message: String,
}

impl CompileError {
    /// An error at `line`.
    pub fn at(line: u32, message: impl Into<String>) -> CompileError {
        CompileError {
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for CompileError {}

/// Shorthand for results of the compiler.
pub type Result<T> = std::result::Result<T, CompileError>;
