; alu: local arithmetic only (pbru.md §3.3 "local"), every local opcode once or more.
; Ray variables: s0 a, s1 b, s2 c, s3 d (Q16.16).
; Result: y b c d with y = clamp(min(|d|, lerp(max(x, -x), |d|, 0.25)), -1, 1) + (a < b ? c : d),
; x = (a + b) * c - d.
LOAD 0
LOAD 1
ADD
LOAD 2
MUL
LOAD 3
SUB             ; x
DUP
NEG
MAX             ; |x|
LOAD 3
ABS             ; |x| |d|
SWAP
PICK 1          ; |d| |x| |d|
PUSH 0.25q
LERP            ; |d| l
MIN
PUSH -1.0q
PUSH 1.0q
CLAMP
LOAD 0
LOAD 1
LOAD 2
LOAD 3
SELLT
NOP
ADD
STORE 0
RAYSTOP
