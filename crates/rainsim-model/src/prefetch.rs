//! A cache hint for the model's large tables.
//!
//! The mapping tables of a large device (4 bytes per page each) and the
//! per-block records are far larger than the CPU's caches, and requests
//! reach them at random places: each such access would stall the run for a
//! memory round trip. Where the model knows an access a few events ahead
//! (the next request's stripes when it is read; the page a program's commit
//! will invalidate when the program starts), it asks for the line then.
//! A prefetch changes nothing but timing: reports are the same without it.

/// Asks the CPU to bring the cache line holding `x` closer (a no-op where
/// stable Rust has no such hint).
#[inline(always)]
pub(crate) fn line<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and reads nothing back; the address is
    // that of a live reference. SSE is part of every x86-64 CPU.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((x as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}
