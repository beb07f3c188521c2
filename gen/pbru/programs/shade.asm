; shade: material shading through the shading pipelines (D4; GGX's α is s9 here too).
; Ray variables: s0..s2 N, s3..s5 V, s6..s8 L, s9 roughness.
; Result: the ten variables, then ggx*cel + oren_nayar, and Schlick's F (rgb).
LOAD 0
LOAD 1
LOAD 2
LOAD 3
LOAD 4
LOAD 5
LOAD 6
LOAD 7
LOAD 8
LOAD 9
GGX             ; f
LOAD 0
LOAD 1
LOAD 2
LOAD 6
LOAD 7
LOAD 8
CEL             ; f c
MUL
LOAD 0
LOAD 1
LOAD 2
LOAD 3
LOAD 4
LOAD 5
LOAD 6
LOAD 7
LOAD 8
LOAD 9
OREN_NAYAR
ADD
LOAD 3
LOAD 4
LOAD 5
PUSH 1.0q
PUSH 1.0q
PUSH 1.0q
LOAD 9
SCHLICK         ; F rgb (F0 = V, F90 = 1, cos = roughness)
RAYSTOP
