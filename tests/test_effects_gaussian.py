"""effect_over_graphs on continuous data: per-DAG Gaussian effects (the ida coefficient),
the class enumeration, and the Normal draws of parameter uncertainty."""

import numpy as np
import pandas as pd
import pytest

from skbn import BootstrapStructure, HillClimbStructure
from skbn.causal import effect_over_graphs, ida
from skbn.graph import dag_to_cpdag


def chain_data(n=3000, seed=0):
    """a -> x -> y, a -> y, z -> y: total effect of x on y is 0.8."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    x = 0.7 * a + rng.normal(size=n)
    z = rng.normal(size=n)
    y = 0.8 * x + 0.5 * a - 0.4 * z + rng.normal(size=n)
    return pd.DataFrame({"a": a, "x col": x, "z.v": z, "y": y})


TRUE = [("a", "x col"), ("x col", "y"), ("a", "y"), ("z.v", "y")]


def ols(X, columns, target):
    """Least squares with an intercept: coefficients and their standard errors, by numpy."""
    A = np.column_stack([np.ones(len(X))] + [X[c].to_numpy() for c in columns])
    beta, rss, *_ = np.linalg.lstsq(A, X[target].to_numpy(), rcond=None)
    sigma2 = rss[0] / (len(X) - A.shape[1])
    return beta[1:], np.sqrt(sigma2 * np.diag(np.linalg.inv(A.T @ A))[1:])


def test_each_dag_gives_the_regression_coefficient_or_zero():
    X = chain_data()
    reversed_ = [("x col", "a"), ("y", "x col"), ("y", "a"), ("z.v", "y")]  # y -> x: no effect
    out = effect_over_graphs(X, [TRUE, reversed_], "x col", "y", equivalence_class=False)
    beta, _ = ols(X, ["x col", "a"], "y")
    assert out.effects[0] == pytest.approx(beta[0], rel=1e-10)
    assert out.effects[1] == 0.0 and list(out.causes) == [True, False]
    assert out.estimate == pytest.approx(beta[0] / 2, rel=1e-10)
    assert out.prob_causes == 0.5


def test_the_class_gives_global_ida_weighted_by_dags():
    X = chain_data()
    skeleton = [("a", "x col"), ("x col", "y")]  # a chain: its class has 3 DAGs
    out = effect_over_graphs(X[["a", "x col", "y"]], [skeleton], "x col", "y")
    table = ida(X[["a", "x col", "y"]], dag_to_cpdag(["a", "x col", "y"], skeleton), "x col", "y",
                method="global")
    expected = np.repeat(table["effect"].to_numpy(), table["n_dags"].to_numpy())
    np.testing.assert_allclose(np.sort(out.effects), np.sort(expected), rtol=1e-10)
    np.testing.assert_allclose(out.weights, np.full(3, 1 / 3))


def test_parameter_draws_follow_the_coefficients_sampling_distribution():
    X = chain_data(n=400, seed=1)
    out = effect_over_graphs(X, [TRUE] * 4000, "x col", "y", equivalence_class=False,
                             parameter_uncertainty=True, random_state=0)
    beta, se = ols(X, ["x col", "a"], "y")
    assert out.effects.mean() == pytest.approx(beta[0], abs=4 * se[0] / np.sqrt(4000))
    assert out.effects.std() == pytest.approx(se[0], rel=0.05)
    again = effect_over_graphs(X, [TRUE] * 10, "x col", "y", equivalence_class=False,
                               parameter_uncertainty=True, random_state=0)
    np.testing.assert_array_equal(again.effects, out.effects[:10])


def test_bootstrap_interval_covers_the_true_effect():
    X = chain_data(n=2000, seed=2)
    boot = BootstrapStructure(HillClimbStructure(), n_resamples=15, keep_graphs=True,
                              random_state=0).fit(X)
    out = effect_over_graphs(X, boot, "x col", "y", parameter_uncertainty=True, random_state=0)
    # x -> y is compelled (v-structures at y), a - x is not: the class mixes the adjusted
    # effect (0.8) and the confounded one; the interval covers the truth
    assert out.prob_causes == pytest.approx(1.0)
    assert out.interval[0] <= 0.8 <= out.interval[1]


def test_bad_input():
    X = chain_data(n=300)
    with pytest.raises(ValueError, match="apply to discrete data"):
        effect_over_graphs(X, [TRUE], "x col", "y", x_value=1.0, y_value=2.0)
    # a discrete outcome of a continuous treatment is refused (a discrete parent of x is
    # not: the effect is averaged over its strata, tests/test_causal_clg.py)
    mixed = X.assign(y=np.where(X["y"] > 0, "hi", "lo"))
    with pytest.raises(ValueError, match="discrete but others are continuous"):
        effect_over_graphs(mixed, [[("y", "x col"), ("a", "x col")]], "x col", "y",
                           equivalence_class=False)
    holes = X.copy()
    holes.iloc[3, 0] = np.nan
    with pytest.raises(ValueError, match="complete rows"):
        effect_over_graphs(holes, [TRUE], "x col", "y", equivalence_class=False)


def _distribution(out):
    found = {}
    for value, weight in zip(out.effects, out.weights):
        key = round(float(value), 10)
        found[key] = found.get(key, 0.0) + weight
    return found


@pytest.mark.parametrize("seed", range(6))
def test_component_enumeration_gives_the_whole_class_distribution(seed):
    # only x's chain component is enumerated; the whole class (every DAG, taken as given)
    # must give the same distribution of effects and the same probability of an effect
    from skbn.causal import equivalent_dags
    from skbn.graph import random_dag

    nodes, edges = random_dag(7, 0.45, random_state=seed, shuffle=True)
    rng = np.random.default_rng(seed)
    values = {}
    order = list(nodes)
    done = set()
    while len(done) < len(order):
        for v in order:
            parents = [u for u, w in edges if w == v]
            if v in done or not set(parents) <= done:
                continue
            values[v] = sum(rng.uniform(0.5, 1.5) * values[u] for u in parents) + rng.normal(size=800)
            done.add(v)
    X = pd.DataFrame({v: values[v] for v in nodes})
    cpdag = dag_to_cpdag(nodes, edges)
    members = equivalent_dags(cpdag, max_dags=5000)
    for x in nodes[:4]:
        for y in nodes:
            if x == y:
                continue
            ours = effect_over_graphs(X, [edges], x, y)
            whole = effect_over_graphs(X, members, x, y, equivalence_class=False)
            assert len(ours.effects) <= len(whole.effects)
            a, b = _distribution(ours), _distribution(whole)
            assert a.keys() == b.keys()
            for key in a:
                assert a[key] == pytest.approx(b[key], abs=1e-12)
            assert ours.prob_causes == pytest.approx(whole.prob_causes, abs=1e-12)
