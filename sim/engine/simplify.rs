//! Bit-shuffle simplification of the flattened netlist, before compilation (so before
//! instruction selection, grouping and scheduling).
//!
//! Generated RTL is full of bit shuffles: records packed into one vector by a concatenation and
//! unpacked again by slices, fields re-sliced, inverted flags inverted again. Each costs one
//! instruction per cycle in a plain compiler. This pass rewrites every node, in topological
//! order, into an equivalent node over *earlier* sources:
//!
//! * **Bit fields.** The bits of a concatenation or a slice are followed through concatenations,
//!   slices, zero extensions, sign extensions (below the sign) and wires down to their sources,
//!   as a list of segments (`w` bits of a source from bit `lo`, or constant bits). Adjacent
//!   segments of one source merge, so a slice of a concatenation becomes the part (or a smaller
//!   concatenation), a concatenation of neighbouring slices of one source becomes one slice, a
//!   slice of a slice one slice, and a concatenation with zeros on top becomes a zero extension
//!   (free on the narrow path). A concatenation is looked through when it is the node's own
//!   operand, or when its only reader is the node being rewritten (otherwise its steps would be
//!   computed twice). The rewrite is kept only when the node's own cost (instructions per
//!   evaluation) does not grow.
//! * **Inversions.** `!!a` is `a`; a mux with an inverted 1-bit select swaps its inputs; `==` and
//!   `!=` of two inverted values compare the values; an inverted comparison is the opposite
//!   comparison and an inverted or-reduction a comparison with zero (one instruction instead of
//!   two).
//!
//! Every node keeps its value, so every named signal, output and state input stays observable as
//! before; nodes that no longer feed an output or a state input drop out of the main program in
//! [`compile`](super::compile)'s liveness (named ones move to the observation program). Slices
//! that the rewrite needs are shared: an existing slice node of the same field is reused, new
//! ones are appended to the netlist (in the scope of the node that needs them).
//!
//! Disabled with the environment variable `RENDERGEN_SIM_NO_SIMPLIFY` (for measurements and for
//! tests that compare both).

use rendergen_hdl::bits::Bits;
use rendergen_hdl::ir::{BinOp, Node, NodeId, Op, UnOp};
use rendergen_hdl::FlatNetlist;
use std::collections::HashMap;

/// Relative cost of a multi-word operation (against 1 for a narrow instruction): a rewrite
/// that reads a wide source instead of a narrow one must save more than one instruction.
const WIDE: u32 = 4;

/// How many nodes each rewrite changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Stats {
    /// Concatenations rewritten (fewer parts, one slice, a zero extension or a wire).
    pub concat: u32,
    /// Slices rewritten (reading an earlier source, or become a wire).
    pub slice: u32,
    /// Double inversions removed.
    pub not_not: u32,
    /// Muxes whose inverted select was removed.
    pub mux_not: u32,
    /// Comparisons of two inverted values.
    pub cmp_not: u32,
    /// Inverted comparisons and or-reductions, become the opposite test.
    pub not_test: u32,
    /// Operations computed before on the same sources, become wires.
    pub shared: u32,
    /// Nodes added (shared slices, constants).
    pub added: u32,
}

/// A run of bits of a value, least significant first in a field list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Seg {
    /// `w` bits of node `src` from bit `lo`.
    Bits { src: NodeId, lo: u32, w: u32 },
    /// `w` constant bits (`w ≤ 64`).
    Const { value: u64, w: u32 },
}

impl Seg {
    fn width(&self) -> u32 {
        match *self {
            Seg::Bits { w, .. } | Seg::Const { w, .. } => w,
        }
    }
}

/// Segments being collected for one rewrite.
#[derive(Default)]
struct Fields {
    segs: Vec<Seg>,
    /// Cost of the nodes that die if the rewrite is taken.
    freed: u32,
}

/// Whether simplification is on for this process (`RENDERGEN_SIM_NO_SIMPLIFY` unset).
pub(crate) fn enabled() -> bool {
    std::env::var_os("RENDERGEN_SIM_NO_SIMPLIFY").is_none()
}

/// Simplifies `flat` in place, in one pass over a topological order (a second pass found 35
/// more operations on the PBRU's 124,719 and cost as much time again). A netlist with a
/// combinational loop is left as it is (compilation reports the loop).
pub(crate) fn simplify(flat: &mut FlatNetlist) -> Stats {
    let mut stats = Stats::default();
    let Ok(order) = flat.comb_order() else {
        return stats;
    };
    let mut pass = Pass::new(flat);
    for &id in &order {
        pass.rewrite(id, &mut stats);
    }
    stats.added = pass.added;
    stats
}

struct Pass<'a> {
    flat: &'a mut FlatNetlist,
    /// Readers of each node (combinational operands, outputs, state inputs).
    uses: Vec<u32>,
    /// The first node of each operation and width seen (slices included, for sharing).
    seen: HashMap<(Op, u32), NodeId>,
    /// Nodes appended.
    added: u32,
}

impl<'a> Pass<'a> {
    fn new(flat: &'a mut FlatNetlist) -> Pass<'a> {
        let n = flat.nodes.len();
        let mut uses = vec![0u32; n];
        for id in 0..n as NodeId {
            flat.comb_operands(id, |a| uses[a as usize] += 1);
        }
        let mut root = |id: NodeId| uses[id as usize] += 1;
        flat.outputs.iter().for_each(|p| root(p.node));
        for r in &flat.regs {
            r.next.into_iter().chain(r.enable).for_each(&mut root);
        }
        for mem in &flat.mems {
            for w in &mem.writes {
                [w.enable, w.addr, w.data].into_iter().for_each(&mut root);
            }
            for r in &mem.reads {
                std::iter::once(r.addr).chain(r.enable).for_each(&mut root);
            }
        }
        Pass {
            flat,
            uses,
            seen: HashMap::new(),
            added: 0,
        }
    }

    fn width(&self, id: NodeId) -> u32 {
        self.flat.nodes[id as usize].width
    }

    /// The node `id` stands for: wires, one-part concatenations, full slices and same-width
    /// extensions are followed.
    fn canon(&self, x: NodeId) -> NodeId {
        self.canon_single(x).0
    }

    /// One step of [`canon`](Self::canon) (`id` itself when it is not an alias).
    fn canon_step(&self, id: NodeId) -> NodeId {
        let node = &self.flat.nodes[id as usize];
        let next = match &node.op {
            Op::Wire(Some(a)) => *a,
            Op::Concat(parts) if parts.len() == 1 => parts[0],
            Op::Slice { a, lo: 0 } | Op::Extend { a, .. } => *a,
            _ => return id,
        };
        if self.width(next) == node.width {
            next
        } else {
            id
        }
    }

    /// `(canon(x), whether x and every alias on the way have exactly one reader)`.
    fn canon_single(&self, x: NodeId) -> (NodeId, bool) {
        let mut single = self.uses[x as usize] == 1;
        let mut id = x;
        loop {
            let c = self.canon_step(id);
            if c == id {
                return (id, single);
            }
            id = c;
            single &= self.uses[id as usize] == 1;
        }
    }

    /// Appends the segments of bits `lo..lo + w` of `x`, least significant first. `look`: look
    /// through `x` if it is a concatenation even when it has other readers. `owned`: the
    /// caller's value is computed only for the node being rewritten (so `x`, if its only reader
    /// is the caller, dies with the rewrite: its cost is added to `freed`).
    fn fields(&self, x: NodeId, lo: u32, w: u32, look: bool, owned: bool, f: &mut Fields) {
        let (x, single) = self.canon_single(x);
        let owned = owned && single;
        let node = &self.flat.nodes[x as usize];
        match &node.op {
            Op::Concat(parts) if look || owned => {
                f.freed += owned as u32 * self.cost(&node.op, node.width);
                let mut off = 0;
                for &p in parts.iter().rev() {
                    let pw = self.width(p);
                    let (a, b) = (lo.max(off), (lo + w).min(off + pw));
                    if a < b {
                        self.fields(p, a - off, b - a, false, owned, f);
                    }
                    off += pw;
                }
            }
            Op::Slice { a, lo: l } => {
                f.freed += owned as u32 * self.cost(&node.op, node.width);
                self.fields(*a, lo + l, w, true, owned, f)
            }
            Op::Extend { a, signed } if !signed || lo + w <= self.width(*a) => {
                f.freed += owned as u32 * self.cost(&node.op, node.width);
                let wa = self.width(*a);
                if lo < wa {
                    let b = (lo + w).min(wa);
                    self.fields(*a, lo, b - lo, true, owned, f);
                }
                if lo + w > wa {
                    push_zero(&mut f.segs, lo + w - lo.max(wa));
                }
            }
            Op::Const(bits) => {
                let mut i = 0;
                while i < w {
                    let n = (w - i).min(64);
                    let mut value = 0u64;
                    for k in 0..n {
                        value |= (bits.bit(lo + i + k) as u64) << k;
                    }
                    f.segs.push(Seg::Const { value, w: n });
                    i += n;
                }
            }
            _ => f.segs.push(Seg::Bits { src: x, lo, w }),
        }
    }

    /// Rewrites node `id` (its operands are already rewritten).
    fn rewrite(&mut self, id: NodeId, stats: &mut Stats) {
        let c = |x: &mut NodeId| *x = self.canon(*x);
        let mut op = self.flat.nodes[id as usize].op.clone();
        match &mut op {
            Op::Unary(_, a) | Op::Slice { a, .. } | Op::Extend { a, .. } => c(a),
            Op::Binary(_, a, b) => {
                c(a);
                c(b)
            }
            Op::Mux {
                sel,
                on_true,
                on_false,
            } => [sel, on_true, on_false].into_iter().for_each(c),
            Op::Concat(parts) => parts.iter_mut().for_each(c),
            Op::Select {
                index,
                cases,
                default,
            } => {
                c(index);
                c(default);
                cases.iter_mut().for_each(c)
            }
            Op::Lut { index, .. } => c(index),
            _ => {}
        }
        self.flat.nodes[id as usize].op = op;
        let node = &self.flat.nodes[id as usize];
        let w = node.width;
        match node.op.clone() {
            Op::Concat(parts) if parts.len() > 1 => {
                let mut f = Fields::default();
                for &p in parts.iter().rev() {
                    self.fields(p, 0, self.width(p), false, true, &mut f);
                }
                if self.replace(id, f) {
                    stats.concat += 1;
                }
            }
            Op::Slice { a, lo } if !(lo == 0 && self.width(a) == w) => {
                let mut f = Fields::default();
                self.fields(a, lo, w, true, true, &mut f);
                let plain = f.segs
                    == [Seg::Bits {
                        src: self.canon(a),
                        lo,
                        w,
                    }];
                if self.replace(id, f) && !plain {
                    stats.slice += 1;
                }
            }
            Op::Unary(UnOp::Not, a) => {
                if let Some(b) = self.inverted(a, w) {
                    self.flat.nodes[id as usize].op = Op::Wire(Some(b));
                    stats.not_not += 1;
                } else if let Some(op) = self.negated_test(id, a) {
                    self.flat.nodes[id as usize].op = op;
                    stats.not_test += 1;
                }
            }
            Op::Mux {
                sel,
                on_true,
                on_false,
            } if self.width(sel) == 1 => {
                if let Some(s) = self.inverted(sel, 1) {
                    self.flat.nodes[id as usize].op = Op::Mux {
                        sel: s,
                        on_true: on_false,
                        on_false: on_true,
                    };
                    stats.mux_not += 1;
                }
            }
            Op::Binary(op @ (BinOp::Eq | BinOp::Ne), a, b) => {
                let wa = self.width(a);
                if let (Some(x), Some(y)) = (self.inverted(a, wa), self.inverted(b, wa)) {
                    self.flat.nodes[id as usize].op = Op::Binary(op, x, y);
                    stats.cmp_not += 1;
                }
            }
            _ => {}
        }
        // Common subexpressions: an operation computed before (on the same sources) becomes a
        // wire to the first one (which precedes it in the topological order).
        let op = &self.flat.nodes[id as usize].op;
        let pure = matches!(
            op,
            Op::Unary(..)
                | Op::Binary(..)
                | Op::Mux { .. }
                | Op::Concat(_)
                | Op::Slice { .. }
                | Op::Extend { .. }
                | Op::Select { .. }
                | Op::Lut { .. }
        );
        // Equal constants are merged too (so operations on them compare equal).
        if (pure && self.cost(op, w) > 0) || matches!(op, Op::Const(_)) {
            let key = (op.clone(), w);
            match self.seen.get(&key) {
                Some(&first) => {
                    self.flat.nodes[id as usize].op = Op::Wire(Some(first));
                    stats.shared += 1;
                }
                None => {
                    self.seen.insert(key, id);
                }
            }
        }
    }

    /// The opposite test of `a` when `a` is a comparison or an or-reduction (for `!a`, node
    /// `id`): `!(x == y)` is `x != y`, `!(x < y)` is `y <= x`, `!|x` is `x == 0`.
    fn negated_test(&mut self, id: NodeId, a: NodeId) -> Option<Op> {
        let a = self.canon(a);
        Some(match self.flat.nodes[a as usize].op {
            Op::Binary(op, x, y) => match op {
                BinOp::Eq => Op::Binary(BinOp::Ne, x, y),
                BinOp::Ne => Op::Binary(BinOp::Eq, x, y),
                BinOp::Lt => Op::Binary(BinOp::Le, y, x),
                BinOp::Le => Op::Binary(BinOp::Lt, y, x),
                BinOp::SLt => Op::Binary(BinOp::SLe, y, x),
                BinOp::SLe => Op::Binary(BinOp::SLt, y, x),
                _ => return None,
            },
            Op::Unary(UnOp::RedOr, x) => {
                let wx = self.width(x);
                let zero = Op::Const(Bits::zero(wx));
                let z = match self.seen.get(&(zero.clone(), wx)) {
                    Some(&z) => z,
                    None => {
                        let z = self.add(id, zero.clone(), wx);
                        self.seen.insert((zero, wx), z);
                        z
                    }
                };
                Op::Binary(BinOp::Eq, x, z)
            }
            _ => return None,
        })
    }

    /// `Some(b)` when `x` is `!b` at width `w` (`b` of width `w`).
    fn inverted(&self, x: NodeId, w: u32) -> Option<NodeId> {
        let x = self.canon(x);
        match self.flat.nodes[x as usize].op {
            Op::Unary(UnOp::Not, b) if self.width(x) == w && self.width(b) == w => Some(b),
            _ => None,
        }
    }

    /// Replaces the concatenation or slice `id` by the concatenation of `segs` (least
    /// significant first) when that costs no more; returns whether it did.
    fn replace(&mut self, id: NodeId, f: Fields) -> bool {
        let w = self.width(id);
        let old = self.flat.nodes[id as usize].op.clone();
        let segs = merge(&f.segs);
        debug_assert_eq!(segs.iter().map(Seg::width).sum::<u32>(), w);
        // The zero bits on top, if any, become a zero extension.
        let zeros = segs
            .iter()
            .rev()
            .take_while(|s| matches!(s, Seg::Const { value: 0, .. }));
        let zeros = zeros.count().min(segs.len() - 1);
        let body = &segs[..segs.len() - zeros];
        let zero_top: u32 = segs[body.len()..].iter().map(Seg::width).sum();
        let body_w = w - zero_top;
        // Cost of the new form, counting the slices it would add.
        let mut added = 0;
        let mut parts: Vec<Option<NodeId>> = Vec::with_capacity(body.len());
        for s in body.iter().rev() {
            match *s {
                Seg::Bits { src, lo, w: sw } if lo == 0 && sw == self.width(src) => {
                    parts.push(Some(src))
                }
                Seg::Bits { src, lo, w: sw } => {
                    let found = self.find_slice(src, lo, sw);
                    if found.is_none() {
                        added += self.slice_cost(src, lo, sw);
                    }
                    parts.push(found);
                }
                Seg::Const { .. } => parts.push(None),
            }
        }
        let single_slice = matches!(body, [Seg::Bits { .. }]) && zero_top == 0;
        let new_cost = if single_slice {
            // The node itself becomes the slice (or a wire).
            match body[0] {
                Seg::Bits { src, lo, w } => match self.find_slice(src, lo, w) {
                    Some(n) if n != id => 0,
                    _ => self.slice_cost(src, lo, w),
                },
                Seg::Const { .. } => 0,
            }
        } else {
            let body_cost = if body.len() == 1 {
                added
            } else {
                added + self.concat_cost(body, body_w)
            };
            let ext = if zero_top > 0 && w > 64 { WIDE } else { 0 };
            // A concatenation body under a zero extension is a node of its own.
            body_cost + ext
        };
        let old_cost = self.cost(&old, w) + f.freed;
        if new_cost > old_cost {
            return false;
        }
        let new_op = if single_slice {
            match body[0] {
                Seg::Bits { src, lo, .. } if lo == 0 && self.width(src) == w => Op::Wire(Some(src)),
                Seg::Bits { src, lo, w } => match self.find_slice(src, lo, w) {
                    Some(n) if n != id => Op::Wire(Some(n)),
                    _ => Op::Slice { a: src, lo },
                },
                Seg::Const { .. } => unreachable!("a constant body is not a slice"),
            }
        } else if segs.len() == 1 {
            match segs[0] {
                Seg::Const { value, w } => Op::Const(Bits::from_u64(value, w)),
                Seg::Bits { .. } => unreachable!("handled as a single slice"),
            }
        } else {
            let mut nodes = Vec::with_capacity(body.len());
            for (s, p) in body.iter().rev().zip(&parts) {
                nodes.push(match (*s, *p) {
                    (_, Some(n)) => n,
                    (Seg::Bits { src, lo, w: sw }, None) => {
                        let op = Op::Slice { a: src, lo };
                        let n = self.add(id, op.clone(), sw);
                        self.seen.insert((op, sw), n);
                        n
                    }
                    (Seg::Const { value, w: cw }, None) => {
                        self.add(id, Op::Const(Bits::from_u64(value, cw)), cw)
                    }
                });
            }
            if zero_top == 0 {
                Op::Concat(nodes)
            } else {
                let inner = if nodes.len() == 1 {
                    nodes[0]
                } else {
                    self.add(id, Op::Concat(nodes), body_w)
                };
                Op::Extend {
                    a: inner,
                    signed: false,
                }
            }
        };
        if new_op == old {
            return false;
        }
        self.flat.nodes[id as usize].op = new_op;
        true
    }

    /// Instructions per evaluation of a concatenation of `segs` (total width `w`).
    fn concat_cost(&self, segs: &[Seg], w: u32) -> u32 {
        if w > 64 || segs.iter().any(|s| s.width() > 64) {
            return WIDE;
        }
        let bit = |s: &Seg| matches!(s, Seg::Bits { w: 1, .. });
        if segs.iter().all(|s| bit(s) && *s == segs[0]) {
            return 1;
        }
        segs.len() as u32 - 1
    }

    /// Instructions per evaluation of `op` at width `w` (as [`lower`](super::lower) emits it).
    fn cost(&self, op: &Op, w: u32) -> u32 {
        match op {
            Op::Wire(_) | Op::Const(_) => 0,
            Op::Concat(parts) if parts.len() == 1 => 0,
            Op::Concat(parts) => {
                let narrow = w <= 64 && parts.iter().all(|p| self.width(*p) <= 64);
                if !narrow {
                    WIDE
                } else if self.width(parts[0]) == 1 && parts.iter().all(|p| *p == parts[0]) {
                    1
                } else {
                    parts.len() as u32 - 1
                }
            }
            Op::Slice { a, lo } => self.slice_cost(*a, *lo, w),
            Op::Extend { a, signed } => {
                let wa = self.width(*a);
                if wa == w || (!signed && w <= 64) {
                    0
                } else if w <= 64 {
                    1
                } else {
                    WIDE
                }
            }
            _ => 1,
        }
    }

    /// Cost of `w` bits of `src` from `lo` (as [`lower`](super::lower) emits it): nothing for
    /// all of it or its top words from a word boundary, one narrow instruction from a narrow
    /// source or within one word of a wide one, else a multi-word operation.
    fn slice_cost(&self, src: NodeId, lo: u32, w: u32) -> u32 {
        let ws = self.width(src);
        if (lo == 0 && w == ws) || (lo.is_multiple_of(64) && lo + w == ws) {
            0
        } else if ws <= 64 || (w <= 64 && lo % 64 + w <= 64) {
            1
        } else {
            WIDE
        }
    }

    /// An existing slice node of `w` bits of `src` from `lo`.
    fn find_slice(&self, src: NodeId, lo: u32, w: u32) -> Option<NodeId> {
        self.seen.get(&(Op::Slice { a: src, lo }, w)).copied()
    }

    /// Appends a node computing `op` at width `w`, in the scope of node `near`.
    fn add(&mut self, near: NodeId, op: Op, w: u32) -> NodeId {
        let n = self.flat.nodes.len() as NodeId;
        let loc = self.flat.nodes[near as usize].loc;
        self.flat.nodes.push(Node {
            op,
            width: w,
            name: None,
            soft_name: None,
            loc,
        });
        self.added += 1;
        let scope = self.flat.node_scope[near as usize];
        self.flat.node_scope.push(scope);
        self.uses.push(1);
        n
    }
}

/// Appends `w` zero bits.
fn push_zero(out: &mut Vec<Seg>, mut w: u32) {
    while w > 0 {
        let n = w.min(64);
        out.push(Seg::Const { value: 0, w: n });
        w -= n;
    }
}

/// Merges neighbouring segments: contiguous bits of one source, constants up to 64 bits.
fn merge(segs: &[Seg]) -> Vec<Seg> {
    let mut out: Vec<Seg> = Vec::with_capacity(segs.len());
    for &s in segs {
        match (out.last_mut(), s) {
            (
                Some(Seg::Bits { src, lo, w }),
                Seg::Bits {
                    src: s2,
                    lo: l2,
                    w: w2,
                },
            ) if *src == s2 && *lo + *w == l2 => *w += w2,
            (Some(Seg::Const { value, w }), Seg::Const { value: v2, w: w2 }) if *w + w2 <= 64 => {
                *value |= v2 << *w;
                *w += w2;
            }
            _ => out.push(s),
        }
    }
    out
}
