//! The eight combinational steps of [`astc_a`](super::astc_a) and the payload carried
//! between them. A step may be followed by a pipeline register or not (see
//! [`Pipelining`](super::Pipelining)); each bundle is what a register there holds.
//! Names: `dx`/`dy` are the block dimensions with 0 read as 1; `*_rem`, `q*`, `nz*` the long
//! division of the level-0 size by them, spread over steps 1–4 (bit `l` of `nz*`:
//! `(size >> l) mod d ≠ 0`); `root`, `root_rem` the square root of `area` in progress.

use super::arith::{at_least_one, capped_log2, div_by_reciprocal, isqrt_steps, long_div};
use super::arith::{sum_tree, LongDiv, SqrtState};
use super::{AddrReq, AddrRsp};
use rendergen_hdl::{bundle, cat_lsb_first, name_lets, Module, Sig};

/// Deepest mip level (15 levels cover 16384 texels; `mips` is 4 bits, so `mips − 1 ≤ 14`).
const MAX_MIP: u32 = 14;

bundle! {
    /// After step 1: wrapped coordinates, clamped coverage, block dimensions, W·H.
    pub struct Step1 {
        pub tag, pub base, pub uf, pub vf, pub sc, pub width, pub height, pub dx, pub dy,
        pub coarsest, pub area, pub x_rem, pub qx, pub nzx, pub y_rem, pub qy, pub nzy,
    }
}

bundle! {
    /// After steps 2 and 3: the square root in progress (`area_low`: the bits still to consume).
    pub struct Rooting {
        pub tag, pub base, pub uf, pub vf, pub sc, pub width, pub height, pub dx, pub dy,
        pub coarsest, pub area_low, pub root, pub root_rem,
        pub x_rem, pub qx, pub nzx, pub y_rem, pub qy, pub nzy,
    }
}

bundle! {
    /// After step 4: `sqrt_area = isqrt(W·H)`; the size divisions done.
    pub struct Step4 {
        pub tag, pub base, pub uf, pub vf, pub sc, pub width, pub height, pub dx, pub dy,
        pub coarsest, pub sqrt_area, pub qx, pub nzx, pub qy, pub nzy,
    }
}

bundle! {
    /// After step 5: the mip level; the blocks of each level `l` in `0..14`, packed least
    /// significant level first, `30 − 2l` bits each.
    pub struct Step5 {
        pub tag, pub base, pub uf, pub vf, pub width, pub height, pub dx, pub dy, pub mip,
        pub qx, pub nzx, pub level_blocks,
    }
}

bundle! {
    /// After step 6: the texel in the mip, the mip's first block (`base` included), its blocks
    /// per row.
    pub struct Step6 {
        pub tag, pub dx, pub dy, pub mip, pub count_x, pub mu, pub mv, pub first_block,
    }
}

bundle! {
    /// After step 7: block and texel coordinates.
    pub struct Step7 {
        pub tag, pub mip, pub count_x, pub first_block, pub bx, pub tx, pub by, pub ty,
    }
}

/// Step 1: wrap u, v (keep the fraction); clamp the coverage at 0; block dimensions; W·H; size
/// divisions for bits 14..11.
#[name_lets]
pub fn step1(m: &mut Module, r: &AddrReq) -> Step1 {
    let sc = r.sqrt_coverage;
    let dx = r.bw.eq(0).mux(1u64, r.bw);
    let dy = r.bh.eq(0).mux(1u64, r.bh);
    let zero = m.lit(0, 4);
    let x = long_div(r.width, dx, 14, 11, zero);
    let y = long_div(r.height, dy, 14, 11, zero);
    Step1 {
        tag: r.tag,
        base: r.base,
        uf: r.u.bits(15, 0),
        vf: r.v.bits(15, 0),
        sc: sc.msb().mux(0u64, sc.bits(30, 0)),
        width: r.width,
        height: r.height,
        dx,
        dy,
        coarsest: r.mips.eq(0).mux(0u64, r.mips - 1),
        area: r.width.mul_full(r.height),
        x_rem: x.rem,
        qx: x.quot,
        nzx: x.nonzero,
        y_rem: y.rem,
        qy: y.quot,
        nzy: y.nonzero,
    }
}

/// Step 2: square-root bits 14..8; size divisions for bits 10..7.
#[name_lets]
pub fn step2(m: &mut Module, s: &Step1) -> Rooting {
    let sqrt = isqrt_steps(s.area, 14, 8, SqrtState::start(m));
    let x = LongDiv::at(s.x_rem, s.qx, s.nzx).resume(s.width, s.dx, 10, 7);
    let y = LongDiv::at(s.y_rem, s.qy, s.nzy).resume(s.height, s.dy, 10, 7);
    Rooting {
        tag: s.tag,
        base: s.base,
        uf: s.uf,
        vf: s.vf,
        sc: s.sc,
        width: s.width,
        height: s.height,
        dx: s.dx,
        dy: s.dy,
        coarsest: s.coarsest,
        area_low: s.area.bits(15, 0),
        root: sqrt.root,
        root_rem: sqrt.rem,
        x_rem: x.rem,
        qx: x.quot,
        nzx: x.nonzero,
        y_rem: y.rem,
        qy: y.quot,
        nzy: y.nonzero,
    }
}

/// The square root continued for bits `root.0..=root.1` and both size divisions for bits
/// `div.0..=div.1`, from where `s` left them.
#[name_lets]
fn continue_rooting(s: &Rooting, root: (u32, u32), div: (u32, u32)) -> Rooting {
    let state = SqrtState {
        root: s.root,
        rem: s.root_rem,
    };
    let sqrt = isqrt_steps(s.area_low, root.0, root.1, state);
    let x = LongDiv::at(s.x_rem, s.qx, s.nzx).resume(s.width, s.dx, div.0, div.1);
    let y = LongDiv::at(s.y_rem, s.qy, s.nzy).resume(s.height, s.dy, div.0, div.1);
    Rooting {
        root: sqrt.root,
        root_rem: sqrt.rem,
        x_rem: x.rem,
        qx: x.quot,
        nzx: x.nonzero,
        y_rem: y.rem,
        qy: y.quot,
        nzy: y.nonzero,
        ..*s
    }
}

/// Step 3: square-root bits 7..4; size divisions for bits 6..3.
pub fn step3(_m: &mut Module, s: &Rooting) -> Rooting {
    Rooting {
        area_low: s.area_low.bits(7, 0),
        ..continue_rooting(s, (7, 4), (6, 3))
    }
}

/// Step 4: square-root bits 3..0; size divisions for bits 2..0.
#[name_lets]
pub fn step4(_m: &mut Module, s: &Rooting) -> Step4 {
    let r = continue_rooting(s, (3, 0), (2, 0));
    Step4 {
        tag: r.tag,
        base: r.base,
        uf: r.uf,
        vf: r.vf,
        sc: r.sc,
        width: r.width,
        height: r.height,
        dx: r.dx,
        dy: r.dy,
        coarsest: r.coarsest,
        sqrt_area: r.root.bits(14, 0),
        qx: r.qx,
        nzx: r.nzx,
        qy: r.qy,
        nzy: r.nzy,
    }
}

/// `ceil(max(1, size >> l) / d)` from the long division of `size` by `d` for a constant level
/// `l` (`15 − l` bits): the quotient's upper bits, plus 1 if the remainder at bit `l` is nonzero
/// or the level is empty.
#[name_lets]
fn blocks_of_level(quot: Sig, nonzero: Sig, l: u32) -> Sig {
    let q = quot.bits(14, l);
    q + (nonzero.bit(l) | q.eq(0)).zext(q.width())
}

/// [`blocks_of_level`] for a level given as a signal.
#[name_lets]
fn blocks_at(quot: Sig, nonzero: Sig, level: Sig) -> Sig {
    let q = quot.shr(level);
    q + (nonzero.shr(level).bit(0) | q.eq(0)).zext(q.width())
}

/// Width of level `l`'s block count in `level_blocks`.
fn level_width(l: u32) -> u32 {
    30 - 2 * l
}

/// Step 5: `footprint = (sc · sqrt_area) >> 16` and `mip = min(floor(log2(footprint)),
/// coarsest)`; in parallel, the block count of every level that can lie below the mip.
#[name_lets]
pub fn step5(_m: &mut Module, s: &Step4) -> Step5 {
    let footprint = s.sc.mul_full(s.sqrt_area).bits(45, 16);
    let blocks: Vec<Sig> = (0..MAX_MIP)
        .map(|l| blocks_of_level(s.qx, s.nzx, l).mul_full(blocks_of_level(s.qy, s.nzy, l)))
        .collect();
    Step5 {
        tag: s.tag,
        base: s.base,
        uf: s.uf,
        vf: s.vf,
        width: s.width,
        height: s.height,
        dx: s.dx,
        dy: s.dy,
        mip: capped_log2(footprint, s.coarsest, MAX_MIP),
        qx: s.qx,
        nzx: s.nzx,
        level_blocks: cat_lsb_first(&blocks),
    }
}

/// Step 6: mip sizes; `modified_u/v = (frac · mip size) >> 16`; blocks per row;
/// `base + mip_block_offset(mip)`, the block counts of the levels below `mip` summed.
#[name_lets]
pub fn step6(m: &mut Module, s: &Step5) -> Step6 {
    let mut lo = 0;
    let mut terms: Vec<Sig> = (0..MAX_MIP)
        .map(|l| {
            let blocks = s.level_blocks.slice(lo, level_width(l));
            lo += level_width(l);
            blocks & s.mip.gt(l as u64).repeat(blocks.width())
        })
        .collect();
    terms.push(s.base);
    let xsize = at_least_one(s.width.shr(s.mip));
    let ysize = at_least_one(s.height.shr(s.mip));
    Step6 {
        tag: s.tag,
        dx: s.dx,
        dy: s.dy,
        mip: s.mip,
        count_x: blocks_at(s.qx, s.nzx, s.mip),
        mu: s.uf.mul_full(xsize).bits(30, 16),
        mv: s.vf.mul_full(ysize).bits(30, 16),
        first_block: sum_tree(m, &terms, 32),
    }
}

/// Step 7: `bx, texel_x = divmod(modified_u, dx)`; same for y.
#[name_lets]
pub fn step7(_m: &mut Module, s: &Step6) -> Step7 {
    let (bx, tx) = div_by_reciprocal(s.mu, s.dx);
    let (by, ty) = div_by_reciprocal(s.mv, s.dy);
    Step7 {
        tag: s.tag,
        mip: s.mip,
        count_x: s.count_x,
        first_block: s.first_block,
        bx,
        tx,
        by,
        ty,
    }
}

/// Step 8: `block_address = first_block + bx + by · count_x` (modulo 2^32).
#[name_lets]
pub fn step8(_m: &mut Module, s: &Step7) -> AddrRsp {
    let row = s.by.mul_full(s.count_x).zext(32);
    AddrRsp {
        block_address: s.first_block + s.bx.zext(32) + row,
        texel_x: s.tx,
        texel_y: s.ty,
        mip: s.mip,
        tag: s.tag,
    }
}
