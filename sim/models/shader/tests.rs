use super::*;
use rendergen_shader_isa::asm::{assemble, assemble_for};

fn asm(src: &str) -> Vec<u64> {
    assemble_for(src, 64).unwrap_or_else(|e| panic!("{e}"))
}

fn f(x: f32) -> u32 {
    x.to_bits()
}

/// Runs `src` on `launch` with a fresh [`MemoryEnv`] and the default configuration.
fn go(src: &str, launch: &Launch) -> (Outcome, MemoryEnv) {
    let mut env = MemoryEnv::default();
    let out = run(&asm(src), &Config::default(), launch, &mut env);
    (out, env)
}

/// Export location `loc` of every lane (first word), `None` where nothing was exported.
fn exported(out: &Outcome, loc: u32) -> Vec<Option<u32>> {
    (out.exports.iter())
        .map(|e| e.get(&loc).map(|w| w[0]))
        .collect()
}

#[test]
fn small_programs_give_hand_computed_f32_results() {
    let mut launch = Launch::new(1);
    launch.regs = vec![vec![f(1.5), f(2.25)]; 4];
    let (out, _) = go(
        "fadd r2, r0, r1        ; 3.75\n\
         fmul r3, r0, r1        ; 3.375\n\
         movi r10, 0.125\n\
         ffma r4, r0, r1, r10   ; 3.5\n\
         fsub r5, r0, r1        ; -0.75\n\
         fmin r6, r0, r1\n\
         fmax r7, r0, r1\n\
         movi r11, 4.0\n\
         rcp r8, r11            ; 0.25\n\
         rsqrt r9, r11          ; 0.5\n\
         sqrt r12, r1           ; 1.5\n\
         movi r13, 3.0\n\
         exp2 r14, r13          ; 8\n\
         movi r15, 8.0\n\
         log2 r16, r15          ; 3\n\
         movi r17, -1.5\n\
         floor r18, r17         ; -2\n\
         ceil r19, r17          ; -1\n\
         trunc r20, r17         ; -1\n\
         movi r21, 1.75\n\
         fract r22, r21         ; 0.75\n\
         movi r23, -2.5\n\
         f2i r24, r23           ; -2\n\
         rndeven r25, r23       ; -2\n\
         movi r26, 7\n\
         i2f r27, r26           ; 7.0\n\
         movi r28, 0.1\n\
         movi r29, 0.2\n\
         fadd r30, r28, r29     ; 0.3f exactly (0x3E99999A)\n\
         movi r31, 0x0D800000   ; 2^-100\n\
         movi r32, 0x30800000   ; 2^-30\n\
         fmul r33, r31, r32     ; 2^-130 is subnormal: +0\n\
         movi r34, 1            ; the smallest subnormal\n\
         fneg r35, r34          ; flushed: -0\n\
         movi r36, 0.0\n\
         sin r37, r36           ; 0\n\
         cos r38, r36           ; 1\n\
         flt r39, r0, r1        ; 1\n\
         fge r40, r0, r1        ; 0\n\
         fabs r41, r5           ; 0.75\n\
         faddi r42, r0, 0.5     ; 2.0\n\
         fmuli r43, r1, -4      ; -9.0\n\
         rcp r44, r36           ; +inf\n\
         fsub r45, r44, r44     ; NaN: canonical\n\
         feq r46, r45, r45      ; 0\n\
         fne r47, r45, r45      ; 1\n\
         end",
        &launch,
    );
    assert_eq!(out.error, None);
    let want: [(usize, u32); 43] = [
        (2, f(3.75)),
        (3, f(3.375)),
        (4, f(3.5)),
        (5, f(-0.75)),
        (6, f(1.5)),
        (7, f(2.25)),
        (8, f(0.25)),
        (9, f(0.5)),
        (12, f(1.5)),
        (14, f(8.0)),
        (16, f(3.0)),
        (18, f(-2.0)),
        (19, f(-1.0)),
        (20, f(-1.0)),
        (22, f(0.75)),
        (24, (-2i32) as u32),
        (25, f(-2.0)),
        (27, f(7.0)),
        (28, 0x3DCC_CCCD),
        (29, 0x3E4C_CCCD),
        (30, 0x3E99_999A),
        (33, 0),
        (34, 1),
        (35, 0x8000_0000),
        (37, 0),
        (38, f(1.0)),
        (39, 1),
        (40, 0),
        (41, f(0.75)),
        (42, f(2.0)),
        (43, f(-9.0)),
        (44, 0x7F80_0000),
        (45, 0x7FC0_0000),
        (46, 0),
        (47, 1),
        (0, f(1.5)),
        (1, f(2.25)),
        (10, f(0.125)),
        (11, f(4.0)),
        (13, f(3.0)),
        (15, f(8.0)),
        (17, f(-1.5)),
        (36, 0),
    ];
    for lane in 0..4 {
        for (r, v) in want {
            assert_eq!(out.regs[lane][r], v, "lane {lane} r{r}");
        }
    }
    assert_eq!(out.executed, 47);
}

#[test]
fn integer_operations() {
    let (out, _) = go(
        "movi r0, -7\n\
         movi r1, 3\n\
         iadd r2, r0, r1     ; -4\n\
         isub r3, r1, r0     ; 10\n\
         imul r4, r0, r1     ; -21\n\
         movi r5, 0x80000001\n\
         shl r6, r5, r1      ; 8\n\
         shr r7, r5, r1      ; 0x10000000\n\
         sar r8, r5, r1      ; 0xF0000000\n\
         movi r9, 35\n\
         shl r10, r1, r9     ; shift by 35 & 31 = 3: 24\n\
         and r11, r0, r1     ; 1\n\
         or r12, r0, r1      ; -5\n\
         xor r13, r0, r1     ; -6\n\
         not r14, r1         ; -4\n\
         ilt r15, r0, r1     ; 1\n\
         ult r16, r0, r1     ; 0\n\
         ile r17, r1, r1     ; 1\n\
         ieq r18, r0, r1     ; 0\n\
         ine r19, r0, r1     ; 1\n\
         ule r20, r1, r0     ; 1\n\
         sel r21, r15, r0, r1 ; -7\n\
         sel r22, r16, r0, r1 ; 3\n\
         iaddi r23, r0, -1   ; -8\n\
         imuli r24, r1, 0x55555556 ; 3 * 0x55555556 = 0x1_0000_0002 → 2\n\
         sari r25, r0, 1     ; -4\n\
         shri r26, r0, 28    ; 0xF\n\
         mov r27, r26\n\
         lane r28\n\
         quad r29\n\
         warp r30\n\
         end",
        &Launch {
            warp_id: 9,
            ..Launch::new(2)
        },
    );
    assert_eq!(out.error, None);
    let i = |v: i32| v as u32;
    let want = [
        (2, i(-4)),
        (3, 10),
        (4, i(-21)),
        (6, 8),
        (7, 0x1000_0000),
        (8, 0xF000_0000),
        (10, 24),
        (11, 1),
        (12, i(-5)),
        (13, i(-6)),
        (14, i(-4)),
        (15, 1),
        (16, 0),
        (17, 1),
        (18, 0),
        (19, 1),
        (20, 1),
        (21, i(-7)),
        (22, 3),
        (23, i(-8)),
        (24, 2),
        (25, i(-4)),
        (26, 0xF),
        (27, 0xF),
        (30, 9),
    ];
    for lane in 0..8 {
        for (r, v) in want {
            assert_eq!(out.regs[lane][r], v, "lane {lane} r{r}");
        }
        assert_eq!(out.regs[lane][28], lane as u32);
        assert_eq!(out.regs[lane][29], lane as u32 / 4);
    }
}

#[test]
fn divergent_if_else_gives_per_lane_results() {
    let src = "\
        lane r0\n\
        movi r1, 2\n\
        ilt r2, r0, r1        ; lanes 0, 1\n\
        movi r5, 0xAAAA       ; untouched marker\n\
        if r2\n\
          imuli r3, r0, 10\n\
          movi r6, 1\n\
        else\n\
          iaddi r3, r0, 100\n\
          movi r7, 3\n\
          ieq r4, r0, r7      ; lane 3 (and 7)\n\
          if r4\n\
            iaddi r3, r3, 1000\n\
          endif\n\
        endif\n\
        movi r8, 0            ; nobody takes this if: the jump skips it\n\
        if r8\n\
          movi r5, 0xBAD\n\
        else\n\
          iaddi r3, r3, 1\n\
        endif\n\
        movi r9, 1            ; everybody takes this one: the else is skipped\n\
        if r9\n\
          iaddi r3, r3, 1\n\
        else\n\
          movi r5, 0xBAD\n\
        endif\n\
        export 0, r3, 1\n\
        end";
    let (out, _) = go(src, &Launch::new(2));
    assert_eq!(out.error, None);
    let want = [2, 12, 104, 1105, 106, 107, 108, 109];
    assert_eq!(exported(&out, 0), want.map(Some).to_vec());
    for l in 0..8 {
        assert_eq!(out.regs[l][5], 0xAAAA, "lane {l}");
        assert_eq!(out.regs[l][6], (l < 2) as u32, "r6 only where the if ran");
    }
}

/// Per lane `L`: outer `i` = 0, 1, …; leaves (by a `brk` inside an `if`) when `i > L`;
/// odd `i` `cont`inue at once; even `i` run an inner loop of `i + 1` trips (`brk` at its
/// top), then add 100.
#[test]
fn nested_loops_with_brk_and_cont_have_per_lane_trip_counts() {
    let src = "\
        lane r0\n\
        movi r1, 0            ; i\n\
        movi r2, 0            ; acc\n\
        movi r7, 1\n\
        loop\n\
          ilt r3, r0, r1      ; L < i\n\
          if r3\n\
            brk r7\n\
          endif\n\
          andi r4, r1, 1\n\
          iaddi r1, r1, 1\n\
          cont r4\n\
          movi r5, 0          ; j\n\
          loop\n\
            ilt r6, r5, r1    ; j < i + 1\n\
            xori r6, r6, 1\n\
            brk r6\n\
            iaddi r2, r2, 1\n\
            iaddi r5, r5, 1\n\
          endloop\n\
          iaddi r2, r2, 100\n\
        endloop\n\
        export 0, r2, 1\n\
        export 1, r1, 1\n\
        end";
    let (out, _) = go(src, &Launch::new(2));
    assert_eq!(out.error, None);
    let reference = |lane: u32| {
        let (mut acc, mut i) = (0, 0);
        while i <= lane {
            if i % 2 == 0 {
                acc += i + 1 + 100;
            }
            i += 1;
        }
        (acc, i)
    };
    for l in 0..8 {
        let (acc, i) = reference(l as u32);
        assert_eq!(exported(&out, 0)[l], Some(acc), "lane {l}");
        assert_eq!(exported(&out, 1)[l], Some(i), "lane {l}: i at the brk");
    }
    // Lane 0: 101 + ... hand-check two lanes: L=0 → 1+100; L=3 → (1+100)+(3+100).
    assert_eq!(exported(&out, 0)[0], Some(101));
    assert_eq!(exported(&out, 0)[3], Some(204));
}

/// Once every lane has left the loop, the rest of its body is walked with no lanes: the inner
/// `loop` jumps to its `endloop` at once, nothing is written, the lanes come back after it.
#[test]
fn empty_masks_skip_blocks() {
    let src = "\
        movi r1, 1\n\
        loop\n\
          brk r1\n\
          loop\n\
            iaddi r2, r2, 1\n\
            nop\n\
          endloop\n\
          iaddi r3, r3, 1\n\
        endloop\n\
        iaddi r4, r4, 1\n\
        end";
    let (out, _) = go(src, &Launch::new(1));
    assert_eq!(out.error, None);
    // movi loop brk loop→endloop iaddi(no lanes) endloop iaddi end
    assert_eq!(out.executed, 9);
    assert!(out.regs.iter().all(|r| r[2..5] == [0, 0, 1]));
}

#[test]
fn derivatives_coarse_and_fine() {
    let vals = [[1.0, 3.0, 7.0, 15.0], [0.5, 0.25, -2.0, 8.0]];
    let mut launch = Launch::new(2);
    launch.regs = (0..8).map(|l| vec![f(vals[l / 4][l % 4])]).collect();
    let (out, _) = go(
        "ddxc r1, r0\nddyc r2, r0\nddxf r3, r0\nddyf r4, r0\n\
         lane r5\nmovi r6, 3\nine r7, r5, r6\n\
         if r7\n  ddxf r8, r0\nendif     ; lane 3 inactive, but its value is read\nend",
        &launch,
    );
    assert_eq!(out.error, None);
    let want = [
        // ddxc, ddyc, ddxf, ddyf per lane
        [2.0, 6.0, 2.0, 6.0],
        [2.0, 6.0, 2.0, 12.0],
        [2.0, 6.0, 8.0, 6.0],
        [2.0, 6.0, 8.0, 12.0],
        [-0.25, -2.5, -0.25, -2.5],
        [-0.25, -2.5, -0.25, 7.75],
        [-0.25, -2.5, 10.0, -2.5],
        [-0.25, -2.5, 10.0, 7.75],
    ];
    for (l, row) in want.iter().enumerate() {
        let got: Vec<u32> = out.regs[l][1..5].to_vec();
        assert_eq!(got, row.map(f), "lane {l}: ddxc ddyc ddxf ddyf");
    }
    assert_eq!(out.regs[2][8], f(8.0));
    assert_eq!(out.regs[3][8], 0, "inactive lane keeps its register");
}

#[test]
fn ports_memory_uniforms_texture_special() {
    let mut env = MemoryEnv {
        uniforms: vec![11, 22, 33],
        ..MemoryEnv::default()
    };
    env.memory.insert(0x100, 0xDEAD);
    env.memory.insert(0x104, 0xBEEF);
    let src = "\
        lane r0\n\
        shli r1, r0, 2        ; 4 · lane\n\
        ldg r2, r1, 0x100\n\
        ldu r3, 2\n\
        i2f r10, r0\n\
        faddi r11, r10, 0.5\n\
        movi r12, 1\n\
        ine r13, r0, r12      ; lane 1 sits out the texture request\n\
        if r13\n\
          tex r20, r10, 5\n\
        endif\n\
        spec r4, r0, r12, 0x30\n\
        stg r1, r0, 0x200\n\
        export 2, r20, 4\n\
        end";
    let out = run(&asm(src), &Config::default(), &Launch::new(1), &mut env);
    assert_eq!(out.error, None);
    let r = |l: usize, i: usize| out.regs[l][i];
    assert_eq!([r(0, 2), r(1, 2), r(2, 2)], [0xDEAD, 0xBEEF, 0]);
    assert!((0..4).all(|l| r(l, 3) == 33));
    assert_eq!(env.tex_log.len(), 1);
    let req = env.tex_log[0];
    assert_eq!((req.quad, req.sampler, req.mask), (0, 5, 0b1101));
    assert_eq!(
        req.coords[1],
        [f(1.0), f(1.5)],
        "inactive lanes' coordinates are sent"
    );
    // MemoryEnv's texture: UNORM16 of (s, t) clamped to 0..1, then 0xFFFF, 0xFFFF
    assert_eq!(&out.regs[2][20..24], &[65535; 4]);
    assert_eq!(&out.regs[1][20..24], &[0; 4]);
    assert_eq!(out.exports[3][&2], [65535; 4]);
    assert!((0..4).all(|l| r(l, 4) == l as u32 ^ 1 ^ 0x30));
    assert_eq!(env.spec_log.len(), 4);
    assert_eq!(env.memory[&0x20C], 3);
}

#[test]
fn helper_lanes_execute_but_do_not_store_or_export() {
    let launch = Launch {
        helpers: 0b1100, // lanes 2 and 3 of the quad are helpers
        regs: (0..4).map(|l| vec![f(l as f32 * 2.0)]).collect(),
        ..Launch::new(1)
    };
    let mut env = MemoryEnv::default();
    let src = "lane r1\nshli r2, r1, 2\nddyf r3, r0\nstg r2, r3, 0\nspec r4, r1, r1, 7\nexport 0, r3, 1\nend";
    let out = run(&asm(src), &Config::default(), &launch, &mut env);
    assert_eq!(out.error, None);
    // Helpers computed their values (the derivative of lanes 0/1 uses them) ...
    assert_eq!(out.regs[0][3], f(4.0));
    assert_eq!(out.regs[3][3], f(4.0));
    // ... but stored and exported nothing.
    assert_eq!(env.store_log, [(0, 0, f(4.0)), (1, 4, f(4.0))]);
    assert_eq!(exported(&out, 0), [Some(f(4.0)), Some(f(4.0)), None, None]);
    let helper: Vec<bool> = env.spec_log.iter().map(|r| r.helper).collect();
    assert_eq!(helper, [false, false, true, true]);
}

/// Runs raw words with 64 registers and a watchdog of 1000; returns the fault.
fn fault(words: &[u64]) -> (Option<Fault>, u64) {
    let cfg = Config {
        regs: 64,
        watchdog: 1000,
    };
    let out = run(words, &cfg, &Launch::new(1), &mut MemoryEnv::default());
    (out.error, out.executed)
}

fn at(error: WarpError, pc: u32) -> Option<Fault> {
    Some(Fault { error, pc })
}

#[test]
fn every_error_ends_the_warp_with_its_code() {
    use WarpError::*;
    let words = |src: &str| assemble(src).unwrap_or_else(|e| panic!("{e}"));
    // Unknown opcode (a raw word) and reserved bits.
    assert_eq!(
        fault(&words("nop\n.word 0xFF00000000000000\nend")).0,
        at(UnknownOpcode, 1)
    );
    assert_eq!(fault(&words(".word 0\nend")).0, at(UnknownOpcode, 0));
    assert_eq!(
        fault(&words(".word 0x0200000000000001")).0,
        at(ReservedBits, 0)
    );
    assert_eq!(
        fault(&words(".word 0x7500000000000000")).0,
        at(BadExportCount, 0)
    );
    // Register out of range on a 64-register core (the encoding allows 256).
    assert_eq!(
        fault(&words("nop\nmovi r64, 1\nend")).0,
        at(RegisterOutOfRange, 1)
    );
    assert_eq!(
        fault(&words("fadd r0, r1, r200\nend")).0,
        at(RegisterOutOfRange, 0)
    );
    assert_eq!(
        fault(&words("tex r61, r0, 0\nend")).0,
        at(RegisterOutOfRange, 0)
    );
    assert_eq!(
        fault(&words("export 0, r62, 3\nend")).0,
        at(RegisterOutOfRange, 0)
    );
    assert_eq!(fault(&words("tex r60, r0, 0\nend")).0, None);
    // Unbalanced flow, built from raw words the assembler would refuse.
    let endif = 0x0A00_0000_0000_0000u64;
    let end = 0x0200_0000_0000_0000u64;
    assert_eq!(fault(&[endif, end]).0, at(BadControl, 0));
    let brk = 0x0C00_0000_0000_0000u64;
    assert_eq!(fault(&[brk, end]).0, at(BadControl, 0));
    let endloop = 0x0E00_0000_0000_0000u64;
    assert_eq!(fault(&[endloop, end]).0, at(BadControl, 0));
    let iff = |t: u64| 0x0800_0000_0000_0000u64 | t; // if r0 (r0 = 0 everywhere: jumps)
    assert_eq!(
        fault(&[iff(1), end]).0,
        at(BadControl, 0),
        "if → end is no endif"
    );
    assert_eq!(
        fault(&[iff(2), end, endif, end]).0,
        None,
        "a real if/endif passes"
    );
    assert_eq!(fault(&[iff(1), endif, end]).0, None);
    assert_eq!(fault(&[iff(1), end, endif]).0, at(BadControl, 0));
    assert_eq!(
        fault(&[iff(2), endif]).0,
        at(PcOutOfRange, 0),
        "target beyond the program"
    );
    let mut bad_end = words("movi r0, 1\nif r0\nendif\nend");
    bad_end.swap(2, 3);
    assert_eq!(fault(&bad_end).0, at(BadControl, 2), "end inside a block");
    // Falling off the end of the program.
    assert_eq!(fault(&words("nop\nnop")).0, at(PcOutOfRange, 2));
    // A jump onto a non-matching instruction (here the `if` itself) is bad control.
    assert_eq!(fault(&[iff(0)]), (at(BadControl, 0), 1));
    // Mask-stack overflow: 17 nested taken `if`s (the assembler would refuse the nesting).
    let mut deep = words("movi r0, 1");
    deep.extend([iff(0); 17]);
    deep.push(end);
    assert_eq!(fault(&deep), (at(MaskStackOverflow, 17), 18));
    deep.remove(1);
    assert_eq!(
        fault(&deep).0,
        at(BadControl, 17),
        "16 frames fit; `end` inside them"
    );
    // The watchdog on an endless loop: exactly 1000 instructions, then the error.
    let (e, executed) = fault(&words("loop\nnop\nendloop\nend"));
    assert_eq!((e.map(|f| f.error), executed), (Some(Watchdog), 1000));
    // The codes are the ISA's.
    assert_eq!(Watchdog.code(), 8);
}

#[test]
fn assembler_nesting_errors_never_reach_the_model() {
    assert!(assemble("endif\nend").is_err());
    assert!(assemble("loop\nend").is_err());
}

/// The example program of `ISA.md` assembles and computes what its comments say.
#[test]
fn isa_md_example_runs() {
    let md = include_str!("../../../rtl/shader-isa/ISA.md");
    let start = md.find("        movi r0, 0.5").expect("example");
    let text = &md[start..start + md[start..].find("```").unwrap()];
    let (out, _) = go(text, &Launch::new(1));
    assert_eq!(out.error, None);
    let want = [0.0, 1.5, 2.5, 3.5].map(|x: f32| Some(x.to_bits()));
    assert_eq!(exported(&out, 0), want);
}

/// Every opcode whose table semantics names an `fp32` function computes exactly that function,
/// lane by lane, on random operands and special values: the table text is the definition.
#[test]
fn fp_opcodes_are_the_functions_the_table_names() {
    use crate::models::fp32::{basic, recip, transc};
    use rendergen_shader_isa::{Format, Inst, Opcode};
    type F = fn(u32, u32, u32) -> u32;
    let named: &[(&str, F)] = &[
        ("basic::add(a, b)", |a, b, _| basic::add(a, b)),
        ("basic::sub(a, b)", |a, b, _| basic::sub(a, b)),
        ("basic::mul(a, b)", |a, b, _| basic::mul(a, b)),
        ("basic::fma(a, b, c)", basic::fma),
        ("basic::min(a, b)", |a, b, _| basic::min(a, b)),
        ("basic::max(a, b)", |a, b, _| basic::max(a, b)),
        ("basic::add(a, imm)", |a, _, i| basic::add(a, i)),
        ("basic::mul(a, imm)", |a, _, i| basic::mul(a, i)),
        ("basic::cmp(Eq, a, b)", |a, b, _| {
            basic::cmp(basic::Cmp::Eq, a, b)
        }),
        ("basic::cmp(Ne, a, b)", |a, b, _| {
            basic::cmp(basic::Cmp::Ne, a, b)
        }),
        ("basic::cmp(Lt, a, b)", |a, b, _| {
            basic::cmp(basic::Cmp::Lt, a, b)
        }),
        ("basic::cmp(Le, a, b)", |a, b, _| {
            basic::cmp(basic::Cmp::Le, a, b)
        }),
        ("basic::cmp(Gt, a, b)", |a, b, _| {
            basic::cmp(basic::Cmp::Gt, a, b)
        }),
        ("basic::cmp(Ge, a, b)", |a, b, _| {
            basic::cmp(basic::Cmp::Ge, a, b)
        }),
        ("basic::f2i(a)", |a, _, _| basic::f2i(a)),
        ("basic::f2u(a)", |a, _, _| basic::f2u(a)),
        ("basic::i2f(a)", |a, _, _| basic::i2f(a)),
        ("basic::u2f(a)", |a, _, _| basic::u2f(a)),
        ("basic::floor(a)", |a, _, _| basic::floor(a)),
        ("basic::ceil(a)", |a, _, _| basic::ceil(a)),
        ("basic::trunc(a)", |a, _, _| basic::trunc(a)),
        ("basic::fract(a)", |a, _, _| basic::fract(a)),
        ("basic::round_even(a)", |a, _, _| basic::round_even(a)),
        ("basic::abs(a)", |a, _, _| basic::abs(a)),
        ("basic::neg(a)", |a, _, _| basic::neg(a)),
        ("recip::rcp(a)", |a, _, _| recip::rcp(a)),
        ("recip::rsqrt(a)", |a, _, _| recip::rsqrt(a)),
        ("recip::sqrt(a)", |a, _, _| recip::sqrt(a)),
        ("transc::exp2(a)", |a, _, _| transc::exp2(a)),
        ("transc::log2(a)", |a, _, _| transc::log2(a)),
        ("transc::sin(a)", |a, _, _| transc::sin(a)),
        ("transc::cos(a)", |a, _, _| transc::cos(a)),
    ];
    let specials = [
        0,
        0x8000_0000,
        1,
        0x8000_0001,
        0x0080_0000,
        0x3F80_0000,
        0xBF00_0000,
        0x7F7F_FFFF,
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        0x7F80_0001,
        0x4B00_0001,
        0xCF00_0000,
    ];
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut rand = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state as u32
    };
    let mut checked = 0;
    for &op in Opcode::ALL {
        let sem = op.semantics();
        let Some(at) = sem.find("fp32::") else {
            continue;
        };
        if op.mnemonic().starts_with("dd") {
            continue; // derivatives: their own test
        }
        let text = &sem[at + 6..];
        let (_, func) = (named.iter())
            .find(|(n, _)| text.starts_with(n))
            .unwrap_or_else(|| panic!("{op:?}: no function for `{sem}`"));
        for round in 0..64 {
            let imm = if round < specials.len() {
                specials[round]
            } else {
                rand()
            };
            let mut inst = Inst::new(op);
            (inst.d, inst.a, inst.b) = (3, 0, 1);
            match op.format() {
                Format::Dabc => inst.c = 2,
                Format::Dai => inst.imm = imm,
                _ => {}
            }
            let regs: Vec<Vec<u32>> = (0..4)
                .map(|l| {
                    let pick = |k: usize| specials[(round + l + k) % specials.len()];
                    match (round + l) % 3 {
                        0 => vec![pick(0), pick(5), pick(9)],
                        _ => vec![rand(), rand(), rand()],
                    }
                })
                .collect();
            let launch = Launch {
                regs: regs.clone(),
                ..Launch::new(1)
            };
            let end = 0x0200_0000_0000_0000;
            let word = inst.encode() & op.format().used_bits(); // unused fields zero
            let out = run(
                &[word, end],
                &Config::default(),
                &launch,
                &mut MemoryEnv::default(),
            );
            assert_eq!(out.error, None);
            for (l, r) in regs.iter().enumerate() {
                let want = func(
                    r[0],
                    r[1],
                    if op.format() == Format::Dai {
                        imm
                    } else {
                        r[2]
                    },
                );
                assert_eq!(
                    out.regs[l][3], want,
                    "{op:?} lane {l} {r:08x?} imm {imm:08x}"
                );
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 32 * 64, "every FP opcode but the four derivatives");
}

/// `qget d, a, k`: every active lane of a quad gets lane `k`'s register `a` of that quad.
#[test]
fn qget_reads_a_quad_lane() {
    let prog = asm("lane r1\nimuli r2, r1, 10\nqget r3, r2, 2\nqget r4, r2, 7\nend");
    let l = Launch::new(2);
    let out = run(&prog, &Config::default(), &l, &mut MemoryEnv::default());
    assert_eq!(out.error, None);
    for lane in 0..8 {
        let q = lane / 4;
        assert_eq!(out.regs[lane][3], (4 * q as u32 + 2) * 10, "lane {lane}");
        assert_eq!(
            out.regs[lane][4],
            (4 * q as u32 + 3) * 10,
            "lane {lane}: imm & 3"
        );
    }
}
