//! Every error code of ISA.md: the same code, pc and executed count as the interpreter, and
//! the exports made before the fault; the core never hangs and takes the next warp.

use super::*;
use rendergen_rtl::shader::ShaderCfg;
use rendergen_shader_isa::asm::assemble;
use rendergen_shader_isa::WarpError;
use rendergen_sim::agents::shader_core::AgentCfg;
use rendergen_sim::models::shader::{run, MemoryEnv};

/// (name, program, the error it must end with).
fn cases() -> Vec<(&'static str, String, Option<WarpError>)> {
    // 17 loops (targets unused: their masks are not empty).
    let deep: String = (0..17)
        .map(|_| ".word 0x0B00000000000000\n")
        .collect::<String>()
        + "end";
    vec![
        ("unknown opcode", "export 0, r0, 1\n.word 0xFF00000000000000".into(), Some(WarpError::UnknownOpcode)),
        ("zero word", "nop\n.word 0".into(), Some(WarpError::UnknownOpcode)),
        ("reserved bits", "nop\n.word 0x0100000000000001".into(), Some(WarpError::ReservedBits)),
        ("reserved c low bits", ".word 0x1301020304000010".into(), Some(WarpError::ReservedBits)),
        ("register out of range", "movi r1, 3\nmov r70, r1\nend".into(), Some(WarpError::RegisterOutOfRange)),
        ("tex range out of range", "tex r62, r0, 1\nend".into(), Some(WarpError::RegisterOutOfRange)),
        ("export range out of range", "export 0, r62, 3\nend".into(), Some(WarpError::RegisterOutOfRange)),
        ("bad export count", "export 1, r1, 1\n.word 0x7500000500000000".into(), Some(WarpError::BadExportCount)),
        ("export count 0", ".word 0x7500000000000000".into(), Some(WarpError::BadExportCount)),
        ("endif without if", "movi r1, 1\n.word 0x0A00000000000000".into(), Some(WarpError::BadControl)),
        ("else without if", ".word 0x0900000000000002\nend".into(), Some(WarpError::BadControl)),
        ("endloop without loop", ".word 0x0E00000000000000".into(), Some(WarpError::BadControl)),
        ("brk outside loop", "movi r1, 1\n.word 0x0C00010000000003\nend".into(), Some(WarpError::BadControl)),
        ("end inside if", "movi r1, 1\nif r1\n.word 0x0200000000000000\nendif\nend".into(), Some(WarpError::BadControl)),
        ("end inside loop", "loop\n.word 0x0200000000000000\nendloop\nend".into(), Some(WarpError::BadControl)),
        ("if jumps to a nop", "movi r1, 0\n.word 0x0800010000000003\nend\nnop\n.word 0x0A00000000000000\nend".into(), Some(WarpError::BadControl)),
        ("else twice", "movi r1, 0\n.word 0x0800010000000002\n.word 0x0900000000000004\n.word 0x0900000000000004\n.word 0x0A00000000000000\nend".into(), Some(WarpError::BadControl)),
        ("endloop back to a nop", ".word 0x0B00000000000001\n.word 0x0E00000000000002\nend".into(), Some(WarpError::BadControl)),
        ("jump target out of range", "movi r1, 0\n.word 0x0800010000000100\nend".into(), Some(WarpError::PcOutOfRange)),
        ("loop target out of range", "movi r1, 0\nif r1\n.word 0x0B00000000001000\nendif\nend".into(), None),
        ("empty loop target out of range", "loop\nmovi r1, 1\nbrk r1\n.word 0x0B00000000000100\nendloop\nend".into(), Some(WarpError::PcOutOfRange)),
        ("runs off the end", "movi r1, 2\nexport 3, r1, 1".into(), Some(WarpError::PcOutOfRange)),
        ("empty program", String::new(), Some(WarpError::PcOutOfRange)),
        ("mask stack overflow", deep, Some(WarpError::MaskStackOverflow)),
        ("watchdog", "movi r1, 1\nloop\nexport 0, r1, 1\niaddi r1, r1, 1\nendloop\nend".into(), Some(WarpError::Watchdog)),
    ]
}

#[test]
fn every_error_code_like_the_interpreter() {
    let cfg = ShaderCfg {
        watchdog: 300,
        warps: 2,
        ..ShaderCfg::default()
    };
    let mut b = Bench::new(cfg);
    let mut seen = std::collections::BTreeSet::new();
    for (i, (name, src, error)) in cases().into_iter().enumerate() {
        let prog = assemble(&src).unwrap_or_else(|e| panic!("{name}: {e}"));
        let launches = [
            launch_with(1, 2, |l, r| (l + r) as u32),
            launch_with(1, 0, |_, _| 0),
        ];
        let model = run(
            &prog,
            &b.model_cfg(),
            &launches[0],
            &mut MemoryEnv::default(),
        );
        assert_eq!(
            model.error.map(|f| f.error),
            error,
            "{name}: the case itself"
        );
        if let Some(e) = error {
            seen.insert(e.code());
        }
        let acfg = AgentCfg {
            seed: i as u64,
            ..AgentCfg::default()
        };
        b.check(name, &acfg, &prog, &launches, &MemoryEnv::default());
    }
    assert_eq!(seen.len(), WarpError::ALL.len(), "every code covered");
}
