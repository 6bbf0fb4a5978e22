"""Tests of scripts/verdict.py (run: python3 -m unittest discover -s scripts -p 'test_*.py';
also run by `cargo test` through crates/rainsim/tests/cli/python_scripts.rs)."""

import math
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import verdict as v  # noqa: E402


class SignTest(unittest.TestCase):
    def test_hand_computed_binomial(self):
        # 7 of 7 positive: 2 * (1/2)^7.
        self.assertEqual(v.sign_test([1] * 7), (7, 0, 2 / 128))
        # 9 of 10: 2 * (C(10,0) + C(10,1)) / 2^10 = 22/1024.
        self.assertAlmostEqual(v.sign_test([1] * 9 + [-1])[2], 22 / 1024, places=15)
        # 6 of 8: 2 * (1 + 8 + 28) / 256.
        self.assertAlmostEqual(v.sign_test([-3] * 6 + [2] * 2)[2], 74 / 256, places=15)

    def test_coin_flip_is_not_significant(self):
        self.assertEqual(v.sign_test([1] * 8 + [-1] * 8), (8, 8, 1.0))

    def test_zeros_are_dropped(self):
        # Six non-zero, all positive: 2/64.
        self.assertEqual(v.sign_test([0, 0, 1, 2, 3, 4, 5, 6])[2], 2 / 64)

    def test_fewest_workloads_for_significance(self):
        self.assertEqual(v.MIN_WORKLOADS, 6)
        self.assertLess(v.sign_test([1] * 6)[2], 0.05)

    def test_five_of_five_cannot_reach_five_percent(self):
        self.assertEqual(v.sign_test([1] * 5)[2], 0.0625)


class Wilcoxon(unittest.TestCase):
    def test_hand_computed_small_case(self):
        # Ranks 1..5, W+ = 1+2+3+5 = 11, W- = 4. Subsets of {1..5} summing to
        # <= 4: {}, {1}, {2}, {3}, {4}, {1,2}, {1,3} = 7 of 32; p = 2 * 7/32.
        w_plus, w_minus, n, p = v.wilcoxon([1, 2, 3, -4, 5])
        self.assertEqual((w_plus, w_minus, n), (11, 4, 5))
        self.assertAlmostEqual(p, 14 / 32, places=15)

    def test_one_small_negative(self):
        # W- = 1: subsets summing to <= 1 are {} and {1}: p = 2 * 2/64.
        self.assertAlmostEqual(v.wilcoxon([-1, 2, 3, 4, 5, 6])[3], 4 / 64, places=15)

    def test_all_one_sign(self):
        self.assertAlmostEqual(v.wilcoxon([1, 2, 3, 4, 5])[3], 2 / 32, places=15)
        self.assertAlmostEqual(v.wilcoxon([-1, -2, -3, -4, -5, -6])[3], 2 / 64, places=15)

    def test_ties_share_mean_ranks(self):
        # |x| = 1,1,1,2 -> ranks 2,2,2,4; W+ = 8. Doubled ranks 4,4,4,8: sums
        # >= 16 in 4 of 16 sign assignments; p = 2 * 4/16.
        w_plus, w_minus, n, p = v.wilcoxon([1, 1, -1, 2])
        self.assertEqual((w_plus, w_minus), (8, 2))
        self.assertAlmostEqual(p, 0.5, places=15)

    def test_zeros_dropped(self):
        self.assertEqual(v.wilcoxon([0, 0, 1, 2, 3, 4, 5])[2:], v.wilcoxon([1, 2, 3, 4, 5])[2:])

    def test_normal_approximation_beyond_twenty(self):
        xs = list(range(1, 26))  # n = 25, all positive: W+ = 325
        mu, var = 25 * 26 / 4, 25 * 26 * 51 / 24
        z = (325 - mu - 0.5) / math.sqrt(var)
        self.assertAlmostEqual(v.wilcoxon(xs)[3], math.erfc(z / math.sqrt(2)), places=15)
        # n = 20 is still exact: 2 / 2^20.
        self.assertAlmostEqual(v.wilcoxon(list(range(1, 21)))[3], 2 / 2**20, places=18)


class Bootstrap(unittest.TestCase):
    def test_constant_data_zero_width(self):
        self.assertEqual(v.bootstrap_ci([[-7.5] * 5, [-7.5] * 5]), (-7.5, -7.5))

    def test_all_positive_excludes_zero(self):
        lo, hi = v.bootstrap_ci([3.0, 4.0, 5.0, 6.0, 7.0])
        self.assertGreater(lo, 0)
        self.assertLessEqual(hi, 7.0)

    def test_symmetric_contains_zero(self):
        lo, hi = v.bootstrap_ci([-5.0, -3.0, -1.0, 1.0, 3.0, 5.0])
        self.assertLess(lo, 0)
        self.assertGreater(hi, 0)

    def test_seeded(self):
        xs = [1.0, 9.0, 2.0, 8.0, 3.0]
        self.assertEqual(v.bootstrap_ci(xs), v.bootstrap_ci(xs))

    def test_hierarchical_constant(self):
        self.assertEqual(v.hierarchical_ci([[[2.0] * 3], [[4.0] * 3]]) , (2.0, 4.0))


class Percentiles(unittest.TestCase):
    def test_thresholds(self):
        self.assertEqual(v.min_samples("99"), 1000)
        self.assertEqual(v.min_samples("99.9"), 10_000)
        self.assertEqual(v.min_samples("99.99"), 100_000)

    def test_replayed_copies_count_once(self):
        # 508 distinct reads replayed twice: 1,016 in the report, still too few for p99.
        r = {"trace": {"repeat": 2}}
        self.assertEqual(v.distinct_samples(1016, r), 508)
        self.assertFalse(v.percentile_valid("99", v.distinct_samples(1016, r)))
        self.assertTrue(v.percentile_valid("99", v.distinct_samples(1016, {"trace": {"repeat": 1}})))
        self.assertEqual(v.distinct_samples(1016, {}), 1016)  # a synthetic run: no replay

    def test_boundaries(self):
        self.assertFalse(v.percentile_valid("99", 999))
        self.assertTrue(v.percentile_valid("99", 1000))
        self.assertFalse(v.percentile_valid("99.9", 9_999))
        self.assertTrue(v.percentile_valid("99.9", 10_000))
        self.assertFalse(v.percentile_valid("99.99", 99_999))
        self.assertTrue(v.percentile_valid("99.99", 100_000))


class Classifier(unittest.TestCase):
    def workloads(self, values, seeds=5, spread=1.0):
        return {f"w{i}": [[x + spread * (j - seeds // 2) for j in range(seeds)]] for i, x in enumerate(values)}

    def test_reproduced_when_the_pooled_interval_contains_the_papers_size(self):
        s = v.summarize(self.workloads([-40, -37, -38, -41, -36, -39, -42, -37]), -1, -38.7)
        lo, hi = s["pooled_ci"]
        self.assertTrue(lo <= -38.7 <= hi)
        self.assertEqual(s["verdict"], v.REPRODUCED)

    def test_size_smaller(self):
        s = v.summarize(self.workloads([-5, -6, -4, -7, -5, -3, -6, -5]), -1, -38.7)
        self.assertEqual(s["verdict"], v.SIZE_SMALLER)

    def test_an_overshoot_is_not_reproduced(self):
        # -42.4 % pooled, interval about [-44, -40]: entirely beyond the paper's -38.7 %.
        s = v.summarize(self.workloads([-40, -45, -38, -50, -42, -41, -39, -44]), -1, -38.7)
        self.assertLess(s["pooled_ci"][1], -38.7)
        self.assertEqual(s["verdict"], v.SIZE_LARGER)
        # The old rule's "at least" reading survives only where the paper's words say so.
        at_least = v.summarize(self.workloads([-40, -45, -38, -50, -42, -41, -39, -44]), -1, -38.7, at_least=True)
        self.assertEqual(at_least["verdict"], v.REPRODUCED)

    def test_at_least_still_needs_the_size(self):
        s = v.summarize(self.workloads([-5, -6, -4, -7, -5, -3, -6, -5]), -1, -38.7, at_least=True)
        self.assertEqual(s["verdict"], v.SIZE_SMALLER)

    def test_direction_claim_without_magnitude(self):
        s = v.summarize(self.workloads([-5, -6, -4, -7, -5, -3, -6, -5]), -1, None)
        self.assertEqual(s["verdict"], v.REPRODUCED)

    def test_contradicted(self):
        s = v.summarize(self.workloads([10, 12, 8, 15, 9, 11, 14, 10]), -1, -38.7)
        self.assertEqual(s["verdict"], v.CONTRADICTED)

    def test_coin_flip_is_inconclusive(self):
        # 8 of 16 workloads the paper's way, with a mean of the paper's sign:
        # the old pages called this "reproduced".
        vals = [-60, -50, -45, -40, -35, -30, -25, -20, 1, 2, 3, 4, 5, 6, 7, 8]
        s = v.summarize(self.workloads(vals), -1, -38.7)
        self.assertLess(s["pooled"], 0)
        self.assertEqual(s["verdict"], v.INCONCLUSIVE)

    def test_five_workloads_cannot_be_significant(self):
        s = v.summarize(self.workloads([-40, -45, -50, -41, -60]), -1, -38.7)
        self.assertEqual(s["verdict"], v.INCONCLUSIVE)

    def test_best_workload_magnitude(self):
        # One workload at -30 % (seeds -32..-28) against the paper's "up to -29.8 %".
        vals = [-5, -6, -4, -7, -5, -3, -6, -30]
        self.assertEqual(v.summarize(self.workloads(vals), -1, -29.8, "best")["verdict"], v.REPRODUCED)
        self.assertEqual(v.summarize(self.workloads(vals), -1, -29.8, "pooled")["verdict"], v.SIZE_SMALLER)
        # A workload far beyond the paper's largest effect: its "up to" is too small.
        vals[-1] = -60
        self.assertEqual(v.summarize(self.workloads(vals), -1, -29.8, "best")["verdict"], v.SIZE_LARGER)
        vals[-1] = -15
        self.assertEqual(v.summarize(self.workloads(vals), -1, -29.8, "best")["verdict"], v.SIZE_SMALLER)

    def test_tests_must_agree(self):
        # Both tests significant but disagreeing on the side cannot happen with
        # real data; the classifier still refuses to pick a side.
        self.assertEqual(v.classify(7, 0, 0.01, 1.0, 27.0, 0.01, -1, None), v.INCONCLUSIVE)


class SizeReading(unittest.TestCase):
    def test_about_reading_on_hand_made_intervals(self):
        # A reduction of 38.7 %: contained, short of it, beyond it; the ends count as contained.
        self.assertEqual(v.size_reading((-40.0, -35.0), -1, -38.7), v.WITHIN)
        self.assertEqual(v.size_reading((-30.0, -20.0), -1, -38.7), v.SMALLER)
        self.assertEqual(v.size_reading((-45.0, -40.0), -1, -38.7), v.LARGER)
        self.assertEqual(v.size_reading((-38.7, -30.0), -1, -38.7), v.WITHIN)
        self.assertEqual(v.size_reading(None, -1, -38.7), v.SMALLER)

    def test_the_review_cases_are_size_larger(self):
        # Adaptive-parity A1: +119,328 % [+13,208, +290,264] against the paper's +56.2 %.
        self.assertEqual(v.size_reading((13_208.0, 290_264.0), +1, 56.2), v.LARGER)
        # Rep-RAID W3: -63.6 % [-67.4, -59.1] against -34.7 %.
        self.assertEqual(v.size_reading((-67.4, -59.1), -1, -34.7), v.LARGER)
        # "More than 4.4x" (+340 %): reaching it is enough.
        self.assertEqual(v.size_reading((380.0, 420.0), +1, 340.0, at_least=True), v.WITHIN)
        self.assertEqual(v.size_reading((300.0, 330.0), +1, 340.0, at_least=True), v.SMALLER)

    def test_up_to_reading(self):
        self.assertEqual(v.best_size_reading([(-6.0, -4.0), (-31.0, -28.0)], -1, -29.8), v.WITHIN)
        self.assertEqual(v.best_size_reading([(-6.0, -4.0), (-20.0, -10.0)], -1, -29.8), v.SMALLER)
        # One workload beyond the paper's largest effect outweighs one containing it.
        self.assertEqual(v.best_size_reading([(-31.0, -28.0), (-40.0, -35.0)], -1, -29.8), v.LARGER)

    def test_weaker_of_two_verdicts(self):
        self.assertEqual(v.weaker(v.REPRODUCED, v.INCONCLUSIVE), v.INCONCLUSIVE)
        self.assertEqual(v.weaker(v.SIZE_LARGER, v.REPRODUCED), v.SIZE_LARGER)
        self.assertEqual(v.weaker(v.INCONCLUSIVE, v.CONTRADICTED), v.CONTRADICTED)
        self.assertEqual(v.weaker(v.REPRODUCED, v.REPRODUCED), v.REPRODUCED)


class RatioOfTotals(unittest.TestCase):
    def test_the_papers_table_4(self):
        # 805,252 degraded operations against 39,920 GC-tolerant reads: 20.17x, +1,917.2 %.
        self.assertAlmostEqual(v.ratio_of_totals([(805_252, 39_920)]), 100 * (805_252 / 39_920 - 1), places=9)

    def test_a_workload_without_comparator_ops_still_counts_in_the_totals(self):
        # (30 + 10) / (10 + 0) = 4: +300 %, where the mean of per-workload changes skips the second.
        self.assertEqual(v.ratio_of_totals([(30, 10), (10, 0)]), 300.0)
        self.assertEqual(v.ratio_of_totals([(5, 0)]), math.inf)
        self.assertIsNone(v.ratio_of_totals([(0, 0)]))

    def test_interval_over_workloads(self):
        self.assertEqual(v.ratio_of_totals_ci([(20, 10)] * 5, resamples=200), (100.0, 100.0))
        lo, hi = v.ratio_of_totals_ci([(20, 10), (40, 10), (30, 10), (15, 10), (25, 10), (35, 10)], resamples=500)
        self.assertTrue(50.0 <= lo < 160.0 < hi <= 300.0)


class Saturation(unittest.TestCase):
    def report(self, busy, sim_span, trace_span):
        return {"channels": [{"busy_fraction": 0.1}, {"busy_fraction": busy}],
                "sim": {"span_ns": sim_span}, "trace": {"span_ns": trace_span}}

    def test_busy_channel(self):
        self.assertTrue(v.saturation(self.report(0.95, 100, 100))[0])
        self.assertFalse(v.saturation(self.report(0.949, 100, 100))[0])

    def test_backlog_after_last_arrival(self):
        self.assertTrue(v.saturation(self.report(0.5, 1_111, 1_000))[0])
        self.assertFalse(v.saturation(self.report(0.5, 1_100, 1_000))[0])

    def test_synthetic_run_without_trace_block(self):
        r = {"channels": [{"busy_fraction": 0.3}], "sim": {"span_ns": 5}}
        self.assertEqual(v.saturation(r), (False, ""))


class PairedChange(unittest.TestCase):
    def test_modes(self):
        self.assertEqual(v.paired_change(90, 100), -10.0)
        self.assertIsNone(v.paired_change(5, 0))
        self.assertEqual(v.paired_change(5, 0, "abs"), 5.0)
        self.assertIsNone(v.paired_change(None, 3))


if __name__ == "__main__":
    unittest.main()


def test_sign_verdict_needs_every_seed_one_way_and_an_interval_off_zero():
    assert v.sign_verdict([None, None]) is None
    m, ci, lower, higher, p, verdict = v.sign_verdict([-10.0, -12, -9, -11, -10, -13, None])
    assert (m, lower, higher, round(p, 3), verdict) == (-10.5, 6, 0, 0.031, "consistently lower") and ci[1] < 0
    assert v.sign_verdict([5.0, 6, 4, 7, 5, -1])[-1] == "not consistent"
    assert v.sign_verdict([5.0, 6, 4, 7, 5, 8])[-1] == "consistently higher"


def test_a_claim_held_against_its_own_statistic_never_falls_back_to_the_pooled_interval():
    # Six workloads all -20 %: the pooled interval contains the paper's -20 %, but the
    # claim's own statistic had no defined interval, so its size is not reached.
    wls = {f"w{i}": [[-20.0, -20.0]] for i in range(6)}
    assert v.summarize(wls, -1, -20.0)["verdict"] == v.REPRODUCED
    assert v.summarize(wls, -1, -20.0, size_ci=None, own_size=True)["verdict"] == v.SIZE_SMALLER
    assert v.summarize(wls, -1, -20.0, size_ci=(-25.0, -15.0), own_size=True)["verdict"] == v.REPRODUCED


def test_benjamini_hochberg_steps_up():
    # Hand-computed, m = 4, bounds 0.0125, 0.025, 0.0375, 0.05: 0.2 fails its bound, 0.03 passes
    # its (rank 3), so ranks 1-3 stay significant.
    out = v.benjamini_hochberg([0.02, 0.2, 0.03, 0.001])
    assert [kept for kept, _ in out] == [True, False, True, True]
    assert [round(b, 5) for _, b in out] == [0.025, 0.05, 0.0375, 0.0125]
    # The step up: 0.02 is above its own rank's bound (0.05 / 3) but below rank 2's 0.026 < 0.0333.
    assert [kept for kept, _ in v.benjamini_hochberg([0.02, 0.026, 0.9])] == [True, True, False]
    # None below its bound: nothing stays.
    assert not any(kept for kept, _ in v.benjamini_hochberg([0.04, 0.04, 0.04, 0.5]))
    # One hypothesis: the plain 5 % rule.
    assert v.benjamini_hochberg([0.049]) == [(True, 0.05)] and v.benjamini_hochberg([0.05]) == [(False, 0.05)]


def test_two_six_workload_claims_among_four_reach_no_verdict():
    # Six workloads all one way: sign test and exact Wilcoxon both give 2/64 = 0.03125,
    # significant alone; beside two claims at p = 1 it is above rank 2's bound 0.05 * 2 / 4.
    wls = {f"w{i}": [[-10.0 - i, -11.0 - i]] for i in range(6)}
    flat = {f"w{i}": [[0.0]] for i in range(6)}
    alone = v.summarize(wls, -1, None)
    assert alone["verdict"] == v.REPRODUCED and math.isclose(v.claim_p(alone), 2 / 64)
    assert v.family_adjust([alone]) == [alone] and alone["verdict"] == v.REPRODUCED
    a, b = v.summarize(wls, -1, None), v.summarize(wls, +1, None)  # the second contradicted alone
    v.family_adjust([a, b, v.summarize(flat, -1, None), v.summarize(flat, -1, None)])
    assert (a["verdict"], a["verdict_alone"], b["verdict"], b["verdict_alone"]) == (
        v.INCONCLUSIVE, v.REPRODUCED, v.INCONCLUSIVE, v.CONTRADICTED)
    assert a["family"] == (4, 0.0125, False) and "over 4 claims" in v.family_note(a)
    # The two alone are a family both stay significant in; equivalence claims stay out of it.
    a, b = v.summarize(wls, -1, None), v.summarize(wls, -1, None)
    d = dict(v.summarize(flat, -1, None), equivalent=True)
    v.family_adjust([a, b, d])
    assert (a["verdict"], b["verdict"]) == (v.REPRODUCED, v.REPRODUCED) and "verdict_alone" not in a
    assert a["family"][0] == 2 and "family" not in d and v.family_note(a) == ""
    # A claim no workload could test is no test: beside it the two stay a family of two.
    a, b, empty = v.summarize(wls, -1, None), v.summarize(wls, -1, None), v.summarize({}, -1, None)
    v.family_adjust([a, b, empty])
    assert a["family"][0] == 2 and "family" not in empty and a["verdict"] == v.REPRODUCED
