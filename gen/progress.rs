//! Progress on standard error for work that can take more than a few seconds (simulation runs,
//! decodes, tool runs): a bar with rate and time left when the count is known, a spinner with the
//! elapsed time when it is not.
//!
//! Shown when standard error is a terminal; `--progress always` (or `RENDERGEN_PROGRESS=always`)
//! shows it elsewhere too, as a plain line every few seconds, and `never` hides it. Updating a
//! [`Progress`] is cheap (an atomic store), but callers still update every few thousand cycles,
//! not every cycle.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// When progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgressMode {
    /// When standard error is a terminal (the default).
    Auto,
    /// Always (plain lines when standard error is not a terminal).
    Always,
    /// Never.
    Never,
}

static MODE: AtomicU8 = AtomicU8::new(0);

/// The environment variable that sets the mode when the command line does not
/// (`auto`, `always`, `never`).
pub const PROGRESS_ENV: &str = "RENDERGEN_PROGRESS";

impl ProgressMode {
    /// The mode named `s` (`auto`, `always`, `never`).
    pub fn parse(s: &str) -> Option<ProgressMode> {
        match s {
            "auto" => Some(ProgressMode::Auto),
            "always" => Some(ProgressMode::Always),
            "never" => Some(ProgressMode::Never),
            _ => None,
        }
    }
}

/// Sets the mode for the rest of the process.
pub fn set_mode(mode: ProgressMode) {
    let v = match mode {
        ProgressMode::Auto => 1,
        ProgressMode::Always => 2,
        ProgressMode::Never => 3,
    };
    MODE.store(v, Ordering::Relaxed);
}

fn mode() -> ProgressMode {
    match MODE.load(Ordering::Relaxed) {
        2 => ProgressMode::Always,
        3 => ProgressMode::Never,
        1 => ProgressMode::Auto,
        _ => (std::env::var(PROGRESS_ENV).ok())
            .and_then(|v| ProgressMode::parse(&v))
            .unwrap_or(ProgressMode::Auto),
    }
}

enum Shown {
    Hidden,
    Bar(ProgressBar),
    /// Plain lines on a non-terminal: what, total, last line printed.
    Lines(String, Option<u64>, Mutex<Instant>),
}

/// One piece of work's progress; cleared when dropped.
pub struct Progress {
    shown: Shown,
    start: Instant,
}

const LINE_EVERY: Duration = Duration::from_secs(5);

impl Progress {
    fn new(what: &str, total: Option<u64>, unit: &str) -> Progress {
        let terminal = std::io::stderr().is_terminal();
        let shown = match (mode(), terminal) {
            (ProgressMode::Never, _) | (ProgressMode::Auto, false) => Shown::Hidden,
            (_, true) => {
                let bar = match total {
                    Some(n) => ProgressBar::new(n).with_style(
                        ProgressStyle::with_template(&format!(
                            "{{msg}} [{{bar:30}}] {{human_pos}}/{{human_len}} {unit} \
                             ({{per_sec}}, {{eta}} left)"
                        ))
                        .expect("template")
                        .progress_chars("=> "),
                    ),
                    None => ProgressBar::new_spinner().with_style(
                        ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
                            .expect("template"),
                    ),
                };
                bar.set_message(what.to_string());
                bar.enable_steady_tick(Duration::from_millis(200));
                Shown::Bar(bar)
            }
            (ProgressMode::Always, false) => {
                eprintln!("{what}: started");
                Shown::Lines(what.to_string(), total, Mutex::new(Instant::now()))
            }
        };
        Progress {
            shown,
            start: Instant::now(),
        }
    }

    /// A bar for `total` steps of `unit` (`cycles`, `rays`, `rows`).
    pub fn bar(what: &str, total: u64, unit: &str) -> Progress {
        Progress::new(what, Some(total), unit)
    }

    /// A spinner with the elapsed time, for work of unknown length (a tool run).
    pub fn spinner(what: &str) -> Progress {
        Progress::new(what, None, "")
    }

    /// Sets the steps done so far.
    pub fn set(&self, pos: u64) {
        match &self.shown {
            Shown::Hidden => {}
            Shown::Bar(b) => b.set_position(pos),
            Shown::Lines(what, total, last) => {
                let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
                if last.elapsed() >= LINE_EVERY {
                    *last = Instant::now();
                    let secs = self.start.elapsed().as_secs();
                    match total {
                        Some(t) => eprintln!("{what}: {pos}/{t} after {secs} s"),
                        None => eprintln!("{what}: {secs} s"),
                    }
                }
            }
        }
    }

    /// Lets a spinner on a non-terminal print its periodic line.
    pub fn tick(&self) {
        if let Shown::Lines(..) = self.shown {
            self.set(0);
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        match &self.shown {
            Shown::Bar(b) => b.finish_and_clear(),
            Shown::Lines(what, ..) => {
                eprintln!(
                    "{what}: done in {:.1} s",
                    self.start.elapsed().as_secs_f64()
                )
            }
            Shown::Hidden => {}
        }
    }
}
