//! The PBRU render engine (`pbru.md` §1–4, 9; D2–D3): processing cores running bytecode rays,
//! the core scheduler with SM-priority arbitration, shared L0 caches, and fixed-function
//! pipelines, each in a pipe behind the generic request and result streams ([`pipes`]).
//!
//! Words: a *slot* is a core's ray slot (ray context); a *pipe* is one pipeline instance.
//!
//! [`ports`] is the contract every part is built against: the configuration, the tag format,
//! and the bundles of the top-level ports and of the core ↔ scheduler interface.

pub mod cache;
pub mod cfg_check;
pub mod core;
pub mod pipes;
pub mod ports;
pub mod scheduler;
pub mod top;
