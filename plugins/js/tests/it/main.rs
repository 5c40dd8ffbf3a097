//! The JavaScript transform, natively: the contract of the README, example by example.

mod common;
mod contract;
mod errors;
mod limits;
mod perf;
mod values;
