"""Tests of scripts/fuzz_runs.py (also run by `cargo test` through
crates/rainsim/tests/cli/python_scripts.rs, which passes the CLI in $RAINSIM_BIN).

Stand-in binaries show that a panic, a hang, a crash, a verification failure,
a silent failure and an unreadable report are each reported as a finding; a short campaign of the real
CLI must find nothing."""

import json
import os
import random
import stat
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fuzz_runs as fz  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TRACES = Path(os.environ.get('RAINSIM_TRACES') or ROOT.parent / 'shared' / 'traces')


def stand_in(directory, body):
    """An executable shell script standing in for the CLI."""
    p = Path(directory) / 'rainsim'
    p.write_text('#!/bin/sh\n' + body + '\n')
    p.chmod(p.stat().st_mode | stat.S_IXUSR)
    return p


class Outcomes(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.dir = Path(self.tmp.name)

    def found(self, body, timeout=10.0, cases=3):
        b = stand_in(self.dir, body)
        out = self.dir / 'out'
        counts = fz.campaign(b, cases, 1, out, timeout, 1000, TRACES, log=lambda _: None)
        findings = [json.loads(x) for x in (out / 'findings.jsonl').read_text().splitlines()] \
            if (out / 'findings.jsonl').exists() else []
        return counts, findings

    def test_a_panic_is_a_finding_with_its_command(self):
        counts, f = self.found("echo \"thread 'main' panicked at src/x.rs:1:1\" >&2; exit 101")
        self.assertEqual(counts['panic'], 3)
        self.assertEqual([x['kind'] for x in f], ['panic'] * 3)
        self.assertEqual(f[0]['command'][1], 'run')
        self.assertIn('--set', f[0]['command'])

    def test_a_run_past_the_timeout_is_a_hang(self):
        counts, _ = self.found('sleep 5', timeout=0.3, cases=1)
        self.assertEqual(counts['hang'], 1)

    def test_a_signal_is_a_crash_and_silence_is_no_message(self):
        self.assertEqual(self.found('kill -SEGV $$', cases=1)[0]['crash'], 1)
        self.assertEqual(self.found('exit 1', cases=1)[0]['no-message'], 1)

    def test_a_verification_failure_is_a_finding_not_an_error(self):
        counts, f = self.found('echo "error: verification failed at t = 5 ns: chunk 3 read stale data" >&2; exit 1',
                               cases=2)
        self.assertEqual((counts['verify'], counts['error']), (2, 0))
        self.assertEqual([x['kind'] for x in f], ['verify'] * 2)

    def test_an_error_message_is_not_a_finding(self):
        counts, f = self.found('echo "error: invalid configuration: x" >&2; exit 1')
        self.assertEqual((counts['error'], f), (3, []))

    def test_exit_zero_needs_a_readable_report(self):
        # The report path follows -o, the last two arguments.
        body = 'for a; do last="$a"; done; echo \'%s\' > "$last"'
        self.assertEqual(self.found(body % '{"version": "x"}', cases=2)[0]['ok'], 2)
        self.assertEqual(self.found(body % '{"version": ', cases=2)[0]['bad-report'], 2)
        self.assertEqual(self.found('exit 0', cases=1)[0]['bad-report'], 1)

    def test_main_exits_1_on_a_finding(self):
        b = stand_in(self.dir, 'exit 1')
        old = os.environ.get('RAINSIM_TRACES')
        os.environ['RAINSIM_TRACES'] = str(self.dir)
        try:
            rc = fz.main(['--bin', str(b), '--cases', '2', '--out', str(self.dir / 'o')])
        finally:
            if old is None:
                del os.environ['RAINSIM_TRACES']
            else:
                os.environ['RAINSIM_TRACES'] = old
        self.assertEqual(rc, 1)


class Draws(unittest.TestCase):
    def test_a_seed_draws_the_same_cases(self):
        def cases(seed):
            rng = random.Random(seed)
            return [fz.draw(rng, Path('/t'), 3000) for _ in range(50)]
        self.assertEqual(cases(3), cases(3))
        self.assertNotEqual(cases(3), cases(4))

    def test_draws_cover_the_axes(self):
        rng = random.Random(5)
        text = [' '.join(fz.draw(rng, Path('/t'), 3000)) for _ in range(400)]
        wanted = ['--verify', '--trace', 'fault.channel=', 'fault.die=', 'fault.second_channel', 'array.fail_device',
                  'ftl.rotating_gc=true', 'static-channel-first', 'ldpc.enabled=true']
        for what in wanted + ['--scheme ' + s for s in fz.SCHEMES]:
            self.assertTrue(any(what in t for t in text), what)
        # Replication is refused with [fault]: the two never meet.
        for t in text:
            if 'fault.' in t and 'array.' not in t:
                self.assertFalse(any(f'--scheme {s}' in t for s in fz.REPLICATING), t)


class Registry(unittest.TestCase):
    def test_the_schemes_are_the_registered_ones(self):
        """The draw's scheme lists are those of configs/schemes (a new scheme is drawn)."""
        import tomllib
        schemes = {p.stem: tomllib.loads(p.read_text()) for p in (ROOT / 'configs' / 'schemes').glob('*.toml')}
        self.assertEqual(sorted(fz.SCHEMES), sorted(schemes))
        replicating = {k for k, v in schemes.items() if v['policy'].get('replication', 'none') != 'none'}
        self.assertEqual(fz.REPLICATING, replicating)
        presets = {p.stem for p in (ROOT / 'configs').glob('*.toml')}
        self.assertLessEqual(set(fz.PRESETS), presets)


class RealCli(unittest.TestCase):
    def test_a_short_campaign_finds_nothing(self):
        target = Path(os.environ.get('CARGO_TARGET_DIR') or ROOT / 'target')
        b = Path(os.environ.get('RAINSIM_BIN') or target / 'release' / 'rainsim')
        self.assertTrue(b.is_file(), f'{b} missing: cargo build --release -p rainsim, or set RAINSIM_BIN')
        self.assertTrue(TRACES.is_dir(), f'trace samples not found at {TRACES}: set RAINSIM_TRACES')
        with tempfile.TemporaryDirectory() as d:
            counts = fz.campaign(b, 16, 11, Path(d), 300.0, 800, TRACES, log=lambda _: None)
            findings = (Path(d) / 'findings.jsonl')
            self.assertFalse(findings.exists(), findings.exists() and findings.read_text())
        self.assertGreater(counts['ok'], 0, counts)


if __name__ == '__main__':
    unittest.main()
