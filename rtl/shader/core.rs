//! The core: warp slots, fetch, issue, register file, lanes, control, ports, write-back.

use super::control::{expect, resolve, Frame};
use super::decode::{a_src, decode, port, touch_width, unit_stages, Decoded};
use super::exec::{lane_exec, LaneIn};
use super::*;
use rendergen_hdl::{
    cat, index_select, lowest_index, lowest_set, name_lets, onehot_mux, or_all, pack,
    priority_select, round_robin_pick, select, unpack, Bundle, Design, ElabErrors, Module, Reg,
    Sig, Stream,
};
use rendergen_shader_isa::{Opcode, WarpError, MAX_DEPTH};

/// Registers of one warp slot.
struct Slot {
    running: Reg,
    ending: Reg,
    code: Reg,
    err_pc: Reg,
    fpc: Reg,
    inflight: Reg,
    buf_valid: Reg,
    buf_word: Reg,
    buf_pc: Reg,
    buf_oob: Reg,
    buf_dec: Decoded,
    ctl_wait: Reg,
    port_wait: Reg,
    land: Reg,
    land_pc: Reg,
    mask: Reg,
    helpers: Reg,
    warp_id: Reg,
    executed: Reg,
    pending: Reg,
    depth: Reg,
    frames: Vec<[Reg; 4]>,
    port_d: Reg,
    port_mask: Reg,
    resp_left: Reg,
}

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
    regw: Stream<RegWrite>,
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
        regw: m.input_stream(
            "regw",
            &RegWrite {
                slot: sw,
                reg: rw,
                data: vec![32; lanes as usize],
            },
        ),
        launch: m.input_stream(
            "launch",
            &LaunchRec {
                slot: sw,
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
            },
        ),
    };
    let one = m.lit(1, 1);
    let zero = m.lit(0, 1);
    let all_lanes = m.lit(u64::MAX >> (64 - lanes), lanes);
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
    let (f_dec_w, f_dec_driver) = m.wire_bundle::<Decoded>("fetch_dec", &dec_shape);
    let fetch_word_w = m.wire("fetch_word", 64);
    let fetch_pc_w = m.wire("fetch_pc_now", 32);
    let fetch_oob_w = m.wire("fetch_oob_now", 1);
    let fill_w: Vec<rendergen_hdl::Wire> = (0..warps)
        .map(|s| m.wire(&format!("w{s}_fill"), 1))
        .collect();
    let slots: Vec<Slot> = (0..warps)
        .map(|s| {
            let n = |f: &str| format!("w{s}_{f}");
            Slot {
                running: m.reg(&n("running"), 1).reset(0),
                ending: m.reg(&n("ending"), 1).reset(0),
                code: m.reg(&n("code"), 4).reset(0),
                err_pc: m.reg(&n("err_pc"), 32).reset(0),
                fpc: m.reg(&n("fpc"), 32).reset(0),
                inflight: m.reg(&n("inflight"), 1).reset(0),
                buf_valid: m.reg(&n("buf_valid"), 1).reset(0),
                buf_word: m.reg(&n("buf_word"), 64),
                buf_pc: m.reg(&n("buf_pc"), 32),
                buf_oob: m.reg(&n("buf_oob"), 1),
                buf_dec: m.reg_bundle(&n("buf"), &f_dec_w, Some(fill_w[s].sig())),
                ctl_wait: m.reg(&n("ctl_wait"), 1).reset(0),
                port_wait: m.reg(&n("port_wait"), 1).reset(0),
                land: m.reg(&n("land"), 3).reset(0),
                land_pc: m.reg(&n("land_pc"), 32).reset(0),
                mask: m.reg(&n("mask"), lanes).reset(0),
                helpers: m.reg(&n("helpers"), lanes).reset(0),
                warp_id: m.reg(&n("warp_id"), 32).reset(0),
                executed: m.reg(&n("executed"), 32).reset(0),
                pending: m.reg(&n("pending"), tw).reset(0),
                depth: m.reg(&n("depth"), 5).reset(0),
                frames: (0..MAX_DEPTH)
                    .map(|f| {
                        [
                            m.reg(&format!("w{s}_frame{f}_is_loop"), 1).reset(0),
                            m.reg(&format!("w{s}_frame{f}_in_else"), 1).reset(0),
                            m.reg(&format!("w{s}_frame{f}_outer"), lanes).reset(0),
                            m.reg(&format!("w{s}_frame{f}_other"), lanes).reset(0),
                        ]
                    })
                    .collect(),
                port_d: m.reg(&n("port_d"), rw).reset(0),
                port_mask: m.reg(&n("port_mask"), lanes).reset(0),
                resp_left: m.reg(&n("resp_left"), lanes).reset(0),
            }
        })
        .collect();

    // ---- Program memory ----
    let any_running = or_all(slots.iter().map(|s| s.running.q()));
    let (prog_valid, prog, prog_ready) = inputs.prog.split();
    prog_ready.drive(!any_running);
    let prog_fire = prog_valid & !any_running;
    let imem = m.memory("imem", 64, cfg.imem_depth);
    imem.write(prog_fire, prog.addr, prog.word);
    let prog_len = m.reg("prog_len", 32).reset(0);
    prog_len.next_when(prog_fire, prog.addr.zext(32) + 1);

    // ---- Launch ----
    let (launch_valid, launch, launch_ready) = inputs.launch.split();
    let slot_free = index_select(
        launch.slot,
        &pad(
            &slots.iter().map(|s| !s.running.q()).collect::<Vec<_>>(),
            sw,
        ),
    );
    launch_ready.drive(slot_free);
    let launch_fire = launch_valid & slot_free;
    let launch_s: Vec<Sig> = (0..warps)
        .map(|s| launch_fire & launch.slot.eq(s as u64))
        .collect();

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
    let seq_valid = m.reg("seq_valid", 1).reset(0);
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
    let ex_port_busy = ex_valid.q() & ex.is_port;
    let seq_free = !seq_valid.q() & !ex_port_busy;
    let wd_limit = m.lit(cfg.watchdog, 32);

    let codes: Vec<Sig> = (0..9).map(|v| m.lit(v, 4)).collect();
    // Each slot's current instruction: the word arriving from the instruction memory this
    // cycle (it may issue at once), else the buffered one.
    struct Cur {
        valid: Sig,
        word: Sig,
        pc: Sig,
        oob: Sig,
        dec: Decoded,
    }
    let cur: Vec<Cur> = slots
        .iter()
        .zip(&fill_w)
        .map(|(s, fill)| {
            let fill = fill.sig();
            Cur {
                valid: fill | s.buf_valid.q(),
                word: fill.mux(fetch_word_w.sig(), s.buf_word.q()),
                pc: fill.mux(fetch_pc_w.sig(), s.buf_pc.q()),
                oob: fill.mux(fetch_oob_w.sig(), s.buf_oob.q()),
                dec: mux_b(fill, &f_dec_w, &s.buf_dec),
            }
        })
        .collect();
    // Per-slot checks of the current instruction.
    struct Check {
        fault: Sig,
        fault_code: Sig,
        fault_pc: Sig,
        fault_counts: Sig,
        skip: Sig,
        can_issue: Sig,
    }
    let checks: Vec<Check> = slots
        .iter()
        .zip(&cur)
        .map(|(s, c)| {
            let dec = &c.dec;
            let word = c.word;
            let opcode = word.bits(63, 56);
            let live = s.running.q() & !s.ending.q() & c.valid;
            let land = s.land.q();
            let is_op = |o: Opcode| opcode.eq(o as u64) & dec.fields_ok;
            let matches = select(
                land,
                &[
                    one,
                    is_op(Opcode::Else) | is_op(Opcode::Endif),
                    is_op(Opcode::Endif),
                    is_op(Opcode::Endloop),
                    is_op(Opcode::Loop),
                ],
                zero,
            );
            let landing = land.ne(expect::NONE);
            let land_fail = landing & (c.oob | !matches);
            let skip = live & land.eq(expect::LOOP_SKIP) & !land_fail;
            let wd = s.executed.q().ge(wd_limit);
            let code = |e: WarpError| codes[e.code() as usize];
            let decode_code = priority_select(
                &[
                    (!dec.known, code(WarpError::UnknownOpcode)),
                    (dec.bad_count, code(WarpError::BadExportCount)),
                    (!dec.fields_ok, code(WarpError::ReservedBits)),
                    (dec.reg_err, code(WarpError::RegisterOutOfRange)),
                ],
                codes[0],
            );
            let fault_code = priority_select(
                &[
                    (
                        land_fail,
                        c.oob
                            .mux(code(WarpError::PcOutOfRange), code(WarpError::BadControl)),
                    ),
                    (wd, code(WarpError::Watchdog)),
                    (c.oob, code(WarpError::PcOutOfRange)),
                ],
                decode_code,
            );
            let fault = live & !skip & fault_code.ne(0);
            let fault_counts = !land_fail & !wd & !c.oob;
            let fault_pc = land_fail.mux(s.land_pc.q(), c.pc);
            let hazard = (dec.touch & s.pending.q()).any();
            let can_issue = live
                & !skip
                & fault_code.eq(0)
                & !s.port_wait.q()
                & !hazard
                & (!dec.is_alu | index_select(dec.unit, &wb_free))
                & (!dec.is_port | seq_free);
            Check {
                fault,
                fault_code,
                fault_pc,
                fault_counts,
                skip,
                can_issue,
            }
        })
        .collect();

    // ---- Issue ----
    let candidates = cat_lsb(&checks.iter().map(|c| c.can_issue).collect::<Vec<_>>());
    let issue_sel = round_robin_pick(candidates, issue_last.q()).named("issue_sel");
    let issue_any = candidates.any();
    issue_last.next_when(issue_any, issue_sel);
    let issue_s: Vec<Sig> = (0..warps).map(|s| issue_sel.bit(s as u32)).collect();
    let pick = |f: &dyn Fn(&Slot) -> Sig| -> Sig {
        onehot_mux(issue_sel, &slots.iter().map(f).collect::<Vec<_>>())
    };
    let i_word = onehot_mux(issue_sel, &cur.iter().map(|c| c.word).collect::<Vec<_>>());
    let i_dec: Decoded = unpack(
        &dec_shape,
        onehot_mux(
            issue_sel,
            &cur.iter().map(|c| pack(&c.dec)).collect::<Vec<_>>(),
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
        pc: onehot_mux(issue_sel, &cur.iter().map(|c| c.pc).collect::<Vec<_>>()),
        is_alu: i_dec.is_alu,
        is_ctl: i_dec.is_ctl,
        is_port: i_dec.is_port,
        unit: i_dec.unit,
        uop: i_dec.uop,
        a_src: i_dec.a_src,
        b_imm: i_dec.b_imm,
        sel: i_dec.sel,
        port: i_dec.port,
        mask: pick(&|s| s.mask.q()),
        helpers: pick(&|s| s.helpers.q()),
        warp_id: pick(&|s| s.warp_id.q()),
    });
    m.output("issue", issue_any);

    // Book the write-back of an ALU instruction.
    let i_alu = issue_any & i_dec.is_alu;
    let new_booking = Booking {
        slot: i_slot,
        d: i_d.resize(rw),
        mask: pick(&|s| s.mask.q()),
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
    let fetch_ok: Vec<Sig> = slots
        .iter()
        .enumerate()
        .map(|(i, s)| {
            // The slot's instruction leaves this cycle (or there is none), and no fetch is in
            // flight (or it arrives now).
            let empties = !cur[i].valid | (issue_s[i] & !i_dec.is_ctl) | checks[i].skip;
            let fetch_free = !s.inflight.q() | fill_w[i].sig();
            s.running.q() & !s.ending.q() & fetch_free & !s.ctl_wait.q() & empties
        })
        .collect();
    let fetch_cands = cat_lsb(&fetch_ok);
    let fetch_sel = round_robin_pick(fetch_cands, fetch_last.q()).named("fetch_sel");
    let fetch_any = fetch_cands.any();
    fetch_last.next_when(fetch_any, fetch_sel);
    let f_pc = onehot_mux(
        fetch_sel,
        &slots.iter().map(|s| s.fpc.q()).collect::<Vec<_>>(),
    );
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
    f_dec_driver.drive(&f_dec);
    let fill_s: Vec<Sig> = (0..warps)
        .map(|s| r_valid.q() & r_slot.q().eq(s as u64))
        .collect();
    for (w, f) in fill_w.iter().zip(&fill_s) {
        w.drive(*f);
    }
    fetch_word_w.drive(f_word);
    fetch_pc_w.drive(r_pc.q());
    fetch_oob_w.drive(r_oob.q());

    // ---- Register file (per lane), read at issue ----
    let rf_addr = |r: Sig| cat(&[i_slot, r.resize(rw)]);
    let (wr_en_w, wr_slot_w, wr_reg_w) = (
        m.wire("rf_we", lanes),
        m.wire("rf_wslot", sw),
        m.wire("rf_wreg", rw),
    );
    let wr_data_w: Vec<_> = (0..lanes)
        .map(|l| m.wire(&format!("rf_wdata{l}"), 32))
        .collect();
    let mut rdata: Vec<[Sig; 4]> = Vec::new();
    for l in 0..lanes {
        let rf = m.memory(&format!("rf{l}"), 32, (1u32 << sw) << rw);
        rf.write(
            wr_en_w.sig().bit(l),
            cat(&[wr_slot_w.sig(), wr_reg_w.sig()]),
            wr_data_w[l as usize].sig(),
        );
        rdata.push([
            rf.read_sync(rf_addr(ra), None),
            rf.read_sync(rf_addr(rb), None),
            rf.read_sync(rf_addr(rc), None),
            rf.read_sync(rf_addr(rd), None),
        ]);
    }

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
            ],
            a,
        );
        let deriv = ex.a_src.eq(a_src::DERIV);
        let b_val = deriv.mux(index_select(lo, &quad_a), ex.b_imm.mux(ex.imm, b));
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
    let todo_new = priority_select(
        &[
            (kind_is(port::LDU), ldu_bit),
            (kind_is(port::TEX), quad_any),
            (
                kind_is(port::STG) | kind_is(port::EXPORT),
                ex.mask & !ex.helpers,
            ),
        ],
        ex.mask,
    );
    let resp_new = priority_select(
        &[
            (kind_is(port::LDU), ldu_bit),
            (kind_is(port::TEX), quad_any),
            (kind_is(port::STG) | kind_is(port::EXPORT), no_lanes),
        ],
        ex.mask,
    );
    let seq_todo = m.reg("seq_todo", lanes).reset(0);
    let seq_slot = m.reg("seq_slot", sw);
    let seq_kind = m.reg("seq_kind", 3);
    let seq_mask = m.reg("seq_mask", lanes);
    let seq_helpers = m.reg("seq_helpers", lanes);
    let seq_imm = m.reg("seq_imm", 32);
    let seq_count = m.reg("seq_count", 3);
    let seq_ops: Vec<[Reg; 4]> = (0..lanes)
        .map(|l| std::array::from_fn(|j| m.reg(&format!("seq_lane{l}_op{j}"), 32)))
        .collect();
    for (l, ops) in seq_ops.iter().enumerate() {
        for j in 0..4 {
            ops[j].next_when(ex_port, rdata[l][j]);
        }
    }
    seq_slot.next_when(ex_port, ex.slot);
    seq_kind.next_when(ex_port, ex.port);
    seq_mask.next_when(ex_port, ex.mask);
    seq_helpers.next_when(ex_port, ex.helpers);
    seq_imm.next_when(ex_port, ex.imm);
    seq_count.next_when(ex_port, ex.b.resize(3));
    let cur = lowest_set(seq_todo.q()).named("seq_cur");
    let cur_lane = lowest_index(seq_todo.q()).resize(lw);
    let lane_op = |j: usize| onehot_mux(cur, &seq_ops.iter().map(|o| o[j].q()).collect::<Vec<_>>());
    let (op_a, op_b, op_c, op_d) = (lane_op(0), lane_op(1), lane_op(2), lane_op(3));
    let sq = seq_slot.q();
    let kind = seq_kind.q();
    let want = |k: u64| seq_valid.q() & kind.eq(k);
    let (ldg_req, ldg_ready) = Stream::offer(
        m,
        "ldg_req",
        want(port::LDG),
        LoadReq {
            slot: sq,
            lane: cur_lane,
            addr: op_a + seq_imm.q(),
        },
    );
    m.output_stream("ldg_req", ldg_req);
    let (stg_req, stg_ready) = Stream::offer(
        m,
        "stg_req",
        want(port::STG),
        StoreReq {
            slot: sq,
            lane: cur_lane,
            addr: op_a + seq_imm.q(),
            data: op_b,
        },
    );
    m.output_stream("stg_req", stg_req);
    let (ldu_req, ldu_ready) = Stream::offer(
        m,
        "ldu_req",
        want(port::LDU),
        UniformReq {
            slot: sq,
            index: seq_imm.q(),
        },
    );
    m.output_stream("ldu_req", ldu_req);
    let cur_quad = cur.bits(cfg.quads - 1, 0);
    let coords: Vec<Sig> = (0..8)
        .map(|i| {
            let (k, j) = (i / 2, i % 2);
            onehot_mux(
                cur_quad,
                &(0..cfg.quads as usize)
                    .map(|q| seq_ops[4 * q + k][j].q())
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    let quad_mask = onehot_mux(
        cur_quad,
        &(0..cfg.quads)
            .map(|q| seq_mask.q().slice(4 * q, 4))
            .collect::<Vec<_>>(),
    );
    let (tex_req, tex_ready) = Stream::offer(
        m,
        "tex_req",
        want(port::TEX),
        TexReq {
            slot: sq,
            quad: lowest_index(seq_todo.q().bits(cfg.quads - 1, 0)).resize(qw),
            sampler: seq_imm.q(),
            coords,
            mask: quad_mask,
        },
    );
    m.output_stream("tex_req", tex_req);
    let (spec_req, spec_ready) = Stream::offer(
        m,
        "spec_req",
        want(port::SPEC),
        SpecReq {
            slot: sq,
            lane: cur_lane,
            func: seq_imm.q(),
            a: op_a,
            b: op_b,
            helper: (cur & seq_helpers.q()).any(),
        },
    );
    m.output_stream("spec_req", spec_req);
    let (export, export_ready) = Stream::offer(
        m,
        "export",
        want(port::EXPORT),
        ExportRec {
            slot: sq,
            lane: cur_lane,
            loc: seq_imm.q(),
            count: seq_count.q(),
            data: vec![op_a, op_b, op_c, op_d],
        },
    );
    m.output_stream("export", export);
    let sent = select(
        kind,
        &[
            ldg_ready,
            stg_ready,
            ldu_ready,
            tex_ready,
            spec_ready,
            export_ready,
        ],
        zero,
    ) & seq_valid.q();
    let todo_after = seq_todo.q() & !cur;
    seq_todo.next(ex_port.mux(todo_new, sent.mux(todo_after, seq_todo.q())));
    seq_valid.next(ex_port.mux(todo_new.any(), sent.mux(todo_after.any(), seq_valid.q())));

    // ---- Answers and the register file's write port ----
    let (ldg_v, ldg_d, ldg_r) = inputs.ldg_resp.split();
    let (spec_v, spec_d, spec_r) = inputs.spec_resp.split();
    let (ldu_v, ldu_d, ldu_r) = inputs.ldu_resp.split();
    let (tex_v, tex_d, tex_r) = inputs.tex_resp.split();
    let (regw_v, regw_d, regw_r) = inputs.regw.split();
    let free = !wb_valid;
    let g_ldg = free & ldg_v;
    let g_spec = free & !ldg_v & spec_v;
    let g_ldu = free & !ldg_v & !spec_v & ldu_v;
    let g_tex = free & !ldg_v & !spec_v & !ldu_v & tex_v;
    let g_regw = free & !ldg_v & !spec_v & !ldu_v & !tex_v & regw_v;
    let tex_j = m.reg("tex_word", 2).reset(0);
    tex_j.next_when(g_tex, tex_j.q() + 1);
    let tex_last = tex_j.q().eq(3);
    ldg_r.drive(g_ldg);
    spec_r.drive(g_spec);
    ldu_r.drive(g_ldu);
    tex_r.drive(g_tex & tex_last);
    regw_r.drive(g_regw);
    let resp_slot = priority_select(
        &[
            (g_ldg, ldg_d.slot),
            (g_spec, spec_d.slot),
            (g_ldu, ldu_d.slot),
        ],
        tex_d.slot,
    );
    let slot_pick = |f: &dyn Fn(&Slot) -> Sig| -> Sig {
        index_select(
            resp_slot,
            &pad(&slots.iter().map(f).collect::<Vec<_>>(), sw),
        )
    };
    let resp_d = slot_pick(&|s| s.port_d.q());
    let resp_mask = slot_pick(&|s| s.port_mask.q());
    let lane1 = m.lit(1, lanes);
    let lane_onehot = |lane: Sig| lane1.shl(lane);
    let tex_quad_lanes = (m.lit(0xF, lanes).shl(cat(&[tex_d.quad, m.lit(0, 2)])) & resp_mask)
        .named("tex_quad_lanes");
    let wr_en = priority_select(
        &[
            (wb_valid, wb.mask),
            (g_ldg, lane_onehot(ldg_d.lane)),
            (g_spec, lane_onehot(spec_d.lane)),
            (g_ldu, resp_mask),
            (g_tex, tex_quad_lanes),
            (g_regw, all_lanes),
        ],
        no_lanes,
    );
    wr_en_w.drive(wr_en);
    wr_slot_w.drive(priority_select(
        &[(wb_valid, wb.slot), (g_regw, regw_d.slot)],
        resp_slot,
    ));
    wr_reg_w.drive(priority_select(
        &[
            (wb_valid, wb.d),
            (g_tex, resp_d + tex_j.q().zext(rw)),
            (g_regw, regw_d.reg),
        ],
        resp_d,
    ));
    for l in 0..lanes as usize {
        let texel = select(
            cat(&[m.lit((l % 4) as u64, 2), tex_j.q()]),
            &tex_d.texels,
            zero.zext(32),
        );
        wr_data_w[l].drive(priority_select(
            &[
                (wb_valid, results[l]),
                (g_ldg, ldg_d.data),
                (g_spec, spec_d.data),
                (g_ldu, ldu_d.data),
                (g_tex, texel),
            ],
            regw_d.data[l],
        ));
    }
    // Answers that complete: which bit of the slot's `resp_left` they clear.
    let answered = priority_select(
        &[
            (g_ldg, lane_onehot(ldg_d.lane)),
            (g_spec, lane_onehot(spec_d.lane)),
            (g_ldu, m.lit(1, lanes)),
            (g_tex & tex_last, m.lit(1, lanes).shl(tex_d.quad)),
        ],
        no_lanes,
    );

    // ---- Warp end ----
    let finish_ok: Vec<Sig> = slots
        .iter()
        .map(|s| {
            s.running.q() & s.ending.q() & s.pending.q().eq(0) & !s.port_wait.q() & !s.inflight.q()
        })
        .collect();
    // The warp offered on `done` stays offered until taken (stream rule: a stalled payload
    // does not change).
    let done_held = m.reg("done_held", warps as u32).reset(0);
    let finish = done_held
        .q()
        .any()
        .mux(done_held.q(), lowest_set(cat_lsb(&finish_ok)))
        .named("finish_sel");
    let done_slot = lowest_index(finish).resize(sw);
    let pick_done = |f: &dyn Fn(&Slot) -> Sig| -> Sig {
        onehot_mux(finish, &slots.iter().map(f).collect::<Vec<_>>())
    };
    let (done, done_ready) = Stream::offer(
        m,
        "done",
        finish.any(),
        DoneRec {
            slot: done_slot,
            code: pick_done(&|s| s.code.q()),
            pc: pick_done(&|s| s.err_pc.q()),
            executed: pick_done(&|s| s.executed.q()),
        },
    );
    m.output_stream("done", done);
    done_held.next((finish.any() & !done_ready).repeat(warps as u32) & finish);

    // ---- Drive every slot's registers ----
    let reg1 = m.lit(1, 32);
    for (i, s) in slots.iter().enumerate() {
        let me = |x: Sig| x.eq(i as u64);
        let launch_me = launch_s[i];
        let issue_me = issue_s[i];
        let ck = &checks[i];
        let ctl_me = ex_ctl & me(ex.slot);
        let port_me = ex_port & me(ex.slot);
        let frames: Vec<Frame> = s
            .frames
            .iter()
            .map(|f| Frame {
                is_loop: f[0].q(),
                in_else: f[1].q(),
                outer: f[2].q(),
                other: f[3].q(),
            })
            .collect();
        let r = resolve(m, ex.op, s.mask.q(), cond, &frames, s.depth.q());
        for (f, nf) in s.frames.iter().zip(&r.frames) {
            f[0].next_when(ctl_me, nf.is_loop);
            f[1].next_when(ctl_me, nf.in_else);
            f[2].next_when(ctl_me, nf.outer);
            f[3].next_when(ctl_me, nf.other);
        }
        s.depth
            .next(launch_me.mux(m.lit(0, 5), ctl_me.mux(r.depth, s.depth.q())));
        s.mask
            .next(launch_me.mux(all_lanes, ctl_me.mux(r.mask, s.mask.q())));
        s.helpers.next_when(launch_me, launch.helpers & all_lanes);
        s.warp_id.next_when(launch_me, launch.warp_id);
        let ctl_end = ctl_me & (r.done | r.error.ne(0));
        let done_me = done_ready & finish.bit(i as u32);
        s.running.next(launch_me | (s.running.q() & !done_me));
        s.ending
            .next(!launch_me & !done_me & (s.ending.q() | ck.fault | ctl_end));
        s.code.next(priority_select(
            &[
                (launch_me, m.lit(0, 4)),
                (ck.fault, ck.fault_code),
                (ctl_me, r.error),
            ],
            s.code.q(),
        ));
        s.err_pc.next(priority_select(
            &[(ck.fault, ck.fault_pc), (ctl_me, ex.pc)],
            s.err_pc.q(),
        ));
        let fetch_me = fetch_any & fetch_sel.bit(i as u32);
        s.fpc.next(priority_select(
            &[
                (launch_me, launch.pc),
                (ctl_me & r.jump, ex.imm),
                (fetch_me, s.fpc.q() + 1),
            ],
            s.fpc.q(),
        ));
        s.inflight
            .next(fetch_me | (s.inflight.q() & !fill_s[i]) & !launch_me);
        let consumed = issue_me | ck.skip | ck.fault;
        s.buf_valid
            .next(!launch_me & (fill_s[i] | s.buf_valid.q()) & !consumed);
        s.buf_word.next_when(fill_s[i], f_word);
        s.buf_pc.next_when(fill_s[i], r_pc.q());
        s.buf_oob.next_when(fill_s[i], r_oob.q());
        s.ctl_wait
            .next(!launch_me & ((issue_me & i_dec.is_ctl) | (s.ctl_wait.q() & !ctl_me)));
        let port_done = !port_me & !(seq_valid.q() & me(sq)) & s.resp_left.q().eq(0);
        s.port_wait
            .next(!launch_me & ((issue_me & i_dec.is_port) | (s.port_wait.q() & !port_done)));
        s.land.next(priority_select(
            &[
                (launch_me, m.lit(0, 3)),
                (ctl_me & r.jump, r.expect),
                (consumed, m.lit(0, 3)),
            ],
            s.land.q(),
        ));
        s.land_pc.next_when(ctl_me & r.jump, ex.pc);
        let counts = issue_me | (ck.fault & ck.fault_counts);
        s.executed.next(launch_me.mux(
            m.lit(0, 32),
            counts.mux(s.executed.q() + reg1, s.executed.q()),
        ));
        let set = (issue_me & i_dec.is_alu).repeat(tw) & m.lit(1, tw).shl(i_d);
        let clear = (wb_valid & me(wb.slot)).repeat(tw) & m.lit(1, tw).shl(wb.d);
        s.pending
            .next(launch_me.mux(m.lit(0, tw), (s.pending.q() & !clear) | set));
        s.port_d.next_when(port_me, ex.d.resize(rw));
        s.port_mask.next_when(port_me, ex.mask);
        let answered_me = (me(resp_slot) & answered.any()).repeat(lanes) & answered;
        s.resp_left
            .next(port_me.mux(resp_new, s.resp_left.q() & !answered_me));
    }
    true
}

/// `values` padded with copies of the last to `2^bits` entries (an index that may exceed the
/// warp count reads the last slot; such indices never come from the core's own state).
fn pad(values: &[Sig], bits: u32) -> Vec<Sig> {
    let mut v = values.to_vec();
    while v.len() < 1 << bits {
        v.push(*values.last().unwrap());
    }
    v
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
