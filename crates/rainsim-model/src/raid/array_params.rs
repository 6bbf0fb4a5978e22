//! `[array]`: S devices under an array-level RAID-5 (DESIGN.md §5; the
//! array itself is the `array` module). Every device is the one the rest of the
//! configuration describes.

use serde::{Deserialize, Serialize};

/// Array write allocation: which device (and, inside it, which channel) a new
/// data chunk goes to.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Allocation {
    /// Plain RAID-5: a chunk lives at its layout home, updated in place.
    Static,
    /// Round robin over the devices (and over the channels inside one).
    Rr,
    /// Weighted equal windows (baselines.md §5, next-wave-spec.md §3.b).
    Egs,
    /// Delay- and life-aware (the DLS paper, Eq. 1–12).
    Dls,
}

impl Allocation {
    /// The name used in configurations and reports.
    pub fn name(self) -> &'static str {
        match self {
            Allocation::Static => "static",
            Allocation::Rr => "rr",
            Allocation::Egs => "egs",
            Allocation::Dls => "dls",
        }
    }

    /// Whether every stripe keeps its chunks on distinct devices, so that one
    /// failed device loses at most one chunk of any stripe. Only the static
    /// layout does: free placement lets two chunks of a stripe share a device.
    pub fn single_failure_tolerant(self) -> bool {
        self == Allocation::Static
    }
}

/// Which page rows a rebuild writes onto the replacement.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RebuildScope {
    /// Every row, written or not, as md's recovery does.
    All,
    /// Only rows that hold data on a surviving device (as ZFS resilvers only
    /// allocated blocks): a row never written is left unwritten on the
    /// replacement, as a trimmed one.
    Written,
}

/// DLS: which batches a channel's delay (Eq. 8) sums. The paper's Eq. 8
/// sums "the N batches" of a channel without saying which
/// (next-wave-spec.md §3.f item 4).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum DelayScope {
    /// The batches issued and not yet done: the channel's queue now.
    #[default]
    Outstanding,
    /// Every batch issued to the channel since the start of the run.
    Cumulative,
    /// The batches issued in the last `array.delay_window_ns`.
    Window,
}

impl DelayScope {
    /// The name used in configurations and reports.
    pub fn name(self) -> &'static str {
        match self {
            DelayScope::Outstanding => "outstanding",
            DelayScope::Cumulative => "cumulative",
            DelayScope::Window => "window",
        }
    }
}

/// `array.delay_window_ns` unless set: 10 ms, some fifty 200 µs programs
/// queued on one die (a choice: the paper gives no window).
pub const DEFAULT_DELAY_WINDOW_NS: u64 = 10_000_000;

/// How requests enter the array.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Replay {
    /// Each request arrives at its trace time.
    Open,
    /// Every request is available at time 0; `queue_depth` are in flight at
    /// once, the next one issued when one completes (latency counts from issue).
    Closed,
}

/// `[array]` keys.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ArrayParams {
    /// Devices S in the array (3 to 64: a RAID-5 stripe of S − 1 data chunks and parity).
    pub devices: u32,
    /// Chunk size, KiB: a multiple of the device page (the paper: one page). Under static placement the array's RAID-5 still works page by page (md's stripe cache); under free placement a chunk is written whole.
    pub chunk_kib: u32,
    /// `static`, `rr`, `egs` or `dls`.
    pub allocation: Allocation,
    /// Fraction of every device's chunk slots kept free for chunks that move
    /// (free placement only; the static layout uses every slot).
    pub spare: f64,
    /// `open` (trace times) or `closed` (queue_depth requests in flight).
    pub replay: Replay,
    /// Requests in flight in closed-loop replay.
    pub queue_depth: u32,
    /// EGS: weight of a write against a read (0: t_flash_w / t_flash_r of Eq. 6–7).
    pub egs_write_weight: f64,
    /// EGS: a device takes writes while its bytes written ≤ mean × (1 + θ).
    pub egs_theta: f64,
    /// DLS: page transfers batched into one flash operation, N of Eq. 1.
    pub dls_batch: u32,
    /// DLS: which batches a channel's delay sums (Eq. 8): `outstanding`
    /// (default), `cumulative` or `window`. Read by `dls` only.
    #[serde(skip_serializing_if = "is_outstanding")]
    pub delay_scope: DelayScope,
    /// DLS under `delay_scope = "window"`: the window, ns of simulated time
    /// (absent: [`DEFAULT_DELAY_WINDOW_NS`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delay_window_ns: Option<u64>,
    /// Whether every stripe has a parity chunk (RAID-5, default). `false`:
    /// stripes of S data chunks and no parity (RAID-0 under `static`), to
    /// study the allocations without parity updates; no device may fail.
    #[serde(skip_serializing_if = "is_true")]
    pub parity: bool,
    /// A device that fails (fail-stop) at `fail_at_ns`: its chunks are lost,
    /// reads of them rebuilt from their stripes, writes to them kept in
    /// parity only, until a replacement (`replace_after_ns`) is rebuilt.
    /// `static` placement only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fail_device: Option<u32>,
    /// When `fail_device` fails, ns of simulated time (absent: 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fail_at_ns: Option<u64>,
    /// A fresh device replaces the failed one this long after the failure
    /// (once what was in flight at the failed one has completed), and every
    /// unit it held is rebuilt onto it, as md's recovery onto a spare
    /// (absent: no replacement).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replace_after_ns: Option<u64>,
    /// Page rows the rebuild works on at once: its rate (1 to 4096; absent:
    /// [`DEFAULT_REBUILD_STRIPES`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rebuild_stripes: Option<u32>,
    /// `all` (md) or `written` rows (absent: all).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rebuild: Option<RebuildScope>,
}

fn is_outstanding(s: &DelayScope) -> bool {
    *s == DelayScope::Outstanding
}

fn is_true(b: &bool) -> bool {
    *b
}

/// The largest chunk: a device request's size is a `u32` of bytes.
pub const MAX_CHUNK_BYTES: u64 = 1 << 31;

/// Rows a rebuild works on at once unless `array.rebuild_stripes` says.
pub const DEFAULT_REBUILD_STRIPES: u32 = 16;

impl Default for ArrayParams {
    fn default() -> Self {
        ArrayParams {
            devices: 4,
            chunk_kib: 0,
            allocation: Allocation::Static,
            spare: 0.1,
            replay: Replay::Open,
            queue_depth: 32,
            egs_write_weight: 0.0,
            egs_theta: 0.1,
            dls_batch: 1,
            delay_scope: DelayScope::Outstanding,
            delay_window_ns: None,
            parity: true,
            fail_device: None,
            fail_at_ns: None,
            replace_after_ns: None,
            rebuild_stripes: None,
            rebuild: None,
        }
    }
}

impl ArrayParams {
    /// Checks the keys against the device's page size.
    pub fn validate(&self, page_bytes: u32) -> Result<(), String> {
        if self.parity && !(3..=64).contains(&self.devices) {
            return Err(format!(
                "array.devices = {} must be between 3 and 64 (a RAID-5 stripe needs two data chunks and parity)",
                self.devices
            ));
        }
        if !self.parity && !(2..=64).contains(&self.devices) {
            return Err(format!(
                "array.devices = {} must be between 2 and 64 (array.parity = false: a stripe of two data chunks \
                 at least)",
                self.devices
            ));
        }
        let chunk = self.chunk_bytes(page_bytes);
        if !chunk.is_multiple_of(page_bytes as u64) || chunk == 0 {
            return Err(format!(
                "array.chunk_kib = {} must be a multiple of the device page ({} bytes); 0 means one page",
                self.chunk_kib, page_bytes
            ));
        }
        if chunk > MAX_CHUNK_BYTES {
            return Err(format!(
                "array.chunk_kib = {} is at most {} (2 GiB): a chunk's bytes are one device request's",
                self.chunk_kib,
                MAX_CHUNK_BYTES / 1024
            ));
        }
        if !(self.spare.is_finite() && (0.0..0.9).contains(&self.spare)) {
            return Err(format!("array.spare = {} must be in [0, 0.9)", self.spare));
        }
        if self.allocation != Allocation::Static && self.spare == 0.0 {
            return Err(format!(
                "array.allocation = \"{}\" moves chunks and needs free slots: set array.spare above 0 (e.g. 0.1)",
                self.allocation.name()
            ));
        }
        // Checked under open replay too (where it is unused): a bad value is a mistake either way.
        if !(1..=1 << 20).contains(&self.queue_depth) {
            return Err(format!("array.queue_depth = {} must be between 1 and 2^20", self.queue_depth));
        }
        if !(self.egs_write_weight.is_finite() && self.egs_write_weight >= 0.0) {
            return Err(format!("array.egs_write_weight = {} must be ≥ 0 (0: Eq. 6 / Eq. 7)", self.egs_write_weight));
        }
        if !(self.egs_theta.is_finite() && self.egs_theta >= 0.0) {
            return Err(format!("array.egs_theta = {} must be ≥ 0", self.egs_theta));
        }
        if !(1..=64).contains(&self.dls_batch) {
            return Err(format!("array.dls_batch = {} must be between 1 and 64", self.dls_batch));
        }
        match (self.delay_scope, self.delay_window_ns) {
            (DelayScope::Window, Some(w)) if !(1..=1 << 62).contains(&w) => {
                return Err(format!("array.delay_window_ns = {w} must be between 1 and 2^62"));
            }
            (DelayScope::Outstanding | DelayScope::Cumulative, Some(_)) => {
                return Err(format!(
                    "array.delay_window_ns is set but array.delay_scope = \"{}\": the window is read under \
                     delay_scope = \"window\" only",
                    self.delay_scope.name()
                ));
            }
            _ => {}
        }
        if let Some(d) = self.fail_device {
            if !self.parity {
                return Err("array.fail_device: array.parity = false keeps no parity, so a failed device's data \
                            cannot be rebuilt; a failure needs array.parity = true"
                    .into());
            }
            if d >= self.devices {
                return Err(format!(
                    "array.fail_device = {d}: the array has devices 0 to {} (array.devices = {})",
                    self.devices - 1,
                    self.devices
                ));
            }
            if !self.allocation.single_failure_tolerant() {
                return Err(format!(
                    "array.fail_device: array.allocation = \"{}\" places data chunks freely, so two chunks of a \
                     stripe can share a device and one device failure can lose data; only \"static\" survives one",
                    self.allocation.name()
                ));
            }
            if let Some(t) = self.fail_at_ns.filter(|&t| t > 1 << 62) {
                return Err(format!("array.fail_at_ns = {t} is beyond the 2^62 ns (146 years) the simulator supports"));
            }
        } else {
            let set =
                [("fail_at_ns", self.fail_at_ns.is_some()), ("replace_after_ns", self.replace_after_ns.is_some())];
            if let Some((k, _)) = set.iter().find(|x| x.1) {
                return Err(format!("array.{k} is set but array.fail_device is not: name the device that fails"));
            }
        }
        if let Some(t) = self.replace_after_ns.filter(|&t| t > 1 << 62) {
            return Err(format!(
                "array.replace_after_ns = {t} is beyond the 2^62 ns (146 years) the simulator supports"
            ));
        }
        if self.rebuild.is_some() && self.replace_after_ns.is_none() {
            return Err("array.rebuild is set but array.replace_after_ns is not: without a replacement nothing is \
                        rebuilt"
                .into());
        }
        match self.rebuild_stripes {
            Some(_) if self.replace_after_ns.is_none() => {
                return Err("array.rebuild_stripes is set but array.replace_after_ns is not: without a replacement \
                            nothing is rebuilt"
                    .into())
            }
            Some(n) if !(1..=4096).contains(&n) => {
                return Err(format!("array.rebuild_stripes = {n} must be between 1 and 4096"));
            }
            _ => {}
        }
        Ok(())
    }

    /// Whether one failed device loses no data: parity kept, and every
    /// stripe on distinct devices (the static layout only).
    pub fn single_failure_tolerant(&self) -> bool {
        self.parity && self.allocation.single_failure_tolerant()
    }

    /// The window of `delay_scope = "window"`, ns.
    pub fn delay_window_ns(&self) -> u64 {
        self.delay_window_ns.unwrap_or(DEFAULT_DELAY_WINDOW_NS)
    }

    /// Data chunks of a stripe: S − 1 with parity, S without.
    pub fn data_per_stripe(&self) -> u32 {
        self.devices - self.parity as u32
    }

    /// Chunk size in bytes (0 KiB: one page).
    pub fn chunk_bytes(&self, page_bytes: u32) -> u64 {
        if self.chunk_kib == 0 {
            page_bytes as u64
        } else {
            self.chunk_kib as u64 * 1024
        }
    }

    /// Size of the array RAID layer's unit, bytes: one page under `static`
    /// placement (each page row of a stripe's chunks is its own RAID-5 stripe,
    /// as md's stripe cache works), the whole chunk under free placement
    /// (a chunk moves whole, so it is written whole).
    pub fn unit_bytes(&self, page_bytes: u32) -> u64 {
        if self.allocation == Allocation::Static {
            page_bytes as u64
        } else {
            self.chunk_bytes(page_bytes)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A change to the defaults and the start of the error it must give.
    type Bad<'a> = (&'a dyn Fn(&mut ArrayParams), &'a str);

    /// Every key is checked at its bounds against a 4 KiB page: the value at
    /// the bound passes, the one beyond it is refused naming the key.
    #[test]
    fn every_key_is_checked_at_its_bounds() {
        let check = |f: &dyn Fn(&mut ArrayParams)| {
            let mut p = ArrayParams { replay: Replay::Closed, ..ArrayParams::default() };
            f(&mut p);
            p.validate(4096)
        };
        let ok: [&dyn Fn(&mut ArrayParams); 12] = [
            &|p| p.devices = 3,
            &|p| p.devices = 64,
            &|p| p.chunk_kib = 8,
            &|p| p.spare = 0.0,
            &|p| (p.allocation, p.spare) = (Allocation::Dls, 0.89),
            &|p| p.queue_depth = 1,
            &|p| p.queue_depth = 1 << 20,
            &|p| (p.queue_depth, p.replay) = (1, Replay::Open),
            &|p| (p.egs_write_weight, p.egs_theta) = (0.0, 0.0),
            &|p| p.dls_batch = 1,
            &|p| p.dls_batch = 64,
            &|p| p.chunk_kib = 0,
        ];
        for (i, f) in ok.iter().enumerate() {
            assert_eq!(check(f), Ok(()), "case {i}");
        }
        let bad: [Bad; 14] = [
            (&|p| p.devices = 2, "array.devices = 2 "),
            (&|p| p.devices = 65, "array.devices = 65 "),
            (&|p| p.chunk_kib = 6, "array.chunk_kib = 6 "),
            (&|p| p.chunk_kib = 2, "array.chunk_kib = 2 "),
            (&|p| p.spare = -0.1, "array.spare = -0.1 "),
            (&|p| p.spare = 0.9, "array.spare = 0.9 "),
            (&|p| p.spare = f64::NAN, "array.spare = NaN "),
            (&|p| (p.allocation, p.spare) = (Allocation::Rr, 0.0), "array.allocation = \"rr\""),
            (&|p| p.queue_depth = 0, "array.queue_depth = 0 "),
            (&|p| p.queue_depth = (1 << 20) + 1, "array.queue_depth = 1048577 "),
            (&|p| (p.queue_depth, p.replay) = (0, Replay::Open), "array.queue_depth = 0 "),
            (&|p| p.egs_write_weight = -1.0, "array.egs_write_weight = -1 "),
            (&|p| p.egs_theta = f64::INFINITY, "array.egs_theta = inf "),
            (&|p| p.dls_batch = 65, "array.dls_batch = 65 "),
        ];
        for (f, key) in bad {
            let e = check(f).unwrap_err();
            assert!(e.starts_with(key), "{e}");
        }
        assert_eq!(check(&|p| p.dls_batch = 0).unwrap_err(), "array.dls_batch = 0 must be between 1 and 64");
    }

    /// The delay scope's window, parity and their bounds: each refusal names
    /// the key and why; parity off allows two devices and no failure.
    #[test]
    fn delay_scope_and_parity_keys_are_checked() {
        let check = |f: &dyn Fn(&mut ArrayParams)| {
            let mut p = ArrayParams { allocation: Allocation::Dls, ..ArrayParams::default() };
            f(&mut p);
            p.validate(4096)
        };
        let ok: [&dyn Fn(&mut ArrayParams); 5] = [
            &|p| p.delay_scope = DelayScope::Cumulative,
            &|p| p.delay_scope = DelayScope::Window,
            &|p| (p.delay_scope, p.delay_window_ns) = (DelayScope::Window, Some(1)),
            &|p| (p.delay_scope, p.delay_window_ns) = (DelayScope::Window, Some(1 << 62)),
            &|p| (p.parity, p.devices) = (false, 2),
        ];
        for (i, f) in ok.iter().enumerate() {
            assert_eq!(check(f), Ok(()), "case {i}");
        }
        let bad: [Bad; 6] = [
            (&|p| (p.delay_scope, p.delay_window_ns) = (DelayScope::Window, Some(0)), "array.delay_window_ns = 0 "),
            (
                &|p| (p.delay_scope, p.delay_window_ns) = (DelayScope::Window, Some((1 << 62) + 1)),
                "array.delay_window_ns = 4611686018427387905 ",
            ),
            (&|p| p.delay_window_ns = Some(5), "array.delay_window_ns is set but array.delay_scope = \"outstanding\""),
            (&|p| p.devices = 2, "array.devices = 2 must be between 3 and 64"),
            (&|p| (p.parity, p.devices) = (false, 1), "array.devices = 1 must be between 2 and 64"),
            (
                &|p| (p.parity, p.allocation, p.fail_device) = (false, Allocation::Static, Some(0)),
                "array.fail_device: array.parity = false",
            ),
        ];
        for (f, key) in bad {
            let e = check(f).unwrap_err();
            assert!(e.starts_with(key), "{e}");
        }
        let d = ArrayParams::default();
        assert_eq!((d.delay_window_ns(), d.data_per_stripe()), (DEFAULT_DELAY_WINDOW_NS, 3));
        assert_eq!(ArrayParams { parity: false, ..d }.data_per_stripe(), 4);
    }

    /// The new keys stay out of a configuration's echo at their defaults
    /// (reports of existing configurations do not change), and read back.
    #[test]
    fn new_keys_echo_only_when_set() {
        let d = serde_json::to_value(ArrayParams::default()).unwrap();
        for k in ["delay_scope", "delay_window_ns", "parity"] {
            assert!(d.get(k).is_none(), "{k} echoed at its default");
        }
        let p = ArrayParams {
            delay_scope: DelayScope::Window,
            delay_window_ns: Some(7),
            parity: false,
            ..ArrayParams::default()
        };
        let v = serde_json::to_value(&p).unwrap();
        assert_eq!(
            (&v["delay_scope"], &v["delay_window_ns"], &v["parity"]),
            (&"window".into(), &7.into(), &false.into())
        );
        assert_eq!(serde_json::from_value::<ArrayParams>(v).unwrap(), p);
    }

    /// A chunk of 0 KiB is one page; otherwise its KiB.
    #[test]
    fn chunk_bytes_default_to_one_page() {
        let p = |kib| ArrayParams { chunk_kib: kib, ..ArrayParams::default() };
        assert_eq!((p(0).chunk_bytes(2048), p(16).chunk_bytes(2048)), (2048, 16_384));
    }

    /// Only the static layout keeps every stripe on distinct devices; each
    /// allocation has its configuration name.
    #[test]
    fn only_static_placement_is_single_failure_tolerant() {
        let all = [Allocation::Static, Allocation::Rr, Allocation::Egs, Allocation::Dls];
        let tolerant: Vec<bool> = all.iter().map(|a| a.single_failure_tolerant()).collect();
        assert_eq!(tolerant, [true, false, false, false]);
        for a in all {
            assert_eq!(serde_json::to_value(a).unwrap(), a.name());
        }
        for s in [DelayScope::Outstanding, DelayScope::Cumulative, DelayScope::Window] {
            assert_eq!(serde_json::to_value(s).unwrap(), s.name());
        }
        // Without parity even the static layout loses data with a device.
        let params = |allocation, parity| ArrayParams { allocation, parity, ..ArrayParams::default() };
        assert!(params(Allocation::Static, true).single_failure_tolerant());
        assert!(!params(Allocation::Static, false).single_failure_tolerant());
        assert!(!params(Allocation::Dls, true).single_failure_tolerant());
    }
}
