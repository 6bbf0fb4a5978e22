//! Every bound `Config::validate` enforces, at the bound and one step past
//! it: the value at the bound is accepted and the one past it refused with a
//! message naming the key, so that a bound moved by one (`<` for `<=`) or a
//! rule joined wrongly (`||` for `&&`) fails here.

use crate::tiny;
use rainsim_model::config::{ArrayParams, Config, RaidLevel, MAX_CDF_POINTS, MAX_QUEUE_DEPTH, MAX_TIMING_NS};
use rainsim_model::ftl::params::PageAllocation;
use rainsim_model::policy::ReplicationKind;

/// A valid RAID-5 device of 4 channels, 16 blocks of 8 pages a plane.
fn base() -> Config {
    tiny(4, 1, 1, 16, 8, Some(4))
}

/// The same without RAID (geometry checks only).
fn plain() -> Config {
    tiny(1, 1, 1, 16, 8, None)
}

/// `c` is accepted.
#[track_caller]
fn ok(c: &Config, what: &str) {
    if let Err(e) = c.validate() {
        panic!("{what}: refused: {e}");
    }
}

/// `c` is refused with a message containing `fragment`.
#[track_caller]
fn refused(c: &Config, fragment: &str, what: &str) {
    match c.validate() {
        Ok(()) => panic!("{what}: accepted, want an error with `{fragment}`"),
        Err(e) => assert!(e.to_string().contains(fragment), "{what}: `{e}` lacks `{fragment}`"),
    }
}

/// A key's field of a configuration.
type Field = fn(&mut Config) -> &mut u32;
/// Sets a key of a configuration to a value.
type SetU64 = fn(&mut Config, u64);

/// `c` after `f`.
fn with(mut c: Config, f: impl FnOnce(&mut Config)) -> Config {
    f(&mut c);
    c
}

#[test]
fn the_defaults_and_the_tests_devices_are_valid() {
    ok(&Config::default(), "Config::default()");
    ok(&base(), "base");
    ok(&plain(), "plain");
}

#[test]
fn every_geometry_dimension_must_be_at_least_one() {
    let dims: [(&str, Field); 6] = [
        ("geometry.channels", |c| &mut c.geometry.channels),
        ("geometry.chips_per_channel", |c| &mut c.geometry.chips_per_channel),
        ("geometry.dies_per_chip", |c| &mut c.geometry.dies_per_chip),
        ("geometry.planes_per_die", |c| &mut c.geometry.planes_per_die),
        ("geometry.blocks_per_plane", |c| &mut c.geometry.blocks_per_plane),
        ("geometry.pages_per_block", |c| &mut c.geometry.pages_per_block),
    ];
    for (name, field) in dims {
        refused(&with(plain(), |c| *field(c) = 0), &format!("{name} must be at least 1"), name);
    }
}

#[test]
fn a_page_is_a_whole_number_of_sectors_up_to_one_mib() {
    for bytes in [512, 1024, 4096, 1 << 20] {
        ok(&with(plain(), |c| c.geometry.page_bytes = bytes), &format!("page_bytes {bytes}"));
    }
    for bytes in [0, 511, 513, 4095] {
        refused(&with(plain(), |c| c.geometry.page_bytes = bytes), "whole number of 512-byte sectors", "page");
    }
    refused(&with(plain(), |c| c.geometry.page_bytes = (1 << 20) + 512), "exceeds 1048576 (1 MiB)", "1 MiB + 512");
}

#[test]
fn the_address_fields_bound_each_dimension() {
    // A block of 65,535 pages fits its 16-bit page index; 65,536 does not.
    ok(&with(plain(), |c| c.geometry.pages_per_block = 65_535), "65535 pages a block");
    refused(&with(plain(), |c| c.geometry.pages_per_block = 65_536), "pages_per_block = 65536 exceeds 65535", "ppb");
    // Channels and dies a channel: 65,535 each (blocks of one page keep the
    // device small).
    let small = |channels: u32, chips: u32, dies: u32| {
        with(plain(), |c| {
            (c.geometry.pages_per_block, c.geometry.blocks_per_plane) = (1, 8);
            c.geometry.channels = channels;
            (c.geometry.chips_per_channel, c.geometry.dies_per_chip) = (chips, dies);
        })
    };
    ok(&small(65_535, 1, 1), "65535 channels");
    refused(&small(65_536, 1, 1), "at most 65535 each", "channels");
    ok(&small(1, 65_535, 1), "65535 chips");
    ok(&small(1, 255, 257), "255 × 257 = 65535 dies");
    // The product counts, not the sum: 256 × 257 = 65,792 (a sum 513).
    refused(&small(1, 256, 257), "chips_per_channel × dies_per_chip = 65792", "256 × 257");
}

#[test]
fn the_physical_pages_stay_below_two_to_the_thirty_two_less_one() {
    // 2 planes × 2,147,483,647 blocks = 2^32 − 2 pages, the most supported;
    // 1 × (2^32 − 1) blocks is one too many.
    let at = |planes: u32, blocks: u32| {
        with(plain(), |c| {
            c.geometry.pages_per_block = 1;
            (c.geometry.planes_per_die, c.geometry.blocks_per_plane) = (planes, blocks);
        })
    };
    let most = at(2, i32::MAX as u32);
    assert_eq!(most.physical_pages(), u32::MAX as u64 - 1);
    ok(&most, "2^32 - 2 pages");
    refused(&at(1, u32::MAX), "4294967295 physical pages", "2^32 - 1 pages");
    // The product saturates instead of wrapping.
    let huge = with(plain(), |c| {
        (c.geometry.channels, c.geometry.planes_per_die) = (u32::MAX, u32::MAX);
        (c.geometry.blocks_per_plane, c.geometry.pages_per_block) = (u32::MAX, u32::MAX);
    });
    assert_eq!(huge.physical_pages(), u64::MAX);
}

#[test]
fn spare_space_and_the_gc_threshold() {
    refused(&with(base(), |c| c.geometry.over_provisioning = 1.0), "over_provisioning = 1 must be in [0, 1)", "op 1");
    refused(&with(base(), |c| c.geometry.over_provisioning = -0.1), "must be in [0, 1)", "op < 0");
    refused(&with(base(), |c| c.ftl.gc_threshold = 1.0), "ftl.gc_threshold = 1 must be in [0, 1)", "gc 1");
    refused(&with(base(), |c| c.ftl.gc_threshold = -0.01), "ftl.gc_threshold = -0.01 must be in [0, 1)", "gc < 0");
    ok(&with(base(), |c| c.ftl.gc_threshold = 0.0), "gc 0");
    // Spare space must exceed the threshold: equal is refused.
    let spare = |op: f64, gc: f64| with(base(), |c| (c.geometry.over_provisioning, c.ftl.gc_threshold) = (op, gc));
    refused(&spare(0.15, 0.15), "must exceed ftl.gc_threshold", "op = gc");
    refused(&spare(0.15, 0.2), "must exceed ftl.gc_threshold", "op < gc");
    ok(&spare(0.15, 0.14), "op > gc");
}

#[test]
fn every_plane_keeps_at_least_one_spare_block() {
    // 16 blocks × 1/16 = one spare block: enough; 16 × 0.06 = 0.96 is not,
    // and the message gives both ways out (0.0625 = 1/16; 17 = ⌈1/0.06⌉).
    let op = |op: f64, blocks: u32| {
        with(plain(), |c| {
            (c.geometry.over_provisioning, c.geometry.blocks_per_plane) = (op, blocks);
            c.ftl.gc_threshold = 0.01;
        })
    };
    ok(&op(1.0 / 16.0, 16), "one spare block");
    refused(&op(0.06, 16), "leaves 0.96 spare blocks per plane", "0.96");
    refused(&op(0.06, 16), "raise over_provisioning to at least 0.062 or blocks_per_plane to at least 17", "ways out");
    // A plane of one block has no spare to give: only more blocks help.
    refused(&op(0.5, 1), "raise blocks_per_plane to at least 2", "one block");
}

#[test]
fn raid5_needs_three_channels_and_a_stripe_within_them() {
    refused(&tiny(2, 1, 1, 16, 8, Some(3)), "needs at least 3 channels", "2 channels");
    ok(&tiny(3, 1, 1, 16, 8, Some(3)), "3 channels, width 3");
    refused(&tiny(5, 1, 1, 16, 8, Some(2)), "raid.stripe_width = 2 must be between 3 and geometry.channels = 5", "w2");
    ok(&tiny(5, 1, 1, 16, 8, Some(5)), "width = channels");
    refused(&tiny(5, 1, 1, 16, 8, Some(6)), "raid.stripe_width = 6", "width > channels");
    // Without RAID the width is not read.
    let mut c = tiny(2, 1, 1, 16, 8, None);
    c.raid.stripe_width = 9;
    ok(&c, "raid none");
}

#[test]
fn controller_and_policy_times_are_bounded() {
    for (key, f) in [
        ("policy.degraded.decision_ns", (|c, v| c.policy.degraded.decision_ns = v) as SetU64),
        ("policy.adaptive.decision_ns", |c, v| c.policy.adaptive.decision_ns = v),
    ] {
        ok(&with(base(), |c| f(c, MAX_TIMING_NS)), key);
        refused(&with(base(), |c| f(c, MAX_TIMING_NS + 1)), &format!("{key} = 10000000001 ns exceeds"), key);
    }
    let idle = |v: u64| with(base(), |c| c.policy.replicas.idle_ns = v);
    ok(&idle(rainsim_trace::MAX_TIME_NS), "idle 2^62");
    refused(&idle(rainsim_trace::MAX_TIME_NS + 1), "policy.replicas.idle_ns", "idle 2^62 + 1");
}

#[test]
fn timing_and_size_keys_are_bounded() {
    let mb = |v: u64| with(base(), |c| c.timing.channel_mb_s = v);
    refused(&mb(0), "timing.channel_mb_s = 0 must be between 1 and 1000000", "0 MB/s");
    ok(&mb(1), "1 MB/s");
    ok(&mb(1_000_000), "1 TB/s");
    refused(&mb(1_000_001), "timing.channel_mb_s = 1000001", "over 1 TB/s");
    let times: [(&str, SetU64); 7] = [
        ("timing.read_ns", |c, v| c.timing.read_ns = v),
        ("timing.program_ns", |c, v| c.timing.program_ns = v),
        ("timing.erase_ns", |c, v| c.timing.erase_ns = v),
        ("timing.command_ns", |c, v| c.timing.command_ns = v),
        ("timing.xor_ns", |c, v| c.timing.xor_ns = v),
        ("timing.request_overhead_ns", |c, v| c.timing.request_overhead_ns = v),
        ("timing.stripe_overhead_ns", |c, v| c.timing.stripe_overhead_ns = v),
    ];
    for (key, f) in times {
        ok(&with(base(), |c| f(c, MAX_TIMING_NS)), key);
        refused(&with(base(), |c| f(c, MAX_TIMING_NS + 1)), &format!("{key} = 10000000001 ns exceeds"), key);
    }
    let cdf = |v: u32| with(base(), |c| c.report.cdf_points = v);
    ok(&cdf(MAX_CDF_POINTS), "cdf max");
    refused(&cdf(MAX_CDF_POINTS + 1), "report.cdf_points = 10001 exceeds 10000", "cdf");
    let cores = |v: u32| with(base(), |c| c.controller.cores = v);
    ok(&cores(4096), "4096 cores");
    refused(&cores(4097), "controller.cores = 4097 exceeds 4096", "cores");
    let qd = |v: u32| with(base(), |c| c.host.queue_depth = v);
    assert_eq!(MAX_QUEUE_DEPTH, 1 << 20);
    ok(&qd(1 << 20), "queue depth max");
    refused(&qd((1 << 20) + 1), "host.queue_depth = 1048577 exceeds 1048576", "queue depth");
    refused(&with(base(), |c| c.ftl.pe_cycle_limit = 0), "ftl.pe_cycle_limit must be at least 1", "pe 0");
    ok(&with(base(), |c| c.ftl.pe_cycle_limit = 1), "pe 1");
}

#[test]
fn two_die_bindings_of_programs_are_one_too_many() {
    let both = |raid: Option<u32>, rotating: bool| {
        with(tiny(4, 1, 1, 16, 8, raid), |c| {
            c.ftl.allocation = PageAllocation::StaticChannelFirst;
            c.ftl.rotating_gc = rotating;
        })
    };
    refused(&both(Some(4), true), "both bind RAID-5 programs to dies", "static + rotating");
    ok(&both(Some(4), false), "static alone");
    ok(&both(None, true), "no RAID: rotating GC binds no stripe");
}

#[test]
fn a_device_needs_one_whole_stripe_of_logical_space() {
    // 4 channels × 1 block of 1 page = 4 pages; with 10 % spare, 3.6 → 3
    // usable, under one stripe of 4 (checked before the spare blocks).
    let none = with(tiny(4, 1, 1, 1, 1, Some(4)), |c| c.geometry.over_provisioning = 0.1);
    refused(&none, "the device has no logical capacity: its 4 physical pages", "3 usable pages");
    // Planes of 10 blocks of 1 page, 4 channels: 40 pages, 10 % spare → 36
    // usable, 9 stripes of 4.
    let c = with(tiny(4, 1, 1, 10, 1, Some(4)), |c| (c.geometry.over_provisioning, c.ftl.gc_threshold) = (0.1, 0.05));
    ok(&c, "9 stripes");
    assert_eq!(c.physical_pages(), 40);
    assert_eq!(c.stripe_shape(), (4, true));
    assert_eq!(rainsim_model::config::stripe_count(c.physical_pages(), 0.1, 4), 9);
    assert_eq!(rainsim_model::config::stripe_count(37, 0.0, 4), 9);
    assert_eq!(rainsim_model::config::stripe_count(36, 0.0, 1), 36);
    assert_eq!(rainsim_model::config::stripe_count(36, 0.0, 0), 36, "a width of 0 counts as 1");
    assert_eq!(with(plain(), |c| c.raid.stripe_width = 7).stripe_shape(), (1, false));
}

#[test]
fn replication_rules() {
    let rep = |kind: ReplicationKind, f: fn(&mut Config)| {
        with(base(), |c| {
            c.policy.replication = kind;
            f(c);
        })
    };
    refused(&rep(ReplicationKind::RepRaid, |c| c.fault.channel = Some(1)), "policy.replication with a [fault]", "ch");
    refused(&rep(ReplicationKind::Fusionraid, |c| c.fault.die = Some(1)), "policy.replication with a [fault]", "die");
    ok(&rep(ReplicationKind::None, |c| c.fault.channel = Some(1)), "fault without replication");
    for kind in [ReplicationKind::Fusionraid, ReplicationKind::RepRaid] {
        refused(&rep(kind, |c| c.ftl.rotating_gc = true), "ftl.rotating_gc with policy.replication", "rotating");
        ok(&rep(kind, |_| ()), "replication alone");
        // Without RAID-5 there is no stripe to bind.
        let mut c = rep(kind, |c| c.ftl.rotating_gc = true);
        (c.raid.level, c.geometry.channels) = (RaidLevel::None, 1);
        ok(&c, "rotating without RAID");
    }
    // CR5M keeps copies on the slot's own channel: with rotating GC allowed,
    // and only with two dies a channel or more.
    let cr5m = |chips: u32, dies: u32| {
        with(base(), |c| {
            c.policy.replication = ReplicationKind::Cr5m;
            (c.geometry.chips_per_channel, c.geometry.dies_per_chip) = (chips, dies);
        })
    };
    refused(&cr5m(1, 1), "at least 2 dies a channel, and geometry.chips_per_channel × dies_per_chip = 1", "1 die");
    ok(&cr5m(1, 2), "2 dies");
    ok(&cr5m(2, 1), "2 chips");
    ok(&with(cr5m(1, 2), |c| c.ftl.rotating_gc = true), "cr5m with rotating GC");
}

#[test]
fn preconditioning_fractions() {
    let pre = |valid: f64, invalid: f64| {
        with(base(), |c| {
            (c.precondition.valid, c.precondition.invalid) = (valid, invalid);
            c.precondition.free_margin = Some(0);
        })
    };
    refused(&pre(-0.1, 0.0), "precondition valid = -0.1 and invalid = 0 must be ≥ 0", "valid < 0");
    refused(&pre(0.0, -0.1), "must be ≥ 0 with valid + invalid ≤ 1", "invalid < 0");
    refused(&pre(0.5, 0.6), "valid + invalid ≤ 1", "sum > 1");
    ok(&pre(0.5, 0.5), "sum 1");
    refused(&pre(f64::NAN, 0.0), "must be ≥ 0", "NaN");
    // Valid pages at most the host-visible share: 1 − 0.15.
    ok(&pre(0.85, 0.0), "valid = usable");
    refused(&pre(0.86, 0.0), "precondition.valid = 0.86 exceeds the host-visible fraction", "valid > usable");
    // Nothing preconditioned on the smallest plane the spare-block check
    // allows (2 blocks, half spare): both blocks free, enough.
    let least = with(tiny(4, 1, 1, 2, 16, Some(4)), |c| c.geometry.over_provisioning = 0.5);
    assert_eq!(
        (least.precondition.valid, least.precondition.invalid, least.precondition.free_margin),
        (0.0, 0.0, None)
    );
    ok(&least, "2 free blocks");
    refused(&with(least, |c| c.precondition.invalid = 0.01), "leaves 2.0 free blocks per plane", "1.98 free");
}

#[test]
fn the_warm_up_and_the_slowest_program_are_bounded() {
    let w = |x: f64| with(base(), |c| c.warmup.device_writes = x);
    ok(&w(0.0), "off");
    ok(&w(1000.0), "1000");
    refused(&w(1000.5), "warmup.device_writes = 1000.5 must be between 0 (off) and 1000", "1000.5");
    refused(&w(-1.0), "warmup.device_writes = -1", "-1");
    refused(&w(f64::INFINITY), "warmup.device_writes = inf", "inf");
    // The slowest program: program_ns × base_dvp / dvp_min, at most 10 s.
    let pv = |enabled: bool, program_ns: u64| {
        with(base(), |c| {
            c.process_variation.enabled = enabled;
            (c.process_variation.base_dvp, c.process_variation.dvp_min) = (0.5, 0.25);
            c.timing.program_ns = program_ns;
        })
    };
    ok(&pv(true, MAX_TIMING_NS / 2), "slowest 10 s");
    refused(&pv(true, MAX_TIMING_NS / 2 + 1), "makes the slowest program", "slowest 10 s + 2 ns");
    ok(&pv(false, MAX_TIMING_NS / 2 + 1), "off: programs take program_ns");
}

#[test]
fn a_member_fault_names_a_member_of_an_array() {
    refused(&with(base(), |c| c.fault.device = Some(0)), "fault.device = 0 names a member of an [array]", "no array");
    let arr = |f: fn(&mut Config)| {
        with(base(), |c| {
            c.array = Some(ArrayParams { devices: 3, ..ArrayParams::default() });
            f(c);
        })
    };
    ok(&arr(|_| ()), "an array, no fault");
    // A member named with nothing failing: the [fault] section's own check.
    refused(&arr(|c| c.fault.device = Some(1)), "fault.device set but nothing fails", "device alone");
    refused(&arr(|c| c.fault.channel = Some(1)), "give fault.device = 0..2", "no device");
    refused(&arr(|c| (c.fault.channel, c.fault.device) = (Some(1), Some(3))), "fault.device = 3 but", "3 of 3");
    ok(&arr(|c| (c.fault.channel, c.fault.device) = (Some(1), Some(2))), "member 2");
    refused(
        &arr(|c| (c.fault.channel, c.fault.device, c.fault.second_channel) = (Some(1), Some(2), Some(3))),
        "fault.second_channel on member 2 is not modelled",
        "second channel",
    );
    let failing = |c: &mut Config| {
        (c.fault.channel, c.fault.device) = (Some(1), Some(2));
        c.array.as_mut().unwrap().fail_device = Some(2);
    };
    refused(&arr(failing), "fault.device = 2 is array.fail_device", "the failing member");
    let other = |c: &mut Config| {
        (c.fault.channel, c.fault.device) = (Some(1), Some(2));
        c.array.as_mut().unwrap().fail_device = Some(0);
    };
    ok(&arr(other), "another member fails whole");
}

#[test]
fn configs_read_from_toml_keep_what_they_say_and_leave_run_out_at_its_default() {
    let c = Config::from_toml("seed = 7\n[geometry]\nchannels = 5\n").unwrap();
    assert_eq!((c.seed, c.geometry.channels), (7, 5));
    assert!(Config::from_toml("sede = 7\n").is_err(), "unknown keys are errors");
    let json = |c: &Config| serde_json::to_value(c).unwrap();
    assert!(json(&Config::default()).get("run").is_none(), "[run] at its default is left out");
    let mut c = Config::default();
    c.run.ignore_memory_budget = true;
    assert_eq!(json(&c)["run"]["ignore_memory_budget"], true);
}
