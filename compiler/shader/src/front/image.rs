//! Storage images: the tile engine's render targets, depth and write-out control through the
//! special port (`spec`; `ABI.md` "Tile engine images", numbers in [`crate::abi`]).

use super::{FnCtx, Lower, Val};
use crate::abi;
use crate::ir::{Op, Stmt, Ty, Value};
use crate::CompileError;
use naga::{Expression, Handle, Span, StorageFormat as F, TypeInner};
use rendergen_shader_isa::Opcode;

/// Channels a storage format has, or `None` if the ABI does not map it.
pub(crate) fn format_channels(f: F) -> Option<u32> {
    Some(match f {
        F::Rgba8Unorm | F::Rgba16Float => 4,
        F::Rg16Float => 2,
        F::R32Float | F::R32Uint => 1,
        _ => return None,
    })
}

impl<'m> Lower<'m> {
    /// The binding and channels of a storage image expression.
    fn storage_image(
        &mut self,
        ctx: &mut FnCtx<'m>,
        image: Handle<Expression>,
        span: Span,
    ) -> Result<(u32, u32), CompileError> {
        let inner = ctx.info[image].ty.inner_with(&self.module.types);
        let TypeInner::Image {
            dim: naga::ImageDimension::D2,
            class: naga::ImageClass::Storage { format, .. },
            ..
        } = *inner
        else {
            return Err(self.unsupported(
                "image load or store on an image that is not a 2D storage image",
                span,
            ));
        };
        let Val::Image(binding) = self.expr(ctx, image)? else {
            return Err(self.unsupported("image through a function argument", span));
        };
        let channels = format_channels(format).ok_or_else(|| {
            self.unsupported(
                format!("storage image format {format:?} (the ABI has rgba8, rgba16f, rg16f, r32f, r32ui)"),
                span,
            )
        })?;
        Ok((binding, channels))
    }

    /// `umin(v, limit)`.
    fn clamp_u(&mut self, v: Value, limit: u32) -> Value {
        let l = self.konst(limit, Ty::U32);
        let lt = self.def(Op::Alu(Opcode::Ult, vec![v, l]), Ty::Bool);
        self.def(Op::Alu(Opcode::Sel, vec![lt, v, l]), Ty::U32)
    }

    /// The port address `x | y << 14 | sample << 28` (coordinates clamped to 0x3FFF, which
    /// no tile holds, so an out-of-range coordinate is reported, never wrapped).
    fn image_address(
        &mut self,
        ctx: &mut FnCtx<'m>,
        coordinate: Handle<Expression>,
        sample: Option<Handle<Expression>>,
    ) -> Result<Value, CompileError> {
        let c = self.expr_leaves(ctx, coordinate)?;
        let x = self.clamp_u(c[0], 0x3FFF);
        let y = self.clamp_u(c[1], 0x3FFF);
        let s = match sample {
            Some(h) => {
                let s = self.expr_leaves(ctx, h)?[0];
                self.clamp_u(s, 15)
            }
            None => self.konst(0, Ty::U32),
        };
        let k14 = self.konst(14, Ty::U32);
        let k28 = self.konst(28, Ty::U32);
        let ys = self.def(Op::Alu(Opcode::Shl, vec![y, k14]), Ty::U32);
        let ss = self.def(Op::Alu(Opcode::Shl, vec![s, k28]), Ty::U32);
        let xy = self.def(Op::Alu(Opcode::Or, vec![x, ys]), Ty::U32);
        Ok(self.def(Op::Alu(Opcode::Or, vec![xy, ss]), Ty::U32))
    }

    fn spec(&mut self, func: u32, a: Value, b: Value, ty: Ty) -> Value {
        let dst = self.prog.new_value(ty);
        self.cur.push(Stmt::Spec { dst, func, a, b });
        dst
    }

    /// `imageLoad(image, coordinate[, layer or sample])`: four port loads.
    pub(crate) fn image_load(
        &mut self,
        ctx: &mut FnCtx<'m>,
        image: Handle<Expression>,
        coordinate: Handle<Expression>,
        index: Option<Handle<Expression>>,
        ty: Ty,
        span: Span,
    ) -> Result<Vec<Value>, CompileError> {
        let (binding, _) = self.storage_image(ctx, image, span)?;
        if binding > abi::TILE_DEPTH_BINDING {
            return Err(self.unsupported(
                format!("image load of binding {binding}: render targets are bindings 0..=7, depth is {}", abi::TILE_DEPTH_BINDING),
                span,
            ));
        }
        let a = self.image_address(ctx, coordinate, index)?;
        let zero = self.konst(0, Ty::U32);
        Ok((0..4)
            .map(|ch| self.spec(abi::spec_function(abi::SPEC_LOAD, binding, ch), a, zero, ty))
            .collect())
    }

    /// `imageStore(image, coordinate[, layer], value)`: one port store per channel of the
    /// format, or a write-out control (binding [`abi::WRITEOUT_BINDING`]).
    pub(crate) fn image_store(
        &mut self,
        ctx: &mut FnCtx<'m>,
        image: Handle<Expression>,
        coordinate: Handle<Expression>,
        index: Option<Handle<Expression>>,
        value: Handle<Expression>,
        span: Span,
    ) -> Result<(), CompileError> {
        let (binding, channels) = self.storage_image(ctx, image, span)?;
        let v = self.expr_leaves(ctx, value)?;
        if binding == abi::WRITEOUT_BINDING {
            let plane = self.expr_leaves(ctx, coordinate)?[0];
            self.spec(
                abi::spec_function(abi::SPEC_WRITEOUT, 0, 0),
                plane,
                v[0],
                Ty::U32,
            );
            return Ok(());
        }
        if binding > abi::TILE_DEPTH_BINDING {
            return Err(self.unsupported(
                format!("image store to binding {binding}: render targets are bindings 0..=7, depth is {}, write-out control is {}", abi::TILE_DEPTH_BINDING, abi::WRITEOUT_BINDING),
                span,
            ));
        }
        let a = self.image_address(ctx, coordinate, index)?;
        for ch in 0..channels {
            self.spec(
                abi::spec_function(abi::SPEC_STORE, binding, ch),
                a,
                v[ch as usize],
                Ty::U32,
            );
        }
        Ok(())
    }
}
