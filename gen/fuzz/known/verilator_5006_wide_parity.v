// A crash of Verilator 5.006 at -O3: "%Error: Internal Error: ../V3EmitCFunc.h:1031: Reduction
// over single bit value should have been folded" (fuzz seed 0xF022, design 1118, minimised by
// hand from the reducer's output; see README.md). 64 bits instead of 65, or no `~`, builds.
module t(input wire b, output wire o);
  assign o = ^(~{64'h0, b});
endmodule
