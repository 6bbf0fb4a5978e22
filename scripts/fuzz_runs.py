#!/usr/bin/env python3
"""Random whole runs of the CLI, looking for panics, hangs and unreadable reports.

Each case is one `rainsim run` of a preset and scheme on a small device (so that GC
works from the first requests) with random keys drawn from every axis: geometry,
ageing, allocation, rotating GC, read priority, LDPC, process variation, the
schemes' own parameters, channel and die failures with and without a rebuild, the
built-in workload or a sample trace, arrays of SSDs, and `--verify` on half the
cases. A run must either complete with a readable JSON report or stop with an error
message (a refused configuration, or a device that filled up, which names the keys
to change). A panic, a run past the timeout, or a report that does not parse is a
finding: it is written to OUT/findings.jsonl with the exact command, and the script
exits 1.

    python3 scripts/fuzz_runs.py --cases 10000 --seed 7      # about 6 minutes on 2 cores
    python3 scripts/fuzz_runs.py --bin target/debug/rainsim --cases 20 --max-requests 1000

The same seed draws the same cases. Trace cases read the shared samples from
$RAINSIM_TRACES (else ../shared/traces beside the repository); without them the
script stops and says where it looked.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TRACES = ['msr.cut.per_10k.rw_20_80.105.trace', 'umass_financial1_head10k.ssdsim.ascii', 'msr_hm_0_slice1000.csv',
          'systor17_lun0_slice999.csv', 'alibaba_io_traces_head7.csv', 'umass_websearch1_head10.spc',
          'umass_websearch1_head.mqsim.trace']
SCHEMES = ['baseline', 'gc-tolerant-read', 'degraded', 'bpu', 'adaptive', 'noop', 'piq', 'vios', 'cr5m',
           'fusionraid', 'rep-raid']
REPLICATING = {'cr5m', 'fusionraid', 'rep-raid'}
PRESETS = ['rep-raid-8ch', 'degraded-mode-8ch', 'adaptive-parity-8ch', 'vios-128g', 'default', 'rep-raid-8ch-7p1',
           'adaptive-parity-6ch', 'degraded-mode-16ch']
# Keys each set with probability 0.15, beside the ones every case draws.
EXTRA = [('policy.bpu.max_gap', ['0', '1', '4']), ('policy.bpu.min_queued', ['1', '8', '32']),
         ('policy.adaptive.scope', ['"channel"', '"die"']), ('policy.adaptive.tie_to_rmw', ['true', 'false']),
         ('policy.degraded.arrival_window', ['2', '16', '128']), ('policy.degraded.partner_gc', ['true', 'false']),
         ('policy.gc_tolerant.scope', ['"die"', '"channel"']), ('policy.replicas.high_water', ['16', '256', '65536']),
         ('policy.replicas.idle_ns', ['1000', '1000000']), ('policy.replicas.max_request_bytes', ['4096', '65536']),
         ('ftl.wear_level_spread', ['1', '5', '100']), ('controller.cores', ['1', '2']),
         ('timing.request_overhead_ns', ['0', '5000']), ('policy.host_scheduler', ['"fifo"', '"piq"', '"vios"']),
         ('policy.block_allocation', ['"in-order"', '"variation-aware"']),
         ('fault.second_channel', ['0', '1']), ('fault.second_at_ns', ['100000000', '900000000'])]
ARRAY = [('array.devices', ['2', '3', '4', '5']), ('array.chunk_kib', ['4', '8', '16']),
         ('array.allocation', ['"static"', '"rr"', '"egs"', '"dls"']), ('array.spare', ['0', '0.05', '0.3']),
         ('array.replay', ['"open"', '"closed"']), ('array.queue_depth', ['1', '4', '64']),
         ('array.parity', ['false', 'true']), ('array.delay_scope', ['"outstanding"', '"cumulative"', '"window"'])]


def some(rng, table, p, keep=lambda _: True):
    """`key=value` for each key of `table` drawn with probability `p` (and kept)."""
    return [f'{k}={rng.choice(vals)}' for k, vals in table if rng.random() < p and keep(k)]


def with_sets(args, sets):
    """`args` followed by a `--set` of each of `sets`."""
    return args + [x for kv in sets for x in ('--set', kv)]


def device_case(rng, traces, max_requests):
    """`rainsim run` arguments of one device: (args, features)."""
    preset = rng.choice(PRESETS)
    scheme = rng.choice(SCHEMES) if rng.random() < 0.85 else None
    ch = rng.choice([3, 4, 5, 8])
    valid = rng.choice([0.0, 0.3, 0.5, 0.6, 0.65])
    op = rng.choice([0.15, 0.25, 0.3])
    s = [f'geometry.channels={ch}', f'geometry.chips_per_channel={rng.choice([1, 2, 4])}',
         f'geometry.planes_per_die={rng.choice([1, 2])}', f'geometry.blocks_per_plane={rng.randint(12, 64)}',
         f'geometry.pages_per_block={rng.choice([8, 16, 32, 64])}',
         f'geometry.page_bytes={rng.choice([2048, 4096, 8192, 16384])}',
         f'geometry.over_provisioning={op}',
         f'ftl.gc_threshold={rng.choice([0.05, 0.1, 0.2] if op > 0.2 else [0.05, 0.1])}',
         f'seed={rng.randint(1, 10**6)}',
         f'raid.stripe_width={rng.randint(3, ch)}', f'precondition.valid={valid}',
         f'precondition.invalid={rng.choice([0.0, 0.05, 0.1]) if valid > 0 else 0.0}',
         f'precondition.layout="{rng.choice(["packed", "uniform", "steady-state"])}"',
         'precondition.target_moves_per_gc=default', 'precondition.hot_utilization=default']
    if rng.random() < 0.5:
        s.append(f'policy.read_priority={rng.choice(["true", "false"])}')
    static = rng.random() < 0.5 and rng.random() < 1 / 3
    if static:
        s.append('ftl.allocation="static-channel-first"')
    elif rng.random() < 0.5:
        s.append(f'ftl.allocation="{rng.choice(["round-robin", "dynamic"])}"')
    if rng.random() < 0.2 and not static:
        s.append('ftl.rotating_gc=true')
    if rng.random() < 0.2:
        s.append(f'ftl.copyback={rng.choice(["true", "false"])}')
    if rng.random() < 0.3:
        s.append(f'host.queue_depth={rng.choice([1, 4, 32])}')
    if rng.random() < 0.2:
        s.append('ldpc.enabled=true')
    if rng.random() < 0.15:
        s.append('process_variation.enabled=true')
    faulted = rng.random() < 0.4 and scheme not in REPLICATING and preset != 'vios-128g'
    if faulted:
        s.append(f'fault.channel={rng.randrange(ch)}' if rng.random() < 0.7 else f'fault.die={rng.randrange(ch)}')
        s.append(f'fault.at_ns={rng.choice([0, 1000000, 50000000, 300000000])}')
        if rng.random() < 0.6:
            s.append(f'fault.replace_after_ns={rng.choice([0, 1000000, 100000000])}')
            s.append(f'fault.rebuild_stripes={rng.choice([1, 4, 16])}')
            s.append(f'fault.rebuild_priority="{rng.choice(["high", "background"])}"')
    args = ['run', '--config', preset, '--quiet']
    if scheme:
        args += ['--scheme', scheme]
    if rng.random() < 0.3:
        args += ['--trace', str(traces / rng.choice(TRACES))]
        s.append(f'trace.max_requests={rng.randint(min(500, max_requests), max_requests)}')
        if rng.random() < 0.3:
            s.append(f'trace.time_scale={rng.choice([0.1, 0.5, 2.0])}')
    else:
        s.append(f'workload.requests={rng.randint(min(500, max_requests), max_requests)}')
        s.append(f'workload.mean_interarrival_ns={rng.choice([20000, 100000, 500000, 2000000])}')
        s.append(f'workload.read_ratio={rng.choice([0.0, 0.3, 0.7, 1.0])}')
    s += some(rng, EXTRA, 0.15, lambda k: faulted or not k.startswith('fault.'))
    if rng.random() < 0.5:
        args.append('--verify')
    return with_sets(args, s)


def array_case(rng, traces, max_requests):
    """`rainsim run` arguments of an array of SSDs."""
    args = ['run', '--config', rng.choice(['dls-4ssd', 'dls-8ssd', 'dls-4ssd-30-400']), '--quiet']
    s = [f'geometry.blocks_per_plane={rng.randint(12, 48)}', f'geometry.pages_per_block={rng.choice([16, 32, 64])}',
         f'seed={rng.randint(1, 10**6)}', f'precondition.valid={rng.choice([0.0, 0.3, 0.6])}',
         f'workload.requests={rng.randint(min(300, max_requests), min(5000, max_requests))}']
    s += some(rng, ARRAY, 0.4)
    if rng.random() < 0.3:
        # A member fails (refused unless the layout keeps parity over devices).
        s += [f'array.fail_device={rng.choice([0, 1])}', f'array.fail_at_ns={rng.choice([0, 2000000, 50000000])}']
        if rng.random() < 0.6:
            s += [f'array.replace_after_ns={rng.choice([0, 1000000])}', f'array.rebuild_stripes={rng.choice([1, 16])}']
    if rng.random() < 0.6:
        args += ['--scheme', rng.choice(SCHEMES)]
    if rng.random() < 0.3:
        args += ['--trace', str(traces / rng.choice(TRACES))]
    if rng.random() < 0.3:
        args.append('--verify')
    return with_sets(args, s)


def draw(rng, traces, max_requests):
    """The next case's `rainsim run` arguments."""
    if rng.random() < 0.15:
        return array_case(rng, traces, max_requests)
    return device_case(rng, traces, max_requests)


def classify(rc, stderr, report):
    """'ok', 'error' (stopped with an error message) or a finding: 'panic',
    'crash' (killed by a signal), 'hang', 'verify' (`--verify` found a read
    that returned the wrong data: a modelling bug, not a refusal),
    'no-message' (failed without an error message) or 'bad-report' (exit 0
    without a readable report)."""
    if rc == 'timeout':
        return 'hang'
    if 'panicked' in stderr or rc == 101:
        return 'panic'
    if rc < 0:
        return 'crash'
    if rc != 0:
        if 'verification failed' in stderr:
            return 'verify'
        return 'error' if any(line.startswith('error') for line in stderr.splitlines()) else 'no-message'
    try:
        json.loads(report.read_text())
    except (OSError, ValueError):
        return 'bad-report'
    return 'ok'


def campaign(binary, cases, seed, out, timeout, max_requests, traces, log=print):
    """Runs the cases; returns the counts of each outcome."""
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    findings = out / 'findings.jsonl'
    counts = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / 'report.json'
        for i in range(cases):
            args = draw(rng, traces, max_requests)
            report.unlink(missing_ok=True)
            try:
                p = subprocess.run([str(binary), *args, '-o', str(report)], capture_output=True, text=True,
                                   timeout=timeout)
                rc, err = p.returncode, p.stderr
            except subprocess.TimeoutExpired:
                rc, err = 'timeout', ''
            kind = classify(rc, err, report)
            counts[kind] += 1
            if kind not in ('ok', 'error'):
                with findings.open('a') as f:
                    f.write(json.dumps({'case': i, 'kind': kind, 'command': [str(binary), *args], 'rc': rc,
                                        'stderr': err[-2000:]}) + '\n')
                log(f'case {i}: {kind}: {" ".join(args)}')
            if (i + 1) % 500 == 0:
                log(f'{i + 1} of {cases}: {dict(counts)}')
    return counts


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    target = Path(os.environ.get('CARGO_TARGET_DIR') or ROOT / 'target')
    ap.add_argument('--bin', type=Path, default=target / 'release' / 'rainsim',
                    help='the rainsim binary (default: $CARGO_TARGET_DIR or target, then release/rainsim)')
    ap.add_argument('--cases', type=int, default=1000, help='cases to run (default 1000)')
    ap.add_argument('--seed', type=int, default=1, help='seed of the draws (default 1)')
    ap.add_argument('--out', type=Path, default=Path('fuzz-out'), help='where findings.jsonl goes (default fuzz-out)')
    ap.add_argument('--timeout', type=float, default=120.0, help='seconds before a run counts as a hang (default 120)')
    ap.add_argument('--max-requests', type=int, default=20000, help='largest workload or trace cut (default 20000)')
    a = ap.parse_args(argv)
    if not a.bin.is_file():
        sys.exit(f'error: {a.bin} not found: build it (cargo build --release -p rainsim) or pass --bin')
    traces = Path(os.environ.get('RAINSIM_TRACES') or ROOT.parent / 'shared' / 'traces')
    if not traces.is_dir():
        sys.exit(f'error: trace samples not found at {traces}: set RAINSIM_TRACES')
    counts = campaign(a.bin, a.cases, a.seed, a.out, a.timeout, a.max_requests, traces)
    found = sum(n for k, n in counts.items() if k not in ('ok', 'error'))
    print(f'{a.cases} cases: {counts["ok"]} ran, {counts["error"]} stopped with an error message, '
          f'{found} findings' + (f' (in {a.out / "findings.jsonl"})' if found else ''))
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
