//! Pipeline registers: every stage register loads when the pipeline advances.

use rendergen_hdl::{Module, Sig};

/// The registers of one pipeline stage, all enabled by `en`, named `<stage>_<field>`.
pub(crate) struct Pipe {
    /// Advance enable of the whole pipeline.
    pub en: Sig,
    /// Stage name, the prefix of its registers.
    pub stage: &'static str,
}

impl Pipe {
    /// A datapath register holding `d`.
    pub fn r(&self, m: &mut Module, name: &str, d: Sig) -> Sig {
        let r = m.reg(&format!("{}_{name}", self.stage), d.width());
        r.next_when(self.en, d);
        r.q()
    }

    /// Registers for an array of signals (`name_0`, `name_1`, ...).
    pub fn arr<const N: usize>(&self, m: &mut Module, name: &str, d: &[Sig; N]) -> [Sig; N] {
        std::array::from_fn(|i| self.r(m, &format!("{name}_{i}"), d[i]))
    }

    /// An optional register (absent fields stay absent).
    pub fn opt(&self, m: &mut Module, name: &str, d: Option<Sig>) -> Option<Sig> {
        d.map(|d| self.r(m, name, d))
    }

    /// The stage's valid flag (reset to 0).
    pub fn valid(&self, m: &mut Module, d: Sig) -> Sig {
        let r = m.reg(&format!("{}_valid", self.stage), 1).reset(0);
        r.next_when(self.en, d);
        r.q()
    }
}
