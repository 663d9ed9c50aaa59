"""The count of CI tests decided by the heuristic power rule (``n_power_rule_tests_``) and its
one ``PowerRuleWarning`` per fit, in every learner that runs CI tests besides PC: MMHC (both
restrict phases), PCSelect and BootstrapStructure (one warning summing its resamples).

The chi-square and G tests report dependence (``pvalue = 0``) for a test with fewer than
``min_samples_per_dof`` samples per degree of freedom; the expected counts below are
recomputed test by test through the public ``ci_test`` from each test's ``dof``.
"""

import warnings
from itertools import combinations

import numpy as np
import pytest
from test_pc_power_rule import _many_states

import skbn._engines._ci_runner as ci_runner
from skbn import BootstrapStructure, HillClimbStructure, MMHCStructure, PCSelect, PCStructure
from skbn.checking import ci_test
from skbn.citests import ChiSquare, GTest
from skbn.exceptions import PowerRuleWarning


def _n_rule(frame, keys, test):
    """How many of the tests ``(x, y, S)`` (column names) have fewer than 5 rows per
    degree of freedom (complete, unweighted data: the sample size is the row count)."""
    n = 0
    for x, y, subset in keys:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # ci_test's own warning
            n += len(frame) < 5 * ci_test(frame, x, y, list(subset), test=test).dof
    return n


def _one_warning(caught):
    rule = [w for w in caught if w.category is PowerRuleWarning]
    assert len(rule) == 1 and rule[0].filename == __file__  # once per fit, at the user's line
    assert "min_samples_per_dof=0" in str(rule[0].message)
    return str(rule[0].message)


@pytest.mark.parametrize("test", [ChiSquare(), GTest()])
def test_mmpc_counts_its_distinct_tests_decided_by_the_rule(test, monkeypatch):
    frame = _many_states()
    names = sorted(frame.columns)
    seen = set()  # the conditional tests MMPC ran (the unconditional ones: every pair)
    cached = ci_runner.CITestRunner.cached

    def recording(self, keys):
        seen.update(keys)
        return cached(self, keys)

    monkeypatch.setattr(ci_runner.CITestRunner, "cached", recording)
    with pytest.warns(PowerRuleWarning) as caught:
        model = MMHCStructure(ci_test=test).fit(frame)
    keys = [(x, y, ()) for x, y in combinations(names, 2)]
    keys += [(names[x], names[y], [names[v] for v in s]) for x, y, s in sorted(seen)]
    assert model.n_tests_ == len(keys)
    expected = _n_rule(frame, keys, test)
    assert 0 < expected < len(keys) and model.n_power_rule_tests_ == expected
    assert f"MMHCStructure: {type(test).__name__}'s power rule decided {expected} of the " \
           f"{len(keys)} CI tests" in _one_warning(caught)


def test_mmhc_pc_restriction_counts_as_pc_skeleton():
    # restrict="pc" runs PC's skeleton: its tests and their count are PC's (orient="standard"
    # runs no further tests), whose count tests/test_pc_power_rule.py checks test by test
    frame = _many_states()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PowerRuleWarning)
        pc = PCStructure(ci_test=GTest(), orient="standard").fit(frame)
    with pytest.warns(PowerRuleWarning) as caught:
        mmhc = MMHCStructure(ci_test=GTest(), restrict="pc").fit(frame)
    assert pc.n_power_rule_tests_ > 0 and mmhc.n_tests_ == pc.n_tests_
    assert mmhc.n_power_rule_tests_ == pc.n_power_rule_tests_
    _one_warning(caught)


def test_pc_select_counts_the_tests_it_ran(monkeypatch):
    frame = _many_states()
    X, y = frame.drop(columns="c"), frame["c"]
    ran = []  # every unit PCSelect's runner ran, and how many of its sets it tested
    run = ci_runner.CITestRunner.run

    def recording(self, units, stop_at_first, adjacency=None, *, timed=True):
        results = run(self, units, stop_at_first, adjacency, timed=timed)
        ran.extend((unit, len(result[0])) for unit, result in zip(units, results))
        return results

    monkeypatch.setattr(ci_runner.CITestRunner, "run", recording)
    with pytest.warns(PowerRuleWarning) as caught:
        model = PCSelect().fit(X, y)  # the discrete "auto" test: ChiSquare
    names = sorted(X.columns) + ["c"]  # the runner's columns: features in name order, target
    keys = [(names[x], "c", [names[v] for v in s]) for (x, _, sets), k in ran for s in sets[:k]]
    assert model.n_tests_ == len(keys)
    expected = _n_rule(frame, keys, ChiSquare())
    assert 0 < expected and model.n_power_rule_tests_ == expected
    assert f"PCSelect: ChiSquare's power rule decided {expected} of the {len(keys)}" in _one_warning(caught)


def test_bootstrap_warns_once_with_the_sum_over_its_resamples(monkeypatch):
    frame = _many_states()
    fits = []  # (n_power_rule_tests_, n_tests_) of every resample's PC fit
    learn = PCStructure._learn_structure

    def recording(self, *args, **kwargs):
        edges = learn(self, *args, **kwargs)
        fits.append((self.n_power_rule_tests_, self.n_tests_))
        return edges

    monkeypatch.setattr(PCStructure, "_learn_structure", recording)
    with pytest.warns(PowerRuleWarning) as caught:
        model = BootstrapStructure(PCStructure(ci_test=ChiSquare()), n_resamples=4, random_state=0).fit(frame)
    message = _one_warning(caught)  # one warning, not one per resample
    assert len(fits) == 4 and all(n for n, _ in fits)
    expected, n_tests = sum(n for n, _ in fits), sum(n for _, n in fits)
    assert model.n_power_rule_tests_ == expected
    assert (f"BootstrapStructure: ChiSquare's power rule decided {expected} of the {n_tests} CI tests "
            "of its PCStructure fits on 4 resamples, 4 of which had any") in message


def test_mmhc_structural_em_warns_once_with_the_sum_over_its_searches(monkeypatch):
    # structural EM runs MMHC (its restrict phase too) on every expected completion: one
    # warning per fit, not per search, and n_power_rule_tests_ the searches' sum
    frame = _many_states()
    frame = frame.mask(np.random.default_rng(1).random(frame.shape) < 0.05)  # 5% missing cells
    searches = []  # (n_power_rule_tests_, n_tests_) of every search
    learn = MMHCStructure._learn_structure

    def recording(self, *args, **kwargs):
        edges = learn(self, *args, **kwargs)
        searches.append((self.n_power_rule_tests_, self.n_tests_))
        return edges

    monkeypatch.setattr(MMHCStructure, "_learn_structure", recording)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = MMHCStructure(ci_test=GTest(), missing="em", em_max_iter=5, random_state=0).fit(frame)
    message = _one_warning(caught)  # before: one PowerRuleWarning per search
    assert len(searches) >= 2 and all(n for n, _ in searches)
    expected, n_tests = sum(n for n, _ in searches), sum(n for _, n in searches)
    assert model.n_power_rule_tests_ == expected and model.n_tests_ == searches[-1][1]
    assert (f"MMHCStructure: GTest's power rule decided {expected:,} of the {n_tests:,} CI tests of "
            f"its {len(searches)} structural-EM searches, {len(searches)} of which had any") in message
    assert not hasattr(model, "_quiet_summaries") or not model._quiet_summaries  # a refit warns again


@pytest.mark.parametrize("make", [
    lambda test: MMHCStructure(ci_test=test),
    lambda test: MMHCStructure(ci_test=test, restrict="pc"),
    lambda test: BootstrapStructure(PCStructure(ci_test=test), n_resamples=3, random_state=0),
])
def test_no_rule_no_count_no_warning_and_refit_resets(make):
    frame = _many_states()
    with pytest.warns(PowerRuleWarning):
        model = make(ChiSquare()).fit(frame)
    assert model.n_power_rule_tests_ > 0
    with warnings.catch_warnings():
        warnings.simplefilter("error", PowerRuleWarning)
        # the rule switched off: a refit of the same model decides nothing by it
        model.set_params(**make(ChiSquare(min_samples_per_dof=0)).get_params()).fit(frame)
        assert model.n_power_rule_tests_ == 0


def test_enough_rows_no_count_no_warning():
    frame = _many_states(n_rows=4000)
    model = PCSelect()
    with pytest.warns(PowerRuleWarning):
        small = _many_states()
        assert model.fit(small.drop(columns="c"), small["c"]).n_power_rule_tests_ > 0
    with warnings.catch_warnings():
        warnings.simplefilter("error", PowerRuleWarning)
        for restrict in ["mmpc", "pc"]:
            assert MMHCStructure(ci_test=ChiSquare(), restrict=restrict).fit(frame).n_power_rule_tests_ == 0
        model.fit(frame.drop(columns="c"), frame["c"])  # a refit resets the count
        assert model.n_tests_ > 0 and model.n_power_rule_tests_ == 0


def test_no_ci_tests_count_zero():
    with warnings.catch_warnings():
        warnings.simplefilter("error", PowerRuleWarning)
        model = BootstrapStructure(HillClimbStructure(), n_resamples=2, random_state=0).fit(_many_states())
    assert model.n_power_rule_tests_ == 0
