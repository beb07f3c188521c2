//! Programs for the core bench: a random program generator that keeps the stack legal (so rays
//! finish with Done) and covers every non-texture opcode, RANDSEL structures and pipeline ops.

use rendergen_rtl::pbru::ports::isa::asm::assemble;
use rendergen_rtl::pbru::ports::isa::Opcode;
use rendergen_sim::kit::Rng;

/// Assembles `src`, panicking with the assembler's message.
pub fn asm(src: &str) -> Vec<u8> {
    assemble(src).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

/// A random Q16.16 word: small fractions, integers, extremes.
pub fn word(rng: &mut Rng) -> u32 {
    match rng.below(6) {
        0 => rng.next_u64() as u32,
        1 => ((rng.below(9) as i32 - 4) * 0x1_0000) as u32,
        2 => [0, 1, 0x8000_0000, 0x7FFF_FFFF, u32::MAX][rng.below(5) as usize],
        _ => ((rng.below(0x4_0000) as i32) - 0x2_0000) as u32,
    }
}

const PIPES: [Opcode; 8] = [
    Opcode::Ggx,
    Opcode::OrenNayar,
    Opcode::Schlick,
    Opcode::Sheen,
    Opcode::Subsurface,
    Opcode::Cel,
    Opcode::GgxDir,
    Opcode::OrenNayarDir,
];

/// Random program text for a slot of `depth` words starting with `d` words on the stack:
/// `len` instructions (roughly), optional RANDSEL blocks, ending with RAYSTOP.
pub fn random_program(rng: &mut Rng, mut d: u32, depth: u32, len: u32, randsel: bool) -> String {
    let mut out = String::new();
    let mut emit = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    let mut i = 0;
    while i < len {
        i += 1;
        let room = depth - d;
        let pick = rng.below(20);
        if pick == 0 && randsel && room >= 4 {
            let n = 1 + rng.below(3) as u32;
            for _ in 0..n {
                let w = [0u32, 0x1_0000, 0x3_0000, (-0x1_0000i32) as u32, word(rng)]
                    [rng.below(5) as usize];
                emit(format!("PUSH {:#x}", w));
            }
            emit(format!("RANDSEL {n}"));
            for k in 0..n {
                emit("CASE".into());
                emit(format!("PUSH {:#x}", 0x1_0000 * (k + 1)));
                if rng.chance(0.5) {
                    emit("DUP\nMUL".into());
                }
                emit("ENDCASE".into());
            }
            d += 1;
            continue;
        }
        if pick <= 2 {
            let op = PIPES[rng.below(PIPES.len() as u64) as usize];
            while d < op.pops() {
                emit(format!("PUSH {:#x}", word(rng)));
                d += 1;
            }
            if d - op.pops() + op.pushes() <= depth {
                emit(op.mnemonic().to_string());
                d = d - op.pops() + op.pushes();
                continue;
            }
        }
        if pick == 3 && d >= 3 {
            emit("TEX_READ".into());
            continue;
        }
        let choices: Vec<(&str, u32, u32)> = vec![
            ("PUSH", 0, 1),
            ("LOAD", 0, 1),
            ("PICK", 0, 1),
            ("STORE", 2, 0),
            ("POP", 1, 0),
            ("DUP", 1, 2),
            ("SWAP", 2, 2),
            ("ADD", 2, 1),
            ("SUB", 2, 1),
            ("MUL", 2, 1),
            ("LERP", 3, 1),
            ("MIN", 2, 1),
            ("MAX", 2, 1),
            ("CLAMP", 3, 1),
            ("SELLT", 4, 1),
            ("NEG", 1, 1),
            ("ABS", 1, 1),
            ("NOP", 0, 0),
        ];
        let (m, need, pushes) = choices[rng.below(choices.len() as u64) as usize];
        let pops = need.min(if m == "STORE" { 1 } else { need });
        if d < need || d - pops + pushes > depth || (m == "LOAD" || m == "PICK") && d == 0 {
            if room > 0 {
                emit(format!("PUSH {:#x}", word(rng)));
                d += 1;
            }
            continue;
        }
        let line = match m {
            "PUSH" => format!("PUSH {:#x}", word(rng)),
            "LOAD" | "PICK" => format!("{m} {}", rng.below(d as u64)),
            "STORE" => format!("STORE {}", rng.below(d as u64 - 1)),
            _ => m.to_string(),
        };
        emit(line);
        d = d - pops + pushes;
    }
    emit("RAYSTOP".into());
    out
}
