//! rendergen's hardware generators.
