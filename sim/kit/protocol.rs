//! Checking the producer side of the valid/ready transfer rules (`rendergen_hdl::stream`): once
//! `valid` is 1 it stays 1, with the payload stable, until the transfer.

use super::error::TbError;

/// Watches one stream, one call per cycle (settled values, before the edge).
#[derive(Clone, Debug, Default)]
pub struct ProtocolChecker {
    name: String,
    /// Last cycle offered a payload that was not taken.
    pending: bool,
    /// That payload's words.
    held: Vec<u64>,
    violations: u64,
}

impl ProtocolChecker {
    /// A checker for the stream called `name` (used in messages).
    pub fn new(name: &str) -> ProtocolChecker {
        ProtocolChecker {
            name: name.into(),
            ..Default::default()
        }
    }

    /// Number of violations seen so far.
    pub fn violations(&self) -> u64 {
        self.violations
    }

    /// Checks one cycle: `payload` is the concatenated words of every payload field. Does not
    /// allocate once the first offer has been seen.
    pub fn observe(
        &mut self,
        cycle: u64,
        valid: bool,
        ready: bool,
        payload: &[u64],
    ) -> Result<(), TbError> {
        let result = match (self.pending, valid) {
            (true, false) => Err(format!(
                "stream `{}`: producer dropped valid at cycle {cycle} before the transfer",
                self.name
            )),
            (true, true) if self.held[..] != *payload => Err(format!(
                "stream `{}`: payload changed at cycle {cycle} while valid and not ready \
                 (was {:x?}, now {payload:x?})",
                self.name, self.held
            )),
            _ => Ok(()),
        };
        self.pending = valid && !ready;
        if self.pending {
            self.held.clear();
            self.held.extend_from_slice(payload);
        }
        result.map_err(|m| {
            self.violations += 1;
            TbError::new(m)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_dropped_valid_and_changed_payload() {
        let mut c = ProtocolChecker::new("out");
        assert!(c.observe(0, true, false, &[5]).is_ok());
        assert!(
            c.observe(1, true, true, &[5]).is_ok(),
            "held until transfer"
        );
        assert!(
            c.observe(2, true, false, &[6]).is_ok(),
            "new item after a transfer"
        );
        let e = c.observe(3, true, false, &[7]).unwrap_err();
        assert!(e.message.contains("payload changed at cycle 3"), "{e}");
        let e = c.observe(4, false, false, &[7]).unwrap_err();
        assert!(e.message.contains("dropped valid at cycle 4"), "{e}");
        assert!(c.observe(5, false, true, &[0]).is_ok(), "idle is fine");
        assert_eq!(c.violations(), 2);
    }
}
