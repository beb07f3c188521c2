//! Writing a user's output file so that success means the whole file is there: the bytes go to
//! a temporary file beside the output, which replaces the output only after every write and the
//! flush succeeded (a failed run leaves no half-written file under the output's name, and an
//! existing good file stays as it was). An existing output that is not a regular file (a device
//! such as `/dev/null` or `/dev/full`, a named pipe) is written in place, every error reported.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Writes `out` through `write`; the error names the file and what failed.
pub fn write_output(
    out: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), String> {
    let special = fs::metadata(out).is_ok_and(|m| !m.is_file() && !m.is_dir());
    if special {
        let f = OpenOptions::new()
            .write(true)
            .open(out)
            .map_err(|e| format!("cannot open {}: {e}", out.display()))?;
        return finish(f, write).map_err(|e| format!("cannot write {}: {e}", out.display()));
    }
    let tmp = temporary_beside(out);
    let f = File::create(&tmp).map_err(|e| {
        format!(
            "cannot create {} (beside {}): {e}",
            tmp.display(),
            out.display()
        )
    })?;
    let written = finish(f, write).and_then(|()| fs::rename(&tmp, out));
    written.map_err(|e| {
        // Best effort: the temporary may not exist if the rename half-happened.
        let _ = fs::remove_file(&tmp);
        format!("cannot write {}: {e}", out.display())
    })
}

/// Runs `write` on a buffered `f`, then flushes and syncs it.
fn finish(f: File, write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
    let mut w = BufWriter::new(f);
    write(&mut w)?;
    let f = w.into_inner().map_err(|e| e.into_error())?;
    match f.sync_all() {
        // Devices and pipes may not support fsync; the data already left our buffers.
        Err(e) if e.kind() == io::ErrorKind::InvalidInput => Ok(()),
        other => other,
    }
}

/// `dir/.name.tmp-<pid>` for `dir/name`.
fn temporary_beside(out: &Path) -> PathBuf {
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    out.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("rendergen-output-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn success_replaces_the_file_whole() {
        let d = dir("ok");
        let out = d.join("a.bin");
        fs::write(&out, b"old").unwrap();
        write_output(&out, |w: &mut dyn Write| w.write_all(b"new contents")).unwrap();
        assert_eq!(fs::read(&out).unwrap(), b"new contents");
        assert_eq!(fs::read_dir(&d).unwrap().count(), 1, "no temporary left");
    }

    #[test]
    fn failure_keeps_the_old_file_and_leaves_no_temporary() {
        let d = dir("fail");
        let out = d.join("a.bin");
        fs::write(&out, b"old").unwrap();
        let err = write_output(&out, |w: &mut dyn Write| {
            w.write_all(b"half")?;
            Err(io::Error::other("encoder failed"))
        })
        .unwrap_err();
        assert!(
            err.contains("a.bin") && err.contains("encoder failed"),
            "{err}"
        );
        assert_eq!(fs::read(&out).unwrap(), b"old");
        assert_eq!(fs::read_dir(&d).unwrap().count(), 1, "no temporary left");
    }

    #[test]
    fn a_full_device_is_an_error_not_a_success() {
        let full = Path::new("/dev/full");
        if !full.exists() {
            return;
        }
        let err = write_output(full, |w: &mut dyn Write| w.write_all(&[0u8; 100_000])).unwrap_err();
        assert!(err.contains("/dev/full"), "{err}");
        assert!(full.exists() && !full.is_file(), "the device is left alone");
    }

    #[test]
    fn a_missing_directory_names_the_file() {
        let out = Path::new("/nonexistent-rendergen-dir/x.png");
        let err = write_output(out, |w: &mut dyn Write| w.write_all(b"x")).unwrap_err();
        assert!(err.contains("x.png"), "{err}");
    }
}

/// A waveform to write: the file (`.vcd`, or `.fst` through GTKWave's `vcd2fst`) and which
/// signals and cycles to keep.
#[derive(Clone, Debug)]
pub struct VcdOut {
    /// The file.
    pub path: PathBuf,
    /// Signals and cycles kept.
    pub filter: rendergen_sim::vcd::VcdFilter,
}

impl VcdOut {
    fn is_fst(&self) -> bool {
        self.path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("fst"))
    }

    /// Where the VCD text goes: the file itself, or a temporary VCD beside an `.fst`.
    fn vcd_path(&self) -> PathBuf {
        match self.is_fst() {
            true => temporary_beside(&self.path).with_extension("vcd"),
            false => self.path.clone(),
        }
    }

    /// Starts dumping `sim`; after `Simulator::finish_vcd`, call [`finish`](Self::finish).
    pub fn start(&self, sim: &mut rendergen_sim::Simulator) -> Result<(), String> {
        let ext = self
            .path
            .extension()
            .map(|e| e.to_string_lossy().to_lowercase());
        if !matches!(ext.as_deref(), Some("vcd" | "fst")) {
            return Err(format!(
                "{}: waveforms are written as VCD or FST; name the file *.vcd or *.fst",
                self.path.display()
            ));
        }
        let path = self.vcd_path();
        let f =
            File::create(&path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        sim.trace_vcd_filtered(BufWriter::new(f), &self.filter)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    }

    /// For an `.fst`: converts the finished VCD with `vcd2fst` (GTKWave's; installed by
    /// `scripts/install-deps.sh`) and removes it. Nothing to do for a `.vcd`.
    pub fn finish(&self) -> Result<(), String> {
        if !self.is_fst() {
            return Ok(());
        }
        let vcd = self.vcd_path();
        let ran = std::process::Command::new("vcd2fst")
            .arg(&vcd)
            .arg(&self.path)
            .output();
        let _ = fs::remove_file(&vcd);
        match ran {
            Ok(o) if o.status.success() => Ok(()),
            Ok(o) => Err(format!(
                "vcd2fst could not write {}: {}",
                self.path.display(),
                String::from_utf8_lossy(&o.stderr).trim()
            )),
            Err(e) => Err(format!(
                "writing {} needs GTKWave's vcd2fst (Debian package gtkwave; \
                 scripts/install-deps.sh installs it): {e}",
                self.path.display()
            )),
        }
    }
}
