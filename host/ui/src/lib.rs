//! `ldp ui DIR|CONFIG… [--listen ADDR]`: a read-only web page over a lake, served by ldp.
//!
//! * The page is three files embedded in the binary ([`assets`]): no Node, no network, no
//!   files on disk at run time. It talks to a small JSON API under `/api/`.
//! * Home ([`home`]): each table's `ldp status` line (freshness, last run and gates, monitors).
//! * A table ([`table`]): schema and column docs, the snapshot timeline, partitions and files,
//!   runs and quality results over time, upstream and downstream tables ([`lineage`]), and its
//!   rows at any snapshot ([`rows`]).
//! * A SQL box ([`query`]): `ldp mcp`'s `query` tool as it is, so the same guard refuses
//!   anything but one read-only query, with the same row, time and memory limits.
//! * Access ([`auth`]): loopback by default, where only a loopback `Host` is answered (no DNS
//!   rebinding); any other address needs a token, sent as a bearer header or set once as a
//!   cookie by `/?token=…`.

mod assets;
mod auth;
mod error;
mod home;
mod lineage;
mod query;
mod routes;
mod rows;
mod server;
mod settings;
mod state;
mod table;

pub use error::{UiError, UiErrorKind};
pub use ldp_http_serve::{RunningServer, ShutdownHandle};
pub use server::start;
pub use settings::{DEFAULT_LISTEN, TOKEN_ENV, UiSettings};
