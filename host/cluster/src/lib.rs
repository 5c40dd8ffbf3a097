//! ldp on a DataFusion Ballista cluster (docs/scale-out.md).
//!
//! * [`ClusterSession`]: `ldp query --cluster df://HOST:PORT`. Each table is resolved on the
//!   client, as for a local query, to the live data files of one snapshot; the query is planned
//!   on the client and, when the plan leaves for the scheduler, each snapshot's scan becomes a
//!   plain DataFusion listing table over the files its manifest bounds leave
//!   ([`ldp_sql::shipped_listing`]), which DataFusion's own plan codec ships with its file list
//!   and schema. The scheduler plans the stages, the executors read the files, and the client
//!   collects the rows.
//! * [`run_scheduler`], [`run_executor`]: `ldp cluster scheduler` and `ldp cluster executor`,
//!   Ballista's scheduler and executor run in this process through their library API.
//! * [`executors`]: `ldp cluster status`, the executors a scheduler knows.
//! * Every process opens the object store of a bucket a plan names from its own environment
//!   ([`EnvObjectStores`]): credentials never travel in a plan.
//!
//! Everything Ballista stays in this crate.

mod client;
mod error;
mod rest;
mod servers;
mod stores;
mod url;

pub use client::{ClusterSession, cluster_engine};
pub use error::{Error, ErrorKind, Result};
pub use rest::{ExecutorInfo, JobInfo, executors, jobs};
pub use servers::{ExecutorSettings, SchedulerSettings, run_executor, run_scheduler};
pub use stores::EnvObjectStores;
pub use url::ClusterUrl;
