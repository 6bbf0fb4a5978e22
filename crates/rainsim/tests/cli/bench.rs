//! `rainsim bench --trace`: the loading benchmark reads what `run` reads,
//! and its hash of the stored file is the trace's SHA-256.

use crate::support::*;

/// The `trace: …` summary line of a load benchmark.
fn summary(stdout: &str) -> &str {
    stdout.lines().find(|l| l.starts_with("trace: ")).unwrap_or_else(|| panic!("no summary:\n{stdout}"))
}

#[test]
fn load_only_reads_every_record_of_a_sample_each_run() {
    let t = trace("msr_hm_0_slice1000.csv");
    let o = rainsim(["bench", "--trace", p(&t), "--load-only", "--runs", "2"]).ok();
    for run in ["load 1: ", "load 2: "] {
        assert!(o.stdout.contains(run), "{run} missing:\n{}", o.stdout);
    }
    assert!(!o.stdout.contains("load 3: ") && !o.stdout.contains("run 1: "), "{}", o.stdout);
    let line = summary(&o.stdout);
    assert!(line.contains("(msr, ") && line.contains("1000 records, 1000 requests"), "{line}");
    let mib = std::fs::metadata(&t).unwrap().len() as f64 / (1u64 << 20) as f64;
    assert!(line.contains(&format!(", {mib:.1} MiB, ")), "{mib:.1} MiB: {line}");
}

/// A trace of one record: "1 record, 1 request".
#[test]
fn load_only_of_one_record_says_so_in_the_singular() {
    let dir = TempDir::new("bench-one");
    let f = dir.join("one.csv");
    let first = std::fs::read_to_string(trace("msr_hm_0_slice1000.csv")).unwrap().lines().next().unwrap().to_owned();
    std::fs::write(&f, first + "\n").unwrap();
    let o = rainsim(["bench", "--trace", p(&f), "--load-only", "--runs", "1"]).ok();
    assert!(summary(&o.stdout).contains(", 1 record, 1 request); load best"), "{}", o.stdout);
}

/// The benchmark hashes the stored bytes apart from the loader and fails if
/// the two differ; a gzip copy (hash of the compressed bytes) must pass.
#[test]
fn load_only_of_a_gzip_copy_agrees_with_its_own_hash() {
    let dir = TempDir::new("bench-gz");
    let f = dir.join("hm.csv.gz");
    std::fs::write(&f, gzip(&std::fs::read(trace("msr_hm_0_slice1000.csv")).unwrap())).unwrap();
    let o = rainsim(["bench", "--trace", p(&f), "--load-only", "--runs", "1"]).ok();
    assert!(summary(&o.stdout).contains("1000 records, 1000 requests"), "{}", o.stdout);
}

#[test]
fn bench_trace_errors_name_the_problem() {
    let err = rainsim(["bench", "--runs", "0", "--requests", "10"]).fails();
    assert!(err.contains("--runs must be at least 1"), "{err}");
    let err = rainsim(["bench", "--load-only"]).fails();
    assert!(err.contains("--trace"), "{err}");
    // With --requests, which --trace conflicts with, clap lets it through: bench refuses.
    let err = rainsim(["bench", "--load-only", "--requests", "100", "--runs", "1"]).fails();
    assert!(err.contains("--load-only") && err.contains("--trace FILE"), "{err}");
    let err = rainsim(["bench", "--trace", "no/such/trace.csv", "--load-only"]).fails();
    assert!(err.contains("no/such/trace.csv"), "{err}");
    let t = trace("msr_hm_0_slice1000.csv");
    let err = rainsim(["bench", "--trace", p(&t), "--requests", "5"]).fails();
    assert!(err.contains("--requests"), "{err}");
}

/// A run too short to time gives a rate with a note saying so, not a bare
/// 0 (the CPU clock counts nanoseconds, not 10 ms ticks).
#[test]
fn a_run_too_short_to_time_is_noted() {
    let o = rainsim(["bench", "--requests", "50", "--runs", "1"]).ok();
    let run = o.stdout.lines().find(|l| l.starts_with("run 1:")).expect("a run line");
    let rate: f64 = run.split(", ").last().unwrap().split(' ').next().unwrap().parse().unwrap();
    assert!(rate > 0.0, "{run}");
    assert!(o.stdout.contains("ms of CPU time is too short to time well; give more requests"), "{}", o.stdout);
}

/// `bench --stream` replays the workload it would hold: the same device
/// summary (GC count, erases, WAF, tails), and it says which it did.
#[test]
fn a_streamed_bench_simulates_the_held_workload() {
    let args = [
        "bench",
        "--config",
        "rep-raid-8ch",
        "--requests",
        "3000",
        "--runs",
        "1",
        "--set",
        "geometry.blocks_per_plane=64",
    ];
    let held = rainsim(args).ok().stdout;
    let streamed = rainsim([&args[..], &["--stream"]].concat()).ok().stdout;
    assert!(held.contains("3000 synthetic requests (held)"), "{held}");
    assert!(streamed.contains("3000 synthetic requests (streamed)"), "{streamed}");
    let device = |s: &str| s.lines().find(|l| l.starts_with("device: ")).map(str::to_owned);
    assert!(device(&held).is_some());
    assert_eq!(device(&held), device(&streamed));
}

/// `bench` of an array prints its members' GC and erases (their sum in the
/// array report of the same run), its tails, and the peak memory; it holds
/// its workload whatever `--stream` says, and says so.
#[test]
fn an_array_bench_prints_what_its_run_reports() {
    let sets = ["--set", "geometry.blocks_per_plane=8"];
    let o = rainsim(
        [&["bench", "--config", "dls-4ssd", "--requests", "3000", "--runs", "1", "--stream"][..], &sets[..]].concat(),
    )
    .ok();
    assert!(o.stdout.contains("3000 synthetic requests (held: an array holds its workload"), "{}", o.stdout);
    // 4 devices of 16 × 8 × 2 × 2 × 8 blocks × 128 pages: 2^21 pages in all.
    let rss = o.stdout.lines().find(|l| l.starts_with("peak RSS: ")).unwrap_or_else(|| panic!("{}", o.stdout));
    let (mib, per_page) = (number_before(rss, " MiB"), number_before(rss, " bytes per physical page"));
    assert_close("bytes per page", per_page, mib * (1u64 << 20) as f64 / (1u64 << 21) as f64, 0.05);
    let run = o.stdout.lines().find(|l| l.starts_with("run 1: ")).unwrap_or_else(|| panic!("{}", o.stdout));
    let rate = run.rsplit(", ").next().unwrap().split(' ').next().unwrap();
    let speed = format!("array of 4 devices × 16 channels: speed best {rate}, median {rate} host requests");
    assert!(o.stdout.contains(&speed), "{speed}\n{}", o.stdout);
    let line = o.stdout.lines().find(|l| l.starts_with("devices: 4 × ")).unwrap_or_else(|| panic!("{}", o.stdout));
    let dir = TempDir::new("bench-array");
    let out = dir.join("r.json");
    let cmd = ["run", "--config", "dls-4ssd", "--set", "workload.requests=3000", "--quiet", "--out", p(&out)];
    rainsim([&cmd[..], &sets[..]].concat()).ok();
    let r = read_json(&out);
    let sum = |k: &str| at(&r, "devices").as_array().unwrap().iter().map(|d| d[k].as_u64().unwrap()).sum::<u64>();
    assert!(sum("gc") > 0, "the test wants GC: {line}");
    assert!(line.contains(&format!("GC count {}, erases {},", sum("gc"), sum("erases"))), "{line}");
}

/// The number before `unit` in `line` (the last such).
fn number_before(line: &str, unit: &str) -> f64 {
    let head = &line[..line.rfind(unit).unwrap_or_else(|| panic!("no {unit:?} in {line}"))];
    head.trim_end().rsplit([' ', '(']).next().unwrap().parse().unwrap_or_else(|e| panic!("{line}: {e}"))
}

/// One request, one run: the bench's lines say so in the singular.
#[test]
fn a_bench_of_one_request_and_one_run_says_so() {
    let o = rainsim(["bench", "--requests", "1", "--runs", "1", "--set", "geometry.blocks_per_plane=64"]).ok();
    assert!(o.stdout.contains(", 1 synthetic request (held), seed "), "{}", o.stdout);
    assert!(o.stdout.contains(" host requests per CPU-second over 1 run\n"), "{}", o.stdout);
}

/// The summary lines follow from the run lines: the note's milliseconds are
/// the run's CPU seconds, best and median are of the three runs' rates, and
/// peak RSS per page is the whole over the 2^21 pages set here (16 GiB of 8 KiB).
#[test]
fn bench_summary_lines_agree_with_its_runs() {
    let args = ["bench", "--requests", "50", "--runs", "3", "--set", "geometry.blocks_per_plane=64"];
    let o = rainsim(args).ok();
    let lines: Vec<&str> = o.stdout.lines().collect();
    let mut rates = Vec::new();
    for i in 1..=3 {
        let k = lines.iter().position(|l| l.starts_with(&format!("run {i}: "))).expect(&o.stdout);
        let cpu_ms = number_before(lines[k], " s CPU") * 1e3;
        let note_ms = number_before(lines[k + 1], " ms of CPU time");
        assert!((note_ms - cpu_ms).abs() <= 0.6, "{}\n{}", lines[k], lines[k + 1]);
        rates.push(lines[k].rsplit(", ").next().unwrap().split(' ').next().unwrap().to_owned());
    }
    assert!(!o.stdout.contains("run 4: ") && !o.stdout.contains("run 0: "), "{}", o.stdout);
    rates.sort_by(|a, b| a.parse::<f64>().unwrap().total_cmp(&b.parse().unwrap()));
    let speed = format!("speed: best {}, median {} host requests per CPU-second over 3 runs", rates[2], rates[1]);
    assert!(lines.contains(&speed.as_str()), "{speed}\n{}", o.stdout);
    assert!(o.stdout.contains("device: 16 GiB physical, "), "{}", o.stdout);
    let rss = lines.iter().find(|l| l.starts_with("peak RSS: ")).expect(&o.stdout);
    let (mib, per_page) = (number_before(rss, " MiB"), number_before(rss, " bytes per physical page"));
    assert_close("bytes per page", per_page, mib * (1u64 << 20) as f64 / (1u64 << 21) as f64, 0.05);
}

/// A warm-up gets its own line per run; a run without one gets none.
#[test]
fn a_warm_up_line_appears_only_with_a_warm_up() {
    let args = ["bench", "--requests", "50", "--runs", "1", "--set", "geometry.blocks_per_plane=64"];
    let plain = rainsim(args).ok().stdout;
    assert!(!plain.contains("warm-up"), "{plain}");
    let warm = rainsim([&args[..], &["--set", "warmup.device_writes=0.1"]].concat()).ok().stdout;
    let line = warm.lines().find(|l| l.starts_with("run 1: warm-up ")).unwrap_or_else(|| panic!("{warm}"));
    assert!(line.ends_with(" flash page writes per CPU-second"), "{line}");
}

/// A profile keeps its own request count unless `--requests` is given.
#[test]
fn a_profile_keeps_its_request_count() {
    let dir = TempDir::new("bench-profile");
    let f = dir.join("small.toml");
    std::fs::write(&f, "[workload]\nrequests = 300\n").unwrap();
    let args = ["bench", "--runs", "1", "--set", "geometry.blocks_per_plane=64", "--workload", p(&f)];
    let own = rainsim(args).ok().stdout;
    assert!(own.contains(&format!(" 300 synthetic requests (workload {})", f.display())), "{own}");
    let given = rainsim([&args[..], &["--requests", "200"]].concat()).ok().stdout;
    assert!(given.contains(" 200 synthetic requests (workload "), "{given}");
}

/// Without `--load-only`, `bench --trace` simulates the loaded trace.
#[test]
fn a_trace_bench_simulates_after_loading() {
    let t = trace("msr_hm_0_slice1000.csv");
    let o = rainsim(["bench", "--trace", p(&t), "--runs", "1", "--set", "geometry.blocks_per_plane=64"]).ok();
    assert!(o.stdout.contains("1000 records, 1000 requests"), "{}", o.stdout);
    assert!(o.stdout.lines().any(|l| l.starts_with("run 1: setup ")), "{}", o.stdout);
    assert!(o.stdout.lines().any(|l| l.starts_with("device: 16 GiB physical, ")), "{}", o.stdout);
}

/// An array bench without `--stream` just holds its workload, as always.
#[test]
fn an_array_bench_without_stream_says_held() {
    let args = ["bench", "-c", "dls-4ssd", "--requests", "300", "--runs", "1", "--set", "geometry.blocks_per_plane=8"];
    let o = rainsim(args).ok();
    assert!(o.stdout.contains(" 300 synthetic requests (held), "), "{}", o.stdout);
}
