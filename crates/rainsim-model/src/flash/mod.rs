//! Flash devices: physical addresses, operations and timing.

pub mod address;
pub mod op;
pub mod timing;
