//! `rendergen fuzz`: the random-netlist agreement run of issue 10 as a benchmark (not a
//! `cargo test`): every design on the interpreter (full and activity-aware, dense and sparse
//! stimulus), the compiled backend (full and activity-aware) and Verilator, iverilog on a
//! subset of the batches (library: [`rendergen_gen::fuzz`]).

use crate::Failure;
use clap::Args;
use rendergen_gen::fuzz::{check_batch, shrink, BatchStats, Engines};
use std::time::Instant;

/// `rendergen fuzz`.
#[derive(Args)]
pub struct FuzzArgs {
    /// Random designs to check, 1..=1,000,000 (designs `first..first + N` of the seed).
    #[arg(long, default_value_t = 2000,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    designs: u64,
    /// Index of the first design (to resume a run, or to re-check one design alone with
    /// `--designs 1 --batch 1`), 0..=1,000,000.
    #[arg(long, default_value_t = 0,
          value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    first: u64,
    /// Designs per batch (one top, one tool build per engine), 1..=1,000.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=1000))]
    batch: u64,
    /// Cycles per design and engine, 1..=1,000,000.
    #[arg(long, default_value_t = 100,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    cycles: u64,
    /// Generator seed (the fuzz tests' default is 0xF022); decimal or 0x-prefixed hex.
    #[arg(long, default_value = "0xF022", value_parser = parse_seed)]
    seed: u64,
    /// Designs of each batch (the first ones) also run on the compiled backend, full and
    /// activity-aware (each a `rustc -O3` build; default: all).
    #[arg(long)]
    compiled: Option<usize>,
    /// Designs of each batch (the first ones) also run on Verilator (default: all).
    #[arg(long)]
    verilator: Option<usize>,
    /// Run iverilog on every K-th batch (the first, then every K-th; 0: never).
    #[arg(long, default_value_t = 1)]
    iverilog_every: usize,
}

fn parse_seed(s: &str) -> Result<u64, String> {
    let r = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => s.parse(),
    };
    r.map_err(|e| format!("{s}: not a 64-bit seed ({e})"))
}

/// Runs the batches in order, printing one line per batch; the first disagreement (shrunk to
/// its design when known) fails the run.
pub fn run(a: FuzzArgs) -> Result<(), Failure> {
    let (start, batch) = (a.first as usize, a.batch as usize);
    let designs = start + a.designs as usize;
    let engines = |k: usize| Engines {
        compiled: a.compiled.unwrap_or(usize::MAX),
        verilator: a.verilator.unwrap_or(usize::MAX),
        iverilog: a.iverilog_every > 0 && k.is_multiple_of(a.iverilog_every),
    };
    println!(
        "fuzz: seed {:#x}, designs {start}..{designs} in batches of {batch}, {} cycles; \
         compiled {}, Verilator {} designs per batch, iverilog every {} batches",
        a.seed,
        a.cycles,
        a.compiled.map_or("all".into(), |n| n.to_string()),
        a.verilator.map_or("all".into(), |n| n.to_string()),
        a.iverilog_every
    );
    let t = Instant::now();
    let mut total = BatchStats::default();
    let (mut first, mut k, mut iverilog) = (start, 0, 0);
    while first < designs {
        let n = batch.min(designs - first);
        let e = engines(k);
        match check_batch(a.seed, first, n, a.cycles, e) {
            Ok(st) => {
                total.add(&st);
                iverilog += if e.iverilog { n } else { 0 };
                println!(
                    "  {}/{designs} ({:.0} s): {st}",
                    first + n,
                    t.elapsed().as_secs_f64()
                );
            }
            Err(mut d) => {
                if let Some(i) = d.design {
                    match shrink(a.seed, i, a.cycles, e) {
                        Err(alone) => d.detail = format!("{}\n  alone: {}", d.detail, alone.detail),
                        Ok(()) => d.detail = format!("{}\n  (agrees when alone)", d.detail),
                    }
                }
                return Err(Failure::check(d));
            }
        }
        first += n;
        k += 1;
    }
    println!(
        "fuzz: all engines agree on {} designs ({} on iverilog), wall {:.1} s; {total}",
        total.designs,
        iverilog,
        t.elapsed().as_secs_f64()
    );
    Ok(())
}
