//! Step 2 of the compiler (`pbru.md` §6.5, 1604): simplifications on the postfix tree.
//!
//! * constant folding (`5·12 → 60`, on float, color3 and vector2, `mix` and `clamp` too);
//! * identities: `x + 0`, `0 + x`, `x − 0`, `x·1`, `1·x`, `x/1` → `x`; `x·0`, `0·x`, `0/x` → 0;
//!   `x / c` → `x · (1/c)`; `mix` with a constant 0 or 1 → `bg` or `fg`;
//! * Oren-Nayar at roughness 0 → the constant 1/π (a [`LobeKind::Lambert`] lobe, no pipeline);
//! * zero-weight lobes dropped (weight or colour 0, `multiply` by 0, the unused side of a
//!   constant `mix`), and `add`/`mix` of nothing simplified away;
//! * unused nodes and inputs dropped: the simplified tree holds only what the root reaches.
//!
//! With simplification off, the same pass copies what the root reaches unchanged (the
//! "before" of the instruction counts in the tests).

use crate::document::Ty;
use crate::error::{CompileError, Result};
use crate::tree::{LobeKind, Op, Tree};

/// The value of node `i` if its whole subtree is constant (evaluated, not rewritten).
pub fn constant_value(t: &Tree, i: usize) -> Option<Vec<f64>> {
    let n = &t.nodes[i];
    if let Op::Const(v) = &n.op {
        return Some(v.clone());
    }
    if !is_arith(&n.op) {
        return None;
    }
    let args: Option<Vec<Vec<f64>>> = n.args.iter().map(|&a| constant_value(t, a)).collect();
    eval(&n.op, n.ty, &args?).ok()
}

fn is_arith(op: &Op) -> bool {
    matches!(
        op,
        Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Mix | Op::Clamp
    )
}

/// Evaluates an arithmetic op on constants (a 1-component argument is broadcast).
pub fn eval(op: &Op, ty: Ty, args: &[Vec<f64>]) -> std::result::Result<Vec<f64>, String> {
    let w = ty.words();
    let at = |k: usize, c: usize| {
        if args[k].len() == 1 {
            args[k][0]
        } else {
            args[k][c]
        }
    };
    (0..w)
        .map(|c| {
            Ok(match op {
                Op::Add => at(0, c) + at(1, c),
                Op::Sub => at(0, c) - at(1, c),
                Op::Mul => at(0, c) * at(1, c),
                Op::Div => {
                    if at(1, c) == 0.0 {
                        return Err("division by zero".to_string());
                    }
                    at(0, c) / at(1, c)
                }
                Op::Mix => at(1, c) + (at(0, c) - at(1, c)) * at(2, c),
                Op::Clamp => at(0, c).max(at(1, c)).min(at(2, c)),
                _ => unreachable!("not arithmetic"),
            })
        })
        .collect()
}

/// Rebuilds nodes of an old tree into a new one, simplifying when `enabled`.
pub struct Simplifier<'a> {
    old: &'a Tree,
    /// The tree being built.
    pub new: Tree,
    memo: Vec<Option<usize>>,
    enabled: bool,
}

impl<'a> Simplifier<'a> {
    /// A simplifier reading `old`.
    pub fn new(old: &'a Tree, enabled: bool) -> Simplifier<'a> {
        Simplifier {
            old,
            new: Tree {
                textures: old.textures.clone(),
                warnings: old.warnings.clone(),
                ..Tree::default()
            },
            memo: vec![None; old.nodes.len()],
            enabled,
        }
    }

    fn is(&self, i: usize, x: f64) -> bool {
        self.new
            .const_of(i)
            .is_some_and(|v| v.iter().all(|&c| c == x))
    }

    fn zero(&self, i: usize) -> bool {
        self.new.nodes[i].op == Op::Zero
    }

    /// The new index of old node `i`.
    pub fn node(&mut self, i: usize) -> Result<usize> {
        if let Some(r) = self.memo[i] {
            return Ok(r);
        }
        let n = &self.old.nodes[i];
        let args: Result<Vec<usize>> = n.args.iter().map(|&a| self.node(a)).collect();
        let args = args?;
        let r = if self.enabled {
            self.rewrite(&n.op, n.ty, args, n.line)?
        } else {
            self.new.push(n.op.clone(), n.ty, args, n.line)
        };
        self.memo[i] = Some(r);
        Ok(r)
    }

    fn rewrite(&mut self, op: &Op, ty: Ty, a: Vec<usize>, line: u32) -> Result<usize> {
        let same = |s: &Self, k: usize| s.new.nodes[a[k]].ty == ty;
        let zeros = |s: &mut Self| {
            s.new
                .push(Op::Const(vec![0.0; ty.words()]), ty, vec![], line)
        };
        if is_arith(op) {
            if let Some(vals) = a
                .iter()
                .map(|&x| self.new.const_of(x).map(<[f64]>::to_vec))
                .collect::<Option<Vec<_>>>()
            {
                let v = eval(op, ty, &vals).map_err(|e| CompileError::at(line, e))?;
                return Ok(self.new.push(Op::Const(v), ty, vec![], line));
            }
            match op {
                Op::Add if self.is(a[1], 0.0) && same(self, 0) => return Ok(a[0]),
                Op::Add if self.is(a[0], 0.0) && same(self, 1) => return Ok(a[1]),
                Op::Sub if self.is(a[1], 0.0) && same(self, 0) => return Ok(a[0]),
                Op::Mul | Op::Div if self.is(a[0], 0.0) => return Ok(zeros(self)),
                Op::Mul if self.is(a[1], 0.0) => return Ok(zeros(self)),
                Op::Mul | Op::Div if self.is(a[1], 1.0) && same(self, 0) => return Ok(a[0]),
                Op::Mul if self.is(a[0], 1.0) && same(self, 1) => return Ok(a[1]),
                Op::Div => {
                    if let Some(c) = self.new.const_of(a[1]).map(<[f64]>::to_vec) {
                        if c.contains(&0.0) {
                            return Err(CompileError::at(line, "division by zero"));
                        }
                        let r: Vec<f64> = c.iter().map(|x| 1.0 / x).collect();
                        let rty = self.new.nodes[a[1]].ty;
                        let r = self.new.push(Op::Const(r), rty, vec![], line);
                        return self.rewrite(&Op::Mul, ty, vec![a[0], r], line);
                    }
                }
                Op::Mix if self.is(a[2], 0.0) && same(self, 1) => return Ok(a[1]),
                Op::Mix if self.is(a[2], 1.0) && same(self, 0) => return Ok(a[0]),
                _ => {}
            }
            return Ok(self.new.push(op.clone(), ty, a, line));
        }
        let zero_bsdf = |s: &mut Self| s.new.push(Op::Zero, Ty::Bsdf, vec![], line);
        match op {
            Op::Lobe(_) if self.is(a[0], 0.0) || self.is(a[1], 0.0) => Ok(zero_bsdf(self)),
            Op::Lobe(LobeKind::OrenNayar) if self.is(a[2], 0.0) => {
                Ok(self
                    .new
                    .push(Op::Lobe(LobeKind::Lambert), ty, vec![a[0], a[1]], line))
            }
            Op::MixBsdf if self.is(a[2], 0.0) => Ok(a[1]),
            Op::MixBsdf if self.is(a[2], 1.0) => Ok(a[0]),
            Op::MixBsdf | Op::AddBsdf if self.zero(a[0]) && self.zero(a[1]) => Ok(zero_bsdf(self)),
            Op::AddBsdf if self.zero(a[0]) => Ok(a[1]),
            Op::AddBsdf if self.zero(a[1]) => Ok(a[0]),
            Op::ScaleBsdf if self.zero(a[0]) || self.is(a[1], 0.0) => Ok(zero_bsdf(self)),
            Op::ScaleBsdf if self.is(a[1], 1.0) => Ok(a[0]),
            _ => Ok(self.new.push(op.clone(), ty, a, line)),
        }
    }
}

/// Simplifies (or, with `enabled` false, copies) what `t`'s root reaches.
pub fn simplify(t: &Tree, enabled: bool) -> Result<Tree> {
    let mut s = Simplifier::new(t, enabled);
    let root = s.node(t.root)?;
    s.new.root = root;
    Ok(s.new)
}
