//! Reference models: independent golden models used by testbenches and the command line.
pub mod astc;
pub mod texture_address;
