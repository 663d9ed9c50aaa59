"""GESStructure's operator evaluation on continuous, mixed and discrete data (issue 20).

The insert operators of a target are enumerated on bit masks, grouped by the parent set they
extend and scored in one batch per group (``FamilyScoreCache.added_scores``: the scorer's
``local_scores_added`` for a continuous child). Checked here against independent answers:
the operators and gains from the definition (Chickering 2002, Theorem 15: every ``T``, one
family score at a time), the search with every family scored on its own, a brute-force
local optimum of the returned class under every single edge insertion and deletion, and
pcalg's ``ges`` on a random linear-Gaussian network.
"""

import itertools

import numpy as np
import pandas as pd
import pytest

from skbn import GESStructure
from skbn._counting import moments
from skbn._data import encode_fit
from skbn._engines._local_scores import FamilyScoreCache
from skbn.datasets import make_random_network
from skbn.estimators._ges import _CPDAG, _adjacency_masks, _FitContext
from skbn.graph import dag_to_cpdag, is_acyclic, is_markov_equivalent, pdag_to_dag
from skbn.scores import resolve_scorer


def gaussian(p, n, seed, **kwargs):
    net = make_random_network(p, kind="gaussian", random_state=seed, **kwargs)
    return net.sample(n, random_state=seed + 1)


def mixed(p, n, seed):
    return make_random_network(p, kind="clg", random_state=seed).sample(n, random_state=seed + 1)


def discrete(p, n, seed):
    return make_random_network(p, random_state=seed).sample(n, random_state=seed + 1)


def random_pdag(p, rng):
    """A random partially directed graph (no acyclicity needed by the operator definitions):
    each pair none / directed either way / undirected."""
    directed, undirected = [], []
    for i, j in itertools.combinations(range(p), 2):
        kind = rng.choice(4, p=[0.4, 0.15, 0.15, 0.3])
        if kind == 1:
            directed.append((i, j))
        elif kind == 2:
            directed.append((j, i))
        elif kind == 3:
            undirected.append((i, j))
    return _CPDAG(p, directed, undirected)


def inserts_by_definition(g, y, gaps, max_indegree, bound):
    """Insert(X, y, T) from the definition: X not adjacent to y, T a subset of Ne_y \\ Adj_X
    with NA_yX | T a clique, |T| <= bound, |Pa_y | NA_yX | T| + 1 <= max_indegree."""
    out = []
    for x in range(g.p):
        if x == y or g.adj(x, y) or (min(x, y), max(x, y)) in gaps:
            continue
        na = g.und[y] & g.adj_set(x)
        free = sorted(g.und[y] - g.adj_set(x))
        for size in range(len(free) + 1):
            if bound is not None and size > bound:
                break
            for t in itertools.combinations(free, size):
                clique = na | set(t)
                if not all(g.adj(a, b) for a, b in itertools.combinations(sorted(clique), 2)):
                    continue
                parents = g.pa[y] | clique
                if max_indegree is not None and len(parents) + 1 > max_indegree:
                    continue
                out.append((x, t, tuple(sorted(parents))))
    return out


@pytest.mark.parametrize("kind", ["gaussian", "mixed", "discrete"])
@pytest.mark.parametrize("max_indegree, max_subset_size", [(None, None), (4, None), (None, 1), (3, 0)])
def test_insert_operators_and_gains_equal_the_definition(kind, max_indegree, max_subset_size):
    frame = {"gaussian": gaussian(8, 300, 0), "mixed": mixed(8, 400, 1),
             "discrete": discrete(8, 400, 2)}[kind]
    data, _ = encode_fit(frame, allow_continuous=True)
    scorer = resolve_scorer({"gaussian": "bic-g", "mixed": "bic-cg", "discrete": "bdeu"}[kind])
    learner = GESStructure(max_indegree=max_indegree, max_subset_size=max_subset_size)
    p = data.n_variables
    bound = p if max_subset_size is None else max_subset_size
    reference = FamilyScoreCache(data, scorer)  # every family scored on its own
    rng = np.random.default_rng(3)
    gaps = {(0, 5), (2, 3)}
    sizes = set()
    for _ in range(8):
        g = random_pdag(p, rng)
        ctx = _FitContext(data, scorer, bound)
        fresh = FamilyScoreCache(data, scorer)  # a family's bits depend on its counting path
        for y in range(p):
            found = ctx.insert_operators(y, learner._insert_groups(g, y, ctx, gaps, _adjacency_masks(g)))
            expected = inserts_by_definition(g, y, gaps, max_indegree, max_subset_size)
            assert sorted((x, t) for _, x, _, t in found) == sorted((x, t) for x, t, _ in expected)
            for x in {x for _, x, _, _ in found}:  # (each x's sets T in index order: ties by it)
                ts = [t for _, x2, _, t in found if x2 == x]
                assert ts == sorted(ts)
            gains = {(x, t): gain for gain, x, _, t in found}
            for x, t, parents in expected:
                want = reference.local_score(y, parents + (x,)) - reference.local_score(y, parents)
                if kind == "discrete":  # the same counts and kernel as before batching: the same bits
                    assert gains[x, t] == fresh.extended_score(y, parents, x) - fresh.local_score(y, parents)
                    assert gains[x, t] == pytest.approx(want, rel=1e-9, abs=1e-8)
                elif np.isfinite(want):
                    assert gains[x, t] == pytest.approx(want, rel=1e-9, abs=1e-7)
                else:
                    assert gains[x, t] == want or (np.isnan(want) and np.isnan(gains[x, t]))
            sizes.update(len(t) for _, t, _ in expected)
    # sets T of every allowed size up to 2 were enumerated
    assert sizes >= set(range(min(3, bound + 1)))


@pytest.mark.parametrize("kind", ["gaussian", "mixed", "discrete"])
def test_added_scores_equal_one_family_at_a_time(kind):
    frame = {"gaussian": gaussian(7, 200, 4), "mixed": mixed(7, 300, 5),
             "discrete": discrete(7, 300, 6)}[kind]
    data, _ = encode_fit(frame, allow_continuous=True)
    scorer = resolve_scorer({"gaussian": "bge", "mixed": "aic-cg", "discrete": "bic"}[kind])
    batched, single = FamilyScoreCache(data, scorer), FamilyScoreCache(data, scorer)
    p = data.n_variables
    for child in range(p):
        others = [v for v in range(p) if v != child]
        for base in [(), tuple(others[:2]), tuple(others[1:4:2])]:
            extras = [v for v in others if v not in base]
            got = batched.added_scores(child, base, extras)
            want = [single.local_score(child, base + (k,)) for k in extras]
            np.testing.assert_allclose(got, want, rtol=1e-9)
            assert batched.added_scores(child, base, extras[::-1]) == got[::-1]  # cached, any order


@pytest.mark.parametrize("frame", [gaussian(12, 500, 7), gaussian(10, 300, 8, edge_prob=0.5, max_indegree=5),
                                   mixed(9, 800, 9)], ids=["sparse", "dense", "mixed"])
def test_batched_search_equals_family_by_family_search(frame, monkeypatch):
    batched = GESStructure(fit_parameters=False).fit(frame)
    # every insert scored by its own family (the discrete path: extended_score one at a time)
    monkeypatch.setattr(type(FamilyScoreCache(encode_fit(frame, allow_continuous=True)[0], batched.scorer_)),
                        "added_scores", FamilyScoreCache.added_scores)
    single = GESStructure(fit_parameters=False).fit(frame)
    assert batched.cpdag_ == single.cpdag_
    assert batched.n_steps_ == single.n_steps_
    assert batched.score_ == pytest.approx(single.score_, rel=1e-12)
    assert sum(batched.n_steps_.values()) >= 9


# -- brute force: a local optimum of every single insertion and deletion ------------------------
def moment_score(frame, child, parents, scorer):
    """Local score of a continuous family from the moments of its own columns."""
    columns = list(parents) + [child]
    stats = moments(frame[columns].to_numpy(dtype=float))
    extra = {"n_variables": frame.shape[1]} if scorer.__class__.__name__ == "BGe" else {}
    return scorer.local_score_moments(stats, len(parents), list(range(len(parents))), **extra)


def class_members(cpdag):
    reference = pdag_to_dag(cpdag)
    for flips in itertools.product((False, True), repeat=len(cpdag.undirected)):
        dag = list(cpdag.directed) + [(v, u) if f else (u, v) for (u, v), f in zip(cpdag.undirected, flips)]
        if is_acyclic(cpdag.nodes, dag) and is_markov_equivalent(cpdag.nodes, dag, reference):
            yield dag


@pytest.mark.parametrize("scorer", ["bic-g", "bge", "aic-g"])
@pytest.mark.parametrize("seed", [10, 11])
def test_result_is_a_local_optimum_of_single_edge_changes(scorer, seed):
    frame = gaussian(6, 150, seed, edge_prob=0.6, max_indegree=4)
    model = GESStructure(scorer=scorer, fit_parameters=False).fit(frame)
    resolved = resolve_scorer(scorer)
    names = list(frame.columns)
    score = {}

    def local(child, parents):
        key = (child, tuple(sorted(parents)))
        if key not in score:
            score[key] = moment_score(frame, child, key[1], resolved)
        return score[key]

    tol = 1e-9 * abs(model.score_)
    members = list(class_members(model.cpdag_))
    assert members and len(model.edges_) >= 4
    total = sum(local(v, [u for u, w in model.edges_ if w == v]) for v in names)
    assert model.score_ == pytest.approx(total, rel=1e-9)
    checked = 0
    for dag in members:
        for child in names:
            parents = {u for u, w in dag if w == child}
            base = local(child, parents)
            for other in names:
                if other == child:
                    continue
                if other in parents:
                    assert local(child, parents - {other}) - base <= tol
                elif (child, other) not in dag and is_acyclic(names, dag + [(other, child)]):
                    assert local(child, parents | {other}) - base <= tol
                checked += 1
    assert checked >= 30


# pcalg 2.7-12 on the rows below (written with float_format="%.17g"):
#   x <- as.matrix(read.csv(f)); g <- ges(new("GaussL0penObsScore", x, lambda = log(nrow(x)) / 2))
#   m <- as(g$essgraph, "matrix")  # m[i, j] & !m[j, i]: i -> j; both: i - j
PCALG_RANDOM12_DIRECTED = {("X0001", "X0011"), ("X0002", "X0008"), ("X0003", "X0008"), ("X0003", "X0010"),
                           ("X0004", "X0011"), ("X0005", "X0009"), ("X0006", "X0009"), ("X0006", "X0010"),
                           ("X0011", "X0010")}
PCALG_RANDOM12_UNDIRECTED = {frozenset(("X0002", "X0005")), frozenset(("X0003", "X0006")),
                             frozenset(("X0004", "X0005"))}


def test_equals_pcalg_ges_on_a_random_gaussian_network():
    frame = make_random_network(12, kind="gaussian", random_state=3).sample(1000, random_state=4)
    model = GESStructure(fit_parameters=False).fit(frame)
    assert set(model.cpdag_.directed) == PCALG_RANDOM12_DIRECTED
    assert {frozenset(e) for e in model.cpdag_.undirected} == PCALG_RANDOM12_UNDIRECTED
    assert model.cpdag_ == dag_to_cpdag(list(frame.columns), model.edges_)


def test_string_columns_of_mixed_data_keep_the_batched_path_exact():
    """Column names with dots and spaces, a discrete column named "None", integer-looking
    continuous values: the batched scores are those of each family."""
    rng = np.random.default_rng(12)
    n = 400
    s = rng.choice(["None", "NA", "b"], size=n)
    a = rng.normal(size=n).round(0) + np.where(s == "b", 2.0, 0.0)
    b = 0.8 * a + rng.normal(size=n)
    c = -0.5 * b + rng.normal(size=n)
    frame = pd.DataFrame({"s.1": pd.Categorical(s), "a b": a, "b.c": b, "c d": c})
    model = GESStructure(column_types={"a b": "continuous"}, fit_parameters=False).fit(frame)
    names = list(frame.columns)
    data, _ = encode_fit(frame, allow_continuous=True, column_types={"a b": "continuous"})
    cache = FamilyScoreCache(data, model.scorer_)
    total = sum(cache.local_score(names.index(v), [names.index(u) for u, w in model.edges_ if w == v])
                for v in names)
    assert model.score_ == pytest.approx(total, rel=1e-12)
    assert {frozenset(e) for e in model.edges_} >= {frozenset(("a b", "b.c")), frozenset(("b.c", "c d"))}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mixed_ges_never_ends_below_its_forward_phase(seed):
    # On mixed data a DAG of the class with a continuous parent of a discrete node scores
    # -inf: the class is scored by an extension respecting the conditional-Gaussian rule,
    # and a move whose current family is such a -inf family (gain NaN or +inf) is never
    # taken. Before, a Delete with gain +inf made the total infinite and stopped the search.
    X = make_random_network(6, kind="clg", random_state=seed).sample(500, random_state=1)
    forward = GESStructure(scorer="bic-cg", phases=("forward",)).fit(X)
    full = GESStructure(scorer="bic-cg").fit(X)
    assert np.isfinite(full.score_)
    assert full.score_ >= forward.score_ - 1e-9 * abs(forward.score_)
    continuous = {c for c in X.columns if X[c].dtype.kind == "f"}
    assert not any(u in continuous and v not in continuous for u, v in full.edges_)
    data, _ = encode_fit(X, "auto", allow_continuous=True)
    cache = FamilyScoreCache(data, resolve_scorer("bic-cg"))
    names = list(X.columns)
    total = sum(cache.local_score(v, sorted(names.index(a) for a, b in full.edges_ if b == name))
                for v, name in enumerate(names))
    assert full.score_ == pytest.approx(total, rel=1e-12)
