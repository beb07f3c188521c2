//! `rendergen fuzz`: the random-netlist agreement run of issue 10 as a benchmark (not a
//! `cargo test`): every design on the interpreter (full and activity-aware, dense and sparse
//! stimulus), the compiled backend (full and activity-aware) and Verilator, iverilog on a
//! subset of the batches (library: [`rendergen_gen::fuzz`]).

use crate::Failure;
use clap::Args;
use rendergen_gen::cosim::CosimEngine;
use rendergen_gen::fuzz::reduce::{build_fails_with, cosim_disagrees, reduce, Size};
use rendergen_gen::fuzz::{check_batch, shrink, single_design, BatchStats, Disagreement, Engines};
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
    /// On a Verilator or iverilog disagreement, delta-debug the design to the smallest netlist
    /// on which that simulator still disagrees with the interpreter while the other agrees (or,
    /// when the tool failed to build the design, still fails with the same message), and
    /// print its Verilog (use a small `--cycles` to keep each trial build quick).
    #[arg(long)]
    reduce: bool,
    /// Go on after a disagreement (with the design after it) and list every disagreement at
    /// the end; the run still fails if there was one.
    #[arg(long)]
    keep_going: bool,
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
    let mut found: Vec<Box<Disagreement>> = Vec::new();
    while first < designs {
        let n = batch.min(designs - first);
        let e = engines(k);
        k += 1;
        match check_batch(a.seed, first, n, a.cycles, e) {
            Ok(st) => {
                total.add(&st);
                iverilog += if e.iverilog { n } else { 0 };
                println!(
                    "  {}/{designs} ({:.0} s): {st}",
                    first + n,
                    t.elapsed().as_secs_f64()
                );
                first += n;
            }
            Err(mut d) => {
                if let Some(i) = d.design {
                    match shrink(a.seed, i, a.cycles, e) {
                        Err(alone) => d.detail = format!("{}\n  alone: {}", d.detail, alone.detail),
                        Ok(()) => d.detail = format!("{}\n  (agrees when alone)", d.detail),
                    }
                }
                println!("  DISAGREEMENT ({:.0} s): {d}", t.elapsed().as_secs_f64());
                if a.reduce {
                    reduce_disagreement(&d, a.cycles);
                }
                if !a.keep_going {
                    return Err(Failure::check(d));
                }
                // Resume after the design (or the batch when the design is not known).
                first = d.design.map_or(first + n, |i| i + 1);
                found.push(d);
            }
        }
    }
    println!(
        "fuzz: {} designs agree on every engine checked ({} on iverilog), {} disagreements, \
         wall {:.1} s; {total}",
        total.designs,
        iverilog,
        found.len(),
        t.elapsed().as_secs_f64()
    );
    match found.into_iter().next() {
        None => Ok(()),
        Some(d) => Err(Failure::check(d)),
    }
}

/// `--reduce`: delta-debugs the design of a Verilator or iverilog disagreement (a wrong value,
/// or a build failure: then the reduced design must still fail with the same message) and
/// prints the reduced netlist's Verilog and IR.
fn reduce_disagreement(d: &Disagreement, cycles: u64) {
    let (engine, other) = match d.engine.as_str() {
        "verilator" => (CosimEngine::Verilator, CosimEngine::Iverilog),
        "iverilog" => (CosimEngine::Iverilog, CosimEngine::Verilator),
        e => {
            println!("  --reduce: only Verilator and iverilog disagreements reduce (not {e})");
            return;
        }
    };
    if let Some(signature) = &d.fault {
        reduce_fault(d, engine, signature);
        return;
    }
    let Some(index) = d.design else {
        println!("  --reduce: the disagreeing design is not known");
        return;
    };
    let design = single_design(d.seed, index);
    let stim = d.seed ^ 0x5EED;
    let fails = |x: &rendergen_hdl::Design| cosim_disagrees(x, cycles, stim, engine, &[other]);
    if !fails(&design) {
        println!("  --reduce: design {index} alone agrees; nothing to reduce");
        return;
    }
    let t = Instant::now();
    let r = reduce(&design, fails, |s| println!("  reduce: {s}"));
    println!(
        "  reduced in {:.0} s to {} ({engine} disagrees, {other} agrees, {cycles} cycles, stimulus \
         seed {stim:#x}):",
        t.elapsed().as_secs_f64(),
        Size::of(&r),
    );
    print_design(&r);
}

/// `--reduce` of a build failure: the design of the batch that fails alone with the same
/// fault, reduced while `engine`'s front end still fails with it.
fn reduce_fault(d: &Disagreement, engine: CosimEngine, signature: &str) {
    let fails = |x: &rendergen_hdl::Design| build_fails_with(x, engine, signature);
    let (first, count) = d.batch;
    let found = match d.design {
        Some(i) => fails(&single_design(d.seed, i)).then_some(i),
        None => (first..first + count).find(|&i| fails(&single_design(d.seed, i))),
    };
    let Some(index) = found else {
        println!("  --reduce: no design of the batch alone fails with `{signature}`");
        return;
    };
    let t = Instant::now();
    let r = reduce(&single_design(d.seed, index), fails, |s| {
        println!("  reduce: {s}")
    });
    println!(
        "  design {index} reduced in {:.0} s to {} ({engine} still fails: `{signature}`):",
        t.elapsed().as_secs_f64(),
        Size::of(&r),
    );
    print_design(&r);
}

/// The Verilog and the IR of a reduced design.
fn print_design(r: &rendergen_hdl::Design) {
    println!("{}", rendergen_gen::verilog::emit_single(r));
    for m in &r.modules {
        println!("  IR of {} ({}):", m.name, m.params);
        for (i, n) in m.nodes.iter().enumerate() {
            println!("    n{i}: {} bits = {:?}", n.width, n.op);
        }
        for (i, x) in m.regs.iter().enumerate() {
            println!("    reg {i}: {x:?}");
        }
        for x in &m.mems {
            println!("    {x:?}");
        }
        for x in &m.insts {
            println!(
                "    inst {} of module {} inputs {:?}",
                x.name, x.module, x.inputs
            );
        }
    }
}
