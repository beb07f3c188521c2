//! Fixed-latency pipelines behind a stream: [`pipeline`] wraps logic cut into stages by
//! [`Stages::stage`] so that it takes one request per clock, stalls as a whole under
//! back-pressure and ends in a skid buffer.

use super::skid::skid_buffer;
use rendergen_hdl::{name_lets, Bundle, Module, Sig, Stream};

/// The stage registers of a pipeline: every call to [`stage`](Self::stage) adds one register
/// stage, all loaded by one enable, with a valid flag beside them.
///
/// A unit written against `Stages` (a function `fn(m, &mut Stages, inputs) -> outputs`) works
/// both behind its own stream ([`pipeline`]) and inside a larger pipeline that shares one
/// enable (a shader-core lane): the caller makes the `Stages` with [`Stages::new`].
pub struct Stages {
    en: Sig,
    valid: Sig,
    count: u32,
}

impl Stages {
    /// Stages loaded when `en` is high, with `valid` the valid flag of the data entering the
    /// first stage.
    pub fn new(en: Sig, valid: Sig) -> Stages {
        Stages {
            en,
            valid,
            count: 0,
        }
    }

    /// Registers `d` (every leaf, registers `<name>_<field>`, no reset) and the valid flag
    /// (`<name>_valid`, reset to 0) as the next stage; returns the registered value.
    #[name_lets]
    pub fn stage<B: Bundle>(&mut self, m: &mut Module, name: &str, d: &B) -> B {
        let v = m.reg(&format!("{name}_valid"), 1).reset(0);
        v.next_when(self.en, self.valid);
        self.valid = v.q();
        self.count += 1;
        m.reg_bundle(name, d, Some(self.en))
    }

    /// `d` delayed by `n` registers loaded with the stages' enable (`<name>_1` … `<name>_n`,
    /// no reset): a value carried beside stages that another unit adds (a tag, an operand
    /// needed later), without a valid flag of its own.
    #[name_lets]
    pub fn delay(&self, m: &mut Module, name: &str, d: Sig, n: u32) -> Sig {
        let mut q = d;
        for k in 1..=n {
            let r = m.reg(&format!("{name}_{k}"), d.width());
            r.next_when(self.en, q);
            q = r.q();
        }
        q
    }

    /// The enable that loads every stage.
    pub fn en(&self) -> Sig {
        self.en
    }

    /// Valid flag of the data after the last stage so far.
    pub fn valid(&self) -> Sig {
        self.valid
    }

    /// Register stages added so far.
    pub fn count(&self) -> u32 {
        self.count
    }
}

/// Runs `body` on each request of `input`: `body` cuts its logic into stages with
/// [`Stages::stage`], and its result leaves through a skid buffer.
///
/// * **Protocol:** stream rules on both sides; responses in request order; nothing dropped.
///   When the output stalls with valid data in the last stage the whole pipeline holds
///   (bubbles included). `input.ready` is `skid ready | !last valid`, from registers only.
/// * **Timing:** latency `stages + 1` cycles (the stages `body` made and the skid buffer),
///   initiation interval 1. `body` must carry whatever the response needs (a tag) through its
///   stages itself.
/// * **Cost:** what `body` builds, a valid flop per stage, and a skid buffer of the response.
#[name_lets]
pub fn pipeline<A: Bundle, B: Bundle>(
    m: &mut Module,
    name: &str,
    input: Stream<A>,
    body: impl FnOnce(&mut Module, &mut Stages, A) -> B,
) -> Stream<B> {
    let advance = m.wire(&format!("{name}_advance"), 1);
    let (valid, data, ready) = input.split();
    ready.drive(advance.sig());
    let mut st = Stages::new(advance.sig(), valid);
    let out = body(m, &mut st, data);
    let last_valid = st.valid();
    let (result, skid_ready) = Stream::offer(m, &format!("{name}_result"), last_valid, out);
    advance.drive(skid_ready | !last_valid);
    skid_buffer(m, result)
}
