//! Names shared by the Verilog emitter, the VCD writer and the co-simulation harnesses, so a
//! signal has one name at every level (lowRISC suffixes are added here, once).
//!
//! * clock and reset: `clk_i`, `rst_i` (one clock, synchronous active-high reset; D2);
//! * input port `x`: `x_i`; output port `x`: `x_o`;
//! * register `x`: `x_q`;
//! * wires, memories and named signals keep their Rust name.

/// Verilog name of the clock input.
pub const CLOCK: &str = "clk_i";
/// Verilog name of the synchronous active-high reset input.
pub const RESET: &str = "rst_i";

/// Verilog name of input port `name`.
pub fn input_port(name: &str) -> String {
    format!("{name}_i")
}

/// Verilog name of output port `name`.
pub fn output_port(name: &str) -> String {
    format!("{name}_o")
}

/// Verilog name of the register `name`.
pub fn register(name: &str) -> String {
    format!("{name}_q")
}

/// True if `name` is a legal plain Verilog identifier (no `$`, no escapes, not a keyword).
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !KEYWORDS.contains(&name)
}

/// Turns any string into a legal identifier (invalid characters become `_`; keywords and
/// leading digits get a prefix).
pub fn sanitize(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) || KEYWORDS.contains(&s.as_str())
    {
        s.insert_str(0, "s_");
    }
    s
}

/// Verilog-2005 and SystemVerilog keywords that Verilator also reserves.
pub const KEYWORDS: &[&str] = &[
    "accept_on",
    "alias",
    "always",
    "always_comb",
    "always_ff",
    "always_latch",
    "and",
    "assert",
    "assign",
    "assume",
    "automatic",
    "before",
    "begin",
    "bind",
    "bins",
    "binsof",
    "bit",
    "break",
    "buf",
    "byte",
    "case",
    "casex",
    "casez",
    "cell",
    "chandle",
    "checker",
    "class",
    "clocking",
    "cmos",
    "config",
    "const",
    "constraint",
    "context",
    "continue",
    "cover",
    "covergroup",
    "coverpoint",
    "cross",
    "deassign",
    "default",
    "defparam",
    "design",
    "disable",
    "dist",
    "do",
    "edge",
    "else",
    "end",
    "endcase",
    "endchecker",
    "endclass",
    "endclocking",
    "endconfig",
    "endfunction",
    "endgenerate",
    "endgroup",
    "endinterface",
    "endmodule",
    "endpackage",
    "endprimitive",
    "endprogram",
    "endproperty",
    "endsequence",
    "endspecify",
    "endtable",
    "endtask",
    "enum",
    "event",
    "eventually",
    "expect",
    "export",
    "extends",
    "extern",
    "final",
    "first_match",
    "for",
    "force",
    "foreach",
    "forever",
    "fork",
    "forkjoin",
    "function",
    "generate",
    "genvar",
    "global",
    "highz0",
    "highz1",
    "if",
    "iff",
    "ifnone",
    "ignore_bins",
    "illegal_bins",
    "implements",
    "implies",
    "import",
    "initial",
    "inout",
    "input",
    "inside",
    "int",
    "integer",
    "interconnect",
    "interface",
    "intersect",
    "join",
    "join_any",
    "join_none",
    "large",
    "let",
    "liblist",
    "library",
    "local",
    "localparam",
    "logic",
    "longint",
    "macromodule",
    "matches",
    "medium",
    "modport",
    "module",
    "nand",
    "negedge",
    "nettype",
    "new",
    "nexttime",
    "nmos",
    "nor",
    "not",
    "notif0",
    "notif1",
    "null",
    "or",
    "output",
    "package",
    "packed",
    "parameter",
    "pmos",
    "posedge",
    "primitive",
    "priority",
    "program",
    "property",
    "protected",
    "pull0",
    "pull1",
    "pulldown",
    "pullup",
    "pure",
    "rand",
    "randc",
    "randcase",
    "randsequence",
    "rcmos",
    "real",
    "realtime",
    "ref",
    "reg",
    "reject_on",
    "release",
    "repeat",
    "restrict",
    "return",
    "rnmos",
    "rpmos",
    "rtran",
    "rtranif0",
    "rtranif1",
    "s_always",
    "s_eventually",
    "s_nexttime",
    "s_until",
    "s_until_with",
    "scalared",
    "sequence",
    "shortint",
    "shortreal",
    "signed",
    "small",
    "soft",
    "solve",
    "specify",
    "specparam",
    "static",
    "string",
    "strong",
    "strong0",
    "strong1",
    "struct",
    "super",
    "supply0",
    "supply1",
    "sync_accept_on",
    "sync_reject_on",
    "table",
    "tagged",
    "task",
    "this",
    "throughout",
    "time",
    "timeprecision",
    "timeunit",
    "tran",
    "tranif0",
    "tranif1",
    "tri",
    "tri0",
    "tri1",
    "triand",
    "trior",
    "trireg",
    "type",
    "typedef",
    "union",
    "unique",
    "unique0",
    "unsigned",
    "until",
    "until_with",
    "untyped",
    "use",
    "uwire",
    "var",
    "vectored",
    "virtual",
    "void",
    "wait",
    "wait_order",
    "wand",
    "weak",
    "weak0",
    "weak1",
    "while",
    "wildcard",
    "wire",
    "with",
    "within",
    "wor",
    "xnor",
    "xor",
];

/// Support for [`macro@crate::name_lets`]: after `let x = value;` the attribute inserts
/// `(&x).__rendergen_soft_name("x")`. Method resolution picks [`soft::Named`] when the value
/// is a signal, a record, or a `Vec`/array/`Option` of them (each leaf named `x_field`,
/// `x_0`, ...), and the do-nothing [`soft::Unnamed`] for every other type.
#[doc(hidden)]
pub mod soft {
    use crate::record::PortPath;
    use crate::Bundle;

    /// Values whose signals take the variable's name.
    pub trait Named {
        /// Soft-names every signal of the value after `name`.
        fn __rendergen_soft_name(&self, name: &str);
    }

    /// Every other value: nothing to name.
    pub trait Unnamed {
        /// Does nothing.
        fn __rendergen_soft_name(&self, _name: &str) {}
    }

    impl<T: ?Sized> Unnamed for &T {}

    fn name_bundle<T: Bundle>(value: &T, name: &str) {
        value.visit(&mut PortPath::new(name), &mut |path, sig| {
            crate::ctx::with(|c| c.soft_name(sig, path.as_str()))
        });
    }

    impl<T: Bundle> Named for T {
        fn __rendergen_soft_name(&self, name: &str) {
            name_bundle(self, name);
        }
    }

    impl<T: Bundle> Named for Vec<T> {
        fn __rendergen_soft_name(&self, name: &str) {
            for (i, v) in self.iter().enumerate() {
                name_bundle(v, &format!("{name}_{i}"));
            }
        }
    }

    impl<T: Bundle, const N: usize> Named for [T; N] {
        fn __rendergen_soft_name(&self, name: &str) {
            for (i, v) in self.iter().enumerate() {
                name_bundle(v, &format!("{name}_{i}"));
            }
        }
    }

    impl<T: Bundle> Named for Option<T> {
        fn __rendergen_soft_name(&self, name: &str) {
            if let Some(v) = self {
                name_bundle(v, name);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn systemverilog_keywords_are_not_identifiers() {
        // Verilator parses Verilog-2005 files as SystemVerilog: a variable called `new` or
        // `logic` must not reach the Verilog as is.
        for k in ["new", "logic", "int", "final", "do", "wire", "module"] {
            assert!(!is_identifier(k), "{k}");
            assert_ne!(sanitize(k), k);
            assert!(is_identifier(&sanitize(k)), "{k}");
        }
        assert!(is_identifier("carry"));
    }
}
