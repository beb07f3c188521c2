use super::*;
use crate::disasm::{decode_all, disassemble};

fn err(src: &str) -> String {
    assemble(src).unwrap_err().to_string()
}

#[test]
fn every_opcode_assembles_to_its_byte_and_immediate() {
    for &op in Opcode::ALL {
        let src = match op.imm_bytes() {
            0 => op.mnemonic().to_string(),
            _ => format!("{} 7", op.mnemonic().to_lowercase()),
        };
        let mut want = vec![op as u8];
        want.extend_from_slice(&7u32.to_le_bytes()[..op.imm_bytes() as usize]);
        assert_eq!(assemble(&src).unwrap(), want, "{src}");
    }
}

#[test]
fn numbers_hex_negative_and_q16() {
    let b = assemble("push 0x10\npush -1\npush 1.5q\npush -0.25q\npush 0.5Q\nload 255").unwrap();
    let words: Vec<u32> = decode_all(&b, 0).iter().filter_map(|d| d.imm).collect();
    assert_eq!(
        words,
        [0x10, 0xFFFF_FFFF, 0x18000, 0xFFFF_C000, 0x8000, 255]
    );
    assert_eq!(number("32767.99998474121q"), Ok(0x7FFF_FFFF));
    assert_eq!(number("-32768q"), Ok(-0x8000_0000));
    assert!(number("32768q").is_err());
    // 0.1 · 65536 = 6553.6 → 6554; ties round away from zero.
    assert_eq!(number("0.1q"), Ok(6554));
    assert_eq!(number("0.00000762939453125q"), Ok(1)); // exactly half of 2^-16
    assert_eq!(number("-0.00000762939453125q"), Ok(-1));
}

#[test]
fn malformed_numbers_are_refused() {
    // Issue 15: `PUSH --3` was taken as +3 and `PUSH 0x-3` as −3.
    for bad in [
        "--3", "+-3", "0x-3", "0x+3", "-0x-3", "0x", "_1", "0x_1", "1a", "3-", "", "-",
    ] {
        assert!(number(bad).is_err(), "{bad:?} accepted");
    }
    for src in ["push --3", "push 0x-3"] {
        let err = assemble(src).unwrap_err().to_string();
        assert!(err.contains("bad number"), "{src}: {err}");
    }
    assert_eq!(number("1_000"), Ok(1000));
    assert_eq!(number("-0x1_0"), Ok(-16));
    assert_eq!(number("+7"), Ok(7));
}

#[test]
fn q16_format_is_exact_and_parses_back() {
    for v in [0, 1, -1, 0x18000, -0x4000, i32::MAX, i32::MIN, 123_456_789] {
        let s = format_q16(v);
        assert_eq!(number(&s), Ok(v as i64), "{s}");
    }
    assert_eq!(format_q16(0x18000), "1.5q");
    assert_eq!(format_q16(-0x4000), "-0.25q");
}

#[test]
fn errors_name_their_line() {
    assert_eq!(
        err("NOP\n; comment\n\n\n\n\nADDD"),
        "line 7: unknown mnemonic `ADDD`; did you mean `ADD`?"
    );
    assert_eq!(err("FROBNICATE"), "line 1: unknown mnemonic `FROBNICATE`");
    assert_eq!(
        err("LOAD 256"),
        "line 1: `LOAD` operand: immediate `256` = 256 out of range -128..=255 (1 B)"
    );
    assert_eq!(
        err("PUSH"),
        "line 1: `PUSH` needs an operand (4 B immediate)"
    );
    assert_eq!(err("ADD 3"), "line 1: `ADD` takes no operand");
    assert_eq!(err("PICK 1, 2"), "line 1: `PICK` takes one operand, got 2");
    assert_eq!(
        err("PUSH 1.2.3q"),
        "line 1: `PUSH` operand: bad or out-of-range Q16.16 literal `1.2.3q`"
    );
    assert_eq!(err("PUSH 0x1_0000_0000"), "line 1: `PUSH` operand: immediate `0x1_0000_0000` = 4294967296 out of range -2147483648..=4294967295 (4 B)");
    assert_eq!(
        err(".byte"),
        "line 1: directive needs a comma-separated list of values"
    );
    // Every bad line is reported.
    let all = assemble("ADDD\nNOP\nSWAPP\nPUSH x").unwrap_err();
    assert_eq!(all.0.iter().map(|e| e.line).collect::<Vec<_>>(), [1, 3, 4]);
}

#[test]
fn raw_bytes_and_words() {
    assert_eq!(
        assemble(".byte 0xFF, 1, -1\n.word 0x01020304").unwrap(),
        [0xFF, 1, 0xFF, 4, 3, 2, 1]
    );
}

#[test]
fn disassembly_marks_unknown_and_truncated_bytes() {
    let text = disassemble(&[0x10, 0xEE, 0x01, 0x02], 0x40);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "ADD                     ; 0040: 10");
    assert_eq!(
        lines[1],
        ".byte 0xEE              ; 0041: ee  unknown opcode"
    );
    assert_eq!(
        lines[2],
        ".byte 0x01, 0x02        ; 0042: 01 02  truncated PUSH"
    );
}

#[test]
fn round_trip_every_byte_sequence_shape() {
    let mut rng = 0x1234_5678u32;
    for len in 0..300 {
        let bytes: Vec<u8> = (0..len % 40)
            .map(|_| {
                rng ^= rng << 13;
                rng ^= rng >> 17;
                rng ^= rng << 5;
                // Mostly real opcodes so immediates are exercised.
                let ops = Opcode::ALL;
                if rng & 3 == 0 {
                    (rng >> 8) as u8
                } else {
                    ops[(rng >> 8) as usize % ops.len()] as u8
                }
            })
            .collect();
        let text = disassemble(&bytes, 0);
        assert_eq!(assemble(&text).unwrap(), bytes, "{text}");
    }
}

#[test]
fn round_trip_source_through_bytes() {
    let src = "PUSH 1.5q\nLOAD 3\nRANDSEL 2\nCASE\nTEX_DP 1\nENDCASE\nRAYSTOP\n";
    let bytes = assemble(src).unwrap();
    let again = assemble(&disassemble(&bytes, 0)).unwrap();
    assert_eq!(again, bytes);
}

/// 200,000 bad lines: every error is kept, the message shows the first ones and counts the rest.
#[test]
fn many_errors_are_capped_in_the_message() {
    let src = "BOGUS\n".repeat(200_000);
    let e = assemble(&src).unwrap_err();
    assert_eq!(e.0.len(), 200_000);
    let text = e.to_string();
    assert_eq!(
        text.lines().count(),
        crate::asm::ERRORS_SHOWN + 1,
        "{}",
        &text[..200]
    );
    assert!(
        text.ends_with("… and 199950 more errors"),
        "{}",
        &text[text.len() - 80..]
    );
}

/// The streamed disassembly is the same text as the one-string form, and disassembling a large
/// input does not build a list of every instruction first.
#[test]
fn streamed_disassembly_matches() {
    let bytes: Vec<u8> = (0..5000u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 24) as u8)
        .collect();
    let mut out = Vec::new();
    crate::disasm::disassemble_to(&bytes, 0x100, &mut out).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), disassemble(&bytes, 0x100));
    assert_eq!(
        crate::disasm::decode_iter(&bytes, 0).count(),
        crate::disasm::decode_all(&bytes, 0).len()
    );
}
