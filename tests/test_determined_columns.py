"""Columns exactly determined by others, reported by every structure learner's fit.

Continuous columns that are exact linear functions of others (a duplicated column, a change
of units, a total) are found from the moments. Given the columns that determine it such a
column is constant, so PC finds it independent of everything and a Gaussian score gives its
family -inf (bnlearn's rule): on ``a, b = a, c = a + noise`` PC left ``c`` unconnected and
MMHC returned no edge at all, without a word. Discrete columns that are one-to-one recodings
of each other (labels beside their codes) do the same to PC and MMHC, which lost the edge
from the labels to the column they cause.
"""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from _learners import CONFIGURATIONS, make

from skbn._counting import linear_dependencies, moments, one_to_one_pairs
from skbn.exceptions import DeterminedColumnsWarning


def _scatter(columns):
    return moments(np.column_stack(columns)).scatter[0]


def test_linear_dependencies_name_each_determined_column_and_its_predictors():
    rng = np.random.default_rng(0)
    a, c, e = rng.normal(size=(3, 300))
    b = a.copy()  # a duplicate
    f = 1.8 * c + 32.0  # a change of units
    total = a + 2.0 * e  # a total of two others
    scatter = _scatter([a, b, c, e, f, total])
    assert linear_dependencies(scatter) == [(1, (0,)), (4, (2,)), (5, (0, 3))]
    # taken in another order, each column is reported as a function of those before it
    # (b, left out, is not a predictor of a: a = total - 2 e)
    assert linear_dependencies(scatter, order=[5, 4, 3, 2, 1, 0]) == [(2, (4,)), (1, (5, 3)), (0, (5, 3))]
    assert linear_dependencies(scatter, limit=2) == [(1, (0,)), (4, (2,))]


def test_linear_dependencies_brute_force_on_random_subsets():
    """Against the definition: a column is reported iff its residual variance given the
    columns kept before it is (relatively) 0, computed by least squares on the rows."""
    rng = np.random.default_rng(1)
    for trial in range(40):
        k = int(rng.integers(2, 7))
        base = rng.normal(size=(200, k))
        for j in range(1, k):  # some columns made exact combinations of earlier ones
            if rng.random() < 0.4:
                picked = rng.choice(j, size=int(rng.integers(1, j + 1)), replace=False)
                base[:, j] = base[:, picked] @ rng.normal(size=len(picked)) + rng.normal()
        order = rng.permutation(k)
        found = dict(linear_dependencies(_scatter(list(base.T)), order=order))
        kept = []
        for j in order:
            column = base[:, j] - base[:, j].mean()
            if kept:
                design = base[:, kept] - base[:, kept].mean(axis=0)
                column = column - design @ np.linalg.lstsq(design, column, rcond=None)[0]
            determined = np.sum(column ** 2) <= 1e-10 * np.sum((base[:, j] - base[:, j].mean()) ** 2)
            assert (int(j) in found) == determined, trial
            if not determined:
                kept.append(int(j))
            else:
                assert set(found[int(j)]) <= set(kept)


def test_linear_dependencies_are_invariant_to_the_scale_and_ignore_noisy_relations():
    rng = np.random.default_rng(2)
    a, noise = rng.normal(size=(2, 500))
    for scale in (1e-12, 1.0, 1e12):
        assert linear_dependencies(_scatter([a * scale, 3.0 * a * scale + 1e6 * scale])) == [(1, (0,))]
    # a relation with noise of 1e-4 of the spread is not exact: nothing to report
    assert linear_dependencies(_scatter([a, a + 1e-4 * noise])) == []
    assert linear_dependencies(_scatter([a, noise])) == []


def _duplicated(n=300, seed=3):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    return pd.DataFrame({"c": a + rng.normal(size=n), "a": a, "a copy": a,
                         "d": rng.normal(size=n)})


def _determined_warnings(estimator, X):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(X)
    return [str(w.message) for w in caught if issubclass(w.category, DeterminedColumnsWarning)]


LEARNERS = [name for name in CONFIGURATIONS if name not in ("fixed", "tan", "pc_g_test", "pc_bayes_factor")]


@pytest.mark.parametrize("name", LEARNERS)
def test_every_learner_reports_a_duplicated_continuous_column(name):
    estimator = make(name, fit_parameters=False) if name != "bootstrap" else make(name)
    messages = _determined_warnings(estimator, _duplicated())
    assert messages, name
    assert "'a copy' (a linear function of 'a')" in messages[0]
    assert _determined_warnings(make(name, fit_parameters=False) if name != "bootstrap" else make(name),
                               _duplicated().drop(columns="a copy")) == []


def test_the_report_does_not_depend_on_the_column_order():
    X = _duplicated()
    expected = None
    for columns in itertools.permutations(X.columns):
        messages = _determined_warnings(make("hill_climb", fit_parameters=False), X[list(columns)])
        assert len(messages) == 1
        expected = expected or messages[0]
        assert messages[0] == expected


def test_a_total_on_mixed_data_is_reported_and_the_discrete_column_is_not():
    rng = np.random.default_rng(4)
    n = 400
    x, y = rng.normal(size=(2, n))
    X = pd.DataFrame({"group": np.where(x > 0, "hi", "lo"), "x": x, "y": y, "x plus y": x + y})
    messages = _determined_warnings(make("hill_climb", fit_parameters=False), X)
    assert len(messages) == 1
    assert "'y' (a linear function of 'x', 'x plus y')" in messages[0]
    assert "'group'" not in messages[0]


def test_no_report_without_room_for_independent_columns():
    """With no more rows than continuous columns they are always dependent: PC's documented
    rule for too-small conditioning sets applies, no warning is given."""
    rng = np.random.default_rng(5)
    X = pd.DataFrame(rng.normal(size=(6, 8)), columns=[f"v{j}" for j in range(8)])
    assert _determined_warnings(make("pc", fit_parameters=False), X) == []


def test_fixed_structure_learns_no_structure_and_does_not_report():
    """FixedStructure is given its graph: a family of collinear parents is refused by name
    (``tests/test_ges_incremental.py``), other collinear columns are no concern of it."""
    X = _duplicated()
    assert _determined_warnings(make("fixed", edges=[("a", "c")], fit_parameters=False), X) == []


def test_one_to_one_pairs_against_the_definition():
    """A pair is reported iff every state of each column occurs with one state of the other
    (checked on the rows), for random small columns, recodings and many-to-one maps."""
    rng = np.random.default_rng(6)
    for trial in range(200):
        n = int(rng.integers(1, 30))
        base = rng.integers(0, int(rng.integers(1, 4)), n)
        columns = [base, rng.permutation(3)[base], np.minimum(base, 1), rng.integers(0, 3, n), base.copy()]
        codes = np.column_stack(columns)
        order = [int(j) for j in rng.permutation(len(columns))]
        expected = []
        for i, a in enumerate(order):
            for b in order[i + 1:]:
                pairs = set(zip(codes[:, a].tolist(), codes[:, b].tolist()))
                observed = len(set(codes[:, a].tolist()))
                if observed > 1 and len(pairs) == observed == len(set(codes[:, b].tolist())):
                    expected.append((a, b))
        found = one_to_one_pairs(codes, order)
        assert sorted(found) == sorted(expected), trial
        assert all(order.index(a) < order.index(b) for a, b in found)


def test_one_to_one_pairs_leave_out_columns_with_missing_cells():
    codes = np.array([[0, 1, 1], [1, 0, 0], [0, 1, -1], [1, 0, 0]])
    assert one_to_one_pairs(codes, [0, 1, 2]) == [(0, 1)]


def _recoded(n=2000, seed=7):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    caused = np.where(rng.random(n) < 0.8, a, rng.integers(0, 3, n))
    return pd.DataFrame({"a": [f"s{v}" for v in a], "a code": a, "c": caused, "d": rng.integers(0, 2, n)})


@pytest.mark.parametrize("name", ["pc", "pc_g_test", "mmhc", "mmhc_pc"])
def test_learners_with_tests_report_discrete_recodings(name):
    messages = _determined_warnings(make(name, fit_parameters=False), _recoded())
    assert len(messages) == 1
    assert "'a' and 'a code' (one-to-one recodings of each other)" in messages[0]
    assert _determined_warnings(make(name, fit_parameters=False), _recoded().drop(columns="a code")) == []


def test_score_based_learners_keep_the_edges_of_a_recoding_and_are_not_told():
    X = _recoded()
    model = make("hill_climb", fit_parameters=False)
    assert _determined_warnings(model, X) == []
    assert {frozenset(e) for e in model.edges_} >= {frozenset(("a", "c"))}


def test_the_oracle_reads_no_data_and_a_bad_test_is_refused_first():
    from skbn.citests import DSeparationOracle

    X = _recoded()
    oracle = DSeparationOracle((list(X.columns), [("a", "c"), ("a", "a code")]))
    assert _determined_warnings(make("pc", ci_test=oracle, fit_parameters=False), X) == []
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeterminedColumnsWarning)
        with pytest.raises(ValueError, match="ci_test"):
            make("pc", ci_test="x3").fit(X)
