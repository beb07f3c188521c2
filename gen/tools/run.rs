//! Running external tools with a timeout, in a private working directory.

use crate::verilog::{emit, VerilogFile};
use rendergen_hdl::ir::Design;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Why an external tool flow could not produce a result.
#[derive(Debug)]
pub enum ToolError {
    /// The program is not installed (or not on `PATH`).
    Missing {
        /// Program name.
        tool: String,
    },
    /// The program ran longer than allowed and was killed.
    Timeout {
        /// Program name.
        tool: String,
        /// The limit.
        seconds: u64,
    },
    /// The program failed; its combined output is included.
    Failed {
        /// Program name.
        tool: String,
        /// Exit status as text.
        status: String,
        /// Standard output and standard error.
        output: String,
    },
    /// The tool ran but its output could not be understood.
    Parse {
        /// Program name.
        tool: String,
        /// What was expected.
        message: String,
    },
    /// File-system trouble.
    Io(std::io::Error),
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolError::Missing { tool } => write!(
                f,
                "`{tool}` is not installed or not on PATH; run scripts/install-deps.sh"
            ),
            ToolError::Timeout { tool, seconds } => {
                write!(
                    f,
                    "`{tool}` did not finish within {seconds} s and was killed (the limit is \
                     $RENDERGEN_SYNTH_TIMEOUT for synthesis, $RENDERGEN_LINT_TIMEOUT for lint, \
                     $RENDERGEN_VERILATOR_TIMEOUT for Verilator model builds, in seconds)"
                )
            }
            ToolError::Failed {
                tool,
                status,
                output,
            } => write!(f, "`{tool}` failed ({status}):\n{output}"),
            ToolError::Parse { tool, message } => {
                write!(f, "could not understand the output of `{tool}`: {message}")
            }
            ToolError::Io(e) => write!(f, "I/O error: {e}"),
        }
    }
}

impl std::error::Error for ToolError {}

impl From<std::io::Error> for ToolError {
    fn from(e: std::io::Error) -> Self {
        ToolError::Io(e)
    }
}

/// Output of a finished tool run.
pub struct Finished {
    /// Exit code (`None` if killed by a signal).
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// Runs `cmd` in `dir` with a timeout; stdout and stderr go to files in `dir` (no pipe
/// deadlocks). A missing program is [`ToolError::Missing`]; a non-zero exit is returned as is.
pub fn run_tool(cmd: &mut Command, dir: &Path, timeout: Duration) -> Result<Finished, ToolError> {
    let tool = cmd.get_program().to_string_lossy().into_owned();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let (out_path, err_path) = (
        dir.join(format!("out{n}.txt")),
        dir.join(format!("err{n}.txt")),
    );
    let spawned = cmd
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path)?)
        .stderr(std::fs::File::create(&err_path)?)
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ToolError::Missing { tool })
        }
        Err(e) => return Err(e.into()),
    };
    let start = Instant::now();
    let progress = crate::progress::Progress::spinner(&format!("running {tool}"));
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break s;
        }
        progress.tick();
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            return Err(ToolError::Timeout {
                tool,
                seconds: timeout.as_secs(),
            });
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Ok(Finished {
        code: status.code(),
        stdout: std::fs::read_to_string(&out_path).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err_path).unwrap_or_default(),
    })
}

impl Finished {
    /// Standard output and error together.
    pub fn combined(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }

    /// `Ok(self)` on exit code 0, else [`ToolError::Failed`].
    pub fn success(self, tool: &str) -> Result<Finished, ToolError> {
        if self.code == Some(0) {
            Ok(self)
        } else {
            Err(ToolError::Failed {
                tool: tool.into(),
                status: format!("exit code {:?}", self.code),
                output: self.combined(),
            })
        }
    }
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A unique temporary directory under the system temp dir, removed on drop unless kept.
pub struct WorkDir {
    path: PathBuf,
    keep: bool,
}

impl WorkDir {
    /// Creates `<tmp>/rendergen-<what>-<pid>-<n>`.
    pub fn new(what: &str) -> Result<WorkDir, ToolError> {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("rendergen-{what}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&path)?;
        Ok(WorkDir {
            path,
            keep: std::env::var_os("RENDERGEN_KEEP_TMP").is_some(),
        })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// Writes the emitted files of `design` into `dir`; returns their file names, top last.
pub fn write_design(design: &Design, dir: &Path) -> Result<Vec<VerilogFile>, ToolError> {
    let files = emit(design);
    for f in &files {
        std::fs::write(dir.join(&f.name), &f.text)?;
    }
    Ok(files)
}
