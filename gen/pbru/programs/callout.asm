; callout: two SM call-outs (pbru.md §3.7; convention in sim/models/pbru/callout.rs):
; RAYSTOP, then the marker byte 0xFC and the SM function number.
; Ray variables: s0 a, s1 b, s2 c. Result: a b c, 2 * max((a + b)^2, c).
LOAD 0
LOAD 1
ADD
RAYSTOP
.byte 0xFC, 0   ; SM function 0: x -> x * x
LOAD 2
RAYSTOP
.byte 0xFC, 1   ; SM function 1: x y -> 2 * max(x, y)
RAYSTOP
