//! What the command-line tests share: running the `rendergen` binary as a user does, its
//! output as text, and a scratch directory per test binary and process.
#![allow(dead_code)] // each test binary uses its own subset

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs `rendergen ARGS` (progress off unless asked for) and waits for it.
pub fn rendergen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rendergen"))
        .args(args)
        .env_remove("RENDERGEN_PROGRESS")
        .output()
        .expect("the rendergen binary runs")
}

/// The run's standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The run's standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `name` in a temporary directory of its own for test binary `tag` and this process.
pub fn scratch_path(tag: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rendergen-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}
