//! Errors of the simulator's set-up and look-up calls (never of the per-cycle path).

use std::fmt;

/// What went wrong building a simulator or resolving a name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    /// No top-level port of that name (in the direction asked for).
    UnknownPort {
        /// The name asked for.
        name: String,
        /// The ports of that direction.
        valid: Vec<String>,
    },
    /// No named signal at that hierarchical path.
    UnknownSignal {
        /// The path asked for.
        path: String,
        /// Signals in the nearest existing scope (or the scopes, if none matched).
        valid: Vec<String>,
    },
    /// A value does not fit a port.
    Width {
        /// Port name.
        name: String,
        /// Port width.
        width: u32,
        /// Width of the value given.
        value_width: u32,
    },
    /// The flattened design has a combinational loop (only possible for hand-made netlists;
    /// `Design::build` rejects loops).
    CombLoop {
        /// Hierarchical names of the nodes of one loop.
        signals: Vec<String>,
    },
    /// Compiled code handed to `Simulator::with_compiled` was generated from another design,
    /// other parameters or another evaluation mode (or before the generators changed).
    StaleCompiled {
        /// The design's top.
        top: String,
    },
}

fn list(f: &mut fmt::Formatter<'_>, valid: &[String]) -> fmt::Result {
    if valid.is_empty() {
        return write!(f, " (there are none)");
    }
    const MAX: usize = 40;
    write!(
        f,
        "; valid choices: {}",
        valid[..valid.len().min(MAX)].join(", ")
    )?;
    if valid.len() > MAX {
        write!(f, ", ... ({} more)", valid.len() - MAX)?;
    }
    Ok(())
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::UnknownPort { name, valid } => {
                write!(f, "unknown port `{name}`")?;
                list(f, valid)
            }
            SimError::UnknownSignal { path, valid } => {
                write!(f, "unknown signal `{path}`")?;
                list(f, valid)
            }
            SimError::Width {
                name,
                width,
                value_width,
            } => write!(
                f,
                "value of {value_width} bits does not fit port `{name}` ({width} bits)"
            ),
            SimError::CombLoop { signals } => {
                write!(f, "combinational loop through: {}", signals.join(" -> "))
            }
            SimError::StaleCompiled { top } => write!(
                f,
                "the compiled code does not match design `{top}` (other parameters, another \
                 evaluation mode, or generated before the generators changed): rebuild the \
                 crate that compiles it, or simulate with the interpreter"
            ),
        }
    }
}

impl std::error::Error for SimError {}
