//! Integration testbenches.
