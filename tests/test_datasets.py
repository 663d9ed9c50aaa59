from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from skbn.datasets import asia_network, load_network, network_names, sample_asia
from skbn.graph import is_acyclic
from skbn.io import read_bif, write_bif

SHARED = Path(__file__).resolve().parents[2] / "shared" / "networks"
BUILTIN = Path(str(resources.files("skbn") / "_networks"))

# (nodes, edges) of the bnlearn repository's networks, as its pages list them
SIZES = {"asia": (8, 8), "cancer": (5, 4), "earthquake": (5, 4), "survey": (6, 6),
         "sachs": (11, 17), "child": (20, 25), "alarm": (37, 46)}


def assert_same_network(net, ref):
    assert net.nodes == ref.nodes
    assert net.states == ref.states
    assert net.parents == ref.parents
    for node in net.nodes:
        np.testing.assert_array_equal(net.cpts[node], ref.cpts[node], err_msg=node)


def test_asia_has_the_published_probabilities():
    # Lauritzen & Spiegelhalter (1988): the numbers of the chest-clinic network, by hand
    net = asia_network()
    assert net.nodes == ["asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp"]
    assert all(states == ["yes", "no"] for states in net.states.values())
    assert net.parents == {"asia": (), "tub": ("asia",), "smoke": (), "lung": ("smoke",),
                           "bronc": ("smoke",), "either": ("lung", "tub"), "xray": ("either",),
                           "dysp": ("bronc", "either")}
    cpts = net.cpts
    np.testing.assert_array_equal(cpts["asia"], [0.01, 0.99])
    np.testing.assert_array_equal(cpts["tub"], [[0.05, 0.95], [0.01, 0.99]])
    np.testing.assert_array_equal(cpts["smoke"], [0.5, 0.5])
    np.testing.assert_array_equal(cpts["lung"], [[0.1, 0.9], [0.01, 0.99]])
    np.testing.assert_array_equal(cpts["bronc"], [[0.6, 0.4], [0.3, 0.7]])
    np.testing.assert_array_equal(cpts["either"], [[[1, 0], [1, 0]], [[1, 0], [0, 1]]])  # OR
    np.testing.assert_array_equal(cpts["xray"], [[0.98, 0.02], [0.05, 0.95]])
    np.testing.assert_array_equal(cpts["dysp"], [[[0.9, 0.1], [0.8, 0.2]], [[0.7, 0.3], [0.1, 0.9]]])


@pytest.mark.parametrize("name", sorted(SIZES))
def test_builtin_networks_load_with_their_published_size(name):
    net = load_network(name)
    assert (len(net.nodes), len(net.edges)) == SIZES[name]
    assert is_acyclic(net.nodes, net.edges)
    for node in net.nodes:
        np.testing.assert_allclose(net.cpts[node].sum(axis=-1), 1.0, err_msg=node)
    assert load_network(name.upper()).edges == net.edges
    assert load_network(name) is not net  # a new object every call


@pytest.mark.parametrize("name", sorted(SIZES))
def test_builtin_networks_equal_shared_files(name):
    path = SHARED / f"{name}.bif"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    assert (BUILTIN / f"{name}.bif").read_bytes() == path.read_bytes()
    assert_same_network(load_network(name), read_bif(path))


def test_network_names():
    assert network_names() == sorted(SIZES)


def test_builtin_numbers_from_the_bif_text():
    # survey: P(A) = (0.3, 0.5, 0.2), P(E = high | A = young, S = M) = 0.75 (bnlearn's survey.bif)
    survey = load_network("survey")
    assert survey.states["A"] == ["young", "adult", "old"]
    np.testing.assert_array_equal(survey.cpts["A"], [0.3, 0.5, 0.2])
    assert survey.parents["E"] == ("A", "S")
    assert survey.cpts["E"][0, 0, 0] == 0.75
    # ALARM's root HYPOVOLEMIA: P(TRUE) = 0.2
    alarm = load_network("alarm")
    assert alarm.parents["HYPOVOLEMIA"] == ()
    np.testing.assert_array_equal(alarm.cpts["HYPOVOLEMIA"], [0.2, 0.8])


def test_asia_known_marginal():
    # P(either = yes) = 1 - P(lung = no) P(tub = no)
    p_lung = 0.5 * 0.1 + 0.5 * 0.01
    p_tub = 0.01 * 0.05 + 0.99 * 0.01
    got = asia_network().query("either")["yes"]
    assert got == pytest.approx(1 - (1 - p_lung) * (1 - p_tub), rel=1e-12)


def test_load_network_by_name_and_path(tmp_path):
    assert load_network("asia").nodes == asia_network().nodes
    assert load_network("ASIA").edges == asia_network().edges
    path = tmp_path / "net.bif"
    write_bif(asia_network(), path)
    for arg in (path, str(path)):
        assert load_network(arg).edges == asia_network().edges


def test_load_network_errors_list_names(tmp_path):
    with pytest.raises(ValueError, match=r"'insurance'.*\['alarm', 'asia', 'cancer'"):
        load_network("insurance")
    with pytest.raises(ValueError, match="No such BIF file"):
        load_network(tmp_path / "missing.bif")


def test_sample_asia():
    frame = sample_asia(100)
    assert frame.shape == (100, 8)
    assert all(isinstance(frame[c].dtype, pd.CategoricalDtype) for c in frame)
    pd.testing.assert_frame_equal(frame, sample_asia(100))
    assert not frame.equals(sample_asia(100, random_state=1))


# ----------------------------------------------------------------- make_random_network
def test_make_random_network_shape_and_determinism():
    from skbn.datasets import make_random_network
    from skbn.graph import is_acyclic

    net = make_random_network(60, max_indegree=2, n_states=(2, 4), random_state=3)
    assert net.nodes == [f"X{i:04d}" for i in range(60)]
    assert is_acyclic(net.nodes, net.edges)
    assert max(len(pa) for pa in net.parents.values()) <= 2
    assert set(net.cardinalities.tolist()) <= {2, 3, 4}
    assert len(set(net.cardinalities.tolist())) > 1
    for node in net.nodes:
        cpt = net.cpts[node]
        assert cpt.shape == tuple(len(net.states[p]) for p in net.parents[node]) + (
            len(net.states[node]),)
        np.testing.assert_allclose(cpt.sum(axis=-1), 1.0)
    # the node order is not topological in general
    pos = {v: i for i, v in enumerate(net.nodes)}
    assert any(pos[p] > pos[c] for p, c in net.edges)
    again = make_random_network(60, max_indegree=2, n_states=(2, 4), random_state=3)
    assert again.edges == net.edges
    for node in net.nodes:
        np.testing.assert_array_equal(again.cpts[node], net.cpts[node])
    assert make_random_network(60, max_indegree=2, random_state=4).edges != net.edges


def test_make_random_network_density_and_states():
    from skbn.datasets import make_random_network

    # default edge_prob = 2 / (n - 1): about n edges when the cap rarely binds
    n_edges = [len(make_random_network(200, max_indegree=None, random_state=s).edges)
               for s in range(5)]
    assert 170 < np.mean(n_edges) < 230
    net = make_random_network(10, n_states=3, edge_prob=1.0, max_indegree=None,
                              random_state=0)
    assert len(net.edges) == 45
    assert set(net.cardinalities.tolist()) == {3}
    assert net.states["X0000"] == ["s0", "s1", "s2"]
    assert make_random_network(1).edges == []


def test_make_random_network_is_learnable():
    # Dirichlet(1) rows make every edge a clear dependence: hill climbing on 20k rows
    # recovers the skeleton of a small random network.
    from skbn import HillClimbStructure
    from skbn.datasets import make_random_network

    net = make_random_network(8, max_indegree=2, n_states=(2, 3), random_state=0)
    X = net.sample(20000, random_state=0)
    learned = HillClimbStructure().fit(X).edges_

    def skeleton(edges):
        return {frozenset(e) for e in edges}

    assert skeleton(learned) == skeleton(net.edges)


def test_make_random_network_default_is_unchanged():
    # kind="discrete" (the default) draws exactly what make_random_network drew before
    # `kind` existed: the digest below was computed on main before the change, with this code.
    import hashlib

    from skbn.datasets import make_random_network

    digest = hashlib.sha256()
    for kw in [dict(n_nodes=1, random_state=0), dict(n_nodes=6, random_state=0),
               dict(n_nodes=20, random_state=3, max_indegree=2, n_states=(2, 5)),
               dict(n_nodes=12, random_state=7, edge_prob=0.4, concentration=0.5, n_states=3),
               dict(n_nodes=30, random_state=np.random.RandomState(11), max_indegree=None)]:
        net = make_random_network(**kw)
        digest.update(repr((net.nodes, net.edges, net.states)).encode())
        for v in net.nodes:
            digest.update(net.cpts[v].tobytes())
            digest.update(repr(net.cpts[v].shape).encode())
    assert digest.hexdigest() == (
        "444af0da4475943bfbd6d1f9df532cf0080badec044a426ebc94cee0e6f3e000")


def _same_continuous(a, b):
    assert a.nodes == b.nodes and a.edges == b.edges
    for v in a.intercepts:
        np.testing.assert_array_equal(a.intercepts[v], b.intercepts[v])
        np.testing.assert_array_equal(a.coefficients[v], b.coefficients[v])
        np.testing.assert_array_equal(a.sigmas[v], b.sigmas[v])


def test_make_random_gaussian_network():
    from skbn.datasets import make_random_network
    from skbn.network import GaussianBayesianNetwork

    net = make_random_network(40, kind="gaussian", random_state=3)
    assert isinstance(net, GaussianBayesianNetwork)
    # the same DAG as the discrete network of the same seed
    assert net.edges == make_random_network(40, random_state=3).edges
    weights = np.concatenate([net.coefficients[v] for v in net.nodes])
    assert len(weights) == len(net.edges) > 20
    assert np.all((weights >= 0.1) & (weights <= 1.0))   # pcalg's [lB, uB] = [0.1, 1]
    assert set(net.intercepts.values()) == {0.0} and set(net.sigmas.values()) == {1.0}
    _same_continuous(net, make_random_network(40, kind="gaussian", random_state=3))
    other = make_random_network(40, kind="gaussian", random_state=4)
    assert other.edges != net.edges
    signed = make_random_network(40, kind="gaussian", random_sign=True, weight_range=(0.5, 2),
                                 intercept=1.5, sigma=0.3, random_state=3)
    w = np.concatenate([signed.coefficients[v] for v in signed.nodes])
    assert np.all((np.abs(w) >= 0.5) & (np.abs(w) <= 2)) and (w < 0).any() and (w > 0).any()
    assert set(signed.intercepts.values()) == {1.5} and set(signed.sigmas.values()) == {0.3}


def test_make_random_clg_network_respects_the_rule():
    from skbn.datasets import make_random_network
    from skbn.graph import topological_order
    from skbn.network import CLGBayesianNetwork

    for seed, fraction in [(0, 0.5), (1, 0.3), (2, 0.8), (3, 1.0)]:
        net = make_random_network(30, kind="clg", discrete_fraction=fraction, edge_prob=0.2,
                                  random_state=seed)
        assert isinstance(net, CLGBayesianNetwork)
        discrete = [v for v in net.nodes if net.is_discrete(v)]
        assert len(discrete) == round(fraction * 30)
        # the discrete nodes are the first ones of the topological order ...
        order = topological_order(net.nodes, net.edges)
        assert set(order[:len(discrete)]) == set(discrete)
        # ... so no discrete node has a continuous parent (bnlearn's rule)
        assert all(net.is_discrete(p) for v in discrete for p in net.parents[v])
        assert net.edges == make_random_network(30, edge_prob=0.2, random_state=seed).edges
        for v in net.nodes:
            if v in discrete:
                continue
            shape = tuple(len(net.states[p]) for p in net.discrete_parents[v])
            assert net.sigmas[v].shape == shape and np.all(net.sigmas[v] > 0)
        again = make_random_network(30, kind="clg", discrete_fraction=fraction, edge_prob=0.2,
                                    random_state=seed)
        _same_continuous(net, again)
        for v in discrete:
            np.testing.assert_array_equal(net.cpts[v], again.cpts[v])
    # some continuous node has discrete and continuous parents (a real CLG family)
    net = make_random_network(30, kind="clg", edge_prob=0.2, random_state=0)
    assert any(net.discrete_parents[v] and net.continuous_parents[v] for v in net.discrete_parents)
    none = make_random_network(8, kind="clg", discrete_fraction=0.0, random_state=0)
    assert not any(none.is_discrete(v) for v in none.nodes)


def test_random_continuous_networks_are_recovered_by_from_data():
    # an independent check of the generator: least squares on 100,000 sampled rows gives
    # back every coefficient, intercept and sigma (standard errors about 0.003-0.01)
    from skbn.datasets import make_random_network
    from skbn.network import CLGBayesianNetwork, GaussianBayesianNetwork

    net = make_random_network(10, kind="gaussian", random_sign=True, intercept=1.0, sigma=0.7,
                              random_state=5)
    fit = GaussianBayesianNetwork.from_data(net.sample(100_000, random_state=1), net.edges)
    for v in net.nodes:
        np.testing.assert_allclose(fit.coefficients[v], net.coefficients[v], atol=0.03)
        assert abs(fit.intercepts[v] - 1.0) < 0.05 and abs(fit.sigmas[v] - 0.7) < 0.02
    net = make_random_network(10, kind="clg", n_states=2, edge_prob=0.4, random_state=5)
    assert sum(len(net.discrete_parents[v]) for v in net.discrete_parents) >= 3
    fit = CLGBayesianNetwork.from_data(net.sample(100_000, random_state=1), net.edges)
    for v in net.nodes:
        if net.is_discrete(v):
            np.testing.assert_allclose(fit.cpts[v], net.cpts[v], atol=0.02)
        else:
            np.testing.assert_allclose(fit.coefficients[v], net.coefficients[v], atol=0.05)
            np.testing.assert_allclose(fit.intercepts[v], net.intercepts[v], atol=0.08)
            np.testing.assert_allclose(fit.sigmas[v], net.sigmas[v], atol=0.04)


@pytest.mark.parametrize("kwargs, match", [
    ({"n_nodes": 0}, "n_nodes"),
    ({"n_nodes": 5, "max_indegree": -1}, "max_indegree"),
    ({"n_nodes": 5, "n_states": (3, 2)}, "n_states"),
    ({"n_nodes": 5, "edge_prob": 1.5}, "edge_prob"),
    ({"n_nodes": 5, "concentration": 0}, "concentration"),
    ({"n_nodes": 5, "kind": "normal"}, "kind"),
    ({"n_nodes": 5, "kind": "gaussian", "weight_range": (1, 0.5)}, "weight_range"),
    ({"n_nodes": 5, "kind": "gaussian", "weight_range": 3}, "weight_range"),
    ({"n_nodes": 5, "kind": "gaussian", "sigma": 0}, "sigma"),
    ({"n_nodes": 5, "kind": "gaussian", "intercept": np.nan}, "intercept"),
    ({"n_nodes": 5, "kind": "clg", "discrete_fraction": 1.5}, "discrete_fraction"),
])
def test_make_random_network_errors(kwargs, match):
    from skbn.datasets import make_random_network

    with pytest.raises(ValueError, match=match):
        make_random_network(**kwargs)


def test_make_pedigree_network_structure_and_determinism():
    from skbn.datasets import make_pedigree_network

    net = make_pedigree_network(200, generation_size=20, random_state=0)
    again = make_pedigree_network(200, generation_size=20, random_state=0)
    assert net.edges == again.edges
    for node in net.nodes:
        np.testing.assert_array_equal(net.cpts[node], again.cpts[node])
    assert len(net.nodes) == 200
    assert all(net.states[v] == ["s0", "s1", "s2"] for v in net.nodes)
    n_parents = np.array([len(net.parents[v]) for v in net.nodes])
    assert set(n_parents) == {0, 2}
    assert (n_parents[:20] == 0).all()  # the first generation are founders
    assert 0.25 < (n_parents == 0).mean() < 0.45  # about a third founders
    position = {v: i for i, v in enumerate(net.nodes)}
    for v in net.nodes:  # parents from the previous generation
        for u in net.parents[v]:
            assert position[v] // 20 - position[u] // 20 == 1
    # hubs: a few sires have many offspring
    children = np.bincount([position[u] for u, _ in net.edges], minlength=200)
    assert children.max() >= 5
    linked = make_pedigree_network(101, n_loci=2, random_state=1)
    assert len(linked.nodes) == 101
    assert max(len(linked.parents[v]) for v in linked.nodes) == 3


def test_make_pedigree_network_mendelian_tables():
    # hand values: a genotype g transmits the allele with probability g / 2
    from skbn.datasets import make_pedigree_network

    net = make_pedigree_network(60, generation_size=10, error_rate=0.0, random_state=0)
    child = next(v for v in net.nodes if len(net.parents[v]) == 2)
    cpt = net.cpts[child]  # (sire, dam, child)
    np.testing.assert_allclose(cpt[1, 1], [0.25, 0.5, 0.25])
    np.testing.assert_allclose(cpt[0, 2], [0.0, 1.0, 0.0])
    np.testing.assert_allclose(cpt[2, 2], [0.0, 0.0, 1.0])
    np.testing.assert_allclose(cpt[0, 1], [0.5, 0.5, 0.0])
    founder = next(v for v in net.nodes if not net.parents[v])
    q = np.sqrt(net.cpts[founder][2])  # Hardy-Weinberg: (1 - q)^2, 2 q (1 - q), q^2
    np.testing.assert_allclose(net.cpts[founder], [(1 - q) ** 2, 2 * q * (1 - q), q ** 2])
    noisy = make_pedigree_network(60, generation_size=10, error_rate=0.3, random_state=0)
    np.testing.assert_allclose(noisy.cpts[child][0, 2], [0.1, 0.8, 0.1])
    # linked locus: copies the previous locus where the parents allow it
    linked = make_pedigree_network(40, n_loci=2, generation_size=6, linkage=1.0,
                                   error_rate=0.0, random_state=0)
    node = next(v for v in linked.nodes if len(linked.parents[v]) == 3)
    cpt = linked.cpts[node]  # (sire, dam, previous locus, child)
    np.testing.assert_allclose(cpt[1, 1, 2], [0, 0, 1])
    np.testing.assert_allclose(cpt[0, 0, 2], [1, 0, 0])  # impossible copy: Mendel decides
    # strong inheritance is visible in samples: parent-child genotypes correlated
    X = net.sample(3000, random_state=0)
    codes = X.apply(lambda c: c.str[1:].astype(int))
    sire = net.parents[child][0]
    assert np.corrcoef(codes[sire], codes[child])[0, 1] > 0.3


@pytest.mark.parametrize("kwargs, match", [
    ({"n_nodes": 0}, "n_nodes"), ({"n_nodes": 5, "n_loci": 0}, "n_loci"),
    ({"n_nodes": 5, "generation_size": 1.5}, "generation_size"),
    ({"n_nodes": 5, "founder_fraction": 2.0}, "founder_fraction"),
    ({"n_nodes": 5, "linkage": -0.1}, "linkage"), ({"n_nodes": 5, "error_rate": "x"}, "error_rate"),
    ({"n_nodes": 5, "hub_exponent": -1}, "hub_exponent"),
])
def test_make_pedigree_network_errors(kwargs, match):
    from skbn.datasets import make_pedigree_network

    with pytest.raises(ValueError, match=match):
        make_pedigree_network(**kwargs)
