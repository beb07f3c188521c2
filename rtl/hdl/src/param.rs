//! Parameter checks for generators: a value out of range becomes an elaboration error of kind
//! [`ErrorKind::Param`] naming the parameter, its value and the valid values, reported at the
//! generator's line, instead of a panic deep inside.
//!
//! ```
//! use rendergen_hdl::{Design, ErrorKind};
//! let e = Design::build("lanes", |m| {
//!     if !m.check_param("n", 0, 1..=64) {
//!         return; // nothing else is built
//!     }
//! })
//! .unwrap_err();
//! assert!(e.has(ErrorKind::Param));
//! assert!(e.to_string().contains("parameter `n` = 0 is invalid: expected 1..=64"));
//! ```

use crate::ctx;
use crate::error::ErrorKind;
use crate::module::Module;
use std::fmt::Display;
use std::ops::RangeInclusive;
use std::panic::Location;

/// The powers of two in `range`, as a list for messages (`1, 2, 4, 8`).
pub fn powers_of_two_in(range: &RangeInclusive<u64>) -> String {
    let list: Vec<String> = (0..64)
        .map(|k| 1u64 << k)
        .filter(|v| range.contains(v))
        .map(|v| v.to_string())
        .collect();
    list.join(", ")
}

impl Module {
    /// Checks that parameter `name` has a `value` in `range`; otherwise records an
    /// [`ErrorKind::Param`] error at the caller's line and returns false. A generator that gets
    /// false either returns at once (nothing built yet) or continues with a legal value.
    #[track_caller]
    pub fn check_param(&mut self, name: &str, value: u64, range: RangeInclusive<u64>) -> bool {
        let loc = Location::caller();
        let ok = range.contains(&value);
        if !ok {
            let valid = format!("{}..={}", range.start(), range.end());
            self.record_param_error(name, value, &valid, loc);
        }
        ok
    }

    /// As [`Module::check_param`], but `value` must also be a power of two; the message lists
    /// the valid values.
    #[track_caller]
    pub fn check_param_pow2(&mut self, name: &str, value: u64, range: RangeInclusive<u64>) -> bool {
        let loc = Location::caller();
        let ok = range.contains(&value) && value.is_power_of_two();
        if !ok {
            let valid = format!("a power of two in {}", powers_of_two_in(&range));
            self.record_param_error(name, value, &valid, loc);
        }
        ok
    }

    /// Records that parameter `name` = `value` is invalid, with `valid` describing what is
    /// allowed (for constraints between parameters); returns false.
    #[track_caller]
    pub fn param_error(&mut self, name: &str, value: u64, valid: impl Display) -> bool {
        let loc = Location::caller();
        self.record_param_error(name, value, &valid.to_string(), loc);
        false
    }

    fn record_param_error(&mut self, name: &str, value: u64, valid: &str, loc: crate::ir::Loc) {
        let message = format!("parameter `{name}` = {value} is invalid: expected {valid}");
        ctx::with(|c| c.error(ErrorKind::Param, loc, message));
    }
}
