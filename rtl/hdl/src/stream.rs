//! Valid/ready streams carrying a [`Bundle`].
//!
//! # Transfer rules (every stream in rendergen keeps them)
//! 1. A transfer happens in a cycle where `valid` and `ready` are both 1.
//! 2. `valid` never waits for `ready`: a producer must not compute `valid` from `ready`.
//! 3. Once `valid` is 1 it stays 1, with the payload stable, until the transfer.
//! 4. `ready` may depend on `valid` combinationally (the consumer decides in the same cycle).
//!
//! A [`Stream`] is the consumer's view of a producer's output: `valid` and `data` to read, and a
//! `ready` to drive exactly once. It is neither `Copy` nor `Clone`, so ownership gives every
//! stream one consumer; a stream that nobody consumes leaves its `ready` undriven, which
//! elaboration reports with the line that created the stream.
//!
//! Port names: a stream `req` of bundle `TexReq { addr, tag }` becomes the ports `req_valid`,
//! `req_ready`, `req_addr`, `req_tag`; a plain [`Sig`] payload is `req_data`.

use crate::bundle::{field_port, layout_mismatches, Bundle};
use crate::ctx;
use crate::error::ErrorKind;
use crate::hierarchy::Instance;
use crate::module::{Module, Wire};
use crate::sig::Sig;
use std::panic::Location;

/// A valid/ready stream as seen by its consumer.
#[must_use = "a stream must be consumed: drive its ready (split, connect or output it)"]
pub struct Stream<T: Bundle> {
    /// The producer's valid.
    pub valid: Sig,
    /// The payload, meaningful while `valid` is 1.
    pub data: T,
    ready: Wire,
}

/// The consumer's obligation to drive `ready`, once.
#[must_use = "drive the ready of the stream"]
pub struct ReadyDriver {
    wire: Wire,
}

impl ReadyDriver {
    /// Drives the stream's ready.
    #[track_caller]
    pub fn drive(self, ready: Sig) {
        self.wire.drive(ready)
    }

    /// Drives the stream's ready with the OR of `readies`: a producer that offers its item to
    /// several consumers (each seeing only the items meant for it) is taken when one takes it.
    #[track_caller]
    pub fn drive_any(self, readies: impl IntoIterator<Item = Sig>) {
        self.wire.drive(crate::logic::or_all(readies))
    }
}

impl<T: Bundle> Stream<T> {
    /// Producer side: offers `valid` and `data` under the name `name`; returns the stream (for
    /// the consumer) and the ready signal the producer sees.
    #[track_caller]
    pub fn offer(m: &mut Module, name: &str, valid: Sig, data: T) -> (Stream<T>, Sig) {
        let ready = m.wire(&format!("{name}_ready"), 1);
        (Stream { valid, data, ready }, ready.sig())
    }

    /// A stream that is never valid, with a zero payload of `shape`: the output of a degenerate
    /// generator with no inputs (an arbiter over zero lanes). Its consumer drives `ready` as
    /// usual.
    #[track_caller]
    pub fn idle(m: &mut Module, name: &str, shape: &T::Shape) -> Stream<T> {
        let valid = m.lit(0, 1);
        let data = T::from_fields(shape, &mut |_, w| m.lit(0, w));
        Stream::offer(m, name, valid, data).0
    }

    /// A stream from its parts (for [`crate::record::Io`] implementations).
    pub(crate) fn from_parts(valid: Sig, data: T, ready: Wire) -> Stream<T> {
        Stream { valid, data, ready }
    }

    /// Takes the stream apart: `valid`, the payload, and the ready to drive.
    pub fn split(self) -> (Sig, T, ReadyDriver) {
        (self.valid, self.data, ReadyDriver { wire: self.ready })
    }

    /// Consumes the stream with a ready computed by `f` from (valid, data); returns valid and data.
    #[track_caller]
    pub fn accept_with(self, f: impl FnOnce(Sig, &T) -> Sig) -> (Sig, T) {
        let (valid, data, ready) = self.split();
        let r = f(valid, &data);
        ready.drive(r);
        (valid, data)
    }

    /// The shape of the payload.
    pub fn shape(&self) -> T::Shape {
        self.data.shape()
    }
}

impl Module {
    /// Declares an input stream: inputs `name_valid` and the payload fields, output `name_ready`.
    #[track_caller]
    pub fn input_stream<T: Bundle>(&mut self, name: &str, shape: &T::Shape) -> Stream<T> {
        let valid = self.input(&field_port(name, "valid"), 1);
        let data = self.input_bundle::<T>(name, shape);
        let ready = self.output_wire(&field_port(name, "ready"), 1);
        Stream { valid, data, ready }
    }

    /// Declares an output stream driven by `s`: outputs `name_valid` and the payload fields,
    /// input `name_ready`.
    #[track_caller]
    pub fn output_stream<T: Bundle>(&mut self, name: &str, s: Stream<T>) {
        let (valid, data, ready) = s.split();
        self.output(&field_port(name, "valid"), valid);
        self.output_bundle(name, &data);
        let r = self.input(&field_port(name, "ready"), 1);
        ready.drive(r);
    }
}

impl Instance {
    /// Feeds stream `s` into the instance's input stream `port`; every field must match the
    /// child's ports (all differences are reported together).
    #[track_caller]
    pub fn connect_stream<T: Bundle>(self, port: &str, s: Stream<T>) {
        let loc = Location::caller();
        let (valid, data, ready) = s.split();
        let expected = T::layout(&data.shape());
        if !self.check_fields(port, &expected, true, loc) {
            return;
        }
        self.connect(&field_port(port, "valid"), valid);
        for (f, sig) in data.fields() {
            self.connect(&field_port(port, &f), sig);
        }
        ready.drive(self.output(&field_port(port, "ready")));
    }

    /// The instance's output stream `port`, whose payload has `shape`.
    #[track_caller]
    pub fn output_stream<T: Bundle>(
        self,
        m: &mut Module,
        port: &str,
        shape: &T::Shape,
    ) -> Stream<T> {
        let loc = Location::caller();
        let expected = T::layout(shape);
        self.check_fields(port, &expected, false, loc);
        let valid = self.output(&field_port(port, "valid"));
        let data = T::from_fields(shape, &mut |f, w| {
            let s = self.output(&field_port(port, f));
            if s.width() == w {
                s
            } else {
                m.lit(0, w)
            }
        });
        let ready = m.wire(&format!("{port}_ready"), 1);
        self.connect(&field_port(port, "ready"), ready.sig());
        Stream { valid, data, ready }
    }

    /// Compares the child's `port_*` payload ports with `expected`; reports all differences.
    fn check_fields(
        self,
        port: &str,
        expected: &[(String, u32)],
        input: bool,
        loc: crate::ir::Loc,
    ) -> bool {
        let prefix = format!("{port}_");
        let actual: Vec<(String, u32)> = self.payload_ports(&prefix, input);
        let side = if input {
            "the instance's input ports"
        } else {
            "the instance's output ports"
        };
        let diffs = layout_mismatches(port, (expected, "the stream"), (&actual, side));
        if diffs.is_empty() {
            return true;
        }
        ctx::with(|c| {
            c.error(
                ErrorKind::BundleMismatch,
                loc,
                format!(
                    "mismatched bundles at stream `{port}`: {}",
                    diffs.join("; ")
                ),
            )
        });
        false
    }
}
