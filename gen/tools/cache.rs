//! A cache of tool builds (Verilator executables, iverilog `.vvp` files) keyed by a hash of
//! everything that goes into them, under `target/rendergen-tools/` (override with
//! `RENDERGEN_CACHE_DIR`). A build is made in a private directory and renamed into place, so
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

/// Root of the cache: `$RENDERGEN_CACHE_DIR`, else `<workspace>/target/rendergen-tools`.
pub fn cache_root() -> PathBuf {
    match std::env::var_os("RENDERGEN_CACHE_DIR") {
        Some(d) => PathBuf::from(d),
        None => match std::env::var_os("CARGO_TARGET_DIR") {
            Some(t) => PathBuf::from(t).join("rendergen-tools"),
            None => Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join("target")
                .join("rendergen-tools"),
        },
    }
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

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
    if let Err(e) = build(&tmp) {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e);
    }
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
