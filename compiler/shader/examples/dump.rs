//! Prints a shader's IR (before and after optimisation) and its assembly:
//! `cargo run -p rendergen-shader-compiler --example dump -- FILE [vert|frag|comp]`.
use rendergen_shader_compiler::{compile, front, Lang, Options, ShaderStage};

fn main() {
    let path = std::env::args().nth(1).expect("a shader file");
    let src = std::fs::read_to_string(&path).unwrap();
    let lang = if path.ends_with(".wgsl") {
        Lang::Wgsl
    } else if path.ends_with(".vert") {
        Lang::Glsl(ShaderStage::Vertex)
    } else if path.ends_with(".comp") {
        Lang::Glsl(ShaderStage::Compute)
    } else {
        Lang::Glsl(ShaderStage::Fragment)
    };
    let (m, info) = match front::parse(&src, &path, lang) {
        Ok(x) => x,
        Err(e) => return eprintln!("{e}"),
    };
    match front::lower(&m, &info, 0, &src, &path) {
        Ok((p, _)) => println!("{}", rendergen_shader_compiler::ir::print::print(&p)),
        Err(e) => return eprintln!("{e}"),
    }
    match compile(&src, &path, &Options::new(lang)) {
        Ok(c) => println!(
            "{}\n{}\n{:?}\n{:#?}",
            rendergen_shader_compiler::ir::print::print(&c.ir),
            c.asm,
            c.stats,
            c.interface
        ),
        Err(e) => eprintln!("{e}"),
    }
}
