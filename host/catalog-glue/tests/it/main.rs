//! Integration tests of ldp-catalog-glue against moto's Glue server (one per test binary, see
//! [`moto`]), and pyiceberg's `GlueCatalog` on the same server (`$LDP_PYTHON`).

mod commits;
mod errors;
mod moto;
mod namespaces;
mod pyiceberg;
mod tables;
