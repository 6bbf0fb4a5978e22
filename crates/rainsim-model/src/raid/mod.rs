//! RAID inside one SSD: stripe layout, the stripe write path (full-stripe
//! writes, RMW, RCW and degraded updates, with pre-reads) and degraded reads.

pub mod degraded_read;
pub mod params;
pub mod rmw_rcw;
pub mod stripe;
pub mod update;
