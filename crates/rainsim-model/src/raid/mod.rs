//! RAID inside one SSD: stripe layout and the stripe write path (full-stripe
//! writes, RMW and RCW with pre-reads).

pub mod stripe;
pub mod update;
