"""K2 search against a slow reference and on the ALARM network."""

import numpy as np
import pandas as pd
import pytest
from conftest import shared_network

from skbn import K2Structure
from skbn._data import encode_fit
from skbn._engines._local_scores import FamilyScoreCache
from skbn.metrics import structural_hamming_distance
from skbn.scores import BIC, BDeu, K2Score


def _k2_slow(X, order, scorer, max_parents):
    """Cooper & Herskovits' procedure K2, literally, with recounted families."""
    data, _ = encode_fit(X)
    names = list(X.columns)
    cache = FamilyScoreCache(data, scorer)
    edges = []
    for position, name in enumerate(order):
        child = names.index(name)
        parents, best = [], cache.local_score(child, [])
        while len(parents) < max_parents:
            candidates = sorted(names.index(v) for v in order[:position] if names.index(v) not in parents)
            scored = [(cache.local_score(child, parents + [c]), c) for c in candidates]
            if not scored:
                break
            value, choice = max(scored, key=lambda t: (t[0], -t[1]))
            if value <= best + 1e-10 * (1 + abs(best)):
                break
            parents.append(choice)
            best = value
        edges += [(names[p], name) for p in sorted(parents)]
    return edges


def _correlated_frame(n, seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    b = (a + (rng.random(n) < 0.2)) % 2
    c = (a * b + rng.integers(0, 2, n)) % 3
    d = np.where(rng.random(n) < 0.7, c % 2, rng.integers(0, 2, n))
    e = rng.integers(0, 2, n)
    return pd.DataFrame({"a": a, "b": b, "c": c, "d": d, "e": e})


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("scorer", [K2Score(), BDeu(ess=2), BIC()], ids=["k2", "bdeu", "bic"])
def test_matches_the_literal_procedure(seed, scorer):
    X = _correlated_frame(600, seed)
    order = list(np.random.default_rng(seed).permutation(X.columns))
    for max_parents in (1, 3):
        model = K2Structure(ordering=order, scorer=scorer, max_indegree=max_parents).fit(X)
        assert sorted(model.edges_) == sorted(_k2_slow(X, order, scorer, max_parents))
        assert model.score_ == pytest.approx(scorer.score(X, model.edges_))


def test_parents_only_come_earlier_in_the_ordering():
    X = _correlated_frame(1000, 9)
    order = ["e", "d", "c", "b", "a"]
    model = K2Structure(ordering=order).fit(X)
    assert all(order.index(p) < order.index(c) for p, c in model.edges_)
    assert model.ordering_ == order


def test_bad_orderings_are_refused():
    X = _correlated_frame(50, 0)
    with pytest.raises(ValueError, match="unknown columns"):
        K2Structure(ordering=["a", "b", "c", "d", "zz"]).fit(X)
    with pytest.raises(ValueError, match="duplicates"):
        K2Structure(ordering=["a", "a", "c", "d", "e"]).fit(X)
    with pytest.raises(ValueError, match="missing"):
        K2Structure(ordering=["a", "b"]).fit(X)
    with pytest.raises(ValueError, match="max_indegree"):
        K2Structure(max_indegree=-1).fit(X)


def test_target_from_y_is_first_in_the_default_ordering():
    X = _correlated_frame(800, 1)
    y = X.pop("a")
    with pytest.warns(UserWarning, match="causal ordering"):
        model = K2Structure().fit(X, y)
    assert model.ordering_[0] == "a" and any(p == "a" for p, _ in model.edges_)



def test_target_named_by_target_is_the_model_of_y():
    # fit(X, y) put the target first in the default ordering but fit(X_y, target=) left it
    # at its name's place (another ordering, another model: on sample_asia(2000) with
    # target 'lung', 11 edges with 'lung' a parent of five columns, against 10 edges with
    # 'lung' a child of 'either'); and a given ordering could leave out y but not the
    # target= column. The base fit's contract: fit(X, y) fits the model of fit(X_y, target=).
    X = _correlated_frame(800, 1)
    with pytest.warns(UserWarning, match="causal ordering"):
        from_y = K2Structure().fit(X.drop(columns="c"), X["c"])
    with pytest.warns(UserWarning, match="causal ordering"):
        named = K2Structure(target="c").fit(X)
    assert named.ordering_ == from_y.ordering_ and named.ordering_[0] == "c"
    assert sorted(named.edges_) == sorted(from_y.edges_)
    assert named.score_ == pytest.approx(from_y.score_, rel=1e-12)
    given = [v for v in X.columns if v != "c"][::-1]
    left_out = K2Structure(target="c", ordering=given).fit(X)
    assert left_out.ordering_ == ["c", *given]
    from_y_given = K2Structure(ordering=given).fit(X.drop(columns="c"), X["c"])
    assert sorted(left_out.edges_) == sorted(from_y_given.edges_)

def test_recovers_most_of_alarm_with_the_true_ordering():
    truth = shared_network("alarm")
    X = truth.sample(10_000, random_state=0)
    order = truth.topological_order()
    model = K2Structure(ordering=order, scorer="bdeu").fit(X)
    shd = structural_hamming_distance(truth.edges, model.edges_, nodes=truth.nodes)
    recall = len(set(truth.edges) & set(model.edges_)) / len(truth.edges)
    assert recall >= 0.9 and shd <= 10, (shd, recall)


def test_name_order_default_warns_once_per_fit_and_a_given_ordering_does_not():
    import warnings

    X = _correlated_frame(300, 0)[list("dbeac")]  # columns not in name order
    with pytest.warns(UserWarning, match=r"sorted by name as the causal ordering.*HillClimb") as record:
        default = K2Structure().fit(X)
    assert sum("causal ordering" in str(w.message) for w in record) == 1
    assert default.ordering_ == list("abcde")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        given = K2Structure(ordering=list("abcde")).fit(X)
        K2Structure().fit(X[["a"]])  # one column: no ordering to choose
    assert given.edges_ == default.edges_  # same ordering, same graph: the warning only informs


def test_column_order_matters_which_is_why_it_warns():
    """Reversing the columns (a wrong causal order) changes K2's graph on the same data."""
    X = _correlated_frame(2000, 1)
    forward = K2Structure(ordering=list("abcde")).fit(X)
    backward = K2Structure(ordering=list("edcba")).fit(X)
    assert set(forward.edges_) != set(backward.edges_)
