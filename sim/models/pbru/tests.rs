//! Hand-computed unit tests of every opcode and of the error outcomes.

use super::*;
use rendergen_isa::{asm::assemble, prng_next, prng_seed, RayError};

const ONE: u32 = 0x1_0000;
const BASE: u32 = 0x200;

fn q(x: f64) -> u32 {
    (x * 65536.0).round() as i32 as u32
}

/// Runs `src` at `BASE` with `stack`, depth 8.
fn exec(src: &str, stack: &[u32]) -> FinalRay {
    exec_depth(src, stack, 8)
}

fn exec_depth(src: &str, stack: &[u32], depth: u32) -> FinalRay {
    let mut mem = Memory::new();
    mem.write(BASE, &assemble(src).unwrap());
    run(&mem, &Ray::new(3, BASE, stack.to_vec()), depth).unwrap()
}

/// The stack after `src` (which must end in a RAYSTOP that is reached).
fn stack(src: &str, stack: &[u32]) -> Vec<u32> {
    let r = exec(src, stack);
    assert_eq!(r.reason, Reason::Done, "{src}");
    r.stack
}

fn error(src: &str, stack: &[u32]) -> (RayError, u32) {
    match exec(src, stack) {
        FinalRay {
            reason: Reason::Error(e),
            inst_addr,
            index,
            ..
        } => (e, inst_addr + index - BASE),
        r => panic!("{src}: no error: {r:?}"),
    }
}

#[test]
fn stack_opcodes() {
    assert_eq!(stack("NOP\nPUSH 0x12345678\nRAYSTOP", &[]), [0x1234_5678]);
    assert_eq!(stack("LOAD 1\nRAYSTOP", &[10, 20, 30]), [10, 20, 30, 20]);
    assert_eq!(stack("STORE 0\nRAYSTOP", &[10, 20, 30]), [30, 20]);
    assert_eq!(stack("POP\nRAYSTOP", &[10, 20]), [10]);
    assert_eq!(stack("DUP\nRAYSTOP", &[10, 20]), [10, 20, 20]);
    assert_eq!(stack("SWAP\nRAYSTOP", &[10, 20]), [20, 10]);
    assert_eq!(
        stack("PICK 0\nPICK 2\nRAYSTOP", &[10, 20]),
        [10, 20, 20, 10]
    );
}

#[test]
fn arithmetic_opcodes() {
    let s = |src: &str, a: &[u32]| stack(&format!("{src}\nRAYSTOP"), a)[0];
    assert_eq!(s("ADD", &[q(1.5), q(2.25)]), q(3.75));
    assert_eq!(s("ADD", &[0x7FFF_FFFF, 1]), 0x8000_0000);
    assert_eq!(s("SUB", &[q(1.0), q(3.5)]), q(-2.5));
    assert_eq!(s("MUL", &[q(1.5), q(-2.0)]), q(-3.0));
    // 2^-16 · 0.5 = 2^-17: rounds half up to 2^-16; −2^-17 rounds up to 0.
    assert_eq!(s("MUL", &[1, q(0.5)]), 1);
    assert_eq!(s("MUL", &[(-1i32) as u32, q(0.5)]), 0);
    assert_eq!(s("MUL", &[q(300.0), q(300.0)]), q(90000.0 - 65536.0)); // wraps
    assert_eq!(s("LERP", &[q(1.0), q(3.0), q(0.25)]), q(1.5));
    assert_eq!(s("MIN", &[q(-1.0), q(2.0)]), q(-1.0));
    assert_eq!(s("MAX", &[q(-1.0), q(2.0)]), q(2.0));
    assert_eq!(s("CLAMP", &[q(5.0), q(0.0), ONE]), ONE);
    assert_eq!(s("CLAMP", &[q(-5.0), q(0.0), ONE]), 0);
    assert_eq!(s("CLAMP", &[q(0.5), q(0.0), ONE]), q(0.5));
    assert_eq!(s("SELLT", &[q(-1.0), 0, 111, 222]), 111);
    assert_eq!(s("SELLT", &[0, 0, 111, 222]), 222);
    assert_eq!(s("NEG", &[q(2.5)]), q(-2.5));
    assert_eq!(s("ABS", &[q(-2.5)]), q(2.5));
    assert_eq!(s("ABS", &[0x8000_0000]), 0x8000_0000);
}

#[test]
fn raystop_position_is_chunk_base_and_offset() {
    // 36 NOPs put the RAYSTOP at BASE + 36: chunk BASE + 32, index 4.
    let src = format!("{}RAYSTOP", "NOP\n".repeat(36));
    let r = exec(&src, &[1]);
    assert_eq!(
        (r.inst_addr, r.index, r.reason),
        (BASE + 32, 4, Reason::Done)
    );
    // An instruction straddling a chunk boundary: PUSH at offset 30.
    let src = format!("{}PUSH 0x01020304\nRAYSTOP", "NOP\n".repeat(30));
    let r = exec(&src, &[]);
    assert_eq!(
        (r.stack[0], r.inst_addr, r.index),
        (0x0102_0304, BASE + 32, 3)
    );
    // A ray may start mid-program (index > 31 is allowed on input).
    let mut mem = Memory::new();
    mem.write(BASE, &assemble(&src).unwrap());
    let ray = Ray {
        index: 30,
        ..Ray::new(1, BASE, vec![])
    };
    assert_eq!(run(&mem, &ray, 4).unwrap().stack, [0x0102_0304]);
}

#[test]
fn error_outcomes_point_at_the_instruction() {
    assert_eq!(error("NOP\n.byte 0xEE", &[]), (RayError::UnknownOpcode, 1));
    assert_eq!(error("ADD", &[1]), (RayError::StackUnderflow, 0));
    assert_eq!(error("NOP\nLOAD 2", &[1, 2]), (RayError::StackUnderflow, 1));
    assert_eq!(error("PICK 2", &[1, 2]), (RayError::StackUnderflow, 0));
    assert_eq!(error("STORE 1", &[1, 2]), (RayError::StackUnderflow, 0));
    assert_eq!(error("TEX_READ", &[1, 2]), (RayError::StackUnderflow, 0));
    assert_eq!(
        error("TEX_A", &[1, 2, 3, 4, 5]),
        (RayError::StackUnderflow, 0)
    );
    let full = [0u32; 8];
    assert_eq!(error("PUSH 1", &full), (RayError::StackOverflow, 0));
    assert_eq!(error("DUP", &full), (RayError::StackOverflow, 0));
    assert_eq!(error("NOP\nPICK 0", &full), (RayError::StackOverflow, 1));
    assert_eq!(error("RANDSEL 0", &[1]), (RayError::BadControl, 0));
    assert_eq!(error("CASE", &[]), (RayError::BadControl, 0));
    // The faulting instruction has no effect.
    assert_eq!(exec("ADD", &[7]).stack, [7]);
    // Underflow is checked before overflow.
    assert_eq!(error("GGX", &full), (RayError::StackUnderflow, 0));
}

#[test]
fn shading_opcodes_use_their_pipelines() {
    // SCHLICK pops F0(rgb) F90(rgb) cos, pushes F(rgb): cos = 1 gives F0.
    let r = stack("SCHLICK\nRAYSTOP", &[9, 1, 2, 3, 4, 5, 6, 0x1_0000]);
    assert_eq!(r, [9, 1, 2, 3]);
    // CEL through the reset table: N·L = 1 → the top band's 1.0.
    let r = stack("CEL\nRAYSTOP", &[0, 0, 0x1_0000, 0, 0, 0x1_0000]);
    assert_eq!(r, [0x1_0000]);
}

#[test]
fn texture_opcodes_through_the_golden_models() {
    // A 16x8 texture of 4x4 blocks, one level, at block 100; a void-extent block (colour
    // 0.5, 0.25, 0, 1) at block 100 + 1 + 4 = 105 (bx = 1, by = 1 of a 4-block-wide level).
    let mut b = [0u8; 16];
    b[0] = 0xFC;
    b[1] = 0xFD;
    b[2..8].fill(0xFF);
    for (i, c) in [0x8000u16, 0x4000, 0, 0xFFFF].iter().enumerate() {
        b[8 + 2 * i..10 + 2 * i].copy_from_slice(&c.to_le_bytes());
    }
    let mut mem = Memory::new();
    mem.write_blocks(105, &[b]);
    let src = "PUSH 0.375q\nPUSH 0.75q\nPUSH 0q\nPUSH 100\nPUSH 0x00100008\nPUSH 0x144\n\
               TEX_A\nTEX_READ\nPUSH 0x144\nTEX_DP 0\nRAYSTOP";
    mem.write(BASE, &assemble(src).unwrap());
    let r = run(&mem, &Ray::new(1, BASE, vec![]), 8).unwrap();
    // u 0.375 · 16 = 6 → bx 1, x 2; v 0.75 · 8 = 6 → by 1, y 2.
    assert_eq!(r.stack, [0x8001, 0x4000, 0, ONE]);
    let stop =
        "PUSH 0.375q\nPUSH 0.75q\nPUSH 0q\nPUSH 100\nPUSH 0x00100008\nPUSH 0x144\nTEX_A\nRAYSTOP";
    assert_eq!(stack(stop, &[]), [105, 2, 2]);
    // An illegal footprint is undefined: the model has no answer.
    mem.write(
        BASE,
        &assemble("PUSH 105\nPUSH 0\nPUSH 0\nPUSH 0x33\nTEX_DP 0\nRAYSTOP").unwrap(),
    );
    let e = run(&mem, &Ray::new(1, BASE, vec![]), 8).unwrap_err();
    assert!(
        matches!(e, NoAnswer::Undefined { pc, .. } if pc == BASE + 20),
        "{e}"
    );
}

/// Weights 1 and 3; the case taken follows the ray's first PRNG draw.
fn randsel_program() -> &'static str {
    "PUSH 1.0q\nPUSH 3.0q\nRANDSEL 2\nPUSH 99\n\
     CASE\nPUSH 10\nENDCASE\nCASE\nPUSH 20\nENDCASE\nPUSH 7\nRAYSTOP"
}

#[test]
fn randsel_takes_the_case_of_the_prng_draw() {
    let mut mem = Memory::new();
    mem.write(BASE, &assemble(randsel_program()).unwrap());
    let mut seen = [false; 2];
    for id in 0..40 {
        let mut state = prng_seed(id);
        let x = prng_next(&mut state);
        let case = (x as u64 * 4 < 1 << 32) as usize ^ 1; // r = 4x/2^32 < 1 → case 0
        let want = [vec![10, 7], vec![20, 7]][case].clone();
        let r = run(&mem, &Ray::new(id, BASE, vec![]), 8).unwrap();
        assert_eq!(r.stack, want, "ray {id}");
        seen[case] = true;
    }
    assert_eq!(seen, [true, true]);
    assert_eq!(prng_seed(0), 1);
    assert_eq!(prng_seed(1), 0x9E37_79B9);
    let mut s = 1;
    assert_eq!(prng_next(&mut s), 0x4_2021); // 1 ^ 1<<13 = 0x2001 → ^>>17 = 0x2001 → ^<<5
}

#[test]
fn bad_control_while_skipping() {
    // Fewer cases than chosen: the RAYSTOP is found while seeking.
    assert_eq!(
        error("PUSH 0\nPUSH 1.0q\nRANDSEL 2\nCASE\nENDCASE\nRAYSTOP", &[]),
        (RayError::BadControl, 14)
    );
    // Nested CASE in a skipped case, found by the ENDCASE's exit.
    assert_eq!(
        error("PUSH 1.0q\nRANDSEL 1\nCASE\nENDCASE\nCASE\nCASE", &[]),
        (RayError::BadControl, 10)
    );
    // Skipping decodes lengths: PUSH 0x22222222 inside a skipped case is not a CASE.
    let src = "PUSH 0\nPUSH 1.0q\nRANDSEL 2\nCASE\nPUSH 0x22222222\nENDCASE\nCASE\nPUSH 5\nENDCASE\nRAYSTOP";
    assert_eq!(stack(src, &[]), [5]);
    // An unknown byte met while skipping.
    assert_eq!(
        error(
            "PUSH 0\nPUSH 1.0q\nRANDSEL 2\nCASE\n.byte 0xEE\nENDCASE",
            &[]
        ),
        (RayError::UnknownOpcode, 13)
    );
}

#[test]
fn endless_program_hits_the_step_limit() {
    let mem = Memory::new(); // all NOPs
    let e = run(&mem, &Ray::new(1, 0, vec![]), 8).unwrap_err();
    assert!(matches!(e, NoAnswer::StepLimit { .. }));
}

#[test]
fn callouts_run_on_the_sm_and_resume() {
    let mut mem = Memory::new();
    let src = "PUSH 3.0q\nRAYSTOP\n.byte 0xFC, 0\nPUSH 1.0q\nADD\nRAYSTOP\n.byte 0xFC, 2\nRAYSTOP";
    mem.write(BASE, &assemble(src).unwrap());
    let (r, calls) = golden(&mem, &Ray::new(77, BASE, vec![]), 8).unwrap();
    assert_eq!((&r.stack, calls), (&vec![q(10.0), 77], 2));
    assert_eq!(r.pc(), BASE + 17);
    assert!(rendergen_isa::Opcode::from_byte(CALLOUT_MARKER).is_none());
}
