//! Integration testbenches.
mod astc_model;
