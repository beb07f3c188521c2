//! Records (`#[derive(Bundle)]`, `#[derive(Io)]`), child modules, hardware enums and named
//! blocks.

use rendergen_hdl::ir::Op;
use rendergen_hdl::{cat, pack, unpack, Bundle, Design, HwEnum, Io, Leaves, Module, Sig, Stream};

/// A nested payload: a record inside, an array, a `Vec` and an optional field.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct Texel<T = Sig> {
    pub coord: [T; 2],
    pub lod: Option<T>,
    pub tag: Tag<T>,
    pub lanes: Vec<T>,
}

/// A nested record.
#[derive(Bundle, Clone, Copy, Debug, PartialEq)]
pub struct Tag<T = Sig> {
    pub core: T,
    pub slot: T,
}

fn texel_shape(lod: bool, lanes: usize) -> Texel<u32> {
    Texel {
        coord: [16, 16],
        lod: lod.then_some(4),
        tag: Tag { core: 3, slot: 2 },
        lanes: vec![8; lanes],
    }
}

#[derive(Io)]
pub struct UnitIn {
    pub req: Stream<Texel>,
    pub enable: Sig,
    pub extra: Option<Sig>,
}

#[derive(Io)]
pub struct UnitOut {
    pub resp: Stream<Texel>,
    pub count: Sig,
    pub counts: Vec<Sig>,
}

#[derive(HwEnum, Clone, Copy, Debug, PartialEq)]
pub enum State {
    Idle,
    Busy,
    DrainOut,
}

/// The toy unit: passes the stream through, counts enabled cycles in a state machine.
fn unit(m: &mut Module, cfg: &u32, i: UnitIn) -> UnitOut {
    let state = m.enum_reg("state", State::Idle);
    let busy = m.enum_const(State::Busy);
    let idle = m.enum_const(State::Idle);
    state.next(state.q().is(State::Idle).mux(busy, idle));
    let count = m.reg("count", *cfg).reset(0);
    let inc = i.enable & state.q().is(State::Busy);
    let inc = match i.extra {
        Some(e) => inc | e,
        None => inc,
    };
    count.next_when(inc, count.q() + 1);
    UnitOut {
        resp: i.req,
        count: count.q(),
        counts: vec![count.q(), !count.q()],
    }
}

#[test]
fn leaves_map_and_name_nested_fields() {
    let shape = texel_shape(true, 3);
    let names: Vec<String> = shape.named_leaves().into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        ["coord_0", "coord_1", "lod", "tag_core", "tag_slot", "lanes_0", "lanes_1", "lanes_2"]
    );
    let doubled: Texel<u64> = shape.map(|w| *w as u64 * 2);
    assert_eq!(doubled.coord, [32, 32]);
    assert_eq!(doubled.lanes, vec![16, 16, 16]);
    let sums = shape.zip_with(&doubled, |a, b| *a as u64 + b.unwrap());
    assert_eq!(sums.tag, Tag { core: 9, slot: 6 });
    assert_eq!(
        <Texel as Bundle>::total_width(&texel_shape(false, 1)),
        16 + 16 + 3 + 2 + 8
    );
}

#[test]
fn child_ports_come_from_the_records() {
    let shape = texel_shape(true, 2);
    let design = Design::build("top", |m| {
        let req = m.input_stream::<Texel>("req", &shape);
        let enable = m.input("enable", 1);
        let out = m.child(
            "unit[0]",
            &8u32,
            UnitIn {
                req,
                enable,
                extra: None,
            },
            unit,
        );
        m.output_stream("resp", out.resp);
        m.output("count", out.count);
        for (k, c) in out.counts.into_iter().enumerate() {
            m.output(&format!("counts{k}"), c);
        }
    })
    .expect("elaborates");
    assert_eq!(design.modules.len(), 2);
    let child = &design.modules[0];
    assert_eq!(child.name, "unit");
    let ins: Vec<&str> = child.inputs.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        ins,
        [
            "req_valid",
            "req_coord_0",
            "req_coord_1",
            "req_lod",
            "req_tag_core",
            "req_tag_slot",
            "req_lanes_0",
            "req_lanes_1",
            "enable",
            "resp_ready"
        ]
    );
    let outs: Vec<&str> = child.outputs.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(outs[0], "req_ready");
    assert!(outs.contains(&"counts_1"));
    assert_eq!(design.top().insts[0].name, "unit_0");
    // The state constants are localparams named after the enum.
    let params: Vec<&str> = child
        .localparams
        .iter()
        .map(|&n| child.node(n).name.as_deref().unwrap())
        .collect();
    assert!(params.contains(&"STATE_IDLE") && params.contains(&"STATE_BUSY"));
    assert_eq!(State::DrainOut.const_name(), "STATE_DRAIN_OUT");
    assert_eq!(State::width(), 2);
}

#[test]
fn one_definition_per_configuration() {
    let design = Design::build("top", |m| {
        let mut total = m.lit(0, 8);
        for (k, (width, extra)) in [(8, false), (8, false), (4, false), (8, true)]
            .into_iter()
            .enumerate()
        {
            let req = m.input_stream::<Texel>(&format!("req{k}"), &texel_shape(false, 1));
            let enable = m.input(&format!("enable{k}"), 1);
            let extra = extra.then(|| m.input(&format!("extra{k}"), 1));
            let out = m.child(
                &format!("unit[{k}]"),
                &width,
                UnitIn { req, enable, extra },
                unit,
            );
            m.output_stream(&format!("resp{k}"), out.resp);
            total = total ^ out.count.resize(8);
            let _ = out.counts;
        }
        m.output("total", total);
    })
    .expect("elaborates");
    // Same config twice → one definition; another width and another input shape → two more.
    let names: Vec<&str> = design.modules.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["unit", "unit_1", "unit_2", "top"]);
    let insts: Vec<(&str, usize)> = design
        .top()
        .insts
        .iter()
        .map(|i| (i.name.as_str(), i.module))
        .collect();
    assert_eq!(
        insts,
        [("unit_0", 0), ("unit_1", 0), ("unit_2", 1), ("unit_3", 2)]
    );
}

#[test]
fn registers_of_a_record_and_pack_round_trip() {
    let shape = texel_shape(true, 2);
    let design = Design::build("top", |m| {
        let x: Texel = m.input_bundle("x", &shape);
        let en = m.input("en", 1);
        let q = m.reg_bundle("stage", &x, Some(en));
        let back: Texel = unpack(&shape, pack(&q));
        m.output_bundle("y", &back);
    })
    .expect("elaborates");
    let regs: Vec<&str> = design
        .top()
        .regs
        .iter()
        .map(|r| design.top().node(r.node).name.as_deref().unwrap())
        .collect();
    assert_eq!(regs[0], "stage_coord_0");
    assert!(regs.contains(&"stage_tag_slot"));
    assert_eq!(regs.len(), 7);
}

#[test]
fn named_blocks_prefix_local_names() {
    let design = Design::build("top", |m| {
        let a = m.input("a", 4);
        let s = m.block("decode", |m| {
            let r = m.reg("opcode", 4).reset(0);
            r.next(a);
            m.block("imm", |_| (r.q() + 1).named("sum"))
        });
        m.output("y", s);
    })
    .expect("elaborates");
    let named: Vec<&str> = design
        .top()
        .nodes
        .iter()
        .filter_map(|n| n.name.as_deref())
        .collect();
    assert!(named.contains(&"decode_opcode"), "{named:?}");
    assert!(named.contains(&"decode_imm_sum"), "{named:?}");
}

#[test]
fn errors_inside_a_child_point_at_the_child() {
    fn broken(m: &mut Module, _: &(), x: Sig) -> Sig {
        let w = m.wire("never", 4);
        x + w.sig()
    }
    let err = Design::build("top", |m| {
        let x = m.input("x", 4);
        let y = m.child("b", &(), x, broken);
        m.output("y", y);
    })
    .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("never"), "{text}");
    assert!(text.contains("records.rs"), "{text}");
    let _ = Op::Input(0);
}

/// A generator whose `let`s name what they bind (`#[name_lets]`).
#[rendergen_hdl::name_lets]
fn adder_with_lets(m: &mut Module) {
    let a = m.input("a", 8);
    let b = m.input("b", 8);
    let carry_in = m.input("cin", 1);
    let sum = a + b + carry_in.zext(8);
    let (low, high) = (sum.bits(3, 0), sum.bits(7, 4));
    let parts = vec![low ^ high, low & high];
    let tag = Tag {
        slot: low | 1,
        core: high + 2,
    };
    let mut accumulated = a - b; // `mut`: not named
    accumulated = accumulated ^ b;
    let _hidden = a * b; // `_`: not named
    let wrapped = m.block("inner", |_| {
        let doubled = sum + sum;
        doubled
    });
    let already = (a | b).named("explicit");
    let again = already; // keeps its explicit name
    m.output("y", sum ^ accumulated ^ wrapped ^ again ^ _hidden);
    m.output("t", cat(&[parts[0], parts[1], tag.slot, tag.core]));
}

#[test]
fn let_bindings_name_their_signals() {
    let design = Design::build("top", adder_with_lets).expect("elaborates");
    let soft: Vec<&str> = design
        .top()
        .nodes
        .iter()
        .filter_map(|n| n.soft_name.as_deref())
        .collect();
    for name in [
        "sum",
        "low",
        "high",
        "parts_0",
        "parts_1",
        "tag_slot",
        "tag_core",
        "inner_doubled",
    ] {
        assert!(soft.contains(&name), "{name} missing from {soft:?}");
    }
    for name in ["accumulated", "_hidden", "already", "again", "a", "wrapped"] {
        assert!(
            !soft.contains(&name),
            "{name} should not be named: {soft:?}"
        );
    }
    let hard: Vec<&str> = design
        .top()
        .nodes
        .iter()
        .filter_map(|n| n.name.as_deref())
        .collect();
    assert!(hard.contains(&"explicit"), "{hard:?}");
}
