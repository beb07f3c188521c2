//! Transaction-level agents that drive a simulated `pbru` top through its ports.
