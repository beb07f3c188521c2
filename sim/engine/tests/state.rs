//! Registers, reset, enables, memories and the cycle semantics of `step`/`peek`.

use crate::engine::Simulator;
use rendergen_hdl::{Bits, Design};

fn sim(d: Result<Design, rendergen_hdl::ElabErrors>) -> Simulator {
    Simulator::new(&d.expect("elaborates")).expect("compiles")
}

#[test]
fn registers_enable_and_reset() {
    let mut s = sim(Design::build("regs", |m| {
        let en = m.input("en", 1);
        let x = m.input("x", 8);
        let with_reset = m.reg("with_reset", 8).reset(0x5a);
        with_reset.next_when(en, x);
        let plain = m.reg("plain", 8);
        plain.next(x);
        let wide = m.reg("wide", 100).reset(3);
        wide.next_when(en, x.zext(100) + wide.q());
        m.output("with_reset", with_reset.q());
        m.output("plain", plain.q());
        m.output("wide", wide.q());
    }));
    let (en, x) = (s.input("en").unwrap(), s.input("x").unwrap());
    let (r, p, w) = (s.output_at(0), s.output_at(1), s.output_at(2));
    assert_eq!(
        (s.peek(r), s.peek(p), s.peek(w)),
        (0, 0, 0),
        "no-reset state starts at 0"
    );
    s.poke(x, 7);
    s.poke(en, 1);
    s.set_reset(true);
    s.step();
    // Reset wins over enable; a register without reset value loads normally during reset.
    assert_eq!((s.peek(r), s.peek(p), s.peek(w)), (0x5a, 7, 3));
    s.set_reset(false);
    s.step();
    assert_eq!((s.peek(r), s.peek(p), s.peek(w)), (7, 7, 10));
    s.poke(en, 0);
    s.poke(x, 9);
    s.step();
    assert_eq!(
        (s.peek(r), s.peek(p), s.peek(w)),
        (7, 9, 10),
        "enable low holds"
    );
    assert_eq!(s.cycle(), 3);
}

#[test]
fn shift_register_and_swap_update_simultaneously() {
    let mut s = sim(Design::build("shift", |m| {
        let x = m.input("x", 4);
        let a = m.reg("a", 4);
        let b = m.reg("b", 4);
        let c = m.reg("c", 4);
        a.next(x);
        b.next(a.q());
        c.next(b.q());
        let p = m.reg("p", 4).reset(1);
        let q = m.reg("q", 4).reset(2);
        p.next(q.q());
        q.next(p.q());
        m.output("c", c.q());
        m.output("pq", rendergen_hdl::cat(&[p.q(), q.q()]));
    }));
    let x = s.input("x").unwrap();
    let (c, pq) = (s.output("c").unwrap(), s.output("pq").unwrap());
    s.reset(1);
    assert_eq!(s.peek(pq), 0x12);
    for i in 1..=6u64 {
        s.poke(x, i);
        s.step();
        assert_eq!(s.peek(pq), if i % 2 == 1 { 0x21 } else { 0x12 });
        if i >= 3 {
            assert_eq!(s.peek(c), i - 2, "three-stage delay");
        }
    }
}

#[test]
fn memories_read_first_priority_init_and_range() {
    let mut s = sim(Design::build("mem", |m| {
        let we = m.input("we", 1);
        let we2 = m.input("we2", 1);
        let addr = m.input("addr", 3);
        let raddr = m.input("raddr", 3);
        let data = m.input("data", 70);
        let mem = m.memory("ram", 70, 6).init(&[11, 22, 33]);
        mem.write(we, addr, data);
        mem.write(we2, addr, !data); // later port wins
        m.output("sync", mem.read_sync(raddr, None));
        m.output("comb", mem.read_comb(raddr));
        let en = m.input("ren", 1);
        m.output("sync_en", mem.read_sync(raddr, Some(en)));
    }));
    let id = |s: &Simulator, n| s.input(n).unwrap();
    let (we, we2, addr, raddr, data, ren) = (
        id(&s, "we"),
        id(&s, "we2"),
        id(&s, "addr"),
        id(&s, "raddr"),
        id(&s, "data"),
        id(&s, "ren"),
    );
    let (sync, comb, sync_en) = (s.output_at(0), s.output_at(1), s.output_at(2));
    s.poke(raddr, 1);
    assert_eq!(s.peek(comb), 22, "initial contents");
    assert_eq!(s.peek(sync), 0, "sync port starts at 0");
    // Write 99 to word 1 while reading it synchronously: read-first gives the old value.
    s.poke(we, 1);
    s.poke(addr, 1);
    s.poke(data, 99);
    s.poke(ren, 1);
    s.step();
    assert_eq!((s.peek(sync), s.peek(sync_en), s.peek(comb)), (22, 22, 99));
    s.poke(we, 0);
    s.poke(ren, 0);
    s.step();
    assert_eq!(
        (s.peek(sync), s.peek(sync_en)),
        (99, 22),
        "disabled port holds"
    );
    // Both ports write word 2: the later one wins.
    s.poke(we, 1);
    s.poke(we2, 1);
    s.poke(addr, 2);
    s.poke(data, 5);
    s.step();
    s.poke(raddr, 2);
    let want = Bits::from_u128(!5u128, 70);
    assert_eq!(s.peek_bits(comb), want);
    // Word 6 and 7 are out of range: reads give 0, writes are ignored.
    s.poke(we2, 0);
    s.poke(addr, 7);
    s.step();
    s.poke(raddr, 7);
    assert_eq!(s.peek(comb), 0);
    s.poke(raddr, 0);
    assert_eq!(s.peek(comb), 11);
}

#[test]
fn sync_read_feeding_state_is_staged() {
    // rdata feeds a register and a write port of another memory: both must see the value from
    // before this edge's sync read.
    let mut s = sim(Design::build("stage", |m| {
        let a = m.input("a", 2);
        let rom = m.memory("rom", 8, 4).init(&[10, 20, 30, 40]);
        let rd = rom.read_sync(a, None);
        let r = m.reg("r", 8);
        r.next(rd);
        m.output("rd", rd);
        m.output("r", r.q());
    }));
    let a = s.input("a").unwrap();
    let (rd, r) = (s.output_at(0), s.output_at(1));
    for i in 0..4 {
        s.poke(a, i);
        let before = s.peek(rd);
        s.step();
        assert_eq!(s.peek(r), before);
        assert_eq!(s.peek(rd), (i + 1) * 10);
    }
}

#[test]
fn peek_after_step_reflects_new_state_with_current_inputs() {
    let mut s = sim(Design::build("acc", |m| {
        let x = m.input("x", 8);
        let acc = m.reg("acc", 8).reset(0);
        acc.next(acc.q() + x);
        m.output("sum", acc.q() + x);
    }));
    let (x, sum) = (s.input("x").unwrap(), s.output("sum").unwrap());
    s.reset(2);
    s.poke(x, 3);
    assert_eq!(s.peek(sum), 3);
    s.step();
    assert_eq!(s.peek(sum), 6);
    s.poke(x, 1);
    assert_eq!(s.peek(sum), 4);
}
