"""Built-in networks and sampling helpers.

Seven standard benchmark networks ship inside the package, so that examples and tests run
from a fresh installation: ``asia``, ``cancer``, ``earthquake``, ``survey``, ``sachs``,
``child`` and ``alarm``, from the bnlearn Bayesian network repository (public-domain BIF
files, stored in the package's ``_networks`` folder with a README giving their sources).
:func:`load_network` reads any of them by name; :func:`asia_network` is the ASIA network
("chest clinic") of Lauritzen & Spiegelhalter (1988).
"""

from importlib import resources
from numbers import Integral, Real
from pathlib import Path

import numpy as np
from sklearn.utils import check_random_state

from .graph import random_dag, topological_order
from .io import read_bif
from .network import CLGBayesianNetwork, DiscreteBayesianNetwork, GaussianBayesianNetwork

__all__ = ["asia_network", "load_network", "make_pedigree_network", "make_random_network",
           "network_names", "sample_asia"]


def asia_network():
    """The 8-node ASIA network (Lauritzen & Spiegelhalter, 1988).

    Nodes, in order: ``asia`` (visit to Asia), ``tub`` (tuberculosis), ``smoke``,
    ``lung`` (lung cancer), ``bronc`` (bronchitis), ``either`` (tuberculosis or lung
    cancer, a deterministic OR), ``xray`` (positive X-ray) and ``dysp`` (dyspnoea); every
    node has states ``["yes", "no"]``. The numbers are those of the bnlearn repository's
    ``asia.bif``, shipped in the package.

    Returns
    -------
    network : DiscreteBayesianNetwork
        The network, with its states and conditional probability tables.

    References
    ----------
    .. [1] S. L. Lauritzen and D. J. Spiegelhalter, "Local computations with
       probabilities on graphical structures and their application to expert systems",
       *J. R. Stat. Soc. B* 50(2):157-224, 1988.

    Examples
    --------
    >>> from skbn.datasets import asia_network
    >>> net = asia_network()
    >>> net.nodes
    ['asia', 'tub', 'smoke', 'lung', 'bronc', 'either', 'xray', 'dysp']
    >>> net.edges[:3]
    [('asia', 'tub'), ('smoke', 'lung'), ('smoke', 'bronc')]
    """
    return _read_builtin("asia")


#: The networks shipped as BIF files in ``skbn/_networks``.
_BUILTIN = ("alarm", "asia", "cancer", "child", "earthquake", "sachs", "survey")


def _read_builtin(name):
    with resources.as_file(resources.files("skbn") / "_networks" / f"{name}.bif") as path:
        return read_bif(path)


def network_names():
    """The names of the built-in networks, which :func:`load_network` accepts.

    Returns
    -------
    names : list of str
        ``['alarm', 'asia', 'cancer', 'child', 'earthquake', 'sachs', 'survey']``.

    Examples
    --------
    >>> from skbn.datasets import network_names
    >>> network_names()
    ['alarm', 'asia', 'cancer', 'child', 'earthquake', 'sachs', 'survey']
    """
    return list(_BUILTIN)


def load_network(name_or_path):
    """A built-in network by name, or a network read from a ``.bif`` file.

    The built-in networks are standard benchmarks from the bnlearn Bayesian network
    repository (see :func:`network_names`):

    ==============  =====  =====  ==================================================
    name            nodes  edges  what it models
    ==============  =====  =====  ==================================================
    ``asia``        8      8      chest clinic: tuberculosis, lung cancer, bronchitis
    ``cancer``      5      4      lung cancer (Korb & Nicholson)
    ``earthquake``  5      4      burglary alarm (Korb & Nicholson)
    ``survey``      6      6      choice of transport (Scutari & Denis)
    ``sachs``       11     17     protein signalling, three levels per protein
    ``child``       20     25     congenital heart disease in newborns
    ``alarm``       37     46     patient monitoring in intensive care
    ==============  =====  =====  ==================================================

    They are read from the BIF files shipped in the package (``"asia"`` is
    :func:`asia_network`). Every call returns a new network object.

    Parameters
    ----------
    name_or_path : str or path-like
        A path to a ``.bif`` file, or the name of a built-in network (case-insensitive).

    Returns
    -------
    network : DiscreteBayesianNetwork
        The network, with its states and conditional probability tables.

    Raises
    ------
    ValueError
        If the name is neither an existing ``.bif`` file nor a built-in network; the
        message lists the built-in names.

    Examples
    --------
    >>> from skbn.datasets import load_network
    >>> alarm = load_network("alarm")
    >>> len(alarm.nodes), len(alarm.edges)
    (37, 46)
    >>> alarm.sample(3, random_state=0).shape
    (3, 37)
    """
    if isinstance(name_or_path, Path) or str(name_or_path).lower().endswith(".bif"):
        path = Path(name_or_path)
        if not path.is_file():
            raise ValueError(f"No such BIF file: {str(path)!r}.")
        return read_bif(path)
    key = str(name_or_path).lower()
    if key not in _BUILTIN:
        raise ValueError(
            f"Unknown network {name_or_path!r}: pass a path to a .bif file or one of "
            f"the built-in networks {list(_BUILTIN)!r}.")
    return _read_builtin(key)


def sample_asia(n_samples=10000, random_state=0):
    """Draw rows from the ASIA network by forward sampling.

    Parameters
    ----------
    n_samples : int, default=10000
        Number of rows.
    random_state : int, RandomState instance or None, default=0
        Seed of the draw.

    Returns
    -------
    X : pandas.DataFrame of shape (n_samples, 8)
        Categorical columns with categories ``["yes", "no"]``.

    Examples
    --------
    >>> from skbn.datasets import sample_asia
    >>> sample_asia(5).shape
    (5, 8)
    """
    return asia_network().sample(n_samples, random_state=random_state)


def make_random_network(n_nodes, *, kind="discrete", max_indegree=3, n_states=(2, 4),
                        edge_prob=None, concentration=1.0, weight_range=(0.1, 1.0),
                        random_sign=False, intercept=0.0, sigma=1.0, discrete_fraction=0.5,
                        random_state=None):
    r"""A random Bayesian network: discrete, linear Gaussian or conditional linear Gaussian.

    **Graph** (every kind). The graph follows the ``"ordered"`` method of bnlearn's
    ``random.graph``: the nodes are put in a uniformly random causal order and every pair
    ``u`` before ``v`` gets the edge ``u -> v`` independently with probability ``edge_prob``;
    a node drawing more than ``max_indegree`` parents keeps a uniformly random subset of
    ``max_indegree`` of them (:func:`skbn.graph.random_dag` with ``shuffle=True``). The
    expected number of edges is about ``edge_prob * n_nodes * (n_nodes - 1) / 2`` (a little
    fewer when the in-degree cap binds); the default ``edge_prob = 2 / (n_nodes - 1)`` gives
    about ``n_nodes`` edges, an average of two neighbours per node, as bnlearn's default does.
    The same ``random_state`` gives the same graph for every ``kind``.

    **Discrete** (``kind="discrete"``). Node ``i`` gets ``r_i`` states, drawn uniformly from
    ``n_states[0], ..., n_states[1]``, labelled ``"s0", "s1", ...``. Every row of every CPT
    (one parent configuration ``j``) is an independent draw

    .. math::

        \theta_{\cdot \mid j} \sim \operatorname{Dirichlet}(\alpha, \dots, \alpha),

    with ``alpha = concentration``. ``alpha = 1`` is uniform on the probability simplex: two
    parent configurations then give distributions that differ by about ``1/3`` in total
    variation on binary nodes, so every edge is a clear dependence that a few thousand rows
    reveal. Smaller ``alpha`` gives more skewed (near-deterministic) rows, larger ``alpha``
    rows closer to uniform and so weaker, harder-to-learn dependencies.

    **Linear Gaussian** (``kind="gaussian"``), as pcalg's ``randomDAG`` and ``rmvDAG`` draw
    them: every edge gets a weight uniform in ``weight_range`` (pcalg's ``[lB, uB] =
    [0.1, 1]``), multiplied by a random sign (+1 or -1, each with probability 1/2) when
    ``random_sign=True`` (pcalg's weights are all positive); every node has the intercept
    ``intercept`` and the noise standard deviation ``sigma`` (pcalg: 0 and 1),

    .. math::

        x_i = b_0 + \sum_{j \in \mathrm{pa}(i)} b_{ij} x_j + \varepsilon_i,
        \quad b_{ij} \sim U[l, u] \ (\times \pm 1), \quad
        \varepsilon_i \sim N(0, \sigma^2).

    **Conditional linear Gaussian** (``kind="clg"``). ``round(discrete_fraction * n_nodes)``
    nodes are discrete: the first ones of the graph's topological order (Kahn's algorithm,
    ties broken by name). Every parent of a discrete node then comes before it in that order,
    so it is discrete too: the graph respects bnlearn's rule that a discrete node has no
    continuous parent, whatever the graph. Discrete nodes get states and Dirichlet CPTs as
    for ``kind="discrete"``. A continuous node gets, in every configuration of its discrete
    parents, its own coefficients on its continuous parents (drawn as for
    ``kind="gaussian"``), its own intercept ``intercept + u`` with ``u`` uniform in
    ``[-2 sigma, 2 sigma]`` and its own standard deviation ``sigma * v`` with ``v`` uniform
    in ``[0.5, 1.5]``; a continuous node without discrete parents has the intercept and
    standard deviation of ``kind="gaussian"``. With ``discrete_fraction=0`` every node is
    continuous (a CLG network with no discrete node).

    Parameters
    ----------
    n_nodes : int
        Number of nodes (>= 1). Names are ``"X0000", "X0001", ...`` (zero-padded to at least
        four digits, so that names sort in node order); the node order is not topological.
    kind : {"discrete", "gaussian", "clg"}, default="discrete"
        The kind of network.
    max_indegree : int or None, default=3
        Largest number of parents of a node; ``None`` for no cap.
    n_states : int or (int, int), default=(2, 4)
        Number of states of every discrete node, or the inclusive range it is drawn from.
    edge_prob : float in [0, 1] or None, default=None
        Probability of each forward edge in the causal order; ``None`` means
        ``min(1, 2 / (n_nodes - 1))``.
    concentration : float > 0, default=1.0
        Dirichlet concentration ``alpha`` of every CPT row (discrete nodes).
    weight_range : (float, float), default=(0.1, 1.0)
        Range ``[l, u]`` (``0 <= l <= u``) of the absolute edge weights (continuous nodes).
    random_sign : bool, default=False
        Give every edge weight a random sign.
    intercept : float, default=0.0
        Intercept of every continuous node (the centre of the per-configuration intercepts
        of a CLG node with discrete parents).
    sigma : float > 0, default=1.0
        Noise standard deviation of every continuous node (the scale of the
        per-configuration ones of a CLG node with discrete parents).
    discrete_fraction : float in [0, 1], default=0.5
        Share of discrete nodes of a CLG network (``kind="clg"`` only).
    random_state : int, RandomState instance or None, default=None
        The same value gives the same network. ``kind="discrete"`` draws exactly what this
        function drew before ``kind`` existed.

    Returns
    -------
    network : DiscreteBayesianNetwork, GaussianBayesianNetwork or CLGBayesianNetwork
        The random network, nodes in name order.

    See Also
    --------
    skbn.graph.random_dag : the random graph alone.
    DiscreteBayesianNetwork.sample : draw data from the network.

    References
    ----------
    .. [1] M. Scutari, "Learning Bayesian networks with the bnlearn R package", *Journal of
       Statistical Software* 35(3), 2010 (``random.graph``, method ``"ordered"``).
    .. [2] M. Kalisch, M. Maechler, D. Colombo, M. H. Maathuis and P. Buehlmann,
       "Causal inference using graphical models with the R package pcalg", *Journal of
       Statistical Software* 47(11), 2012 (``randomDAG``, ``rmvDAG``).

    Examples
    --------
    >>> from skbn.datasets import make_random_network
    >>> net = make_random_network(6, random_state=0)
    >>> net.nodes
    ['X0000', 'X0001', 'X0002', 'X0003', 'X0004', 'X0005']
    >>> X = net.sample(100, random_state=0)
    >>> X.shape
    (100, 6)
    >>> gauss = make_random_network(6, kind="gaussian", random_state=0)
    >>> gauss.edges == net.edges
    True
    >>> clg = make_random_network(6, kind="clg", random_state=0)
    >>> sum(clg.is_discrete(v) for v in clg.nodes)
    3
    """
    if kind not in ("discrete", "gaussian", "clg"):
        raise ValueError(f"kind must be 'discrete', 'gaussian' or 'clg', got {kind!r}.")
    if not isinstance(n_nodes, Integral) or isinstance(n_nodes, bool) or n_nodes < 1:
        raise ValueError(f"n_nodes must be a positive integer, got {n_nodes!r}.")
    if max_indegree is not None and (not isinstance(max_indegree, Integral)
                                     or isinstance(max_indegree, bool) or max_indegree < 0):
        raise ValueError(f"max_indegree must be None or a non-negative integer, "
                         f"got {max_indegree!r}.")
    low, high = (n_states, n_states) if isinstance(n_states, Integral) else tuple(n_states)
    if not all(isinstance(v, Integral) for v in (low, high)) or not 1 <= low <= high:
        raise ValueError(f"n_states must be an integer >= 1 or a pair (low, high) with "
                         f"1 <= low <= high, got {n_states!r}.")
    if edge_prob is None:
        edge_prob = min(1.0, 2.0 / (n_nodes - 1)) if n_nodes > 1 else 0.0
    if not isinstance(edge_prob, Real) or not 0.0 <= edge_prob <= 1.0:
        raise ValueError(f"edge_prob must be None or a float in [0, 1], got {edge_prob!r}.")
    if not isinstance(concentration, Real) or not concentration > 0:
        raise ValueError(f"concentration must be a positive float, got {concentration!r}.")
    try:
        w_low, w_high = (float(v) for v in weight_range)
    except (TypeError, ValueError):
        raise ValueError(f"weight_range must be a pair (low, high) of floats, got "
                         f"{weight_range!r}.") from None
    if not (np.isfinite(w_low) and np.isfinite(w_high) and 0.0 <= w_low <= w_high):
        raise ValueError(f"weight_range must satisfy 0 <= low <= high (finite), got "
                         f"{weight_range!r}.")
    if not isinstance(intercept, Real) or not np.isfinite(intercept):
        raise ValueError(f"intercept must be a finite float, got {intercept!r}.")
    if not isinstance(sigma, Real) or not (np.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma must be a positive float, got {sigma!r}.")
    if not isinstance(discrete_fraction, Real) or not 0.0 <= discrete_fraction <= 1.0:
        raise ValueError(f"discrete_fraction must be a float in [0, 1], got "
                         f"{discrete_fraction!r}.")
    rng = check_random_state(random_state)
    n = int(n_nodes)
    _, edges = random_dag(n, float(edge_prob), random_state=rng, max_indegree=max_indegree,
                          shuffle=True)
    width = max(4, len(str(n - 1)))
    names = [f"X{i:0{width}d}" for i in range(n)]
    parents = [[] for _ in range(n)]
    for parent, child in edges:  # random_dag names nodes "X<i>"
        parents[int(child[1:])].append(int(parent[1:]))
    parents = [sorted(pa) for pa in parents]
    parent_names = {name: [names[p] for p in parents[i]] for i, name in enumerate(names)}

    def weights(size):
        w = rng.uniform(w_low, w_high, size=size)
        return w * rng.choice([-1.0, 1.0], size=size) if random_sign else w

    if kind == "gaussian":
        coefficients = {name: weights(len(parents[i])) for i, name in enumerate(names)}
        return GaussianBayesianNetwork(names, parent_names, dict.fromkeys(names, float(intercept)),
                                       coefficients, dict.fromkeys(names, float(sigma)))
    cards = rng.randint(int(low), int(high) + 1, size=n)
    if kind == "discrete":
        discrete = set(range(n))
    else:
        order = topological_order(names, [(names[p], names[i]) for i in range(n)
                                          for p in parents[i]])
        k = int(round(float(discrete_fraction) * n))
        discrete = {int(v[1:]) for v in order[:k]}
    states, cpts = {}, {}
    for i, name in enumerate(names):
        if i not in discrete:
            continue
        r = int(cards[i])
        shape = tuple(int(cards[p]) for p in parents[i]) + (r,)
        rows = rng.dirichlet(np.full(r, float(concentration)), size=int(np.prod(shape[:-1])))
        rows /= rows.sum(axis=1, keepdims=True)
        states[name] = [f"s{k}" for k in range(r)]
        cpts[name] = rows.reshape(shape)
    if kind == "discrete":
        return DiscreteBayesianNetwork(states, parent_names, cpts)
    intercepts, coefficients, sigmas = {}, {}, {}
    for i, name in enumerate(names):
        if i in discrete:
            continue
        shape = tuple(int(cards[p]) for p in parents[i] if p in discrete)
        n_continuous = sum(p not in discrete for p in parents[i])
        if not shape:
            intercepts[name], sigmas[name] = float(intercept), float(sigma)
            coefficients[name] = weights(n_continuous)
            continue
        q = int(np.prod(shape))
        coefficients[name] = weights(q * n_continuous).reshape(shape + (n_continuous,))
        intercepts[name] = (float(intercept)
                            + rng.uniform(-2.0 * sigma, 2.0 * sigma, size=q).reshape(shape))
        sigmas[name] = float(sigma) * rng.uniform(0.5, 1.5, size=q).reshape(shape)
    return CLGBayesianNetwork(names, states, parent_names, cpts, intercepts, coefficients, sigmas)


def _mendel_table(error_rate):
    """``P(child genotype | sire genotype, dam genotype)``, shape (3, 3, 3).

    A genotype is the number ``g`` of copies of one allele (0, 1, 2); a parent of genotype
    ``g`` transmits that allele with probability ``g / 2``, independently for the two
    parents (Mendel's first law); ``error_rate`` mixes in the uniform distribution.
    """
    t = np.array([0.0, 0.5, 1.0])
    ts, td = t[:, None], t[None, :]
    table = np.stack([(1 - ts) * (1 - td), ts * (1 - td) + (1 - ts) * td, ts * td], axis=-1)
    return (1.0 - error_rate) * table + error_rate / 3.0


def make_pedigree_network(n_nodes, *, n_loci=1, generation_size=40, founder_fraction=1 / 3,
                          hub_exponent=1.0, linkage=0.9, error_rate=0.01, random_state=None):
    """A pedigree-like network: genotypes inherited along generations (hard for learners).

    Imitates, statistically, the pedigree and linkage networks of the bnlearn repository
    (``pigs``: 441 three-state genotypes, two parents each; ``link``: 724 nodes, several
    loci per individual, up to three parents), which are hard for structure learning
    because dependence runs along long chains: relatives many generations apart stay
    associated, so few adjacencies vanish with small conditioning sets.

    Individuals are born in generations of ``generation_size``. The first generation and a
    random share of every later one are founders (about ``founder_fraction`` of all
    individuals); every other individual has a sire and a dam of the previous generation.
    Sires are drawn with weights ``1 / rank ** hub_exponent`` (a few males father many
    offspring: hubs), dams uniformly. Each individual carries ``n_loci`` genotype nodes
    with states ``"s0", "s1", "s2"`` (the number ``g`` of copies of one allele); node
    ``(i, l)`` gets the parents (sire's locus ``l``, dam's locus ``l``) with Mendelian
    transmission, each parent passing the allele with probability ``g / 2``:

    .. math::

        P(g \\mid g_s, g_d) = (1 - \\epsilon)\\, \\mathrm{Mendel}(g \\mid g_s, g_d)
                            + \\epsilon / 3,

    and a founder's genotype follows Hardy-Weinberg proportions
    ``((1 - q)^2, 2 q (1 - q), q^2)`` with an allele frequency ``q`` per locus drawn
    uniformly from ``[0.2, 0.8]``. With ``n_loci > 1`` the locus ``l > 0`` also has the
    individual's locus ``l - 1`` as a parent (linked markers: in-degree 3): with
    probability ``linkage`` the genotype copies that of locus ``l - 1`` when the parental
    genotypes allow it (it is drawn from the distribution above otherwise). This is a
    statistical imitation of linkage (strong, low-entropy dependence along the loci of
    one chromosome), not a recombination model.

    Parameters
    ----------
    n_nodes : int
        Number of nodes (>= 1): ``ceil(n_nodes / n_loci)`` individuals, the last one with
        fewer loci if needed. Names ``"X0000", ...`` follow birth order, loci of one
        individual consecutive, so the column order is topological.
    n_loci : int, default=1
        Genotype nodes per individual.
    generation_size : int, default=40
        Individuals per generation (fewer generations: shorter chains).
    founder_fraction : float in [0, 1], default=1/3
        Expected share of founders (individuals without parents); the first generation
        always is.
    hub_exponent : float >= 0, default=1.0
        Skew of the sires' offspring numbers (0: uniform).
    linkage : float in [0, 1], default=0.9
        Strength of the dependence on the previous locus (``n_loci > 1`` only).
    error_rate : float in [0, 1], default=0.01
        Genotyping / mutation noise mixed into every inheritance.
    random_state : int, RandomState instance or None, default=None
        The same value gives the same network.

    Returns
    -------
    network : DiscreteBayesianNetwork
        The pedigree network, nodes in name order, three states each.

    See Also
    --------
    make_random_network : random DAGs with independent Dirichlet CPTs (easier).

    References
    ----------
    .. [1] C. S. Jensen and A. Kong, "Blocking Gibbs sampling for linkage analysis in large
       pedigrees with many loops", *American Journal of Human Genetics* 65(3), 1999
       (the networks behind bnlearn's ``pigs`` and ``link``).

    Examples
    --------
    >>> from skbn.datasets import make_pedigree_network
    >>> net = make_pedigree_network(60, random_state=0)
    >>> max(len(net.parents[v]) for v in net.nodes)
    2
    >>> net.sample(5, random_state=0).shape
    (5, 60)
    """
    if not isinstance(n_nodes, Integral) or isinstance(n_nodes, bool) or n_nodes < 1:
        raise ValueError(f"n_nodes must be a positive integer, got {n_nodes!r}.")
    for name, value in (("n_loci", n_loci), ("generation_size", generation_size)):
        if not isinstance(value, Integral) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}.")
    for name, value in (("founder_fraction", founder_fraction), ("linkage", linkage),
                        ("error_rate", error_rate)):
        if not isinstance(value, Real) or not 0.0 <= value <= 1.0:
            raise ValueError(f"{name} must be a float in [0, 1], got {value!r}.")
    if not isinstance(hub_exponent, Real) or not hub_exponent >= 0:
        raise ValueError(f"hub_exponent must be a float >= 0, got {hub_exponent!r}.")
    rng = check_random_state(random_state)
    n, n_loci, size = int(n_nodes), int(n_loci), int(generation_size)
    n_individuals = -(-n // n_loci)
    # share of founders among the later generations giving founder_fraction overall
    first = min(size, n_individuals)
    later = n_individuals - first
    extra = max(0.0, founder_fraction * n_individuals - first)
    p_founder = min(1.0, extra / later) if later else 0.0
    male = rng.rand(n_individuals) < 0.5
    sire_rank = rng.permutation(n_individuals)  # fertility rank of every potential sire
    pedigree = []  # (sire, dam) or None per individual
    for i in range(n_individuals):
        g = i // size
        previous = range(max(0, (g - 1) * size), g * size)
        sires = [j for j in previous if male[j]]
        dams = [j for j in previous if not male[j]]
        if g == 0 or rng.rand() < p_founder or not sires or not dams:
            pedigree.append(None)
            continue
        weights = 1.0 / (1.0 + np.argsort(np.argsort(sire_rank[sires]))) ** float(hub_exponent)
        sire = sires[rng.choice(len(sires), p=weights / weights.sum())]
        dam = dams[rng.randint(len(dams))]
        pedigree.append((sire, dam))
    freq = rng.uniform(0.2, 0.8, size=n_loci)
    mendel = _mendel_table(float(error_rate))
    width = max(4, len(str(n - 1)))
    names = [f"X{k:0{width}d}" for k in range(n)]

    def node(i, locus):
        return names[i * n_loci + locus]

    states, parent_names, cpts = {}, {}, {}
    for k, name in enumerate(names):
        i, locus = divmod(k, n_loci)
        q = freq[locus]
        if pedigree[i] is None:
            table = np.array([(1 - q) ** 2, 2 * q * (1 - q), q ** 2])
            parents = []
        else:
            table = mendel
            parents = [node(pedigree[i][0], locus), node(pedigree[i][1], locus)]
        if locus > 0 and linkage > 0:
            parents.append(node(i, locus - 1))
            # copy the previous locus' genotype (where the base distribution allows it)
            base = table[..., None, :]
            copy = np.eye(3) * (base > 0)
            table = (1 - linkage) * base + linkage * np.where(
                copy.sum(axis=-1, keepdims=True) > 0, copy, base)
        states[name] = ["s0", "s1", "s2"]
        parent_names[name] = parents
        cpts[name] = table / table.sum(axis=-1, keepdims=True)
    return DiscreteBayesianNetwork(states, parent_names, cpts)
