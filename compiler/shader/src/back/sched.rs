//! List scheduling for latency inside straight-line regions (between control instructions),
//! and an in-order issue estimate of cycles.
//!
//! Dependences: read after write, write after read, write after write (per register
//! component), and program order among port instructions (`tex`, `export`, `ldu`) so the ports
//! see requests in source order. Among ready instructions the one that can issue earliest
//! goes first, ties broken by the longest latency path to the region's end.

use super::latency::latency;
use super::{Opnd, VInst};
use rendergen_shader_isa::Unit;
use std::collections::HashMap;

fn comps(r: Option<(Opnd, usize)>) -> Vec<(u32, u8)> {
    r.map_or(vec![], |(o, n)| {
        (0..n as u8).map(|k| (o.v, o.k + k)).collect()
    })
}

fn reads(i: &VInst) -> Vec<(u32, u8)> {
    i.reads().into_iter().flat_map(|r| comps(Some(r))).collect()
}

/// Issue cycles of the list, each instruction once, issuing in order, one per cycle, when
/// its operands are ready.
pub fn estimate(insts: &[VInst]) -> u64 {
    let mut ready: HashMap<(u32, u8), u64> = HashMap::new();
    let mut t = 0u64;
    let mut done = 0u64;
    for i in insts {
        let issue = reads(i)
            .iter()
            .filter_map(|c| ready.get(c))
            .fold(t, |a, &b| a.max(b));
        t = issue + 1;
        let lat = latency(i.op) as u64;
        for c in comps(i.writes()) {
            ready.insert(c, issue + lat);
        }
        done = done.max(issue + lat);
    }
    done.max(t)
}

/// Reorders each straight-line region of `insts` for latency, in windows of at most `window`
/// instructions (`usize::MAX`: whole regions). An instruction moves only inside its window, so
/// a smaller window bounds how far loads and samples are hoisted above their uses, and with
/// that how many more registers the scheduled list keeps live than the source order.
pub fn schedule(insts: &mut [VInst], window: usize) {
    let window = window.max(1);
    let mut start = 0;
    for i in 0..=insts.len() {
        if i == insts.len() || insts[i].is_control() {
            for chunk in insts[start..i].chunks_mut(window) {
                if chunk.len() > 1 {
                    schedule_region(chunk);
                }
            }
            start = i + 1;
        }
    }
}

fn schedule_region(region: &mut [VInst]) {
    let n = region.len();
    let r: Vec<Vec<(u32, u8)>> = region.iter().map(reads).collect();
    let w: Vec<Vec<(u32, u8)>> = region.iter().map(|i| comps(i.writes())).collect();
    let port: Vec<bool> = region.iter().map(|i| i.op.unit() == Unit::Port).collect();
    // preds[j]: (i, delay) — j may issue `delay` cycles after i.
    let mut preds: Vec<Vec<(usize, u32)>> = vec![vec![]; n];
    let mut succs: Vec<Vec<(usize, u32)>> = vec![vec![]; n];
    for j in 0..n {
        for i in 0..j {
            let raw = w[i].iter().any(|c| r[j].contains(c));
            let war = r[i].iter().any(|c| w[j].contains(c));
            let waw = w[i].iter().any(|c| w[j].contains(c));
            let ord = port[i] && port[j];
            if raw || war || waw || ord {
                let delay = if raw { latency(region[i].op) } else { 1 };
                preds[j].push((i, delay));
                succs[i].push((j, delay));
            }
        }
    }
    let mut height = vec![0u32; n];
    for i in (0..n).rev() {
        height[i] =
            latency(region[i].op) + succs[i].iter().map(|&(j, _)| height[j]).max().unwrap_or(0);
    }
    let mut issued_at: Vec<Option<u64>> = vec![None; n];
    let mut order = Vec::with_capacity(n);
    let mut t = 0u64;
    while order.len() < n {
        let mut best: Option<(u64, u32, usize)> = None;
        for j in 0..n {
            if issued_at[j].is_some() || preds[j].iter().any(|&(i, _)| issued_at[i].is_none()) {
                continue;
            }
            let earliest = preds[j]
                .iter()
                .map(|&(i, d)| issued_at[i].unwrap() + d as u64)
                .fold(t, u64::max);
            let better = match best {
                None => true,
                Some((e, h, _)) => earliest < e || (earliest == e && height[j] > h),
            };
            if better {
                best = Some((earliest, height[j], j));
            }
        }
        let (e, _, j) = best.unwrap();
        issued_at[j] = Some(e);
        t = e + 1;
        order.push(j);
    }
    let old = region.to_vec();
    for (slot, j) in order.into_iter().enumerate() {
        region[slot] = old[j].clone();
    }
}
