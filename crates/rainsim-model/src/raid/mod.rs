//! RAID inside one SSD: stripe layout, the stripe write path (full-stripe
//! writes, RMW, RCW and degraded updates, with pre-reads), degraded reads and
//! stripe locks, as one component (`layer.rs`) that the device drives.

pub mod array_params;
pub mod degraded_read;
pub mod failure;
pub mod fault_params;
pub mod layer;
pub mod params;
pub mod replica;
pub(crate) mod replica_job;
pub(crate) mod replica_order;
pub mod rmw_rcw;
pub mod stripe;
pub mod stripe_lock;
pub mod stripe_map;
pub mod update;
