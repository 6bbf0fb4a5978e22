//! Hand-built device states for policy tests (unit and integration): real
//! channel schedulers, dies and FTL, with queues filled, arrivals recorded
//! and GCs started by the test. Not part of the simulator proper.

use crate::config::Config;
use crate::device_state::{ArrivalWindow, ChannelState, DieState, GcHistory};
use crate::engine::SimTime;
use crate::flash::address::Layout;
use crate::flash::ldpc::LdpcModel;
use crate::flash::op::{FlashOp, Origin};
use crate::flash::timing::FlashTiming;
use crate::ftl::Ftl;
use crate::policy::{DeviceView, Member};
use crate::raid::stripe::StripeLayout;
use crate::sched::fifo::Fifo;
use crate::sched::ChannelScheduler;

/// Bit mask of positions.
pub fn bits(v: &[u32]) -> u64 {
    v.iter().fold(0, |m, &b| m | 1u64 << b)
}

/// A fresh FTL of `channels` channels of `dies` dies of `planes` planes,
/// 8 blocks of 8 pages each, for `chunks` chunks.
pub fn small_ftl(channels: u32, dies: u32, planes: u32, chunks: u64) -> Ftl {
    let mut g = Config::default().geometry;
    (g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die) = (channels, 1, dies, planes);
    (g.blocks_per_plane, g.pages_per_block) = (8, 8);
    Ftl::new(Layout::new(&g), chunks, 0.1, 0)
}

/// A small device's state: every queue empty, no GC running, fresh FTL.
#[allow(missing_docs)]
pub struct Bench {
    pub cfg: Config,
    pub layout: Layout,
    pub stripes: StripeLayout,
    pub ftl: Ftl,
    pub t: FlashTiming,
    pub channels: Vec<ChannelState>,
    pub dies: Vec<DieState>,
    /// The LDPC model when `cfg.ldpc.enabled` (reads priced by their block's level).
    pub ldpc: Option<LdpcModel>,
    /// The views' current time.
    pub now: SimTime,
    seq: u32,
}

impl Bench {
    /// `channels` channels of `dies` dies, one plane each, default timing,
    /// stripes as wide as the device.
    pub fn new(channels: u32, dies: u32) -> Bench {
        let mut cfg = Config::default();
        let g = &mut cfg.geometry;
        (g.channels, g.chips_per_channel, g.dies_per_chip) = (channels, 1, dies);
        (g.planes_per_die, g.blocks_per_plane, g.pages_per_block) = (1, 8, 8);
        cfg.raid.stripe_width = channels;
        Bench::from_config(cfg)
    }

    /// The state of the device `cfg` describes (its geometry, timing, stripe
    /// width and cost-model history lengths), with a few stripes.
    pub fn from_config(cfg: Config) -> Bench {
        let layout = Layout::new(&cfg.geometry);
        let stripes = StripeLayout::new(layout.channels, cfg.raid.stripe_width, true, 100);
        let d = &cfg.policy.degraded;
        Bench {
            ftl: Ftl::new(layout.clone(), stripes.chunks(), cfg.ftl.gc_threshold, 0),
            t: FlashTiming::new(&cfg.timing, cfg.geometry.page_bytes),
            channels: (0..layout.channels)
                .map(|_| ChannelState {
                    sched: crate::sched::Sched::Fifo(Fifo::new(layout.dies_per_channel, true)),
                    arrivals: ArrivalWindow::new(d.arrival_window as usize),
                    gc_recent: GcHistory::new(d.gc_history as usize),
                })
                .collect(),
            dies: vec![DieState::default(); layout.dies() as usize],
            ldpc: LdpcModel::new(&cfg.ldpc, cfg.timing.read_ns),
            layout,
            stripes,
            cfg,
            now: 0,
            seq: 0,
        }
    }

    /// Where chunk `chunk` would live on die 0 of channel `ch`.
    pub fn member_on(&self, chunk: u32, ch: u32) -> Member {
        Member { chunk, ppn: 0, die: self.layout.first_die(ch), channel: ch }
    }

    /// Channel `ch` saw `n` arrivals, one every `gap` ns, up to now.
    pub fn arrivals(&mut self, ch: u32, n: u64, gap: SimTime) {
        for i in 0..n {
            self.channels[ch as usize].arrivals.record(self.now - (n - i) * gap);
        }
    }

    /// Stripe positions living on the given global dies, read at nominal speed.
    pub fn stripe_on_dies(&self, dies: &[u32]) -> Vec<Option<Member>> {
        dies.iter()
            .enumerate()
            .map(|(j, &die)| {
                let channel = self.layout.channel_of_die(die);
                Some(Member { chunk: j as u32, ppn: j as u32, die, channel })
            })
            .collect()
    }

    fn op(&mut self, origin: Origin) -> FlashOp {
        self.seq += 1;
        FlashOp { chunk: 0, owner: crate::flash::op::tests_owner(origin), enqueued: 0, ppn: 0, seq: self.seq }
    }

    /// Queues `n` host reads for global die `die`.
    pub fn queue_reads(&mut self, die: u32, n: u32) {
        let ch = self.layout.channel_of_die(die);
        let local = die - self.layout.first_die(ch);
        for _ in 0..n {
            let op = self.op(Origin::HostRead);
            self.channels[ch as usize].sched.push_read(local, op);
        }
    }

    /// Queues `n` host programs on channel `ch`.
    pub fn queue_writes(&mut self, ch: u32, n: u32) {
        for _ in 0..n {
            let op = self.op(Origin::HostProgram);
            self.channels[ch as usize].sched.push_write(op);
        }
    }

    /// Die `die` is collecting, after `moves` page moves and `erases` erases in all.
    pub fn gc(&mut self, die: u32, moves: u64, erases: u64) {
        let d = &mut self.dies[die as usize];
        (d.gc_until, d.gc_moves, d.gc_erases) = (Some(1_000_000), moves, erases);
    }

    /// The policies' view of this state at `now`.
    pub fn view(&self) -> DeviceView<'_> {
        DeviceView {
            now: self.now,
            channels: &self.channels,
            dies: &self.dies,
            timing: &self.cfg.timing,
            t: &self.t,
            ftl: &self.ftl,
            ldpc: self.ldpc.as_ref(),
            layout: &self.layout,
            stripes: &self.stripes,
            nr: &[],
        }
    }
}
