"""ExactStructure: optimality against brute force over every DAG, memory refusal."""

import itertools

import numpy as np
import pandas as pd
import pytest
from conftest import NETWORKS  # ../shared/networks, else the built-in copies

from skbn._data import encode_fit
from skbn._engines._local_scores import FamilyScoreCache
from skbn.estimators._exact import ExactStructure, exact_memory_bytes
from skbn.estimators._hill_climb import HillClimbStructure
from skbn.estimators._k2 import K2Structure
from skbn.graph import is_acyclic, random_dag
from skbn.scores import BIC, BDeu, K2Score, resolve_scorer


def all_dags(p):
    """Every DAG on ``p`` labelled nodes, as tuples of parent bitmasks (deduplicated)."""
    seen = set()
    for order in itertools.permutations(range(p)):
        choices = [range(1 << pos) for pos in range(p)]
        for picks in itertools.product(*choices):
            masks = [0] * p
            for pos, pick in enumerate(picks):
                masks[order[pos]] = sum(1 << order[b] for b in range(pos) if (pick >> b) & 1)
            seen.add(tuple(masks))
    return sorted(seen)


@pytest.mark.parametrize("p, count", [(3, 25), (4, 543)])
def test_dag_enumeration_counts(p, count):
    dags = all_dags(p)
    assert len(dags) == count
    for masks in dags[:: max(1, count // 50)]:
        edges = [(u, v) for v in range(p) for u in range(p) if (masks[v] >> u) & 1]
        assert is_acyclic(range(p), edges)


def random_data(p, n, seed, cards=None):
    """Data sampled from a random dependent discrete model (a random DAG with random CPTs)."""
    rng = np.random.RandomState(seed)
    _, edges = random_dag(p, 0.6, random_state=seed)
    parents = [[int(u[1:]) for u, w in edges if int(w[1:]) == v] for v in range(p)]
    cards = cards or [int(rng.randint(2, 4)) for _ in range(p)]
    X = np.zeros((n, p), dtype=np.int64)
    for v in range(p):  # X0..Xp-1 is a topological order
        q = int(np.prod([cards[u] for u in parents[v]]))
        cpt = rng.dirichlet(np.full(cards[v], 0.5), size=q)
        cfg = np.zeros(n, dtype=np.int64)
        for u in parents[v]:
            cfg = cfg * cards[u] + X[:, u]
        cum = cpt[cfg].cumsum(axis=1)
        X[:, v] = (rng.random_sample(n)[:, None] > cum).sum(axis=1).clip(max=cards[v] - 1)
    return pd.DataFrame(X, columns=[f"X{i}" for i in range(p)])


def brute_force_best(X, scorer, dags):
    data, _ = encode_fit(X)
    p = data.n_variables
    cache = FamilyScoreCache(data, resolve_scorer(scorer))
    table = np.array([[cache.local_score(v, [u for u in range(p) if (m >> u) & 1])
                       for m in range(1 << p)] for v in range(p)])
    masks = np.array(dags)
    totals = table[np.arange(p), masks].sum(axis=1)
    return totals.max()


_DAGS = {}


@pytest.mark.parametrize("p", [3, 4, 5])
@pytest.mark.parametrize("scorer", ["bdeu", "k2", "bic"])
def test_equals_brute_force_over_every_dag(p, scorer):
    if p not in _DAGS:
        _DAGS[p] = all_dags(p)
    assert len(_DAGS[p]) == {3: 25, 4: 543, 5: 29281}[p]
    for seed in range(2):
        X = random_data(p, 300, seed=10 * p + seed)
        model = ExactStructure(scorer=scorer).fit(X)
        optimum = brute_force_best(X, scorer, _DAGS[p])
        assert model.score_ == pytest.approx(optimum, rel=1e-9, abs=1e-9)
        assert is_acyclic(list(X.columns), model.edges_)
        # score_ is the score of the returned DAG
        assert model.score_ == pytest.approx(resolve_scorer(scorer).score(X, model.edges_), rel=1e-12)


def test_max_indegree_is_brute_force_over_bounded_dags():
    X = random_data(5, 400, seed=3)
    if 5 not in _DAGS:
        _DAGS[5] = all_dags(5)
    bounded = [m for m in _DAGS[5] if max(bin(x).count("1") for x in m) <= 1]
    model = ExactStructure(scorer="bdeu", max_indegree=1).fit(X)
    assert model.score_ == pytest.approx(brute_force_best(X, "bdeu", bounded), rel=1e-9)
    assert max(sum(1 for _, c in model.edges_ if c == v) for v in X.columns) <= 1


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_never_below_greedy_search(seed):
    X = random_data(8, 500, seed=seed)
    exact = ExactStructure(scorer="bdeu", max_indegree=3).fit(X)
    for order in (list(X.columns), list(X.columns)[::-1]):
        k2 = K2Structure(scorer=BDeu(), ordering=order, max_indegree=3).fit(X)
        assert exact.score_ >= k2.score_ - 1e-9
    for search in ("hill_climb", "tabu"):
        climbed = HillClimbStructure(scorer=BDeu(), max_indegree=3, search=search).fit(X)
        assert exact.score_ >= climbed.score_ - 1e-9


def _assert_grouping_free(X, scorer):
    """A family's value and its pruning do not depend on which children share a pass."""
    from skbn._counting import DistinctRows
    from skbn._engines._subsets import local_scores as _local_scores
    data, _ = encode_fit(X)
    scorer = resolve_scorer(scorer)
    distinct = DistinctRows(data.codes, data.cardinalities)
    p = data.n_variables
    together = np.full((p, 1 << (p - 1)), -np.inf)
    n_together = _local_scores(distinct, scorer, range(p), p, p - 1, together)
    apart = np.full((p, 1 << (p - 1)), -np.inf)
    n_apart = 0
    for group in ([0, 3], [1, 2, 4, 5, 6][: p - 2], list(range(7, p))):
        if group:
            tables = np.full((len(group), 1 << (p - 1)), -np.inf)
            n_apart += _local_scores(distinct, scorer, group, p, p - 1, tables)
            apart[group] = tables
    np.testing.assert_array_equal(together, apart)
    assert n_together == n_apart
    assert "n_jobs" not in ExactStructure().get_params()


def test_children_grouping_does_not_change_scores():
    _assert_grouping_free(random_data(7, 300, seed=5), "bdeu")


def test_memory_refusal_message():
    X = random_data(6, 50, seed=0)
    with pytest.raises(ValueError, match=r"on 6 columns needs about .*max_memory='1KB', "
                                         r"which fits at most 4 columns.*multistart_tabu"):
        ExactStructure(max_memory="1KB").fit(X)
    assert exact_memory_bytes(20) < 128 * 2**20
    assert exact_memory_bytes(30) > 100 * 2**30
    with pytest.raises(ValueError, match="max_memory"):
        ExactStructure(max_memory="lots").fit(X)
    ExactStructure(max_memory=10**6).fit(X)  # ints are bytes


def test_asia_recovers_known_edges():
    from skbn.datasets import sample_asia
    X = sample_asia(5000, random_state=0)
    model = ExactStructure(scorer="bic").fit(X)
    skeleton = {frozenset(e) for e in model.edges_}
    for edge in [("smoke", "lung"), ("smoke", "bronc"), ("either", "xray"), ("bronc", "dysp")]:
        assert frozenset(edge) in skeleton
    assert model.network_.nodes == list(X.columns)
    assert np.all(np.isfinite(model.score_samples(X.head(20))))


@pytest.mark.skipif(not NETWORKS.is_dir(), reason="shared networks not available")
def test_child_subset_runs():
    from skbn.io import read_bif
    net = read_bif(NETWORKS / "child.bif")
    X = net.sample(2000, random_state=0)[net.nodes[:10]]
    model = ExactStructure(max_indegree=2).fit(X)
    assert model.score_ >= K2Structure(scorer="bdeu", max_indegree=2).fit(X).score_ - 1e-9


class _HalvedBDeu(BDeu):
    """A scorer without a vectorised kernel (exercises the per-child fallback)."""

    def local_score(self, counts, n_parent_configs, n_parents):
        return 0.5 * super().local_score(counts, n_parent_configs, n_parents)


def _all_local_scores(X, scorer, max_indegree=None, n_samples=None):
    """(pruned tables, their count, direct tables) with every family scored directly."""
    from skbn._counting import DistinctRows
    from skbn._engines._subsets import local_scores as _local_scores
    data, _ = encode_fit(X)
    scorer = resolve_scorer(scorer)
    distinct = DistinctRows(data.codes, data.cardinalities)
    p = data.n_variables
    k = p - 1 if max_indegree is None else max_indegree
    tables = np.full((p, 1 << (p - 1)), -np.inf)
    n = _local_scores(distinct, scorer, range(p), p, k, tables)
    cache = FamilyScoreCache(data, scorer)
    direct = np.full((p, 1 << (p - 1)), -np.inf)
    for v in range(p):
        others = [u for u in range(p) if u != v]
        for index in range(1 << (p - 1)):
            parents = [others[b] for b in range(p - 1) if (index >> b) & 1]
            if len(parents) <= k:
                direct[v, index] = cache.local_score(v, parents)
    return tables, n, direct


def test_every_local_score_matches_direct_counting_without_bound():
    """A scorer with no bound: every family is counted, and each value is the direct one."""
    X = random_data(6, 400, seed=7)
    tables, n, direct = _all_local_scores(X, _HalvedBDeu())
    assert n == 6 * 2**5
    np.testing.assert_allclose(tables, direct, rtol=1e-11, atol=1e-9)


@pytest.mark.parametrize("scorer", ["bdeu", "k2", "bic", "aic", "loglik", BDeu(ess=10.0, edge_penalty=0.5)])
@pytest.mark.parametrize("n_samples, max_indegree", [(400, None), (20, None), (20, 3)])
def test_pruned_best_parent_sets_equal_unpruned(scorer, n_samples, max_indegree):
    """Pruning (bounds of de Campos & Ji) never changes a best-parent-set value."""
    from skbn.estimators._exact import _subset_max
    X = random_data(7, n_samples, seed=11)
    tables, n, direct = _all_local_scores(X, scorer, max_indegree)
    assert n <= np.isfinite(direct).sum()
    for table in (*tables, *direct):
        _subset_max(table)
    np.testing.assert_allclose(tables, direct, rtol=1e-11, atol=1e-9)


def test_pruning_skips_families():
    full = 8 * 2**7
    X = random_data(8, 100, seed=2)
    assert ExactStructure(scorer="bic").fit(X).n_families_ < full * 0.6
    assert ExactStructure(scorer=_HalvedBDeu()).fit(X).n_families_ == full
    X = random_data(8, 20, seed=2)  # the BDeu/K2 bound bites when rows are few
    assert ExactStructure(scorer="bdeu").fit(X).n_families_ < full
    assert ExactStructure(scorer="k2").fit(X).n_families_ < full


class _PlainBIC(BIC):
    """BIC through the generic path: a subclass that redefines the formula (here to the
    same value) loses the inherited vectorised kernel and pruning bound."""

    def _data_score(self, counts, n_parent_configs):
        return super()._data_score(counts, n_parent_configs)


class _PlainK2(K2Score):
    def local_score(self, counts, n_parent_configs, n_parents):
        return super().local_score(counts, n_parent_configs, n_parents)


class _MyBDeu(BDeu):
    """A subclass that changes nothing keeps BDeu's kernel and bound."""


def test_subclass_without_new_formula_keeps_kernel_and_pruning():
    X = random_data(8, 20, seed=2)
    ours = ExactStructure(scorer=_MyBDeu(ess=2.0)).fit(X)
    builtin = ExactStructure(scorer=BDeu(ess=2.0)).fit(X)
    assert ours.n_families_ == builtin.n_families_ < 8 * 2**7
    assert ours.edges_ == builtin.edges_ and ours.score_ == builtin.score_


@pytest.mark.parametrize("p, n_samples", [(6, 80), (8, 25), (8, 300)])
@pytest.mark.parametrize("scorer, plain", [("bic", _PlainBIC()), ("k2", _PlainK2())])
def test_pruned_network_equals_unpruned(p, n_samples, scorer, plain):
    X = random_data(p, n_samples, seed=p)
    pruned = ExactStructure(scorer=scorer).fit(X)
    unpruned = ExactStructure(scorer=plain).fit(X)
    assert pruned.edges_ == unpruned.edges_
    assert pruned.score_ == pytest.approx(unpruned.score_, rel=1e-12)
    assert unpruned.n_families_ == p * 2 ** (p - 1)
    assert pruned.n_families_ <= unpruned.n_families_


def test_children_grouping_does_not_change_pruning():
    _assert_grouping_free(random_data(7, 120, seed=4), "bic")


def test_log_likelihood_needs_max_indegree_and_no_scratch_left():
    X = random_data(4, 100, seed=0)
    with pytest.raises(ValueError, match="max_indegree"):
        ExactStructure(scorer="loglik").fit(X)
    model = ExactStructure(scorer="loglik", max_indegree=1).fit(X)
    params = set(model.get_params())
    assert {k for k in vars(model) if k not in params and not k.endswith("_")} == {"_target_index"}


# --- cost estimate, warning and progress (issue: no silent 24-minute runs) ------------


@pytest.mark.parametrize("p, k", [(1, None), (5, None), (6, 2), (7, 0), (9, 3)])
def test_cost_estimate_counts_parent_sets_and_families(p, k):
    from skbn.estimators._exact import exact_cost
    bound = p - 1 if k is None else k
    subsets = [s for size in range(p + 1) for s in itertools.combinations(range(p), size)]
    n_sets = sum(1 for s in subsets if len(s) <= bound)
    n_families = sum(1 for v in range(p) for s in subsets if v not in s and len(s) <= bound)
    cost = exact_cost(p, k, n_distinct_rows=50)
    assert (cost.n_parent_sets, cost.n_families) == (n_sets, n_families)
    assert cost.memory_bytes == exact_memory_bytes(p)
    # more rows, more columns or a looser bound never make it cheaper
    assert exact_cost(p, k, 500).seconds > cost.seconds
    assert exact_cost(p + 1, k, 50).seconds > cost.seconds


class _Recorder:
    def __init__(self):
        self.done = []

    def update(self, done, **fields):
        self.done.append(done)


@pytest.mark.parametrize("scorer, n_samples, k", [("bdeu", 20, None), ("bic", 100, None), ("bic", 100, 2),
                                                   (_PlainBIC(), 60, None)])
def test_progress_counts_every_parent_set_even_pruned_subtrees(scorer, n_samples, k):
    """Pruned depth-first subtrees count as done, so the count ends at the estimate's total."""
    from skbn._counting import DistinctRows
    from skbn._engines._subsets import local_scores as _local_scores
    from skbn.estimators._exact import exact_cost
    p = 8
    data, _ = encode_fit(random_data(p, n_samples, seed=2))
    distinct = DistinctRows(data.codes, data.cardinalities, data.weights)
    bound = p - 1 if k is None else k
    tables = np.full((p, 1 << (p - 1)), -np.inf)
    recorder = _Recorder()
    n = _local_scores(distinct, resolve_scorer(scorer), range(p), p, bound, tables, recorder)
    assert recorder.done == sorted(recorder.done) and len(set(recorder.done)) == len(recorder.done)
    cost = exact_cost(p, k)
    assert recorder.done[-1] == cost.n_parent_sets
    assert n <= cost.n_families
    if scorer == "bdeu":  # this case prunes: fewer visits than sets, yet the count ends at the total
        assert len(recorder.done) < cost.n_parent_sets


def test_warns_with_the_estimate_and_the_bound_before_a_long_search(monkeypatch):
    import warnings as _warnings

    from skbn.estimators import _exact
    X = random_data(7, 100, seed=0)
    with _warnings.catch_warnings():
        _warnings.simplefilter("error")  # small problems: no warning
        quiet = ExactStructure().fit(X)
    monkeypatch.setattr(_exact, "_WARN_SECONDS", 0.0)
    with pytest.warns(UserWarning, match=r"ExactStructure on 7 columns with max_indegree=None counts up to "
                                         r"127 parent sets .*estimated .* max_indegree=3 .* would take"):
        loud = ExactStructure().fit(X)
    assert loud.edges_ == quiet.edges_ and loud.score_ == quiet.score_
    with pytest.warns(UserWarning, match="heuristic search"):
        ExactStructure(max_indegree=2).fit(X)


def test_twenty_unbounded_columns_warn_before_any_counting(monkeypatch):
    """The estimate alone decides: 20 columns unbounded (about 24 minutes for the newcomer's
    data) warn before the first count; max_indegree=3 does not."""
    from skbn.estimators import _exact

    def stop(*args, **kwargs):
        raise RuntimeError("counting started")

    monkeypatch.setattr(_exact, "_dense_local_scores", stop)
    X = random_data(20, 2000, seed=0)
    with pytest.warns(UserWarning, match=r"20 columns.*max_indegree=3"), pytest.raises(RuntimeError):
        ExactStructure().fit(X)
    import warnings as _warnings
    with _warnings.catch_warnings():
        _warnings.simplefilter("error")
        with pytest.raises(RuntimeError):
            ExactStructure(max_indegree=3).fit(X)


def test_verbose_progress_on_stderr(capsys):
    X = random_data(7, 200, seed=0)
    ExactStructure(verbose=2).fit(X)
    out = capsys.readouterr()
    assert out.out == ""
    lines = out.err.splitlines()
    assert lines[0].startswith("[ExactStructure] start: 7 columns") and "127 parent sets" in lines[0]
    assert "estimated" in lines[0]
    assert any("best sinks" in line for line in lines)
    assert lines[-1].startswith("[ExactStructure] done: 127 parent sets in ")


def test_no_dag_with_a_finite_score_is_refused_naming_the_column():
    """A white-listed parent of which a column is an exact linear function makes every
    family of that column -inf under a Gaussian score, hence every DAG: the sink peeling
    used to loop for ever (memory growing until the process was killed)."""
    rng = np.random.default_rng(0)
    a = rng.normal(size=40)
    X = pd.DataFrame({"a": a, "b": a + rng.normal(size=40), "d": 3 * a})
    message = r"column 'd' scores -inf under GaussianBIC"
    with pytest.warns(UserWarning), pytest.raises(ValueError, match=message):
        ExactStructure(white_list=[("a", "d")], fit_parameters=False).fit(X)
    assert len(ExactStructure(fit_parameters=False).fit(X.drop(columns="d")).edges_) == 1
