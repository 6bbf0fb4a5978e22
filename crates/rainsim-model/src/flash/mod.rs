//! Flash devices: physical addresses, operations and timing.

pub mod address;
pub mod ldpc;
pub mod op;
pub mod timing;
