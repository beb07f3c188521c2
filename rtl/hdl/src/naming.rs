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
    "always",
    "and",
    "assign",
    "automatic",
    "begin",
    "bit",
    "buf",
    "byte",
    "case",
    "casex",
    "casez",
    "cell",
    "cmos",
    "config",
    "const",
    "deassign",
    "default",
    "defparam",
    "design",
    "disable",
    "do",
    "edge",
    "else",
    "end",
    "endcase",
    "endconfig",
    "endfunction",
    "endgenerate",
    "endmodule",
    "endprimitive",
    "endspecify",
    "endtable",
    "endtask",
    "enum",
    "event",
    "for",
    "force",
    "forever",
    "fork",
    "function",
    "generate",
    "genvar",
    "highz0",
    "highz1",
    "if",
    "ifnone",
    "import",
    "initial",
    "inout",
    "input",
    "int",
    "integer",
    "interface",
    "join",
    "large",
    "liblist",
    "library",
    "localparam",
    "logic",
    "longint",
    "macromodule",
    "medium",
    "module",
    "nand",
    "negedge",
    "nmos",
    "nor",
    "not",
    "notif0",
    "notif1",
    "or",
    "output",
    "package",
    "parameter",
    "pmos",
    "posedge",
    "primitive",
    "pull0",
    "pull1",
    "pulldown",
    "pullup",
    "rcmos",
    "real",
    "realtime",
    "reg",
    "release",
    "repeat",
    "return",
    "rnmos",
    "rpmos",
    "rtran",
    "rtranif0",
    "rtranif1",
    "scalared",
    "shortint",
    "signed",
    "small",
    "specify",
    "specparam",
    "static",
    "string",
    "strong0",
    "strong1",
    "struct",
    "supply0",
    "supply1",
    "table",
    "task",
    "time",
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
    "unsigned",
    "use",
    "uwire",
    "vectored",
    "void",
    "wait",
    "wand",
    "weak0",
    "weak1",
    "while",
    "wire",
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
