//! glTF 2.0 meshes for `rendergen raster`, read with the `gltf` crate (which parses and
//! validates the document, `.gltf` or binary `.glb`): every primitive of the first mesh
//! (triangle lists only), its `POSITION`, optional `NORMAL` and `TEXCOORD_0` (any component
//! type the specification allows, normalised integers converted as it says) and its indices
//! (none: `0..n`). Buffers are the `.glb`'s binary chunk, files beside the document, or base64
//! `data:` URIs. Node transforms are not applied (the scene's per-mesh model matrix places
//! the mesh). Every problem is an error naming the file and the glTF field.
use base64::Engine as _;
use gltf::buffer::Source;
use gltf::mesh::Mode;
use std::path::Path;

type Res<T> = Result<T, String>;

/// A loaded mesh: positions, normals, uvs (flattened; normals and uvs empty when a primitive
/// lacks them) and indices into the positions.
pub type Geometry = (Vec<f32>, Vec<f32>, Vec<f32>, Vec<u32>);

/// The bytes of buffer `b`: the binary chunk, a `data:` URI or a file next to the document.
fn buffer_data(b: &gltf::Buffer, blob: &Option<Vec<u8>>, dir: &Path) -> Res<Vec<u8>> {
    let i = b.index();
    let data = match b.source() {
        Source::Bin => blob
            .clone()
            .ok_or_else(|| format!("buffers[{i}]: refers to a binary chunk, and there is none"))?,
        Source::Uri(uri) => match uri.strip_prefix("data:") {
            Some(rest) => {
                let (_, data) = rest
                    .split_once(";base64,")
                    .ok_or_else(|| format!("buffers[{i}].uri: only base64 data URIs are read"))?;
                base64::engine::general_purpose::STANDARD
                    .decode(data)
                    .map_err(|e| format!("buffers[{i}].uri: bad base64: {e}"))?
            }
            None => std::fs::read(dir.join(uri))
                .map_err(|e| format!("buffers[{i}].uri `{uri}`: {e}"))?,
        },
    };
    if data.len() < b.length() {
        return Err(format!(
            "buffers[{i}]: {} bytes, but byteLength is {}",
            data.len(),
            b.length()
        ));
    }
    Ok(data)
}

/// Loads every primitive of the first mesh of `path` into one indexed triangle list.
pub fn load(path: &Path) -> Res<Geometry> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file = gltf::Gltf::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let buffers: Vec<Vec<u8>> = (file.document.buffers())
        .map(|b| buffer_data(&b, &file.blob, dir))
        .collect::<Res<_>>()?;
    let mesh = (file.document.meshes().next()).ok_or("meshes[0]: the file has no mesh")?;
    let (mut positions, mut normals, mut uvs, mut indices) = (vec![], vec![], vec![], vec![]);
    let mut all_normals = true;
    let mut all_uvs = true;
    for prim in mesh.primitives() {
        let p = format!("meshes[0].primitives[{}]", prim.index());
        if prim.mode() != Mode::Triangles {
            return Err(format!(
                "{p}.mode: {:?}; only triangle lists (4) are read",
                prim.mode()
            ));
        }
        let reader = prim.reader(|b| buffers.get(b.index()).map(Vec::as_slice));
        let pos: Vec<[f32; 3]> = reader
            .read_positions()
            .ok_or_else(|| format!("{p}.attributes.POSITION: missing or unreadable"))?
            .collect();
        let base = (positions.len() / 3) as u32;
        let n = pos.len() as u32;
        positions.extend(pos.iter().flatten());
        match reader.read_normals() {
            Some(it) if all_normals => normals.extend(it.flatten()),
            _ => all_normals = false,
        }
        match reader.read_tex_coords(0) {
            Some(it) if all_uvs => uvs.extend(it.into_f32().flatten()),
            _ => all_uvs = false,
        }
        let first = indices.len();
        match reader.read_indices() {
            Some(it) => indices.extend(it.into_u32().map(|i| base + i)),
            None => indices.extend(base..base + n),
        }
        if (indices.len() - first) % 3 != 0 {
            return Err(format!(
                "{p}.indices: {} indices, not a whole number of triangles",
                indices.len() - first
            ));
        }
        if let Some(bad) = indices[first..].iter().find(|&&i| i >= base + n) {
            return Err(format!(
                "{p}.indices: index {} beyond the {n} vertices",
                bad - base
            ));
        }
    }
    if !all_normals {
        normals.clear();
    }
    if !all_uvs {
        uvs.clear();
    }
    if positions.is_empty() {
        return Err("meshes[0]: no vertices".into());
    }
    Ok((positions, normals, uvs, indices))
}

#[cfg(test)]
mod tests {
    use super::load;

    fn write(name: &str, text: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("rendergen-gltf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    /// One triangle: three VEC3 float positions and u16 indices in a base64 buffer.
    const TRIANGLE: &str = r#"{"asset":{"version":"2.0"},
      "buffers":[{"byteLength":42,"uri":"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAABAAIA"}],
      "bufferViews":[{"buffer":0,"byteLength":36},{"buffer":0,"byteOffset":36,"byteLength":6}],
      "accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]},
                   {"bufferView":1,"componentType":5123,"count":3,"type":"SCALAR"}],
      "meshes":[{"primitives":[{"attributes":{"POSITION":0},"indices":1}]}]}"#;

    #[test]
    fn reads_a_triangle_from_a_data_uri() {
        let (p, n, uv, i) = load(&write("tri.gltf", TRIANGLE)).unwrap();
        assert_eq!(p, [0., 0., 0., 1., 0., 0., 0., 1., 0.]);
        assert!(n.is_empty() && uv.is_empty());
        assert_eq!(i, [0, 1, 2]);
    }

    #[test]
    fn bad_files_are_errors_naming_the_field() {
        let e = load(&write(
            "points.gltf",
            &TRIANGLE.replace(r#""indices":1"#, r#""indices":1,"mode":0"#),
        ))
        .unwrap_err();
        assert!(e.contains("primitives[0].mode"), "{e}");
        let e = load(&write("short.gltf", &TRIANGLE.replace("42", "420"))).unwrap_err();
        assert!(e.contains("buffers[0]"), "{e}");
        let e = load(&write("broken.gltf", "{ not json")).unwrap_err();
        assert!(e.contains("broken.gltf"), "{e}");
    }
}
