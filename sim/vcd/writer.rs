//! A minimal VCD writer: nested `$scope module` sections, vector and scalar variables, and value
//! changes written only when a value differs from the last one written.

use std::io::{self, Write};

/// Handle of a declared variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VarId(u32);

/// Writes a VCD file to `W`.
pub struct VcdWriter<W: Write> {
    out: W,
    /// Per variable: width, offset of its last value in `last`, written at least once.
    vars: Vec<(u32, usize, bool)>,
    last: Vec<u64>,
    in_header: bool,
    line: String,
}

/// The identifier code of variable `i` (printable ASCII `!`..`~`, base 94).
fn code(mut i: u32, s: &mut String) {
    loop {
        s.push((b'!' + (i % 94) as u8) as char);
        i /= 94;
        if i == 0 {
            break;
        }
        i -= 1;
    }
}

impl<W: Write> VcdWriter<W> {
    /// Starts a file with the given timescale (e.g. `"1ns"`).
    pub fn new(mut out: W, timescale: &str) -> io::Result<Self> {
        writeln!(out, "$version rendergen-sim $end")?;
        writeln!(out, "$timescale {timescale} $end")?;
        Ok(VcdWriter {
            out,
            vars: Vec::new(),
            last: Vec::new(),
            in_header: true,
            line: String::new(),
        })
    }

    /// Opens a module scope.
    pub fn scope(&mut self, name: &str) -> io::Result<()> {
        writeln!(self.out, "$scope module {name} $end")
    }

    /// Closes the innermost scope.
    pub fn upscope(&mut self) -> io::Result<()> {
        writeln!(self.out, "$upscope $end")
    }

    /// Declares a `wire` variable of `width` bits in the current scope.
    pub fn var(&mut self, name: &str, width: u32) -> io::Result<VarId> {
        let id = self.vars.len() as u32;
        let mut c = String::new();
        code(id, &mut c);
        writeln!(self.out, "$var wire {width} {c} {name} $end")?;
        let words = (width as usize).div_ceil(64);
        self.vars.push((width, self.last.len(), false));
        self.last.resize(self.last.len() + words, 0);
        Ok(VarId(id))
    }

    /// Declares a `string` variable (a GTKWave extension of VCD that shows text, used for the
    /// names of enum states); set it with [`change_str`](Self::change_str).
    pub fn var_string(&mut self, name: &str) -> io::Result<VarId> {
        let id = self.vars.len() as u32;
        let mut c = String::new();
        code(id, &mut c);
        writeln!(self.out, "$var string 1 {c} {name} $end")?;
        // The last value is kept as an index into the caller's names (`u64::MAX`: none yet).
        self.vars.push((0, self.last.len(), false));
        self.last.push(u64::MAX);
        Ok(VarId(id))
    }

    /// Records the text of a `string` variable, identified by `key` (the value it names):
    /// written only when `key` changes.
    pub fn change_str(&mut self, var: VarId, key: u64, text: &str) -> io::Result<()> {
        let (_, off, _) = self.vars[var.0 as usize];
        if self.last[off] == key {
            return Ok(());
        }
        self.last[off] = key;
        self.line.clear();
        self.line.push('s');
        self.line.extend(
            text.chars()
                .map(|c| if c.is_whitespace() { '_' } else { c }),
        );
        self.line.push(' ');
        code(var.0, &mut self.line);
        self.line.push('\n');
        self.out.write_all(self.line.as_bytes())
    }

    /// Ends the declarations (implicit at the first `time`).
    pub fn end_definitions(&mut self) -> io::Result<()> {
        if self.in_header {
            self.in_header = false;
            writeln!(self.out, "$enddefinitions $end")?;
        }
        Ok(())
    }

    /// Advances simulation time to `t`.
    pub fn time(&mut self, t: u64) -> io::Result<()> {
        self.end_definitions()?;
        writeln!(self.out, "#{t}")
    }

    /// Records the value of `var` (little-endian words, bits above its width zero); written
    /// only if it differs from the previous value (always the first time).
    pub fn change(&mut self, var: VarId, words: &[u64]) -> io::Result<()> {
        let (width, off, written) = self.vars[var.0 as usize];
        let n = (width as usize).div_ceil(64);
        if written && self.last[off..off + n] == words[..n] {
            return Ok(());
        }
        self.vars[var.0 as usize].2 = true;
        self.last[off..off + n].copy_from_slice(&words[..n]);
        self.line.clear();
        if width == 1 {
            self.line.push(if words[0] & 1 == 1 { '1' } else { '0' });
        } else {
            self.line.push('b');
            for i in (0..width).rev() {
                let bit = (words[(i / 64) as usize] >> (i % 64)) & 1;
                self.line.push(if bit == 1 { '1' } else { '0' });
            }
            self.line.push(' ');
        }
        code(var.0, &mut self.line);
        self.line.push('\n');
        self.out.write_all(self.line.as_bytes())
    }

    /// Flushes the output.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_printable() {
        let mut seen = std::collections::HashSet::new();
        for i in 0..20_000 {
            let mut s = String::new();
            code(i, &mut s);
            assert!(s.bytes().all(|b| (b'!'..=b'~').contains(&b)));
            assert!(seen.insert(s), "duplicate code for {i}");
        }
    }

    #[test]
    fn writes_only_changes() {
        let mut buf = Vec::new();
        {
            let mut w = VcdWriter::new(&mut buf, "1ns").unwrap();
            w.scope("top").unwrap();
            let a = w.var("a", 3).unwrap();
            let b = w.var("b", 1).unwrap();
            w.upscope().unwrap();
            w.time(0).unwrap();
            w.change(a, &[5]).unwrap();
            w.change(b, &[0]).unwrap();
            w.time(10).unwrap();
            w.change(a, &[5]).unwrap();
            w.change(b, &[1]).unwrap();
        }
        let text = String::from_utf8(buf).unwrap();
        assert!(text.contains("$var wire 3 ! a $end"));
        assert!(text.ends_with("#0\nb101 !\n0\"\n#10\n1\"\n"), "{text}");
    }
}
