//! Integration tests of `ldp-catalog-rest` against a real third-party Iceberg REST catalog,
//! rustberg (see `server`; it must be installed, the tests never skip), and pyiceberg through the
//! same server (`$LDP_PYTHON`).

mod auth;
mod commits;
mod common;
mod config;
mod lossy_proxy;
mod namespaces;
mod pyiceberg;
mod server;
mod tables;
mod token_endpoint;
