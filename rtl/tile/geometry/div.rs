//! `geom_div`: a sequential signed floor division by a positive divisor, the depth-plane
//! divisions of triangle setup (`round_div` of the model's `setup.rs`).
use rendergen_hdl::{name_lets, Bundle, Io, Module, Sig, Stream};

/// Parameters of [`geom_div`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DivCfg {
    /// Bits of the dividend (two's complement), 2..=128.
    pub num_bits: u32,
    /// Bits of the divisor (unsigned, > 0), 2..=64.
    pub den_bits: u32,
    /// Quotient bits found per clock, 1..=8.
    pub steps: u32,
}

/// A division: `floor(num / den)`.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct DivReq<T = Sig> {
    /// Dividend, signed, [`DivCfg::num_bits`].
    pub num: T,
    /// Divisor, unsigned and non-zero, [`DivCfg::den_bits`].
    pub den: T,
}

/// The quotient of a [`DivReq`].
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct DivResp<T = Sig> {
    /// `floor(num / den)`, signed, [`DivCfg::num_bits`] (it cannot overflow: `den ≥ 1`).
    pub quot: T,
}

/// What [`geom_div`] takes.
#[derive(Io)]
pub struct DivIn {
    /// Divisions.
    pub req: Stream<DivReq>,
}

/// What [`geom_div`] gives.
#[derive(Io)]
pub struct DivOut {
    /// Quotients, one per division, in order.
    pub resp: Stream<DivResp>,
}

/// Signed floor division `floor(num / den)` of a `num_bits` two's-complement dividend by an
/// unsigned non-zero divisor, by restoring long division of `|num|` (`steps` quotient bits per
/// clock), then `−q − (r ≠ 0)` for a negative dividend.
///
/// * **Protocol:** stream rules; one division at a time: `req` is taken when it is loaded,
///   the quotient is offered on `resp` until taken, then the next `req` is taken.
/// * **Timing:** `ceil(num_bits / steps)` clocks of long division after the request is taken,
///   then the answer is offered (registered); initiation interval that plus 2.
/// * **Cost:** registers for the remainder (`den_bits + 1`), the shifting dividend/quotient
///   (`num_bits`), a step counter, the sign; `steps` subtractors of `den_bits + 1` bits.
/// * **Errors:** `den = 0` is the caller's (the answer is all ones, as long division gives).
#[name_lets]
pub fn geom_div(m: &mut Module, cfg: &DivCfg, i: DivIn) -> DivOut {
    let w = cfg.num_bits;
    let rounds = w.div_ceil(cfg.steps);
    let cbits = rendergen_hdl::clog2(u64::from(rounds) + 1);
    let (req_valid, req, req_ready) = i.req.split();
    let busy = m.reg("busy", 1).reset(0);
    let done = m.reg("done", 1).reset(0);
    let count = m.reg("count", cbits).reset(0);
    let negative = m.reg("negative", 1).reset(0);
    let den = m.reg("den", cfg.den_bits);
    let rem = m.reg("rem", cfg.den_bits + 1);
    // The dividend's magnitude (zero-extended to `rounds · steps` bits) shifts out at the top
    // while quotient bits shift in below.
    let wp = rounds * cfg.steps;
    let shift = m.reg("shift", wp);
    let load = req_valid & !busy.q() & !done.q();
    req_ready.drive(load);
    let magnitude = req.num.msb().mux(-req.num, req.num);
    // `steps` restoring steps per clock.
    let mut r = rem.q();
    let mut s = shift.q();
    for _ in 0..cfg.steps {
        let trial = cat2(r.bits(cfg.den_bits - 1, 0), s.msb());
        let den_wide = den.q().zext(cfg.den_bits + 1);
        let fits = trial.ge(den_wide);
        r = fits.mux(trial - den_wide, trial);
        s = cat2(s.bits(wp - 2, 0), fits);
    }
    let last = count.q().eq(1u64);
    let running = busy.q();
    count.next(load.mux(
        m.lit(u64::from(rounds), cbits),
        running.mux(count.q() - 1u64, count.q()),
    ));
    busy.next(load | (running & !last));
    rem.next(load.mux(m.lit(0, cfg.den_bits + 1), running.mux(r, rem.q())));
    shift.next(load.mux(magnitude.zext(wp), running.mux(s, shift.q())));
    den.next(load.mux(req.den, den.q()));
    negative.next(load.mux(req.num.msb(), negative.q()));
    let q = shift.q().bits(w - 1, 0);
    let rem_zero = !rem.q().any();
    let quot = negative
        .q()
        .mux(!q + rem_zero.mux(m.lit(1, w), m.lit(0, w)), q);
    let (resp, resp_ready) = Stream::offer(m, "resp", done.q(), DivResp { quot });
    done.next((running & last) | (done.q() & !resp_ready));
    DivOut { resp }
}

fn cat2(hi: Sig, lo: Sig) -> Sig {
    rendergen_hdl::cat(&[hi, lo])
}
