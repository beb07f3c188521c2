//! The few source edits that let GL run a GLSL 4.50 (Vulkan flavour) shader with the
//! engine's inputs: renaming identifiers (`main`, the Vulkan-only built-ins), turning a
//! fragment shader's `in` declarations into plain globals, and inserting declarations after
//! the `#version`/`#extension` lines. A small scanner (comments, identifiers, nesting) is
//! enough: nothing here parses expressions, and line numbers are kept, so GL's messages point
//! at the user's lines (shifted by the inserted prelude, which is one line).

/// The qualifiers an input declaration loses when it becomes a global.
const INPUT_QUALIFIERS: &[&str] = &[
    "in",
    "flat",
    "smooth",
    "noperspective",
    "centroid",
    "sample",
    "invariant",
    "highp",
    "mediump",
    "lowp",
];

/// A global that replaced an `in` declaration: its type as written and its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputDecl {
    /// The type (`vec2`, `ivec4`, `mat2` …).
    pub ty: String,
    /// The variable's name.
    pub name: String,
}

/// `src` with comments replaced by spaces (newlines kept).
pub fn strip_comments(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            out.extend_from_slice(b"  ");
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                out.push(if b[i] == b'\n' { b'\n' } else { b' ' });
                i += 1;
            }
            if i < b.len() {
                out.extend_from_slice(b"  ");
                i += 2;
            }
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    // Only ASCII bytes were replaced by ASCII, and multi-byte characters copied whole
    // outside comments (inside comments every byte became a space).
    String::from_utf8(out).unwrap_or_default()
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Byte ranges of the identifiers of `src` (digits inside numbers like `1e5` or `0x1f` are
/// not identifiers).
fn identifiers(src: &str) -> Vec<(usize, usize)> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if is_ident_start(b[i]) {
            let s = i;
            while i < b.len() && is_ident(b[i]) {
                i += 1;
            }
            out.push((s, i));
        } else if b[i].is_ascii_digit() {
            while i < b.len() && (is_ident(b[i]) || b[i] == b'.') {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Renames whole identifiers by `map` (outside comments; `src` should have none).
pub fn rename(src: &str, map: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(src.len());
    let mut at = 0;
    for (s, e) in identifiers(src) {
        if let Some((_, to)) = map.iter().find(|(from, _)| *from == &src[s..e]) {
            out.push_str(&src[at..s]);
            out.push_str(to);
            at = e;
        }
    }
    out.push_str(&src[at..]);
    out
}

/// Whether `src` uses identifier `name`.
pub fn uses(src: &str, name: &str) -> bool {
    identifiers(src).iter().any(|&(s, e)| &src[s..e] == name)
}

/// Inserts `text` (one line) after the leading `#version` and `#extension` lines.
pub fn insert_prelude(src: &str, text: &str) -> String {
    let mut at = 0;
    let mut pos = 0;
    for line in src.split_inclusive('\n') {
        let t = line.trim_start();
        pos += line.len();
        if t.starts_with("#version") || t.starts_with("#extension") {
            at = pos;
        } else if !t.is_empty() && at > 0 {
            break;
        }
    }
    let mut out = String::with_capacity(src.len() + text.len() + 1);
    out.push_str(&src[..at]);
    if at > 0 && !src[..at].ends_with('\n') {
        out.push('\n');
    }
    out.push_str(text.trim_end());
    out.push('\n');
    out.push_str(&src[at..]);
    out
}

/// Top-level statements ending in `;` (byte ranges, the `;` included), outside preprocessor
/// lines and function bodies.
fn top_level_statements(src: &str) -> Vec<(usize, usize)> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    let mut line_start = true;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if line_start && c == b'#' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            if depth == 0 {
                start = i;
            }
            continue;
        }
        if c == b'\n' {
            line_start = true;
        } else if !c.is_ascii_whitespace() {
            line_start = false;
        }
        match c {
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    start = i + 1;
                }
            }
            b';' if depth == 0 => {
                out.push((start, i + 1));
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Turns every top-level `in` declaration of a fragment shader into a global of the same
/// type (qualifiers and `layout(…)` removed, line count kept) and returns the globals.
pub fn inputs_to_globals(src: &str) -> Result<(String, Vec<InputDecl>), String> {
    let mut out = String::with_capacity(src.len());
    let mut decls = Vec::new();
    let mut at = 0;
    for (s, e) in top_level_statements(src) {
        let stmt = &src[s..e];
        let ids = identifiers(stmt);
        if !ids.iter().any(|&(a, b)| &stmt[a..b] == "in") {
            continue;
        }
        // Keep the words outside `layout( … )`, drop the qualifiers.
        let mut kept: Vec<&str> = Vec::new();
        let mut i = 0;
        let bytes = stmt.as_bytes();
        let mut paren = 0;
        while i < bytes.len() {
            let c = bytes[i];
            if c == b'(' {
                paren += 1;
            } else if c == b')' {
                paren -= 1;
            } else if paren == 0 && is_ident_start(c) {
                let st = i;
                while i < bytes.len() && is_ident(bytes[i]) {
                    i += 1;
                }
                let w = &stmt[st..i];
                if w != "layout" && !INPUT_QUALIFIERS.contains(&w) {
                    kept.push(w);
                }
                continue;
            } else if paren == 0 && !c.is_ascii_whitespace() && c != b',' && c != b';' {
                return Err(format!(
                    "the input declaration `{}` is not of the form `… in TYPE name;` \
                     (arrays and blocks of inputs are not supported by the llvmpipe engine)",
                    stmt.trim()
                ));
            }
            i += 1;
        }
        if kept.len() < 2 {
            return Err(format!(
                "the input declaration `{}` names no variable",
                stmt.trim()
            ));
        }
        let ty = kept[0].to_string();
        for name in &kept[1..] {
            decls.push(InputDecl {
                ty: ty.clone(),
                name: name.to_string(),
            });
        }
        out.push_str(&src[at..s]);
        let newlines = stmt.matches('\n').count();
        // Leading newlines of the statement stay where they were.
        let lead = stmt.len() - stmt.trim_start().len();
        let lead_nl = stmt[..lead].matches('\n').count();
        out.push_str(&"\n".repeat(lead_nl));
        out.push_str(&format!("{} {};", ty, kept[1..].join(", ")));
        out.push_str(&"\n".repeat(newlines - lead_nl));
        at = e;
    }
    out.push_str(&src[at..]);
    Ok((out, decls))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_go_and_lines_stay() {
        let s = strip_comments("a // x\nb /* y\nz */ c\n");
        assert_eq!(s.lines().count(), 3);
        assert!(!s.contains('x') && !s.contains('y') && !s.contains('z'));
        assert!(s.contains('a') && s.contains('b') && s.contains('c'));
    }

    #[test]
    fn renames_whole_identifiers_only() {
        let s = rename(
            "void main() { x = gl_VertexIndex + gl_VertexIndexes + 1e5; main2(); }",
            &[
                ("main", "rg_main"),
                ("gl_VertexIndex", "rg_vertex_index"),
                ("e5", "no"),
            ],
        );
        assert_eq!(
            s,
            "void rg_main() { x = rg_vertex_index + gl_VertexIndexes + 1e5; main2(); }"
        );
        assert!(uses(&s, "rg_main") && !uses(&s, "main"));
    }

    #[test]
    fn prelude_after_version_and_extensions() {
        let s = insert_prelude(
            "#version 450\n#extension GL_X : enable\nvoid main() {}\n",
            "P;",
        );
        assert_eq!(
            s,
            "#version 450\n#extension GL_X : enable\nP;\nvoid main() {}\n"
        );
    }

    #[test]
    fn inputs_become_globals_with_lines_kept() {
        let src = "#version 450\nlayout(location = 0) in vec2 uv;\nlayout(location = 1)\n flat in ivec2 n, m;\n\
                   layout(location = 0) out vec4 c;\nvoid main() { float in_x = uv.x; }\n";
        let (s, d) = inputs_to_globals(src).unwrap();
        assert_eq!(
            d,
            vec![
                InputDecl {
                    ty: "vec2".into(),
                    name: "uv".into()
                },
                InputDecl {
                    ty: "ivec2".into(),
                    name: "n".into()
                },
                InputDecl {
                    ty: "ivec2".into(),
                    name: "m".into()
                },
            ]
        );
        assert_eq!(s.lines().count(), src.lines().count());
        assert!(s.contains("\nvec2 uv;\n") && s.contains("ivec2 n, m;"));
        assert!(s.contains("out vec4 c;") && s.contains("float in_x = uv.x;"));
        assert!(inputs_to_globals("in float a[2];").is_err());
    }
}
