//! Bundles: Rust structs of named signals that travel together (a request's address, tag and
//! payload), so a designer never wires a wide payload field by field.
//!
//! Declare one with [`bundle!`](macro@crate::bundle); the struct is generic over its field type, so
//! `TexReq<Sig>` is the hardware value and `TexReq<u32>` its shape (the field widths):
//!
//! ```
//! use rendergen_hdl::{bundle, Bundle, Design};
//! bundle! {
//!     /// A texel request.
//!     pub struct TexReq { pub addr, pub tag }
//! }
//! let shape = TexReq { addr: 32, tag: 8 };
//! let design = Design::build("pass", |m| {
//!     let req: TexReq = m.input_bundle("req", &shape);
//!     m.output_bundle("out", &req);
//! })
//! .unwrap();
//! let names: Vec<_> = design.top().inputs.iter().map(|p| p.name.clone()).collect();
//! assert_eq!(names, ["req_addr", "req_tag"]);
//! ```

use crate::ctx;
use crate::error::ErrorKind;
use crate::module::{Module, Wire};
use crate::record::PortPath;
use crate::sig::Sig;
use std::fmt::Debug;
use std::panic::Location;

/// A record of signals: `#[derive(Bundle)]` (nested records, arrays, `Vec`s, `Option`s),
/// [`bundle!`](macro@crate::bundle) (flat), and [`Sig`] itself (one leaf called `data`).
///
/// The required methods walk the leaves with their [`PortPath`]; the provided ones are what
/// generators use: [`Bundle::fields`], [`Bundle::layout`], [`Bundle::from_fields`],
/// [`Bundle::map_sigs`], [`Bundle::total_width`].
pub trait Bundle: Sized {
    /// The field widths, enough to create a value of this bundle (`X<u32>` for a derived `X`).
    type Shape: Clone + Debug + PartialEq + 'static;
    /// The widths of this value's fields.
    fn shape(&self) -> Self::Shape;
    /// Builds a value of `shape`, asking `make` for each leaf (path below `path`, width).
    fn build(
        shape: &Self::Shape,
        path: &mut PortPath,
        make: &mut dyn FnMut(&PortPath, u32) -> Sig,
    ) -> Self;
    /// Calls `f` with each leaf and its path, in declaration order.
    fn visit(&self, path: &mut PortPath, f: &mut dyn FnMut(&PortPath, Sig));
    /// Calls `f` with each leaf's path and width, in declaration order.
    fn visit_shape(shape: &Self::Shape, path: &mut PortPath, f: &mut dyn FnMut(&PortPath, u32));

    /// Leaf names (paths joined by `_`) and widths, in declaration order.
    fn layout(shape: &Self::Shape) -> Vec<(String, u32)> {
        let mut out = Vec::new();
        Self::visit_shape(shape, &mut PortPath::default(), &mut |p, w| {
            out.push((p.as_str().to_string(), w))
        });
        out
    }
    /// Builds a value by asking `make` for each leaf (name, width).
    fn from_fields(shape: &Self::Shape, make: &mut dyn FnMut(&str, u32) -> Sig) -> Self {
        Self::build(shape, &mut PortPath::default(), &mut |p, w| {
            make(p.as_str(), w)
        })
    }
    /// The leaf signals with their names, in declaration order.
    fn fields(&self) -> Vec<(String, Sig)> {
        let mut out = Vec::new();
        self.visit(&mut PortPath::default(), &mut |p, s| {
            out.push((p.as_str().to_string(), s))
        });
        out
    }
    /// The same record with every leaf replaced by `f(leaf)`.
    fn map_sigs(&self, mut f: impl FnMut(Sig) -> Sig) -> Self {
        let fields = self.fields();
        let mut it = fields.into_iter();
        Self::from_fields(&self.shape(), &mut |_, _| {
            f(it.next().expect("one field per leaf").1)
        })
    }
    /// Total width of all leaves.
    fn total_width(shape: &Self::Shape) -> u32 {
        Self::layout(shape).iter().map(|(_, w)| w).sum()
    }
}

impl Bundle for Sig {
    type Shape = u32;
    fn shape(&self) -> u32 {
        self.width()
    }
    fn build(shape: &u32, path: &mut PortPath, make: &mut dyn FnMut(&PortPath, u32) -> Sig) -> Sig {
        make(path, *shape)
    }
    fn visit(&self, path: &mut PortPath, f: &mut dyn FnMut(&PortPath, Sig)) {
        f(path, *self)
    }
    fn visit_shape(shape: &u32, path: &mut PortPath, f: &mut dyn FnMut(&PortPath, u32)) {
        f(path, *shape)
    }
}

/// `Bundle` and `Io` for `$name<Sig>` from its `Leaves` implementation (used by the derive and
/// by [`bundle!`](macro@crate::bundle)).
#[doc(hidden)]
#[macro_export]
macro_rules! __bundle_impls {
    ($name:ident) => {
        impl $crate::Bundle for $name<$crate::Sig> {
            type Shape = $name<u32>;
            fn shape(&self) -> $name<u32> {
                $crate::record::Leaves::map_leaves(
                    self,
                    &mut $crate::record::PortPath::default(),
                    &mut |_, s: &$crate::Sig| s.width(),
                )
            }
            fn build(
                shape: &$name<u32>,
                path: &mut $crate::record::PortPath,
                make: &mut dyn FnMut(&$crate::record::PortPath, u32) -> $crate::Sig,
            ) -> Self {
                $crate::record::Leaves::map_leaves(shape, path, &mut |p, w: &u32| make(p, *w))
            }
            fn visit(
                &self,
                path: &mut $crate::record::PortPath,
                f: &mut dyn FnMut(&$crate::record::PortPath, $crate::Sig),
            ) {
                $crate::record::Leaves::each_leaf(self, path, &mut |p, s: &$crate::Sig| f(p, *s))
            }
            fn visit_shape(
                shape: &$name<u32>,
                path: &mut $crate::record::PortPath,
                f: &mut dyn FnMut(&$crate::record::PortPath, u32),
            ) {
                $crate::record::Leaves::each_leaf(shape, path, &mut |p, w: &u32| f(p, *w))
            }
        }
        impl $crate::record::Io for $name<$crate::Sig> {
            type Shape = $name<u32>;
            fn io_shape(&self) -> $name<u32> {
                $crate::Bundle::shape(self)
            }
            fn make(
                shape: &$name<u32>,
                path: &mut $crate::record::PortPath,
                b: &mut dyn $crate::record::Boundary,
            ) -> Self {
                <Self as $crate::Bundle>::build(shape, path, &mut |p, w| b.incoming(p.as_str(), w))
            }
            fn take(
                self,
                path: &mut $crate::record::PortPath,
                b: &mut dyn $crate::record::Boundary,
            ) {
                $crate::Bundle::visit(&self, path, &mut |p, s| b.outgoing(p.as_str(), s))
            }
        }
    };
}

/// Declares a flat bundle struct generic over its field type (`Sig` by default) and implements
/// [`Bundle`] for it. See the [module documentation](mod@crate::bundle); for nested records, arrays
/// and `Option` fields use `#[derive(Bundle)]` ([`crate::record`]).
#[macro_export]
macro_rules! bundle {
    ($(#[$meta:meta])* $vis:vis struct $name:ident {
        $($(#[$fmeta:meta])* $fvis:vis $field:ident),* $(,)?
    }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        $vis struct $name<T = $crate::Sig> { $($(#[$fmeta])* $fvis $field: T),* }

        impl<T> $crate::record::Leaves<T> for $name<T> {
            type Of<U> = $name<U>;
            fn each_leaf(
                &self,
                path: &mut $crate::record::PortPath,
                f: &mut dyn FnMut(&$crate::record::PortPath, &T),
            ) {
                $(path.push(stringify!($field)); f(path, &self.$field); path.pop();)*
            }
            fn map_leaves<U>(
                &self,
                path: &mut $crate::record::PortPath,
                f: &mut dyn FnMut(&$crate::record::PortPath, &T) -> U,
            ) -> $name<U> {
                $name { $($field: {
                    path.push(stringify!($field));
                    let v = f(path, &self.$field);
                    path.pop();
                    v
                }),* }
            }
        }
        $crate::__bundle_impls!($name);
    };
}

/// Port name of a bundle field: `prefix_field`.
pub fn field_port(prefix: &str, field: &str) -> String {
    format!("{prefix}_{field}")
}

/// Lists every difference between the layout of a bundle (`ours`, described as `our_side`) and
/// the fields it is connected to (`theirs`, `their_side`), with field paths; empty when they
/// agree.
pub fn layout_mismatches(
    path: &str,
    (ours, our_side): (&[(String, u32)], &str),
    (theirs, their_side): (&[(String, u32)], &str),
) -> Vec<String> {
    let mut out = Vec::new();
    for (name, w) in ours {
        match theirs.iter().find(|(n, _)| n == name) {
            None => out.push(format!(
                "`{path}.{name}` ({w} bits) is missing from {their_side}"
            )),
            Some((_, tw)) if tw != w => out.push(format!(
                "`{path}.{name}` is {w} bits in {our_side} but {tw} bits in {their_side}"
            )),
            _ => {}
        }
    }
    for (name, w) in theirs {
        if !ours.iter().any(|(n, _)| n == name) {
            out.push(format!(
                "`{path}.{name}` ({w} bits) of {their_side} is missing from {our_side}"
            ));
        }
    }
    out
}

/// The driving side of a bundle of wires made by [`Module::wire_bundle`].
pub struct BundleDriver<T: Bundle> {
    name: String,
    shape: T::Shape,
    wires: Vec<Wire>,
}

impl<T: Bundle> BundleDriver<T> {
    /// Drives every field from `src`; a bundle of another shape is an error listing every field
    /// that differs.
    #[track_caller]
    pub fn drive(self, src: &T) {
        let loc = Location::caller();
        let expected = T::layout(&self.shape);
        let actual: Vec<(String, u32)> = src
            .fields()
            .iter()
            .map(|(n, s)| (n.to_string(), s.width()))
            .collect();
        let diffs = layout_mismatches(
            &self.name,
            (&expected, "the driven bundle"),
            (&actual, "the driving bundle"),
        );
        if !diffs.is_empty() {
            ctx::with(|c| {
                c.error(
                    ErrorKind::BundleMismatch,
                    loc,
                    format!("mismatched bundles: {}", diffs.join("; ")),
                )
            });
            return;
        }
        for (w, (_, s)) in self.wires.into_iter().zip(src.fields()) {
            w.drive(s);
        }
    }
}

impl Module {
    /// Input ports for every field of a bundle: `name_field`.
    #[track_caller]
    pub fn input_bundle<T: Bundle>(&mut self, name: &str, shape: &T::Shape) -> T {
        T::from_fields(shape, &mut |f, w| self.input(&field_port(name, f), w))
    }

    /// Output ports for every field of a bundle: `name_field`.
    #[track_caller]
    pub fn output_bundle<T: Bundle>(&mut self, name: &str, value: &T) {
        for (f, s) in value.fields() {
            self.output(&field_port(name, &f), s);
        }
    }

    /// A bundle of wires (`name_field`) to be driven later, as a whole, by the returned driver.
    #[track_caller]
    pub fn wire_bundle<T: Bundle>(&mut self, name: &str, shape: &T::Shape) -> (T, BundleDriver<T>) {
        let mut wires = Vec::new();
        let value = T::from_fields(shape, &mut |f, w| {
            let wire = self.wire(&field_port(name, f), w);
            wires.push(wire);
            wire.sig()
        });
        (
            value,
            BundleDriver {
                name: name.to_string(),
                shape: shape.clone(),
                wires,
            },
        )
    }
}

/// Packs a bundle into one signal, first field most significant (storage in FIFOs and RAMs).
#[track_caller]
pub fn pack<T: Bundle>(value: &T) -> Sig {
    let parts: Vec<Sig> = value.fields().into_iter().map(|(_, s)| s).collect();
    crate::logic::cat(&parts)
}

/// Unpacks a signal made by [`pack`] back into a bundle of `shape`.
#[track_caller]
pub fn unpack<T: Bundle>(shape: &T::Shape, packed: Sig) -> T {
    let layout = T::layout(shape);
    let mut hi = T::total_width(shape);
    let mut slices = Vec::with_capacity(layout.len());
    for (_, w) in &layout {
        hi -= w;
        slices.push(packed.slice(hi, *w));
    }
    let mut it = slices.into_iter();
    T::from_fields(shape, &mut |_, _| it.next().expect("one slice per field"))
}
