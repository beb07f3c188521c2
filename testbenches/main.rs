//! Integration testbenches.
mod astc_model;
mod astc_a;
