"""Experimental rows (issue 21): ``fit(X, interventions=...)``.

The score of a family leaves out the rows where its child was set by intervention (Cooper &
Yoo 1999; bnlearn's ``mbde``), the CPT of a node is estimated from its non-intervened rows,
and HC / K2 return the interventional essential graph (Hauser & Bühlmann 2012).
"""

import itertools
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from conftest import shared_network
from sklearn.base import clone

from skbn import (
    BootstrapStructure,
    ChowLiuTree,
    FixedStructure,
    HillClimbStructure,
    K2Structure,
    MMHCStructure,
    PCStructure,
)
from skbn._counting import FamilyCounter
from skbn._data import encode_fit
from skbn._engines._local_scores import FamilyColumns, FamilyScoreCache
from skbn._engines._strategies import STRATEGIES
from skbn.graph import dag_to_cpdag, interventional_essential_graph, v_structures
from skbn.scores import AIC, BIC, BDeu, K2Score, LogLikelihood

SCORERS = [BDeu(), BDeu(ess=7.0), K2Score(), BIC(), AIC(), LogLikelihood()]


def small_data():
    """200 rows of A -> B, (A, B) -> C (the data of the bnlearn reference below)."""
    rng = np.random.default_rng(21)
    n = 200
    a = rng.integers(0, 2, n)
    b = (a + (rng.random(n) < 0.3)) % 2
    c = (a + b + rng.integers(0, 2, n)) % 3
    return pd.DataFrame({"A": a, "B": b, "C": c}).astype(str)


def small_mask():
    """A set in rows 1-50, B in rows 51-80 (bnlearn's ``exp = list(A = 1:50, B = 51:80)``)."""
    mask = pd.DataFrame(False, index=range(200), columns=["A", "B", "C"])
    mask.loc[:49, "A"] = True
    mask.loc[50:79, "B"] = True
    return mask


def encoded(X, mask=None, weights=None):
    data, _ = encode_fit(X, "auto")
    return replace(data, intervened=None if mask is None else np.asarray(mask, dtype=bool), weights=weights)


def mutilated_asia(sizes=None):
    """ASIA observational rows plus experiments: do(smoke), do(asia), do(tub), with their mask."""
    net = shared_network("asia")
    plan = [(4000, None), (2000, {"smoke": "yes"}), (2000, {"smoke": "no"}), (1000, {"asia": "yes"}),
            (1000, {"asia": "no"}), (1500, {"tub": "yes"}), (1500, {"tub": "no"})]
    if sizes is not None:
        plan = [(int(n * sizes), do) for n, do in plan]
    parts, masks = [], []
    for seed, (n, do) in enumerate(plan):
        rows = net.sample(n, random_state=seed, do=do)
        parts.append(rows)
        masks.append(pd.DataFrame({c: c in (do or {}) for c in rows.columns}, index=rows.index))
    return net, pd.concat(parts, ignore_index=True), pd.concat(masks, ignore_index=True)


# ------------------------------------------------------------------ scores
def test_interventional_bde_matches_bnlearn():
    # R 4.2, bnlearn 4.9, on small_data() written to CSV (character columns as factors):
    #   g <- model2network("[A][B|A][C|A:B]")
    #   score(g, d, type = "mbde", exp = list(A = 1:50, B = 51:80), iss = 1)   # -365.8377960934
    #   g2 <- model2network("[B][A|B][C|A:B]")
    #   score(g2, d, type = "mbde", exp = list(A = 1:50, B = 51:80), iss = 1)  # -370.7431266952
    #   score(g, d, type = "mbde", exp = list(A = 1:50, B = 51:80), iss = 7)   # -362.7315808129
    #   score(g, d, type = "bde", iss = 1)                                     # -421.2741986951
    data = encoded(small_data(), small_mask())
    cases = [(1.0, [(0, ()), (1, (0,)), (2, (0, 1))], -365.8377960934),
             (1.0, [(1, ()), (0, (1,)), (2, (0, 1))], -370.7431266952),
             (7.0, [(0, ()), (1, (0,)), (2, (0, 1))], -362.7315808129)]
    for ess, families, expected in cases:
        cache = FamilyScoreCache(data, BDeu(ess=ess))
        assert sum(cache.local_score(c, p) for c, p in families) == pytest.approx(expected, abs=1e-9)
    observational = FamilyScoreCache(encoded(small_data()), BDeu())
    observational_score = sum(observational.local_score(c, p) for c, p in cases[0][1])
    assert observational_score == pytest.approx(-421.2741986951, abs=1e-9)


def _deleted(data, child):
    keep = ~data.intervened[:, child]
    weights = None if data.weights is None else data.weights[keep]
    return replace(data, codes=np.asfortranarray(data.codes[keep]), weights=weights, intervened=None)


def _families(p, rng, n_families=25):
    for _ in range(n_families):
        child = int(rng.integers(p))
        others = [k for k in range(p) if k != child]
        size = int(rng.integers(0, min(3, p - 1) + 1))
        yield child, tuple(sorted(rng.choice(others, size, replace=False).tolist()))


@pytest.mark.parametrize("scorer", SCORERS, ids=repr)
def test_family_score_is_score_without_the_childs_intervened_rows(scorer):
    _, X, mask = mutilated_asia(sizes=0.25)
    for data in (encoded(small_data(), small_mask()), encoded(X, mask)):
        cache = FamilyScoreCache(data, scorer)
        rng = np.random.default_rng(0)
        for child, parents in _families(data.n_variables, rng):
            expected = FamilyScoreCache(_deleted(data, child), scorer).local_score(child, parents)
            assert cache.local_score(child, parents) == expected


@pytest.mark.parametrize("scorer", [BDeu(), BIC()], ids=repr)
@pytest.mark.parametrize("size", [0.25, 1.0])  # 3,250 rows: bincount; 13,000: the sparse product
def test_toggle_columns_use_each_childs_rows(scorer, size):
    # the batched candidate tables (added_parent_tables) and the parentless columns (Gram
    # matrix) of children with different masks: each equals the column on its own rows
    _, X, mask = mutilated_asia(sizes=size)
    data = encoded(X, mask)
    columns = FamilyColumns(data, scorer)
    for parents_of in [{c: () for c in range(8)}, {3: (2,), 1: (0,), 2: (), 0: (), 5: (1, 3), 4: (2,)}]:
        for child, parents in parents_of.items():  # smoke, asia, tub (masked) and the others
            got = columns.toggle_column(child, parents)
            want = FamilyColumns(_deleted(data, child) if data.intervened[:, child].any() else data,
                                 scorer).toggle_column(child, parents)
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-9)


def test_counter_keeps_one_gram_per_mask():
    data = encoded(small_data(), small_mask())
    counter = FamilyCounter(data)
    a, _ = counter.pair_table(2, 0), counter.pair_table(2, 1)
    np.testing.assert_array_equal(a, FamilyCounter(_deleted(data, 0)).pair_table(2, 0))
    np.testing.assert_array_equal(counter.pair_table(2, 1), FamilyCounter(_deleted(data, 1)).pair_table(2, 1))
    unmasked = FamilyCounter(encoded(small_data()))
    np.testing.assert_array_equal(counter.pair_table(0, 2), unmasked.pair_table(0, 2))
    assert counter.pair_table(2, 0).sum() == 150 and counter.pair_table(2, 1).sum() == 170
    assert counter.pair_table(0, 2).sum() == 200
    with pytest.raises(ValueError, match="different rows"):
        counter.pair_stack()
    assert not FamilyCounter(encoded(small_data())).masked


# ------------------------------------------------------------------ learners
def _masked_score(data, scorer, edges):
    cache = FamilyScoreCache(data, scorer)
    parents = {c: tuple(sorted(p for p, q in edges if q == c)) for c in range(data.n_variables)}
    return sum(cache.local_score(c, parents[c]) for c in range(data.n_variables))


@pytest.mark.parametrize("search", list(STRATEGIES))
def test_every_search_scores_with_the_masks(search):
    _, X, mask = mutilated_asia(sizes=0.25)
    est = HillClimbStructure(search=search, random_state=0, max_iter=60).fit(X, interventions=mask)
    data = encoded(X, mask)
    index = {n: i for i, n in enumerate(X.columns)}
    edges = [(index[u], index[v]) for u, v in est.edges_]
    assert est.score_ == pytest.approx(_masked_score(data, BDeu(), edges), rel=1e-12)


def test_k2_scores_with_the_masks():
    net, X, mask = mutilated_asia(sizes=0.25)
    est = K2Structure(ordering=net.nodes).fit(X, interventions=mask)
    index = {n: i for i, n in enumerate(X.columns)}
    edges = [(index[u], index[v]) for u, v in est.edges_]
    assert est.score_ == pytest.approx(_masked_score(encoded(X, mask), K2Score(), edges), rel=1e-12)
    assert est.interventional_cpdag_ == interventional_essential_graph(
        X.columns, est.edges_, [(), ("smoke",), ("asia",), ("tub",)])


def test_hill_climb_orients_what_observational_data_cannot():
    net, X, mask = mutilated_asia()
    est = HillClimbStructure().fit(X, interventions=mask)
    assert sorted(est.edges_) == sorted(net.edges)
    observational = dag_to_cpdag(net.nodes, net.edges)
    assert set(observational.undirected) == {("asia", "tub"), ("smoke", "lung"), ("smoke", "bronc")}
    # do(smoke) orients smoke -> lung and smoke -> bronc, do(asia) / do(tub) orient asia -> tub
    assert est.interventional_cpdag_.undirected == ()
    assert set(est.interventional_cpdag_.directed) == set(net.edges)
    # (tabu: plain hill climbing on the columns sorted by name, the tie rule, ends in a local
    # optimum without the v-structure tub -> either <- lung)
    # Without the mask the edges do(smoke) orients stay undirected. (On these rows the fit
    # without the mask also puts either -> asia in place of asia - tub, the do(asia) and
    # do(tub) rows read as observational ones; on the rows drawn before sample() broke its
    # ties by name it learned exactly the observational class.)
    observed = HillClimbStructure(search="tabu").fit(X).interventional_cpdag_
    assert {("smoke", "lung"), ("smoke", "bronc")} <= set(observed.undirected)


@pytest.mark.parametrize("truth", ["A->B", "B->A"])
def test_an_experiment_on_b_decides_the_direction(truth):
    # two variables, observational rows plus do(B): the CPDAG cannot orient A - B, the
    # experiment can, and the interventional score finds the true direction either way
    rng = np.random.default_rng(3)
    n_obs, n_do = 3000, 3000
    if truth == "A->B":
        a = rng.integers(0, 2, n_obs)
        b = np.where(rng.random(n_obs) < 0.85, a, 1 - a)
        a_do, b_do = rng.integers(0, 2, n_do), rng.integers(0, 2, n_do)  # B set: independent of A
    else:
        b = rng.integers(0, 2, n_obs)
        a = np.where(rng.random(n_obs) < 0.85, b, 1 - b)
        b_do = rng.integers(0, 2, n_do)
        a_do = np.where(rng.random(n_do) < 0.85, b_do, 1 - b_do)  # A still follows the set B
    X = pd.DataFrame({"A": np.r_[a, a_do], "B": np.r_[b, b_do]})
    targets = [set()] * n_obs + [{"B"}] * n_do
    est = HillClimbStructure().fit(X, interventions=targets)
    expected = [("A", "B")] if truth == "A->B" else [("B", "A")]
    assert est.edges_ == expected
    assert list(est.interventional_cpdag_.directed) == expected
    assert dag_to_cpdag(["A", "B"], expected).undirected == (("A", "B"),)


def test_child_experiments_orient_more_edges():
    net = shared_network("child")
    parts = [net.sample(6000, random_state=0)]
    masks = [pd.DataFrame(False, index=range(6000), columns=net.nodes)]
    for seed, node in enumerate(["Disease", "LungParench", "Sick"], start=1):
        for state in net.states[node]:
            rows = net.sample(1500, random_state=seed * 10 + len(parts), do={node: state})
            parts.append(rows)
            masks.append(pd.DataFrame({c: c == node for c in net.nodes}, index=rows.index))
    X, mask = pd.concat(parts, ignore_index=True), pd.concat(masks, ignore_index=True)
    est = HillClimbStructure().fit(X, interventions=mask)
    truth = set(net.edges)
    essential = est.interventional_cpdag_
    cpdag = dag_to_cpdag(X.columns, est.edges_)
    # the edges the experiments orient beyond the CPDAG: those between truly adjacent
    # nodes are oriented as in the true network
    gained = set(essential.directed) - set(cpdag.directed)
    true_adjacent = {e for e in gained if e in truth or e[::-1] in truth}
    assert len(true_adjacent) >= 5 and true_adjacent <= truth
    assert len(essential.undirected) < len(cpdag.undirected)


def test_cpts_from_the_rows_where_the_node_was_not_set():
    net, X, mask = mutilated_asia(sizes=0.25)
    fitted = FixedStructure(edges=net.edges).fit(X, interventions=mask).network_
    everything = FixedStructure(edges=net.edges).fit(X).network_
    for node in net.nodes:
        keep = ~mask[node].to_numpy()
        own = FixedStructure(edges=net.edges).fit(X[keep].reset_index(drop=True)).network_
        np.testing.assert_allclose(fitted.cpts[node], own.cpts[node], rtol=1e-12)
        if keep.all():
            np.testing.assert_array_equal(fitted.cpts[node], everything.cpts[node])
    # do(asia) rows are half "yes" (1 % in ASIA): P(asia) is estimated without them
    assert fitted.cpts["asia"][list(net.states["asia"]).index("yes")] < 0.02
    assert everything.cpts["asia"][list(net.states["asia"]).index("yes")] > 0.04


def test_no_interventions_is_bit_identical():
    _, X, _ = mutilated_asia(sizes=0.25)
    plain = HillClimbStructure(search="tabu").fit(X)
    for interventions in (None, pd.DataFrame(False, index=X.index, columns=X.columns), [()] * len(X),
                          np.zeros(X.shape, dtype=bool)):
        est = HillClimbStructure(search="tabu").fit(X, interventions=interventions)
        assert est.edges_ == plain.edges_ and est.score_ == plain.score_
        np.testing.assert_array_equal(est.trace_, plain.trace_)
        for node in X.columns:
            np.testing.assert_array_equal(est.network_.cpts[node], plain.network_.cpts[node])


def test_forms_of_interventions_agree():
    X, mask = small_data(), small_mask()
    as_lists = [[c for c in X.columns if mask.loc[i, c]] for i in range(len(X))]
    as_sets = [frozenset(row) for row in as_lists]
    fits = [HillClimbStructure().fit(X, interventions=m) for m in
            (mask, mask[["B", "A"]], mask.to_numpy(), as_lists, as_sets)]
    for est in fits[1:]:
        assert est.edges_ == fits[0].edges_ and est.score_ == fits[0].score_
    # arrays: integer column names in lists
    arr = HillClimbStructure().fit(X.to_numpy(), interventions=[[0] if m else [] for m in mask["A"]])
    assert arr.score_ == HillClimbStructure().fit(X, interventions=mask[["A"]]).score_


def test_weights_equal_replicated_rows():
    _, X, mask = mutilated_asia(sizes=0.2)
    w = np.random.default_rng(1).integers(1, 4, len(X))
    weighted = HillClimbStructure().fit(X, sample_weight=w, interventions=mask)
    repeated = HillClimbStructure().fit(X.loc[X.index.repeat(w)].reset_index(drop=True),
                                        interventions=mask.loc[mask.index.repeat(w)].reset_index(drop=True))
    assert weighted.edges_ == repeated.edges_
    assert weighted.score_ == pytest.approx(repeated.score_, rel=1e-10)
    assert weighted.interventional_cpdag_ == repeated.interventional_cpdag_
    for node in X.columns:
        np.testing.assert_allclose(weighted.network_.cpts[node], repeated.network_.cpts[node], rtol=1e-10)


def test_refit_and_clone_keep_nothing():
    X, mask = small_data(), small_mask()
    est = HillClimbStructure().fit(X, interventions=mask)
    fresh = clone(est).fit(X)
    assert est.fit(X).score_ == fresh.score_


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("bad, match", [
    (np.zeros((200, 2), dtype=bool), r"shape \(n_samples, n_features\) = \(200, 3\)"),
    (np.zeros((199, 3), dtype=bool), "shape"),
    (np.zeros((200, 3), dtype=int), "must be boolean"),
    (pd.DataFrame({"D": [False] * 200}), "column 'D', which is not a column of X"),
    (pd.DataFrame({"A": [0] * 200}), "column 'A' must be boolean"),
    (pd.DataFrame({"A": [False] * 199}), "199 rows but X has 200"),
    ([["A"]] * 199, "199 rows but X has 200"),
    ([[]] * 10 + [["Z"]] + [[]] * 189, r"interventions\[10\] names 'Z'"),
    ([[]] * 5 + ["A"] + [[]] * 194, r"interventions\[5\] must be a collection of column names"),
    ([["A"]] * 200, "column 'A' is intervened on in every row"),
])
def test_bad_interventions_name_the_problem(bad, match):
    with pytest.raises(ValueError, match=match):
        HillClimbStructure().fit(small_data(), interventions=bad)


def test_fully_intervened_column_counts_positive_weights_only():
    w = np.r_[np.zeros(50), np.ones(150)]
    mask = pd.DataFrame({"A": np.r_[np.zeros(50, bool), np.ones(150, bool)]})
    with pytest.raises(ValueError, match="every row"):
        HillClimbStructure().fit(small_data(), sample_weight=w, interventions=mask)


@pytest.mark.parametrize("learner, why", [
    (PCStructure(), "not used by PC yet"), (MMHCStructure(), "not used by MMHC yet"),
    (ChowLiuTree(), "pairwise"),
    (BootstrapStructure(PCStructure()), "its estimator PCStructure does not accept"),
])
def test_other_learners_refuse(learner, why):
    with pytest.raises(ValueError, match=why) as info:
        learner.fit(small_data(), interventions=small_mask())
    assert "HillClimbStructure, K2Structure, FixedStructure" in str(info.value)


def test_unsupported_inputs_refused():
    X = small_data()
    with pytest.raises(ValueError, match="in-memory X"):
        HillClimbStructure().fit([X.iloc[:100], X.iloc[100:]], interventions=small_mask())
    with pytest.raises(ValueError, match="missing='error'"):
        HillClimbStructure(missing="complete_case").fit(X, interventions=small_mask())


# ------------------------------------------------------------------ the essential graph
def _all_dags(n):
    pairs = list(itertools.combinations(range(n), 2))
    for choice in itertools.product((0, 1, 2), repeat=len(pairs)):  # absent, i -> j, j -> i
        edges = [(i, j) if c == 1 else (j, i) for (i, j), c in zip(pairs, choice) if c]
        if _acyclic(n, edges):
            yield tuple(sorted(edges))


def _acyclic(n, edges):
    indegree = [sum(1 for _, v in edges if v == k) for k in range(n)]
    ready, seen = [k for k in range(n) if indegree[k] == 0], 0
    while ready:
        k = ready.pop()
        seen += 1
        for u, v in edges:
            if u == k:
                indegree[v] -= 1
                if indegree[v] == 0:
                    ready.append(v)
    return seen == n


def _class_key(n, edges, targets):
    """Hauser & Bühlmann's criterion, by definition: skeleton, v-structures and, for every
    target I, the skeleton without the edges into I."""
    skeleton = frozenset(frozenset(e) for e in edges)
    cut = tuple(frozenset(frozenset(e) for e in edges if e[1] not in set(t)) for t in targets)
    return skeleton, frozenset(v_structures(range(n), edges)), cut


FAMILIES = [[()], [(), (0,)], [(), (1,)], [(), (0, 1)], [(), (1, 2)], [(0,), (1,)], [(), (0,), (2,)],
            [(), (0, 1, 2)], [(0,), (1, 2)]]


@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.parametrize("targets", FAMILIES, ids=str)
def test_essential_graph_is_what_the_class_shares(n, targets):
    dags = list(_all_dags(n))
    assert len(dags) == {3: 25, 4: 543}[n]
    classes = {}
    for dag in dags:
        classes.setdefault(_class_key(n, dag, targets), []).append(dag)
    for members in classes.values():
        shared = set.intersection(*(set(d) for d in members))
        skeleton = {tuple(sorted(e)) for e in members[0]}
        for dag in members:
            graph = interventional_essential_graph(range(n), dag, targets)
            assert set(graph.directed) == shared
            assert set(graph.undirected) == skeleton - {tuple(sorted(e)) for e in shared}


def test_essential_graph_without_targets_is_the_cpdag():
    for dag in _all_dags(4):
        assert interventional_essential_graph(range(4), dag, [()]) == dag_to_cpdag(range(4), dag)


def test_essential_graph_refuses_cycles_and_unknown_nodes():
    with pytest.raises(ValueError):
        interventional_essential_graph("ab", [("a", "b"), ("b", "a")], [()])
    with pytest.raises(ValueError):
        interventional_essential_graph("ab", [("a", "b")], [("z",)])


def test_target_from_y_is_never_intervened():
    X, mask = small_data(), small_mask()
    est = HillClimbStructure().fit(X[["A", "B"]], X["C"], interventions=mask[["A", "B"]])
    same = HillClimbStructure(target="C").fit(X, interventions=mask)
    assert est.score_ == same.score_
    np.testing.assert_array_equal(est.predict_proba(X[["A", "B"]]), same.predict_proba(X[["A", "B"]]))


def test_cross_validation_slices_the_interventions():
    from sklearn.model_selection import KFold, cross_val_score

    X, mask = small_data(), small_mask()
    folds = KFold(4, shuffle=True, random_state=0)
    got = cross_val_score(HillClimbStructure(), X, cv=folds, params={"interventions": mask})
    for value, (train, test) in zip(got, folds.split(X)):
        est = HillClimbStructure().fit(X.iloc[train], interventions=mask.iloc[train])
        assert value == est.score(X.iloc[test])
