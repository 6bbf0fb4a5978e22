//! `rainsim trace convert|slice|merge`: rewrite traces for other simulators
//! and tools, cut windows out of long traces, merge traces by time.

use crate::{InputArgs, SelectArgs};
use rainsim::budget::bytes;
use rainsim_trace::edit::{self, Mapping, Window};
use rainsim_trace::parse::parse_scaled;
use rainsim_trace::stats::counted;
use rainsim_trace::write::check_output;
use rainsim_trace::{read, write_atomic, write_requests, AddressMap, Format, Records, Request, Target, TimeUnit};
use std::path::{Path, PathBuf};

type Res = Result<(), Box<dyn std::error::Error>>;

fn input_format(sel: &InputArgs) -> Result<(Option<Format>, Option<TimeUnit>), String> {
    let format =
        sel.format.as_deref().map(|f| f.parse::<Format>().map_err(|e| format!("--format: {e}"))).transpose()?;
    let unit =
        sel.time_unit.as_deref().map(|u| u.parse::<TimeUnit>().map_err(|e| format!("--time-unit: {e}"))).transpose()?;
    Ok((format, unit))
}

fn seconds(flag: &str, v: &str) -> Result<u64, String> {
    parse_scaled(v.as_bytes(), 9)
        .map_err(|why| format!("{flag}: expected seconds (e.g. 3600 or 0.5), found `{v}` ({why})"))
}

fn window(sel: &SelectArgs) -> Result<Window, String> {
    if sel.requests == Some(0) {
        return Err("--requests must be ≥ 1".into());
    }
    Ok(Window {
        start_ns: sel.start.as_deref().map(|s| seconds("--start", s)).transpose()?.unwrap_or(0),
        duration_ns: sel.duration.as_deref().map(|s| seconds("--duration", s)).transpose()?,
        skip: sel.skip.unwrap_or(0),
        count: sel.requests,
    })
}

fn mapping(sel: &InputArgs) -> Result<Option<Mapping>, String> {
    let Some(map) = sel.address_map.as_deref() else {
        return match sel.capacity {
            Some(_) => Err("--capacity needs --address-map wrap|compact".into()),
            None => Ok(None),
        };
    };
    let map = match map {
        "wrap" => AddressMap::Wrap,
        "compact" => AddressMap::Compact,
        m => return Err(format!("--address-map: expected wrap or compact, found `{m}`")),
    };
    let cap = sel.capacity.as_deref().ok_or("--address-map needs --capacity BYTES (e.g. 32GiB)")?;
    Ok(Some(Mapping { map, capacity_bytes: bytes("--capacity", cap)?, page_bytes: sel.page_bytes }))
}

fn target(to: Option<&str>, records: &Records, input: &Path) -> Result<Target, String> {
    match to {
        Some(t) => t.parse::<Target>().map_err(|e| format!("--to: {e}")),
        None => Target::for_format(records.format, records.time_unit).ok_or_else(|| {
            format!(
                "{}: no writer for the {} format; choose an output format with --to ({})",
                input.display(),
                records.format,
                Target::ALL.map(|t| t.name()).join(", ")
            )
        }),
    }
}

/// What was read, for the report printed once everything has succeeded.
fn describe_read(path: &Path, r: &Records, log: &mut String) {
    if let Some(d) = &r.detection {
        eprintln!("warning: {}: {d}", path.display());
    }
    let unit = r.time_unit.map(|u| format!(" ({u})")).unwrap_or_default();
    *log += &format!(
        "read {} ({}{unit}): {} of {}\n",
        path.display(),
        r.format,
        counted(r.requests.len() as u64, "request", "requests"),
        counted(r.records, "record", "records")
    );
    if r.no_direction > 0 {
        *log += &format!("  skipped {} without a direction\n", counted(r.no_direction, "record", "records"));
    }
    for (why, n) in &r.skipped {
        *log += &format!("  skipped {}\n", rainsim_trace::textlog::skipped(*n, why));
    }
}

fn write_out(output: &Path, inputs: &[&Path], target: Target, requests: &[Request], mut log: String) -> Res {
    let w = write_atomic(output, inputs, |f| write_requests(f, target, requests))?;
    log += &format!("wrote {} to {} ({target})\n", counted(w.requests, "request", "requests"), output.display());
    if w.widened > 0 {
        let n = counted(w.widened, "request was", "requests were");
        log += &format!("  {n} not sector-aligned: widened to the 512-byte sectors they touch\n");
    }
    if w.time_rounded > 0 {
        let n = counted(w.time_rounded, "time", "times");
        log += &format!("  {n} rounded to the nearest 100 ns (FILETIME ticks)\n");
    }
    if target == Target::Fio {
        log += "  fio iolog v2 has no timing: fio replays the requests back to back, in this order\n";
    }
    crate::commands::out(&log)?;
    Ok(())
}

/// `rainsim trace convert` (`to` given) and `rainsim trace slice` (a window required).
pub fn convert(input: &Path, output: &Path, to: Option<&str>, sel: &SelectArgs, need_window: bool) -> Res {
    let w = window(sel)?;
    if need_window && w == Window::default() {
        return Err("trace slice needs a window: --start S and/or --duration D, or --skip K and/or --requests N".into());
    }
    let map = mapping(&sel.input)?;
    let (format, unit) = input_format(&sel.input)?;
    check_output(output, &[input])?;
    let records = read(input, format, unit)?;
    let mut log = String::new();
    describe_read(input, &records, &mut log);
    let target = target(to, &records, input)?;
    let requests = edit::prepare(&input.display().to_string(), records, sel.input.device, &w, map)?;
    write_out(output, &[input], target, &requests, log)
}

/// `rainsim trace merge A B … OUT`.
pub fn merge(files: &[PathBuf], to: Option<&str>, distinct_devices: bool, sel: &InputArgs) -> Res {
    let (output, inputs) = files.split_last().ok_or("trace merge needs input files and an output file")?;
    if inputs.len() < 2 {
        return Err("trace merge needs at least two input files and an output file".into());
    }
    if distinct_devices && sel.device.is_some() {
        return Err("--device keeps one device number of every input and --distinct-devices numbers the inputs' \
                    devices apart: give one of them"
            .into());
    }
    // The first device number the next input's devices start from.
    let mut next_device: u64 = 0;
    let map = mapping(sel)?;
    let (format, unit) = input_format(sel)?;
    let refs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    check_output(output, &refs)?;
    let mut log = String::new();
    let mut lists = Vec::new();
    let mut target_of_first = None;
    // Each file's first and last time: a merge across clocks is refused.
    let mut spans: Vec<(u64, u64, &Path)> = Vec::new();
    for input in inputs {
        let mut records = read(input, format, unit)?;
        describe_read(input, &records, &mut log);
        let times = records.requests.iter().map(|r| r.time_ns);
        if let (Some(a), Some(b)) = (times.clone().min(), times.max()) {
            spans.push((a, b, input));
        }
        if target_of_first.is_none() {
            target_of_first = Some(target(to, &records, input)?);
        }
        if let Some(d) = sel.device {
            records.requests.retain(|r| r.device == d);
        }
        if distinct_devices {
            let offset = next_device;
            let top = records.requests.iter().map(|r| r.device as u64).max().map_or(offset, |m| offset + m + 1);
            if top > u32::MAX as u64 + 1 {
                return Err(format!(
                    "{}: its devices numbered from {offset} pass 2^32 - 1, the largest device number: merge \
                     fewer files with --distinct-devices, or without it",
                    input.display()
                )
                .into());
            }
            for r in &mut records.requests {
                r.device += offset as u32;
            }
            log.push_str(&format!("{}: devices numbered from {offset}\n", input.display()));
            next_device = top;
        }
        lists.push(records.requests);
    }
    let first = spans.iter().min_by_key(|s| s.0);
    let last = spans.iter().max_by_key(|s| s.1);
    if let (Some(&(a, _, fa)), Some(&(_, b, fb))) = (first, last) {
        if b - a > rainsim_trace::MAX_TIME_NS {
            return Err(format!(
                "{} ends {:.0} years after {} starts: their clocks differ (e.g. MSR's FILETIME, from 1601, against \
                 SYSTOR's Unix time, from 1970), and a trace may span at most 2^62 ns (146 years); to overlay them, \
                 convert each first (`rainsim trace convert`: its output starts at 0) and merge those",
                fb.display(),
                (b - a) as f64 / 1e9 / 31_557_600.0,
                fa.display()
            )
            .into());
        }
    }
    let mut merged = edit::merge(lists);
    if merged.is_empty() {
        return Err(format!(
            "no request to merge{}",
            sel.device.map(|d| format!(" for device {d}")).unwrap_or_default()
        )
        .into());
    }
    if let Some(m) = map {
        rainsim_trace::transform::map_addresses(&mut merged, m.map, m.capacity_bytes, m.page_bytes)?;
    }
    write_out(output, &refs, target_of_first.expect("two inputs"), &merged, log)
}
