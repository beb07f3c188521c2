//! The register file's write port (a child module `write_back` of the core): one register of
//! every lane per clock, by priority ALU result (booked at issue, never waits) > `ldg` >
//! `spec` > `ldu` > `tex` > launch; an answer is routed by its slot and lane/quad tags to the
//! destination its slot's port instruction recorded.
//!
//! * **Protocol:** the answer streams are taken when the port is theirs; a `tex` answer (four
//!   registers per lane) is taken after its fourth clock; in clock `j` it writes word `j` of
//!   the active lanes of its quad whose `skip` bit `4·lane + j` is clear (a selective or
//!   shared texture broadcast leaves the other registers as they were).
//! * **Timing:** combinational from the answers' valid and tags to the write port, `ready`,
//!   `launch_free` and `answered`; the `tex` word counter is the only state.

use super::*;
use rendergen_hdl::{
    cat, cat_lsb_first, index_select, name_lets, priority_select, select, Io, Module, Sig, Stream,
};

/// What the write port takes.
#[derive(Io)]
pub struct WriteBackIn {
    /// Global-load answers.
    pub ldg_resp: Stream<LaneData>,
    /// Special-port answers.
    pub spec_resp: Stream<LaneData>,
    /// Uniform answers.
    pub ldu_resp: Stream<WarpData>,
    /// Texture answers.
    pub tex_resp: Stream<TexResp>,
    /// An ALU result is due this clock.
    pub alu: Sig,
    /// Its warp slot.
    pub alu_slot: Sig,
    /// Its register.
    pub alu_reg: Sig,
    /// Its lanes.
    pub alu_mask: Sig,
    /// Its word per lane.
    pub alu_data: Vec<Sig>,
    /// A launch transfer writes a register this clock (only when `launch_free`).
    pub launch: Sig,
    /// Its warp slot.
    pub launch_slot: Sig,
    /// Its register.
    pub launch_reg: Sig,
    /// Its word per lane.
    pub launch_data: Vec<Sig>,
    /// Per warp slot, the destination register of its port instruction.
    pub port_d: Vec<Sig>,
    /// Per warp slot, the active mask of its port instruction.
    pub port_mask: Vec<Sig>,
}

/// What the write port gives.
#[derive(Io)]
pub struct WriteBackOut {
    /// No ALU result or answer wants the port: a launch transfer may write.
    pub launch_free: Sig,
    /// Lanes written.
    pub write_en: Sig,
    /// Warp slot written.
    pub write_slot: Sig,
    /// Register written.
    pub write_reg: Sig,
    /// Word per lane.
    pub write_data: Vec<Sig>,
    /// The slot of the answer taken (meaningful with `answered`).
    pub resp_slot: Sig,
    /// The bits of that slot's outstanding answers (lanes or quads) completed this clock.
    pub answered: Sig,
}

/// The write port (ports as [`WriteBackIn`]/[`WriteBackOut`]).
#[name_lets]
pub fn write_back(m: &mut Module, cfg: &ShaderCfg, i: WriteBackIn) -> WriteBackOut {
    let lanes = cfg.lanes();
    let (sw, rw) = (cfg.slot_bits(), cfg.reg_bits());
    let zero = m.lit(0, 1);
    let all_lanes = m.lit(u64::MAX >> (64 - lanes), lanes);
    let no_lanes = m.lit(0, lanes);
    let (ldg_v, ldg_d, ldg_r) = i.ldg_resp.split();
    let (spec_v, spec_d, spec_r) = i.spec_resp.split();
    let (ldu_v, ldu_d, ldu_r) = i.ldu_resp.split();
    let (tex_v, tex_d, tex_r) = i.tex_resp.split();
    let free = !i.alu;
    let g_ldg = free & ldg_v;
    let g_spec = free & !ldg_v & spec_v;
    let g_ldu = free & !ldg_v & !spec_v & ldu_v;
    let g_tex = free & !ldg_v & !spec_v & !ldu_v & tex_v;
    let launch_free = free & !ldg_v & !spec_v & !ldu_v & !tex_v;
    let g_regw = i.launch;
    let tex_j = m.reg("tex_word", 2).reset(0);
    tex_j.next_when(g_tex, tex_j.q() + 1);
    let tex_last = tex_j.q().eq(3);
    ldg_r.drive(g_ldg);
    spec_r.drive(g_spec);
    ldu_r.drive(g_ldu);
    tex_r.drive(g_tex & tex_last);
    let resp_slot = priority_select(
        &[
            (g_ldg, ldg_d.slot),
            (g_spec, spec_d.slot),
            (g_ldu, ldu_d.slot),
        ],
        tex_d.slot,
    );
    let padded = |v: &[Sig]| -> Vec<Sig> {
        let mut v = v.to_vec();
        while v.len() < 1 << sw {
            v.push(*v.last().expect("at least one warp slot"));
        }
        v
    };
    let resp_d = index_select(resp_slot, &padded(&i.port_d));
    let resp_mask = index_select(resp_slot, &padded(&i.port_mask));
    let lane1 = m.lit(1, lanes);
    let lane_onehot = |lane: Sig| lane1.shl(lane);
    let tex_quad_lanes = (m.lit(0xF, lanes).shl(cat(&[tex_d.quad, m.lit(0, 2)])) & resp_mask)
        .named("tex_quad_lanes");
    // Lanes of the quad whose word `tex_word` is written (`skip` clear), at the quad's lanes.
    let word_lanes = cat_lsb_first(
        &(0..4)
            .map(|k| {
                !index_select(
                    tex_j.q(),
                    &(0..4)
                        .map(|j| tex_d.skip.bit(4 * k + j))
                        .collect::<Vec<_>>(),
                )
            })
            .collect::<Vec<_>>(),
    );
    let tex_write_lanes = (tex_quad_lanes
        & word_lanes.zext(lanes).shl(cat(&[tex_d.quad, m.lit(0, 2)])))
    .named("tex_write_lanes");
    let write_en = priority_select(
        &[
            (i.alu, i.alu_mask),
            (g_ldg, lane_onehot(ldg_d.lane)),
            (g_spec, lane_onehot(spec_d.lane)),
            (g_ldu, resp_mask),
            (g_tex, tex_write_lanes),
            (g_regw, all_lanes),
        ],
        no_lanes,
    );
    let write_slot = priority_select(&[(i.alu, i.alu_slot), (g_regw, i.launch_slot)], resp_slot);
    let write_reg = priority_select(
        &[
            (i.alu, i.alu_reg),
            (g_tex, resp_d + tex_j.q().zext(rw)),
            (g_regw, i.launch_reg),
        ],
        resp_d,
    );
    let write_data: Vec<Sig> = (0..lanes as usize)
        .map(|l| {
            let texel = select(
                cat(&[m.lit((l % 4) as u64, 2), tex_j.q()]),
                &tex_d.texels,
                zero.zext(32),
            );
            priority_select(
                &[
                    (i.alu, i.alu_data[l]),
                    (g_ldg, ldg_d.data),
                    (g_spec, spec_d.data),
                    (g_ldu, ldu_d.data),
                    (g_tex, texel),
                ],
                i.launch_data[l],
            )
        })
        .collect();
    let answered = priority_select(
        &[
            (g_ldg, lane_onehot(ldg_d.lane)),
            (g_spec, lane_onehot(spec_d.lane)),
            (g_ldu, m.lit(1, lanes)),
            (g_tex & tex_last, m.lit(1, lanes).shl(tex_d.quad)),
        ],
        no_lanes,
    );
    WriteBackOut {
        launch_free,
        write_en,
        write_slot,
        write_reg,
        write_data,
        resp_slot,
        answered,
    }
}
