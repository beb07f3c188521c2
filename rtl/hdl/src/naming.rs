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
