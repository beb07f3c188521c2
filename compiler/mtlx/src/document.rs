//! A MaterialX document read with `roxmltree`: its nodes, nodegraphs and their inputs, each
//! with its line, and the typed values of `value` attributes.

use crate::error::{CompileError, Result};
use std::collections::HashMap;
use std::fmt;

/// A MaterialX data type (the subset the compiler meets).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// `float`.
    Float,
    /// `color3`.
    Color3,
    /// `vector2`.
    Vector2,
    /// `vector3`.
    Vector3,
    /// `boolean`.
    Boolean,
    /// `integer`.
    Integer,
    /// `string`.
    Str,
    /// `filename`.
    Filename,
    /// `BSDF`.
    Bsdf,
    /// `EDF`.
    Edf,
    /// `surfaceshader`.
    Surface,
    /// `displacementshader`.
    Displacement,
    /// `material`.
    Material,
}

impl Ty {
    /// The type named `s` in a document, if the compiler knows it.
    pub fn parse(s: &str) -> Option<Ty> {
        Some(match s {
            "float" => Ty::Float,
            "color3" => Ty::Color3,
            "vector2" => Ty::Vector2,
            "vector3" => Ty::Vector3,
            "boolean" => Ty::Boolean,
            "integer" => Ty::Integer,
            "string" => Ty::Str,
            "filename" => Ty::Filename,
            "BSDF" => Ty::Bsdf,
            "EDF" => Ty::Edf,
            "surfaceshader" => Ty::Surface,
            "displacementshader" => Ty::Displacement,
            "material" => Ty::Material,
            _ => return None,
        })
    }

    /// Stack words of a value of this type (0 for types that never reach the stack).
    pub fn words(self) -> usize {
        match self {
            Ty::Float => 1,
            Ty::Vector2 => 2,
            Ty::Color3 | Ty::Vector3 => 3,
            _ => 0,
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Ty::Float => "float",
            Ty::Color3 => "color3",
            Ty::Vector2 => "vector2",
            Ty::Vector3 => "vector3",
            Ty::Boolean => "boolean",
            Ty::Integer => "integer",
            Ty::Str => "string",
            Ty::Filename => "filename",
            Ty::Bsdf => "BSDF",
            Ty::Edf => "EDF",
            Ty::Surface => "surfaceshader",
            Ty::Displacement => "displacementshader",
            Ty::Material => "material",
        })
    }
}

/// A typed value of a `value` attribute.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `float`, `color3`, `vector2`, `vector3`: the components.
    Num(Vec<f64>),
    /// `boolean`.
    Bool(bool),
    /// `integer`.
    Int(i64),
    /// `string` and `filename`.
    Text(String),
}

impl Value {
    /// Parses `text` as a value of type `ty` (MaterialX: components separated by commas).
    pub fn parse(ty: Ty, text: &str) -> std::result::Result<Value, String> {
        let nums = |n: usize| -> std::result::Result<Value, String> {
            let parts: Vec<&str> = text.split(',').map(str::trim).collect();
            if parts.len() != n {
                return Err(format!(
                    "`{text}` is no {ty} value: {n} number{} expected, {} found",
                    if n == 1 { "" } else { "s" },
                    parts.len()
                ));
            }
            let mut v = Vec::with_capacity(n);
            for p in parts {
                match p.parse::<f64>() {
                    Ok(x) if x.is_finite() => v.push(x),
                    _ => return Err(format!("`{p}` is not a number (in {ty} value `{text}`)")),
                }
            }
            Ok(Value::Num(v))
        };
        match ty {
            Ty::Float => nums(1),
            Ty::Vector2 => nums(2),
            Ty::Color3 | Ty::Vector3 => nums(3),
            Ty::Boolean => match text.trim() {
                "true" => Ok(Value::Bool(true)),
                "false" => Ok(Value::Bool(false)),
                t => Err(format!("`{t}` is no boolean value (true or false)")),
            },
            Ty::Integer => text
                .trim()
                .parse::<i64>()
                .map(Value::Int)
                .map_err(|_| format!("`{text}` is no integer value")),
            Ty::Str | Ty::Filename => Ok(Value::Text(text.to_string())),
            _ => {
                if text.trim().is_empty() {
                    Ok(Value::Text(String::new()))
                } else {
                    Err(format!("a {ty} input takes no value (`{text}`)"))
                }
            }
        }
    }

    /// The numbers of a numeric value.
    pub fn nums(&self) -> Option<&[f64]> {
        match self {
            Value::Num(v) => Some(v),
            _ => None,
        }
    }
}

/// Where an input's value comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// A `value` attribute (parsed per the input's type).
    Value(Value),
    /// `nodename` (and optional `output`).
    Node {
        /// The node's name.
        node: String,
        /// The `output` attribute.
        output: Option<String>,
    },
    /// `nodegraph` (and optional `output`).
    Graph {
        /// The nodegraph's name.
        graph: String,
        /// The `output` attribute.
        output: Option<String>,
    },
    /// `interfacename`: an input of the enclosing nodegraph.
    Interface(String),
}

/// An `<input>` of a node or nodegraph.
#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    /// `name`.
    pub name: String,
    /// `type`.
    pub ty: Ty,
    /// Its source.
    pub source: Source,
    /// Line of the element.
    pub line: u32,
}

/// A node element: its category (the element's tag), name, output type and inputs.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The element's tag (`oren_nayar_diffuse_bsdf`, `multiply`, …).
    pub category: String,
    /// `name`.
    pub name: String,
    /// `type` (the output's type).
    pub ty: Ty,
    /// An explicit `nodedef` attribute.
    pub nodedef: Option<String>,
    /// Inputs in document order.
    pub inputs: Vec<Input>,
    /// Extra attributes the compiler reads (`colorspace`).
    pub colorspace: Option<String>,
    /// Line of the element.
    pub line: u32,
}

/// An `<output>` of a nodegraph.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// `name`.
    pub name: String,
    /// `type`.
    pub ty: Ty,
    /// The node it forwards (`nodename`) and that node's `output`.
    pub node: String,
    /// The `output` attribute.
    pub output: Option<String>,
    /// Line of the element.
    pub line: u32,
}

/// A scope of nodes: the document's top level or a nodegraph.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scope {
    /// Name (empty for the document).
    pub name: String,
    /// Nodes by name.
    pub nodes: HashMap<String, Node>,
    /// Outputs (nodegraphs only).
    pub outputs: Vec<Output>,
    /// Interface inputs (nodegraphs only).
    pub inputs: Vec<Input>,
    /// Line of the element.
    pub line: u32,
}

/// A parsed MaterialX document.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Document {
    /// The top-level nodes.
    pub top: Scope,
    /// Nodegraphs by name.
    pub graphs: HashMap<String, Scope>,
    /// `fileprefix` of the root element.
    pub fileprefix: String,
}

fn line_of(doc: &roxmltree::Document, n: roxmltree::Node) -> u32 {
    doc.text_pos_at(n.range().start).row
}

/// Elements that carry no nodes the compiler needs.
const IGNORED: &[&str] = &[
    "look",
    "collection",
    "geominfo",
    "typedef",
    "backdrop",
    "propertyset",
];

/// Parses a MaterialX document from `text`.
pub fn parse(text: &str) -> Result<Document> {
    let xml = roxmltree::Document::parse(text).map_err(|e| {
        let p = e.pos();
        CompileError::at(p.row, format!("malformed XML: {e}"))
    })?;
    let root = xml.root_element();
    if root.tag_name().name() != "materialx" {
        return Err(CompileError::at(
            line_of(&xml, root),
            format!(
                "the root element is <{}>, not <materialx>",
                root.tag_name().name()
            ),
        ));
    }
    let mut doc = Document {
        fileprefix: root.attribute("fileprefix").unwrap_or("").to_string(),
        ..Document::default()
    };
    let mut top = Scope::default();
    for el in root.children().filter(|c| c.is_element()) {
        let tag = el.tag_name().name();
        match tag {
            "nodegraph" => {
                let g = scope(&xml, el)?;
                if doc.graphs.contains_key(&g.name) || top.nodes.contains_key(&g.name) {
                    return Err(CompileError::at(
                        g.line,
                        format!("a second element is named `{}`", g.name),
                    ));
                }
                doc.graphs.insert(g.name.clone(), g);
            }
            // Node definitions and implementations in a material document are not compiled:
            // the compiler's library defines every node it supports.
            "nodedef" | "implementation" => {
                return Err(CompileError::at(
                    line_of(&xml, el),
                    format!(
                        "<{tag} name=\"{}\">: custom node definitions are not supported (the compiler's library is compiler/mtlx/libraries)",
                        el.attribute("name").unwrap_or("")
                    ),
                ))
            }
            "output" => {
                return Err(CompileError::at(
                    line_of(&xml, el),
                    "a top-level <output> is not supported (connect the material to its node)",
                ))
            }
            t if IGNORED.contains(&t) => {}
            _ => {
                let n = node(&xml, el)?;
                if top.nodes.contains_key(&n.name) || doc.graphs.contains_key(&n.name) {
                    return Err(CompileError::at(
                        n.line,
                        format!("a second element is named `{}`", n.name),
                    ));
                }
                top.nodes.insert(n.name.clone(), n);
            }
        }
    }
    doc.top = top;
    Ok(doc)
}

fn attr<'a>(xml: &roxmltree::Document, el: roxmltree::Node<'a, '_>, name: &str) -> Result<&'a str> {
    el.attribute(name).ok_or_else(|| {
        CompileError::at(
            line_of(xml, el),
            format!("<{}> has no `{name}` attribute", el.tag_name().name()),
        )
    })
}

fn ty_attr(xml: &roxmltree::Document, el: roxmltree::Node) -> Result<Ty> {
    let t = attr(xml, el, "type")?;
    Ty::parse(t).ok_or_else(|| {
        CompileError::at(
            line_of(xml, el),
            format!(
                "<{} name=\"{}\">: type `{t}` is not supported",
                el.tag_name().name(),
                el.attribute("name").unwrap_or("")
            ),
        )
    })
}

fn input(xml: &roxmltree::Document, el: roxmltree::Node) -> Result<Input> {
    let line = line_of(xml, el);
    let name = attr(xml, el, "name")?.to_string();
    let ty = ty_attr(xml, el)?;
    let output = el.attribute("output").map(str::to_string);
    let source = if let Some(n) = el.attribute("nodename") {
        Source::Node {
            node: n.to_string(),
            output,
        }
    } else if let Some(g) = el.attribute("nodegraph") {
        Source::Graph {
            graph: g.to_string(),
            output,
        }
    } else if let Some(i) = el.attribute("interfacename") {
        Source::Interface(i.to_string())
    } else if let Some(v) = el.attribute("value") {
        Source::Value(
            Value::parse(ty, v)
                .map_err(|m| CompileError::at(line, format!("input `{name}`: {m}")))?,
        )
    } else {
        return Err(CompileError::at(
            line,
            format!("input `{name}` has neither a value nor a connection (nodename, nodegraph, interfacename)"),
        ));
    };
    Ok(Input {
        name,
        ty,
        source,
        line,
    })
}

fn node(xml: &roxmltree::Document, el: roxmltree::Node) -> Result<Node> {
    let line = line_of(xml, el);
    let mut inputs: Vec<Input> = Vec::new();
    for c in el.children().filter(|c| c.is_element()) {
        match c.tag_name().name() {
            "input" => {
                let i = input(xml, c)?;
                if inputs.iter().any(|j| j.name == i.name) {
                    return Err(CompileError::at(
                        i.line,
                        format!("input `{}` is given twice", i.name),
                    ));
                }
                inputs.push(i);
            }
            "output" => {} // multi-output nodes: the outputs' types are the nodedef's
            t => {
                return Err(CompileError::at(
                    line_of(xml, c),
                    format!("unexpected <{t}> inside a node"),
                ))
            }
        }
    }
    Ok(Node {
        category: el.tag_name().name().to_string(),
        name: attr(xml, el, "name")?.to_string(),
        ty: ty_attr(xml, el)?,
        nodedef: el.attribute("nodedef").map(str::to_string),
        colorspace: el.attribute("colorspace").map(str::to_string),
        inputs,
        line,
    })
}

fn scope(xml: &roxmltree::Document, g: roxmltree::Node) -> Result<Scope> {
    let mut s = Scope {
        name: attr(xml, g, "name")?.to_string(),
        line: line_of(xml, g),
        ..Scope::default()
    };
    for el in g.children().filter(|c| c.is_element()) {
        match el.tag_name().name() {
            "input" => s.inputs.push(input(xml, el)?),
            "output" => s.outputs.push(Output {
                name: attr(xml, el, "name")?.to_string(),
                ty: ty_attr(xml, el)?,
                node: attr(xml, el, "nodename")?.to_string(),
                output: el.attribute("output").map(str::to_string),
                line: line_of(xml, el),
            }),
            "nodegraph" => {
                return Err(CompileError::at(
                    line_of(xml, el),
                    "nested nodegraphs are not supported",
                ))
            }
            _ => {
                let n = node(xml, el)?;
                if s.nodes.contains_key(&n.name) {
                    return Err(CompileError::at(
                        n.line,
                        format!(
                            "a second node is named `{}` in nodegraph `{}`",
                            n.name, s.name
                        ),
                    ));
                }
                s.nodes.insert(n.name.clone(), n);
            }
        }
    }
    Ok(s)
}
