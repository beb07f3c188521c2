//! Every elaboration error names the signals involved and points at the user's line.

use rendergen_hdl::{bundle, Bundle, Design, ElabErrors, ErrorKind, Sig, Stream};

bundle! {
    /// A request with an address and a tag.
    pub struct Req { pub addr, pub tag }
}

fn only(errors: &ElabErrors, kind: ErrorKind) -> rendergen_hdl::ElabError {
    let matching: Vec<_> = errors
        .0
        .iter()
        .filter(|e| e.kind == kind)
        .cloned()
        .collect();
    assert_eq!(
        matching.len(),
        1,
        "expected one {kind:?} error, got: {errors}"
    );
    matching[0].clone()
}

fn at_line(e: &rendergen_hdl::ElabError, line: u32) {
    assert!(e.loc.file().ends_with("elaboration_errors.rs"), "{e}");
    assert_eq!(
        e.loc.line(),
        line,
        "error should point at the user's line: {e}"
    );
}

#[test]
fn width_mismatch_names_both_operands_and_the_line() {
    let mut line = 0;
    let err = Design::build("t", |m| {
        let a = m.input("a", 8);
        let b = m.input("b", 9);
        line = line!() + 1;
        let s = a + b;
        m.output("s", s);
    })
    .unwrap_err();
    let e = only(&err, ErrorKind::WidthMismatch);
    assert!(
        e.message.contains("`a` is 8 bits") && e.message.contains("`b` is 9 bits"),
        "{e}"
    );
    at_line(&e, line);
    assert!(e.to_string().contains("in module `t`"), "{e}");
}

#[test]
fn undriven_wire_and_output() {
    let err = Design::build("t", |m| {
        let w = m.wire("lonely", 4);
        m.output("y", w.sig());
        let _o = m.output_wire("z", 2);
    })
    .unwrap_err();
    let msgs: Vec<String> = err.0.iter().map(|e| e.message.clone()).collect();
    assert!(
        msgs.iter()
            .any(|m| m.contains("wire `lonely` (4 bits) is never driven")),
        "{msgs:?}"
    );
    assert!(
        msgs.iter()
            .any(|m| m.contains("output `z` (2 bits) is never driven")),
        "{msgs:?}"
    );
}

#[test]
fn multiple_drivers_cite_the_first_driver() {
    let (mut first, mut second) = (0, 0);
    let err = Design::build("t", |m| {
        let a = m.input("a", 4);
        let w = m.wire("w", 4);
        first = line!() + 1;
        w.drive(a);
        second = line!() + 1;
        w.drive(!a);
        m.output("y", w.sig());
    })
    .unwrap_err();
    let e = only(&err, ErrorKind::MultipleDrivers);
    assert!(e.message.contains("`w` has multiple drivers"), "{e}");
    assert!(e.message.contains(&format!(":{first}")), "{e}");
    at_line(&e, second);
}

#[test]
fn register_driven_twice_or_never() {
    let err = Design::build("t", |m| {
        let r = m.reg("acc", 8).reset(0);
        r.next(r.q() + 1);
        r.next(r.q());
        let idle = m.reg("idle", 1);
        m.output("y", r.q() ^ idle.q().repeat(8));
    })
    .unwrap_err();
    assert!(err.has(ErrorKind::MultipleDrivers), "{err}");
    let e = only(&err, ErrorKind::Undriven);
    assert!(
        e.message.contains("register `idle` has no next value"),
        "{e}"
    );
}

#[test]
fn combinational_loop_lists_its_signals() {
    let err = Design::build("t", |m| {
        let a = m.input("a", 1);
        let x = m.wire("loop_x", 1);
        let y = (x.sig() & a).named("loop_y");
        x.drive(!y);
        m.output("y", y);
    })
    .unwrap_err();
    let e = only(&err, ErrorKind::CombLoop);
    assert!(
        e.message.contains("t.loop_x") && e.message.contains("t.loop_y"),
        "{e}"
    );
}

#[test]
fn combinational_loop_through_an_instance() {
    let err = Design::build("t", |m| {
        let w = m.wire("back", 1);
        let inst = m.instance("u_inv", "inverter", &(), |c| {
            let i = c.input("x", 1);
            c.output("y", !i);
        });
        inst.connect("x", w.sig());
        w.drive(inst.output("y"));
        m.output("o", w.sig());
    })
    .unwrap_err();
    let e = only(&err, ErrorKind::CombLoop);
    assert!(e.message.contains("t.back"), "{e}");
}

#[test]
fn unknown_port_lists_the_valid_ones() {
    let mut line = 0;
    let err = Design::build("t", |m| {
        let a = m.input("a", 1);
        let inst = m.instance("u0", "buffer", &1u32, |c| {
            let i = c.input("din", 1);
            c.output("dout", i);
        });
        line = line!() + 1;
        inst.connect("data_in", a);
        m.output("y", inst.output("dout"));
    })
    .unwrap_err();
    let e = only(&err, ErrorKind::UnknownPort);
    assert!(
        e.message.contains("no input `data_in`") && e.message.contains("din"),
        "{e}"
    );
    at_line(&e, line);
    // The child input stays unconnected, which is reported too.
    let undriven = only(&err, ErrorKind::Undriven);
    assert!(
        undriven
            .message
            .contains("input `din` of instance `u0` (module `buffer`)"),
        "{undriven}"
    );
}

#[test]
fn mismatched_bundles_list_every_difference() {
    let err = Design::build("t", |m| {
        let child = m.instance("u_sink", "sink", &(), |c| {
            let s = c.input_stream::<Req>("req", &Req { addr: 32, tag: 8 });
            let (v, d, r) = s.split();
            r.drive(v);
            c.output("addr", d.addr);
            c.output("tag", d.tag);
        });
        let s = m.input_stream::<Req>("src", &Req { addr: 16, tag: 8 });
        child.connect_stream("req", s);
        m.output("y", child.output("tag"));
    })
    .unwrap_err();
    assert!(err.has(ErrorKind::BundleMismatch), "{err}");
    let e = err
        .0
        .iter()
        .find(|e| e.kind == ErrorKind::BundleMismatch)
        .unwrap();
    assert!(
        e.message.contains(
            "`req.addr` is 16 bits in the stream but 32 bits in the instance's input ports"
        ),
        "{e}"
    );
}

#[test]
fn unconsumed_stream_is_reported() {
    let err = Design::build("t", |m| {
        let s: Stream<Sig> = m.input_stream("in", &8);
        let (v, d, _ready) = s.split();
        m.output("y", d ^ v.repeat(8));
    })
    .unwrap_err();
    let e = only(&err, ErrorKind::Undriven);
    assert!(e.message.contains("`in_ready`"), "{e}");
}

#[test]
fn literal_too_wide_and_bad_slice() {
    let err = Design::build("t", |m| {
        let a = m.input("a", 4);
        m.output("y", a + 16u32);
        m.output("z", a.bits(5, 2));
    })
    .unwrap_err();
    assert!(
        err.0
            .iter()
            .any(|e| e.message.contains("literal 16 does not fit in 4 bits")),
        "{err}"
    );
    assert!(
        err.0
            .iter()
            .any(|e| e.message.contains("slice [5:2] out of range of `a`")),
        "{err}"
    );
}

#[test]
fn signal_from_another_module_is_rejected() {
    let err = Design::build("t", |m| {
        let a = m.input("a", 1);
        let inst = m.instance("u0", "leaky", &(), |c| {
            c.output("y", a);
        });
        m.output("y", inst.output("y"));
    })
    .unwrap_err();
    assert!(err.has(ErrorKind::ForeignSignal), "{err}");
}

#[test]
fn bundle_shapes_round_trip() {
    let shape = Req { addr: 12, tag: 4 };
    assert_eq!(<Req as Bundle>::total_width(&shape), 16);
    assert_eq!(
        <Req as Bundle>::layout(&shape),
        vec![("addr".to_string(), 12), ("tag".to_string(), 4)]
    );
}
