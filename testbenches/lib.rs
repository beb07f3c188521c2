//! Testbench support shared by the integration tests.
