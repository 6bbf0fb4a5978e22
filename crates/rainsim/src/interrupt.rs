//! SIGINT and SIGTERM stop a run cleanly: the handler only records the
//! signal; the run's progress callback and the commands between their steps
//! check it, say so on stderr and exit with 128 + the signal number (130 for
//! SIGINT, 143 for SIGTERM). Every file rainsim writes is written to a
//! temporary file and renamed, so stopping never leaves a partial report.
//! A second signal ends the process at once (default action).

use std::sync::atomic::{AtomicI32, Ordering};

static SIGNAL: AtomicI32 = AtomicI32::new(0);

#[cfg(unix)]
extern "C" fn on_signal(sig: libc::c_int) {
    // Only async-signal-safe work here: an atomic swap, and on a second
    // signal the default action re-raised.
    if SIGNAL.swap(sig, Ordering::SeqCst) != 0 {
        // SAFETY: signal and raise are async-signal-safe; SIG_DFL is valid.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            libc::raise(sig);
        }
    }
}

/// Installs the handlers (call before any thread starts).
pub fn install() {
    #[cfg(unix)]
    // SAFETY: the handler only touches an atomic and async-signal-safe calls.
    unsafe {
        let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::signal(libc::SIGINT, handler);
        libc::signal(libc::SIGTERM, handler);
    }
}

/// The signal received, if any.
pub fn received() -> Option<i32> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

fn name(sig: i32) -> &'static str {
    #[cfg(unix)]
    {
        if sig == libc::SIGINT {
            return "SIGINT";
        }
        if sig == libc::SIGTERM {
            return "SIGTERM";
        }
    }
    let _ = sig;
    "a signal"
}

/// Exits (128 + signal) with a message when a signal has arrived; `what`
/// says what was stopped and what was (not) written.
pub fn check(what: &str) {
    if let Some(sig) = received() {
        eprintln!("interrupted by {}: {what}", name(sig));
        std::process::exit(128 + sig);
    }
}
