//! Records: payload bundles, interfaces that cross module boundaries, and hardware enums.
//!
//! # Three derives
//! * **`#[derive(Bundle)]`** on `struct X<T = Sig> { … }` declares a *payload record*, generic
//!   over its leaf type (Hardcaml's `'a t`): `X<Sig>` is the hardware value, `X<u32>` its shape
//!   (the widths), `X<u64>` the values a simulator reads, `X<OutputId>` resolved ports. A
//!   field is `T`, `[F; N]`, `Vec<F>`, `Option<F>` or another bundle `Y<T>`, with `F` again any of
//!   these. [`Leaves`] maps and visits the leaves of any of them; [`crate::Bundle`] packs,
//!   registers ([`crate::Module::reg_bundle`]), muxes and compares the hardware value.
//! * **`#[derive(Io)]`** on a plain struct declares an *interface*: what a generator takes or
//!   returns, crossing a module boundary when the generator is a child
//!   ([`crate::Module::child`]). Fields are signals, bundles, [`Stream`]s (valid and payload
//!   flow with the record, `ready` against it), and `Vec`s, arrays or `Option`s of those. The
//!   derive also declares `XShape`, the shape that rebuilds it on the other side.
//! * **`#[derive(HwEnum)]`** on a fieldless enum declares a *hardware enumeration* (states).
//!   [`crate::Module::enum_const`] gives a variant's value, printed in Verilog as a
//!   `localparam` named `ENUM_VARIANT` (e.g. `STATE_IDLE`), and [`crate::Sig::is`] compares by
//!   name.
//!
//! # Port names
//! A leaf's port name is its path joined by `_`: field `tag` of field `req` is `req_tag`, element
//! 2 of `lanes` is `lanes_2`; a stream `req` has `req_valid`, `req_ready` and `req_<field>`.
//!
//! ```
//! use rendergen_hdl::{Bundle, Design, Io, Leaves, Module, Sig, Stream};
//!
//! /// A texel request: nested record, array and optional field.
//! #[derive(Bundle, Clone, Debug, PartialEq)]
//! pub struct TexReq<T = Sig> { pub addr: T, pub coord: [T; 2], pub lod: Option<T> }
//!
//! /// What the toy unit takes and gives.
//! #[derive(Io)]
//! pub struct UnitIn { pub req: Stream<TexReq>, pub enable: Sig }
//! #[derive(Io)]
//! pub struct UnitOut { pub resp: Stream<TexReq>, pub count: Sig }
//!
//! fn unit(m: &mut Module, _cfg: &(), i: UnitIn) -> UnitOut {
//!     let count = m.reg("count", 8).reset(0);
//!     count.next_when(i.enable, count.q() + 1);
//!     UnitOut { resp: i.req, count: count.q() }
//! }
//!
//! let shape = TexReq { addr: 32, coord: [16, 16], lod: Some(4) };
//! let design = Design::build("top", |m| {
//!     let req = m.input_stream::<TexReq>("req", &shape);
//!     let enable = m.input("enable", 1);
//!     let out = m.child("unit", &(), UnitIn { req, enable }, unit);
//!     m.output_stream("resp", out.resp);
//!     m.output("count", out.count);
//! })
//! .unwrap();
//! assert_eq!(design.modules.len(), 2); // `unit` is its own module
//! let child = &design.modules[0];
//! assert!(child.inputs.iter().any(|p| p.name == "req_coord_1"));
//! assert_eq!(shape.map_leaves(&mut Default::default(), &mut |_, w| *w as u64 * 2).coord, [32, 32]);
//! ```

use crate::ctx;
use crate::module::{Module, Wire};
use crate::sig::Sig;
use crate::stream::Stream;
use std::any::Any;
use std::fmt::Debug;
use std::panic::Location;
use std::rc::Rc;

/// The path of a leaf inside a record, as a port name (`req_coord_1`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PortPath {
    name: String,
    marks: Vec<usize>,
}

impl PortPath {
    /// A path starting at `root` (empty for none).
    pub fn new(root: &str) -> PortPath {
        PortPath {
            name: root.to_string(),
            marks: Vec::new(),
        }
    }

    /// Enters field `field`.
    pub fn push(&mut self, field: &str) {
        self.marks.push(self.name.len());
        if !self.name.is_empty() {
            self.name.push('_');
        }
        self.name.push_str(field);
    }

    /// Enters element `i` of an array or `Vec`.
    pub fn push_index(&mut self, i: usize) {
        self.push(&i.to_string())
    }

    /// Leaves the innermost field or element.
    pub fn pop(&mut self) {
        let at = self.marks.pop().expect("PortPath::pop without push");
        self.name.truncate(at);
    }

    /// The port name of the current position (`data` at the root, for a bare leaf).
    pub fn as_str(&self) -> &str {
        if self.name.is_empty() {
            "data"
        } else {
            &self.name
        }
    }

    /// The current position with one more field appended (`req` + `valid` → `req_valid`).
    pub fn with(&self, field: &str) -> String {
        if self.name.is_empty() {
            field.to_string()
        } else {
            format!("{}_{field}", self.name)
        }
    }
}

/// The leaves of a record generic over its leaf type (implemented by `#[derive(Bundle)]`).
pub trait Leaves<T>: Sized {
    /// The same record with leaves of type `U`.
    type Of<U>;
    /// Calls `f` with every leaf and its path, in declaration order.
    fn each_leaf(&self, path: &mut PortPath, f: &mut dyn FnMut(&PortPath, &T));
    /// The record with every leaf replaced by `f(path, leaf)`.
    fn map_leaves<U>(
        &self,
        path: &mut PortPath,
        f: &mut dyn FnMut(&PortPath, &T) -> U,
    ) -> Self::Of<U>;

    /// The record with every leaf replaced by `f(leaf)`.
    fn map<U>(&self, mut f: impl FnMut(&T) -> U) -> Self::Of<U> {
        self.map_leaves(&mut PortPath::default(), &mut |_, x| f(x))
    }

    /// Every leaf with its port name, in declaration order.
    fn named_leaves(&self) -> Vec<(String, T)>
    where
        T: Clone,
    {
        let mut out = Vec::new();
        self.each_leaf(&mut PortPath::default(), &mut |p, x| {
            out.push((p.as_str().to_string(), x.clone()))
        });
        out
    }

    /// Leaf-by-leaf combination with `other`, a record of the same shape (a leaf missing from
    /// `other`, e.g. a `Vec` shorter there, is passed as `None`).
    fn zip_with<U: Clone, V>(
        &self,
        other: &Self::Of<U>,
        mut f: impl FnMut(&T, Option<U>) -> V,
    ) -> Self::Of<V>
    where
        Self::Of<U>: Leaves<U>,
    {
        let mut theirs = Vec::new();
        other.each_leaf(&mut PortPath::default(), &mut |_, u| theirs.push(u.clone()));
        let mut it = theirs.into_iter();
        self.map_leaves(&mut PortPath::default(), &mut |_, t| f(t, it.next()))
    }
}

/// The two directions of a module boundary, seen from the side that builds or hands over an
/// [`Io`] value: signals arrive (`incoming`) and leave (`outgoing`).
pub trait Boundary {
    /// A signal of `width` bits arriving under the port name `name`.
    fn incoming(&mut self, name: &str, width: u32) -> Sig;
    /// `value` leaving under the port name `name`.
    fn outgoing(&mut self, name: &str, value: Sig);
}

/// A value that can cross a module boundary (implemented by `#[derive(Io)]` and
/// `#[derive(Bundle)]`, and for [`Sig`], [`Stream`], `Vec`, arrays and `Option`).
pub trait Io: Sized {
    /// What rebuilds the value on the other side of a boundary.
    type Shape: Clone + Debug + 'static;
    /// True for records whose fields name the ports (`#[derive(Io)]`); a child's inputs and
    /// outputs of other types are named under `in` and `out` (`in_valid`, `out_tag`).
    const NAMES_ITS_PORTS: bool = false;
    /// This value's shape.
    fn io_shape(&self) -> Self::Shape;
    /// Builds a value of `shape` on the receiving side: forward leaves arrive through `b`,
    /// backward leaves (a stream's `ready`) leave through it.
    fn make(shape: &Self::Shape, path: &mut PortPath, b: &mut dyn Boundary) -> Self;
    /// Hands the value over: forward leaves leave through `b`, backward leaves arrive from it
    /// (and drive what the value owes, e.g. its streams' `ready`).
    fn take(self, path: &mut PortPath, b: &mut dyn Boundary);
}

impl Io for Sig {
    type Shape = u32;
    fn io_shape(&self) -> u32 {
        self.width()
    }
    fn make(shape: &u32, path: &mut PortPath, b: &mut dyn Boundary) -> Sig {
        b.incoming(path.as_str(), *shape)
    }
    fn take(self, path: &mut PortPath, b: &mut dyn Boundary) {
        b.outgoing(path.as_str(), self)
    }
}

impl<T: crate::Bundle> Io for Stream<T> {
    type Shape = T::Shape;
    fn io_shape(&self) -> T::Shape {
        self.data.shape()
    }
    fn make(shape: &T::Shape, path: &mut PortPath, b: &mut dyn Boundary) -> Self {
        let valid = b.incoming(&path.with("valid"), 1);
        let data = T::build(shape, path, &mut |p, w| b.incoming(p.as_str(), w));
        let ready = new_wire(&path.with("ready"), 1);
        b.outgoing(&path.with("ready"), ready.sig());
        Stream::from_parts(valid, data, ready)
    }
    fn take(self, path: &mut PortPath, b: &mut dyn Boundary) {
        let (valid, data, ready) = self.split();
        b.outgoing(&path.with("valid"), valid);
        data.visit(path, &mut |p, s| b.outgoing(p.as_str(), s));
        ready.drive(b.incoming(&path.with("ready"), 1));
    }
}

impl<I: Io> Io for Vec<I> {
    type Shape = Vec<I::Shape>;
    fn io_shape(&self) -> Self::Shape {
        self.iter().map(Io::io_shape).collect()
    }
    fn make(shape: &Self::Shape, path: &mut PortPath, b: &mut dyn Boundary) -> Self {
        let mut out = Vec::with_capacity(shape.len());
        for (i, s) in shape.iter().enumerate() {
            path.push_index(i);
            out.push(I::make(s, path, b));
            path.pop();
        }
        out
    }
    fn take(self, path: &mut PortPath, b: &mut dyn Boundary) {
        for (i, x) in self.into_iter().enumerate() {
            path.push_index(i);
            x.take(path, b);
            path.pop();
        }
    }
}

impl<I: Io, const N: usize> Io for [I; N] {
    type Shape = Vec<I::Shape>;
    fn io_shape(&self) -> Self::Shape {
        self.iter().map(Io::io_shape).collect()
    }
    fn make(shape: &Self::Shape, path: &mut PortPath, b: &mut dyn Boundary) -> Self {
        let mut i = 0;
        std::array::from_fn(|_| {
            path.push_index(i);
            let v = I::make(&shape[i], path, b);
            path.pop();
            i += 1;
            v
        })
    }
    fn take(self, path: &mut PortPath, b: &mut dyn Boundary) {
        Vec::from(self).take(path, b)
    }
}

impl<I: Io> Io for Option<I> {
    type Shape = Option<I::Shape>;
    fn io_shape(&self) -> Self::Shape {
        self.as_ref().map(Io::io_shape)
    }
    fn make(shape: &Self::Shape, path: &mut PortPath, b: &mut dyn Boundary) -> Self {
        shape.as_ref().map(|s| I::make(s, path, b))
    }
    fn take(self, path: &mut PortPath, b: &mut dyn Boundary) {
        if let Some(x) = self {
            x.take(path, b)
        }
    }
}

impl Io for () {
    type Shape = ();
    fn io_shape(&self) {}
    fn make(_: &(), _: &mut PortPath, _: &mut dyn Boundary) {}
    fn take(self, _: &mut PortPath, _: &mut dyn Boundary) {}
}

/// A hardware enumeration (implemented by `#[derive(HwEnum)]`): variants are encoded as their
/// index in `clog2(len)` bits (at least 1).
pub trait HwEnum: Copy + 'static {
    /// The enum's Rust name.
    const NAME: &'static str;
    /// Variant names in declaration order.
    const VARIANTS: &'static [&'static str];
    /// The variant's code.
    fn index(self) -> u32;
    /// Bits of the encoding.
    fn width() -> u32 {
        crate::clog2(Self::VARIANTS.len() as u64).max(1)
    }
    /// The `localparam` name of a variant: `ENUM_VARIANT` in upper snake case.
    fn const_name(self) -> String {
        format!(
            "{}_{}",
            upper_snake(Self::NAME),
            upper_snake(Self::VARIANTS[self.index() as usize])
        )
    }
}

fn upper_snake(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 && !out.ends_with('_') {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

/// A wire in the module under construction.
pub(crate) fn new_wire(name: &str, width: u32) -> Wire {
    let uid = ctx::with(|c| c.top().uid);
    Module { uid }.wire(name, width)
}

/// The child's side: inputs become ports, outputs become output ports.
struct ChildPorts<'a>(&'a mut Module);

impl Boundary for ChildPorts<'_> {
    fn incoming(&mut self, name: &str, width: u32) -> Sig {
        self.0.input(name, width)
    }
    fn outgoing(&mut self, name: &str, value: Sig) {
        self.0.output(name, value)
    }
}

/// The parent's side of an instance: values leave into the instance's inputs and arrive from
/// its outputs.
struct InstancePorts {
    inst: crate::hierarchy::Instance,
}

impl Boundary for InstancePorts {
    fn incoming(&mut self, name: &str, _width: u32) -> Sig {
        self.inst.output(name)
    }
    fn outgoing(&mut self, name: &str, value: Sig) {
        self.inst.connect(name, value)
    }
}

/// The module name for generator type `G`: its function name, or `fallback` for a closure.
fn generator_name<G>(fallback: &str) -> String {
    let full = std::any::type_name::<G>();
    let name = full
        .split("::")
        .filter(|s| !s.starts_with('{'))
        .last()
        .unwrap_or(fallback);
    if full.contains("{{closure}}") {
        crate::naming::sanitize(fallback)
    } else {
        name.to_string()
    }
}

/// Instance names from the call site: `core[2]` becomes `core_2`.
fn instance_name(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| if c == '[' || c == '.' { '_' } else { c })
        .filter(|&c| c != ']')
        .collect();
    crate::naming::sanitize(&s)
}

impl Module {
    /// Elaborates `generator(m, cfg, inputs)` as a child module instance called `name`
    /// (`"core[2]"` becomes the instance `core_2`) and returns its outputs. The same generator
    /// can be called inline, `generator(m, cfg, inputs)`, with the same results in simulation.
    ///
    /// * The child's ports come from the types of `inputs` and of the outputs ([`Io`]): a
    ///   leaf's port is its path (see the [module docs](crate::record)).
    /// * One module definition per distinct (generator, `cfg`, input shape): the first is named
    ///   after the generator function (`pbru_core`), further configurations get `_1`, `_2`, …
    ///   The Verilog header of each lists its configuration. A closure generator is named
    ///   after the instance, and identified by its call site: its captures must not change the
    ///   hardware (pass such values in `cfg`).
    /// * Errors in the child are reported with its lines, once per definition.
    #[track_caller]
    pub fn child<C, I, O, G>(&mut self, name: &str, cfg: &C, inputs: I, generator: G) -> O
    where
        C: Debug + ?Sized,
        I: Io,
        O: Io,
        G: FnOnce(&mut Module, &C, I) -> O,
    {
        let loc = Location::caller();
        let inst_name = instance_name(name);
        let gen_name = generator_name::<G>(&inst_name);
        let in_shape = inputs.io_shape();
        let site = if std::any::type_name::<G>().contains("{{closure}}") {
            format!(" @{}:{}:{}", loc.file(), loc.line(), loc.column())
        } else {
            String::new()
        };
        let key = format!("{} {cfg:?} {in_shape:?}{site}", std::any::type_name::<G>());
        let params = format!("{gen_name} {cfg:?}");
        let mut out_shape: Option<Rc<dyn Any>> = ctx::with(|c| {
            c.by_key
                .get(&key)
                .and_then(|&i| c.child_outputs.get(&i).cloned())
        });
        let mut generator = Some(generator);
        let in_root = || PortPath::new(if I::NAMES_ITS_PORTS { "" } else { "in" });
        let out_root = || PortPath::new(if O::NAMES_ITS_PORTS { "" } else { "out" });
        let inst = self.instance_keyed(&inst_name, &gen_name, key, params, |m| {
            let i = I::make(&in_shape, &mut in_root(), &mut ChildPorts(m));
            let gen = generator.take().expect("the child is built once");
            let o = gen(m, cfg, i);
            let shape: Rc<dyn Any> = Rc::new(o.io_shape());
            o.take(&mut out_root(), &mut ChildPorts(m));
            out_shape = Some(shape);
        });
        if let Some(shape) = &out_shape {
            ctx::with(|c| c.child_outputs.insert(inst.child_index(), shape.clone()));
        }
        inputs.take(&mut in_root(), &mut InstancePorts { inst });
        let shape = out_shape
            .as_ref()
            .and_then(|s| s.downcast_ref::<O::Shape>())
            .cloned();
        // The generator's type fixes its output type, so a cached definition's shape always
        // has this type.
        let shape = shape.expect("a child definition records its output shape");
        O::make(&shape, &mut out_root(), &mut InstancePorts { inst })
    }

    /// Input ports for a record of `shape` (a stream's `ready` becomes an output): the record's
    /// leaves at the top of the module, named by their paths.
    #[track_caller]
    pub fn io_input<T: Io>(&mut self, shape: &T::Shape) -> T {
        T::make(shape, &mut PortPath::default(), &mut ChildPorts(self))
    }

    /// Output ports for `value` (a stream's `ready` becomes an input), named by their paths.
    #[track_caller]
    pub fn io_output<T: Io>(&mut self, value: T) {
        value.take(&mut PortPath::default(), &mut ChildPorts(self))
    }

    /// A hardware enum's value (see [`HwEnum`]): a constant printed as a `localparam`.
    #[track_caller]
    pub fn enum_const<E: HwEnum>(&mut self, variant: E) -> Sig {
        let loc = Location::caller();
        crate::sig::enum_constant(
            variant.const_name(),
            variant.index() as u64,
            E::width(),
            loc,
        )
    }

    /// A register holding a hardware enum, reset to `reset`.
    #[track_caller]
    pub fn enum_reg<E: HwEnum>(&mut self, name: &str, reset: E) -> crate::Reg {
        let r = self.reg(name, E::width()).reset(reset.index() as u64);
        let node = r.q().node();
        ctx::with(|c| c.top().def.enum_regs.push((node, E::VARIANTS)));
        r
    }

    /// Builds `body` in a named block: registers, wires and named signals made inside get the
    /// prefix `name_` (nested blocks join with `_`), so the Verilog and the VCD show where they
    /// come from.
    pub fn block<R>(&mut self, name: &str, body: impl FnOnce(&mut Module) -> R) -> R {
        ctx::with(|c| c.top().prefix.push(crate::naming::sanitize(name)));
        let r = body(self);
        ctx::with(|c| {
            c.top().prefix.pop();
        });
        r
    }

    /// A register for every leaf of a bundle (`name_field_q`), loaded from `next` when
    /// `enable` (every cycle when `None`); returns the registered bundle.
    #[track_caller]
    pub fn reg_bundle<T: crate::Bundle>(&mut self, name: &str, next: &T, enable: Option<Sig>) -> T {
        let mut base = PortPath::new(name);
        let shape = next.shape();
        let fields = next.fields();
        let mut it = fields.into_iter();
        T::build(&shape, &mut base, &mut |p, w| {
            let (_, d) = it.next().expect("one field per leaf");
            let r = self.reg(p.as_str(), w);
            match enable {
                Some(e) => r.next_when(e, d),
                None => r.next(d),
            }
            r.q()
        })
    }
}

/// The driving end of an [`Io`] value made by [`Module::io_loop`]: connect the producer once.
#[must_use = "connect the loop's producer with `IoPlug::connect`"]
pub struct IoPlug<T: Io> {
    name: String,
    /// Wires standing for the forward leaves, by port name.
    wires: std::collections::HashMap<String, Wire>,
    /// What the consumer drives back (streams' `ready`), by port name.
    backs: std::collections::HashMap<String, Sig>,
    loc: crate::ir::Loc,
    _value: std::marker::PhantomData<T>,
}

struct LoopMake<'a> {
    wires: &'a mut std::collections::HashMap<String, Wire>,
    backs: &'a mut std::collections::HashMap<String, Sig>,
}

impl Boundary for LoopMake<'_> {
    fn incoming(&mut self, name: &str, width: u32) -> Sig {
        let w = new_wire(name, width);
        self.wires.insert(name.to_string(), w);
        w.sig()
    }
    fn outgoing(&mut self, name: &str, value: Sig) {
        self.backs.insert(name.to_string(), value);
    }
}

struct LoopTake<'a> {
    wires: &'a mut std::collections::HashMap<String, Wire>,
    backs: &'a std::collections::HashMap<String, Sig>,
    missing: Vec<String>,
}

impl Boundary for LoopTake<'_> {
    fn incoming(&mut self, name: &str, width: u32) -> Sig {
        match self.backs.get(name) {
            Some(&s) => s,
            None => {
                self.missing.push(format!("`{name}` ({width} bits)"));
                let uid = ctx::with(|c| c.top().uid);
                Module { uid }.lit(0, width)
            }
        }
    }
    fn outgoing(&mut self, name: &str, value: Sig) {
        match self.wires.remove(name) {
            Some(w) => w.drive(value),
            None => self
                .missing
                .push(format!("`{name}` ({} bits)", value.width())),
        }
    }
}

impl Module {
    /// A value of `shape` whose producer is connected later through the returned plug: closes
    /// a loop between children (a scheduler feeding cores that feed it back). Its wires are
    /// named `name_<leaf>`.
    #[track_caller]
    pub fn io_loop<T: Io>(&mut self, name: &str, shape: &T::Shape) -> (T, IoPlug<T>) {
        let loc = Location::caller();
        let mut wires = std::collections::HashMap::new();
        let mut backs = std::collections::HashMap::new();
        let value = T::make(
            shape,
            &mut PortPath::new(name),
            &mut LoopMake {
                wires: &mut wires,
                backs: &mut backs,
            },
        );
        let plug = IoPlug {
            name: name.to_string(),
            wires,
            backs,
            loc,
            _value: std::marker::PhantomData,
        };
        (value, plug)
    }
}

impl<T: Io> IoPlug<T> {
    /// Connects `value` as the producer: drives the loop's wires from it and its backward
    /// leaves from the consumer. A value of another shape is an elaboration error listing the
    /// leaves that do not match.
    #[track_caller]
    pub fn connect(mut self, value: T) {
        let loc = Location::caller();
        let mut take = LoopTake {
            wires: &mut self.wires,
            backs: &self.backs,
            missing: Vec::new(),
        };
        value.take(&mut PortPath::new(&self.name), &mut take);
        let mut missing = take.missing;
        let mut left: Vec<&String> = self.wires.keys().collect();
        left.sort();
        missing.extend(left.into_iter().map(|n| format!("`{n}` (not driven)")));
        if !missing.is_empty() {
            let made = self.loc;
            ctx::with(|c| {
                c.error(
                    crate::error::ErrorKind::BundleMismatch,
                    loc,
                    format!(
                        "loop `{}` (made at {}:{}) connected to a value of another shape: {}",
                        self.name,
                        made.file(),
                        made.line(),
                        missing.join(", ")
                    ),
                )
            });
        }
    }
}
