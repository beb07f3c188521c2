//! Step 1 of the compiler (`pbru.md` §6.5, 1602/1604): the material graph becomes an
//! expression tree whose nodes are stored in postfix order (every node after its arguments),
//! with the semantic checks on the way: every node has a definition, every connection exists
//! and has the input's type, there are no cycles, and every input the engine cannot honour is
//! named in an error.
//!
//! Only what the material's output reaches enters the tree, so unused nodes and inputs are
//! dropped here already (seed ¶249).

use crate::document::{Document, Input, Node, Scope, Source, Ty, Value};
use crate::error::{CompileError, Result};
use crate::library::{DefInput, NodeDef};
use crate::texture::Texture;
use std::fmt;
use std::path::{Path, PathBuf};

/// A BSDF lobe the engine evaluates with one shading pipeline (or locally).
#[derive(Clone, Debug, PartialEq)]
pub enum LobeKind {
    /// `oren_nayar_diffuse_bsdf`: args `weight color roughness`; OREN_NAYAR.
    OrenNayar,
    /// `oren_nayar_diffuse_bsdf` at roughness 0 (simplified): args `weight color`; the
    /// constant 1/π.
    Lambert,
    /// `burley_diffuse_bsdf`: args `weight color roughness`; local arithmetic (MaterialX's
    /// `mx_burley_diffuse`, exact).
    Burley,
    /// `dielectric_bsdf` (reflection): args `weight tint f0 alpha`; GGX × SCHLICK.
    Dielectric,
    /// `generalized_schlick_bsdf` (reflection): args `weight color0 color90 alpha`; GGX ×
    /// SCHLICK.
    Schlick,
    /// `sheen_bsdf` (conty_kulla): args `weight color roughness`; SHEEN.
    Sheen,
    /// `subsurface_bsdf`: args `weight color`; SUBSURFACE (Burley 2012, D4).
    Subsurface,
    /// `cel_bsdf`: args `weight color`; CEL with this table (thresholds 1–3, values 0–3).
    Cel([f64; 7]),
}

impl LobeKind {
    /// Whether the lobe is a GGX microfacet lobe (sampled with GGX_DIR, Fresnel from SCHLICK).
    pub fn is_microfacet(&self) -> bool {
        matches!(self, LobeKind::Dielectric | LobeKind::Schlick)
    }

    /// A short name for listings.
    pub fn name(&self) -> &'static str {
        match self {
            LobeKind::OrenNayar => "oren_nayar",
            LobeKind::Lambert => "lambert",
            LobeKind::Burley => "burley",
            LobeKind::Dielectric => "dielectric",
            LobeKind::Schlick => "generalized_schlick",
            LobeKind::Sheen => "sheen",
            LobeKind::Subsurface => "subsurface",
            LobeKind::Cel(_) => "cel",
        }
    }
}

/// What a tree node computes.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// A constant (1, 2 or 3 components).
    Const(Vec<f64>),
    /// The shading normal N (vector3, from the ray's stack).
    Normal,
    /// Texture coordinate set 0 (vector2, from the ray's stack).
    Texcoord,
    /// `in1 + in2` (componentwise; a float argument is broadcast).
    Add,
    /// `in1 − in2`.
    Sub,
    /// `in1 · in2`.
    Mul,
    /// `in1 / in2` (the divisor must become a constant).
    Div,
    /// MaterialX `mix`: args `fg bg mix`, `bg + (fg − bg)·mix`.
    Mix,
    /// `clamp`: args `in low high`.
    Clamp,
    /// `image`: args `uv`; texture `tex` of the material's list.
    Image {
        /// Index into [`Tree::textures`].
        tex: usize,
    },
    /// A BSDF lobe.
    Lobe(LobeKind),
    /// The BSDF that scatters nothing.
    Zero,
    /// `mix` of BSDFs: args `fg bg mix`.
    MixBsdf,
    /// `add` of BSDFs: args `in1 in2`.
    AddBsdf,
    /// `multiply` of a BSDF: args `bsdf scale` (float or color3).
    ScaleBsdf,
    /// `surface`: args `bsdf` (the material's root is its BSDF).
    Surface,
}

/// One node of the tree.
#[derive(Clone, Debug, PartialEq)]
pub struct TNode {
    /// What it computes.
    pub op: Op,
    /// Its type.
    pub ty: Ty,
    /// Argument nodes (all earlier in [`Tree::nodes`]).
    pub args: Vec<usize>,
    /// Line of the document element it comes from (0 for nodes the compiler made).
    pub line: u32,
}

/// The expression tree in postfix order, with the resources it uses.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tree {
    /// Nodes; every node's arguments come before it.
    pub nodes: Vec<TNode>,
    /// The root (the material's BSDF).
    pub root: usize,
    /// Textures bound by `image` nodes, in first-use order.
    pub textures: Vec<Texture>,
    /// Things the compiler ignored, to tell the user.
    pub warnings: Vec<String>,
}

impl Tree {
    /// Appends a node and returns its index.
    pub fn push(&mut self, op: Op, ty: Ty, args: Vec<usize>, line: u32) -> usize {
        debug_assert!(args.iter().all(|&a| a < self.nodes.len()));
        self.nodes.push(TNode { op, ty, args, line });
        self.nodes.len() - 1
    }

    /// A constant node.
    pub fn constant(&mut self, v: Vec<f64>, ty: Ty) -> usize {
        self.push(Op::Const(v), ty, vec![], 0)
    }

    /// The constant value of node `i`, if it is one.
    pub fn const_of(&self, i: usize) -> Option<&[f64]> {
        match &self.nodes[i].op {
            Op::Const(v) => Some(v),
            _ => None,
        }
    }

    /// The nodes reachable from `root`, in postfix order (what the code generator walks).
    pub fn postfix(&self, root: usize) -> Vec<usize> {
        let mut seen = vec![false; self.nodes.len()];
        let mut order = Vec::new();
        fn walk(t: &Tree, i: usize, seen: &mut [bool], order: &mut Vec<usize>) {
            for &a in &t.nodes[i].args {
                walk(t, a, seen, order);
            }
            if !seen[i] {
                seen[i] = true;
                order.push(i);
            }
        }
        walk(self, root, &mut seen, &mut order);
        order
    }
}

impl fmt::Display for Tree {
    /// One line per node reachable from the root, postfix order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for i in self.postfix(self.root) {
            let n = &self.nodes[i];
            writeln!(f, "%{i} = {:?} {} {:?}", n.op, n.ty, n.args)?;
        }
        Ok(())
    }
}

/// Which scope a node lives in: the document's top level or a nodegraph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Where<'a> {
    Top,
    Graph(&'a str),
}

/// Builds the tree of material `name` (or the document's only material).
pub fn build(doc: &Document, lib: &[NodeDef], material: Option<&str>, dir: &Path) -> Result<Tree> {
    let mats: Vec<&Node> = {
        let mut m: Vec<&Node> = doc
            .top
            .nodes
            .values()
            .filter(|n| n.category == "surfacematerial")
            .collect();
        m.sort_by_key(|n| n.line);
        m
    };
    let mat = match material {
        Some(name) => match doc.top.nodes.get(name) {
            Some(n) if n.category == "surfacematerial" => n,
            Some(n) => {
                return Err(CompileError::at(
                    n.line,
                    format!("`{name}` is a {} node, not a surfacematerial", n.category),
                ))
            }
            None => {
                return Err(CompileError::at(
                    0,
                    format!(
                        "no material named `{name}`; the document has: {}",
                        names(&mats)
                    ),
                ))
            }
        },
        None => match mats.as_slice() {
            [m] => m,
            [] => return Err(CompileError::at(0, "the document has no surfacematerial")),
            _ => {
                return Err(CompileError::at(
                    0,
                    format!(
                        "the document has several materials ({}); choose one with --material",
                        names(&mats)
                    ),
                ))
            }
        },
    };
    let mut b = Builder {
        doc,
        lib,
        dir: dir.join(&doc.fileprefix),
        tree: Tree::default(),
        visiting: Vec::new(),
        graph_now: None,
    };
    let root = b.node(Where::Top, &mat.name, None, mat.line)?;
    b.tree.root = root;
    Ok(b.tree)
}

fn names(m: &[&Node]) -> String {
    m.iter()
        .map(|n| format!("`{}`", n.name))
        .collect::<Vec<_>>()
        .join(", ")
}

struct Builder<'a> {
    doc: &'a Document,
    lib: &'a [NodeDef],
    dir: PathBuf,
    tree: Tree,
    visiting: Vec<(Option<&'a str>, &'a str)>,
    /// The nodegraph of the node being built (for its interface inputs).
    graph_now: Option<&'a str>,
}

/// An input of a node as the definition and the document give it.
enum Given<'a> {
    Doc(&'a Input),
    Default(&'a DefInput),
}

impl<'a> Builder<'a> {
    fn scope(&self, w: Where<'a>) -> &'a Scope {
        match w {
            Where::Top => &self.doc.top,
            Where::Graph(g) => &self.doc.graphs[g],
        }
    }

    /// The tree of node `name` in scope `w`, referred to from `line`.
    fn node(&mut self, w: Where<'a>, name: &str, output: Option<&str>, line: u32) -> Result<usize> {
        let scope = self.scope(w);
        let Some(n) = scope.nodes.get(name) else {
            let place = match w {
                Where::Top => "the document".to_string(),
                Where::Graph(g) => format!("nodegraph `{g}`"),
            };
            return Err(CompileError::at(
                line,
                format!("missing connection: no node named `{name}` in {place}"),
            ));
        };
        if let Some(o) = output {
            if o != "out" {
                return Err(CompileError::at(
                    line,
                    format!("node `{name}` has no output `{o}` (only `out`)"),
                ));
            }
        }
        let key = (
            match w {
                Where::Top => None,
                Where::Graph(g) => Some(g),
            },
            n.name.as_str(),
        );
        if let Some(at) = self.visiting.iter().position(|k| *k == key) {
            let cycle: Vec<&str> = self.visiting[at..]
                .iter()
                .map(|k| k.1)
                .chain([n.name.as_str()])
                .collect();
            return Err(CompileError::at(
                n.line,
                format!("cycle in the graph: {}", cycle.join(" → ")),
            ));
        }
        self.visiting.push(key);
        let outer = std::mem::replace(&mut self.graph_now, key.0);
        let r = self.node_body(w, n);
        self.graph_now = outer;
        self.visiting.pop();
        r
    }

    fn nodedef(&self, n: &Node) -> Result<&'a NodeDef> {
        if let Some(nd) = &n.nodedef {
            return self
                .lib
                .iter()
                .find(|d| d.name == *nd && d.node == n.category)
                .ok_or_else(|| {
                    CompileError::at(
                        n.line,
                        format!(
                            "node `{}` ({}): unknown nodedef `{nd}` (not one the compiler supports)",
                            n.name, n.category
                        ),
                    )
                });
        }
        let cands: Vec<&NodeDef> = self.lib.iter().filter(|d| d.node == n.category).collect();
        if cands.is_empty() {
            return Err(CompileError::at(
                n.line,
                format!(
                    "unsupported node `{}`: category `{}` (type {}) has no PBRU implementation",
                    n.name, n.category, n.ty
                ),
            ));
        }
        for i in &n.inputs {
            if !cands.iter().any(|d| d.input(&i.name).is_some()) {
                let all: Vec<&str> = cands[0].inputs.iter().map(|i| i.name.as_str()).collect();
                return Err(CompileError::at(
                    i.line,
                    format!(
                        "node `{}` ({}) has no input `{}`; its inputs are {}",
                        n.name,
                        n.category,
                        i.name,
                        all.join(", ")
                    ),
                ));
            }
        }
        cands
            .iter()
            .find(|d| {
                d.out == n.ty
                    && n.inputs
                        .iter()
                        .all(|i| d.input(&i.name).is_some_and(|di| di.ty == i.ty))
            })
            .copied()
            .ok_or_else(|| {
                let sig: Vec<String> = n
                    .inputs
                    .iter()
                    .map(|i| format!("{}: {}", i.name, i.ty))
                    .collect();
                let defs: Vec<String> = cands
                    .iter()
                    .map(|d| {
                        let ins: Vec<String> = d
                            .inputs
                            .iter()
                            .map(|i| format!("{}: {}", i.name, i.ty))
                            .collect();
                        format!("{}({}) → {}", d.name, ins.join(", "), d.out)
                    })
                    .collect();
                CompileError::at(
                    n.line,
                    format!(
                        "type mismatch: no definition of `{}` gives {} from ({}); definitions: {}",
                        n.category,
                        n.ty,
                        sig.join(", "),
                        defs.join("; ")
                    ),
                )
            })
    }

    fn given(&self, n: &'a Node, d: &'a NodeDef, name: &str) -> Given<'a> {
        match n.inputs.iter().find(|i| i.name == name) {
            Some(i) => Given::Doc(i),
            None => Given::Default(d.input(name).expect("input of the definition")),
        }
    }

    /// The tree of input `name` of node `n` (definition `d`) in scope `w`.
    fn input(&mut self, w: Where<'a>, n: &'a Node, d: &'a NodeDef, name: &str) -> Result<usize> {
        let want = d.input(name).expect("input of the definition").ty;
        match self.given(n, d, name) {
            Given::Default(di) => match (&di.default, di.geomprop.as_deref()) {
                (_, Some("Nworld")) => Ok(self.tree.push(Op::Normal, Ty::Vector3, vec![], n.line)),
                (_, Some("UV0")) => Ok(self.tree.push(Op::Texcoord, Ty::Vector2, vec![], n.line)),
                (Some(Value::Num(v)), _) => Ok(self.tree.constant(v.clone(), want)),
                _ if want == Ty::Bsdf => Ok(self.tree.push(Op::Zero, Ty::Bsdf, vec![], n.line)),
                _ => Err(CompileError::at(
                    n.line,
                    format!(
                        "missing connection: input `{name}` of `{}` ({}) must be connected",
                        n.name, n.category
                    ),
                )),
            },
            Given::Doc(i) => {
                let at = self.source(w, &i.source, i.ty, i.line)?;
                let got = self.tree.nodes[at].ty;
                if got != want || i.ty != want {
                    return Err(CompileError::at(
                        i.line,
                        format!(
                            "type mismatch: input `{name}` of `{}` ({}) is {want}, the connection gives {got}",
                            n.name, n.category
                        ),
                    ));
                }
                Ok(at)
            }
        }
    }

    fn source(&mut self, w: Where<'a>, s: &'a Source, ty: Ty, line: u32) -> Result<usize> {
        match s {
            Source::Value(Value::Num(v)) => Ok(self.tree.constant(v.clone(), ty)),
            Source::Value(_) => Err(CompileError::at(
                line,
                format!("a {ty} value cannot be computed with"),
            )),
            Source::Node { node, output } => self.node(w, node, output.as_deref(), line),
            Source::Graph { graph, output } => {
                let Some(g) = self.doc.graphs.get(graph) else {
                    return Err(CompileError::at(
                        line,
                        format!("missing connection: no nodegraph named `{graph}`"),
                    ));
                };
                let out = match output {
                    Some(o) => g.outputs.iter().find(|x| x.name == *o),
                    None if g.outputs.len() == 1 => g.outputs.first(),
                    None => {
                        return Err(CompileError::at(
                            line,
                            format!(
                                "nodegraph `{graph}` has several outputs: name one with `output`"
                            ),
                        ))
                    }
                };
                let Some(out) = out else {
                    return Err(CompileError::at(
                        line,
                        format!(
                            "missing connection: nodegraph `{graph}` has no output `{}`",
                            output.as_deref().unwrap_or("")
                        ),
                    ));
                };
                let at = self.node(
                    Where::Graph(&g.name),
                    &out.node,
                    out.output.as_deref(),
                    out.line,
                )?;
                if self.tree.nodes[at].ty != out.ty {
                    return Err(CompileError::at(
                        out.line,
                        format!(
                            "type mismatch: output `{}` of nodegraph `{graph}` is {}, node `{}` gives {}",
                            out.name, out.ty, out.node, self.tree.nodes[at].ty
                        ),
                    ));
                }
                Ok(at)
            }
            Source::Interface(name) => {
                let Where::Graph(g) = w else {
                    return Err(CompileError::at(
                        line,
                        format!("`interfacename=\"{name}\"` outside a nodegraph"),
                    ));
                };
                let graph = &self.doc.graphs[g];
                let Some(i) = graph.inputs.iter().find(|i| i.name == *name) else {
                    return Err(CompileError::at(
                        line,
                        format!("missing connection: nodegraph `{g}` has no input `{name}`"),
                    ));
                };
                if i.ty != ty {
                    return Err(CompileError::at(
                        line,
                        format!(
                            "type mismatch: interface input `{name}` of `{g}` is {}, used as {ty}",
                            i.ty
                        ),
                    ));
                }
                self.source(Where::Top, &i.source, i.ty, i.line)
            }
        }
    }

    /// A uniform input's value (strings, booleans, integers, constants): connections are
    /// refused.
    fn uniform(&self, n: &'a Node, d: &'a NodeDef, name: &str) -> Result<Value> {
        match self.given(n, d, name) {
            Given::Default(di) => Ok(di.default.clone().unwrap_or(Value::Text(String::new()))),
            Given::Doc(i) => match &i.source {
                Source::Value(v) => Ok(v.clone()),
                // A nodegraph's interface input given as a value (e.g. an image's file).
                Source::Interface(iname) if self.graph_now.is_some() => {
                    let g = &self.doc.graphs[self.graph_now.expect("in a graph")];
                    match g.inputs.iter().find(|x| x.name == *iname).map(|x| &x.source) {
                        Some(Source::Value(v)) => Ok(v.clone()),
                        _ => Err(CompileError::at(
                            i.line,
                            format!(
                                "input `{name}` of `{}` ({}): interface input `{iname}` of nodegraph `{}` must exist and be a value",
                                n.name, n.category, g.name
                            ),
                        )),
                    }
                }
                _ => Err(CompileError::at(
                    i.line,
                    format!(
                        "input `{name}` of `{}` ({}) must be a value, not a connection",
                        n.name, n.category
                    ),
                )),
            },
        }
    }

    fn line_of(&self, n: &'a Node, d: &'a NodeDef, name: &str) -> u32 {
        match self.given(n, d, name) {
            Given::Doc(i) => i.line,
            Given::Default(_) => n.line,
        }
    }

    /// A uniform float input (constant after building).
    fn uniform_num(
        &mut self,
        w: Where<'a>,
        n: &'a Node,
        d: &'a NodeDef,
        name: &str,
    ) -> Result<Vec<f64>> {
        let at = self.input(w, n, d, name)?;
        match crate::simplify::constant_value(&self.tree, at) {
            Some(v) => Ok(v),
            None => Err(CompileError::at(
                self.line_of(n, d, name),
                format!(
                    "input `{name}` of `{}` ({}) must be a constant here",
                    n.name, n.category
                ),
            )),
        }
    }

    fn refuse(
        &self,
        n: &'a Node,
        d: &'a NodeDef,
        name: &str,
        ok: impl Fn(&Value) -> bool,
        why: &str,
    ) -> Result<()> {
        let v = self.uniform(n, d, name)?;
        if ok(&v) {
            Ok(())
        } else {
            Err(CompileError::at(
                self.line_of(n, d, name),
                format!(
                    "unsupported input of `{}` ({}): {name} = {}; {why}",
                    n.name,
                    n.category,
                    show(&v)
                ),
            ))
        }
    }

    /// The normal input must be the geometric normal.
    fn check_normal(&mut self, w: Where<'a>, n: &'a Node, d: &'a NodeDef) -> Result<()> {
        let at = self.input(w, n, d, "normal")?;
        if self.tree.nodes[at].op != Op::Normal {
            return Err(CompileError::at(
                self.line_of(n, d, "normal"),
                format!(
                    "unsupported input of `{}` ({}): normal must be the shading normal (unconnected or a `normal` node)",
                    n.name, n.category
                ),
            ));
        }
        Ok(())
    }

    /// Isotropic GGX α from a `roughness` vector2.
    fn alpha(&mut self, w: Where<'a>, n: &'a Node, d: &'a NodeDef) -> Result<usize> {
        let v = self.uniform_num(w, n, d, "roughness")?;
        if (v[0] - v[1]).abs() > 1e-9 {
            return Err(CompileError::at(
                self.line_of(n, d, "roughness"),
                format!(
                    "unsupported input of `{}` ({}): roughness = {}, {}: anisotropic GGX is not supported (the GGX pipeline is isotropic)",
                    n.name, n.category, v[0], v[1]
                ),
            ));
        }
        Ok(self.tree.constant(vec![v[0]], Ty::Float))
    }

    fn microfacet_common(&mut self, w: Where<'a>, n: &'a Node, d: &'a NodeDef) -> Result<()> {
        self.check_normal(w, n, d)?;
        let is = |s: &'static str| move |v: &Value| *v == Value::Text(s.into());
        self.refuse(n, d, "distribution", is("ggx"), "only ggx")?;
        self.refuse(
            n,
            d,
            "scatter_mode",
            is("R"),
            "only reflection (R) is supported",
        )?;
        let t = self.uniform_num(w, n, d, "thinfilm_thickness")?;
        if t[0] != 0.0 {
            return Err(CompileError::at(
                self.line_of(n, d, "thinfilm_thickness"),
                format!(
                    "unsupported input of `{}` ({}): thinfilm_thickness = {}; thin-film interference is not supported",
                    n.name, n.category, t[0]
                ),
            ));
        }
        Ok(())
    }

    fn node_body(&mut self, w: Where<'a>, n: &'a Node) -> Result<usize> {
        let d = self.nodedef(n)?;
        let line = n.line;
        let inp = |b: &mut Self, name: &str| b.input(w, n, d, name);
        let lobe = |b: &mut Self, k: LobeKind, args: Vec<usize>| {
            Ok(b.tree.push(Op::Lobe(k), Ty::Bsdf, args, line))
        };
        match (n.category.as_str(), d.out) {
            ("surfacematerial", _) => {
                let s = inp(self, "surfaceshader")?;
                if !matches!(self.given(n, d, "displacementshader"), Given::Default(_)) {
                    self.tree
                        .warnings
                        .push(format!("line {line}: displacementshader ignored"));
                }
                // The tree's root is the surface's BSDF.
                Ok(self.tree.nodes[s].args[0])
            }
            ("surface", _) => {
                if let Given::Doc(i) = self.given(n, d, "edf") {
                    return Err(CompileError::at(
                        i.line,
                        format!(
                            "unsupported input of `{}` (surface): edf (emission) is not supported",
                            n.name
                        ),
                    ));
                }
                if matches!(self.given(n, d, "bsdf"), Given::Default(_)) {
                    return Err(CompileError::at(
                        line,
                        format!(
                            "missing connection: input `bsdf` of surface `{}` must be connected",
                            n.name
                        ),
                    ));
                }
                let b = inp(self, "bsdf")?;
                let o = self.uniform_num(w, n, d, "opacity")?;
                if o[0] != 1.0 {
                    self.tree
                        .warnings
                        .push(format!("line {line}: opacity {} ignored (opaque)", o[0]));
                }
                Ok(self.tree.push(Op::Surface, Ty::Surface, vec![b], line))
            }
            ("oren_nayar_diffuse_bsdf", _) => {
                self.check_normal(w, n, d)?;
                if self.uniform(n, d, "energy_compensation")? == Value::Bool(true) {
                    self.tree
                        .warnings
                        .push(format!("line {line}: energy_compensation ignored"));
                }
                let a = vec![
                    inp(self, "weight")?,
                    inp(self, "color")?,
                    inp(self, "roughness")?,
                ];
                lobe(self, LobeKind::OrenNayar, a)
            }
            ("burley_diffuse_bsdf", _) => {
                self.check_normal(w, n, d)?;
                let a = vec![
                    inp(self, "weight")?,
                    inp(self, "color")?,
                    inp(self, "roughness")?,
                ];
                lobe(self, LobeKind::Burley, a)
            }
            ("dielectric_bsdf", _) => {
                self.microfacet_common(w, n, d)?;
                let ior = self.uniform_num(w, n, d, "ior")?[0];
                let f0 = ((ior - 1.0) / (ior + 1.0)).powi(2);
                if !f0.is_finite() {
                    return Err(CompileError::at(
                        self.line_of(n, d, "ior"),
                        format!("ior = {ior} gives no Fresnel F0"),
                    ));
                }
                let a = vec![inp(self, "weight")?, inp(self, "tint")?];
                let f0 = self.tree.constant(vec![f0], Ty::Float);
                let alpha = self.alpha(w, n, d)?;
                lobe(self, LobeKind::Dielectric, [a, vec![f0, alpha]].concat())
            }
            ("generalized_schlick_bsdf", _) => {
                self.microfacet_common(w, n, d)?;
                let e = self.uniform_num(w, n, d, "exponent")?[0];
                if e != 5.0 {
                    return Err(CompileError::at(
                        self.line_of(n, d, "exponent"),
                        format!("unsupported input of `{}` (generalized_schlick_bsdf): exponent = {e}; the SCHLICK pipeline's exponent is 5", n.name),
                    ));
                }
                let c82 = self.uniform_num(w, n, d, "color82")?;
                if c82.iter().any(|&c| c != 1.0) {
                    return Err(CompileError::at(
                        self.line_of(n, d, "color82"),
                        format!("unsupported input of `{}` (generalized_schlick_bsdf): color82 ≠ 1 (the F82 tint) is not supported", n.name),
                    ));
                }
                let a = vec![
                    inp(self, "weight")?,
                    inp(self, "color0")?,
                    inp(self, "color90")?,
                ];
                let alpha = self.alpha(w, n, d)?;
                lobe(self, LobeKind::Schlick, [a, vec![alpha]].concat())
            }
            ("sheen_bsdf", _) => {
                self.check_normal(w, n, d)?;
                let is = |v: &Value| *v == Value::Text("conty_kulla".into());
                self.refuse(n, d, "mode", is, "only conty_kulla (the SHEEN pipeline)")?;
                let a = vec![
                    inp(self, "weight")?,
                    inp(self, "color")?,
                    inp(self, "roughness")?,
                ];
                lobe(self, LobeKind::Sheen, a)
            }
            ("subsurface_bsdf", _) => {
                self.check_normal(w, n, d)?;
                let a = vec![inp(self, "weight")?, inp(self, "color")?];
                lobe(self, LobeKind::Subsurface, a)
            }
            ("cel_bsdf", _) => {
                self.check_normal(w, n, d)?;
                let mut t = [0.0; 7];
                let names = [
                    "threshold1",
                    "threshold2",
                    "threshold3",
                    "value0",
                    "value1",
                    "value2",
                    "value3",
                ];
                for (x, name) in t.iter_mut().zip(names) {
                    *x = self.uniform_num(w, n, d, name)?[0];
                }
                let a = vec![inp(self, "weight")?, inp(self, "color")?];
                lobe(self, LobeKind::Cel(t), a)
            }
            ("mix", Ty::Bsdf) => {
                let a = vec![inp(self, "fg")?, inp(self, "bg")?, inp(self, "mix")?];
                Ok(self.tree.push(Op::MixBsdf, Ty::Bsdf, a, line))
            }
            ("add", Ty::Bsdf) => {
                let a = vec![inp(self, "in1")?, inp(self, "in2")?];
                Ok(self.tree.push(Op::AddBsdf, Ty::Bsdf, a, line))
            }
            ("multiply", Ty::Bsdf) => {
                let a = vec![inp(self, "in1")?, inp(self, "in2")?];
                Ok(self.tree.push(Op::ScaleBsdf, Ty::Bsdf, a, line))
            }
            ("constant", _) => inp(self, "value"),
            ("texcoord", _) => {
                let i = self.uniform(n, d, "index")?;
                if i != Value::Int(0) {
                    return Err(CompileError::at(
                        self.line_of(n, d, "index"),
                        format!("unsupported input of `{}` (texcoord): index = {}; the ray carries texture coordinate set 0 only", n.name, show(&i)),
                    ));
                }
                Ok(self.tree.push(Op::Texcoord, Ty::Vector2, vec![], line))
            }
            ("normal", _) => Ok(self.tree.push(Op::Normal, Ty::Vector3, vec![], line)),
            ("image", ty) => self.image(w, n, d, ty),
            (cat, ty) => {
                let op = match cat {
                    "add" => Op::Add,
                    "subtract" => Op::Sub,
                    "multiply" => Op::Mul,
                    "divide" => Op::Div,
                    "mix" => Op::Mix,
                    "clamp" => Op::Clamp,
                    _ => unreachable!("every library node has a case: {cat}"),
                };
                let args: Result<Vec<usize>> =
                    d.inputs.iter().map(|i| inp(self, &i.name)).collect();
                Ok(self.tree.push(op, ty, args?, line))
            }
        }
    }

    fn image(&mut self, w: Where<'a>, n: &'a Node, d: &'a NodeDef, ty: Ty) -> Result<usize> {
        let file = match self.uniform(n, d, "file")? {
            Value::Text(f) if !f.is_empty() => f,
            _ => {
                return Err(CompileError::at(
                    n.line,
                    format!("missing connection: image `{}` has no file", n.name),
                ))
            }
        };
        for m in ["uaddressmode", "vaddressmode"] {
            let periodic = |v: &Value| *v == Value::Text("periodic".into());
            self.refuse(
                n,
                d,
                m,
                periodic,
                "ASTC_A wraps texture coordinates (periodic only)",
            )?;
        }
        let empty = |v: &Value| *v == Value::Text(String::new());
        self.refuse(n, d, "layer", empty, "layers are not supported")?;
        if let Some(cs) = &n.colorspace {
            self.tree.warnings.push(format!(
                "line {}: colorspace `{cs}` of image `{}`: texels are used as stored (no conversion)",
                n.line, n.name
            ));
        }
        let path = self.dir.join(&file);
        let tex = match self.tree.textures.iter().position(|t| t.path == path) {
            Some(i) => i,
            None => {
                let t = Texture::load(&path).map_err(|e| {
                    CompileError::at(
                        self.line_of(n, d, "file"),
                        format!("image `{}`: {e}", n.name),
                    )
                })?;
                self.tree.textures.push(t);
                self.tree.textures.len() - 1
            }
        };
        let uv = self.input(w, n, d, "texcoord")?;
        let scale = self.input(w, n, d, "uv_scale")?;
        let offset = self.input(w, n, d, "uv_offset")?;
        let scaled = self
            .tree
            .push(Op::Mul, Ty::Vector2, vec![uv, scale], n.line);
        let uv = self
            .tree
            .push(Op::Add, Ty::Vector2, vec![scaled, offset], n.line);
        Ok(self.tree.push(Op::Image { tex }, ty, vec![uv], n.line))
    }
}

fn show(v: &Value) -> String {
    match v {
        Value::Num(x) => x
            .iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Text(t) => format!("`{t}`"),
    }
}
