//! Linear-scan register allocation over the instruction list.
//!
//! A group (1, 2 or 4 components: scalars, `tex` coordinates and results, `export` sources)
//! gets consecutive physical registers. Its live interval runs from its first to its last
//! occurrence in the list; a group that occurs inside a loop and also outside it (or in
//! it across the back edge: loop parameters) is live through the whole loop. Launch inputs are
//! fixed to their ABI registers from the start. Inactive lanes keep their registers under
//! the core's masks, so intervals need no further care for divergence.

use super::{Opnd, VProg};
use rendergen_shader_isa::Opcode;

/// Physical base register of each group.
pub fn allocate(v: &VProg, regs: usize) -> Result<Vec<u8>, String> {
    let n = v.sizes.len();
    let mut start = vec![usize::MAX; n];
    let mut end = vec![0usize; n];
    let mut touch = |o: Opnd, p: usize| {
        let g = o.v as usize;
        start[g] = start[g].min(p);
        end[g] = end[g].max(p);
    };
    let mut loops = Vec::new();
    let mut stack = Vec::new();
    for (p, i) in v.insts.iter().enumerate() {
        for (o, _) in i.reads() {
            touch(o, p);
        }
        if let Some((o, _)) = i.writes() {
            touch(o, p);
        }
        match i.op {
            Opcode::Loop => stack.push(p),
            Opcode::Endloop => loops.push((stack.pop().unwrap(), p)),
            _ => {}
        }
    }
    for &g in v.fixed.keys() {
        start[g as usize] = 0;
    }
    // Live through a loop if it crosses the loop's boundary.
    let mut changed = true;
    while changed {
        changed = false;
        for &(lp, ep) in &loops {
            for g in 0..n {
                if start[g] == usize::MAX {
                    continue;
                }
                let inside = end[g] >= lp && start[g] <= ep;
                let outside = start[g] < lp || end[g] > ep;
                if inside && outside && (start[g] > lp || end[g] < ep) {
                    start[g] = start[g].min(lp);
                    end[g] = end[g].max(ep);
                    changed = true;
                }
            }
        }
    }
    let mut busy_until: Vec<Option<usize>> = vec![None; regs];
    let mut assign = vec![0u8; n];
    // Fixed groups first.
    for (&g, &r) in &v.fixed {
        if start[g as usize] == usize::MAX {
            continue;
        }
        if r as usize >= regs {
            return Err(format!(
                "the program reads launch register r{r}, beyond the core's {regs} registers"
            ));
        }
        assign[g as usize] = r;
        busy_until[r as usize] = Some(end[g as usize]);
    }
    let mut order: Vec<usize> = (0..n)
        .filter(|&g| start[g] != usize::MAX && !v.fixed.contains_key(&(g as u32)))
        .collect();
    order.sort_by_key(|&g| (start[g], g));
    let mut peak = 0;
    for g in order {
        let size = v.sizes[g] as usize;
        let free = |r: usize| busy_until[r].is_none_or(|e| e < start[g]);
        let base = (0..=regs.saturating_sub(size)).find(|&b| (b..b + size).all(free));
        let Some(b) = base else {
            let live = busy_until
                .iter()
                .filter(|e| e.is_some_and(|e| e >= start[g]))
                .count();
            return Err(format!(
                "the program needs more than the core's {regs} registers per lane ({live} live at one point); simplify the shader"
            ));
        };
        busy_until[b..b + size].fill(Some(end[g]));
        peak = peak.max(b + size);
        assign[g] = b as u8;
    }
    Ok(assign)
}
