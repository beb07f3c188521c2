//! The reference renderer's materials: an independent f64 evaluation of a MaterialX 1.39
//! document (`roxmltree`; the supported subset of `compiler/mtlx/ABI.md`) with MaterialX
//! pbrlib's formulas (`DECISIONS.md` D4), written from the formulas, not from the compiler's
//! tree or programs. Only what the renderer needs: the BSDF as a weighted sum of lobes at a
//! texture coordinate, each lobe's `value·cos`, and the ABI's lobe choice and directions.

use super::math::*;
use std::collections::HashMap;
use std::f64::consts::PI;
use std::path::{Path, PathBuf};

type Res<T> = Result<T, String>;

/// A lobe kind (ABI.md's table).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// `oren_nayar_diffuse_bsdf` (σ = roughness; σ 0 is Lambert).
    OrenNayar,
    /// `burley_diffuse_bsdf`.
    Burley,
    /// `dielectric_bsdf` (reflection) and `generalized_schlick_bsdf`: GGX with Schlick's F.
    Ggx,
    /// `sheen_bsdf` (Conty-Kulla).
    Sheen,
    /// `subsurface_bsdf` (Burley 2012, roughness 0.5).
    Subsurface,
    /// `cel_bsdf` (thresholds 1–3, values 0–3).
    Cel([f64; 7]),
}

/// One lobe at one texture coordinate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lobe {
    /// What it is.
    pub kind: Kind,
    /// Its RGB weight (colour × weight × every mix/multiply factor above it).
    pub weight: V3,
    /// Roughness (GGX: α).
    pub rough: f64,
    /// Schlick F0 (GGX only).
    pub f0: V3,
    /// Schlick F90 (GGX only).
    pub f90: V3,
}

fn half(v: V3, l: V3) -> V3 {
    normalize(add(v, l))
}

fn schlick(f0: f64, f90: f64, c: f64) -> f64 {
    f0 + (f90 - f0) * (1.0 - c).clamp(0.0, 1.0).powi(5)
}

fn oren_nayar(nl: f64, nv: f64, lv: f64, sigma: f64) -> f64 {
    let s = lv - nl * nv;
    let t = if s > 0.0 { s / nl.max(nv) } else { 0.0 };
    let s2 = sigma * sigma;
    (1.0 - 0.5 * s2 / (s2 + 0.33) + 0.45 * s2 / (s2 + 0.09) * t) / PI
}

fn ggx_d(nh: f64, a2: f64) -> f64 {
    a2 / (PI * (nh * nh * (a2 - 1.0) + 1.0).powi(2))
}

fn ggx(nl: f64, nv: f64, nh: f64, alpha: f64) -> f64 {
    let a2 = alpha * alpha;
    let g2 = 2.0 * nl * nv
        / (nv * (a2 + (1.0 - a2) * nl * nl).sqrt() + nl * (a2 + (1.0 - a2) * nv * nv).sqrt());
    ggx_d(nh, a2) * g2 / (4.0 * nl * nv)
}

impl Lobe {
    /// `lobe(V, L)·max(N·L, 0)` in RGB (the cel band already holds the cosine).
    pub fn eval(&self, n: V3, v: V3, l: V3) -> V3 {
        let (nl, nv) = (dot(n, l), dot(n, v));
        if nl <= 0.0 {
            return [0.0; 3];
        }
        let h = half(v, l);
        let f = match self.kind {
            Kind::OrenNayar => oren_nayar(nl, nv, dot(l, v), self.rough) * nl,
            Kind::Burley => {
                let lh = dot(l, h);
                let fd90 = 0.5 + 2.0 * lh * lh * self.rough;
                schlick(1.0, fd90, nl) * schlick(1.0, fd90, nv) / PI * nl
            }
            Kind::Ggx => {
                let g = ggx(nl, nv, dot(n, h), self.rough) * nl;
                let vh = dot(v, h);
                let fr = [0, 1, 2].map(|i| schlick(self.f0[i], self.f90[i], vh) * g);
                return mul(self.weight, fr);
            }
            Kind::Sheen => {
                let r = self.rough.max(0.005);
                let nh = dot(n, h);
                let d =
                    (2.0 + 1.0 / r) * (1.0 - nh * nh).max(0.0).powf(1.0 / (2.0 * r)) / (2.0 * PI);
                d / (4.0 * (nl + nv - nl * nv)) * nl
            }
            Kind::Subsurface => {
                let lh = dot(l, h);
                let f90 = lh * lh * 0.5;
                let fss = (1.0 + (f90 - 1.0) * (1.0 - nl).powi(5))
                    * (1.0 + (f90 - 1.0) * (1.0 - nv).powi(5));
                1.25 * (fss * (1.0 / (nl + nv) - 0.5) + 0.5) / PI * nl
            }
            Kind::Cel(t) => {
                let band = t[..3].iter().filter(|&&x| x <= nl).count();
                t[3 + band]
            }
        };
        scale(self.weight, f)
    }

    /// The albedo estimate `W_k` of ABI.md (negative counts as 0).
    pub fn albedo(&self, n: V3, v: V3) -> f64 {
        let w = mean(self.weight);
        let w = match self.kind {
            Kind::Ggx => {
                let nv = dot(n, v);
                w * mean([0, 1, 2].map(|i| schlick(self.f0[i], self.f90[i], nv)))
            }
            _ => w,
        };
        w.max(0.0)
    }

    /// A direction from `xi` with its pdf: GGX visible normals (MaterialX's
    /// `mx_ggx_importance_sample_VNDF`, L = reflect(−V, H)), else cosine-weighted.
    pub fn sample(&self, n: V3, v: V3, xi: [f64; 2]) -> (V3, f64) {
        let (t, b) = super::scene::frame(n);
        match self.kind {
            Kind::Ggx => {
                let a = self.rough;
                let vt = [dot(v, t), dot(v, b), dot(v, n)];
                let vs = normalize([vt[0] * a, vt[1] * a, vt[2]]);
                let phi = 2.0 * PI * xi[0];
                let z = (1.0 - xi[1]) * (1.0 + vs[2]) - vs[2];
                let st = (1.0 - z * z).clamp(0.0, 1.0).sqrt();
                let c = [st * phi.cos(), st * phi.sin(), z];
                let hh = add(c, vs);
                let hl = normalize([hh[0] * a, hh[1] * a, hh[2].max(0.0)]);
                let h = add(add(scale(t, hl[0]), scale(b, hl[1])), scale(n, hl[2]));
                let vh = dot(v, h);
                let l = sub(scale(h, 2.0 * vh), v);
                let nv = dot(n, v);
                let a2 = a * a;
                let g1 = 2.0 / (1.0 + (1.0 + a2 * (1.0 - nv * nv) / (nv * nv)).sqrt());
                let pdf = ggx_d(dot(n, h), a2) * g1 * vh.max(0.0) / (nv * 4.0 * vh);
                (l, pdf)
            }
            _ => {
                let r = xi[0].sqrt();
                let (s, c) = (2.0 * PI * xi[1]).sin_cos();
                let z = (1.0 - xi[0]).sqrt();
                let l = add(add(scale(t, r * c), scale(b, r * s)), scale(n, z));
                (l, z / PI)
            }
        }
    }
}

/// The engine's lobe choice (ISA.md `RANDSEL` and its xorshift32 PRNG seeded from the ray id),
/// in f64: the index `k` with `Σ_{i<k} w_i ≤ r < Σ_{i≤k} w_i`, `r = x/2³²·Σ w`.
pub fn choose(weights: &[f64], ray_id: u32) -> usize {
    let mut x = ray_id.wrapping_mul(0x9E37_79B9) | 1;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    let total: f64 = weights.iter().sum();
    let r = f64::from(x) / 4_294_967_296.0 * total;
    let mut acc = 0.0;
    let mut k = 0;
    for w in &weights[..weights.len() - 1] {
        acc += w;
        if acc <= r {
            k += 1;
        }
    }
    k
}

/// A sampled continuation: direction, path weight.
pub type Continuation = (V3, V3);

/// The one-sample estimator of ABI.md over `lobes` (choice by [`choose`]): the new direction
/// and its path weight `rgb·W_sum/(W_k·pdf)`, or `None` when the path ends.
pub fn sample(lobes: &[Lobe], n: V3, v: V3, xi: [f64; 2], ray_id: u32) -> Option<Continuation> {
    if lobes.is_empty() {
        return None;
    }
    let w: Vec<f64> = lobes.iter().map(|l| l.albedo(n, v)).collect();
    let total: f64 = w.iter().sum();
    let k = choose(&w, ray_id);
    let (l, pdf) = lobes[k].sample(n, v, xi);
    if total <= 0.0 || w[k] <= 0.0 || pdf <= 0.0 || dot(n, l) <= 0.0 {
        return None;
    }
    let rgb = lobes[k].eval(n, v, l);
    Some((l, scale(rgb, total / (w[k] * pdf))))
}

/// `Σ_k lobe_k(V, L)·cos`.
pub fn shade(lobes: &[Lobe], n: V3, v: V3, l: V3) -> V3 {
    lobes
        .iter()
        .fold([0.0; 3], |acc, lobe| add(acc, lobe.eval(n, v, l)))
}

#[derive(Clone, Debug)]
struct Input {
    value: Option<String>,
    nodename: Option<String>,
    nodegraph: Option<String>,
    output: Option<String>,
    interfacename: Option<String>,
    line: u32,
}

#[derive(Clone, Debug)]
struct Node {
    category: String,
    ty: String,
    inputs: HashMap<String, Input>,
    line: u32,
}

#[derive(Clone, Debug, Default)]
struct Scope {
    nodes: HashMap<String, Node>,
    /// A nodegraph's interface inputs and outputs.
    interface: HashMap<String, Input>,
    outputs: HashMap<String, Input>,
}

/// An RGBA8 image, row-major.
#[derive(Clone, Debug)]
struct Image {
    width: u32,
    height: u32,
    rgba: Vec<u8>,
}

/// A material for the f64 renderer.
#[derive(Clone, Debug)]
pub struct Material {
    scopes: HashMap<String, Scope>,
    root: String,
    dir: PathBuf,
    images: HashMap<String, Image>,
}

/// Defaults of the nodedefs' inputs (MaterialX 1.39 pbrlib; `cel_bsdf` is the project's).
fn default(category: &str, input: &str) -> Option<&'static str> {
    Some(match (category, input) {
        (_, "weight") => "1",
        ("oren_nayar_diffuse_bsdf" | "burley_diffuse_bsdf" | "subsurface_bsdf", "color") => {
            "0.18, 0.18, 0.18"
        }
        ("oren_nayar_diffuse_bsdf" | "burley_diffuse_bsdf", "roughness") => "0",
        ("dielectric_bsdf", "tint") => "1, 1, 1",
        ("dielectric_bsdf", "ior") => "1.5",
        ("dielectric_bsdf" | "generalized_schlick_bsdf", "roughness") => "0.05, 0.05",
        ("generalized_schlick_bsdf", "color0" | "color90") => "1, 1, 1",
        ("sheen_bsdf", "color") => "1, 1, 1",
        ("sheen_bsdf", "roughness") => "0.3",
        ("cel_bsdf", "color") => "1, 1, 1",
        ("cel_bsdf", "threshold1") => "0",
        ("cel_bsdf", "threshold2") => "0.3",
        ("cel_bsdf", "threshold3") => "0.7",
        ("cel_bsdf", "value0") => "0",
        ("cel_bsdf", "value1") => "0.3",
        ("cel_bsdf", "value2") => "0.7",
        ("cel_bsdf", "value3") => "1",
        ("mix", "mix") => "0",
        ("clamp", "low") => "0",
        ("clamp", "high") => "1",
        ("image", "uv_scale") => "1, 1",
        ("image", "uv_offset") => "0, 0",
        _ => return None,
    })
}

fn parse_input(e: roxmltree::Node, doc: &roxmltree::Document) -> (String, Input) {
    let a = |k: &str| e.attribute(k).map(str::to_string);
    (
        a("name").unwrap_or_default(),
        Input {
            value: a("value"),
            nodename: a("nodename"),
            nodegraph: a("nodegraph"),
            output: a("output"),
            interfacename: a("interfacename"),
            line: doc.text_pos_at(e.range().start).row,
        },
    )
}

fn parse_scope(parent: roxmltree::Node, doc: &roxmltree::Document) -> Scope {
    let mut s = Scope::default();
    for e in parent.children().filter(|e| e.is_element()) {
        let tag = e.tag_name().name();
        match tag {
            "input" => {
                let (k, v) = parse_input(e, doc);
                s.interface.insert(k, v);
            }
            "output" => {
                let (k, v) = parse_input(e, doc);
                s.outputs.insert(k, v);
            }
            "nodegraph" | "nodedef" | "look" | "materialassign" => {}
            _ => {
                let inputs = (e.children())
                    .filter(|c| c.is_element() && c.tag_name().name() == "input")
                    .map(|c| parse_input(c, doc))
                    .collect();
                s.nodes.insert(
                    e.attribute("name").unwrap_or_default().to_string(),
                    Node {
                        category: tag.to_string(),
                        ty: e.attribute("type").unwrap_or_default().to_string(),
                        inputs,
                        line: doc.text_pos_at(e.range().start).row,
                    },
                );
            }
        }
    }
    s
}

fn numbers(s: &str, line: u32) -> Res<Vec<f64>> {
    s.split(',')
        .map(|x| {
            x.trim()
                .parse::<f64>()
                .map_err(|_| format!("line {line}: `{s}` is not a number list"))
        })
        .collect()
}

impl Material {
    /// Reads the `.mtlx` file at `path` (its only `surfacematerial`).
    pub fn load(path: &Path) -> Res<Material> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let doc = roxmltree::Document::parse(&text).map_err(|e| format!("{e}"))?;
        let root = doc.root_element();
        let mut scopes = HashMap::new();
        scopes.insert(String::new(), parse_scope(root, &doc));
        for g in root
            .children()
            .filter(|e| e.is_element() && e.tag_name().name() == "nodegraph")
        {
            scopes.insert(
                g.attribute("name").unwrap_or_default().to_string(),
                parse_scope(g, &doc),
            );
        }
        let mats: Vec<&String> = (scopes[""].nodes.iter())
            .filter(|(_, n)| n.category == "surfacematerial")
            .map(|(k, _)| k)
            .collect();
        let [m] = mats.as_slice() else {
            return Err(format!(
                "{}: expected one surfacematerial, found {}",
                path.display(),
                mats.len()
            ));
        };
        Ok(Material {
            root: (*m).clone(),
            scopes,
            dir: path.parent().map(PathBuf::from).unwrap_or_default(),
            images: HashMap::new(),
        })
    }

    /// Decodes every `image` the material uses (with `astcenc`), so [`Material::lobes`] can
    /// run without side effects.
    pub fn load_images(&mut self) -> Res<()> {
        let files: Vec<(String, u32)> = (self.scopes.values())
            .flat_map(|s| s.nodes.values())
            .filter(|n| n.category == "image")
            .filter_map(|n| {
                let f = n.inputs.get("file")?;
                Some((f.value.clone()?, f.line))
            })
            .collect();
        for (f, line) in files {
            if !self.images.contains_key(&f) {
                let img = decode_texture(&self.dir.join(&f))
                    .map_err(|e| format!("line {line}: image `{f}`: {e}"))?;
                self.images.insert(f, img);
            }
        }
        Ok(())
    }

    /// The BSDF's lobes at texture coordinate `uv`, in the order MaterialX lists them (mix:
    /// fg then bg; add: in1 then in2).
    pub fn lobes(&self, uv: [f64; 2]) -> Res<Vec<Lobe>> {
        let m = &self.scopes[""].nodes[&self.root];
        let s = self.connected("", m, "surfaceshader")?;
        let (scope, surf) = s.ok_or("the material has no surfaceshader")?;
        let sn = &self.scopes[&scope].nodes[&surf];
        let mut out = Vec::new();
        if let Some((sc, b)) = self.connected(&scope, sn, "bsdf")? {
            self.bsdf(&sc, &b, [1.0; 3], uv, &mut out)?;
        }
        Ok(out)
    }

    /// The node an input of `node` connects to: (scope, node name).
    fn connected(&self, scope: &str, node: &Node, input: &str) -> Res<Option<(String, String)>> {
        let Some(i) = node.inputs.get(input) else {
            return Ok(None);
        };
        self.target(scope, i)
    }

    fn target(&self, scope: &str, i: &Input) -> Res<Option<(String, String)>> {
        if let Some(n) = &i.nodename {
            return Ok(Some((scope.to_string(), n.clone())));
        }
        if let Some(g) = &i.nodegraph {
            let sc = (self.scopes.get(g))
                .ok_or_else(|| format!("line {}: no nodegraph `{g}`", i.line))?;
            let out = match &i.output {
                Some(o) => sc.outputs.get(o),
                None => sc.outputs.values().next(),
            }
            .ok_or_else(|| format!("line {}: nodegraph `{g}` has no such output", i.line))?;
            return self.target(g, out);
        }
        if let Some(n) = &i.interfacename {
            let sc = &self.scopes[scope];
            let j = (sc.interface.get(n))
                .ok_or_else(|| format!("line {}: no interface input `{n}`", i.line))?;
            return self.target("", j);
        }
        Ok(None)
    }

    fn bsdf(&self, scope: &str, name: &str, w: V3, uv: [f64; 2], out: &mut Vec<Lobe>) -> Res<()> {
        let n = (self.scopes[scope].nodes.get(name)).ok_or_else(|| format!("no node `{name}`"))?;
        let f = |k: &str| self.value(scope, n, k, uv);
        let c3 = |v: Vec<f64>| -> V3 {
            match v.as_slice() {
                [x] => [*x; 3],
                [a, b, c, ..] => [*a, *b, *c],
                [a, ..] => [*a; 3],
                [] => [0.0; 3],
            }
        };
        let child = |k: &str, w: V3, out: &mut Vec<Lobe>| -> Res<()> {
            match self.connected(scope, n, k)? {
                Some((sc, b)) => self.bsdf(&sc, &b, w, uv, out),
                None => Ok(()),
            }
        };
        let lobe = |kind, weight: V3, rough, f0, f90| Lobe {
            kind,
            weight: mul(w, weight),
            rough,
            f0,
            f90,
        };
        let one = [1.0; 3];
        let colour_weight = || -> Res<V3> { Ok(scale(c3(f("color")?), f("weight")?[0])) };
        match n.category.as_str() {
            "oren_nayar_diffuse_bsdf" => out.push(lobe(
                Kind::OrenNayar,
                colour_weight()?,
                f("roughness")?[0],
                one,
                one,
            )),
            "burley_diffuse_bsdf" => out.push(lobe(
                Kind::Burley,
                colour_weight()?,
                f("roughness")?[0],
                one,
                one,
            )),
            "sheen_bsdf" => out.push(lobe(
                Kind::Sheen,
                colour_weight()?,
                f("roughness")?[0],
                one,
                one,
            )),
            "subsurface_bsdf" => out.push(lobe(Kind::Subsurface, colour_weight()?, 0.5, one, one)),
            "cel_bsdf" => {
                let mut t = [0.0; 7];
                for (i, k) in [
                    "threshold1",
                    "threshold2",
                    "threshold3",
                    "value0",
                    "value1",
                    "value2",
                    "value3",
                ]
                .iter()
                .enumerate()
                {
                    t[i] = f(k)?[0];
                }
                out.push(lobe(Kind::Cel(t), colour_weight()?, 0.0, one, one))
            }
            "dielectric_bsdf" => {
                let ior = f("ior")?[0];
                let f0 = ((ior - 1.0) / (ior + 1.0)).powi(2);
                let weight = scale(c3(f("tint")?), f("weight")?[0]);
                out.push(lobe(Kind::Ggx, weight, f("roughness")?[0], [f0; 3], one))
            }
            "generalized_schlick_bsdf" => {
                let weight = [f("weight")?[0]; 3];
                out.push(lobe(
                    Kind::Ggx,
                    weight,
                    f("roughness")?[0],
                    c3(f("color0")?),
                    c3(f("color90")?),
                ))
            }
            "mix" => {
                let m = f("mix")?[0];
                child("fg", scale(w, m), out)?;
                child("bg", scale(w, 1.0 - m), out)?;
            }
            "add" => {
                child("in1", w, out)?;
                child("in2", w, out)?;
            }
            "multiply" => child("in1", mul(w, c3(f("in2")?)), out)?,
            other => {
                return Err(format!(
                    "line {}: `{other}` is not a supported BSDF node",
                    n.line
                ))
            }
        }
        Ok(())
    }

    /// The value of input `k` of `node` (scalars and colours as number lists).
    fn value(&self, scope: &str, node: &Node, k: &str, uv: [f64; 2]) -> Res<Vec<f64>> {
        match node.inputs.get(k) {
            Some(i) => {
                if let Some((sc, name)) = self.target(scope, i)? {
                    return self.eval(&sc, &name, uv);
                }
                if let Some(v) = &i.value {
                    return numbers(v, i.line);
                }
                if let Some(n) = &i.interfacename {
                    let j = &self.scopes[scope].interface[n];
                    if let Some(v) = &j.value {
                        return numbers(v, j.line);
                    }
                }
                Err(format!("line {}: input `{k}` has no value", i.line))
            }
            None => match default(&node.category, k) {
                Some(v) => numbers(v, node.line),
                None if node.category == "image" && k == "texcoord" => Ok(uv.to_vec()),
                None => Err(format!(
                    "line {}: `{}` needs input `{k}`",
                    node.line, node.category
                )),
            },
        }
    }

    fn eval(&self, scope: &str, name: &str, uv: [f64; 2]) -> Res<Vec<f64>> {
        let n = (self.scopes[scope].nodes.get(name)).ok_or_else(|| format!("no node `{name}`"))?;
        let f = |k: &str| self.value(scope, n, k, uv);
        let zip = |a: Vec<f64>, b: Vec<f64>, op: fn(f64, f64) -> f64| -> Vec<f64> {
            let len = a.len().max(b.len());
            (0..len)
                .map(|i| op(a[i.min(a.len() - 1)], b[i.min(b.len() - 1)]))
                .collect()
        };
        Ok(match n.category.as_str() {
            "constant" => f("value")?,
            "texcoord" => uv.to_vec(),
            "add" => zip(f("in1")?, f("in2")?, |a, b| a + b),
            "subtract" => zip(f("in1")?, f("in2")?, |a, b| a - b),
            "multiply" => zip(f("in1")?, f("in2")?, |a, b| a * b),
            "divide" => zip(f("in1")?, f("in2")?, |a, b| a / b),
            "mix" => {
                let m = f("mix")?;
                let fg_m = zip(f("fg")?, m.clone(), |a, b| a * b);
                let bg_m = zip(f("bg")?, m, |a, b| a * (1.0 - b));
                zip(fg_m, bg_m, |a, b| a + b)
            }
            "clamp" => {
                let lo = zip(f("in")?, f("low")?, f64::max);
                zip(lo, f("high")?, f64::min)
            }
            "image" => {
                let file = (n.inputs.get("file").and_then(|i| i.value.clone()))
                    .ok_or_else(|| format!("line {}: image without a file", n.line))?;
                let img = (self.images.get(&file))
                    .ok_or_else(|| format!("line {}: image `{file}` not loaded", n.line))?;
                let tc = f("texcoord")?;
                let s = f("uv_scale")?;
                let o = f("uv_offset")?;
                let u = tc[0] * s[0] + o[0];
                let v = tc[1] * s[s.len() - 1] + o[o.len() - 1];
                let texel = |c: f64, size: u32| {
                    ((c - c.floor()) * f64::from(size))
                        .floor()
                        .min(f64::from(size - 1)) as u32
                };
                let (x, y) = (texel(u, img.width), texel(v, img.height));
                let at = 4 * (y * img.width + x) as usize;
                let rgb: Vec<f64> = (0..3)
                    .map(|c| f64::from(img.rgba[at + c]) / 255.0)
                    .collect();
                if n.ty == "float" {
                    vec![rgb[0]]
                } else {
                    rgb
                }
            }
            other => {
                return Err(format!(
                    "line {}: `{other}` is not a supported node",
                    n.line
                ))
            }
        })
    }
}

/// A scratch folder for `astcenc`'s files, removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The texels of a texture as the engine sees them: `.astc` decoded by `astcenc -dl` (ARM's
/// reference decoder, D5), a `.png` compressed as the compiler does
/// (`astcenc -cl … 4x4 -medium`) and decoded again.
fn decode_texture(path: &Path) -> Res<Image> {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "rendergen-render-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let scratch = Scratch(dir);
    let astc = if path.extension().is_some_and(|e| e == "png") {
        let a = scratch.0.join("t.astc");
        astcenc(&[
            "-cl".as_ref(),
            path.as_os_str(),
            a.as_os_str(),
            "4x4".as_ref(),
            "-medium".as_ref(),
        ])?;
        a
    } else {
        path.to_path_buf()
    };
    let png = scratch.0.join("t.png");
    astcenc(&["-dl".as_ref(), astc.as_os_str(), png.as_os_str()])?;
    let file = std::fs::File::open(&png).map_err(|e| e.to_string())?;
    let mut dec = png::Decoder::new(file);
    dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = dec.read_info().map_err(|e| e.to_string())?;
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).map_err(|e| e.to_string())?;
    let ch = info.color_type.samples();
    let rgba = (buf[..info.buffer_size()].chunks(ch))
        .flat_map(|p| match ch {
            1 | 2 => [p[0], p[0], p[0], 255],
            3 => [p[0], p[1], p[2], 255],
            _ => [p[0], p[1], p[2], p[3]],
        })
        .collect();
    Ok(Image {
        width: info.width,
        height: info.height,
        rgba,
    })
}

fn astcenc(args: &[&std::ffi::OsStr]) -> Res<()> {
    let out = std::process::Command::new("astcenc")
        .args(args)
        .output()
        .map_err(|e| format!("cannot run astcenc (scripts/install-deps.sh installs it): {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "astcenc failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rendergen_sim::models::pbru::{run, Memory, Ray};

    /// [`choose`] picks the case the interpreter's `RANDSEL` picks, for random weights (some
    /// zero) and ray ids: the reference renderer follows the engine's lobe choice.
    #[test]
    fn choose_matches_randsel_on_the_interpreter() {
        let mut seed = 0x1234_5678_u64;
        let mut next = || {
            seed = mix64(seed);
            seed
        };
        for _ in 0..300 {
            let n = 1 + (next() % 5) as usize;
            let words: Vec<u32> = (0..n)
                .map(|_| match next() % 4 {
                    0 => 0,
                    _ => (next() % 0x3_0000) as u32,
                })
                .collect();
            let mut asm: String = words.iter().map(|w| format!("PUSH {w}\n")).collect();
            asm += &format!("RANDSEL {n}\n");
            for k in 0..n {
                asm += &format!("CASE\nPUSH {k}\nENDCASE\n");
            }
            asm += "RAYSTOP\n";
            let code = rendergen_isa::asm::assemble(&asm).unwrap();
            let mut mem = Memory::new();
            mem.write(0x1000, &code);
            let id = (next() & 0xFFFF) as u32;
            let out = run(&mem, &Ray::new(id, 0x1000, Vec::new()), 32).unwrap();
            let w: Vec<f64> = words.iter().map(|&x| f64::from(x) / 65536.0).collect();
            assert_eq!(
                out.stack,
                [choose(&w, id) as u32],
                "weights {words:?}, ray id {id}"
            );
        }
    }
}
