//! Simple dual-port (`ram_1r1w`) and true dual-port (`ram_2p`) RAMs with synchronous read.

use rendergen_hdl::{clog2, name_lets, Design, ElabErrors, Module};
use std::ops::RangeInclusive;

/// Legal [`RamCfg::width`].
pub const WIDTH: RangeInclusive<u64> = 1..=4096;
/// Legal [`RamCfg::depth`].
pub const DEPTH: RangeInclusive<u64> = 1..=1 << 20;
/// Largest `width × depth`: 2^26 bits (8 MiB), so that simulating the RAM (`rendergen bench`)
/// stays a modest allocation.
pub const MAX_BITS: u64 = 1 << 26;

impl RamCfg {
    /// Records an error for each field out of range; true if none.
    #[track_caller]
    #[name_lets]
    pub fn check(&self, m: &mut Module) -> bool {
        let ok = m.check_param("width", self.width.into(), WIDTH)
            & m.check_param("depth", self.depth.into(), DEPTH);
        let bits = u64::from(self.width) * u64::from(self.depth);
        ok && (bits <= MAX_BITS
            || m.param_error(
                "depth",
                self.depth.into(),
                format!(
                    "at most {} words of {} bits (width × depth ≤ 2^26 bits)",
                    MAX_BITS / u64::from(self.width),
                    self.width
                ),
            ))
    }
}

/// Parameters of the RAM generators.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RamCfg {
    /// Word width, 1 ..= 4096. Default 32.
    pub width: u32,
    /// Number of words, 1 ..= 2^20, with `width × depth` ≤ 2^26 bits. Default 256.
    pub depth: u32,
}

impl Default for RamCfg {
    fn default() -> Self {
        RamCfg {
            width: 32,
            depth: 256,
        }
    }
}

/// One write port and one synchronous read port.
///
/// Ports: `we`, `waddr`, `wdata`; `re`, `raddr`; output `rdata` (the word at `raddr` one cycle
/// after `re`, held while `re` is 0; a read of the word written in the same cycle returns the old
/// word). Addresses are `clog2(depth)` bits.
/// * **Cost:** `width × depth` bits of RAM; Yosys infers block RAM.
#[name_lets]
pub fn ram_1r1w(cfg: &RamCfg) -> Result<Design, ElabErrors> {
    let aw = clog2(cfg.depth as u64);
    Design::build_with_params(
        "ram_1r1w",
        &format!("width={} depth={}", cfg.width, cfg.depth),
        |m| {
            if !cfg.check(m) {
                return;
            }
            let we = m.input("we", 1);
            let waddr = m.input("waddr", aw);
            let wdata = m.input("wdata", cfg.width);
            let re = m.input("re", 1);
            let raddr = m.input("raddr", aw);
            let mem = m.memory("storage", cfg.width, cfg.depth);
            mem.write(we, waddr, wdata);
            m.output("rdata", mem.read_sync(raddr, Some(re)));
        },
    )
}

/// Two ports `a` and `b`, each able to read or write: inputs `<p>_en`, `<p>_we`, `<p>_addr`,
/// `<p>_wdata`, output `<p>_rdata` (read-first, one cycle after `en`, for a port's own write
/// too).
/// * **Collisions:** as in vendor true dual-port RAMs, a word one port writes while the other
///   reads or writes it in the same cycle is undefined in hardware
///   ([`rendergen_hdl::Mem::collisions_undefined`]); the simulator returns the old word to the
///   reader and lets port `b`'s write win.
/// * **Cost:** `width × depth` bits of RAM: ECP5 DP16KD true dual-port blocks (Yosys maps it);
///   iCE40 has no true dual-port block RAM, so there it becomes logic (`rendergen synth`
///   says so).
#[name_lets]
pub fn ram_2p(cfg: &RamCfg) -> Result<Design, ElabErrors> {
    let aw = clog2(cfg.depth as u64);
    Design::build_with_params(
        "ram_2p",
        &format!("width={} depth={}", cfg.width, cfg.depth),
        |m| {
            if !cfg.check(m) {
                return;
            }
            let mem = m
                .memory("storage", cfg.width, cfg.depth)
                .collisions_undefined();
            for p in ["a", "b"] {
                let en = m.input(&format!("{p}_en"), 1);
                let we = m.input(&format!("{p}_we"), 1);
                let addr = m.input(&format!("{p}_addr"), aw);
                let wdata = m.input(&format!("{p}_wdata"), cfg.width);
                mem.write(en & we, addr, wdata);
                let rdata = mem.read_sync(addr, Some(en));
                m.output(&format!("{p}_rdata"), rdata);
            }
        },
    )
}
