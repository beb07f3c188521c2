//! Per-module area of an unflattened synthesis, from Yosys `stat -top TOP`.
//!
//! Without `-flatten`, `stat` prints one `=== name ===` section per module definition, whose
//! cell list also counts the instances of child modules (a cell of type `count` in `pair`), and
//! then a `=== design hierarchy ===` section with the design total, in which every module's
//! cells are counted once per instance and child-instance cells are not counted. This module
//! splits each definition's own cells from its child instances, counts the instances of every
//! definition under the top, and sums subtrees, so that
//! `Σ cells × instances` equals the design total.

use super::{classify, Section};
use std::collections::HashMap;
use std::fmt;

/// Area of one module definition in the unflattened netlist.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleArea {
    /// Module name, as Yosys prints it.
    pub name: String,
    /// Instances of this definition in the hierarchy under the top (1 for the top).
    pub instances: u64,
    /// Cells of one instance, not counting the instances of child modules.
    pub cells: u64,
    /// LUT cells of one instance (own cells only).
    pub luts: u64,
    /// Flip-flop cells of one instance (own cells only).
    pub flip_flops: u64,
    /// RAM bits of one instance (own cells only).
    pub ram_bits: u64,
    /// Cells of one instance including those of its children, recursively.
    pub cells_with_children: u64,
    /// Child module instances in one instance: (definition, count), by name.
    pub children: Vec<(String, u64)>,
}

impl ModuleArea {
    /// `cells × instances`: what this definition's own logic adds to the design total.
    pub fn total_cells(&self) -> u64 {
        self.cells * self.instances
    }

    /// `cells_with_children × instances`: the design's cells under all instances of this
    /// definition (the design total for the top).
    pub fn total_with_children(&self) -> u64 {
        self.cells_with_children * self.instances
    }
}

/// Splits `stat -top` output into (section name, section text).
fn sections(text: &str) -> Vec<(&str, String)> {
    let mut out: Vec<(&str, String)> = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        let header = t
            .strip_prefix("=== ")
            .and_then(|s| s.strip_suffix(" ==="))
            .map(str::trim);
        match (header, out.last_mut()) {
            (Some(name), _) => out.push((name, String::new())),
            (None, Some((_, body))) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    out
}

/// Parses the output of Yosys `stat -top TOP` on an unflattened design into one row per module
/// definition reachable from `top`, largest `total_cells` first.
pub(super) fn parse_per_module(text: &str, top: &str) -> Result<Vec<ModuleArea>, String> {
    let defs: Vec<(&str, Section)> = sections(text)
        .into_iter()
        .filter(|(name, _)| *name != "design hierarchy")
        .map(|(name, body)| (name, Section::parse(&body)))
        .collect();
    let index: HashMap<&str, usize> = defs.iter().enumerate().map(|(i, d)| (d.0, i)).collect();
    let Some(&top_index) = index.get(top) else {
        return Err(format!(
            "no statistics for the top module `{top}` (modules: {})",
            defs.iter().map(|d| d.0).collect::<Vec<_>>().join(", ")
        ));
    };
    let mut rows: Vec<ModuleArea> = Vec::new();
    let mut edges: Vec<Vec<(usize, u64)>> = Vec::new();
    for (name, section) in &defs {
        let (children, own): (Vec<_>, Vec<_>) = section
            .cell_types
            .iter()
            .cloned()
            .partition(|(t, _)| index.contains_key(t.as_str()));
        let counts = classify(&own);
        let child_cells: u64 = children.iter().map(|c| c.1).sum();
        edges.push(
            children
                .iter()
                .map(|(t, n)| (index[t.as_str()], *n))
                .collect(),
        );
        rows.push(ModuleArea {
            name: name.to_string(),
            cells: section
                .cells
                .checked_sub(child_cells)
                .ok_or_else(|| format!("module `{name}` lists more child instances than cells"))?,
            luts: counts.luts,
            flip_flops: counts.flip_flops,
            ram_bits: counts.ram_bits + section.memory_bits,
            children,
            ..ModuleArea::default()
        });
    }
    // Children before parents, from the top.
    let mut order = Vec::new();
    let mut state = vec![0u8; defs.len()];
    postorder(top_index, &edges, &mut state, &mut order, &rows)?;
    for &m in &order {
        rows[m].cells_with_children = rows[m].cells
            + edges[m]
                .iter()
                .map(|&(c, n)| n * rows[c].cells_with_children)
                .sum::<u64>();
    }
    rows[top_index].instances = 1;
    for &m in order.iter().rev() {
        for &(c, n) in &edges[m] {
            rows[c].instances += rows[m].instances * n;
        }
    }
    rows.retain(|r| r.instances > 0);
    rows.sort_by(|a, b| {
        (b.total_cells(), b.total_with_children(), &a.name).cmp(&(
            a.total_cells(),
            a.total_with_children(),
            &b.name,
        ))
    });
    Ok(rows)
}

/// Depth-first post-order of the instance graph from `m`; an instance cycle is an error.
fn postorder(
    m: usize,
    edges: &[Vec<(usize, u64)>],
    state: &mut [u8],
    order: &mut Vec<usize>,
    rows: &[ModuleArea],
) -> Result<(), String> {
    match state[m] {
        2 => return Ok(()),
        1 => return Err(format!("module `{}` instantiates itself", rows[m].name)),
        _ => state[m] = 1,
    }
    for &(c, _) in &edges[m] {
        postorder(c, edges, state, order, rows)?;
    }
    state[m] = 2;
    order.push(m);
    Ok(())
}

/// The per-module table of a report, as [`super::SynthReport`]'s `Display` prints it.
pub(super) struct Table<'a> {
    /// Rows, in print order.
    pub modules: &'a [ModuleArea],
    /// Design total, for the share column.
    pub total: u64,
}

impl fmt::Display for Table<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = self
            .modules
            .iter()
            .map(|m| m.name.len())
            .chain([6])
            .max()
            .unwrap_or(6);
        let luts = self.modules.iter().any(|m| m.luts > 0);
        let ram = self.modules.iter().any(|m| m.ram_bits > 0);
        let opt = |show: bool, head: &str, v: Option<u64>| match (show, v) {
            (false, _) => String::new(),
            (true, None) => format!(" {head:>9}"),
            (true, Some(v)) => format!(" {v:>9}"),
        };
        writeln!(
            f,
            "  per module (unflattened; cells and flops per instance, without child instances):"
        )?;
        writeln!(
            f,
            "    {:<w$} {:>6} {:>8} {:>7}{}{} {:>11} {:>15} {:>7}",
            "module",
            "inst",
            "cells",
            "flops",
            opt(luts, "LUTs", None),
            opt(ram, "RAM bits", None),
            "cells×inst",
            "incl. children",
            "share"
        )?;
        for m in self.modules {
            let share = 100.0 * m.total_cells() as f64 / self.total.max(1) as f64;
            writeln!(
                f,
                "    {:<w$} {:>6} {:>8} {:>7}{}{} {:>11} {:>15} {:>6.1}%",
                m.name,
                m.instances,
                m.cells,
                m.flip_flops,
                opt(luts, "", Some(m.luts)),
                opt(ram, "", Some(m.ram_bits)),
                m.total_cells(),
                m.total_with_children(),
                share
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GENERIC: &str = include_str!("fixtures/stat_hier_generic.txt");
    const ICE40: &str = include_str!("fixtures/stat_hier_ice40.txt");

    fn row<'a>(rows: &'a [ModuleArea], name: &str) -> &'a ModuleArea {
        rows.iter().find(|r| r.name == name).unwrap()
    }

    #[test]
    fn generic_fixture_per_module() {
        let rows = parse_per_module(GENERIC, "synth_hier").unwrap();
        let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        // count: 24 × 4 = 96; pair: 41 × 2 = 82; count_1: 10; synth_hier: 9.
        assert_eq!(names, ["count", "pair", "count_1", "synth_hier"]);
        let count = row(&rows, "count");
        assert_eq!((count.instances, count.cells, count.flip_flops), (4, 24, 8));
        assert_eq!(count.cells_with_children, 24);
        let pair = row(&rows, "pair");
        assert_eq!((pair.instances, pair.cells, pair.flip_flops), (2, 41, 0));
        assert_eq!(pair.children, [("count".to_string(), 2)]);
        assert_eq!(pair.cells_with_children, 41 + 2 * 24);
        let small = row(&rows, "count_1");
        assert_eq!((small.instances, small.cells, small.flip_flops), (1, 10, 4));
        let top = row(&rows, "synth_hier");
        assert_eq!((top.instances, top.cells), (1, 9));
        // The design hierarchy section of the fixture: 197 cells, 36 flip-flops.
        assert_eq!(top.total_with_children(), 197);
        assert_eq!(rows.iter().map(ModuleArea::total_cells).sum::<u64>(), 197);
        let ffs: u64 = rows.iter().map(|r| r.flip_flops * r.instances).sum();
        assert_eq!(ffs, 36);
    }

    #[test]
    fn ice40_fixture_per_module() {
        let rows = parse_per_module(ICE40, "synth_hier").unwrap();
        let count = row(&rows, "count");
        assert_eq!(
            (count.instances, count.cells, count.luts, count.flip_flops),
            (4, 23, 9, 8)
        );
        let pair = row(&rows, "pair");
        assert_eq!((pair.cells, pair.luts, pair.flip_flops), (16, 9, 0));
        assert_eq!(rows.iter().map(ModuleArea::total_cells).sum::<u64>(), 144);
        let luts: u64 = rows.iter().map(|r| r.luts * r.instances).sum();
        assert_eq!(luts, 68);
        let table = Table {
            modules: &rows,
            total: 144,
        }
        .to_string();
        assert!(
            table.contains("LUTs") && !table.contains("RAM bits"),
            "{table}"
        );
        assert!(table.lines().nth(2).unwrap().contains("count"), "{table}");
    }

    #[test]
    fn single_module_and_errors() {
        let one = "=== m ===\n   Number of memory bits: 64\n   Number of cells: 3\n     \
                   SB_DFF 2\n     SB_LUT4 1\n";
        let rows = parse_per_module(one, "m").unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(
            (
                rows[0].cells,
                rows[0].flip_flops,
                rows[0].luts,
                rows[0].ram_bits
            ),
            (3, 2, 1, 64)
        );
        assert!(parse_per_module(one, "other")
            .unwrap_err()
            .contains("`other`"));
        assert!(parse_per_module("", "m").is_err());
        let cycle =
            "=== a ===\n Number of cells: 1\n   b 1\n=== b ===\n Number of cells: 1\n   a 1\n";
        assert!(parse_per_module(cycle, "a")
            .unwrap_err()
            .contains("instantiates itself"));
    }
}
