//! Elaboration errors. Every error names the signals involved and points at the line of the user's
//! generator code that caused it (captured with `#[track_caller]`). Elaboration collects all errors
//! and returns them together instead of panicking.

use crate::ir::Loc;
use std::fmt;

/// The kind of an elaboration error (useful for tests and tools that react to one kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Operand widths do not agree, or a value does not fit.
    WidthMismatch,
    /// A wire, output, register or instance input was never driven.
    Undriven,
    /// Something was driven twice.
    MultipleDrivers,
    /// A combinational cycle.
    CombLoop,
    /// A port name that the module does not have.
    UnknownPort,
    /// Two bundles or streams of different shapes were connected.
    BundleMismatch,
    /// Two things in one scope have the same name.
    DuplicateName,
    /// A signal of one module used inside another.
    ForeignSignal,
    /// A generator parameter outside its legal range or set of values
    /// ([`crate::Module::check_param`]): the user's configuration, not the generator, is wrong.
    Param,
    /// Anything else the builder rejects (zero width, out-of-range slice, empty concatenation).
    Invalid,
}

/// One elaboration error.
#[derive(Clone, Debug)]
pub struct ElabError {
    /// What went wrong, by category.
    pub kind: ErrorKind,
    /// The message, naming the signals.
    pub message: String,
    /// Module being elaborated.
    pub module: String,
    /// The user's source line.
    pub loc: Loc,
}

impl fmt::Display for ElabError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "error: {}\n  --> {}:{}:{} (in module `{}`)",
            self.message,
            self.loc.file(),
            self.loc.line(),
            self.loc.column(),
            self.module
        )
    }
}

/// All errors of one elaboration.
#[derive(Clone, Debug)]
pub struct ElabErrors(pub Vec<ElabError>);

impl ElabErrors {
    /// True if some error is of `kind`.
    pub fn has(&self, kind: ErrorKind) -> bool {
        self.0.iter().any(|e| e.kind == kind)
    }

    /// True if every error is a rejected parameter ([`ErrorKind::Param`]): bad user input
    /// rather than a broken generator.
    pub fn only_params(&self) -> bool {
        !self.0.is_empty() && self.0.iter().all(|e| e.kind == ErrorKind::Param)
    }
}

impl fmt::Display for ElabErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "elaboration failed with {} error(s):", self.0.len())?;
        for e in &self.0 {
            writeln!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ElabErrors {}
