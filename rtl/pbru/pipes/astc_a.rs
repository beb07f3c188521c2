//! The adapter from the generic [`PipeReq`]/[`PipeResp`] words to ASTC_A (`pbru.md` §5.2; the
//! ISA's TEX_A: `u v sqrt_cov base dims format → block_addr tx ty`): `a[0]` u, `a[1]` v, `a[2]`
//! √coverage (Q16.16), `a[3]` base (block units), `a[4]` dims = `width << 16 | height`, `a[5]`
//! format = `bw | bh << 4 | mips << 8`; results `r[0]` the block address (block units), `r[1]`
//! tx, `r[2]` ty, `r[3]` 0.

use super::{pipe_around, word};
use crate::astc::a::{astc_a, AddrReq, AstcACfg};
use crate::pbru::ports::{PipeOut, PipeReq, PipeResp, TAG_W};
use crate::stream::pipe::map;
use rendergen_hdl::{cat_lsb_first, name_lets, Module, Stream};

fn a_cfg() -> AstcACfg {
    AstcACfg {
        tag_width: TAG_W,
        ..AstcACfg::default()
    }
}

/// Pipe latency of ASTC_A (its own latency + the output FIFO's cycle).
pub fn astc_a_latency() -> u32 {
    a_cfg().latency() + 1
}

/// ASTC_A behind the generic words (see the module documentation).
#[name_lets]
pub fn astc_a_unit(m: &mut Module, req: Stream<PipeReq>) -> Stream<PipeResp> {
    let req = map(m, "astc_a_args", req, |_, d: &PipeReq| {
        let (dims, format) = (word(d.args, 4), word(d.args, 5));
        AddrReq {
            u: word(d.args, 0),
            v: word(d.args, 1),
            sqrt_coverage: word(d.args, 2),
            base: word(d.args, 3),
            width: dims.slice(16, 15),
            height: dims.slice(0, 15),
            bw: format.slice(0, 4),
            bh: format.slice(4, 4),
            mips: format.slice(8, 4),
            tag: d.tag,
        }
    });
    let rsp = m.child("astc_a", &a_cfg(), req, astc_a);
    map(m, "astc_a_words", rsp, |m, r| PipeResp {
        data: cat_lsb_first(&[
            r.block_address,
            r.texel_x.zext(32),
            r.texel_y.zext(32),
            m.lit(0, 32),
        ]),
        tag: r.tag,
    })
}

/// The pipe of ASTC_A ([`pbru_pipe`](super::pbru_pipe) for a real ASTC_A), as its own module.
pub fn astc_a_pipe(m: &mut Module, _cfg: &(), req: Stream<PipeReq>) -> PipeOut {
    pipe_around(m, astc_a_latency() + 2, req, astc_a_unit)
}
