//! Typed access to records at the top-level ports. A `#[derive(Bundle)]` record's shape
//! (`X<u32>`, the widths) resolves once to port handles (`X<InputId>`, `X<OutputId>`) named
//! `<prefix>_<field path>` as the emitter and `Module::input_bundle` name them; those handles
//! then poke a record of values (`X<u64>`) or peek one, field by field, without looking names up
//! again. Leaves are `u64`: a field wider than 64 bits is poked zero-extended and peeked as its
//! low 64 bits (use `poke_bits`/`peek_bits` on its handle for the rest).

use super::{InputId, OutputId, SimError, Simulator};
use rendergen_hdl::{Leaves, PortPath};

/// Resolves every leaf of `shape` to a port `<prefix>_<field path>` through `find` (which gives
/// the port's handle and width); the first missing or mis-sized port is the error.
fn resolve<S: Leaves<u32>, Id: Copy>(
    prefix: &str,
    shape: &S,
    dummy: Id,
    find: impl Fn(&str) -> Result<(Id, u32), SimError>,
) -> Result<S::Of<Id>, SimError> {
    let mut err = None;
    let ids = shape.map_leaves(&mut PortPath::new(prefix), &mut |path, w| {
        let name = path.as_str();
        match find(name) {
            Ok((id, width)) if width == *w => id,
            Ok((_, width)) => {
                err.get_or_insert(SimError::Width {
                    name: name.to_string(),
                    width,
                    value_width: *w,
                });
                dummy
            }
            Err(e) => {
                err.get_or_insert(e);
                dummy
            }
        }
    });
    err.map_or(Ok(ids), Err)
}

impl Simulator {
    /// The input port of every leaf of `shape`, `<prefix>_<field path>`; an error names the
    /// first port that is missing or whose width differs from the shape's.
    pub fn record_inputs<S: Leaves<u32>>(
        &self,
        prefix: &str,
        shape: &S,
    ) -> Result<S::Of<InputId>, SimError> {
        resolve(prefix, shape, InputId(0), |name| {
            let id = self.input(name)?;
            Ok((id, self.inputs()[id.0 as usize].width))
        })
    }

    /// The output port of every leaf of `shape`, `<prefix>_<field path>` (errors as
    /// [`Simulator::record_inputs`]).
    pub fn record_outputs<S: Leaves<u32>>(
        &self,
        prefix: &str,
        shape: &S,
    ) -> Result<S::Of<OutputId>, SimError> {
        resolve(prefix, shape, OutputId(0), |name| {
            let id = self.output(name)?;
            Ok((id, self.outputs()[id.0 as usize].width))
        })
    }

    /// Drives every leaf port of `ports` with the matching leaf of `values` (a record of the
    /// same shape; a leaf missing there, e.g. a shorter `Vec`, is left as it was).
    pub fn poke_record<P>(&mut self, ports: &P, values: &P::Of<u64>)
    where
        P: Leaves<InputId>,
        P::Of<u64>: Leaves<u64>,
    {
        let mut vals = Vec::new();
        values.each_leaf(&mut PortPath::default(), &mut |_, v| vals.push(*v));
        let mut it = vals.into_iter();
        ports.each_leaf(&mut PortPath::default(), &mut |_, id| {
            if let Some(v) = it.next() {
                self.poke(*id, v);
            }
        });
    }

    /// The current value of every leaf port of `ports`, as a record of the same shape.
    pub fn peek_record<P: Leaves<OutputId>>(&mut self, ports: &P) -> P::Of<u64> {
        ports.map_leaves(&mut PortPath::default(), &mut |_, id| self.peek(*id))
    }
}

#[cfg(test)]
mod tests {
    use crate::{SimError, Simulator};
    use rendergen_hdl::{Bundle, Design, Leaves, Sig};

    /// A record with a nested array and an optional field.
    #[derive(Bundle, Clone, Debug, PartialEq)]
    struct Pixel<T = Sig> {
        xy: [T; 2],
        alpha: Option<T>,
        tag: T,
    }

    fn shape() -> Pixel<u32> {
        Pixel {
            xy: [10, 10],
            alpha: Some(8),
            tag: 3,
        }
    }

    fn design() -> Design {
        Design::build("swap", |m| {
            let p: Pixel = m.input_bundle("in", &shape());
            let out = Pixel {
                xy: [p.xy[1], p.xy[0] + 1],
                alpha: p.alpha.map(|a| !a),
                tag: p.tag,
            };
            m.output_bundle("out", &out);
        })
        .expect("elaborates")
    }

    #[test]
    fn records_poke_and_peek_by_field() {
        let mut sim = Simulator::new(&design()).unwrap();
        let ins = sim.record_inputs("in", &shape()).unwrap();
        let outs = sim.record_outputs("out", &shape()).unwrap();
        let value = Pixel {
            xy: [5, 1023],
            alpha: Some(0x0f),
            tag: 6,
        };
        sim.poke_record(&ins, &value);
        let got = sim.peek_record(&outs);
        assert_eq!(
            got,
            Pixel {
                xy: [1023, 6],
                alpha: Some(0xf0),
                tag: 6
            }
        );
        assert_eq!(got.named_leaves()[0], ("xy_0".to_string(), 1023));
    }

    #[test]
    fn record_of_the_wrong_shape_names_the_port() {
        let sim = Simulator::new(&design()).unwrap();
        let mut wrong = shape();
        wrong.tag = 4;
        match sim.record_inputs("in", &wrong) {
            Err(SimError::Width {
                name,
                width: 3,
                value_width: 4,
            }) => assert_eq!(name, "in_tag"),
            other => panic!("{other:?}"),
        }
        match sim.record_outputs("nope", &shape()) {
            Err(SimError::UnknownPort { name, .. }) => assert_eq!(name, "nope_xy_0"),
            other => panic!("{other:?}"),
        }
    }
}
