//! The execute stage: bounds checks, local operations, RAYSTOP, CASE/ENDCASE, RANDSEL (a sum
//! pass and a scan pass over the weights, one word per cycle), TEX_READ, and pipeline requests
//! (the arguments popped four words per cycle into the request register).

use super::alu::{alu, is};
use super::control::{mode, prng_next};
use super::fetch::{advance, class};
use super::issue::{issue, Hold};
use super::request::ReqLoad;
use super::slots::{state, Slots};
use super::stack::{StackRam, WordWrite, IW};
use super::Params;
use crate::pbru::ports::{CREQ_IFETCH, CREQ_PIPE, CREQ_TEXREAD};
use rendergen_hdl::{priority_select, Module, Sig};
use rendergen_isa::{Opcode, RayError, Reason, MAX_PIPE_ARGS};

/// Execution-unit states.
const DECODE: u64 = 0;
const EXEC: u64 = 1;
const SUM: u64 = 2;
const SCAN: u64 = 3;

/// Builds the execution unit (decode and execute stages); returns what it loads into the
/// request register.
pub(super) fn execute(
    m: &mut Module,
    p: &Params,
    s: &mut Slots,
    ram: StackRam,
    creq_busy: Sig,
) -> ReqLoad {
    let xs = m.reg("exec_state", 2).reset(DECODE);
    // Decode overlaps execute: it runs in a cycle where the execute stage is empty or finishes
    // its instruction, on another slot than the executing one (whose state changes at the
    // edge), and sends no IFETCH while a TEX_READ or pipeline op may load the request register.
    let c_reg = m.reg("exec_slot", p.slot_w);
    let cls_reg = m.reg("exec_class", 2);
    let (c, cls) = (c_reg.q(), cls_reg.q());
    let finishing = m.wire("exec_finishing", 1);
    let executing = xs.q().ne(DECODE);
    let (is_pipe, is_tex) = (cls.eq(class::PIPE), cls.eq(class::TEXREAD));
    let hold = Hold {
        busy: executing,
        slot: c,
        request: executing & (is_pipe | is_tex),
    };
    let iss = issue(m, p, s, creq_busy, !executing | finishing.sig(), hold);
    c_reg.next_when(iss.start, iss.slot);
    cls_reg.next_when(iss.start, iss.dec.class);
    let reg = |m: &mut Module, name: &str, v: Sig| {
        let r = m.reg(name, v.width());
        r.next_when(iss.start, v);
        r.q()
    };
    let op = reg(m, "exec_op", iss.dec.op);
    let imm = reg(m, "exec_imm", iss.dec.imm);
    let len = reg(m, "exec_len", iss.dec.len);
    let pops = reg(m, "exec_pops", iss.dec.pops);
    let pushes = reg(m, "exec_pushes", iss.dec.pushes);
    let step = m.reg("exec_step", 8).reset(0);
    let sum = m.reg("randsel_sum", 40);
    let prefix = m.reg("randsel_prefix", 40);
    let draw = m.reg("randsel_draw", 32);

    let sp = s.sp.at(c);
    let pc = s.pc.at(c);
    let straddle = s.straddle.at(c);
    let (in_exec, in_sum, in_scan) = (xs.q().eq(EXEC), xs.q().eq(SUM), xs.q().eq(SCAN));
    let is_local = cls.eq(class::LOCAL);
    use Opcode::*;
    let (load, pick, store) = (is(op, Load), is(op, Pick), is(op, Store));
    let randsel = is(op, RandSel);
    let n8 = imm.bits(7, 0);
    let npop = is_pipe.mux(pops.zext(8), n8);
    let w = |x: Sig| x.zext(IW);

    // Checks (first cycle of EXEC): BadControl, then underflow, then overflow (ISA.md).
    let need = priority_select(
        &[
            (load | pick, w(n8) + 1),
            (store, w(n8) + 2),
            (is_tex, m.lit(3, IW)),
            (randsel, w(n8)),
        ],
        w(pops),
    );
    let bad = (randsel & n8.eq(0)) | is(op, Case);
    let under = w(sp).lt(need);
    let over = (w(sp) + w(pushes)).gt(w(pops) + p.depth as u64);
    let err = (in_exec & step.q().eq(0) & (bad | under | over)).named("exec_fault");
    let code = |m: &mut Module, e: RayError| m.lit(Reason::Error(e).code() as u64, 3);
    let (bad_code, under_code) = (
        code(m, RayError::BadControl),
        code(m, RayError::StackUnderflow),
    );
    let err_code = bad.mux(
        bad_code,
        under.mux(under_code, code(m, RayError::StackOverflow)),
    );

    // Stack reads: four consecutive words from a base that depends on the step.
    let step4 = w(step.q()) << 2;
    let base = priority_select(
        &[
            (in_exec & load, w(n8)),
            (in_exec & pick, w(sp) - 1 - w(n8)),
            (in_exec & is_pipe, w(sp) - w(npop) + step4),
            (in_sum | in_scan, w(sp) - w(npop) + w(step.q())),
        ],
        w(sp) - 4,
    )
    .named("read_base");
    let port = ram.read4(c, base);
    let r = alu(op, imm, [port[3], port[2], port[1], port[0]], port[0]);

    // Local instructions: one cycle, results at sp − pops (and sp − pops + 1).
    let local = (in_exec & is_local & !err).named("exec_local");
    let at = w(sp) - w(pops);
    ram.write4(
        c,
        store.mux(w(n8), at),
        &[
            WordWrite {
                enable: local & (pushes.ne(0) | store),
                data: r.r0,
            },
            WordWrite {
                enable: local & (is(op, Dup) | is(op, Swap)),
                data: r.r1,
            },
        ],
    );

    // Control, texture read, pipeline requests.
    let raystop = in_exec & is(op, RayStop);
    let endcase = in_exec & is(op, EndCase) & !err;
    let randsel_go = in_exec & randsel & !err;
    let tex_go = in_exec & is_tex & !err & !creq_busy;
    let pipe_cycle = in_exec & is_pipe & !err & (step.q().ne(0) | !creq_busy);
    let pipe_last = pipe_cycle & (step4 + 4).ge(w(npop));

    // RANDSEL: sum pass, then scan pass for k = the first i with w0+…+wi > r, or n − 1.
    let weight = port[0].msb().mux(m.lit(0, 32), port[0]).zext(40);
    let last_weight = step.q().eq(npop - 1);
    let sum_next = sum.q() + weight;
    let r_draw = draw.q().mul_full(sum.q()).bits(71, 32).named("randsel_r");
    let prefix_next = prefix.q() + weight;
    let found = in_scan & (r_draw.lt(prefix_next) | last_weight);

    let (next_pc, next_fetch) = advance(pc, straddle, len);
    let lit3 = |m: &mut Module, v: u64| m.lit(v, 3);
    let (out, run, fetch) = (
        lit3(m, state::OUT),
        lit3(m, state::RUN),
        lit3(m, state::FETCH),
    );
    let moves_on = local | endcase | found;
    s.st.set_at(c, err | raystop, out);
    s.st.set_at(c, moves_on, next_fetch.mux(fetch, run));
    s.st.set_at(c, tex_go, lit3(m, state::WTEX));
    s.st.set_at(c, pipe_last, lit3(m, state::WPIPE));
    s.reason.set_at(c, err, err_code);
    s.reason
        .set_at(c, raystop, lit3(m, Reason::Done.code() as u64));
    s.pc.set_at(c, moves_on, next_pc);
    s.straddle.set_at(c, moves_on, m.lit(0, 1));
    let popped = (w(sp) - w(npop)).resize(p.sp_w);
    s.sp.set_at(c, local, (at + w(pushes)).resize(p.sp_w));
    s.sp.set_at(c, found | pipe_last, popped);
    s.skip.set_at(c, endcase, m.lit(mode::EXIT, 2));
    s.skip.set_at(c, found, m.lit(mode::SEEK, 2));
    s.in_pair.set_at(c, endcase | found, m.lit(0, 1));
    s.pairs.set_at(c, found, step.q());
    s.origin.set_at(c, endcase | found, pc);
    s.restore
        .set_at(c, endcase | found, found.mux(npop, m.lit(0, 8)));
    let drawn = prng_next(s.prng.at(c));
    s.prng.set_at(c, randsel_go, drawn);
    s.npush.set_at(c, pipe_last, pushes);
    s.wlen.set_at(c, tex_go | pipe_last, len);

    // Sequencing.
    let done = err | local | raystop | endcase | tex_go | pipe_last;
    finishing.drive(done | found);
    let lit2 = |m: &mut Module, v: u64| m.lit(v, 2);
    let xs_next = priority_select(
        &[
            (iss.start, lit2(m, EXEC)),
            (randsel_go, lit2(m, SUM)),
            (in_sum & last_weight, lit2(m, SCAN)),
            (done | found, lit2(m, DECODE)),
        ],
        xs.q(),
    );
    xs.next(xs_next);
    let zero8 = m.lit(0, 8);
    let step_next = priority_select(
        &[
            (iss.start | randsel_go | pipe_last | found, zero8),
            (in_sum & last_weight, zero8),
            (pipe_cycle | in_sum | in_scan, step.q() + 1),
        ],
        step.q(),
    );
    step.next(step_next);
    sum.next(randsel_go.mux(m.lit(0, 40), in_sum.mux(sum_next, sum.q())));
    prefix.next(in_sum.mux(m.lit(0, 40), in_scan.mux(prefix_next, prefix.q())));
    draw.next_when(randsel_go, drawn);

    // The request register.
    let kind = |m: &mut Module, k: u64| m.lit(k, 2);
    let args = (0..MAX_PIPE_ARGS)
        .map(|a| {
            let mine = step.q().eq((a / 4) as u64);
            let en = pipe_cycle & (mine | (step.q().eq(0) & m.lit((a >= 4) as u64, 1)));
            let live = mine & m.lit(a as u64, 8).lt(npop);
            (en, live.mux(port[(a % 4) as usize], m.lit(0, 32)))
        })
        .collect();
    ReqLoad {
        issue: iss.ifetch | tex_go | pipe_last,
        kind: iss.ifetch.mux(
            kind(m, CREQ_IFETCH),
            tex_go.mux(kind(m, CREQ_TEXREAD), kind(m, CREQ_PIPE)),
        ),
        slot: iss.ifetch.mux(iss.slot, c),
        ray_id: iss.ifetch.mux(iss.ray_id, s.ray_id.at(c)),
        epoch: iss.ifetch.mux(iss.epoch, s.epoch.at(c)),
        op,
        imm: n8,
        addr: iss.ifetch.mux(iss.fetch_addr, port[1]),
        args,
    }
}
