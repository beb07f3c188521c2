//! A cache of tool builds (Verilator executables, iverilog `.vvp` files, compiled simulators)
//! keyed by a hash of everything that goes into them, in the user's cache directory
//! ([`cache_root`]: `$RENDERGEN_CACHE_DIR`, else `$XDG_CACHE_HOME/rendergen`, else
//! `~/.cache/rendergen`), never in the source tree the binary was built from. A build is made in a private directory and renamed into place, so
//! concurrent tests building the same design never see a half-built entry.

use super::run::ToolError;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// 64-bit FNV-1a.
pub fn fnv64(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ *b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The environment variable naming the cache directory.
pub const CACHE_ENV: &str = "RENDERGEN_CACHE_DIR";

/// Root of the cache: `$RENDERGEN_CACHE_DIR`, else `$XDG_CACHE_HOME/rendergen`, else
/// `$HOME/.cache/rendergen`, else `rendergen-cache` in the temporary directory. (Empty or
/// relative `XDG_CACHE_HOME` values are ignored, as the XDG specification says.)
pub fn cache_root() -> PathBuf {
    cache_root_in(|k| std::env::var_os(k))
}

/// [`cache_root`] with the environment given by `env`.
fn cache_root_in(env: impl Fn(&str) -> Option<std::ffi::OsString>) -> PathBuf {
    let var = |k: &str| env(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(d) = var(CACHE_ENV) {
        return d;
    }
    if let Some(x) = var("XDG_CACHE_HOME").filter(|p| p.is_absolute()) {
        return x.join("rendergen");
    }
    match var("HOME") {
        Some(h) => h.join(".cache").join("rendergen"),
        None => std::env::temp_dir().join("rendergen-cache"),
    }
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// The file of a cache entry recording how long its build took (wall seconds).
const BUILD_SECONDS: &str = ".build-seconds";

/// Wall seconds the build of cache entry `dir` (as returned by [`cached_build`]) took when it
/// was made; `None` for entries made before this was recorded.
pub fn recorded_build_seconds(dir: &Path) -> Option<f64> {
    std::fs::read_to_string(dir.join(BUILD_SECONDS))
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// The directory holding the build of `key` in cache section `kind`, running `build` in a fresh
/// directory first if there is none yet.
pub fn cached_build(
    kind: &str,
    key: &str,
    build: impl FnOnce(&Path) -> Result<(), ToolError>,
) -> Result<PathBuf, ToolError> {
    let hash = format!("{:016x}{:08x}", fnv64(key.as_bytes()), key.len());
    let section = cache_root().join(kind);
    let dir = section.join(&hash);
    if dir.join(".done").exists() {
        return Ok(dir);
    }
    std::fs::create_dir_all(&section)?;
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = section.join(format!("{hash}.tmp-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp)?;
    let start = std::time::Instant::now();
    if let Err(e) = build(&tmp) {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e);
    }
    let seconds = start.elapsed().as_secs_f64();
    std::fs::write(tmp.join(BUILD_SECONDS), format!("{seconds:.3}"))?;
    std::fs::write(tmp.join(".done"), key.len().to_string())?;
    if std::fs::rename(&tmp, &dir).is_err() {
        // Another process finished the same build first.
        let _ = std::fs::remove_dir_all(&tmp);
        if !dir.join(".done").exists() {
            return Err(ToolError::Io(std::io::Error::other(format!(
                "could not install build into {}",
                dir.display()
            ))));
        }
    }
    Ok(dir)
}

/// [`cached_build`] of a design's Verilog plus one bench file (a testbench or a C++ harness):
/// the key is `tag`, the bench and every emitted file; the build directory holds the bench as
/// `bench_name` and the Verilog files, and `build` gets the directory and all file names
/// (the bench first).
pub(crate) fn cached_design_build(
    design: &rendergen_hdl::ir::Design,
    kind: &str,
    tag: &str,
    (bench_name, bench): (&str, &str),
    build: impl FnOnce(&Path, &[String]) -> Result<(), ToolError>,
) -> Result<PathBuf, ToolError> {
    let files = crate::verilog::emit(design);
    let mut key = format!("{tag}\n{bench}");
    for f in &files {
        key.push_str(&format!("\n// {}\n{}", f.name, f.text));
    }
    cached_build(kind, &key, |dir| {
        std::fs::write(dir.join(bench_name), bench)?;
        let mut names = vec![bench_name.to_string()];
        for f in &files {
            std::fs::write(dir.join(&f.name), &f.text)?;
            names.push(f.name.clone());
        }
        build(dir, &names)
    })
}

#[cfg(test)]
mod tests {
    use super::cache_root_in;
    use std::path::PathBuf;

    /// The cache follows the environment, never the source tree the binary was built from.
    #[test]
    fn cache_directory_follows_the_environment() {
        fn env<'a>(
            pairs: &'a [(&'a str, &'a str)],
        ) -> impl Fn(&str) -> Option<std::ffi::OsString> + 'a {
            move |k: &str| (pairs.iter().find(|(n, _)| *n == k)).map(|(_, v)| v.into())
        }
        let all = [
            ("RENDERGEN_CACHE_DIR", "/c"),
            ("XDG_CACHE_HOME", "/x"),
            ("HOME", "/h"),
        ];
        assert_eq!(cache_root_in(env(&all)), PathBuf::from("/c"));
        assert_eq!(cache_root_in(env(&all[1..])), PathBuf::from("/x/rendergen"));
        let relative_xdg = [("XDG_CACHE_HOME", "rel"), ("HOME", "/h")];
        assert_eq!(
            cache_root_in(env(&relative_xdg)),
            PathBuf::from("/h/.cache/rendergen")
        );
        assert_eq!(
            cache_root_in(env(&[])),
            std::env::temp_dir().join("rendergen-cache")
        );
        let root = super::cache_root();
        assert!(
            !root.starts_with(env!("CARGO_MANIFEST_DIR"))
                || std::env::var_os("RENDERGEN_CACHE_DIR").is_some(),
            "{}",
            root.display()
        );
    }
}
