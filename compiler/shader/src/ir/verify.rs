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

#[cfg(test)]
mod tests {
    use super::verify;
    use crate::ir::{Op, Phi, Program, Stmt, Ty, Value};

    fn prog(body: Vec<Stmt>, n: usize) -> Program {
        Program {
            body,
            types: vec![Ty::F32; n],
        }
    }

    fn c(v: u32) -> Stmt {
        Stmt::Def {
            dst: Value(v),
            op: Op::Const(0),
        }
    }

    #[test]
    fn accepts_well_formed_and_rejects_each_violation() {
        let ok = prog(
            vec![
                c(0),
                Stmt::If {
                    cond: Value(0),
                    then: vec![c(1)],
                    els: vec![],
                    phis: vec![Phi {
                        dst: Value(2),
                        then: Value(1),
                        els: Value(0),
                    }],
                },
                Stmt::Loop {
                    params: vec![Value(3)],
                    init: vec![Value(2)],
                    body: vec![Stmt::Break {
                        cond: Value(3),
                        args: vec![Value(3)],
                    }],
                    next: vec![Value(3)],
                    results: vec![Value(4)],
                },
                Stmt::Export {
                    loc: 0,
                    values: vec![Value(4)],
                },
            ],
            5,
        );
        assert_eq!(verify(&ok), Ok(()));
        // Use before definition.
        let e = verify(&prog(
            vec![
                Stmt::Export {
                    loc: 0,
                    values: vec![Value(0)],
                },
                c(0),
            ],
            1,
        ))
        .unwrap_err();
        assert!(e.contains("%0 used"), "{e}");
        // Defined twice.
        assert!(verify(&prog(vec![c(0), c(0)], 1))
            .unwrap_err()
            .contains("twice"));
        // A then-branch value used after the if without a phi.
        let e = verify(&prog(
            vec![
                c(0),
                Stmt::If {
                    cond: Value(0),
                    then: vec![c(1)],
                    els: vec![],
                    phis: vec![],
                },
                Stmt::Export {
                    loc: 0,
                    values: vec![Value(1)],
                },
            ],
            2,
        ))
        .unwrap_err();
        assert!(e.contains("%1 used"), "{e}");
        // Break outside a loop; wrong number of values.
        assert!(verify(&prog(
            vec![
                c(0),
                Stmt::Break {
                    cond: Value(0),
                    args: vec![]
                }
            ],
            1
        ))
        .unwrap_err()
        .contains("outside a loop"));
        let bad = prog(
            vec![
                c(0),
                Stmt::Loop {
                    params: vec![],
                    init: vec![],
                    body: vec![Stmt::Break {
                        cond: Value(0),
                        args: vec![Value(0)],
                    }],
                    next: vec![],
                    results: vec![],
                },
            ],
            1,
        );
        assert!(verify(&bad).unwrap_err().contains("carries 1"));
    }
}
