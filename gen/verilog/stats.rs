//! Readability figures of emitted Verilog: modules, the largest file, how many declared nets
//! and registers carry a generated `<operation><number>` name (`add17`), and how many lint
//! waivers and `unused` sinks the files hold. `rendergen verilog TOP --stats` prints them.

use super::names::OP_PREFIXES;
use super::VerilogFile;
use std::fmt;

/// Figures of one emitted design.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmitStats {
    /// Number of files (one module each).
    pub modules: usize,
    /// The longest file and its line count.
    pub largest: (String, usize),
    /// Lines in all files.
    pub lines: usize,
    /// Declared `wire`s and `reg`s (ports, memories and `localparam`s not counted).
    pub nets: usize,
    /// Of those, names of the form `<operation><number>` (as `add17`, `mux2795_1`).
    pub generated: usize,
    /// `verilator lint_off` comments.
    pub lint_waivers: usize,
    /// Modules with an `unused` sink of unread bits.
    pub unused_sinks: usize,
}

impl EmitStats {
    /// Generated names as a share of declared nets (0 when there are none).
    pub fn generated_share(&self) -> f64 {
        if self.nets == 0 {
            0.0
        } else {
            self.generated as f64 / self.nets as f64
        }
    }
}

impl fmt::Display for EmitStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "modules {}, lines {}, largest {} ({} lines), nets {}, generated names {} ({:.1} %), \
             lint waivers {}, unused sinks {}",
            self.modules,
            self.lines,
            self.largest.0,
            self.largest.1,
            self.nets,
            self.generated,
            100.0 * self.generated_share(),
            self.lint_waivers,
            self.unused_sinks
        )
    }
}

/// True for a generated name: an operation prefix, digits, and optionally `_` and digits.
pub fn is_generated_name(name: &str) -> bool {
    let base = match name.rsplit_once('_') {
        Some((b, n)) if !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) => b,
        _ => name,
    };
    let digits = base.trim_start_matches(|c: char| c.is_ascii_lowercase());
    let prefix = &base[..base.len() - digits.len()];
    !digits.is_empty()
        && digits.bytes().all(|c| c.is_ascii_digit())
        && OP_PREFIXES.contains(&prefix)
}

/// The declared name on a `wire`/`reg` declaration line, if it is one.
fn declared(line: &str) -> Option<&str> {
    let rest = line
        .trim_start()
        .strip_prefix("wire ")
        .or_else(|| line.trim_start().strip_prefix("reg "))?;
    let decl = rest.split(';').next()?.trim();
    let decl = decl.rsplit(']').next()?.trim();
    (!decl.is_empty() && !decl.contains(' ')).then_some(decl)
}

/// Figures of `files`.
pub fn stats(files: &[VerilogFile]) -> EmitStats {
    let mut s = EmitStats {
        modules: files.len(),
        largest: (String::new(), 0),
        lines: 0,
        nets: 0,
        generated: 0,
        lint_waivers: 0,
        unused_sinks: 0,
    };
    for file in files {
        let lines = file.text.lines().count();
        s.lines += lines;
        if lines > s.largest.1 {
            s.largest = (file.name.clone(), lines);
        }
        let mut sink = false;
        for line in file.text.lines() {
            if line.contains("verilator lint_off") {
                s.lint_waivers += 1;
            }
            if let Some(name) = declared(line) {
                s.nets += 1;
                s.generated += usize::from(is_generated_name(name));
                sink |= name.contains("unused");
            }
        }
        s.unused_sinks += usize::from(sink);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_names_are_recognised() {
        for g in ["add17", "mux2795", "and85_1", "not12", "sel4"] {
            assert!(is_generated_name(g), "{g}");
        }
        for n in [
            "carry",
            "add",
            "stage_add3",
            "t4",
            "c10",
            "slot0_state_d",
            "addr_1",
            "sum_2",
        ] {
            assert!(!is_generated_name(n), "{n}");
        }
        assert_eq!(
            declared("  wire [7:0] add6;  // bits [1] are not read"),
            Some("add6")
        );
        assert_eq!(declared("  reg  state_q;"), Some("state_q"));
        assert_eq!(declared("  assign x = y;"), None);
    }
}
