//! `tex_answer`: the trilinear lerp between levels and the assembly of a quad's answer.

use super::{lerp16, LaneResult, TexAnswer, TexCfg};
use rendergen_hdl::{name_lets, Io, Module, Sig, Stream};

/// What [`tex_answer`] takes.
#[derive(Io)]
pub struct AnswerIn {
    /// One lane's words per footprint, in order.
    pub lanes: Stream<LaneResult>,
}

/// What [`tex_answer`] gives.
#[derive(Io)]
pub struct AnswerOut {
    /// One answer per quad, in order.
    pub answer: Stream<TexAnswer>,
}

/// Collects a quad's lanes into one answer.
///
/// * **Protocol:** stream rules; answers in order; lanes outside the mask answer 0.
/// * **Timing:** one lane result per clock; the answer register is valid the clock after the
///   quad's last footprint arrives (latency 1); `lanes.ready` depends on `answer.ready` only
///   for a quad's last footprint.
/// * **Cost:** a 16-word accumulator, a 16-word answer register, the finer level's 4 channels
///   held for a trilinear lane, 4 lerps.
#[name_lets]
pub fn tex_answer(m: &mut Module, _cfg: &TexCfg, i: AnswerIn) -> AnswerOut {
    let (v, r, ready) = i.lanes.split();
    let out_valid = m.reg("out_valid", 1).reset(0);
    let out_ready = m.wire("out_ready", 1);
    let take = !r.pos.last | !out_valid.q() | out_ready.sig();
    ready.drive(take);
    let accept = v & take;
    let fine: Vec<Sig> = (0..4)
        .map(|c| {
            let h = m.reg(&format!("fine_{c}"), 16);
            h.next_when(accept & r.pos.two & !r.pos.second, r.words[c].bits(15, 0));
            h.q()
        })
        .collect();
    let words: Vec<Sig> = (0..4)
        .map(|c| {
            r.pos.second.mux(
                lerp16(fine[c], r.words[c].bits(15, 0), r.pos.delta).zext(32),
                r.words[c],
            )
        })
        .collect();
    let write = accept & r.pos.fetch & !(r.pos.two & !r.pos.second);
    let finish = accept & r.pos.last;
    let mut next_acc = Vec::new();
    for k in 0..16usize {
        let reg = m.reg(&format!("acc_{k}"), 32).reset(0);
        let mine = write & r.pos.lane.eq(k as u64 / 4);
        let with = mine.mux(words[k % 4], reg.q());
        reg.next(finish.mux(m.lit(0, 32), accept.mux(with, reg.q())));
        next_acc.push(with);
    }
    let answer_next = TexAnswer {
        slot: r.tag.slot,
        quad: r.tag.quad,
        mask: r.tag.mask,
        mode: r.tag.mode,
        patch: r.tag.patch,
        subop: r.tag.subop,
        level: r.tag.level,
        words: next_acc,
    };
    let held = m.reg_bundle("out", &answer_next, Some(finish));
    out_valid.next(finish | (out_valid.q() & !out_ready.sig()));
    let (answer, a_ready) = Stream::offer(m, "answer", out_valid.q(), held);
    out_ready.drive(a_ready);
    AnswerOut { answer }
}
