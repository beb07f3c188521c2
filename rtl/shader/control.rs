//! The mask stack of one warp: structured control flow (`if`/`else`/`endif`, `loop`/`brk`/
//! `cont`/`endloop`, `end`) resolved one cycle after issue, when the condition register has
//! been read (ISA.md, "Control flow"). Combinational: the caller keeps the state in registers
//! (one [`Frame`] per nesting level, [`MAX_DEPTH`] of them, and the depth).

use rendergen_hdl::{index_select, name_lets, Bundle, Module, Sig};
use rendergen_shader_isa::{Opcode, WarpError, MAX_DEPTH};

/// What a jump expects at its target (`Resolved::expect`, 3 bits).
pub mod expect {
    /// No jump.
    pub const NONE: u64 = 0;
    /// `if` → its `else` or `endif`.
    pub const ELSE_OR_ENDIF: u64 = 1;
    /// `else` → its `endif`.
    pub const ENDIF: u64 = 2;
    /// `loop` → its `endloop`.
    pub const ENDLOOP: u64 = 3;
    /// `endloop` → its `loop`, which is then skipped (execution continues after it).
    pub const LOOP_SKIP: u64 = 4;
}

/// One mask-stack frame.
#[derive(Bundle, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame<T = Sig> {
    /// A loop frame (else an if frame).
    pub is_loop: T,
    /// An if frame whose `else` ran.
    pub in_else: T,
    /// The mask at the `if`/`loop`.
    pub outer: T,
    /// If: the lanes that still run the `else`; loop: the lanes still in the loop (`live`).
    pub other: T,
}

/// The next state of a warp after a control instruction.
pub struct Resolved {
    /// Next frames.
    pub frames: Vec<Frame>,
    /// Next depth (5 bits).
    pub depth: Sig,
    /// Next active mask.
    pub mask: Sig,
    /// The instruction jumps to its target (`expect` says what must be there).
    pub jump: Sig,
    /// What the target must hold (3 bits, [`expect`]).
    pub expect: Sig,
    /// Error code (4 bits, 0 = none).
    pub error: Sig,
    /// `end` at depth 0.
    pub done: Sig,
}

/// Resolves control instruction `op` (8-bit opcode) of a warp with active mask `mask`, condition
/// lanes `cond` (register `a` ≠ 0, all lanes), `frames` and `depth` (5 bits).
#[name_lets]
pub fn resolve(
    m: &mut Module,
    op: Sig,
    mask: Sig,
    cond: Sig,
    frames: &[Frame],
    depth: Sig,
) -> Resolved {
    let lanes = mask.width();
    let is = |o: Opcode| op.eq(o as u64);
    let (op_if, op_else, op_endif, op_loop) = (
        is(Opcode::If),
        is(Opcode::Else),
        is(Opcode::Endif),
        is(Opcode::Loop),
    );
    let (op_brk, op_cont, op_endloop, op_end) = (
        is(Opcode::Brk),
        is(Opcode::Cont),
        is(Opcode::Endloop),
        is(Opcode::End),
    );
    let nonempty = depth.ne(0);
    let full = depth.eq(MAX_DEPTH as u64);
    let top_idx = (depth - 1).bits(3, 0);
    let top_loop = index_select(
        top_idx,
        &frames.iter().map(|f| f.is_loop).collect::<Vec<_>>(),
    );
    let top_in_else = index_select(
        top_idx,
        &frames.iter().map(|f| f.in_else).collect::<Vec<_>>(),
    );
    let top_outer = index_select(top_idx, &frames.iter().map(|f| f.outer).collect::<Vec<_>>());
    let top_other = index_select(top_idx, &frames.iter().map(|f| f.other).collect::<Vec<_>>());
    let taken = mask & cond;
    let zero = m.lit(0, lanes);
    // Frames in use, loop frames among them, and which lie above the innermost loop.
    let in_use: Vec<Sig> = (0..frames.len()).map(|i| depth.gt(i as u64)).collect();
    let mut seen_loop = m.lit(0, 1);
    let mut above = vec![seen_loop; frames.len()];
    let mut innermost = vec![seen_loop; frames.len()];
    for i in (0..frames.len()).rev() {
        let is_loop_here = in_use[i] & frames[i].is_loop;
        innermost[i] = is_loop_here & !seen_loop;
        seen_loop = seen_loop | is_loop_here;
        above[i] = in_use[i] & !seen_loop;
    }
    let has_loop = seen_loop;
    let leave = op_brk | op_cont;
    let push = (op_if | op_loop) & !full;
    let new_frame = Frame {
        is_loop: op_loop,
        in_else: m.lit(0, 1),
        outer: mask,
        other: op_if.mux(mask & !cond, mask),
    };
    let next_frames: Vec<Frame> = (0..frames.len())
        .map(|i| {
            let f = frames[i];
            let here_push = push & depth.eq(i as u64);
            let here_top = nonempty & top_idx.eq(i as u64);
            let strip = leave & above[i] & !f.is_loop;
            let outer = strip.mux(f.outer & !taken, f.outer);
            let other = strip.mux(f.other & !taken, f.other);
            let other = (op_brk & innermost[i]).mux(f.other & !taken, other);
            let other = (op_else & here_top).mux(zero, other);
            let in_else = (op_else & here_top) | f.in_else;
            let kept = Frame {
                is_loop: f.is_loop,
                in_else,
                outer,
                other,
            };
            Frame {
                is_loop: here_push.mux(new_frame.is_loop, kept.is_loop),
                in_else: here_push.mux(new_frame.in_else, kept.in_else),
                outer: here_push.mux(new_frame.outer, kept.outer),
                other: here_push.mux(new_frame.other, kept.other),
            }
        })
        .collect();
    let live = top_other;
    let loop_again = op_endloop & live.ne(0);
    let pop = op_endif | (op_endloop & live.eq(0));
    let next_depth = push.mux(depth + 1, pop.mux(depth - 1, depth));
    let next_mask = rendergen_hdl::priority_select(
        &[
            (op_if, taken),
            (op_else, top_other),
            (op_endif, top_outer),
            (leave, mask & !taken),
            (op_endloop, live.ne(0).mux(live, top_outer)),
        ],
        mask,
    );
    let lit3s: Vec<Sig> = (0..5).map(|v| m.lit(v, 3)).collect();
    let lit3 = |v: u64| lit3s[v as usize];
    let jump_if = op_if & taken.eq(0);
    let jump_else = op_else & top_other.eq(0);
    let jump_loop = op_loop & mask.eq(0);
    let expect_code = rendergen_hdl::priority_select(
        &[
            (jump_if, lit3(expect::ELSE_OR_ENDIF)),
            (jump_else, lit3(expect::ENDIF)),
            (jump_loop, lit3(expect::ENDLOOP)),
            (loop_again, lit3(expect::LOOP_SKIP)),
        ],
        lit3(expect::NONE),
    );
    let bad = (op_end & nonempty)
        | (op_else & !(nonempty & !top_loop & !top_in_else))
        | (op_endif & !(nonempty & !top_loop))
        | (op_endloop & !(nonempty & top_loop))
        | (leave & !has_loop);
    let overflow = (op_if | op_loop) & full;
    let codes: Vec<Sig> = (0..9).map(|v| m.lit(v, 4)).collect();
    let code = |e: WarpError| codes[e.code() as usize];
    let error = bad.mux(
        code(WarpError::BadControl),
        overflow.mux(code(WarpError::MaskStackOverflow), m.lit(0, 4)),
    );
    Resolved {
        frames: next_frames,
        depth: next_depth,
        mask: next_mask,
        jump: jump_if | jump_else | jump_loop | loop_again,
        expect: expect_code,
        error,
        done: op_end & !nonempty,
    }
}
