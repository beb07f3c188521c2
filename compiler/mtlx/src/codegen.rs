//! Step 3 of the compiler (`pbru.md` §6.5, 1614): postfix stack code for the PBRU
//! (`rtl/isa/ISA.md`), as assembly text that `rendergen_isa::asm` assembles.
//!
//! The emitter tracks the stack depth of every instruction, so values are addressed by their
//! absolute stack position (`LOAD n`, `STORE n`) and the deepest point of each program is
//! known (checked against the slot's stack). The stack layouts are in `ABI.md`.

use crate::document::Ty;
use crate::error::{CompileError, Result};
use crate::lobes::{Lobes, Term};
use crate::simplify::constant_value;
use crate::tree::{LobeKind, Op, Tree};
use rendergen_isa::Opcode;
use std::f64::consts::PI;

/// Where the SM puts a ray's variables (the bottom of the stack; `ABI.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Shading normal N (3 words).
    pub n: usize,
    /// Direction to the viewer V (3 words).
    pub v: usize,
    /// Direction to the light L (3 words; shading program only).
    pub l: Option<usize>,
    /// Texture coordinates u, v (2 words).
    pub uv: usize,
    /// Square root of the UV-coverage fraction (1 word).
    pub sqrt_cov: usize,
    /// ξ1 (then ξ2) in [0, 1) (sampling program only).
    pub xi: Option<usize>,
    /// First texture base (block address), one word per texture.
    pub tex: usize,
    /// Words the SM pushes.
    pub words: usize,
}

impl Layout {
    /// The shading program's: `N V L u v sqrt_cov tex_base[T]`.
    pub fn shading(textures: usize) -> Layout {
        Layout {
            n: 0,
            v: 3,
            l: Some(6),
            uv: 9,
            sqrt_cov: 11,
            xi: None,
            tex: 12,
            words: 12 + textures,
        }
    }

    /// The importance-sampling program's: `N V u v sqrt_cov ξ1 ξ2 tex_base[T]`.
    pub fn sampling(textures: usize) -> Layout {
        Layout {
            n: 0,
            v: 3,
            l: None,
            uv: 6,
            sqrt_cov: 8,
            xi: Some(9),
            tex: 11,
            words: 11 + textures,
        }
    }
}

/// A value to Q16.16: rounded to nearest (ties away from zero), saturated.
pub fn q16(v: f64) -> i32 {
    (v * 65536.0)
        .round()
        .clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32
}

/// Assembly text under construction, with the stack depth after every line.
#[derive(Clone, Debug, Default)]
pub struct Asm {
    /// Lines of assembly.
    pub lines: Vec<String>,
    /// Stack depth now.
    pub depth: usize,
    /// Deepest point so far.
    pub max_depth: usize,
    /// Instructions emitted.
    pub instructions: usize,
}

impl Asm {
    fn op(&mut self, op: Opcode, imm: Option<i64>, note: &str) {
        let pops = if op == Opcode::RandSel {
            imm.unwrap_or(0) as usize
        } else {
            op.pops() as usize
        };
        debug_assert!(
            self.depth >= pops,
            "stack underflow in generated code at {op:?}"
        );
        self.depth = self.depth - pops + op.pushes() as usize;
        self.max_depth = self.max_depth.max(self.depth);
        self.instructions += 1;
        let text = match imm {
            Some(i) => format!("{} {i}", op.mnemonic()),
            None => op.mnemonic().to_string(),
        };
        self.lines.push(if note.is_empty() {
            text
        } else {
            format!("{text:<20}; {note}")
        });
    }

    fn comment(&mut self, c: &str) {
        self.lines.push(format!("; {c}"));
    }

    fn push(&mut self, v: f64) {
        self.op(
            Opcode::Push,
            Some(i64::from(q16(v))),
            &format!("{}", v as f32),
        );
    }

    fn load(&mut self, pos: usize) {
        self.op(Opcode::Load, Some(pos as i64), "");
    }

    fn store(&mut self, pos: usize) {
        self.op(Opcode::Store, Some(pos as i64), "");
    }

    fn load3(&mut self, pos: usize) {
        for c in 0..3 {
            self.load(pos + c);
        }
    }

    /// Moves the top `w` words down to `base` and drops everything above them.
    fn collapse(&mut self, base: usize, w: usize) {
        let total = self.depth - base - w;
        debug_assert!(total >= w, "collapse would overwrite its own results");
        for c in (0..w).rev() {
            self.store(base + c);
        }
        for _ in 0..total - w {
            self.op(Opcode::Pop, None, "");
        }
    }

    /// `a·b` of two 3-vectors at stack positions `a` and `b`.
    fn dot(&mut self, a: usize, b: usize) {
        for c in 0..3 {
            self.load(a + c);
            self.load(b + c);
            self.op(Opcode::Mul, None, "");
            if c > 0 {
                self.op(Opcode::Add, None, "");
            }
        }
    }

    /// Combines the two `w`-word values on top of the stack componentwise with `op`.
    fn combine_top(&mut self, op: Opcode, w: usize) {
        let base = self.depth - 2 * w;
        self.combine(op, base, base, base + w, w);
    }

    /// `a op b` componentwise for the `w`-word values at positions `a` and `b`; the result
    /// replaces everything from `base` up (`base ≤ a, b`, and at least `w` words from `base`).
    fn combine(&mut self, op: Opcode, base: usize, a: usize, b: usize, w: usize) {
        for c in 0..w {
            self.load(a + c);
            self.load(b + c);
            self.op(op, None, "");
        }
        self.collapse(base, w);
    }

    /// Multiplies the 3-word value under the top word by the top word.
    fn scale3_by_top(&mut self) {
        let base = self.depth - 4;
        for c in 0..3 {
            self.load(base + c);
            self.load(base + 3);
            self.op(Opcode::Mul, None, "");
        }
        self.collapse(base, 3);
    }

    /// `x⁵` of the top word.
    fn pow5(&mut self) {
        self.op(Opcode::Dup, None, "");
        self.op(Opcode::Dup, None, "");
        self.op(Opcode::Mul, None, "x²");
        self.op(Opcode::Dup, None, "");
        self.op(Opcode::Mul, None, "x⁴");
        self.op(Opcode::Mul, None, "x⁵");
    }
}

/// Where a lobe finds `max(N·L, 0)`.
#[derive(Clone, Copy)]
enum Cos {
    /// At this stack position.
    At(usize),
    /// Computed from N and the L at this position each time.
    Compute(usize),
}

/// The code generator for one program.
pub struct Gen<'a> {
    t: &'a Tree,
    lay: Layout,
    fold: bool,
    /// The program text.
    pub asm: Asm,
}

/// An operand of a componentwise operation.
enum Operand {
    Node(usize),
    Const(Vec<f64>),
}

impl<'a> Gen<'a> {
    /// A generator over `t` for a program with stack layout `lay` (`fold`: fold constant
    /// albedo estimates at compile time).
    pub fn new(t: &'a Tree, lay: Layout, fold: bool) -> Gen<'a> {
        let asm = Asm {
            depth: lay.words,
            max_depth: lay.words,
            ..Asm::default()
        };
        Gen { t, lay, fold, asm }
    }

    /// Pushes the value of node `e` (its type's words).
    pub fn value(&mut self, e: usize) -> Result<()> {
        let n = &self.t.nodes[e];
        let w = n.ty.words();
        match &n.op {
            Op::Const(v) => {
                for c in 0..w {
                    self.asm.push(if v.len() == 1 { v[0] } else { v[c] });
                }
            }
            Op::Normal => self.asm.load3(self.lay.n),
            Op::Texcoord => {
                self.asm.load(self.lay.uv);
                self.asm.load(self.lay.uv + 1);
            }
            Op::Image { tex } => {
                let texture = &self.t.textures[*tex];
                let (dims, format) = (texture.dims(), texture.format());
                self.value(n.args[0])?;
                self.asm.load(self.lay.sqrt_cov);
                self.asm.load(self.lay.tex + tex);
                self.asm.op(Opcode::Push, Some(i64::from(dims)), "dims");
                self.asm.op(Opcode::Push, Some(i64::from(format)), "format");
                self.asm.op(Opcode::TexA, None, "block_addr tx ty");
                self.asm.op(Opcode::TexRead, None, "");
                self.asm.op(Opcode::Push, Some(i64::from(format)), "format");
                self.asm.op(Opcode::TexDp, Some(0), "R G B A");
                self.asm.op(Opcode::Pop, None, "A");
                if n.ty == Ty::Float {
                    self.asm.op(Opcode::Pop, None, "");
                    self.asm.op(Opcode::Pop, None, "");
                }
            }
            Op::Div => {
                let Some(c) = constant_value(self.t, n.args[1]) else {
                    return Err(CompileError::at(
                        n.line,
                        "divide: the divisor must be a constant (the PBRU has no division)",
                    ));
                };
                if c.contains(&0.0) {
                    return Err(CompileError::at(n.line, "division by zero"));
                }
                let r: Vec<f64> = c.iter().map(|x| 1.0 / x).collect();
                self.arith(
                    Opcode::Mul,
                    vec![Operand::Node(n.args[0]), Operand::Const(r)],
                    w,
                )?;
            }
            Op::Add | Op::Sub | Op::Mul => {
                let op = match n.op {
                    Op::Add => Opcode::Add,
                    Op::Sub => Opcode::Sub,
                    _ => Opcode::Mul,
                };
                let a = n.args.iter().map(|&a| Operand::Node(a)).collect();
                self.arith(op, a, w)?;
            }
            Op::Mix => {
                // mix(fg, bg, m) = bg + (fg − bg)·m = LERP bg fg m.
                let a = [1, 0, 2]
                    .iter()
                    .map(|&k| Operand::Node(n.args[k]))
                    .collect();
                self.arith(Opcode::Lerp, a, w)?;
            }
            Op::Clamp => {
                let a = n.args.iter().map(|&a| Operand::Node(a)).collect();
                self.arith(Opcode::Clamp, a, w)?;
            }
            op => unreachable!("{op:?} is no value"),
        }
        Ok(())
    }

    fn operand(&mut self, o: &Operand) -> Result<usize> {
        match o {
            Operand::Node(e) => {
                self.value(*e)?;
                Ok(self.t.nodes[*e].ty.words())
            }
            Operand::Const(v) => {
                for &x in v {
                    self.asm.push(x);
                }
                Ok(v.len())
            }
        }
    }

    /// `op` on operands of width 1 or `w` (broadcast), componentwise.
    fn arith(&mut self, op: Opcode, args: Vec<Operand>, w: usize) -> Result<()> {
        if w == 1 {
            for a in &args {
                self.operand(a)?;
            }
            self.asm.op(op, None, "");
            return Ok(());
        }
        let base = self.asm.depth;
        let mut at = Vec::new();
        for a in &args {
            let pos = self.asm.depth;
            let width = self.operand(a)?;
            at.push((pos, width));
        }
        for c in 0..w {
            for &(pos, width) in &at {
                self.asm.load(if width == 1 { pos } else { pos + c });
            }
            self.asm.op(op, None, "");
        }
        self.asm.collapse(base, w);
        Ok(())
    }

    fn cos(&mut self, cos: Cos) {
        match cos {
            Cos::At(p) => self.asm.load(p),
            Cos::Compute(l) => {
                self.asm.dot(self.lay.n, l);
                self.asm.push(0.0);
                self.asm.op(Opcode::Max, None, "max(N·L, 0)");
            }
        }
    }

    /// `V·H` for unit L and V: `|L + V|/2`, with the square root from OREN_NAYAR_DIR (with
    /// N = +z and ξ2 = 0 its L.z is `√(1 − ξ1)`; the PBRU has no square root of its own).
    ///
    /// `S = Σ (32·(Lᵢ + Vᵢ))² = 4096·(V·H)²` keeps precision where `L ≈ −V` (the sums are exact,
    /// the squares large). The root is taken of `S/4096 = (V·H)²`, or, when `S < 256`
    /// (`V·H < 1/4`), of `S/256 = 16·(V·H)²` and then divided by 4: four more bits of the
    /// argument where `V·H` is small (near `L = −V`, where the root is steepest).
    fn cos_vh(&mut self, l: usize) {
        let v = self.lay.v;
        for c in 0..3 {
            self.asm.load(l + c);
            self.asm.load(v + c);
            self.asm.op(Opcode::Add, None, "");
            self.asm.push(32.0);
            self.asm.op(Opcode::Mul, None, "");
            self.asm.op(Opcode::Dup, None, "");
            self.asm.op(Opcode::Mul, None, "");
            if c > 0 {
                self.asm.op(Opcode::Add, None, "");
            }
        }
        let s = self.asm.depth - 1;
        self.asm.comment("S = 1024·|L + V|² = 4096·(V·H)²");
        self.asm.push(0.0);
        self.asm.push(0.0);
        self.asm.push(1.0);
        self.asm.load(s);
        self.asm.push(256.0);
        self.asm.load(s);
        self.asm.push(1.0 / 256.0);
        self.asm.op(Opcode::Mul, None, "");
        self.asm.load(s);
        self.asm.push(1.0 / 4096.0);
        self.asm.op(Opcode::Mul, None, "");
        self.asm.op(Opcode::SelLt, None, "S < 256 ? S/256 : S/4096");
        self.asm.op(Opcode::Neg, None, "");
        self.asm.push(1.0);
        self.asm.op(Opcode::Add, None, "ξ1");
        self.asm.push(0.0);
        self.asm.op(Opcode::OrenNayarDir, None, "L.z = √(1 − ξ1)");
        self.asm.op(Opcode::Pop, None, "pdf");
        self.asm.load(s);
        self.asm.push(256.0);
        self.asm.push(0.25);
        self.asm.push(1.0);
        self.asm.op(Opcode::SelLt, None, "");
        self.asm.op(Opcode::Mul, None, "V·H");
        self.asm.store(s);
        self.asm.op(Opcode::Pop, None, "");
        self.asm.op(Opcode::Pop, None, "");
    }

    /// Pushes the lobe's Fresnel colour (SCHLICK) at cosine `cos` (code given).
    fn fresnel(&mut self, term: &Term, cos: impl FnOnce(&mut Self)) -> Result<()> {
        match term.kind {
            LobeKind::Dielectric => {
                self.value(term.params[0])?;
                self.asm.op(Opcode::Dup, None, "");
                self.asm.op(Opcode::Dup, None, "F0 (rgb)");
                for _ in 0..3 {
                    self.asm.push(1.0);
                }
            }
            _ => {
                self.value(term.params[0])?;
                self.value(term.params[1])?;
            }
        }
        cos(self);
        self.asm.op(Opcode::Schlick, None, "F (rgb)");
        Ok(())
    }

    fn nvl(&mut self, l: usize) {
        self.asm.load3(self.lay.n);
        self.asm.load3(self.lay.v);
        self.asm.load3(l);
    }

    /// Pushes the lobe's scalar `f·max(N·L, 0)` (cel: the band value) for the L at `l`.
    fn scalar(&mut self, term: &Term, l: usize, cos: Cos) -> Result<()> {
        let pipe = |g: &mut Self, op: Opcode, rough: Option<usize>| -> Result<()> {
            g.nvl(l);
            match rough {
                Some(r) => g.value(r)?,
                None => g.asm.push(0.5),
            }
            g.asm.op(op, None, "f");
            g.cos(cos);
            g.asm.op(Opcode::Mul, None, "f·cos");
            Ok(())
        };
        match term.kind {
            LobeKind::OrenNayar => pipe(self, Opcode::OrenNayar, Some(term.params[0]))?,
            LobeKind::Sheen => pipe(self, Opcode::Sheen, Some(term.params[0]))?,
            LobeKind::Subsurface => pipe(self, Opcode::Subsurface, None)?,
            LobeKind::Dielectric => pipe(self, Opcode::Ggx, Some(term.params[1]))?,
            LobeKind::Schlick => pipe(self, Opcode::Ggx, Some(term.params[2]))?,
            LobeKind::Lambert => {
                self.asm.push(1.0 / PI);
                self.cos(cos);
                self.asm.op(Opcode::Mul, None, "cos/π");
            }
            LobeKind::Cel(_) => {
                self.asm.load3(self.lay.n);
                self.asm.load3(l);
                self.asm.op(Opcode::Cel, None, "band value");
            }
            LobeKind::Burley => {
                // MaterialX mx_burley_diffuse: F_D90 = 0.5 + 2·(L·H)²·r, (L·H)² = (1 + L·V)/2.
                self.asm.dot(l, self.lay.v);
                self.asm.push(1.0);
                self.asm.op(Opcode::Add, None, "");
                self.value(term.params[0])?;
                self.asm.op(Opcode::Mul, None, "");
                self.asm.push(0.5);
                self.asm.op(Opcode::Add, None, "F_D90");
                self.asm.push(1.0);
                self.asm.op(Opcode::Sub, None, "F_D90 − 1");
                let m = self.asm.depth - 1;
                self.asm.push(1.0);
                self.cos(cos);
                self.asm.op(Opcode::Sub, None, "1 − N·L");
                self.asm.pow5();
                self.asm.load(m);
                self.asm.op(Opcode::Mul, None, "");
                self.asm.push(1.0);
                self.asm.op(Opcode::Add, None, "Schlick(N·L)");
                self.asm.push(1.0);
                self.asm.dot(self.lay.n, self.lay.v);
                self.asm.push(0.0);
                self.asm.op(Opcode::Max, None, "");
                self.asm.op(Opcode::Sub, None, "1 − N·V");
                self.asm.pow5();
                self.asm.load(m);
                self.asm.op(Opcode::Mul, None, "");
                self.asm.push(1.0);
                self.asm.op(Opcode::Add, None, "Schlick(N·V)");
                self.asm.op(Opcode::Mul, None, "");
                self.asm.store(m);
                self.asm.push(1.0 / PI);
                self.asm.op(Opcode::Mul, None, "");
                self.cos(cos);
                self.asm.op(Opcode::Mul, None, "f·cos");
            }
        }
        Ok(())
    }

    /// Pushes the lobe's contribution `weight ⊙ F ⊙ f·cos` (rgb) for the L at `l`.
    fn lobe_rgb(&mut self, term: &Term, l: usize, cos: Cos) -> Result<()> {
        self.asm
            .comment(&format!("lobe {} (line {})", term.kind.name(), term.line));
        if term.kind.is_microfacet() {
            // V·H first, then F, then the weight: the shallowest order.
            let base = self.asm.depth;
            self.cos_vh(l);
            self.fresnel(term, |g| g.asm.load(base))?;
            self.value(term.weight)?;
            self.asm.combine(Opcode::Mul, base, base + 1, base + 4, 3);
        } else {
            self.value(term.weight)?;
        }
        self.scalar(term, l, cos)?;
        self.asm.scale3_by_top();
        Ok(())
    }

    /// Pushes the mean of the 3-word value on top of the stack in its place.
    fn mean3(&mut self, note: &str) {
        self.asm.op(Opcode::Add, None, "");
        self.asm.op(Opcode::Add, None, "");
        self.asm.push(1.0 / 3.0);
        self.asm.op(Opcode::Mul, None, note);
    }

    /// Pushes the lobe's albedo estimate (a scalar weight for RANDSEL): the mean of its
    /// weight, times the mean of Schlick's F at N·V for microfacet lobes.
    fn albedo(&mut self, term: &Term) -> Result<()> {
        if term.kind.is_microfacet() {
            let (n, v) = (self.lay.n, self.lay.v);
            self.fresnel(term, |g| g.asm.dot(n, v))?;
            self.mean3("mean F(N·V)");
        }
        match self.t.const_of(term.weight) {
            Some(c) if self.fold => self.asm.push(c.iter().sum::<f64>() / c.len() as f64),
            _ => {
                self.value(term.weight)?;
                self.mean3("mean weight");
            }
        }
        if term.kind.is_microfacet() {
            self.asm.op(Opcode::Mul, None, "");
        }
        self.asm.comment("albedo estimate");
        Ok(())
    }

    /// The direction of the lobe: `L pdf`.
    fn direction(&mut self, term: &Term) -> Result<()> {
        let xi = self.lay.xi.expect("sampling layout");
        self.asm.load3(self.lay.n);
        if term.kind.is_microfacet() {
            self.asm.load3(self.lay.v);
            let alpha = *term.params.last().expect("alpha");
            self.value(alpha)?;
            self.asm.load(xi);
            self.asm.load(xi + 1);
            self.asm.op(Opcode::GgxDir, None, "L pdf (VNDF)");
        } else {
            self.asm.load(xi);
            self.asm.load(xi + 1);
            self.asm.op(Opcode::OrenNayarDir, None, "L pdf (cosine)");
        }
        Ok(())
    }
}

/// The shading program: `… max(N·L, 0) R G B` at RAYSTOP (`ABI.md`).
pub fn shading(lobes: &Lobes, fold: bool) -> Result<Asm> {
    let lay = Layout::shading(lobes.tree.textures.len());
    let l = lay.l.expect("shading layout");
    let mut g = Gen::new(&lobes.tree, lay, fold);
    g.asm
        .comment("material shading: N V L u v sqrt_cov tex_base… → … cos R G B (ABI.md)");
    g.asm.dot(lay.n, l);
    g.asm.push(0.0);
    g.asm.op(Opcode::Max, None, "cos = max(N·L, 0)");
    let cos = Cos::At(lay.words);
    for (k, term) in lobes.terms.iter().enumerate() {
        g.lobe_rgb(term, l, cos)?;
        if k > 0 {
            g.asm.combine_top(Opcode::Add, 3);
        }
    }
    if lobes.terms.is_empty() {
        g.asm.comment("no lobe: black");
        for _ in 0..3 {
            g.asm.push(0.0);
        }
    }
    g.asm.op(Opcode::RayStop, None, "");
    Ok(g.asm)
}

/// The importance-sampling program: `… W_sum L pdf R G B W_k k` at RAYSTOP (`ABI.md`).
pub fn sampling(lobes: &Lobes, fold: bool) -> Result<Asm> {
    let lay = Layout::sampling(lobes.tree.textures.len());
    let mut g = Gen::new(&lobes.tree, lay, fold);
    g.asm.comment(
        "importance sampling: N V u v sqrt_cov ξ1 ξ2 tex_base… → … W_sum L pdf R G B W_k k (ABI.md)",
    );
    let n = lobes.terms.len();
    if n == 0 {
        g.asm.comment("no lobe: W_sum = 0");
        g.asm.push(0.0);
        g.asm.load3(lay.n);
        for _ in 0..6 {
            g.asm.push(0.0);
        }
        g.asm.op(Opcode::RayStop, None, "");
        return Ok(g.asm);
    }
    g.asm.comment("W_sum");
    for (k, term) in lobes.terms.iter().enumerate() {
        g.albedo(term)?;
        if k > 0 {
            g.asm.op(Opcode::Add, None, "");
        }
    }
    g.asm.comment("one weight per case");
    for term in &lobes.terms {
        g.albedo(term)?;
    }
    g.asm.op(Opcode::RandSel, Some(n as i64), "");
    let at_case = g.asm.depth;
    for (k, term) in lobes.terms.iter().enumerate() {
        g.asm.depth = at_case;
        g.asm.op(
            Opcode::Case,
            None,
            &format!("lobe {k}: {}", term.kind.name()),
        );
        g.direction(term)?;
        g.lobe_rgb(term, at_case, Cos::Compute(at_case))?;
        g.albedo(term)?;
        g.asm
            .op(Opcode::Push, Some(k as i64), "k (lobe index, integer)");
        g.asm.op(Opcode::EndCase, None, "");
    }
    g.asm.op(Opcode::RayStop, None, "");
    Ok(g.asm)
}
