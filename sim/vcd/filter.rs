//! Which signals and which cycles a VCD dump keeps, so that one unit of a long run can be looked
//! at without writing the whole design for every cycle.

/// A dump's selection. The default keeps everything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VcdFilter {
    /// Patterns over a signal's dotted path in the hierarchy, below the top (`core_0.stack_q`,
    /// `count_q` for the top's own) or from it (`pbru.core_0.stack_q`): `*` matches any run of
    /// characters, `?` one. A
    /// signal is kept when a pattern matches its path or the path of a scope containing it
    /// (`core_0` keeps everything in `core_0`; `*.valid*` every valid flag). Empty: all.
    pub scopes: Vec<String>,
    /// First and last cycle sampled, inclusive; `None`: every cycle.
    pub window: Option<(u64, u64)>,
}

impl VcdFilter {
    /// Parses a window `FROM:TO` (inclusive), `FROM:` (to the end) or `:TO` (from the start).
    pub fn parse_window(s: &str) -> Result<(u64, u64), String> {
        let bad = || format!("--vcd-window {s}: expected FROM:TO in cycles (e.g. 1000:2000)");
        let (a, b) = s.split_once(':').ok_or_else(bad)?;
        let num = |t: &str, default: u64| match t.trim() {
            "" => Ok(default),
            t => t.parse::<u64>().map_err(|_| bad()),
        };
        let (from, to) = (num(a, 0)?, num(b, u64::MAX)?);
        if from > to {
            return Err(format!(
                "--vcd-window {s}: the first cycle ({from}) is after the last ({to})"
            ));
        }
        Ok((from, to))
    }

    /// True if the signal at `path` is kept.
    pub fn keeps(&self, path: &str) -> bool {
        if self.scopes.is_empty() {
            return true;
        }
        let below = path.split_once('.').map(|(_, p)| p);
        [Some(path), below]
            .into_iter()
            .flatten()
            .any(|p| self.keeps_path(p))
    }

    fn keeps_path(&self, path: &str) -> bool {
        let prefixes = (path.match_indices('.').map(|(i, _)| &path[..i])).chain([path]);
        let prefixes: Vec<&str> = prefixes.collect();
        (self.scopes.iter()).any(|p| prefixes.iter().any(|q| glob(p.as_bytes(), q.as_bytes())))
    }

    /// True if `cycle` is sampled.
    pub fn samples(&self, cycle: u64) -> bool {
        self.window.is_none_or(|(a, b)| (a..=b).contains(&cycle))
    }
}

/// Glob match with `*` (any run) and `?` (one character).
fn glob(p: &[u8], s: &[u8]) -> bool {
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        match p.get(pi) {
            Some(b'*') => {
                star = Some((pi, si));
                pi += 1;
            }
            Some(&c) if c == b'?' || c == s[si] => {
                pi += 1;
                si += 1;
            }
            _ => match star {
                Some((sp, ss)) => {
                    pi = sp + 1;
                    si = ss + 1;
                    star = Some((sp, ss + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|c| *c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_and_windows() {
        let f = VcdFilter {
            scopes: vec!["core_0".into(), "*.valid*".into()],
            window: None,
        };
        assert!(f.keeps("core_0.stack_q"));
        assert!(f.keeps("pbru.core_0.stack_q") && !f.keeps("pbru.core_1.stack_q"));
        assert!(f.keeps("core_0.sub.x"));
        assert!(!f.keeps("core_1.stack_q"));
        assert!(!f.keeps("sched.a_valid_q"));
        assert!(f.keeps("sched.valid_q"));
        assert!(!f.keeps("core_00.x"));
        assert!(glob(b"a*c", b"abbbc") && !glob(b"a*c", b"abbb") && glob(b"a?c", b"abc"));
        assert!(VcdFilter::default().keeps("anything"));
        assert_eq!(VcdFilter::parse_window("10:20"), Ok((10, 20)));
        assert_eq!(VcdFilter::parse_window("10:"), Ok((10, u64::MAX)));
        assert_eq!(VcdFilter::parse_window(":5"), Ok((0, 5)));
        assert!(VcdFilter::parse_window("20:10")
            .unwrap_err()
            .contains("after"));
        assert!(VcdFilter::parse_window("x").is_err());
        let w = VcdFilter {
            window: Some((3, 4)),
            ..VcdFilter::default()
        };
        assert!(!w.samples(2) && w.samples(3) && w.samples(4) && !w.samples(5));
    }
}
