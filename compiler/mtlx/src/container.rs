//! The `OUT.bin` container of a compiled material (layout in `ABI.md`): a header, then
//! tagged sections, all little-endian.

use crate::texture::Texture;

/// First four bytes of a compiled material.
pub const MAGIC: [u8; 4] = *b"RGMX";
/// Container version this crate writes and reads.
pub const VERSION: u16 = 1;

/// One request the SM sends to a pipeline before rendering with the material.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmRequest {
    /// Opcode byte (CEL for the cel table).
    pub opcode: u8,
    /// Immediate (CEL: `0x80 | entry`).
    pub imm: u8,
    /// Argument word 0 (Q16.16).
    pub arg: u32,
}

/// A texture binding: slot `i` of the programs' `tex_base` words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// TEX_A's `format` word (`bw | bh << 4 | mips << 8`).
    pub format: u32,
    /// TEX_DP profile (0 LDR linear).
    pub profile: u8,
    /// The ASTC blocks, row-major (16 bytes each).
    pub blocks: Vec<[u8; 16]>,
}

impl From<&Texture> for Binding {
    fn from(t: &Texture) -> Binding {
        Binding {
            width: t.width,
            height: t.height,
            format: t.format(),
            profile: 0,
            blocks: t.blocks.clone(),
        }
    }
}

/// What `OUT.bin` holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Container {
    /// The material's name.
    pub material: String,
    /// Stack words the SM pushes for the shading program.
    pub shading_inputs: u8,
    /// Stack words the SM pushes for the sampling program.
    pub sampling_inputs: u8,
    /// Deepest stack of the shading program.
    pub shading_depth: u8,
    /// Deepest stack of the sampling program.
    pub sampling_depth: u8,
    /// Number of lobes (cases of the sampling program).
    pub lobes: u8,
    /// The shading bytecode.
    pub shading: Vec<u8>,
    /// The importance-sampling bytecode.
    pub sampling: Vec<u8>,
    /// SM requests of the set-up, in order.
    pub setup: Vec<SmRequest>,
    /// Textures, in `tex_base` order.
    pub textures: Vec<Binding>,
}

fn section(out: &mut Vec<u8>, tag: &[u8; 4], body: &[u8]) {
    out.extend_from_slice(tag);
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(body);
    while !out.len().is_multiple_of(4) {
        out.push(0);
    }
}

impl Container {
    /// The bytes of `OUT.bin`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&6u16.to_le_bytes());
        let mut meta = vec![
            self.shading_inputs,
            self.sampling_inputs,
            self.shading_depth,
            self.sampling_depth,
            self.lobes,
            self.textures.len() as u8,
            0,
            0,
        ];
        meta.extend_from_slice(self.material.as_bytes());
        section(&mut out, b"META", &meta);
        section(&mut out, b"SHAD", &self.shading);
        section(&mut out, b"SAMP", &self.sampling);
        let mut setup = Vec::new();
        for r in &self.setup {
            setup.extend_from_slice(&[r.opcode, r.imm, 0, 0]);
            setup.extend_from_slice(&r.arg.to_le_bytes());
        }
        section(&mut out, b"SETP", &setup);
        let mut tex = Vec::new();
        for t in &self.textures {
            tex.extend_from_slice(&t.width.to_le_bytes());
            tex.extend_from_slice(&t.height.to_le_bytes());
            tex.extend_from_slice(&t.format.to_le_bytes());
            tex.extend_from_slice(&[t.profile, 0, 0, 0]);
            tex.extend_from_slice(&(t.blocks.len() as u32).to_le_bytes());
            for b in &t.blocks {
                tex.extend_from_slice(b);
            }
        }
        section(&mut out, b"TEXS", &tex);
        section(&mut out, b"END ", &[]);
        out
    }

    /// Reads `OUT.bin` (what the renderer does).
    pub fn from_bytes(b: &[u8]) -> Result<Container, String> {
        if b.len() < 8 || b[0..4] != MAGIC {
            return Err("not a compiled material (magic `RGMX` missing)".into());
        }
        let version = u16::from_le_bytes([b[4], b[5]]);
        if version != VERSION {
            return Err(format!(
                "container version {version}; this reader knows {VERSION}"
            ));
        }
        let mut c = Container {
            material: String::new(),
            shading_inputs: 0,
            sampling_inputs: 0,
            shading_depth: 0,
            sampling_depth: 0,
            lobes: 0,
            shading: vec![],
            sampling: vec![],
            setup: vec![],
            textures: vec![],
        };
        let mut at = 8;
        let word = |b: &[u8], i: usize| -> Result<u32, String> {
            b.get(i..i + 4)
                .map(|w| u32::from_le_bytes(w.try_into().expect("4 bytes")))
                .ok_or_else(|| "truncated".to_string())
        };
        loop {
            let tag: [u8; 4] = b
                .get(at..at + 4)
                .ok_or("truncated: no END section")?
                .try_into()
                .expect("4");
            let len = word(b, at + 4)? as usize;
            let body = b.get(at + 8..at + 8 + len).ok_or("truncated section")?;
            match &tag {
                b"META" => {
                    if body.len() < 8 {
                        return Err("META too short".into());
                    }
                    c.shading_inputs = body[0];
                    c.sampling_inputs = body[1];
                    c.shading_depth = body[2];
                    c.sampling_depth = body[3];
                    c.lobes = body[4];
                    c.material = String::from_utf8_lossy(&body[8..]).into_owned();
                }
                b"SHAD" => c.shading = body.to_vec(),
                b"SAMP" => c.sampling = body.to_vec(),
                b"SETP" => {
                    for r in body.chunks_exact(8) {
                        c.setup.push(SmRequest {
                            opcode: r[0],
                            imm: r[1],
                            arg: u32::from_le_bytes(r[4..8].try_into().expect("4")),
                        });
                    }
                }
                b"TEXS" => {
                    let mut i = 0;
                    while i < body.len() {
                        let n = word(body, i + 16)? as usize;
                        let blocks = body
                            .get(i + 20..i + 20 + 16 * n)
                            .ok_or("truncated texture")?
                            .chunks_exact(16)
                            .map(|x| x.try_into().expect("16"))
                            .collect();
                        c.textures.push(Binding {
                            width: word(body, i)?,
                            height: word(body, i + 4)?,
                            format: word(body, i + 8)?,
                            profile: body[i + 12],
                            blocks,
                        });
                        i += 20 + 16 * n;
                    }
                }
                b"END " => return Ok(c),
                _ => {} // unknown sections are skipped
            }
            at += 8 + len.div_ceil(4) * 4;
        }
    }
}
