//! The mapping tables on 2 MiB pages, where the OS gives them on request
//! (`run.huge_pages`).
//!
//! A large device's two mapping tables are tens to hundreds of megabytes,
//! read and written at random places: with 4 KiB pages nearly every such
//! access also misses the TLB, and the page walk is what a prefetch cannot
//! hide (under virtualisation it is a walk of two page tables). Linux backs
//! a range with huge pages when asked (`madvise(MADV_HUGEPAGE)`, which is
//! what the common `transparent_hugepage=madvise` setting allows). A hint:
//! results never depend on it.

/// Huge page size of x86-64 and aarch64 Linux (4 KiB base pages).
#[cfg(target_os = "linux")]
const HUGE: usize = 2 << 20;

/// Asks the OS to back `v` with huge pages: a fresh allocation that nothing
/// has touched yet, as `vec![0; n]` leaves it. Tables under 4 MiB are left
/// alone.
#[cfg(target_os = "linux")]
pub(crate) fn advise<T>(v: &[T]) {
    let bytes = std::mem::size_of_val(v);
    if bytes < 2 * HUGE {
        return;
    }
    // The whole huge pages inside the allocation.
    let start = (v.as_ptr() as usize).next_multiple_of(HUGE);
    let end = (v.as_ptr() as usize + bytes) / HUGE * HUGE;
    if end > start {
        // SAFETY: the range lies inside `v`'s allocation; MADV_HUGEPAGE
        // changes how its pages are backed, never their contents. A refusal
        // (no THP support) leaves the plain pages.
        unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn advise<T>(_: &[T]) {}
