//! rendergen-hdl
