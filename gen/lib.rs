//! rendergen's back end: Verilog emitter, co-simulation, external tool flows, command line.
