//! The eight combinational steps of [`astc_a`](super::address::astc_a) and the payload carried
//! between them. A step may be followed by a pipeline register or not (see
//! [`Pipelining`](super::address::Pipelining)); each bundle is what a register there holds.
//! Names: `dx`/`dy` are the block dimensions with 0 read as 1, `q*`/`nz*` the long division of
//! the level-0 size by them (bit `l` of `nz*`: `(size >> l) mod d ≠ 0`).

use super::address::{AddrReq, AddrRsp};
use super::arith::{at_least_one, capped_log2, isqrt_steps, long_div, sum_tree, SqrtState};
use rendergen_hdl::{bundle, Module, Sig};

/// Deepest mip level (15 levels cover 16384 texels; `mips` is 4 bits, so `mips − 1 ≤ 14`).
const MAX_MIP: u32 = 14;

bundle! {
    /// After step 1: wrapped coordinates, clamped coverage, block dimensions, W·H.
    pub struct Step1 {
        pub tag, pub base, pub uf, pub vf, pub sc, pub width, pub height, pub dx, pub dy,
        pub coarsest, pub area,
    }
}

bundle! {
    /// After step 2: the upper square-root bits (`area_low` is what the rest consumes).
    pub struct Step2 {
        pub tag, pub base, pub uf, pub vf, pub sc, pub width, pub height, pub dx, pub dy,
        pub coarsest, pub area_low, pub root, pub root_rem,
    }
}

bundle! {
    /// After step 3: `sqrt_area = isqrt(W·H)`.
    pub struct Step3 {
        pub tag, pub base, pub uf, pub vf, pub sc, pub width, pub height, pub dx, pub dy,
        pub coarsest, pub sqrt_area,
    }
}

bundle! {
    /// After step 4: `footprint = (sc · sqrt_area) >> 16`; the size divisions.
    pub struct Step4 {
        pub tag, pub base, pub uf, pub vf, pub width, pub height, pub dx, pub dy,
        pub coarsest, pub footprint, pub qx, pub nzx, pub qy, pub nzy,
    }
}

bundle! {
    /// After step 5: the mip level, its size and its blocks per row.
    pub struct Step5 {
        pub tag, pub base, pub uf, pub vf, pub dx, pub dy, pub mip, pub xsize, pub ysize,
        pub count_x, pub qx, pub nzx, pub qy, pub nzy,
    }
}

bundle! {
    /// After step 6: the texel in the mip and the mip's first block (`base` included).
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

/// Step 1: wrap u, v (keep the fraction); clamp the coverage at 0; block dimensions; W·H.
pub fn step1(_m: &mut Module, r: &AddrReq) -> Step1 {
    let sc = r.sqrt_coverage;
    Step1 {
        tag: r.tag,
        base: r.base,
        uf: r.u.bits(15, 0),
        vf: r.v.bits(15, 0),
        sc: sc.msb().mux(0u64, sc.bits(30, 0)),
        width: r.width,
        height: r.height,
        dx: r.bw.eq(0).mux(1u64, r.bw),
        dy: r.bh.eq(0).mux(1u64, r.bh),
        coarsest: r.mips.eq(0).mux(0u64, r.mips - 1),
        area: r.width.mul_full(r.height),
    }
}

/// Step 2: square-root bits 14..8.
pub fn step2(m: &mut Module, s: &Step1) -> Step2 {
    let sqrt = isqrt_steps(s.area, 14, 8, SqrtState::start(m));
    Step2 {
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
    }
}

/// Step 3: square-root bits 7..0.
pub fn step3(_m: &mut Module, s: &Step2) -> Step3 {
    let state = SqrtState {
        root: s.root,
        rem: s.root_rem,
    };
    let sqrt = isqrt_steps(s.area_low, 7, 0, state);
    Step3 {
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
        sqrt_area: sqrt.root.bits(14, 0),
    }
}

/// Step 4: the footprint width, `(sc · sqrt_area) >> 16` (30 bits); in parallel, the long
/// divisions of W by `dx` and H by `dy`.
pub fn step4(m: &mut Module, s: &Step3) -> Step4 {
    let zero = m.lit(0, 4);
    let x = long_div(s.width, s.dx, 14, 0, zero);
    let y = long_div(s.height, s.dy, 14, 0, zero);
    Step4 {
        tag: s.tag,
        base: s.base,
        uf: s.uf,
        vf: s.vf,
        width: s.width,
        height: s.height,
        dx: s.dx,
        dy: s.dy,
        coarsest: s.coarsest,
        footprint: s.sc.mul_full(s.sqrt_area).bits(45, 16),
        qx: x.quot,
        nzx: x.nonzero,
        qy: y.quot,
        nzy: y.nonzero,
    }
}

/// `ceil(max(1, size >> l) / d)` from the long division of `size` by `d`: shift the quotient
/// and round up if the remainder at bit `l` is nonzero; an empty level is one block.
fn blocks_at(quot: Sig, nonzero: Sig, level: Sig) -> Sig {
    let q = quot.shr(level);
    q + (nonzero.shr(level).bit(0) | q.eq(0)).zext(q.width())
}

/// Step 5: `mip = min(floor(log2(footprint)), coarsest)`; mip sizes; blocks per row.
pub fn step5(m: &mut Module, s: &Step4) -> Step5 {
    let mip = capped_log2(m, s.footprint, s.coarsest, MAX_MIP);
    Step5 {
        tag: s.tag,
        base: s.base,
        uf: s.uf,
        vf: s.vf,
        dx: s.dx,
        dy: s.dy,
        mip,
        xsize: at_least_one(s.width.shr(mip)),
        ysize: at_least_one(s.height.shr(mip)),
        count_x: blocks_at(s.qx, s.nzx, mip),
        qx: s.qx,
        nzx: s.nzx,
        qy: s.qy,
        nzy: s.nzy,
    }
}

/// `ceil(max(1, size >> l) / d)` for a constant level `l`, `15 − l` bits.
fn blocks_of_level(quot: Sig, nonzero: Sig, l: u32) -> Sig {
    let q = quot.bits(14, l);
    q + (nonzero.bit(l) | q.eq(0)).zext(q.width())
}

/// Step 6: `modified_u/v = (frac · mip size) >> 16`; `base + mip_block_offset(mip)`, the
/// block counts of the levels below `mip` summed (the others multiply by 0).
pub fn step6(m: &mut Module, s: &Step5) -> Step6 {
    let mut terms: Vec<Sig> = (0..MAX_MIP)
        .map(|l| {
            let below = s.mip.gt(l as u64);
            let cx = blocks_of_level(s.qx, s.nzx, l);
            let cy = blocks_of_level(s.qy, s.nzy, l);
            (cx & below.repeat(cx.width())).mul_full(cy)
        })
        .collect();
    terms.push(s.base);
    Step6 {
        tag: s.tag,
        dx: s.dx,
        dy: s.dy,
        mip: s.mip,
        count_x: s.count_x,
        mu: s.uf.mul_full(s.xsize).bits(30, 16),
        mv: s.vf.mul_full(s.ysize).bits(30, 16),
        first_block: sum_tree(m, &terms, 32),
    }
}

/// Step 7: `bx, texel_x = divmod(modified_u, dx)`; same for y.
pub fn step7(m: &mut Module, s: &Step6) -> Step7 {
    let zero = m.lit(0, 4);
    let x = long_div(s.mu, s.dx, 14, 0, zero);
    let y = long_div(s.mv, s.dy, 14, 0, zero);
    Step7 {
        tag: s.tag,
        mip: s.mip,
        count_x: s.count_x,
        first_block: s.first_block,
        bx: x.quot,
        tx: x.rem,
        by: y.quot,
        ty: y.rem,
    }
}

/// Step 8: `block_address = first_block + bx + by · count_x` (modulo 2^32).
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
