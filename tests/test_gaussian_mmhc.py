"""MMHC on continuous and mixed data: the restrict phase with the Gaussian / CLG tests, the
maximise phase with the Gaussian / CLG scores, and a Gaussian or CLG network after it."""

import numpy as np
import pytest

from skbn import HillClimbStructure, MMHCStructure
from skbn.datasets import make_random_network
from skbn.graph import dag_to_cpdag
from skbn.network import CLGBayesianNetwork, GaussianBayesianNetwork


def skeleton(edges):
    return {frozenset(e) for e in edges}


@pytest.mark.parametrize("restrict", ["mmpc", "pc"])
def test_gaussian_mmhc_recovers_the_skeleton_from_many_rows(restrict):
    net = make_random_network(8, kind="gaussian", random_state=3)
    X = net.sample(20_000, random_state=0)
    model = MMHCStructure(restrict=restrict).fit(X)
    assert isinstance(model.network_, GaussianBayesianNetwork)
    assert type(model.scorer_).__name__ == "GaussianBIC" and type(model.ci_test_).__name__ == "FisherZ"
    assert skeleton(model.edges_) == skeleton(net.edges)
    # the maximise phase is hill climbing on the skeleton: same score as HC restricted to it
    hc = HillClimbStructure(black_list=[(u, v) for u in X for v in X
                                        if u != v and frozenset((u, v)) not in skeleton(model.skeleton_)])
    assert hc.fit(X).score_ == pytest.approx(model.score_, rel=1e-12)


def test_clg_mmhc_keeps_the_conditional_gaussian_rule():
    net = make_random_network(10, kind="clg", random_state=0)
    X = net.sample(5_000, random_state=1)
    model = MMHCStructure().fit(X)
    assert isinstance(model.network_, CLGBayesianNetwork)
    continuous = {name for name, kind in model.column_types_.items() if kind == "continuous"}
    assert not any(u in continuous and v not in continuous for u, v in model.edges_)
    assert dag_to_cpdag(list(X.columns), model.edges_) == dag_to_cpdag(list(X.columns), net.edges)
    assert np.isfinite(model.score(X))
