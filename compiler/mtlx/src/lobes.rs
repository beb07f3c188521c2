//! The BSDF of the tree as a sum of lobes (`pbru.md` §6.5, 1606: "list the leaf nodes"):
//! `mix`, `add` and `multiply` of BSDFs are linear, so the material's BSDF is
//! `Σₖ weightₖ ⊙ lobeₖ` with each `weightₖ` a color3 expression (the lobe's own weight and
//! colour times every `mix`/`multiply` factor on its path to the root). The shading program
//! sums the lobes; the sampling program puts one `CASE` per lobe under a `RANDSEL`.

use crate::document::Ty;
use crate::error::Result;
use crate::simplify::Simplifier;
use crate::tree::{LobeKind, Op, Tree};

/// One lobe of the material.
#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    /// What it evaluates.
    pub kind: LobeKind,
    /// Its color3 weight (a node of [`Lobes::tree`]).
    pub weight: usize,
    /// The lobe's parameters: roughness for Oren-Nayar, Burley and sheen; `f0 alpha` for
    /// dielectric; `color0 color90 alpha` for generalized Schlick; none for the others.
    pub params: Vec<usize>,
    /// The line of its node.
    pub line: u32,
}

/// The lobes of a material and the tree their expressions live in.
#[derive(Clone, Debug, PartialEq)]
pub struct Lobes {
    /// Expressions (weights and parameters).
    pub tree: Tree,
    /// The lobes, in document order of their paths.
    pub terms: Vec<Term>,
}

fn mul(t: &mut Tree, a: Option<usize>, b: usize) -> usize {
    match a {
        None => b,
        Some(a) => {
            let ty = if t.nodes[a].ty == Ty::Color3 || t.nodes[b].ty == Ty::Color3 {
                Ty::Color3
            } else {
                Ty::Float
            };
            t.push(Op::Mul, ty, vec![a, b], 0)
        }
    }
}

fn walk(t: &mut Tree, i: usize, scale: Option<usize>, out: &mut Vec<Term>) {
    let n = t.nodes[i].clone();
    match n.op {
        Op::Lobe(kind) => {
            let a = &n.args;
            let (colour, params) = match kind {
                LobeKind::OrenNayar | LobeKind::Burley | LobeKind::Sheen => {
                    (Some(a[1]), vec![a[2]])
                }
                LobeKind::Dielectric => (Some(a[1]), vec![a[2], a[3]]),
                LobeKind::Schlick => (None, vec![a[1], a[2], a[3]]),
                LobeKind::Lambert | LobeKind::Subsurface | LobeKind::Cel(_) => (Some(a[1]), vec![]),
            };
            let colour = colour.unwrap_or_else(|| t.constant(vec![1.0; 3], Ty::Color3));
            let own = t.push(Op::Mul, Ty::Color3, vec![colour, a[0]], n.line);
            let weight = match scale {
                None => own,
                Some(s) => mul(t, Some(own), s),
            };
            out.push(Term {
                kind,
                weight,
                params,
                line: n.line,
            });
        }
        Op::Zero => {}
        Op::MixBsdf => {
            let m = n.args[2];
            let fg = mul(t, scale, m);
            let one = t.constant(vec![1.0], Ty::Float);
            let rest = t.push(Op::Sub, Ty::Float, vec![one, m], n.line);
            let bg = mul(t, scale, rest);
            walk(t, n.args[0], Some(fg), out);
            walk(t, n.args[1], Some(bg), out);
        }
        Op::AddBsdf => {
            walk(t, n.args[0], scale, out);
            walk(t, n.args[1], scale, out);
        }
        Op::ScaleBsdf => {
            let s = mul(t, scale, n.args[1]);
            walk(t, n.args[0], Some(s), out);
        }
        Op::Surface => walk(t, n.args[0], scale, out),
        ref op => unreachable!("a BSDF tree holds no {op:?}"),
    }
}

/// The lobes of `t`'s root BSDF, their expressions simplified when `enabled` (lobes of a
/// constant zero weight are then dropped).
pub fn flatten(t: &Tree, enabled: bool) -> Result<Lobes> {
    let mut work = t.clone();
    let mut raw = Vec::new();
    walk(&mut work, t.root, None, &mut raw);
    let mut s = Simplifier::new(&work, enabled);
    let mut terms = Vec::new();
    for r in raw {
        let weight = s.node(r.weight)?;
        if enabled
            && s.new
                .const_of(weight)
                .is_some_and(|v| v.iter().all(|&c| c == 0.0))
        {
            continue;
        }
        let params: Result<Vec<usize>> = r.params.iter().map(|&p| s.node(p)).collect();
        terms.push(Term {
            kind: r.kind,
            weight,
            params: params?,
            line: r.line,
        });
    }
    Ok(Lobes { tree: s.new, terms })
}
