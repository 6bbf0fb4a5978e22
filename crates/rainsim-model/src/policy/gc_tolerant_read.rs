//! GC-tolerant read (Tiny-Tail Flash, FAST'17; the "GC-tolerate Read"
//! baseline): a read whose die (or channel) is collecting garbage is rebuilt
//! from the rest of its stripe. ttFlash's rotating GC keeps at most one GC per
//! stripe; without it here, a rebuild is only chosen when no partner's die is
//! collecting too (else it would wait just the same).

use super::{DeviceView, GcScope, ReadRouting, ReadTarget, Route};

/// Rebuild reads blocked by GC.
pub struct GcTolerantRead {
    scope: GcScope,
}

impl GcTolerantRead {
    /// With "busy" meaning the target's die or its whole channel.
    pub fn new(scope: GcScope) -> Self {
        GcTolerantRead { scope }
    }

    fn in_gc(&self, view: &DeviceView, die: u32, channel: u32) -> bool {
        match self.scope {
            GcScope::Die => view.dies[die as usize].gc_until.is_some(),
            GcScope::Channel => {
                let first = view.layout.first_die(channel);
                (first..first + view.layout.dies_per_channel).any(|d| view.dies[d as usize].gc_until.is_some())
            }
        }
    }
}

impl ReadRouting for GcTolerantRead {
    fn route(&mut self, view: &DeviceView, read: &ReadTarget) -> Route {
        let t = &read.target;
        if read.partners.is_empty() || !self.in_gc(view, t.die, t.channel) {
            return Route::Normal;
        }
        if read.partners.iter().any(|m| self.in_gc(view, m.die, m.channel)) {
            return Route::Normal;
        }
        Route::GcTolerant
    }
}
