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

/// Signals raised in child processes (a copy of this test binary running one
/// test): `raise` delivers the signal to the calling thread before it
/// returns, so the outcome does not depend on timing.
#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    /// Set in the child: the tests below that raise signals run only there.
    const CHILD: &str = "RAINSIM_INTERRUPT_TEST_CHILD";

    fn in_child(test: &str) -> (std::process::ExitStatus, String) {
        let o = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", &format!("interrupt::tests::{test}"), "--nocapture", "--test-threads", "1"])
            .env(CHILD, "1")
            .output()
            .unwrap();
        (o.status, String::from_utf8_lossy(&o.stderr).into_owned())
    }

    #[test]
    fn signals_are_named() {
        assert_eq!((name(libc::SIGINT), name(libc::SIGTERM), name(libc::SIGHUP)), ("SIGINT", "SIGTERM", "a signal"));
    }

    #[test]
    fn raises_one_signal() {
        if std::env::var_os(CHILD).is_none() {
            return;
        }
        install();
        check("nothing to stop yet");
        assert_eq!(received(), None);
        // SAFETY: raising a signal whose handler is installed.
        unsafe { libc::raise(libc::SIGTERM) };
        assert_eq!(received(), Some(libc::SIGTERM));
        check("the run stopped");
        eprintln!("check returned");
    }

    #[test]
    fn raises_two_signals() {
        if std::env::var_os(CHILD).is_none() {
            return;
        }
        install();
        // SAFETY: as above; the second raise takes the default action.
        unsafe { libc::raise(libc::SIGINT) };
        eprintln!("the first signal was recorded");
        unsafe { libc::raise(libc::SIGINT) };
        eprintln!("the second signal was survived");
    }

    /// The first signal is recorded, and `check` exits with 128 + it, saying so.
    #[test]
    fn check_exits_with_128_plus_the_signal() {
        let (status, err) = in_child("raises_one_signal");
        assert_eq!(status.code(), Some(143), "{err}");
        assert!(err.contains("interrupted by SIGTERM: the run stopped") && !err.contains("nothing to stop"), "{err}");
    }

    /// A second signal ends the process at once, by the signal.
    #[test]
    fn a_second_signal_ends_the_process() {
        let (status, err) = in_child("raises_two_signals");
        assert_eq!(status.signal(), Some(libc::SIGINT), "{err}");
        assert!(err.contains("the first signal was recorded") && !err.contains("survived"), "{err}");
    }
}
