//! # rendergen's MaterialX material compiler
//!
//! Compiles a MaterialX 1.39 material into the PBRU's two programs (`pbru.md` §6.5, compiler
//! 1420 of Figs. 14–16), its set-up requests and its textures:
//!
//! 1. [`document`]: the XML (`roxmltree`), every element with its line;
//! 2. [`tree`]: the material graph as an expression tree in postfix order, with the semantic
//!    checks (definitions from [`library`], connections, types, cycles);
//! 3. [`simplify`]: constant folding, algebraic identities, Oren-Nayar at roughness 0 → 1/π,
//!    zero-weight lobes and unused inputs dropped;
//! 4. [`lobes`]: the BSDF as a weighted sum of lobes (the leaves of §6.5 step 1606);
//! 5. [`codegen`]: the **shading program** (BSDF·cos for one light direction) and the
//!    **importance-sampling program** (RANDSEL over the lobes by albedo estimate, each case
//!    running its lobe's `*_DIR`), as assembly assembled by `rendergen_isa::asm`;
//! 6. the `OUT.bin` container ([`container`]).
//!
//! The stack layouts and the container are specified in `compiler/mtlx/ABI.md`; [`abi`] builds
//! the stacks and reads the results.
//!
//! ```
//! let src = r#"<?xml version="1.0"?>
//! <materialx version="1.39">
//!   <oren_nayar_diffuse_bsdf name="d" type="BSDF">
//!     <input name="color" type="color3" value="0.8, 0.5, 0.2"/>
//!   </oren_nayar_diffuse_bsdf>
//!   <surface name="s" type="surfaceshader"><input name="bsdf" type="BSDF" nodename="d"/></surface>
//!   <surfacematerial name="M" type="material">
//!     <input name="surfaceshader" type="surfaceshader" nodename="s"/>
//!   </surfacematerial>
//! </materialx>"#;
//! let m = rendergen_mtlx_compiler::compile(src, &Default::default()).unwrap();
//! // Roughness 0: the Oren-Nayar lobe is the constant 1/π, no pipeline request.
//! assert!(!m.shading.asm.contains("OREN_NAYAR\n"));
//! assert_eq!(m.lobes, ["lambert"]);
//! ```

pub mod abi;
pub mod codegen;
pub mod container;
pub mod document;
pub mod error;
pub mod library;
pub mod lobes;
pub mod simplify;
pub mod texture;
pub mod tree;

pub use container::{Container, SmRequest};
pub use error::CompileError;

use codegen::{q16, Asm};
use error::Result;
use std::path::PathBuf;

/// Stack words of a PBRU ray slot (D3 default).
pub const STACK_WORDS: usize = 32;

/// How to compile.
#[derive(Clone, Debug)]
pub struct Options {
    /// The material to compile (`None`: the document's only `surfacematerial`).
    pub material: Option<String>,
    /// Run the simplifications (off only to measure what they save).
    pub simplify: bool,
    /// The folder relative file names are resolved against.
    pub dir: PathBuf,
    /// Stack words of the target's slots.
    pub stack_words: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            material: None,
            simplify: true,
            dir: PathBuf::from("."),
            stack_words: STACK_WORDS,
        }
    }
}

/// One compiled program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// Assembly text (assembles to `code` with `rendergen_isa::asm::assemble`).
    pub asm: String,
    /// Bytecode.
    pub code: Vec<u8>,
    /// Instructions.
    pub instructions: usize,
    /// Deepest stack (words), inputs included.
    pub max_depth: usize,
    /// Words the SM pushes before it starts.
    pub inputs: usize,
}

/// A compiled material.
#[derive(Clone, Debug, PartialEq)]
pub struct Compiled {
    /// The material's name.
    pub material: String,
    /// The material-shading program.
    pub shading: Program,
    /// The importance-sampling program.
    pub sampling: Program,
    /// SM requests before rendering (the cel table).
    pub setup: Vec<SmRequest>,
    /// Textures, in `tex_base` order.
    pub textures: Vec<texture::Texture>,
    /// The lobes' kinds, in case order.
    pub lobes: Vec<&'static str>,
    /// The simplified tree (postfix listing).
    pub tree: String,
    /// Inputs or attributes the compiler ignored.
    pub warnings: Vec<String>,
}

impl Compiled {
    /// The `OUT.bin` container.
    pub fn container(&self) -> Container {
        Container {
            material: self.material.clone(),
            shading_inputs: self.shading.inputs as u8,
            sampling_inputs: self.sampling.inputs as u8,
            shading_depth: self.shading.max_depth as u8,
            sampling_depth: self.sampling.max_depth as u8,
            lobes: self.lobes.len() as u8,
            shading: self.shading.code.clone(),
            sampling: self.sampling.code.clone(),
            setup: self.setup.clone(),
            textures: self.textures.iter().map(Into::into).collect(),
        }
    }

    /// Both programs and the set-up as one assembly listing (`rendergen mtlx compile --asm`).
    pub fn listing(&self) -> String {
        let mut s = format!("; material `{}`\n", self.material);
        for (i, t) in self.textures.iter().enumerate() {
            s += &format!(
                "; texture {i}: {} ({}x{}, {}x{} blocks)\n",
                t.path.display(),
                t.width,
                t.height,
                t.bw,
                t.bh
            );
        }
        for r in &self.setup {
            s += &format!(
                "; set-up: SM request opcode {:#04x} imm {:#04x} arg {:#010x}\n",
                r.opcode, r.imm, r.arg
            );
        }
        s += &format!(
            "; ---- shading program ({} instructions, {} bytes, stack {} words)\n",
            self.shading.instructions,
            self.shading.code.len(),
            self.shading.max_depth
        );
        s += &self.shading.asm;
        s += &format!(
            "; ---- importance-sampling program ({} instructions, {} bytes, stack {} words)\n",
            self.sampling.instructions,
            self.sampling.code.len(),
            self.sampling.max_depth
        );
        s += &self.sampling.asm;
        s
    }
}

fn program(asm: Asm, inputs: usize, what: &str, opts: &Options) -> Result<Program> {
    if asm.max_depth > opts.stack_words {
        return Err(CompileError::at(
            0,
            format!(
                "the {what} program needs {} stack words; a PBRU slot has {} (use fewer lobes or textures)",
                asm.max_depth, opts.stack_words
            ),
        ));
    }
    let text = asm.lines.join("\n") + "\n";
    let code = rendergen_isa::asm::assemble(&text).map_err(|e| {
        CompileError::at(
            0,
            format!("internal error: generated assembly rejected: {e}"),
        )
    })?;
    Ok(Program {
        asm: text,
        code,
        instructions: asm.instructions,
        max_depth: asm.max_depth,
        inputs,
    })
}

/// The cel table's set-up: seven SM `CEL` writes (ISA.md: immediate `0x80 | entry`).
fn setup(lobes: &lobes::Lobes) -> Result<Vec<SmRequest>> {
    let mut table: Option<([f64; 7], u32)> = None;
    for t in &lobes.terms {
        if let tree::LobeKind::Cel(tab) = t.kind {
            match table {
                Some((first, line)) if first != tab => {
                    return Err(CompileError::at(
                        t.line,
                        format!("a second cel_bsdf band table differs from the one at line {line}; the engine has one cel table"),
                    ))
                }
                _ => table = Some((tab, t.line)),
            }
        }
    }
    Ok(table
        .map(|(tab, _)| {
            tab.iter()
                .enumerate()
                .map(|(e, &v)| SmRequest {
                    opcode: rendergen_isa::Opcode::Cel as u8,
                    imm: 0x80 | e as u8,
                    arg: q16(v) as u32,
                })
                .collect()
        })
        .unwrap_or_default())
}

/// Compiles the MaterialX document `text`.
pub fn compile(text: &str, opts: &Options) -> Result<Compiled> {
    let doc = document::parse(text)?;
    let lib = library::library();
    let tree = tree::build(&doc, &lib, opts.material.as_deref(), &opts.dir)?;
    let material = match &opts.material {
        Some(m) => m.clone(),
        None => doc
            .top
            .nodes
            .values()
            .find(|n| n.category == "surfacematerial")
            .map(|n| n.name.clone())
            .unwrap_or_default(),
    };
    let tree = simplify::simplify(&tree, opts.simplify)?;
    let lobes = lobes::flatten(&tree, opts.simplify)?;
    let n = lobes.terms.len();
    if n > 255 {
        return Err(CompileError::at(
            0,
            format!("{n} lobes: RANDSEL takes at most 255"),
        ));
    }
    let shading = codegen::shading(&lobes, opts.simplify)?;
    let sampling = codegen::sampling(&lobes, opts.simplify)?;
    let t = lobes.tree.textures.len();
    Ok(Compiled {
        material,
        shading: program(shading, codegen::Layout::shading(t).words, "shading", opts)?,
        sampling: program(
            sampling,
            codegen::Layout::sampling(t).words,
            "importance-sampling",
            opts,
        )?,
        setup: setup(&lobes)?,
        textures: lobes.tree.textures.clone(),
        lobes: lobes.terms.iter().map(|t| t.kind.name()).collect(),
        tree: tree.to_string(),
        warnings: tree.warnings.clone(),
    })
}

/// Compiles the file at `path` (relative image files resolve against its folder).
pub fn compile_file(path: &std::path::Path, opts: &Options) -> Result<Compiled> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CompileError::at(0, format!("cannot read {}: {e}", path.display())))?;
    let mut o = opts.clone();
    o.dir = path.parent().map(PathBuf::from).unwrap_or_default();
    compile(&text, &o)
}
