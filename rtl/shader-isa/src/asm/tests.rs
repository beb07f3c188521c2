use super::*;
use crate::disasm::{classify, disassemble, Line};
use crate::{DecodeError, Inst};

fn err(src: &str) -> String {
    assemble(src).unwrap_err().to_string()
}

fn inst(w: u64) -> Inst {
    Inst::decode(w).unwrap()
}

#[test]
fn every_opcode_assembles_and_disassembles() {
    for &op in Opcode::ALL {
        let src = match op.format() {
            Format::None | Format::T => op.mnemonic().to_string(),
            Format::D => format!("{} r7", op.mnemonic()),
            Format::Da => format!("{} r7, r8", op.mnemonic()),
            Format::Dab => format!("{} r7, r8, r9", op.mnemonic()),
            Format::Dabc => format!("{} r7, r8, r9, r10", op.mnemonic()),
            Format::Dai => format!("{} r7, r8, 5", op.mnemonic()),
            Format::Di => format!("{} r7, 5", op.mnemonic()),
            Format::Abi => format!("{} r8, r9, 5", op.mnemonic()),
            Format::Dabi => format!("{} r7, r8, r9, 5", op.mnemonic()),
            Format::Export => format!("{} 5, r8, 3", op.mnemonic()),
            Format::At => format!("{} r8", op.mnemonic()),
        };
        // Wrap control flow so the nesting is balanced.
        let prog = match op {
            Opcode::If => format!("{src}\nendif"),
            Opcode::Else => format!("if r1\n{src}\nendif"),
            Opcode::Endif => format!("if r1\n{src}"),
            Opcode::Loop => format!("{src}\nendloop"),
            Opcode::Endloop => format!("loop\n{src}"),
            Opcode::Brk | Opcode::Cont => format!("loop\n{src}\nendloop"),
            _ => src.clone(),
        };
        let words = assemble(&prog).unwrap_or_else(|e| panic!("{prog}: {e}"));
        assert!(words.iter().any(|&w| inst(w).op == op), "{prog}");
        let i = words.iter().map(|&w| inst(w)).find(|i| i.op == op).unwrap();
        if matches!(
            op.format(),
            Format::Dai | Format::Di | Format::Abi | Format::Dabi
        ) {
            let want = if op.imm_kind() == ImmKind::Float {
                5f32.to_bits()
            } else {
                5
            };
            assert_eq!(i.imm, want, "{prog}");
        }
        let text = disassemble(&words);
        assert_eq!(assemble(&text).unwrap(), words, "{text}");
        // Upper case works too.
        assert_eq!(assemble(&prog.to_uppercase()).unwrap(), words);
    }
}

/// Literals grouped by field: opcode, d, a, b, then imm (or c and zero).
#[test]
#[allow(clippy::unusual_byte_groupings)]
fn fields_land_where_the_layout_says() {
    let w = assemble("ffma r1, r2, r3, r4\nstg r5, r6, -4\nexport 7, r8, 4\nsel r9, r10, r11, r12")
        .unwrap();
    assert_eq!(w[0], 0x13_01_02_03_04_000000);
    assert_eq!(w[1], 0x71_00_05_06_FFFF_FFFC);
    assert_eq!(w[2], 0x75_00_08_04_0000_0007);
    assert_eq!(w[3], 0x60_09_0A_0B_0C_000000);
}

#[test]
fn immediates_floats_hex_and_ints() {
    let w = assemble(
        "movi r0, 1.5\nmovi r0, 0x3fc00000\nmovi r0, -1\nmovi r0, 7\nmovi r0, -0.0\n\
         fmuli r0, r0, 2\nfaddi r0, r0, -inf\nmovi r0, 1e-3\nmovi r0, 4294967295\niaddi r0, r0, -2\n\
         movi r0, 0.1",
    )
    .unwrap();
    let imms: Vec<u32> = w.iter().map(|&w| inst(w).imm).collect();
    assert_eq!(
        imms,
        [
            0x3FC0_0000,
            0x3FC0_0000,
            0xFFFF_FFFF,
            7,
            0x8000_0000,
            0x4000_0000,
            0xFF80_0000,
            1e-3f32.to_bits(),
            0xFFFF_FFFF,
            0xFFFF_FFFE,
            0.1f32.to_bits()
        ]
    );
    assert_eq!(
        err("iaddi r0, r0, 1.5"),
        "line 1, column 15: `1.5` is not an integer"
    );
    assert_eq!(
        err("movi r0, 4294967296"),
        "line 1, column 10: immediate `4294967296` out of range -2147483648..=4294967295"
    );
    assert_eq!(
        err("movi r0, 1.5.2"),
        "line 1, column 10: bad number `1.5.2`"
    );
}

#[test]
fn errors_name_line_and_column_and_every_bad_line() {
    let src = "nop\nfadd r1, r300, r2\nfad r1, r2, r3\nfadd r1, r2\nend r1\n  mov r1, x3\nexport 0, r1, 5";
    assert_eq!(
        err(src),
        "line 2, column 10: register r300 out of range r0..=r255\n\
         line 3: unknown mnemonic `fad`; did you mean `fadd`?\n\
         line 4: `fadd` takes rd, ra, rb; got 2 operands\n\
         line 5: `end` takes no operands; got 1 operand\n\
         line 6, column 11: expected a register (r0 … r255), got `x3`\n\
         line 7, column 15: export count `5` out of range 1..=4"
    );
    assert_eq!(
        assemble_for("mov r63, r64", 64).unwrap_err().to_string(),
        "line 1, column 10: register r64 out of range r0..=r63"
    );
    assert_eq!(
        assemble_for("tex r62, r0, 1", 64).unwrap_err().to_string(),
        "line 1: registers r62..=r65 out of range r0..=r63"
    );
    assert_eq!(err("fadd r1,, r2"), "line 1, column 9: empty operand");
}

#[test]
fn error_list_is_capped_at_fifty() {
    let src = "bogus\n".repeat(53);
    let text = err(&src);
    assert_eq!(text.lines().count(), 51);
    assert!(text.ends_with("… and 3 more errors"), "{text}");
    assert_eq!(assemble(&src).unwrap_err().0.len(), 53);
}

#[test]
fn control_targets_are_computed() {
    let src = "\
        loop\n\
          if r1\n\
            brk r2\n\
          else\n\
            cont r3\n\
          endif\n\
          if r4\n\
          endif\n\
        endloop\n\
        end";
    let w = assemble(src).unwrap();
    let t: Vec<(Opcode, u32)> = w.iter().map(|&w| (inst(w).op, inst(w).imm)).collect();
    use Opcode::*;
    assert_eq!(
        t,
        [
            (Loop, 8),
            (If, 3),
            (Brk, 8),
            (Else, 5),
            (Cont, 8),
            (Endif, 0),
            (If, 7),
            (Endif, 0),
            (Endloop, 0),
            (End, 0)
        ]
    );
    // Raw words count in the pcs but not in the nesting.
    let w = assemble("if r0\n.word 0x0800000000000000, 5\nendif").unwrap();
    assert_eq!(inst(w[0]).imm, 3);
}

#[test]
fn nesting_errors_name_their_lines() {
    assert_eq!(err("endif"), "line 1: `endif` without `if`");
    assert_eq!(
        err("if r0\nelse\nelse\nendif"),
        "line 3: second `else` (the first is on line 2)"
    );
    // The stray `endloop` is skipped; the `endif` then closes the `if`, and the loop stays open.
    assert_eq!(
        err("loop\nif r0\nendloop\nendif"),
        "line 1: `loop` without `endloop`\n\
         line 3: `endloop` without `loop` (the `if` of line 2 is open)"
    );
    assert_eq!(
        err("loop\nendif\nendloop"),
        "line 2: `endif` without `if` (the `loop` of line 1 is open)"
    );
    assert_eq!(err("brk r0"), "line 1: `brk` outside a loop");
    assert_eq!(
        err("if r0\nend\nendif"),
        "line 2: `end` inside a block (the `if` of line 1 is open)"
    );
    assert_eq!(err("if r0"), "line 1: `if` without `endif`");
    let deep = "loop\n".repeat(16) + &"endloop\n".repeat(16);
    assert!(assemble(&deep).is_ok());
    let deeper = "if r0\n".repeat(17) + &"endif\n".repeat(17);
    assert_eq!(err(&deeper), "line 17: blocks nested deeper than 16");
}

/// xorshift64*: the random words of the round-trip tests.
fn rng(state: &mut u64) -> u64 {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    state.wrapping_mul(0x2545_F491_4F6C_DD1D)
}

#[test]
fn random_words_disassemble_and_reassemble() {
    let mut s = 0x1234_5678_9ABC_DEF1u64;
    let ops: Vec<u8> = Opcode::ALL.iter().map(|&o| o as u8).collect();
    let mut kinds = [0usize; 3];
    for _ in 0..300 {
        let n = 1 + (rng(&mut s) % 40) as usize;
        let words: Vec<u64> = (0..n)
            .map(|_| {
                let r = rng(&mut s);
                match r % 4 {
                    // A valid-looking word of a known opcode: used fields only.
                    0 | 1 => {
                        let op = Opcode::from_byte(ops[(r >> 8) as usize % ops.len()]).unwrap();
                        let w = rng(&mut s) & op.format().used_bits();
                        let w = (w & !(0xFF << 56)) | (op as u64) << 56;
                        if op.format().has_target() {
                            (w & !0xFFFF_FFFF) | (rng(&mut s) % (n as u64 + 1))
                        } else {
                            w
                        }
                    }
                    2 => (r & !(0xFF << 56)) | (ops[(r >> 8) as usize % ops.len()] as u64) << 56,
                    _ => r,
                }
            })
            .collect();
        for l in classify(&words) {
            kinds[match l {
                Line::Inst(_) => 0,
                Line::Word(ref w) if w.contains("target") => 1,
                Line::Word(_) => 2,
            }] += 1;
        }
        let text = disassemble(&words);
        let back = assemble(&text).unwrap_or_else(|e| panic!("{text}\n{e}"));
        assert_eq!(back, words, "{text}");
    }
    // Both kinds of line occur often (bad targets are rare at random: a test below makes one).
    assert!(kinds[0] > 1000 && kinds[2] > 1000, "{kinds:?}");
}

#[test]
fn disassembly_shows_values_and_marks_bad_words() {
    let w = assemble("movi r0, 1.5\nfmuli r1, r0, -2\nldg r2, r1, -8\nloop\nbrk r0\nendloop\nend")
        .unwrap();
    let text = disassemble(&w);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "movi r0, 0x3FC00000          ; 0000: 620000003fc00000  1069547520 1.5"
    );
    assert_eq!(
        lines[1],
        "fmuli r1, r0, 0xC0000000     ; 0001: 17010000c0000000  -2.0"
    );
    assert_eq!(
        lines[2],
        "ldg r2, r1, -8               ; 0002: 70020100fffffff8"
    );
    assert!(lines[4].ends_with("→ 5"), "{}", lines[4]);
    // A loop whose target was patched: printed as a word, and then so is its orphan endloop.
    let mut bad = w.clone();
    bad[3] = (bad[3] & !0xFFFF_FFFF) | 4;
    let text = disassemble(&bad);
    assert!(
        text.lines()
            .nth(3)
            .unwrap()
            .contains("loop with a bad target"),
        "{text}"
    );
    assert!(text.lines().nth(5).unwrap().starts_with(".word"), "{text}");
    assert_eq!(assemble(&text).unwrap(), bad);
    assert_eq!(Inst::decode(w[6] | 1 << 40), Err(DecodeError::ReservedBits));
    let text = disassemble(&[w[6] | 1 << 40, 0]);
    assert!(
        text.contains("reserved bits") && text.contains("unknown opcode"),
        "{text}"
    );
}
