//! Memories, written the way Yosys infers block RAM: a `reg` array, one `always @(posedge)`
//! holding every write port in declaration order (so the later port wins, as in the IR),
//! synchronous reads registered in their own `always` (read-first: nonblocking writes land after
//! the read), combinational reads as `assign`. Initial contents are an `initial` block; a memory
//! without initial contents and without write ports is a ROM of zeros.

use super::body::print_body;
use super::expr::{range, Body, Exprs};
use super::plan::Plan;
use rendergen_hdl::ir::ModuleDef;
use rendergen_hdl::naming::CLOCK;
use rendergen_hdl::Bits;
use std::fmt::Write;

/// Prints every live memory of `def`.
pub(crate) fn memories(out: &mut String, def: &ModuleDef, plan: &Plan, ex: &Exprs) {
    for (m, mem) in def.mems.iter().enumerate() {
        if !plan.mem_live[m] {
            continue;
        }
        let name = &ex.names.mems[m];
        let (w, depth) = (mem.width, mem.depth);
        writeln!(
            out,
            "\n  // Memory `{}`: {depth} words of {w} bits.",
            mem.name
        )
        .unwrap();
        if mem.collisions_undefined {
            writeln!(
                out,
                "  // Cross-port collisions are undefined (Mem::collisions_undefined): block RAM."
            )
            .unwrap();
            writeln!(out, "  (* no_rw_check *)").unwrap();
        }
        writeln!(out, "  reg {}{name} [0:{}];", range(w), depth - 1).unwrap();
        let init = mem.init.as_deref().unwrap_or(&[]);
        if mem.init.is_some() || mem.writes.is_empty() {
            initial(out, name, &ex.names.mem_iters[m], (w, depth), init);
        }
        if !mem.writes.is_empty() {
            writeln!(out, "  always @(posedge {CLOCK}) begin").unwrap();
            for wp in &mem.writes {
                let (en, addr, data) = (ex.r(wp.enable), ex.r(wp.addr), ex.r(wp.data));
                writeln!(out, "    if ({en}) {name}[{addr}] <= {data};").unwrap();
            }
            writeln!(out, "  end").unwrap();
        }
        for rp in mem.reads.iter().filter(|r| plan.live[r.node as usize]) {
            let (rd, addr) = (ex.r(rp.node), ex.r(rp.addr));
            if rp.sync {
                let load = format!("{rd} <= {name}[{addr}];");
                match rp.enable {
                    Some(en) => writeln!(
                        out,
                        "  always @(posedge {CLOCK})\n    if ({}) {load}",
                        ex.r(en)
                    ),
                    None => writeln!(out, "  always @(posedge {CLOCK})\n    {load}"),
                }
                .unwrap();
            } else {
                print_body(out, &rd, Body::Assign(format!("{name}[{addr}]")));
            }
        }
    }
}

fn initial(out: &mut String, name: &str, i: &str, (w, depth): (u32, u32), init: &[Bits]) {
    let fill = init.len() < depth as usize;
    if fill {
        writeln!(out, "  integer {i};").unwrap();
    }
    writeln!(out, "  initial begin").unwrap();
    if fill {
        writeln!(out, "    for ({i} = 0; {i} < {depth}; {i} = {i} + 1)").unwrap();
        writeln!(out, "      {name}[{i}] = {};", Bits::zero(w).to_verilog()).unwrap();
    }
    for (i, v) in init.iter().enumerate() {
        if !(fill && v.hex() == "0") {
            writeln!(out, "    {name}[{i}] = {};", v.to_verilog()).unwrap();
        }
    }
    writeln!(out, "  end").unwrap();
}
