//! Running ARM's `astcenc` command line tool from the tests.

use rendergen_sim::models::astc::{AstcFile, Footprint, Profile};
use rendergen_sim::models::ktx::{self, KtxImage};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Path of the astcenc binary; panics with install instructions if it is missing.
pub fn binary() -> &'static Path {
    static BIN: OnceLock<Option<PathBuf>> = OnceLock::new();
    BIN.get_or_init(|| {
        let names = ["astcenc", "astcenc-native", "astcenc-avx2", "astcenc-sse4.1", "astcenc-sse2", "astcenc-none"];
        let dirs = std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect::<Vec<_>>()).unwrap_or_default();
        names.iter().flat_map(|n| dirs.iter().map(move |d| d.join(n))).find(|p| p.is_file())
    })
    .as_deref()
    .unwrap_or_else(|| {
        panic!(
            "astcenc not found on PATH (looked for astcenc, astcenc-native, astcenc-avx2, astcenc-sse4.1, \
             astcenc-sse2). The ASTC model tests compare against ARM's astcenc: run scripts/install-deps.sh \
             (Debian packages `astcenc` and `libastcenc-dev`)."
        )
    })
}

/// A scratch directory removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    /// A fresh directory named after `tag`.
    pub fn new(tag: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("rendergen-astc-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create scratch dir");
        Scratch(dir)
    }

    /// A path inside the directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs astcenc with `args` (plus `-silent`); panics with its output on failure.
pub fn run(args: &[&std::ffi::OsStr]) {
    let out = Command::new(binary())
        .args(args)
        .arg("-silent")
        .output()
        .expect("run astcenc");
    assert!(
        out.status.success(),
        "astcenc {:?} failed: {}\n{}",
        args,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Decompresses `file` with astcenc under `profile` and returns its output image.
pub fn decompress(scratch: &Scratch, tag: &str, file: &AstcFile, profile: Profile) -> KtxImage {
    let input = scratch.path(&format!("{tag}.astc"));
    let output = scratch.path(&format!("{tag}-{profile}.ktx"));
    file.write(&input).expect("write .astc");
    run(&[
        profile.astcenc_decode_flag().as_ref(),
        input.as_os_str(),
        output.as_os_str(),
    ]);
    let bytes = std::fs::read(&output).expect("read astcenc output");
    let _ = std::fs::remove_file(&output);
    ktx::read(&bytes).unwrap_or_else(|e| panic!("astcenc output {}: {e}", output.display()))
}

/// Compresses a KTX image file with astcenc (`-cl`, `-cs` or `-ch`) and reads the result.
pub fn compress(
    scratch: &Scratch,
    tag: &str,
    ktx_bytes: &[u8],
    fp: Footprint,
    profile: Profile,
    preset: &str,
) -> AstcFile {
    let input = scratch.path(&format!("{tag}-src.ktx"));
    let output = scratch.path(&format!("{tag}.astc"));
    std::fs::write(&input, ktx_bytes).expect("write source image");
    let flag = match profile {
        Profile::LdrLinear => "-cl",
        Profile::LdrSrgb => "-cs",
        Profile::Hdr => "-ch",
    };
    let fps = fp.to_string();
    run(&[
        flag.as_ref(),
        input.as_os_str(),
        output.as_os_str(),
        fps.as_ref(),
        preset.as_ref(),
    ]);
    AstcFile::read(&output).unwrap_or_else(|e| panic!("astcenc output {}: {e}", output.display()))
}
