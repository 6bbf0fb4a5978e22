//! Flash devices: physical addresses, operations, timing, LDPC read retry,
//! and the interface (dies and buses) that executes operations.

pub mod address;
pub mod geometry;
pub mod interface;
pub mod ldpc;
pub mod ldpc_params;
pub mod op;
pub mod process_variation;
pub mod timing;
