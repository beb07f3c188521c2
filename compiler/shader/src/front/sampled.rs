//! Sampled textures on the texture unit (`ABI.md` "Sampled textures"): `texture`,
//! `textureLod`, `texelFetch`, `textureGather` (WGSL `textureSample`, `textureSampleLevel`,
//! `textureLoad`, `textureGather`) become one `tex` with a sampler word ([`crate::abi`]'s
//! `tex_word_*`) and the conversion of the unit's 16-bit UNORM answers to binary32,
//! `fmul(u2f(c), f32(1/65535))` (emitted as `ffma(u2f(c), f32(1/65535), -0.0)`).

use super::{FnCtx, Lower, Val};
use crate::abi;
use crate::ir::{Op, Stmt, Ty, Value};
use crate::CompileError;
use naga::{Expression, Handle, SampleLevel, Span, TypeInner};
use rendergen_shader_isa::Opcode;

impl<'m> Lower<'m> {
    /// The binding of a sampled 2D texture expression; a program samples one texture (the
    /// texture unit has one descriptor), so a second binding is a compile error.
    fn sampled_binding(
        &mut self,
        ctx: &mut FnCtx<'m>,
        image: Handle<Expression>,
        span: Span,
    ) -> Result<u32, CompileError> {
        if !matches!(
            self.inner(ctx, image),
            TypeInner::Image {
                dim: naga::ImageDimension::D2,
                arrayed: false,
                class: naga::ImageClass::Sampled { .. },
            }
        ) {
            return Err(self.unsupported("texture that is not a sampled 2D texture", span));
        }
        let Val::Image(binding) = self.expr(ctx, image)? else {
            return Err(self.unsupported("texture through a function argument", span));
        };
        match self.tex_binding {
            Some(b) if b != binding => Err(self.unsupported(
                format!(
                    "sampling a second texture (binding {binding}; the program samples binding {b}): \
                     the texture unit has one descriptor, so a program samples one texture"
                ),
                span,
            )),
            _ => {
                self.tex_binding = Some(binding);
                Ok(binding)
            }
        }
    }

    /// A constant operand's word, or a compile error naming `what`.
    fn tex_const(
        &mut self,
        ctx: &mut FnCtx<'m>,
        e: Handle<Expression>,
        what: &str,
        span: Span,
    ) -> Result<u32, CompileError> {
        let v = self.expr_leaves(ctx, e)?;
        match v.as_slice() {
            [v] => self.const_of(*v),
            _ => None,
        }
        .ok_or_else(|| {
            self.unsupported(
                format!("{what} that is not a constant (it is a field of the `tex` sampler word)"),
                span,
            )
        })
    }

    /// A constant LOD or bias as signed Q8.8.
    fn tex_lod_q(
        &mut self,
        ctx: &mut FnCtx<'m>,
        e: Handle<Expression>,
        what: &str,
        span: Span,
    ) -> Result<i32, CompileError> {
        let w = self.tex_const(ctx, e, what, span)?;
        abi::lod_q8_8(f32::from_bits(w)).ok_or_else(|| {
            self.unsupported(
                format!(
                    "{what} {} outside -128..128 (signed Q8.8)",
                    f32::from_bits(w)
                ),
                span,
            )
        })
    }

    /// One `tex` with sampler word `word` at `coord`, its four UNORM16 words as binary32.
    fn tex(&mut self, word: u32, coord: [Value; 2]) -> Vec<Value> {
        let dst = [0; 4].map(|_| self.prog.new_value(Ty::U32));
        self.cur.push(Stmt::Tex {
            dst,
            sampler: word,
            coord,
        });
        // `ffma(f, k, -0.0)` is `fmul(f, k)` bit for bit (a non-zero product is rounded once;
        // +0 + -0 = +0), and unlike an `fmul` it is never contracted into a following add,
        // so the conversion is the same whatever the shader does with the result.
        let k = self.fconst(abi::UNORM16_SCALE);
        let z = self.fconst(-0.0);
        dst.iter()
            .map(|&d| {
                let f = self.def(Op::Alu(Opcode::U2f, vec![d]), Ty::F32);
                self.alu(Opcode::Ffma, &[f, k, z], Ty::F32)
            })
            .collect()
    }

    /// `texture`, `textureLod`, `textureGather` (and a bias): see `ABI.md`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn image_sample(
        &mut self,
        ctx: &mut FnCtx<'m>,
        image: Handle<Expression>,
        coordinate: Handle<Expression>,
        level: &SampleLevel,
        gather: Option<naga::SwizzleComponent>,
        unsupported: Option<&str>,
        span: Span,
    ) -> Result<Vec<Value>, CompileError> {
        if let Some(what) = unsupported {
            return Err(self.unsupported(what.to_string(), span));
        }
        self.sampled_binding(ctx, image, span)?;
        let word = match (gather, level) {
            (Some(c), SampleLevel::Zero | SampleLevel::Auto) => abi::tex_word_gather(c as u32),
            (Some(_), _) => {
                return Err(self.unsupported("textureGather with a level", span));
            }
            (None, SampleLevel::Auto) => abi::tex_word_sample(0),
            (None, SampleLevel::Zero) => abi::tex_word_lod(0),
            (None, SampleLevel::Exact(e)) => {
                let q = self.tex_lod_q(ctx, *e, "texture LOD", span)?;
                abi::tex_word_lod(q)
            }
            (None, SampleLevel::Bias(e)) => {
                let q = self.tex_lod_q(ctx, *e, "texture LOD bias", span)?;
                abi::tex_word_sample(q)
            }
            (None, SampleLevel::Gradient { .. }) => {
                return Err(self.unsupported(
                    "texture sampling with gradients (compute the LOD and use textureLod)",
                    span,
                ));
            }
        };
        let c = self.expr_leaves(ctx, coordinate)?;
        Ok(self.tex(word, [c[0], c[1]]))
    }

    /// `texelFetch(t, p, level)` / `textureLoad(t, p, level)`: the texel at integer `p` of
    /// the constant `level`.
    pub(crate) fn texel_fetch(
        &mut self,
        ctx: &mut FnCtx<'m>,
        image: Handle<Expression>,
        coordinate: Handle<Expression>,
        level: Option<Handle<Expression>>,
        span: Span,
    ) -> Result<Vec<Value>, CompileError> {
        self.sampled_binding(ctx, image, span)?;
        let level = match level {
            None => 0,
            Some(e) => {
                let l = self.tex_const(ctx, e, "texelFetch level", span)? as i32;
                if !(0..=15).contains(&l) {
                    return Err(
                        self.unsupported(format!("texelFetch level {l} outside 0..=15"), span)
                    );
                }
                l as u32
            }
        };
        let c = self.expr_leaves(ctx, coordinate)?;
        Ok(self.tex(abi::tex_word_fetch(level), [c[0], c[1]]))
    }

    /// Whether `image` is a sampled (not storage) image.
    pub(crate) fn is_sampled(&self, ctx: &FnCtx<'m>, image: Handle<Expression>) -> bool {
        matches!(
            self.inner(ctx, image),
            TypeInner::Image {
                class: naga::ImageClass::Sampled { .. },
                ..
            }
        )
    }
}
