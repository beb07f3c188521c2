; sample: importance sampling (pbru.md §3.5, §6.3): random select among three cases.
; Ray variables: s0..s2 N, s3..s5 V, s6 roughness, s7 xi1, s8 xi2, s9 weight.
; Result: the ten variables, then a direction (3 words) and its pdf.
PUSH 1.0q
LOAD 9
ABS
PUSH 0.5q
RANDSEL 3
CASE
LOAD 0
LOAD 1
LOAD 2
LOAD 3
LOAD 4
LOAD 5
LOAD 6
LOAD 7
LOAD 8
GGX_DIR         ; dir pdf
ENDCASE
CASE
LOAD 0
LOAD 1
LOAD 2
LOAD 7
LOAD 8
OREN_NAYAR_DIR  ; dir pdf
ENDCASE
CASE
PUSH 0
PUSH 0
PUSH 1.0q
PUSH 1.0q       ; straight up, pdf 1
ENDCASE
RAYSTOP
