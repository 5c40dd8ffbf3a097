//! How results are printed: the Python tool's common table format ([`table`]) and JSON, both
//! from Arrow cells read one way ([`cell`]).

pub mod cell;
pub mod table;
