//! Integration testbenches, one folder per block of the design.
mod astc_a;
mod astc_cli;
mod astc_dp;
mod astc_model;
mod engines_agree;
mod fp;
mod hierarchy;
mod pbru_core;
mod pbru_sched;
mod pbru_system;
mod shade;
mod shader_core;
mod texture;
mod texture_astc;
mod tile;
mod widgets;
