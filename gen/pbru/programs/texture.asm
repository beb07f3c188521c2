; texture: one ray per pixel fetches its texel and scales it (pbru.md §3.4, §5.4).
; Ray variables: s0 u, s1 v, s2 sqrt_cov, s3 base (block units), s4 dims, s5 format, s6 scale.
; Result: R G B A (each channel times scale).
LOAD 0
LOAD 1
LOAD 2
LOAD 3
LOAD 4
LOAD 5
TEX_A           ; -> block_addr tx ty
TEX_READ        ; the block into the L0 texture cache
LOAD 5
TEX_DP 0        ; -> R G B A (LDR linear, Q16.16)
LOAD 6
MUL
STORE 3         ; A * scale
LOAD 6
MUL
STORE 2         ; B * scale
LOAD 6
MUL
STORE 1         ; G * scale
LOAD 6
MUL
STORE 0         ; R * scale
POP
POP
POP
RAYSTOP
