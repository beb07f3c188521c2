//! Text form of the IR (for `--ir` dumps, tests and reading pass output).

use super::{Op, Program, Stmt, Ty, Value};
use std::fmt::Write;

fn list(vs: &[Value]) -> String {
    vs.iter()
        .map(|v| format!("%{}", v.0))
        .collect::<Vec<_>>()
        .join(", ")
}

fn constant(word: u32, ty: Ty) -> String {
    match ty {
        Ty::F32 => format!("{:?}", f32::from_bits(word)),
        Ty::I32 => format!("{}", word as i32),
        Ty::U32 | Ty::Bool => format!("{word}"),
    }
}

/// The program as text, one statement per line, blocks indented.
pub fn print(p: &Program) -> String {
    let mut out = String::new();
    block(p, &p.body, 0, &mut out);
    out
}

fn block(p: &Program, b: &[Stmt], depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    for s in b {
        match s {
            Stmt::Def { dst, op } => {
                let rhs = match op {
                    Op::Const(w) => format!("const {}", constant(*w, p.ty(*dst))),
                    Op::Input(r) => format!("input r{r}"),
                    Op::Uniform(i) => format!("uniform {i}"),
                    Op::Copy(v) => format!("copy %{}", v.0),
                    Op::Load(a, i) => format!("load %{} + {i}", a.0),
                    Op::Alu(o, a) => format!("{} {}", o.mnemonic(), list(a)),
                };
                let _ = writeln!(out, "{pad}%{}: {:?} = {rhs}", dst.0, p.ty(*dst));
            }
            Stmt::Tex {
                dst,
                sampler,
                coord,
            } => {
                let _ = writeln!(out, "{pad}{} = tex {sampler}, {}", list(dst), list(coord));
            }
            Stmt::Spec { dst, func, a, b } => {
                let _ = writeln!(out, "{pad}%{} = spec 0x{func:x}, %{}, %{}", dst.0, a.0, b.0);
            }
            Stmt::Store { addr, imm, value } => {
                let _ = writeln!(out, "{pad}store %{} + {imm}, %{}", addr.0, value.0);
            }
            Stmt::Export { loc, values } => {
                let _ = writeln!(out, "{pad}export {loc}, {}", list(values));
            }
            Stmt::If {
                cond,
                then,
                els,
                phis,
            } => {
                let _ = writeln!(out, "{pad}if %{} {{", cond.0);
                block(p, then, depth + 1, out);
                let _ = writeln!(out, "{pad}}} else {{");
                block(p, els, depth + 1, out);
                let _ = writeln!(out, "{pad}}}");
                for ph in phis {
                    let _ = writeln!(
                        out,
                        "{pad}%{} = phi %{}, %{}",
                        ph.dst.0, ph.then.0, ph.els.0
                    );
                }
            }
            Stmt::Loop {
                params,
                init,
                body,
                next,
                results,
            } => {
                let _ = writeln!(out, "{pad}loop ({}) = ({}) {{", list(params), list(init));
                block(p, body, depth + 1, out);
                let _ = writeln!(out, "{pad}}} next ({}) -> ({})", list(next), list(results));
            }
            Stmt::Break { cond, args } => {
                let _ = writeln!(out, "{pad}break %{} ({})", cond.0, list(args));
            }
            Stmt::Continue { cond, args } => {
                let _ = writeln!(out, "{pad}continue %{} ({})", cond.0, list(args));
            }
        }
    }
}
