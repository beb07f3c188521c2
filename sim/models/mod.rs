//! Reference models: independent golden models used by testbenches and the command line, and
//! the small image-file formats they exchange with reference tools.
pub mod astc;
pub mod fp32;
pub mod ktx;
pub mod pbru;
pub mod shader;
pub mod texture;
pub mod texture_address;
pub mod tile;
