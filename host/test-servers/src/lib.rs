//! Real servers the ldp tests start, on loopback ports, stopped when the test process ends.
//! Each fails (never skips) with the command that installs what is missing.
//!
//! * [`postgres`]: a throwaway PostgreSQL server, one per test binary, a database per test.
//! * [`rustberg`]: a third-party Iceberg REST catalog server (rustberg, from crates.io), one per
//!   test.

pub mod postgres;
pub mod rustberg;
