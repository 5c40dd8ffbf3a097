//! How results are printed: the Python tool's common table format ([`table`]) and JSON, both
//! from Arrow cells read one way ([`cell`]), and Arrow IPC streams ([`arrow`]).

pub mod arrow;
pub mod cell;
pub mod table;
