//! The core: warp slots, fetch, issue, register file, lanes, control, ports, write-back.

use super::decode::{a_src, decode, port, touch_width, unit_stages, Decoded};
use super::exec::{lane_exec, LaneIn};
use super::ports::{port_seq, PortSeqIn};
use super::regfile::{reg_file, RegFileIn};
use super::slot::{warp_slot, Fetched, SlotIn, SlotOut, SlotOutShape};
use super::writeback::{write_back, WriteBackIn};
use super::*;
use rendergen_hdl::{
    index_select, lowest_index, lowest_set, name_lets, onehot_mux, or_all, pack, priority_select,
    round_robin_pick, select, unpack, Bundle, Design, ElabErrors, Module, Reg, Sig, Stream,
};
use rendergen_shader_isa::Opcode;

/// Everything the register-read stage carries (the instruction issued last cycle).
#[derive(Bundle, Clone, Copy, Debug, PartialEq, Eq)]
struct Ex<T = Sig> {
    slot: T,
    op: T,
    d: T,
    b: T,
    imm: T,
    pc: T,
    is_alu: T,
    is_ctl: T,
    is_port: T,
    unit: T,
    uop: T,
    a_src: T,
    b_imm: T,
    sel: T,
    port: T,
    mask: T,
    helpers: T,
    warp_id: T,
}

/// One write-back booking: a result due in some cycle.
#[derive(Bundle, Clone, Copy, Debug, PartialEq, Eq)]
struct Booking<T = Sig> {
    slot: T,
    d: T,
    mask: T,
    unit: T,
}

/// The core's input streams.
struct Inputs {
    prog: Stream<ProgWrite>,
    launch: Stream<LaunchRec>,
    ldg_resp: Stream<LaneData>,
    spec_resp: Stream<LaneData>,
    ldu_resp: Stream<WarpData>,
    tex_resp: Stream<TexResp>,
}

/// Builds the shader core inside `m` (ports as in the [module documentation](super)); returns
/// false after recording an elaboration error for a bad parameter.
///
/// * **Protocol:** stream rules on every port; a warp's `ldg`/`stg`/`spec`/`export` requests
///   leave in lane order, `tex` in quad order; answers may come back in any order (routed by
///   their slot and lane/quad tags) and are written as soon as the register file's write port
///   is free; `done` of a warp follows all its exports.
/// * **Timing:** one warp instruction issued per clock at most. Clocks from an instruction's
///   issue to the issue of one that reads its result (measured, `rendergen_gen::shader::
///   latencies`): int 4, fp-misc 5, recip 6, fma and derivatives 7, transc 9 (the unit's stage
///   registers + 2: register read, write-back); `ldu` answered after one clock 5; a control
///   instruction 6 to the next issue of its warp (resolve, refetch). A word arriving from the
///   instruction memory may issue in the same clock (bypassing the warp's buffer) while the
///   warp's next word is fetched, so one warp alone can issue every clock.
/// * **Errors:** elaboration rejects `quads` outside [`QUADS`], `warps` outside [`WARPS`],
///   `regs` outside [`REGS`], `imem_depth` not a power of two in [`IMEM_DEPTH`], `watchdog`
///   outside [`WATCHDOG`].
#[name_lets]
pub fn shader_core(m: &mut Module, cfg: &ShaderCfg) -> bool {
    let ok = m.check_param("quads", cfg.quads as u64, QUADS)
        & m.check_param("warps", cfg.warps as u64, WARPS)
        & m.check_param("regs", cfg.regs as u64, REGS)
        & m.check_param_pow2("imem_depth", cfg.imem_depth as u64, IMEM_DEPTH)
        & m.check_param("watchdog", cfg.watchdog, WATCHDOG);
    if !ok {
        return false;
    }
    let lanes = cfg.lanes();
    let (sw, lw, qw, rw, aw) = (
        cfg.slot_bits(),
        cfg.lane_bits(),
        cfg.quad_bits(),
        cfg.reg_bits(),
        cfg.imem_bits(),
    );
    let warps = cfg.warps as usize;
    let tw = touch_width(cfg.regs);
    let inputs = Inputs {
        prog: m.input_stream("prog", &ProgWrite { addr: aw, word: 64 }),
        launch: m.input_stream(
            "launch",
            &LaunchRec {
                write: 1,
                reg: rw,
                data: vec![32; lanes as usize],
                last: 1,
                pc: 32,
                helpers: lanes,
                warp_id: 32,
            },
        ),
        ldg_resp: m.input_stream(
            "ldg_resp",
            &LaneData {
                slot: sw,
                lane: lw,
                data: 32,
            },
        ),
        spec_resp: m.input_stream(
            "spec_resp",
            &LaneData {
                slot: sw,
                lane: lw,
                data: 32,
            },
        ),
        ldu_resp: m.input_stream("ldu_resp", &WarpData { slot: sw, data: 32 }),
        tex_resp: m.input_stream(
            "tex_resp",
            &TexResp {
                slot: sw,
                quad: qw,
                texels: vec![32; 16],
                skip: 16,
            },
        ),
    };
    let one = m.lit(1, 1);
    let zero = m.lit(0, 1);
    let no_lanes = m.lit(0, lanes);

    // ---- Warp slot registers (declared here, driven at the end) ----
    let dec_shape = Decoded {
        known: 1,
        fields_ok: 1,
        bad_count: 1,
        reg_err: 1,
        is_ctl: 1,
        is_port: 1,
        is_alu: 1,
        unit: 3,
        uop: 5,
        a_src: 3,
        b_imm: 1,
        sel: 1,
        port: 3,
        touch: tw,
    };
    let (slots, slot_plugs): (Vec<SlotOut>, Vec<_>) = (0..warps)
        .map(|s| {
            m.io_loop::<SlotOut>(
                &format!("warp{s}"),
                &SlotOutShape {
                    running: 1,
                    can_issue: 1,
                    fetch_ok: 1,
                    finish_ok: 1,
                    word: 64,
                    pc: 32,
                    dec: dec_shape,
                    mask: lanes,
                    helpers: lanes,
                    warp_id: 32,
                    fpc: 32,
                    code: 4,
                    err_pc: 32,
                    executed: 32,
                    port_d: rw,
                    port_mask: lanes,
                },
            )
        })
        .unzip();

    // ---- Launch ----
    let (launch_valid, launch, launch_ready) = inputs.launch.split();
    let filling = m.reg("filling", 1).reset(0);
    let filling_slot = m.reg("filling_slot", sw).reset(0);
    let free_slots = cat_lsb(&slots.iter().map(|s| !s.running).collect::<Vec<_>>());
    let launch_target = filling
        .q()
        .mux(filling_slot.q(), lowest_index(free_slots).resize(sw))
        .named("launch_target");
    let launch_slot_ok = filling.q() | free_slots.any();
    m.output("launch_slot", launch_target);

    // ---- Program memory ----
    let any_running = or_all(slots.iter().map(|s| s.running));
    let (prog_valid, prog, prog_ready) = inputs.prog.split();
    let idle = !any_running & !filling.q();
    prog_ready.drive(idle);
    let prog_fire = prog_valid & idle;
    let imem = m.memory("imem", 64, cfg.imem_depth);
    imem.write(prog_fire, prog.addr, prog.word);
    let prog_len = m.reg("prog_len", 32).reset(0);
    prog_len.next_when(prog_fire, prog.addr.zext(32) + 1);

    // ---- Write-back bookings (index k: due in k cycles) ----
    let stages = unit_stages();
    let depth_wb = *stages.iter().max().unwrap() as usize + 1;
    let booking_shape = Booking {
        slot: sw,
        d: rw,
        mask: lanes,
        unit: 3,
    };
    let book_valid: Vec<Reg> = (0..=depth_wb)
        .map(|k| m.reg(&format!("book{k}_valid"), 1).reset(0))
        .collect();
    let (book_next, book_drv): (Vec<Booking>, Vec<_>) = (0..=depth_wb)
        .map(|k| m.wire_bundle::<Booking>(&format!("book{k}_next"), &booking_shape))
        .unzip();
    let book_q: Vec<Booking> = (0..=depth_wb)
        .map(|k| m.reg_bundle(&format!("book{k}"), &book_next[k], None))
        .collect();
    // A unit of S stages issuing now writes back in S + 1 cycles: the entry now at S + 2 would
    // move there.
    let slot_free_for = |u: usize| -> Sig {
        let k = stages[u] as usize + 2;
        if k <= depth_wb {
            !book_valid[k].q()
        } else {
            one
        }
    };
    let wb_free: Vec<Sig> = (0..8)
        .map(|u| if u < 5 { slot_free_for(u) } else { zero })
        .collect();

    // ---- Fetch ----
    let fetch_last = m.reg("fetch_last", warps as u32).reset(1);
    let issue_last = m.reg("issue_last", warps as u32).reset(1);
    let ex_valid = m.reg("ex_valid", 1).reset(0);
    let ex_shape = Ex {
        slot: sw,
        op: 8,
        d: 8,
        b: 8,
        imm: 32,
        pc: 32,
        is_alu: 1,
        is_ctl: 1,
        is_port: 1,
        unit: 3,
        uop: 5,
        a_src: 3,
        b_imm: 1,
        sel: 1,
        port: 3,
        mask: lanes,
        helpers: lanes,
        warp_id: 32,
    };
    let (ex_next, ex_driver) = m.wire_bundle::<Ex>("ex_next", &ex_shape);
    let ex = m.reg_bundle("ex", &ex_next, None);

    // ---- Issue ----
    let candidates = cat_lsb(&slots.iter().map(|c| c.can_issue).collect::<Vec<_>>());
    let issue_sel = round_robin_pick(candidates, issue_last.q()).named("issue_sel");
    let issue_any = candidates.any();
    issue_last.next_when(issue_any, issue_sel);
    let issue_s: Vec<Sig> = (0..warps).map(|s| issue_sel.bit(s as u32)).collect();
    let pick = |f: &dyn Fn(&SlotOut) -> Sig| -> Sig {
        onehot_mux(issue_sel, &slots.iter().map(f).collect::<Vec<_>>())
    };
    let i_word = onehot_mux(issue_sel, &slots.iter().map(|c| c.word).collect::<Vec<_>>());
    let i_dec: Decoded = unpack(
        &dec_shape,
        onehot_mux(
            issue_sel,
            &slots.iter().map(|c| pack(&c.dec)).collect::<Vec<_>>(),
        ),
    );
    let i_slot = lowest_index(issue_sel).resize(sw);
    let (i_d, i_a, i_b, i_c) = (
        i_word.bits(55, 48),
        i_word.bits(47, 40),
        i_word.bits(39, 32),
        i_word.bits(31, 24),
    );
    let i_op = i_word.bits(63, 56);
    let tex_or_export = i_op.eq(Opcode::Tex as u64) | i_op.eq(Opcode::Export as u64);
    let is_export = i_op.eq(Opcode::Export as u64);
    let ra = i_a;
    let rb = tex_or_export.mux(i_a + 1, i_b);
    let rc = is_export.mux(i_a + 2, i_c);
    let rd = i_a + 3;
    ex_valid.next(issue_any);
    ex_driver.drive(&Ex {
        slot: i_slot,
        op: i_op,
        d: i_d,
        b: i_b,
        imm: i_word.bits(31, 0),
        pc: onehot_mux(issue_sel, &slots.iter().map(|c| c.pc).collect::<Vec<_>>()),
        is_alu: i_dec.is_alu,
        is_ctl: i_dec.is_ctl,
        is_port: i_dec.is_port,
        unit: i_dec.unit,
        uop: i_dec.uop,
        a_src: i_dec.a_src,
        b_imm: i_dec.b_imm,
        sel: i_dec.sel,
        port: i_dec.port,
        mask: pick(&|s| s.mask),
        helpers: pick(&|s| s.helpers),
        warp_id: pick(&|s| s.warp_id),
    });
    m.output("issue", issue_any);

    // Book the write-back of an ALU instruction.
    let i_alu = issue_any & i_dec.is_alu;
    let new_booking = Booking {
        slot: i_slot,
        d: i_d.resize(rw),
        mask: pick(&|s| s.mask),
        unit: i_dec.unit,
    };
    for (k, drv) in book_drv.into_iter().enumerate() {
        let shifted_valid = if k < depth_wb {
            book_valid[k + 1].q()
        } else {
            zero
        };
        let shifted = if k < depth_wb {
            book_q[k + 1]
        } else {
            book_q[k]
        };
        let insert = if k >= 1 {
            let hits: Vec<Sig> = (0..5)
                .filter(|&u| stages[u] as usize + 1 == k)
                .map(|u| i_dec.unit.eq(u as u64))
                .collect();
            i_alu & or_all(hits.iter().copied().chain([zero]))
        } else {
            zero
        };
        book_valid[k].next(insert | shifted_valid);
        drv.drive(&mux_b(insert, &new_booking, &shifted));
    }
    let wb = book_q[1];
    let wb_valid = book_valid[1].q();

    // ---- Fetch select and return ----
    let fetch_ok: Vec<Sig> = slots.iter().map(|s| s.fetch_ok).collect();
    let fetch_cands = cat_lsb(&fetch_ok);
    let fetch_sel = round_robin_pick(fetch_cands, fetch_last.q()).named("fetch_sel");
    let fetch_any = fetch_cands.any();
    fetch_last.next_when(fetch_any, fetch_sel);
    let f_pc = onehot_mux(fetch_sel, &slots.iter().map(|s| s.fpc).collect::<Vec<_>>());
    let f_word = imem.read_sync(f_pc.resize(aw), Some(fetch_any));
    let r_valid = m.reg("fetch_valid", 1).reset(0);
    r_valid.next(fetch_any);
    let r_slot = m.reg("fetch_slot", sw);
    r_slot.next(lowest_index(fetch_sel).resize(sw));
    let r_pc = m.reg("fetch_pc", 32);
    r_pc.next(f_pc);
    let r_oob = m.reg("fetch_oob", 1);
    r_oob.next(f_pc.ge(prog_len.q()));
    let f_dec = decode(m, f_word, cfg.regs, tw);
    let fill_s: Vec<Sig> = (0..warps)
        .map(|s| r_valid.q() & r_slot.q().eq(s as u64))
        .collect();

    // ---- Register file (per lane), read at issue ----
    let (wr_en_w, wr_slot_w, wr_reg_w) = (
        m.wire("rf_we", lanes),
        m.wire("rf_wslot", sw),
        m.wire("rf_wreg", rw),
    );
    let wr_data_w: Vec<_> = (0..lanes)
        .map(|l| m.wire(&format!("rf_wdata{l}"), 32))
        .collect();
    let rf_clear_w = m.wire("rf_clear", 1);
    let rf_clear_slot_w = m.wire("rf_clear_slot", sw);
    let rf = m.child(
        "reg_file",
        cfg,
        RegFileIn {
            clear: rf_clear_w.sig(),
            clear_slot: rf_clear_slot_w.sig(),
            read_slot: i_slot,
            read_reg: [ra, rb, rc, rd].iter().map(|r| r.resize(rw)).collect(),
            write_en: wr_en_w.sig(),
            write_slot: wr_slot_w.sig(),
            write_reg: wr_reg_w.sig(),
            write_data: wr_data_w.iter().map(|w| w.sig()).collect(),
        },
        reg_file,
    );
    let rdata: Vec<[Sig; 4]> = rf.data.iter().map(|d| [d[0], d[1], d[2], d[3]]).collect();

    // ---- Lanes ----
    let ex_alu = ex_valid.q() & ex.is_alu;
    let unit_valid = cat_lsb(
        &(0..5)
            .map(|u| ex_alu & ex.unit.eq(u as u64))
            .collect::<Vec<_>>(),
    );
    let lit2s: Vec<Sig> = (0..4).map(|v| m.lit(v, 2)).collect();
    let deriv_sel = |k: u32| -> (Sig, Sig) {
        let (x_hi, x_lo, y_hi, y_lo) = (k | 1, k & 2, k | 2, k & 1);
        let lit2 = |v: u32| lit2s[v as usize];
        let op = ex.op;
        let hi = select(
            op.bits(1, 0),
            &[lit2(1), lit2(2), lit2(x_hi), lit2(y_hi)],
            lit2(0),
        );
        let lo = select(
            op.bits(1, 0),
            &[lit2(0), lit2(0), lit2(x_lo), lit2(y_lo)],
            lit2(0),
        );
        (hi, lo)
    };
    let zero32 = m.lit(0, 32);
    let mut results = Vec::new();
    for l in 0..lanes {
        let [a, b, c, _] = rdata[l as usize];
        let q = l / 4;
        let quad_a: Vec<Sig> = (0..4).map(|k| rdata[(4 * q + k) as usize][0]).collect();
        let (hi, lo) = deriv_sel(l % 4);
        let a_val = select(
            ex.a_src,
            &[
                a,
                ex.imm,
                m.lit(l as u64, 32),
                m.lit(q as u64, 32),
                ex.warp_id,
                index_select(hi, &quad_a),
                index_select(ex.imm.bits(1, 0), &quad_a),
            ],
            a,
        );
        let deriv = ex.a_src.eq(a_src::DERIV);
        let qget = ex.a_src.eq(a_src::QGET);
        let b_val = deriv.mux(
            index_select(lo, &quad_a),
            qget.mux(zero32, ex.b_imm.mux(ex.imm, b)),
        );
        let lane_in = LaneIn {
            valid: unit_valid,
            uop: ex.uop,
            a: ex.sel.mux(b, a_val),
            b: ex.sel.mux(c, b_val),
            c: ex.sel.mux(a, c),
            wb_unit: wb.unit,
        };
        let out = m.child(&format!("lane[{l}]"), &(), lane_in, lane_exec);
        results.push(out.r);
    }

    // ---- Control (resolved in the read stage) ----
    let ex_ctl = ex_valid.q() & ex.is_ctl;
    let cond = cat_lsb(
        &(0..lanes as usize)
            .map(|l| rdata[l][0].ne(0))
            .collect::<Vec<_>>(),
    );

    // ---- Port sequencer ----
    let ex_port = ex_valid.q() & ex.is_port;
    let kind_is = |k: u64| ex.port.eq(k);
    let quad_any = cat_lsb(
        &(0..cfg.quads)
            .map(|q| ex.mask.slice(4 * q, 4).any())
            .collect::<Vec<_>>(),
    )
    .resize(lanes);
    let ldu_bit = ex.mask.any().zext(lanes);
    let resp_new = priority_select(
        &[
            (kind_is(port::LDU), ldu_bit),
            (kind_is(port::TEX), quad_any),
            (kind_is(port::STG) | kind_is(port::EXPORT), no_lanes),
        ],
        ex.mask,
    );
    let seq = m.child(
        "port_seq",
        cfg,
        PortSeqIn {
            start: ex_port,
            slot: ex.slot,
            kind: ex.port,
            mask: ex.mask,
            helpers: ex.helpers,
            imm: ex.imm,
            count: ex.b.resize(3),
            operands: rdata.iter().map(|d| d.to_vec()).collect(),
        },
        port_seq,
    );
    m.output_stream("ldg_req", seq.ldg_req);
    m.output_stream("stg_req", seq.stg_req);
    m.output_stream("ldu_req", seq.ldu_req);
    m.output_stream("tex_req", seq.tex_req);
    m.output_stream("spec_req", seq.spec_req);
    m.output_stream("export", seq.export);
    let sq = seq.busy_slot;
    let seq_free = !seq.busy & !ex_port;

    // ---- Answers and the register file's write port ----
    let launch_go_w = m.wire("launch_go", 1);
    let port = m.child(
        "write_back",
        cfg,
        WriteBackIn {
            ldg_resp: inputs.ldg_resp,
            spec_resp: inputs.spec_resp,
            ldu_resp: inputs.ldu_resp,
            tex_resp: inputs.tex_resp,
            alu: wb_valid,
            alu_slot: wb.slot,
            alu_reg: wb.d,
            alu_mask: wb.mask,
            alu_data: results,
            launch: launch_go_w.sig(),
            launch_slot: launch_target,
            launch_reg: launch.reg,
            launch_data: launch.data.clone(),
            port_d: slots.iter().map(|s| s.port_d).collect(),
            port_mask: slots.iter().map(|s| s.port_mask).collect(),
        },
        write_back,
    );
    wr_en_w.drive(port.write_en);
    wr_slot_w.drive(port.write_slot);
    wr_reg_w.drive(port.write_reg);
    for (w, &d) in wr_data_w.iter().zip(&port.write_data) {
        w.drive(d);
    }
    let (resp_slot, answered) = (port.resp_slot, port.answered);
    // A launch transfer takes the write port when it writes a register.
    let launch_ok = launch_slot_ok & (!launch.write | port.launch_free);
    launch_ready.drive(launch_ok);
    let launch_fire = launch_valid & launch_ok;
    let launch_first = launch_fire & !filling.q();
    rf_clear_w.drive(launch_first);
    rf_clear_slot_w.drive(launch_target);
    filling.next(launch_fire.mux(!launch.last, filling.q()));
    filling_slot.next_when(launch_first, launch_target);
    let launch_s: Vec<Sig> = (0..warps)
        .map(|s| launch_fire & launch.last & launch_target.eq(s as u64))
        .collect();
    launch_go_w.drive(launch_fire & launch.write);

    // ---- Warp end ----
    let finish_ok: Vec<Sig> = slots.iter().map(|s| s.finish_ok).collect();
    // The warp offered on `done` stays offered until taken (stream rule: a stalled payload
    // does not change).
    let done_held = m.reg("done_held", warps as u32).reset(0);
    let finish = done_held
        .q()
        .any()
        .mux(done_held.q(), lowest_set(cat_lsb(&finish_ok)))
        .named("finish_sel");
    let done_slot = lowest_index(finish).resize(sw);
    let pick_done = |f: &dyn Fn(&SlotOut) -> Sig| -> Sig {
        onehot_mux(finish, &slots.iter().map(f).collect::<Vec<_>>())
    };
    let (done, done_ready) = Stream::offer(
        m,
        "done",
        finish.any(),
        DoneRec {
            slot: done_slot,
            code: pick_done(&|s| s.code),
            pc: pick_done(&|s| s.err_pc),
            executed: pick_done(&|s| s.executed),
        },
    );
    m.output_stream("done", done);
    done_held.next((finish.any() & !done_ready).repeat(warps as u32) & finish);

    // ---- The warp slots ----
    let wb_free_bits = cat_lsb(&wb_free);
    for (i, plug) in slot_plugs.into_iter().enumerate() {
        let me = |x: Sig| x.eq(i as u64);
        let answered_me = (me(resp_slot) & answered.any()).repeat(lanes) & answered;
        let out = m.child(
            &format!("warp[{i}]"),
            cfg,
            SlotIn {
                fetch: Fetched {
                    fill: fill_s[i],
                    word: f_word,
                    pc: r_pc.q(),
                    oob: r_oob.q(),
                    dec: f_dec,
                },
                launch: launch_s[i],
                launch_pc: launch.pc,
                launch_helpers: launch.helpers,
                launch_warp_id: launch.warp_id,
                issue: issue_s[i],
                fetch_go: fetch_any & fetch_sel.bit(i as u32),
                wb_free: wb_free_bits,
                seq_free,
                ctl: ex_ctl & me(ex.slot),
                port: ex_port & me(ex.slot),
                ex_op: ex.op,
                ex_pc: ex.pc,
                ex_imm: ex.imm,
                ex_d: ex.d.resize(rw),
                ex_mask: ex.mask,
                cond,
                resp_new,
                seq_busy: seq.busy & me(sq),
                wb_clear: wb_valid & me(wb.slot),
                wb_d: wb.d,
                answered: answered_me,
                done: done_ready & finish.bit(i as u32),
            },
            warp_slot,
        );
        plug.connect(out);
    }
    true
}

/// Bits `values[0]` (LSB) … as one signal.
fn cat_lsb(values: &[Sig]) -> Sig {
    rendergen_hdl::cat_lsb_first(values)
}

/// `sel ? a : b` for records.
fn mux_b<T: Bundle>(sel: Sig, a: &T, b: &T) -> T {
    unpack(&a.shape(), sel.mux(pack(a), pack(b)))
}

/// The stand-alone core (catalogue `shader_core`).
pub fn shader_core_top(cfg: &ShaderCfg) -> Result<Design, ElabErrors> {
    Design::build_with_params("shader_core", &format!("{cfg:?}"), |m| {
        shader_core(m, cfg);
    })
}
