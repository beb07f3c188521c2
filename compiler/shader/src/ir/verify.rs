//! The IR's invariants, checked after the front end and after every pass in tests.

use super::{defs, uses, Program, Stmt, Value};
use std::collections::HashSet;

/// Checks: every value is defined once and before each use on every path (uses see only
/// definitions of enclosing blocks and earlier statements); `Break`/`Continue` sit inside a
/// loop and carry one value per result/param; phis and loop lists have matching lengths.
pub fn verify(p: &Program) -> Result<(), String> {
    let mut defined = HashSet::new();
    let mut scope: Vec<Value> = Vec::new();
    block(p, &p.body, &mut scope, &mut defined, &mut Vec::new())
}

fn block(
    p: &Program,
    b: &[Stmt],
    scope: &mut Vec<Value>,
    defined: &mut HashSet<Value>,
    loops: &mut Vec<(usize, usize)>,
) -> Result<(), String> {
    let mark = scope.len();
    for s in b {
        let check = |v: &Value, scope: &[Value]| -> Result<(), String> {
            if (v.0 as usize) >= p.types.len() || !scope.contains(v) {
                return Err(format!("%{} used where it is not defined", v.0));
            }
            Ok(())
        };
        let visible: Vec<Value> = scope.clone();
        match s {
            Stmt::If {
                cond,
                then,
                els,
                phis,
            } => {
                check(cond, &visible)?;
                let mut t = scope.clone();
                block(p, then, &mut t, defined, loops)?;
                for ph in phis {
                    check(&ph.then, &t)?;
                }
                let mut e = scope.clone();
                block(p, els, &mut e, defined, loops)?;
                for ph in phis {
                    check(&ph.els, &e)?;
                }
            }
            Stmt::Loop {
                params,
                init,
                body,
                next,
                results,
            } => {
                for v in init {
                    check(v, &visible)?;
                }
                if init.len() != params.len() || next.len() != params.len() {
                    return Err("loop params, init and next differ in length".into());
                }
                let mut inner = scope.clone();
                inner.extend(params);
                for v in params {
                    if !defined.insert(*v) {
                        return Err(format!("%{} defined twice", v.0));
                    }
                }
                loops.push((params.len(), results.len()));
                block(p, body, &mut inner, defined, loops)?;
                loops.pop();
                for v in next {
                    check(v, &inner)?;
                }
                for v in results {
                    if !defined.insert(*v) {
                        return Err(format!("%{} defined twice", v.0));
                    }
                }
                scope.extend(results);
                continue;
            }
            Stmt::Break { args, .. } | Stmt::Continue { args, .. } => {
                let Some(&(np, nr)) = loops.last() else {
                    return Err("break or continue outside a loop".into());
                };
                let want = if matches!(s, Stmt::Break { .. }) {
                    nr
                } else {
                    np
                };
                if args.len() != want {
                    return Err(format!(
                        "break/continue carries {} values, the loop {want}",
                        args.len()
                    ));
                }
                for v in uses(s) {
                    check(&v, &visible)?;
                }
            }
            _ => {
                for v in uses(s) {
                    check(&v, &visible)?;
                }
            }
        }
        for v in defs(s) {
            if !defined.insert(v) {
                return Err(format!("%{} defined twice", v.0));
            }
            scope.push(v);
        }
    }
    let _ = mark;
    Ok(())
}
