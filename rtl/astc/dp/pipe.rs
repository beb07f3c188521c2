//! Pipeline registers: every stage register loads when the pipeline advances.

use rendergen_hdl::{name_lets, Bundle, Module, Sig};

/// The registers of one pipeline stage, all enabled by `en`, named `<stage>_<field>`.
pub(crate) struct Pipe {
    /// Advance enable of the whole pipeline.
    pub en: Sig,
    /// Stage name, the prefix of its registers.
    pub stage: &'static str,
}

impl Pipe {
    /// The stage's registers: one per leaf of `d` (`<stage>_<field>`), loaded when the
    /// pipeline advances.
    pub fn regs<B: Bundle>(&self, m: &mut Module, d: &B) -> B {
        m.reg_bundle(self.stage, d, Some(self.en))
    }

    /// The stage's valid flag (reset to 0).
    #[name_lets]
    pub fn valid(&self, m: &mut Module, d: Sig) -> Sig {
        let r = m.reg(&format!("{}_valid", self.stage), 1).reset(0);
        r.next_when(self.en, d);
        r.q()
    }
}
