//! Flash devices: physical addresses, operations and timing.

pub mod address;
pub mod geometry;
pub mod ldpc;
pub mod ldpc_params;
pub mod op;
pub mod timing;
