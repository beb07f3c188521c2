//! The export collector (`frag_exports`): a reorder buffer that turns the shader core's
//! fragment exports into the tile buffer's `pixel` writes **in launch order** (blending and
//! last-writer-wins depend on the order of the quads, which warps finishing out of order
//! would break), and retires each quad after its last write.
use super::convert::pack_rgba;
use super::frag::{FragCfg, Launched};
use super::{BlendBits, PixelReq};
use crate::shader::{DoneRec, ExportRec};
use rendergen_hdl::{
    cat, cat_lsb_first, clog2, index_select, select, Bundle, Io, Module, Sig, Stream,
};

/// What [`frag_exports`] takes.
#[derive(Io)]
pub struct ExportsIn {
    /// Quads launched (from the launcher, in order; always taken).
    pub launched: Stream<Launched>,
    /// The core's exports of fragment warps (always taken).
    pub export: Stream<ExportRec>,
    /// The core's `done` of fragment warps (always taken).
    pub done: Stream<DoneRec>,
    /// Blend state per draw state and colour render target (configuration): `blend[s][rt]`,
    /// [`FragCfg::states`] entries; a draw state beyond them blends as state 0.
    pub blend: Vec<Vec<BlendBits>>,
}

/// What [`frag_exports`] gives.
#[derive(Io)]
pub struct ExportsOut {
    /// Colour writes for the tile buffer.
    pub pixel: Stream<PixelReq>,
    /// A quad retired this clock (its writes were all taken; a sample-rate shaded quad's
    /// writes are those of all its sample launches, one entry each, `Launched::last` on the
    /// last).
    pub retired: Sig,
    /// A reorder-buffer entry is free: the launcher may start a quad.
    pub room: Sig,
    /// Sticky: a fragment warp ended with an error (its code, 0 if none).
    pub fault: Sig,
}

/// The location of a fragment shader's depth export (`gl_FragDepth`).
pub const DEPTH_EXPORT: u64 = 0x101;

/// `gl_FragDepth` (binary32 bits) as D24, the frame model's rule: NaN → 0, clamped to
/// [0, 1], `round(z · (2^24 − 1))` with ties away from zero (the f64 product is exact: 24 ×
/// 24 bits). For `z = M · 2^−s` (`M` the 24-bit significand, `s = 150 − exponent ≥ 24` below
/// 1.0) that is `(M · (2^24 − 1) + 2^(s−1)) >> s`, 0 for `s > 48`. Combinational.
pub fn f32_to_d24(m: &mut Module, z: Sig) -> Sig {
    let sign = z.bit(31);
    let exp = z.bits(30, 23);
    let frac = z.bits(22, 0);
    let nan = exp.eq(255) & frac.any();
    let normal = exp.ne(0);
    let sig = cat(&[normal, frac]); // 24 bits
                                    // M · (2^24 − 1) = M · 2^24 − M, below 2^48.
    let product = cat(&[sig, m.lit(0, 24)]) - sig.zext(48);
    // Shift s = 150 − exp (exp ≤ 126 below 1.0: s ≥ 24); subnormals (s = 149) give 0.
    let s = m.lit(150, 9) - exp.zext(9);
    let shift = s.bits(5, 0); // valid when s ≤ 48
    let half = m.lit(1, 49).shl(shift.zext(7) - 1);
    let rounded = (product.zext(49) + half).shr(shift.zext(7));
    let max = (1u64 << 24) - 1;
    let below_one = exp.lt(127);
    let small = s.gt(48);
    let value = small.mux(m.lit(0, 24), rounded.bits(23, 0));
    let d24 = below_one.mux(value, m.lit(max, 24));
    (nan | sign | !normal).mux(m.lit(0, 24), d24)
}

/// The reorder buffer (module docs): one entry per warp slot of the core.
///
/// * **Protocol:** `launched`, `export` and `done` are always ready; an entry is allocated per
///   launched quad and found for an export or `done` through a slot → entry table written at
///   launch (a slot's old entry stays until emitted, so a slot can be reused at once). The
///   oldest entry, once its warp is done, is emitted: for a late-depth quad
///   ([`Launched::late`]) first a late depth test (a `pixel` write to the depth plane: each
///   pixel's `gl_FragDepth` export as D24 by [`f32_to_d24`], or its sample 0's rasterised
///   depth when it exported none; the quad's depth op and write flag), then one `pixel` write
///   per render target any lane exported to (marked `late` for a late-depth quad, so the tile
///   buffer writes only the lanes that passed; lanes of pixels that exported nothing are
///   left out — a discard; a pixel with no export to that target writes 0), in target order,
///   each with the blend state of (the quad's draw state, the target) from `blend`, then
///   `retired`.
/// * **Timing:** a write per clock while `pixel` is ready; a target nobody exported to costs a
///   clock, the late depth test one more (other quads skip it without a clock); `retired` is
///   registered-free (the cycle of the last write, or of the skip).
/// * **Cost:** per entry and target `4 × (format bits + 1)` flip-flops, per entry the quad's
///   position, coverage, draw state, depth op and late flag, 4 × 24 bits of depth (sample 0's
///   at launch, replaced by an export), a done bit; one packer per target
///   (`convert::pack_rgba`), one [`f32_to_d24`]; the blend table is configuration inputs
///   (`states × rts × 23` bits) and a `states × rts`-way multiplexer of 23 bits.
pub fn frag_exports(m: &mut Module, cfg: &FragCfg, i: ExportsIn) -> ExportsOut {
    let ExportsIn {
        launched,
        export,
        done,
        blend,
    } = i;
    let entries = cfg.core.warps as usize;
    let ew = clog2(entries as u64).max(1);
    let rts = cfg.tile.formats.len();
    let s = cfg.tile.samples;
    let lanes = cfg.tile.lanes() as u32;
    let head = m.reg("head", ew).reset(0);
    let tail = m.reg("tail", ew).reset(0);
    let count = m.reg("count", ew + 1).reset(0);
    // The write being emitted: `rts` is the late depth test (skipped for other quads), then
    // the colour targets 0..rts.
    let rt = m.reg("rt", clog2(rts as u64 + 1)).reset(rts as u64);
    let fault = m.reg("fault", 4).reset(0);
    let wrap = |p: Sig| p.eq((entries - 1) as u64).mux(0, p + 1);

    // Launch: allocate the tail entry.
    let (lv, l, lr) = launched.split();
    lr.drive(m.lit(1, 1));
    let slots = cfg.core.warps as usize;
    let entry_of: Vec<Sig> = (0..slots)
        .map(|k| {
            let r = m.reg(&format!("entry_of_{k}"), ew).reset(0);
            r.next_when(lv & l.slot.eq(k as u64), tail.q());
            r.q()
        })
        .collect();
    let (ev, e, er) = export.split();
    er.drive(m.lit(1, 1));
    let (dv, d, dr) = done.split();
    dr.drive(m.lit(1, 1));
    let export_entry = index_select(e.slot, &entry_of);
    let done_entry = index_select(d.slot, &entry_of);
    fault.next_when(dv & d.code.ne(0) & fault.q().eq(0), d.code);

    // The export's words, missing ones as (0, 0, 0, 1.0), packed for each target.
    let one = m.lit(0x3F80_0000, 32);
    let words: [Sig; 4] = std::array::from_fn(|j| {
        let default = if j == 3 { one } else { m.lit(0, 32) };
        e.count.gt(j as u64).mux(e.data[j], default)
    });
    let packed: Vec<Sig> = cfg
        .tile
        .formats
        .iter()
        .map(|&f| pack_rgba(m, f, &words).zext(cfg.tile.data_bits()))
        .collect();

    // gl_FragDepth as D24 (one converter: one export per clock).
    let to_depth = e.loc.eq(DEPTH_EXPORT);
    let z24 = f32_to_d24(m, words[0]);

    let emit_now = m.wire("emit_pop", 1);
    let mut info = Vec::new();
    let mut done_bits = Vec::new();
    let mut colours = Vec::new(); // [entry][rt][lane]
    let mut present = Vec::new(); // [entry][rt] lanes
    let mut exported = Vec::new(); // [entry] lanes
    let mut depths = Vec::new(); // [entry][pixel] D24
    for k in 0..entries {
        let alloc = lv & tail.q().eq(k as u64);
        let free = emit_now.sig() & head.q().eq(k as u64);
        info.push(m.reg_bundle(&format!("quad_{k}"), &l, Some(alloc)));
        let here = ev & export_entry.eq(k as u64);
        let dn = m.reg(&format!("done_{k}"), 1).reset(0);
        dn.next(free.mux(m.lit(0, 1), dn.q() | (dv & done_entry.eq(k as u64))));
        done_bits.push(dn.q());
        let lane_hit = |lane: u32| here & e.lane.eq(lane as u64);
        let any = m.reg(&format!("exported_{k}"), 4).reset(0);
        let hits = cat_lsb_first(&(0..4).map(lane_hit).collect::<Vec<_>>());
        any.next(free.mux(m.lit(0, 4), any.q() | hits));
        exported.push(any.q());
        // Each pixel's depth for a late test: sample 0's at launch, the export's if any.
        let z: Vec<Sig> = (0..4)
            .map(|lane| {
                let r = m.reg(&format!("depth_{k}_{lane}"), super::DEPTH_BITS);
                let exp = lane_hit(lane) & to_depth;
                r.next(alloc.mux(l.depth[lane as usize], exp.mux(z24, r.q())));
                r.q()
            })
            .collect();
        depths.push(z);
        let mut per_rt = Vec::new();
        let mut per_rt_present = Vec::new();
        for (t, p) in packed.iter().enumerate() {
            let to_rt = e.loc.eq(t as u64);
            let lanes_c: Vec<Sig> = (0..4)
                .map(|lane| {
                    let r = m.reg(&format!("colour_{k}_{t}_{lane}"), p.width());
                    r.next_when(lane_hit(lane) & to_rt, *p);
                    r.q()
                })
                .collect();
            let pr = m.reg(&format!("present_{k}_{t}"), 4).reset(0);
            pr.next(free.mux(m.lit(0, 4), pr.q() | (hits & to_rt.repeat(4))));
            per_rt.push(lanes_c);
            per_rt_present.push(pr.q());
        }
        colours.push(per_rt);
        present.push(per_rt_present);
    }

    // Emission of the head entry.
    let h = head.q();
    let head_info = index_select_bundle(h, &info);
    let head_done = index_select(h, &done_bits) & count.q().ne(0);
    let head_exported = index_select(h, &exported);
    let rt_present: Vec<Sig> = (0..rts)
        .map(|t| index_select(h, &present.iter().map(|p| p[t]).collect::<Vec<_>>()))
        .collect();
    let at_depth = rt.q().eq(rts as u64);
    let cur = (at_depth & !head_info.late).mux(m.lit(0, rt.q().width()), rt.q());
    let cur_is_depth = cur.eq(rts as u64).named("late_test");
    let cur_present = pick(cur, &rt_present);
    let colour: [Sig; 4] = std::array::from_fn(|lane| {
        let per_rt: Vec<Sig> = (0..rts)
            .map(|t| index_select(h, &colours.iter().map(|c| c[t][lane]).collect::<Vec<_>>()))
            .collect();
        let c = pick(cur, &per_rt);
        let z = index_select(h, &depths.iter().map(|d| d[lane]).collect::<Vec<_>>());
        let c = cur_present.bit(lane as u32).mux(c, m.lit(0, c.width()));
        cur_is_depth.mux(z.zext(c.width()), c)
    });
    // Lanes of pixels that exported anything.
    let lane_mask = cat_lsb_first(
        &(0..lanes)
            .map(|l| head_exported.bit(l / s))
            .collect::<Vec<_>>(),
    );
    // The blend state of (draw state, target): a state beyond the table blends as state 0.
    let per_state: Vec<BlendBits> = blend.iter().map(|b| index_select_bundle(cur, b)).collect();
    let blend_now = match per_state.len() {
        1 => per_state[0].clone(),
        _ => {
            let packed: Vec<Sig> = per_state.iter().map(rendergen_hdl::pack).collect();
            let sel = select(head_info.state, &packed, packed[0]);
            rendergen_hdl::unpack(&per_state[0].shape(), sel)
        }
    };
    let req = PixelReq {
        rt: cur.resize(cfg.tile.plane_bits()),
        addr: cat(&[head_info.qy, head_info.qx]),
        mask: head_info.coverage & lane_mask,
        colour,
        blend: blend_now,
        zop: head_info.depth_op,
        zwrite: head_info.depth_write,
        late: head_info.late,
    };
    let wanted = cur_is_depth | cur_present.any();
    let (pixel, pixel_ready) = Stream::offer(m, "pixel", head_done & wanted, req);
    let step = head_done & (pixel_ready | !wanted);
    let last_rt = cur.eq((rts - 1) as u64);
    let pop = step & last_rt;
    emit_now.drive(pop);
    let after = cur_is_depth.mux(m.lit(0, rt.q().width()), cur + 1);
    let next_rt = last_rt.mux(m.lit(rts as u64, rt.q().width()), after);
    rt.next(step.mux(next_rt, rt.q()));
    head.next_when(pop, wrap(h));
    tail.next_when(lv, wrap(tail.q()));
    count.next(count.q() + lv.zext(ew + 1) - pop.zext(ew + 1));
    let room = count.q().lt(entries as u64);
    ExportsOut {
        pixel,
        // A sample-rate shaded quad retires with its last sample's entry.
        retired: pop & head_info.last,
        room,
        fault: fault.q(),
    }
}

/// `cases[index]` of a bundle, field by field.
fn index_select_bundle<T: Bundle>(index: Sig, cases: &[T]) -> T {
    let packed: Vec<Sig> = cases.iter().map(rendergen_hdl::pack).collect();
    rendergen_hdl::unpack(&cases[0].shape(), pick(index, &packed))
}

/// `cases[index]`; one case is that case itself (the Verilog emitter declares a one-case
/// `index_select` as a `reg` it then drives with `assign`, which iverilog rejects — one
/// render target makes these selects one-case).
fn pick(index: Sig, cases: &[Sig]) -> Sig {
    match cases {
        [only] => *only,
        _ => index_select(index, cases),
    }
}
