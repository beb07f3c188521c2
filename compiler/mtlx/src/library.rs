//! The node definitions the compiler supports, read from the `.mtlx` files it ships
//! (`libraries/rendergen_defs.mtlx`: the MaterialX 1.39 stdlib/pbrlib subset;
//! `libraries/cel_bsdf.mtlx`: the project's `cel_bsdf`).

use crate::document::{Ty, Value};

/// The MaterialX subset's definitions (stdlib and pbrlib names, types and defaults).
pub const DEFS_MTLX: &str = include_str!("../libraries/rendergen_defs.mtlx");
/// The project's `cel_bsdf` definition.
pub const CEL_MTLX: &str = include_str!("../libraries/cel_bsdf.mtlx");

/// One input of a node definition.
#[derive(Clone, Debug, PartialEq)]
pub struct DefInput {
    /// Name.
    pub name: String,
    /// Type.
    pub ty: Ty,
    /// Default value (`None` for a `defaultgeomprop` or an empty value).
    pub default: Option<Value>,
    /// `defaultgeomprop` (`Nworld`, `Tworld`, `UV0`).
    pub geomprop: Option<String>,
}

/// A node definition.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeDef {
    /// `ND_…` name.
    pub name: String,
    /// The node category it defines.
    pub node: String,
    /// Inputs in definition order.
    pub inputs: Vec<DefInput>,
    /// The output type.
    pub out: Ty,
}

impl NodeDef {
    /// The input called `name`.
    pub fn input(&self, name: &str) -> Option<&DefInput> {
        self.inputs.iter().find(|i| i.name == name)
    }
}

/// Every definition of both library files, in file order.
///
/// # Panics
/// If a shipped library file is malformed (a test reads them).
pub fn library() -> Vec<NodeDef> {
    let mut defs = read(DEFS_MTLX);
    defs.extend(read(CEL_MTLX));
    defs
}

fn read(text: &str) -> Vec<NodeDef> {
    let xml = roxmltree::Document::parse(text).expect("shipped library parses");
    let mut defs = Vec::new();
    for d in xml
        .root_element()
        .children()
        .filter(|c| c.has_tag_name("nodedef"))
    {
        let mut inputs = Vec::new();
        let mut out = None;
        for c in d.children().filter(|c| c.is_element()) {
            let ty = Ty::parse(c.attribute("type").expect("type")).expect("known type");
            if c.has_tag_name("output") {
                out = Some(ty);
                continue;
            }
            let default = match c.attribute("value") {
                Some("") | None => None,
                Some(v) => Some(Value::parse(ty, v).expect("library default parses")),
            };
            inputs.push(DefInput {
                name: c.attribute("name").expect("name").to_string(),
                ty,
                default,
                geomprop: c.attribute("defaultgeomprop").map(str::to_string),
            });
        }
        defs.push(NodeDef {
            name: d.attribute("name").expect("name").to_string(),
            node: d.attribute("node").expect("node").to_string(),
            inputs,
            out: out.expect("an output"),
        });
    }
    defs
}
