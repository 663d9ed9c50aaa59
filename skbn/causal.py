"""Causal questions on a DAG or a CPDAG: adjustment sets and IDA intervention effects.

What happens to ``Y`` if we *set* ``X = x`` (Pearl's ``do(X = x)``)? When the causal DAG is
known, a set ``Z`` of covariates is an **adjustment set** for ``(X, Y)`` when

.. math::

    P(y \\mid \\mathrm{do}(x)) = \\sum_z P(y \\mid x, z)\\, P(z)

for every distribution that factorises over the DAG. When only the Markov equivalence class is
known (the CPDAG that PC or GES return), ``Z`` must be an adjustment set in every DAG of the
class; the **generalised adjustment criterion** (Perković, Textor, Kalisch & Maathuis 2018)
decides that on the CPDAG itself. When the effect is not identified by the CPDAG, **IDA**
(Maathuis, Kalisch & Bühlmann 2009) reports the multiset of effects, one per parent set that
``X`` can have in the class, each estimated by adjusting for that parent set.

Graphs are given as a :class:`skbn.graph.PDAG` (a CPDAG, e.g. a learner's ``cpdag_``; a
fitted learner is also accepted: its ``cpdag_``, else its ``edges_``), or as an iterable of
``(parent, child)`` pairs (a DAG). Nodes are hashable labels.

References
----------
- E. Perković, J. Textor, M. Kalisch and M. H. Maathuis, "Complete graphical
  characterization and construction of adjustment sets in Markov equivalence classes of
  ancestral graphs", JMLR 18(220), 2018.
- E. Perković, M. Kalisch and M. H. Maathuis, "Interpreting and using CPDAGs with
  background knowledge", UAI 2017 (b-possibly causal paths: the criterion on a CPDAG with
  background knowledge, a maximally oriented PDAG).
- I. Shpitser, T. VanderWeele and J. M. Robins, "On the validity of covariate adjustment
  for estimating causal effects", UAI 2010.
- L. Henckel, E. Perković and M. H. Maathuis, "Graphical criteria for efficient total
  effect estimation via adjustment in causal linear models", JRSS-B 84(2), 2022.
- M. H. Maathuis, M. Kalisch and P. Bühlmann, "Estimating high-dimensional intervention
  effects from observational data", Annals of Statistics 37(6A), 2009.
- J. Witte, L. Henckel, M. H. Maathuis and V. Didelez, "On efficient adjustment in causal
  graphs", JMLR 21(246), 2020 (IDA with the optimal adjustment set).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from itertools import product

import numpy as np
import pandas as pd
from sklearn.utils import check_random_state

from skbn._counting import compress_ids, config_ids, contingency_tables, moments, regression, table_from_ids
from skbn._dag import (
    adjacent_sets,
    amenability_violation,
    causal_nodes,
    components,
    extension_ids,
    forbidden_nodes,
    local_parent_sets,
    parents_children,
    possible_ancestors,
    possible_descendants,
    proper_backdoor_edges,
    topological_ids,
    v_structure_ids,
)
from skbn._data import _declared_for, encode_columns
from skbn.exceptions import PositivityWarning
from skbn.graph import (
    PDAG,
    _as_node_set,
    d_separated,
    dag_to_cpdag,
    is_acyclic,
    meek_orient,
    pdag_to_dag,
    v_structures,
)
from skbn.knowledge import conditional_gaussian_rule, restricted_class
from skbn.utils._warnings import warn_user

__all__ = [
    "is_adjustment_set",
    "backdoor_adjustment_set",
    "optimal_adjustment_set",
    "equivalent_dags",
    "ida",
    "joint_ida",
    "effect_over_graphs",
    "GraphEffects",
]


# ---------------------------------------------------------------------------------------------
# graphs on ids
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Graph:
    """A DAG or PDAG on ids ``0 .. n-1`` with one consistent DAG extension."""

    nodes: tuple
    index: dict
    parents: list
    children: list
    neighbours: list
    extension: list  # (u, v) id pairs of one consistent DAG extension
    is_pdag: bool  # given as a PDAG (not an edge list)

    @property
    def n(self):
        return len(self.nodes)

    def adjacent(self, u, v):
        return v in self.parents[u] or v in self.children[u] or v in self.neighbours[u]

    def pdag(self):
        """The graph as a PDAG on integer labels."""
        directed = [(u, v) for u in range(self.n) for v in sorted(self.children[u])]
        undirected = [(u, v) for u in range(self.n) for v in sorted(self.neighbours[u]) if u < v]
        return PDAG(tuple(range(self.n)), directed, undirected)


def _as_pdag(graph, nodes, name):
    """``(PDAG, given as PDAG?)`` from a PDAG, a fitted learner's ``cpdag_`` or DAG edges."""
    if isinstance(graph, PDAG):
        if nodes is not None and tuple(nodes) != graph.nodes:
            raise ValueError(f"nodes must be omitted or equal to {name}.nodes for a PDAG")
        return graph, True
    if hasattr(graph, "cpdag_"):
        undecided = _undecided_edges(graph.cpdag_)
        if undecided:
            learner = type(graph).__name__
            raise ValueError(
                f"{name}: the cpdag_ of this {learner} is not a CPDAG: "
                f"{_undecided(graph, undecided)}; the equivalence class this needs is not defined, and "
                "reading the graph as a CPDAG with background knowledge would silently take the "
                f"non-collider reading. Learn it with {learner}(orient='standard') (each triple "
                "read by its first separating set) or GESStructure (always a CPDAG), or pass "
                "skbn.graph.meek_orient(learner.cpdag_) to take the non-collider reading "
                "knowingly.")
        return _as_pdag(graph.cpdag_, nodes, name)
    if hasattr(graph, "edges_") and hasattr(graph, "n_features_in_"):  # a fitted DAG learner
        if nodes is None:
            names = getattr(graph, "feature_names_in_", range(graph.n_features_in_))
            nodes = list(dict.fromkeys([*names, *(w for e in graph.edges_ for w in e)]))
        return _as_pdag(graph.edges_, nodes, name)
    if isinstance(graph, (str, bytes)) or not hasattr(graph, "__iter__"):
        raise TypeError(f"{name} must be a PDAG, a fitted learner (cpdag_ or edges_) or an "
                        f"iterable of (parent, child) pairs, got {type(graph).__name__}")
    edges = []
    for edge in graph:
        try:
            u, v = edge
        except (TypeError, ValueError):
            raise ValueError(f"{name}: edge {edge!r} is not a (parent, child) pair") from None
        edges.append((u, v))
    if nodes is None:
        nodes = list(dict.fromkeys(w for e in edges for w in e))
    nodes = tuple(nodes)
    if not is_acyclic(nodes, edges):
        raise ValueError(f"{name} has a directed cycle; an edge list must form a DAG")
    return PDAG.from_dag(nodes, edges), False


def _undecided_edges(pdag):
    """The undirected edges of ``pdag`` that Meek's rules R1-R4 orient, as the directed
    edges of the closure (``skbn.graph.meek_orient``), sorted; empty for a PDAG closed under
    the rules (a CPDAG, or a CPDAG with background knowledge) and for one with no
    consistent extension (refused elsewhere, with its own message).

    A learner's ``cpdag_`` is closed unless PC's conservative or majority rule found an
    ambiguous unshielded triple ``a - z - b`` (``z`` in some but not all separating sets of
    ``a`` and ``b``, or no separating set found): R1 and R3 do not read it as a
    non-collider, so an edge ``z - w`` that ``a -> z`` would orient stays undirected. Such a
    graph is not a CPDAG: the data allow the triple as a collider too (``w -> z`` then), and
    the causal functions, which read a non-closed PDAG as background knowledge, would take
    the non-collider reading silently."""
    if not pdag.undirected:
        return []
    try:
        closed = meek_orient(pdag)
    except ValueError:
        return []
    return sorted(set(closed.directed) - set(pdag.directed))


def _undecided(learner, edges):
    """Which edges of a learner's ``cpdag_`` Meek's rules orient (``edges``,
    :func:`_undecided_edges`) and why, for messages: ``it leaves 'a' - 'b' undirected, which
    Meek's rules orient ('a' -> 'b'). <reason>``."""
    listed = ", ".join(f"{u!r} - {v!r}" for u, v in edges)
    oriented = ", ".join(f"{u!r} -> {v!r}" for u, v in edges)
    orient = learner.get_params().get("orient")
    if orient in ("majority", "conservative"):
        reason = (f"Its orient={orient!r} rule found an unshielded triple through each such edge "
                  "ambiguous (the middle node in some but not all separating sets of its ends, "
                  "or no separating set found), so the data allow it as a collider, and the "
                  "edge then points the other way")
    else:
        reason = ("Its orientation conflicts (orientation_conflicts_) stopped Meek's rules there, "
                  "so the data decide no orientation of these edges")
    return f"it leaves {listed} undirected, which Meek's rules orient ({oriented}). {reason}"


def _compile(graph, nodes=None, name="graph", *, close=False):
    """The graph as node sets. With ``close`` (the adjustment criteria), a PDAG is closed
    under Meek's rules first (:func:`skbn.graph.meek_orient`): the closure represents the
    same DAGs (Meek 1995), and the b-possibly causal paths of the criteria are defined on it
    (an orientation the rules would add rules out paths; without it, answers could be wrong
    either way). Callers that require a CPDAG (IDA's local method, the SID) refuse a PDAG
    that is not one instead."""
    pdag, is_pdag = _as_pdag(graph, nodes, name)
    if pdag.undirected:
        try:
            extension = pdag_to_dag(pdag)
        except ValueError as exc:
            if hasattr(graph, "cpdag_"):  # a fitted learner: say where the PDAG came from
                learner = type(graph).__name__
                conflicts = len(getattr(graph, "orientation_conflicts_", ()))
                raise ValueError(
                    f"{name}: the cpdag_ of this {learner} is not a CPDAG ({exc}): its "
                    f"conditional-independence tests contradict each other ({conflicts} orientation "
                    "conflict(s), orientation_conflicts_; the OrientationConflictWarning of its fit), "
                    "so the equivalence class this needs is not defined. Learn it again with fewer "
                    "test errors (a smaller alpha, more rows) or with GESStructure, whose cpdag_ "
                    f"is always a CPDAG; or pass the {learner}'s edges_ (the one DAG its extension "
                    "fallback chose) for the answer in that DAG.") from None
            raise ValueError(f"{name} is not a CPDAG: {exc}") from None
        if close:  # (the extension is a DAG of the closure too: the same DAGs)
            pdag = meek_orient(pdag)
    else:
        if not is_acyclic(pdag.nodes, pdag.directed):
            raise ValueError(f"{name} has a directed cycle")
        extension = pdag.directed
    n = len(pdag.nodes)
    index = {v: i for i, v in enumerate(pdag.nodes)}
    parents = [set() for _ in range(n)]
    children = [set() for _ in range(n)]
    neighbours = [set() for _ in range(n)]
    for u, v in pdag.directed:
        parents[index[v]].add(index[u])
        children[index[u]].add(index[v])
    for u, v in pdag.undirected:
        neighbours[index[u]].add(index[v])
        neighbours[index[v]].add(index[u])
    extension = [(index[u], index[v]) for u, v in extension]
    return _Graph(pdag.nodes, index, parents, children, neighbours, extension, is_pdag)


def _xyz(g, x, y, z=()):
    xs, ys, zs = (_as_node_set(g.index, v, name) for v, name in ((x, "x"), (y, "y"), (z, "z")))
    if not xs or not ys:
        raise ValueError("x and y must each name at least one node")
    for a, b, what in ((xs, ys, "x and y"), (xs, zs, "x and z"), (ys, zs, "y and z")):
        if a & b:
            raise ValueError(f"{what} must be disjoint; both contain "
                             f"{[g.nodes[i] for i in sorted(a & b)]!r}")
    return xs, ys, zs


def _labels(g, ids):
    return [g.nodes[i] for i in sorted(ids)]


def _amenable(graph, nodes, x, y):
    """``(g, xs, ys)``: the compiled ``graph`` and the treatment and outcome ids of a search
    for an adjustment set, refusing a graph that is not adjustment amenable for them (no
    set exists: the message names the undirected edge at ``x`` that starts a possibly
    causal path to ``y``)."""
    g = _compile(graph, nodes, close=True)
    xs, ys, _ = _xyz(g, x, y)
    bad = amenability_violation(g.parents, g.children, g.neighbours, xs, ys)
    if bad is not None:
        x, w = bad
        raise ValueError(
            f"the graph is not adjustment amenable for x={_labels(g, xs)!r}, "
            f"y={_labels(g, ys)!r}: the undirected edge {g.nodes[x]!r} - {g.nodes[w]!r} "
            f"starts a possibly causal path to y, so the effect differs between the DAGs of the "
            f"class and no adjustment set exists (use ida for the possible effects)")
    return g, xs, ys


def _is_valid(g, xs, ys, zs):
    """The generalised adjustment criterion on ids (the three sets are disjoint)."""
    if amenability_violation(g.parents, g.children, g.neighbours, xs, ys) is not None:
        return False
    cn = causal_nodes(g.parents, g.children, g.neighbours, xs, ys)
    forbidden = forbidden_nodes(g.parents, g.children, g.neighbours, xs, ys, cn)
    if zs & forbidden:
        return False
    edges = proper_backdoor_edges(g.extension, xs, cn)
    return d_separated(range(g.n), edges, sorted(xs), sorted(ys), sorted(zs))


def _latent_ids(g, latent, xs, ys):
    """The ids of the unmeasured nodes ``latent`` (None: none), refusing a latent treatment
    or outcome: the adjustment formula needs ``x`` and ``y`` in the data."""
    if latent is None:
        return set()
    ls = _as_node_set(g.index, latent, "latent")
    for s, what in ((xs, "x"), (ys, "y")):
        if ls & s:
            raise ValueError(f"{what} and latent must be disjoint; both contain "
                             f"{_labels(g, ls & s)!r} (adjustment needs the treatment and the "
                             "outcome measured)")
    return ls


def _canonical_set(g, xs, ys, forbidden, ls):
    """The canonical set ``PossAn(X u Y) \\ (X u Y u Forb u L)`` on ids, ``L`` the latent
    ids: valid iff some adjustment set without latent nodes is. With ``L`` empty this is
    Perković et al. (2018, Thm. 4.6); on a DAG, van der Zander, Liśkiewicz & Textor's
    (2014, 2019) constructive set ``Adjust(X, Y)`` restricted to the allowed (measured)
    nodes; on a CPDAG or a PDAG with background knowledge with latent nodes, the same
    statement is checked by brute force over every measured subset in the tests."""
    adjacent = adjacent_sets(g.parents, g.children, g.neighbours)
    return (possible_ancestors(g.parents, g.neighbours, xs | ys, adjacent=adjacent)
            - forbidden - ys - ls)


# ---------------------------------------------------------------------------------------------
# adjustment sets
# ---------------------------------------------------------------------------------------------
def is_adjustment_set(graph, x, y, z, *, nodes=None, latent=None) -> bool:
    """Whether ``z`` is a valid adjustment set for the effect of ``x`` on ``y``.

    Implements the generalised adjustment criterion (Perković et al. 2018, Thm. 4.4), which
    on a DAG is the adjustment criterion of Shpitser, VanderWeele & Robins (2010): ``Z`` is an
    adjustment set relative to ``(X, Y)`` in ``G`` iff

    0. ``G`` is *adjustment amenable*: every proper possibly causal path from ``X`` to ``Y``
       starts with a directed edge out of ``X`` (always true on a DAG);
    1. ``Z`` contains no node of ``Forb(X, Y) = X u PossDe(cn(X, Y))``, the possible
       descendants of the nodes (outside ``X``) on proper possibly causal paths from ``X``
       to ``Y``;
    2. ``Z`` blocks every proper non-causal path from ``X`` to ``Y``: ``X`` and ``Y`` are
       d-separated given ``Z`` in the proper back-door graph (the graph without the first
       edge of every proper causal path), checked on a consistent DAG extension of ``G``.

    Then ``P(y | do(x)) = sum_z P(y | x, z) P(z)`` for every distribution consistent with
    ``G`` (with every DAG of the class, for a CPDAG), and the criterion is complete: every
    set with that property satisfies it. Nodes named in ``latent`` are unmeasured: the
    criterion is the same (latent nodes are nodes of the causal graph), but ``z``, ``x`` and
    ``y`` may not contain them, as they may not overlap (a ValueError).

    Parameters
    ----------
    graph : PDAG, fitted learner, or iterable of (parent, child) pairs
        A CPDAG (or DAG as a PDAG without undirected edges), or the edges of a DAG; a fitted
        learner gives its ``cpdag_`` (PC, GES) or else the DAG of its ``edges_``.
    x, y : node or iterable of nodes
        Treatment and outcome; a value that is itself a node is one node.
    z : iterable of nodes
        The candidate adjustment set (may be empty).
    nodes : sequence of hashable, optional
        All nodes, for an edge list with isolated nodes.
    latent : iterable of nodes, optional
        The unmeasured nodes of the graph (dagitty's ``[latent]``; a hidden common cause of
        ``a`` and ``b`` written as a node with these two children). None (default): every
        node is measured.

    Returns
    -------
    bool
        False also when the graph is not amenable for ``(x, y)``.

    Raises
    ------
    ValueError
        On an unknown node, overlapping ``x``, ``y``, ``z``, a latent node in ``x``, ``y``
        or ``z`` (named), a cyclic graph or a PDAG with no consistent DAG extension.

    References
    ----------
    .. [1] E. Perković, J. Textor, M. Kalisch and M. H. Maathuis, JMLR 18(220), 2018.
    .. [2] I. Shpitser, T. VanderWeele and J. M. Robins, UAI 2010.

    Examples
    --------
    >>> edges = [("z", "x"), ("z", "y"), ("x", "y")]
    >>> is_adjustment_set(edges, "x", "y", ["z"]), is_adjustment_set(edges, "x", "y", [])
    (True, False)
    """
    g = _compile(graph, nodes, close=True)
    xs, ys, zs = _xyz(g, x, y, z)
    ls = _latent_ids(g, latent, xs, ys)
    if zs & ls:
        raise ValueError(f"z and latent must be disjoint; both contain {_labels(g, zs & ls)!r} "
                         "(an adjustment set must be measured)")
    return _is_valid(g, xs, ys, zs)


def backdoor_adjustment_set(graph, x, y, *, nodes=None, latent=None):
    """The parents of ``x`` when they form a valid adjustment set (Pearl's back-door set).

    ``Z = pa(X) \\ X``, the directed parents of the treatment nodes, is returned when it
    satisfies :func:`is_adjustment_set`; on a DAG that holds unless ``y`` is a parent of
    ``x`` (then ``y`` causes ``x``, ``x`` has no effect on ``y`` and no set adjusts).

    When a parent is named in ``latent`` (unmeasured), the set returned is instead the
    canonical set of measured nodes

    .. math::

        \\mathrm{Adjust}(X, Y) = \\mathrm{PossAn}(X \\cup Y) \\setminus
        (X \\cup Y \\cup \\mathrm{Forb}(X, Y) \\cup L),

    the (possible) ancestors of ``X`` and ``Y`` that are neither forbidden (see
    :func:`is_adjustment_set`) nor latent, when it is valid, else None. It is valid iff
    some adjustment set of measured nodes exists (van der Zander, Liśkiewicz & Textor 2014,
    2019, on a DAG; with no latent node, Perković et al. 2018 on a CPDAG), so None then
    means that no set of measured nodes adjusts.

    Parameters
    ----------
    graph : PDAG, fitted learner, or iterable of (parent, child) pairs
        See :func:`is_adjustment_set`.
    x, y : node or iterable of nodes
        Treatment and outcome.
    nodes : sequence of hashable, optional
        All nodes, for an edge list with isolated nodes.
    latent : iterable of nodes, optional
        The unmeasured nodes (see :func:`is_adjustment_set`); None (default): none.

    Returns
    -------
    list or None
        The parents in node order, or None when they are not a valid adjustment set; with a
        latent parent, the measured set ``Adjust(X, Y)`` in node order, or None when no set
        of measured nodes is valid.

    Raises
    ------
    ValueError
        If the graph is not adjustment amenable for ``(x, y)`` (a CPDAG in which an
        undirected edge at ``x`` starts a possibly causal path to ``y``), or ``x`` or ``y``
        holds a latent node.

    References
    ----------
    .. [1] B. van der Zander, M. Liśkiewicz and J. Textor, "Constructing separators and
       adjustment sets in ancestral graphs", UAI 2014; "Separators and adjustment sets in
       causal graphs: complete criteria and an algorithmic framework", Artificial
       Intelligence 270, 2019.
    .. [2] E. Perković, J. Textor, M. Kalisch and M. H. Maathuis, JMLR 18(220), 2018.

    Examples
    --------
    >>> backdoor_adjustment_set([("a", "x"), ("x", "y"), ("a", "y")], "x", "y")
    ['a']
    >>> m_bias = [("u1", "x"), ("u1", "m"), ("u2", "m"), ("u2", "y"), ("x", "y")]
    >>> backdoor_adjustment_set(m_bias, "x", "y", latent=["u1", "u2"])
    []
    """
    g, xs, ys = _amenable(graph, nodes, x, y)
    ls = _latent_ids(g, latent, xs, ys)
    zs = set().union(*(g.parents[i] for i in xs)) - xs
    if zs & ls:
        zs = _canonical_set(g, xs, ys, _o_set(g, xs, ys)[1], ls)
    if zs & ys or not _is_valid(g, xs, ys, zs):
        return None
    return _labels(g, zs)


def optimal_adjustment_set(graph, x, y, *, nodes=None, latent=None):
    """The optimal adjustment set ``O(X, Y)`` of Henckel, Perković & Maathuis (2022).

    .. math::

        O(X, Y) = \\mathrm{pa}(\\mathrm{cn}(X, Y)) \\setminus \\mathrm{forb}(X, Y),

    the parents of the causal nodes (the nodes outside ``X`` on proper causal paths from
    ``X`` to ``Y``, ``Y`` included when ``X`` causes it) minus the forbidden nodes
    ``X u De(cn)``. For an amenable CPDAG the parents are the directed ones (the set is the
    same in every DAG of the class). When any valid adjustment set exists, ``O`` is one and
    gives the adjusted estimator of smallest asymptotic variance among them in linear models
    (and it contains every parent of ``Y`` outside the forbidden set, the "precision"
    covariates). When ``X`` causes no ``y`` (``O`` is not defined), the canonical set
    ``Adjust(X, Y)`` of :func:`backdoor_adjustment_set` is returned instead, when valid.

    With ``latent`` (unmeasured) nodes, ``O`` is returned when it holds none of them: it is
    then optimal among all valid sets, hence among the measured ones. When ``O`` holds a
    latent node, no optimal set of measured nodes is computed (with hidden variables one
    need not exist: Smucler, Sapienza & Rotnitzky 2022): a ValueError names the latent
    nodes of ``O`` and the measured set ``Adjust(X, Y)`` if it is valid; None is returned
    when no set of measured nodes is valid, so None keeps meaning "no set adjusts".

    Parameters
    ----------
    graph : PDAG, fitted learner, or iterable of (parent, child) pairs
        See :func:`is_adjustment_set`.
    x, y : node or iterable of nodes
        Treatment and outcome.
    nodes : sequence of hashable, optional
        All nodes, for an edge list with isolated nodes.
    latent : iterable of nodes, optional
        The unmeasured nodes (see :func:`is_adjustment_set`); None (default): none.

    Returns
    -------
    list or None
        ``O(X, Y)`` in node order, or None when no valid adjustment set (of measured nodes)
        exists (e.g. ``y`` causes ``x`` through an edge ``y -> x``).

    Raises
    ------
    ValueError
        If the graph is not adjustment amenable for ``(x, y)``, ``x`` or ``y`` holds a
        latent node, or ``O(X, Y)`` holds a latent node while some set of measured nodes is
        valid.

    References
    ----------
    .. [1] L. Henckel, E. Perković and M. H. Maathuis, "Graphical criteria for efficient total
       effect estimation via adjustment in causal linear models", JRSS-B 84(2), 2022, Def. 3.9.
    .. [2] E. Smucler, F. Sapienza and A. Rotnitzky, "Efficient adjustment sets in causal
       graphical models with hidden variables", Biometrika 109(1), 2022.

    Examples
    --------
    >>> edges = [("a", "x"), ("x", "m"), ("m", "y"), ("b", "y"), ("a", "b")]
    >>> optimal_adjustment_set(edges, "x", "y")
    ['b']
    """
    g, xs, ys = _amenable(graph, nodes, x, y)
    ls = _latent_ids(g, latent, xs, ys)
    o_set, forbidden = _o_set(g, xs, ys)
    o_valid = o_set is not None and _is_valid(g, xs, ys, o_set)
    if o_valid and not o_set & ls:
        return _labels(g, o_set)
    canonical = _canonical_set(g, xs, ys, forbidden, ls)  # complete for existence
    if not _is_valid(g, xs, ys, canonical):
        return None
    if o_valid:  # (O holds a latent node)
        raise ValueError(
            f"the optimal adjustment set O = {_labels(g, o_set)!r} holds the latent "
            f"node(s) {_labels(g, o_set & ls)!r}, and no optimal set of measured nodes is "
            "computed (with hidden variables one need not exist); the measured set "
            f"{_labels(g, canonical)!r} is valid (backdoor_adjustment_set(..., latent=...) "
            "returns a valid measured set; test others with is_adjustment_set)")
    return _labels(g, canonical)


def _o_set(g, xs, ys):
    """``(O, forbidden)`` on the ids of the adjustment-amenable ``g``: ``O(X, Y) =
    pa(cn) \\ forb`` (:func:`optimal_adjustment_set`; directed parents), or None when some
    ``y`` is not a causal node (no proper possibly causal path from ``X`` reaches it: ``X``
    does not cause it), and ``forb(X, Y)``."""
    cn = causal_nodes(g.parents, g.children, g.neighbours, xs, ys)
    forbidden = forbidden_nodes(g.parents, g.children, g.neighbours, xs, ys, cn)
    if not set(ys) <= cn:
        return None, forbidden
    return set().union(*(g.parents[i] for i in cn)) - forbidden, forbidden


# ---------------------------------------------------------------------------------------------
# Markov equivalence class
# ---------------------------------------------------------------------------------------------
class _TooMany(Exception):
    pass


def _extension_ids(g, max_dags):
    """Every consistent DAG extension of ``g`` as a sorted list of id pairs.

    Orient the first undirected edge both ways, close under Meek's rules, recurse; a leaf is
    kept when it is acyclic and has no v-structure that is not already directed in ``g``.
    """
    pdag = g.pdag()
    nodes = pdag.nodes
    allowed = set(pdag.directed)
    out = []

    def recurse(current):
        if not current.undirected:
            if not is_acyclic(nodes, current.directed):
                return
            for a, c, b in v_structures(nodes, current.directed):
                if (a, c) not in allowed or (b, c) not in allowed:
                    return
            out.append(sorted(current.directed))
            if len(out) > max_dags:
                raise _TooMany
            return
        (u, v), rest = current.undirected[0], current.undirected[1:]
        for a, b in ((u, v), (v, u)):
            try:
                child = meek_orient(PDAG(nodes, current.directed + ((a, b),), rest))
            except ValueError:  # the orientation closes a directed cycle
                continue
            recurse(child)

    recurse(pdag)
    return out


def equivalent_dags(cpdag, *, max_dags=1000) -> list:
    """Every DAG represented by a CPDAG (every consistent extension of a PDAG).

    Parameters
    ----------
    cpdag : PDAG or fitted learner
        The graph; its directed edges are kept and its undirected edges oriented every way
        that creates neither a directed cycle nor a new v-structure.
    max_dags : int, default=1000
        Refuse classes larger than this.

    Returns
    -------
    list of lists of (parent, child)
        One edge list per DAG, edges sorted by node positions, DAGs in a fixed order.

    Raises
    ------
    ValueError
        If the class has more than ``max_dags`` DAGs, or the PDAG has none.

    Examples
    --------
    >>> from skbn.graph import PDAG
    >>> len(equivalent_dags(PDAG("abc", undirected=[("a", "b"), ("b", "c")])))
    3
    """
    if int(max_dags) != max_dags or max_dags < 1:
        raise ValueError(f"max_dags must be a positive integer, got {max_dags!r}")
    g = _compile(cpdag, name="cpdag")
    try:
        dags = _extension_ids(g, int(max_dags))
    except _TooMany:
        raise ValueError(
            f"the equivalence class has more than max_dags={max_dags} DAGs; raise max_dags"
            ) from None
    if not dags:
        raise ValueError("the PDAG has no consistent extension (no DAG without a new "
                         "v-structure)")
    return [[(g.nodes[u], g.nodes[v]) for u, v in dag] for dag in dags]


# ---------------------------------------------------------------------------------------------
# IDA
# ---------------------------------------------------------------------------------------------
def _parent_sets(g, x, method, max_dags):
    """``[(parent ids tuple, number of DAGs or None)]`` of node id ``x``."""
    if method == "local":
        sets = local_parent_sets(g.parents, g.neighbours, g.adjacent, x)
        if not _is_completed(g):
            # background knowledge: a locally valid set is a parent set of x iff orienting
            # x's undirected edges by it leaves a consistent extension (Dor & Tarsi) with the
            # class's v-structures
            class_v_structures = v_structure_ids(parents_children(g.n, g.extension)[0],
                                                 g.adjacent)
            sets = [s for s in sets if _jointly_valid(g, {x: set(s)}, class_v_structures)]
        return [(s, None) for s in sets]
    return [(key[0], n) for key, n in _parents_over_class(g, [x], max_dags, "effects")]


def _optimal_sets(g, x, y, sets):
    """The adjustment set of ``ida(method="optimal")`` for each parent set of ``x`` (ids;
    ``sets`` as :func:`_parent_sets`): a sorted id tuple, or None when ``x`` does not cause
    ``y`` in that orientation (the effect is 0).

    The parent set fixes the orientation of every undirected edge at ``x`` (``w -> x`` for
    ``w`` in it, ``x -> w`` otherwise); with that background knowledge, closed under Meek's
    rules, ``g`` becomes a maximally oriented PDAG ``G'`` whose DAGs are those of ``g`` with
    these parents of ``x``. ``G'`` is adjustment amenable for ``(x, y)`` (no undirected edge
    is left at ``x``), so the optimal adjustment set ``O(x, y)`` of ``G'``
    (:func:`optimal_adjustment_set`) is valid when ``y`` is a causal node; otherwise (``y``
    a parent of ``x``, or no possibly causal path from ``x`` to ``y`` in ``G'``) ``x`` does
    not cause ``y`` in any of these DAGs.
    """
    out = []
    for parent_ids, _ in sets:
        if y in parent_ids:
            out.append(None)
            continue
        directed, undirected = _oriented(g, {x: set(parent_ids)})
        h = _compile(meek_orient(PDAG(tuple(range(g.n)), directed, undirected)))
        o_set = _o_set(h, {x}, {y})[0]
        out.append(None if o_set is None else tuple(sorted(o_set)))
    return out


def _parents_over_class(g, xs, max_dags, what):
    """Global IDA: the parent ids of the ``xs`` in every DAG of the class, counted.

    Returns ``[(tuple of parent-id tuples aligned with xs, number of DAGs)]``, sorted by the
    sizes of the parent sets, then the ids. ``what`` names the distinct results local IDA
    gives too (for the error beyond ``max_dags``).
    """
    try:
        dags = _extension_ids(g, max_dags)
    except _TooMany:
        raise ValueError(
            f"the equivalence class has more than max_dags={max_dags} DAGs: use "
            f"method='local' (same distinct {what}) or raise max_dags") from None
    counts = {}
    for dag in dags:
        key = tuple(tuple(sorted(u for u, v in dag if v == x)) for x in xs)
        counts[key] = counts.get(key, 0) + 1
    return sorted(counts.items(), key=lambda kv: (tuple(map(len, kv[0])), kv[0]))


def _column_kinds(X, graphs, sample_weight, column_types, fitted, known=None):
    """``{node: continuous?}`` for the nodes on an undirected edge of any of the compiled
    ``graphs`` (the edges the conditional-Gaussian rule orients, :func:`_clg_class`) that
    are columns of ``X``, and the ``known`` ones (kinds already read: the columns an effect
    may use, not read again), read with skbn's column-type rule as the effects read them
    (``fitted``: the graph or learner the caller was given, whose ``column_types_``
    ``"auto"`` means); missing cells are allowed here (only the columns an effect uses must
    be complete). Empty when ``column_types`` gives every column one type."""
    columns = list(dict.fromkeys(g.nodes[i] for g in graphs for i in range(g.n) if g.neighbours[i]))
    return _read_kinds(X, columns, sample_weight, column_types, fitted, known)


def _read_kinds(X, columns, sample_weight, column_types, fitted, known=None):
    """``{node: continuous?}`` for the ``columns`` (labels) that are columns of ``X`` and not
    in ``known``, plus ``known``, read as :func:`_column_kinds` reads them; empty when
    ``column_types`` gives every column one type."""
    if isinstance(column_types, str) and column_types in ("discrete", "continuous"):
        return {}  # (one type: nothing to read)
    known = dict(known or {})
    if hasattr(X, "columns"):
        columns = [c for c in columns if c in X.columns and c not in known]
    else:  # (an array: its column positions)
        p = np.shape(X)[1] if np.ndim(X) == 2 else 0
        columns = [c for c in columns if isinstance(c, (int, np.integer))
                   and not isinstance(c, (bool, np.bool_)) and 0 <= c < p and c not in known]
    if columns:
        declared = _fitted_column_types(fitted, column_types, columns)
        frame = X
        if isinstance(X, np.ndarray) and X.ndim == 2:
            # only these columns, as encode_columns reads an array's (objects, then their
            # types inferred): converting the whole array would cost as much as the effect
            frame = pd.DataFrame({c: X[:, c].astype(object) for c in columns}).infer_objects()
            declared = _declared_for(declared, list(range(X.shape[1])), columns, "column_types")
        data, _, _ = encode_columns(frame, columns, sample_weight, what="graph nodes",
                                    allow_continuous=True, allow_missing=True, column_types=declared)
        known.update(zip(columns, map(bool, data.continuous)))
    return known


def _encode_effect_columns(X, columns, sample_weight, column_types, fitted):
    """``(data, states, weights)`` of ``columns`` as the effects encode the columns they use:
    complete rows, continuous columns allowed, the types of ``fitted`` (a learner or graph
    with ``column_types_``) or of ``column_types``."""
    return encode_columns(X, columns, sample_weight, what="graph nodes", allow_continuous=True,
                          column_types=_fitted_column_types(fitted, column_types, columns))


def _encode_with_kinds(X, graphs, columns, sample_weight, column_types, fitted):
    """``(encoded, kinds)``: ``encoded`` = ``(data, states, weights)`` of the ``columns``,
    encoded as the effects encode the columns they use (complete, continuous allowed), and
    ``kinds`` = :func:`_column_kinds` of the compiled ``graphs``, reading again none of
    ``columns`` (the effects encode the columns a question may use first, so that data
    of one type cost one encoding)."""
    encoded = _encode_effect_columns(X, columns, sample_weight, column_types, fitted)
    known = dict(zip(columns, map(bool, encoded[0].continuous)))
    return encoded, _column_kinds(X, graphs, sample_weight, column_types, fitted, known)


def _clg_class(g, kinds, caller):
    """The DAGs of the compiled ``g`` that are conditional linear Gaussian networks, as a
    compiled PDAG (``g`` itself when the rule orients nothing).

    A discrete node never has a continuous parent (:func:`skbn.knowledge.conditional_gaussian_rule`,
    the rule every learner applies on mixed data), so on mixed columns (``kinds``:
    :func:`_column_kinds`) each undirected edge between a discrete node ``d`` and a
    continuous node ``c`` is known to be ``d -> c``. With that background knowledge the
    class is the maximally oriented PDAG of Meek (1995)
    (:func:`skbn.knowledge.restricted_class`): its DAGs are exactly the DAGs of ``g`` that
    respect the rule (Perković, Kalisch & Maathuis 2017), and IDA's parent sets are read on
    it as on any PDAG with background knowledge. Refused, naming the edges: a graph none of
    whose DAGs respects the rule (undirected edges the rule cannot orient all at once, or a
    directed edge ``c -> d``, which every DAG of the class has, between columns of known
    kinds: those on undirected edges and those the effect uses)."""
    if len(set(kinds.values())) < 2:  # (one type, or none read)
        return g
    continuous = np.array([kinds.get(v, False) for v in g.nodes])
    rule = conditional_gaussian_rule(continuous)
    typed = np.array([v in kinds for v in g.nodes])
    rule &= typed[:, None] & typed[None, :]
    broken = [(u, v) for u in range(g.n) for v in sorted(g.children[u]) if rule[u, v]]
    if broken:
        edges = ", ".join(f"{g.nodes[u]!r} -> {g.nodes[v]!r}" for u, v in broken)
        raise ValueError(
            f"{caller}: the graph has the edge(s) {edges} (directed: in every DAG of its class) "
            f"from a continuous column into a discrete one, which no conditional linear "
            f"Gaussian network has (a discrete node never has a continuous parent), so no "
            f"effect is defined on it. Give a graph that respects the rule (every learner's "
            f"does on these columns), or declare the columns' types in column_types")
    undirected = np.zeros((g.n, g.n), dtype=bool)
    for u in range(g.n):
        undirected[u, sorted(g.neighbours[u])] = True
    forbidden = rule & undirected
    if not forbidden.any():
        return g
    pdag = g.pdag()
    labelled = PDAG(g.nodes, [(g.nodes[u], g.nodes[v]) for u, v in pdag.directed],
                    [(g.nodes[u], g.nodes[v]) for u, v in pdag.undirected])
    try:
        restricted = restricted_class(labelled, np.zeros_like(forbidden), forbidden)
    except ValueError as exc:
        edges = ", ".join(f"{g.nodes[v]!r} -> {g.nodes[u]!r}" for u, v in np.argwhere(forbidden))
        raise ValueError(
            f"{caller}: no DAG of the graph's equivalence class is a conditional linear "
            f"Gaussian network on these columns: a discrete node never has a continuous "
            f"parent, so the rule orients the undirected edges {edges}, and no DAG of the "
            f"class has them all ({exc}). Give a graph that respects the rule (every "
            f"learner's does on these columns), or declare the columns' types in "
            f"column_types") from None
    return _compile(restricted)


def _refuse_discrete_mediators(X, g, xs, y, kinds, sample_weight, column_types, fitted, caller):
    r"""Refuse, naming the edges, a discrete node on a (possibly) causal path from the
    continuous treatments ``xs`` (ids) to the continuous ``y`` (id) of the compiled ``g``
    (already restricted by :func:`_clg_class`): the causal nodes
    (:func:`~skbn._dag.causal_nodes`) other than ``y``, whose kinds are read here
    (``kinds``: those known; :func:`_read_kinds`).

    The Gaussian forms estimate the slope of :math:`E[y \mid do(x = v)]` in ``v``, which is
    constant in a conditional linear Gaussian network because no discrete node descends
    from a continuous one there. A graph with an edge from a continuous node into a discrete
    one has no CLG density, but what the estimate needs holds as long as no discrete node
    lies on a causal path from ``x`` to ``y``: ``x``'s own family is CLG (its parents are
    its parents, whatever theirs are), every discrete node is then a non-descendant of
    ``x`` or no ancestor of ``y``, so :math:`E[y \mid do(x = v)] = E[\alpha(D)] +
    E[\tau(D)] v` as in :func:`_stratified_effect` (a discrete parent of ``x`` with a
    continuous parent of its own changes nothing). Such an edge elsewhere is accepted.
    Through a discrete mediator ``d``, :math:`E[y \mid do(x = v)]` depends on ``v`` through
    :math:`P(d \mid do(x = v))`, not linear in ``v`` (a threshold of ``x``, a logistic
    link): no change per unit of ``x`` exists, and a regression coefficient would only be
    its best linear summary. On a CPDAG or PDAG the paths are the possibly causal ones: the
    mediator lies on a causal path in some DAG of the class. Returns ``kinds`` with those
    read here (for the next graph of the same call)."""
    if not (kinds.get(g.nodes[y]) and all(kinds.get(g.nodes[x]) for x in xs)):
        return kinds  # (a discrete end, or one type for every column: nothing to refuse)
    cn = causal_nodes(g.parents, g.children, g.neighbours, xs, [y]) - {y}
    names = _read_kinds(X, [g.nodes[i] for i in sorted(cn)], sample_weight, column_types,
                        fitted, kinds)
    discrete = [i for i in sorted(cn) if names.get(g.nodes[i]) is False]
    if not discrete:
        return names
    continuous = set(xs) | {i for i in cn if names.get(g.nodes[i])}
    edges = ", ".join(f"{g.nodes[u]!r} -> {g.nodes[v]!r}" for v in discrete
                      for u in sorted((g.parents[v] | g.neighbours[v]) & continuous))
    treatments = repr(g.nodes[xs[0]]) if len(xs) == 1 else repr([g.nodes[x] for x in xs])
    raise ValueError(
        f"{caller}: the discrete column(s) {[g.nodes[i] for i in discrete]!r} lie on a "
        f"(possibly) causal path from {treatments} to {g.nodes[y]!r}, entered by the edge(s) "
        f"{edges} from a continuous node into a discrete one, which no conditional linear "
        f"Gaussian network has: through a discrete mediator E[{g.nodes[y]} | do(x = v)] is "
        f"not linear in v, so the effect of one unit of x (a regression coefficient) is not "
        f"defined. Such an edge off the paths from x to y is accepted. Declare the columns' "
        f"types in column_types if they are measurements, or give a graph that respects "
        f"the rule")


def _dirichlet(rng, alpha):
    """One Dirichlet draw per row of ``alpha`` (last axis), by normalised gamma variates.

    With tiny shapes (the BDeu pseudocounts of an unobserved configuration of many
    parents) every gamma variate of a row can underflow to 0; such rows are drawn again in
    log space, by ``G = G' U^(1/a)`` with ``G' ~ Gamma(a + 1)`` and ``U ~ U(0, 1]``
    (Marsaglia & Tsang 2000), which has the ``Gamma(a)`` distribution.
    """
    g = rng.standard_gamma(alpha)
    total = g.sum(axis=-1, keepdims=True)
    empty = total[..., 0] == 0
    if empty.any():
        a = np.broadcast_to(alpha, g.shape)[empty]
        log_g = np.log(rng.standard_gamma(a + 1)) + np.log(1.0 - rng.random(a.shape)) / a
        g[empty] = np.exp(log_g - log_g.max(axis=-1, keepdims=True))
        total = g.sum(axis=-1, keepdims=True)
    return g / total


def _configurations(codes, cardinalities, z):
    """``(ids, n_ids, configurations)``: every row's id among the observed configurations
    of the discrete columns ``z`` (numbered ``0 .. n_ids - 1`` in the order of their
    declared ids; one id, 0, when ``z`` is empty) and each configuration's codes of ``z``."""
    ids, n_ids = compress_ids(*config_ids(codes, cardinalities, z))
    first = np.empty(n_ids, dtype=np.int64)  # a row of each configuration, to read its codes
    first[ids[::-1]] = np.arange(len(ids) - 1, -1, -1)
    return ids, n_ids, [tuple(int(codes[first[s], c]) for c in z) for s in range(n_ids)]


def _positivity_gaps(codes, cardinalities, weights, x, z):
    """Where positivity fails when adjusting for the columns ``z``: the states of ``x`` never
    observed in an observed configuration of ``z`` (``P(x | z = s) = 0`` with ``P(z = s) > 0``).

    There ``P(y | x, z = s)`` has no row to be estimated from: the effect of that state of
    ``x`` is not identified from the data, and the adjustment formula takes the prior's
    ``P(y | x, s)`` for the share ``P(z = s)`` of the rows. Returns ``(x code, codes of z,
    share of the rows)`` per such pair, largest share first.
    """
    ids, n_ids, configurations = _configurations(codes, cardinalities, z)
    table = table_from_ids(ids, n_ids, codes[:, x], int(cardinalities[x]), weights)
    strata = table.sum(axis=1)
    gaps = [(int(k), configurations[s], float(strata[s] / strata.sum()))
            for s, k in zip(*np.nonzero((table == 0) & (strata[:, None] > 0)))]
    return sorted(gaps, key=lambda gap: (-gap[2], gap[0], gap[1]))


def _adjusted(codes, cardinalities, weights, x, y, z, ess, rng=None):
    """``P(Y | do(X = .))``, shape (r_x, r_y), by adjusting for the columns ``z``, and the
    positivity gaps (:func:`_positivity_gaps`; none when ``y`` is in ``z``).

    ``sum_s P(z = s) P(y | x, z = s)`` over the observed configurations ``s`` of ``z``, with
    ``P(z = s) = N_s / N`` and ``P(y | x, s) = (N_sxy + a) / (N_sx + r_y a)``, where
    ``a = ess / (q_z r_x r_y)`` is the BDeu pseudocount of the family ``y | {x} u z``
    (``q_z`` = declared number of configurations of ``z``). With ``y`` in ``z`` (``y`` is a
    parent of ``x``) the effect is ``P(Y)``, the same for every ``x``.

    With a generator ``rng`` (and ``ess > 0``), the parameters are one draw from their
    posterior instead of its mean: ``P(y | x, s) ~ Dirichlet(N_sx. + a)`` and
    ``P(z) ~ Dirichlet(N_s + ess / q_z)`` over the observed configurations.

    A state of ``x`` never seen in a configuration ``s`` (``N_sx = 0``, a gap) gets the
    prior's ``P(y | x, s)``: 1 / r_y per state as a mean, a ``Dirichlet(a)`` draw with ``rng``
    (nearly all its mass on one state when ``a`` is small); with ``ess = 0`` it is
    0 / 0 = NaN, and so is ``P(y | do(x))`` for that state of ``x``.
    """
    r_x, r_y = int(cardinalities[x]), int(cardinalities[y])
    if y in z:
        table = contingency_tables(codes, cardinalities, x, y, (), weights)[0]
        counts = table.sum(axis=0).astype(np.float64)
        a = ess / r_y
        if rng is not None:
            return np.tile(_dirichlet(rng, counts + a), (r_x, 1)), []
        return np.tile((counts + a) / (counts.sum() + ess), (r_x, 1)), []
    tables = contingency_tables(codes, cardinalities, x, y, z, weights).astype(np.float64)
    rows = tables.sum(axis=2, keepdims=True)
    gaps = _positivity_gaps(codes, cardinalities, weights, x, z) if (rows == 0).any() else []
    q_z = float(np.prod([int(cardinalities[c]) for c in z])) if z else 1.0
    a = ess / (q_z * r_x * r_y)
    strata = tables.sum(axis=(1, 2))
    if rng is not None:
        p_z = _dirichlet(rng, strata + ess / q_z)
        return np.einsum("s,sab->ab", p_z, _dirichlet(rng, tables + a)), gaps
    p_z = strata / strata.sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        conditional = (tables + a) / (rows + r_y * a)
    return np.einsum("s,sab->ab", p_z, conditional), gaps


def _warn_positivity(caller, what, y, found, ess, over=None, sets="parent"):
    """Warn once per call (:class:`~skbn.exceptions.PositivityWarning`) that effects rest on
    the prior where positivity fails (:func:`_positivity_gaps`); with ``ess = 0`` those
    effects are NaN and have their own warning, so nothing is said then.

    ``what`` names the treatment (``"'lung'"``, ``"('x1', 'x2')"``); ``found`` holds
    ``(parents, gaps)`` per parent set with gaps among the queried states, ``gaps`` labelled
    by :func:`_labelled_gaps`; ``over = (k, n, weight)``: the gaps are in ``k`` of ``n``
    DAGs, of that total weight. The warning's ``share`` is the largest share of the rows on
    which one queried state's ``P(y | x, parents)`` is the prior's, over the parent sets.
    ``sets="adjustment"``: the sets are the optimal adjustment sets of
    ``ida(method="optimal")``, and the message says so.
    """
    if not found or not ess > 0:
        return
    if sets == "parent":
        named, its, given, fixer = "parents", "its parents", "parents", "A parent"
    else:
        named, its, given, fixer = ("adjustment set", "the adjustment set", "adjustment set",
                                    "A covariate")
    shown = []
    for parents, gaps in found[:3]:
        where = "; ".join(
            (f"{state} with {', '.join(f'{c}={v!r}' for c, v in config.items())} "
             f"({share:.1%} of the rows)" if config else f"{state} in no row")
            for state, config, share in gaps[:3])
        more = f"; and {len(gaps) - 3} more" if len(gaps) > 3 else ""
        shown.append(f"{named} {parents!r}: {where}{more}")
    more = f" | and {len(found) - 3} more {sets} sets" if len(found) > 3 else ""
    share = max(sum(share for label, _, share in gaps if label == state)
                for _, gaps in found for state, _, _ in gaps)
    scope = "" if over is None else f" in {over[0]:,} of the {over[1]:,} DAGs (weight {over[2]:.3g})"
    warn_user(PositivityWarning(
        f"{caller}: positivity fails{scope}: a state of {what} is never observed with some "
        f"configuration of {its} that the rows have ({' | '.join(shown)}{more}). "
        f"P({y} | treatment, {given}) there is the prior's (ess={ess:g}), not the data's, so "
        f"for up to {share:.1%} of the rows the effect rests on the prior and is not "
        f"identified from the data (with ess=0 it is NaN). {fixer} that fixes the "
        f"treatment's state (e.g. an effect of it taken for a cause) cannot be adjusted for: "
        f"check the graph.", share=share), PositivityWarning)


def _labelled_gaps(gaps, x_labels, parents, states):
    """The gaps (:func:`_positivity_gaps`) of the queried states of ``x`` with labels:
    ``(x label, {parent: state}, share)``; ``x_labels`` maps a queried code to its label
    (``"lung='yes'"``), ``parents`` are the labels of ``z`` and ``states`` their states."""
    return [(x_labels[k], {p: s[c] for p, s, c in zip(parents, states, config)}, share)
            for k, config, share in gaps if k in x_labels]


def _state_code(states, label, what):
    for k, s in enumerate(states):
        if s == label and str(s) == str(label):  # 1 is not the state "1" nor True
            return k
    raise ValueError(f"{what} {label!r} is not a state of the column; its states are {states!r}")


def _fitted_column_types(graph, column_types, columns):
    """``column_types`` as given; ``"auto"`` with a fitted learner as the graph means the
    types that learner used (its ``column_types_``, restricted to ``columns``), so that the
    effect is read on the model the graph was learned with: whole numbers the learner took
    as measurements are not re-read as categories (or refused as undeclared)."""
    fitted = getattr(graph, "column_types_", None)
    if isinstance(column_types, str) and column_types == "auto" and isinstance(fitted, dict):
        return {c: fitted[c] for c in columns if c in fitted}
    return column_types


def _check_query(x_value, contrast, ess, choices=("x_value (a state of x)",
                                                   "(a (treated, control) pair of states of x)")):
    """Refuse a bad ``ess`` and anything but one of ``x_value`` / ``contrast`` (``choices``:
    how the two are named in the message)."""
    if not np.isscalar(ess) or not ess >= 0 or not np.isfinite(ess):
        raise ValueError(f"ess must be a finite number >= 0, got {ess!r}")
    if (x_value is None) == (contrast is None):
        raise ValueError(f"give exactly one of {choices[0]} or contrast {choices[1]}")
    if contrast is not None:
        try:
            _, _ = contrast
        except (TypeError, ValueError):
            raise ValueError(f"contrast must be a (treated, control) pair, got {contrast!r}") from None


def _query_codes(x, y, x_states, y_states, x_value, contrast, y_value):
    """State codes: ``[x_value]`` or ``[treated, control]``, and the outcome code (contrast)."""
    if contrast is None:
        return [_state_code(x_states, x_value, f"x_value of x={x!r}")], None
    treated, control = contrast
    values = [_state_code(x_states, treated, f"contrast state of x={x!r}"),
              _state_code(x_states, control, f"contrast state of x={x!r}")]
    if y_value is None:
        if len(y_states) != 2:
            raise ValueError(f"y={y!r} has {len(y_states)} states {y_states!r}: give y_value, "
                             f"the outcome state of the contrast")
        return values, 1
    return values, _state_code(y_states, y_value, f"y_value of y={y!r}")


def ida(X, cpdag, x, y, *, x_value=None, contrast=None, y_value=None, method="local",
        ess=1.0, sample_weight=None, max_dags=1000, column_types="auto") -> pd.DataFrame:
    """IDA: the possible effects of setting ``x`` on ``y`` (discrete or Gaussian data).

    A CPDAG leaves the parents of ``x`` undetermined; in each DAG of the class, the parents
    ``pa(x)`` are a valid adjustment set (or contain ``y``, and then ``x`` does not cause
    ``y``), so

    .. math::

        P(y \\mid \\mathrm{do}(x)) = \\sum_{z} P(y \\mid x, \\mathrm{pa}(x) = z)\\,
        P(\\mathrm{pa}(x) = z)
        \\quad (\\,= P(y) \\text{ if } y \\in \\mathrm{pa}(x)).

    IDA (Maathuis, Kalisch & Bühlmann 2009) estimates this for every parent set ``x`` can
    have, giving a multiset of effects that contains the true one when the CPDAG is right.

    * ``method="local"``: the parent sets are ``pa(x) u S`` for the subsets ``S`` of the
      undirected neighbours of ``x`` whose orientation into ``x`` creates no new v-structure
      at ``x`` (every two nodes of ``S`` adjacent, and adjacent to every parent of ``x``);
      each distinct set once. On a PDAG with background knowledge (edges oriented beyond
      its CPDAG, e.g. by :func:`skbn.graph.meek_orient`; pcalg's ``type = "pdag"``) a set
      is kept only if orienting the undirected edges at ``x`` by it leaves a consistent
      extension with the class's v-structures (Dor & Tarsi 1992), i.e. some DAG the PDAG
      represents has these parents. When ``y`` is a parent of ``x`` in every DAG (a
      directed edge ``y -> x``) every set gives "no effect", and one row is returned, the
      definite parents of ``x`` (as pcalg's local IDA returns the one effect 0).
    * ``method="global"``: the parents of ``x`` in every DAG of the class (enumerated; at
      most ``max_dags`` DAGs); each distinct set once, with the number of DAGs having it.
    * ``method="optimal"`` (Witte, Henckel, Maathuis & Didelez 2020; pcalg's
      ``method = "optimal"``): the rows of ``"local"``, each estimated by adjusting for the
      **optimal adjustment set** of its orientation instead of the parent set. The parent
      set orients every undirected edge at ``x``; with that background knowledge, closed
      under Meek's rules, the graph is a maximally oriented PDAG ``G'`` (its DAGs: those
      of the class with these parents of ``x``), which is adjustment amenable for
      ``(x, y)`` (no undirected edge is left at ``x``). Its set
      ``O(x, y) = pa(cn(x, y)) \\ forb(x, y)`` (:func:`optimal_adjustment_set`) is valid in
      every DAG of ``G'``, and in linear models its estimate has the smallest asymptotic
      variance of all valid sets there, the parent set included (Henckel, Perković &
      Maathuis 2022): it holds the parents of ``y`` and of the mediators, which explain
      variance of ``y``. Some valid set always exists there (the parent set), so ``O`` is
      one (pcalg's NA for "no valid set" does not arise for one ``x``). When ``y`` is not
      a possible descendant of ``x`` in ``G'`` (or is a parent of ``x``), ``x`` does not
      cause ``y`` in these DAGs and the effect is exactly 0, with no adjustment (as in
      pcalg; ``"local"`` estimates it by a regression coefficient near 0).

    Local and global give the same distinct parent sets (Maathuis et al. 2009, Lemma 3.1;
    local gives the one row above when ``y`` is a definite parent of ``x``), hence the same
    distinct effects; global also gives their multiplicities. Optimal gives local's rows
    (including its one row when ``y`` is a definite parent of ``x``, where pcalg repeats
    the 0 once per orientation); as with local, the row of the true parent set estimates
    the true effect when the CPDAG is right. Probabilities are estimated from the rows
    with the BDeu posterior mean of ``P(y | x, z)`` (pseudocount ``ess / (q_z r_x r_y)`` per
    cell) and the empirical ``P(z)``; ``ess=0`` is the maximum
    likelihood plug-in estimate (NaN, with a warning, when a state of ``x`` is never seen in
    an observed configuration of ``z``: positivity fails); with ``ess > 0`` the effect is
    then the prior's there, and a :class:`~skbn.exceptions.PositivityWarning` says so.

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_samples, n_features)
        Observational data; the columns named by the graph's nodes that are used (``x``,
        ``y`` and the candidate parents) are encoded, each column's states as in a learner's
        ``categories_``.
    cpdag : PDAG, fitted learner, or iterable of (parent, child) pairs
        The CPDAG, or any PDAG with a consistent extension (e.g. a CPDAG with background
        knowledge). Nodes are column names of ``X`` (column positions for an array).
    x, y : hashable
        Treatment and outcome nodes (distinct).
    x_value : state of ``x``, optional
        Set ``x`` to this state: one column ``P(y=s | do(x=x_value))`` per state ``s`` of
        ``y``.
    contrast : (treated, control) pair of states of ``x``, optional
        Instead of ``x_value``: the average causal effect
        ``P(y=y_value | do(x=treated)) - P(y=y_value | do(x=control))``.
    y_value : state of ``y``, optional
        The outcome state of a ``contrast``; may be omitted when ``y`` has two states (the
        second state is then used).
    method : {"local", "global", "optimal"}, default="local"
        How the parent sets are found (``"local"``, ``"global"``) and what each row adjusts
        for (the parent set; ``"optimal"``: the O-set of its orientation), above. On
        discrete data ``"optimal"`` uses the same adjustment formula over the O-set (with
        the same smoothing and positivity warnings; the O-set is also the most efficient
        valid set for such nonparametric estimates, Rotnitzky & Smucler 2020), on mixed
        data the same stratified regression over its discrete members.
    ess : float >= 0, default=1.0
        Equivalent sample size of the Dirichlet (BDeu) smoothing of ``P(y | x, z)``.
    sample_weight : array-like of shape (n_samples,), optional
        Row weights (every count is a sum of weights).
    max_dags : int, default=1000
        Largest equivalence class ``method="global"`` enumerates.
    column_types : "auto", "discrete", "continuous", list or dict, default="auto"
        Column types of the used columns (skbn's column-type rule: non-integer numbers are
        continuous; ``"auto"`` with a fitted learner as the graph: the types it was fitted
        with, its ``column_types_``). When ``x`` and ``y`` are continuous the **Gaussian
        form** applies (below), its candidate parents continuous or discrete; a discrete
        ``x`` or ``y`` with continuous columns among the used ones is refused. **Mixed
        data** (discrete and continuous graph nodes): the class is read among its DAGs that
        are conditional linear Gaussian networks (a discrete node never has a continuous
        parent, the learners' rule): every undirected edge between a discrete and a
        continuous node is taken as discrete -> continuous and the graph closed under
        Meek's rules with that knowledge (its maximally oriented PDAG, whose DAGs are
        exactly those of the class that respect the rule), so a discrete ``x`` never gets a
        continuous parent; a class with no such DAG is refused.

    Returns
    -------
    effects : pandas.DataFrame
        One row per distinct parent set. Columns: ``parents`` (tuple of node names in node
        order), ``n_dags`` (global only), ``y_is_parent`` (True when ``y`` is in the
        parent set: ``x`` does not cause ``y`` and the effect is ``P(y)``), then with ``x_value`` one column
        ``P(y=s | do(x=v))`` per state ``s``; with ``contrast`` the two probabilities and
        ``effect``. Gaussian form: ``parents``, ``n_dags`` (global), ``y_is_parent`` and
        ``effect``, the coefficient (averaged over the strata of discrete parents). With
        ``method="optimal"`` a column ``adjustment_set`` follows ``parents``: the O-set the
        row adjusts for (tuple of node names in node order), or None when ``x`` does not
        cause ``y`` in that orientation (effect 0; discrete data: ``P(y)``).

    Raises
    ------
    ValueError
        Unknown node, column or state; ``x == y``; a PDAG with no consistent extension;
        too large a class with ``method="global"``;
        neither or both of ``x_value`` and ``contrast``; on mixed data, a class none of
        whose DAGs is a CLG network (or a graph giving a discrete ``x`` a continuous parent),
        or, for continuous ``x`` and ``y``, a discrete column on a (possibly) causal path
        from ``x`` to ``y`` (the effect is then not linear in ``x``; named with the edge
        from a continuous node that enters it).

    Warns
    -----
    PositivityWarning
        Discrete data, ``ess > 0``: the queried state of ``x`` is never observed with a
        configuration of some parent set that the rows have, so the effect with that set
        rests on the prior there (:class:`~skbn.exceptions.PositivityWarning`, once per
        call, naming the states, configurations and their share of the rows).
    RuntimeWarning
        The same with ``ess=0``: those effects are NaN. Gaussian form: ``x`` is a linear
        function of a parent set (in some stratum of its discrete parents): that effect is
        NaN, the warning names the set (and the stratum, with its share of the rows). A
        stratum whose regression has no residual degrees of freedom (exactly ``|C| + 2``
        rows, the sum of their weights with ``sample_weight``): its coefficient is kept;
        one warning per call names every such stratum with its rows and share.

    Notes
    -----
    **Gaussian form** (pcalg ``ida(x, y, cov(X), graph, method)``). In a linear-Gaussian
    model the total effect :math:`\\partial E[y \\mid \\mathrm{do}(x)] / \\partial x` given
    parent set :math:`Z` is the coefficient of ``x`` in the least-squares regression of
    ``y`` on ``x`` and :math:`Z` (0 when ``y`` is in :math:`Z`), computed from the weighted
    moments; ``x_value``, ``contrast``, ``y_value`` and ``ess`` do not apply and must be
    left at their defaults. pcalg's global method returns one coefficient per DAG: repeat
    each row ``n_dags`` times to get its multiset.

    **Discrete parents of a continuous x** (conditional linear Gaussian data, Lauritzen &
    Wermuth 1989). With :math:`Z = S \\cup C`, ``S`` discrete and ``C`` continuous,
    ``y`` is regressed on ``x`` and ``C`` within each observed configuration ``s`` of
    ``S`` (its own intercept and slopes) and the coefficients are averaged with the
    strata's shares of the rows (of the weight): :math:`\\hat\\beta = \\sum_s \\hat P(s)
    \\hat\\beta_s`. In a CLG network :math:`E[y \\mid \\mathrm{do}(x = v)]` is linear in
    ``v`` (no discrete node descends from a continuous one), of slope
    :math:`E[\\tau(D)]`, the path effect of the linear model given the configuration ``D``
    of all discrete variables averaged over them; :math:`\\hat\\beta` tends to it when ``Z``
    is the DAG's parent set of ``x`` (IDA's sets), even where :math:`E[y \\mid x, s, C]`
    is not linear in ``C`` (a discrete variable outside ``S`` changing coefficients):
    docs/causal.md, "Continuous effects with discrete parents", gives the argument. A
    stratum in which ``x`` is a linear function of ``C`` (it does not vary there, or the
    stratum has at most ``|C| + 1`` rows) leaves the effect undefined: NaN, with a warning.
    A stratum with ``|C| + 2`` rows (no residual degrees of freedom) has a coefficient, the
    exact fit through its rows, kept in the average as R's ``lm`` keeps it (with NaN
    standard errors), with a warning: it is unbiased but rests on that many rows' noise.

    References
    ----------
    .. [1] M. H. Maathuis, M. Kalisch and P. Bühlmann, "Estimating high-dimensional
       intervention effects from observational data", Annals of Statistics 37(6A), 2009.
    .. [2] J. Witte, L. Henckel, M. H. Maathuis and V. Didelez, "On efficient adjustment in
       causal graphs", JMLR 21(246), 2020.
    .. [3] A. Rotnitzky and E. Smucler, "Efficient adjustment sets for population average
       causal treatment effect estimation in graphical models", JMLR 21(188), 2020.

    Examples
    --------
    >>> from skbn.datasets import load_network
    >>> from skbn.graph import dag_to_cpdag
    >>> net = load_network("asia")
    >>> rows = net.sample(2000, random_state=0)
    >>> cpdag = dag_to_cpdag(net.nodes, net.edges)
    >>> ida(rows, cpdag, "smoke", "lung", contrast=("yes", "no"), y_value="yes").shape
    (3, 5)
    """
    if method not in ("local", "global", "optimal"):
        raise ValueError(f"method must be 'local', 'global' or 'optimal', got {method!r}")
    if int(max_dags) != max_dags or max_dags < 1:
        raise ValueError(f"max_dags must be a positive integer, got {max_dags!r}")
    g = _compile(cpdag, name="cpdag")
    if x not in g.index or y not in g.index:
        missing = [v for v in (x, y) if v not in g.index]
        raise ValueError(f"unknown node {missing[0]!r}: not a node of the graph")
    if x == y:
        raise ValueError(f"x and y are the same node {x!r}: the effect of a node on itself "
                         f"is not a question IDA answers")
    xi, yi = g.index[x], g.index[y]
    # the columns x's parent sets may use (those of the class, a superset of those of its
    # DAGs that respect the conditional-Gaussian rule), then that rule's class
    candidates = _parent_sets(g, xi, "local", int(max_dags))
    first = [g.nodes[i] for i in sorted({xi, yi}.union(*(set(s) for s, _ in candidates)))]
    encoded, kinds = _encode_with_kinds(X, [g], first, sample_weight, column_types, cpdag)
    g = _clg_class(g, kinds, "ida")
    sets = _parent_sets(g, xi, "global" if method == "global" else "local", int(max_dags))
    if method != "global" and yi in g.parents[xi]:
        # y is a parent of x in every DAG of the class: no set changes the answer (x does
        # not cause y); one row, the definite parents (pcalg's local IDA returns one 0 here)
        definite = set(g.parents[xi])
        sets = [entry for entry in sets if set(entry[0]) == definite][:1] or sets[:1]
    # the set each row adjusts for: the parent set, or (optimal) O(x, y) of its orientation
    adjust = (_optimal_sets(g, xi, yi, sets) if method == "optimal"
              else [s if yi not in s else None for s, _ in sets])
    used = sorted({xi, yi}.union(*(set(s) for s, _ in sets), *(set(a or ()) for a in adjust)))
    columns = [g.nodes[i] for i in used]
    data, states, weights = encoded if columns == first else _encode_effect_columns(
        X, columns, sample_weight, column_types, cpdag)
    position = {i: k for k, i in enumerate(used)}
    if data.has_continuous:
        _refuse_discrete_mediators(X, g, [xi], yi, kinds | dict(zip(columns, map(
            bool, data.continuous))), sample_weight, column_types, cpdag, "ida")
        return _gaussian_ida(g, data, states, weights, used, position, sets, adjust, xi, yi,
                             x_value, contrast, y_value, ess, method == "optimal")
    _check_query(x_value, contrast, ess)
    px, py = position[xi], position[yi]
    x_states, y_states = states[px], states[py]
    values, y_code = _query_codes(x, y, x_states, y_states, x_value, contrast, y_value)
    rows, found = [], []
    warn = False
    sets_named = "adjustment" if method == "optimal" else "parent"
    for (parent_ids, n_dags), adjusted in zip(sets, adjust):
        # no causal effect (y a parent of x, or no causal path): P(y | do(x)) = P(y), which
        # _adjusted gives for a set containing y
        z = tuple(position[i] for i in adjusted) if adjusted is not None else (py,)
        table, gaps = _adjusted(data.codes, data.cardinalities, weights, px, py, z, float(ess))
        row = {"parents": tuple(g.nodes[i] for i in parent_ids)}
        if method == "optimal":
            row["adjustment_set"] = _named(g, adjusted)
        shown = row["parents"] if method != "optimal" else row["adjustment_set"]
        gaps = _labelled_gaps(gaps, {k: f"{x}={x_states[k]!r}" for k in values}, shown,
                              [states[c] for c in z])
        if gaps:
            found.append((shown, gaps))
        if n_dags is not None:
            row["n_dags"] = n_dags
        row["y_is_parent"] = yi in parent_ids
        if contrast is None:
            for k, s in enumerate(y_states):
                row[f"P({y}={s} | do({x}={x_states[values[0]]}))"] = table[values[0], k]
        else:
            ys = y_states[y_code]
            p1, p0 = table[values[0], y_code], table[values[1], y_code]
            row[f"P({y}={ys} | do({x}={x_states[values[0]]}))"] = p1
            row[f"P({y}={ys} | do({x}={x_states[values[1]]}))"] = p0
            row["effect"] = p1 - p0
        warn |= bool(np.isnan(table[values]).any())
        rows.append(row)
    if warn:
        warnings.warn(f"P(y | x, z) is undefined for a configuration of the {sets_named} set "
                      "in which a state of x is never observed (positivity fails); those "
                      "effects are NaN: use ess > 0", RuntimeWarning, stacklevel=2)
    _warn_positivity("ida", repr(x), y, found, ess, sets=sets_named)
    return pd.DataFrame(rows)


def _named(g, ids):
    """The labels of the id tuple ``ids`` (None stays None: no adjustment, no effect)."""
    return None if ids is None else tuple(g.nodes[i] for i in ids)


def _check_gaussian(data, names, caller, ends, options, given):
    """Refuse what the Gaussian form of :func:`ida`, :func:`joint_ida` and
    :func:`effect_over_graphs` cannot answer: a discrete treatment or outcome among
    continuous columns (``ends``: the positions of the treatments and the outcome;
    ``names``: the labels of the used columns), the discrete query ``options``
    (``(..., ess)``: all unset and ``ess`` 1; ``given``: their names) and missing cells.
    Discrete parents of a continuous treatment are allowed (:func:`_stratified_effect`);
    a discrete treatment never has a continuous candidate parent here (the class is read
    among the DAGs that respect the conditional-Gaussian rule, :func:`_clg_class`)."""
    discrete = [names[k] for k in ends if not data.continuous[k]]
    if discrete:
        raise ValueError(f"{caller}: columns {discrete!r} are discrete but others are continuous; "
                         f"the Gaussian form needs the treatment and the outcome continuous "
                         f"(a discrete treatment and outcome give a contrast of states, "
                         f"continuous ones a regression coefficient; declare column_types)")
    *states, ess = options
    if any(v is not None for v in states) or ess != 1.0:
        raise ValueError(f"{given} apply to discrete data; the Gaussian form returns the "
                         "regression coefficient (leave them unset)")
    if np.isnan(data.values[:, [k for k in range(len(names)) if data.continuous[k]]]).any():
        raise ValueError(f"{caller}: the Gaussian form needs complete rows (X has missing cells)")


def _free_variation(scatter, x, parents):
    """The residual sum of squares of column ``x`` on the columns ``parents``, or None when
    ``x`` is a linear function of them (a constant when there are none): that residual is
    0 by :func:`regression`'s singular-matrix rule. ``x`` then cannot vary with its parents
    held fixed (the Gaussian form of a positivity failure), and the coefficient of ``x`` in
    the regression of ``y`` on ``x`` and the parents is not defined: a least-squares solver
    returns an arbitrary one (pcalg's ``ida`` stops with "system is computationally
    singular", R's ``lm`` drops whichever collinear column comes last in the formula)."""
    rss = regression(scatter, x, list(parents))[1]
    return None if rss == 0.0 else rss


@dataclass(frozen=True)
class _Strata:
    """The least-squares fits of :func:`_stratified_effect` in the strata of ``x``'s discrete
    parents (one stratum, all rows, when it has none): per stratum with rows of positive
    weight, its ``weight`` (sum of row weights: its number of rows, an integer weight
    counting as that many copies of its row), the coefficient ``coef`` of ``x`` in the
    regression of ``y`` on ``x`` and the continuous parents, that regression's ``rss`` and
    ``rss_x`` of ``x`` on the continuous parents (NaN, the three, in a stratum where ``x`` is
    a linear function of its continuous parents: ``determined``), the regression's number
    of coefficients ``n_coefficients`` (``|C| + 2``: the intercept, ``x`` and the continuous
    parents ``C``), and ``labels``, the strata's configurations as text (empty without
    discrete parents)."""

    weight: np.ndarray
    coef: np.ndarray
    rss: np.ndarray
    rss_x: np.ndarray
    determined: np.ndarray
    n_coefficients: int
    labels: list

    @property
    def dof(self):
        """Per stratum, the regression's residual degrees of freedom: its rows (weight) less
        its ``n_coefficients``."""
        return self.weight - self.n_coefficients

    @property
    def effect(self):
        """The average of the strata's coefficients with their shares of the weight (NaN
        when ``x`` is determined in some stratum: its coefficient is not defined)."""
        if self.determined.any():
            return np.nan
        return float(np.dot(self.weight, self.coef) / self.weight.sum())

    @property
    def exact(self):
        """Per stratum: whether its coefficient is defined but its regression has no
        residual degrees of freedom (``dof <= 0``: no more rows than coefficients). The
        fit then passes through the rows: the coefficient is set by their noise, and no
        residual variance is left to tell its precision (R's ``lm`` gives such a
        coefficient with NaN standard errors)."""
        return ~self.determined & (self.dof <= 0)

    def first_determined(self):
        """``(label, share of the weight, number of such strata)`` of the largest stratum in
        which ``x`` is a linear function of its continuous parents."""
        k = max(np.flatnonzero(self.determined), key=lambda s: self.weight[s])
        return self.labels[k], float(self.weight[k] / self.weight.sum()), int(self.determined.sum())

    def exact_strata(self):
        """``(label, rows, share of the weight)`` of each :attr:`exact` stratum, largest
        first."""
        ks = sorted(np.flatnonzero(self.exact), key=lambda s: -self.weight[s])
        return [(self.labels[k], float(self.weight[k]), float(self.weight[k] / self.weight.sum()))
                for k in ks]


def _stratified_effect(data, weights, px, py, parents, names, states, cache):
    r"""The total effect of the continuous ``x`` (position ``px``) on the continuous ``y``
    adjusted for the parent set ``parents`` (positions; ``y`` not among them) of ``x``, some of
    them possibly discrete, as :class:`_Strata` (its ``effect``); or adjusted for the
    optimal adjustment set ``O`` passed as ``parents`` (``ida(method="optimal")``, last
    paragraph). ``names`` and ``states``:
    the used columns' labels and states (for the strata's labels); ``cache``: a dict
    keeping the moments per set of discrete parents for the next call on the same data.

    With ``S`` the discrete and ``C`` the continuous parents, ``y`` is regressed on ``x``
    and ``C`` by weighted least squares within each observed configuration ``s`` of ``S``
    (the stratum's own intercept and slopes), and the coefficients of ``x`` are averaged
    with the strata's shares of the weight:
    :math:`\hat\beta = \sum_s \hat P(s)\, \hat\beta_s`. Without discrete parents this is
    the coefficient of ``x`` in the regression of ``y`` on ``x`` and ``C`` (pcalg's IDA).

    Why this is the effect of a conditional linear Gaussian (CLG) network (Lauritzen &
    Wermuth 1989; Lauritzen 1992): given the configuration ``d`` of all its discrete
    variables ``D``, the continuous ones follow a linear Gaussian structural model whose
    coefficients depend on ``d``; no discrete node descends from the continuous ``x``
    (a discrete node has no continuous parent), so ``do(x = v)`` leaves ``P(d)`` as it is
    and :math:`E[y \mid do(x = v)] = \sum_d P(d) (\alpha(d) + \tau(d) v)`, with
    :math:`\tau(d)` the sum over directed paths ``x -> ... -> y`` of the products of the
    ``d``-specific edge coefficients: linear in ``v``, of slope
    :math:`\beta = E[\tau(D)]`. The parents of ``x`` being ``S`` and ``C``,
    :math:`x = a(s) + b(s)^T C + \varepsilon` with :math:`\varepsilon \sim N(0, \sigma^2(s))`
    independent of ``C`` and of the other discrete variables (non-descendants of ``x``:
    the local Markov property), and :math:`E[y \mid x, C, d]` is linear in ``x`` and ``C``
    with the coefficient :math:`\tau(d)` for ``x`` (the back-door adjustment for ``C`` in
    the ``d``-specific linear model). By Frisch-Waugh-Lovell the stratum's least-squares
    coefficient tends to :math:`E[\varepsilon y \mid s] / \sigma^2(s) =
    E[\tau(D) \mid s]`, so :math:`\hat\beta \to E[\tau(D)] = \beta`. This holds although
    :math:`E[y \mid x, s, C]` is not linear in ``C`` when a discrete variable outside ``S``
    changes coefficients (it mixes the ``d``-specific lines with weights
    :math:`P(d \mid s, C)`): only the regression of ``x`` on its parents needs to be
    linear. A pooled regression with stratum dummies (common slopes) does not have this
    property (it weighs the strata by their residual variance of ``x``, and its residual
    of ``x`` is not :math:`\varepsilon` when ``b(s)`` differs between strata).

    A stratum where ``x`` is a linear function of ``C`` (no variation of ``x``, or at most
    ``|C| + 1`` rows) has no defined coefficient (:func:`_free_variation`): it is marked
    ``determined``, and the effect is NaN. A stratum with ``|C| + 2`` rows (the sum of
    their weights: an integer weight is that many copies of the row, as in the CLG fit's
    rule of too few rows) has a coefficient but no residual degrees of freedom
    (:attr:`_Strata.exact`): the callers keep it and warn (:func:`_warn_exact`).

    With ``O = pa(cn) \ forb`` instead of the parent set the same estimate is right, more
    directly: every discrete variable whose state changes a coefficient on a causal path is
    a parent of a causal node and not a descendant of ``x`` (no discrete node descends from
    a continuous one), so it is in ``O``; ``y`` is ``x``, ``O`` and the noise terms of the
    causal nodes, which are independent of ``(x, O)`` (non-descendants), so within a
    stratum ``s`` of ``O``'s discrete members :math:`E[y \mid x, O] = \tau(s) x +` linear
    in the continuous members, exactly, and the stratum's coefficient tends to
    :math:`\tau(s)`, the average of them to :math:`E[\tau(D)]`.
    """
    strata = tuple(c for c in parents if not data.continuous[c])
    continuous = [c for c in parents if data.continuous[c]]
    if strata not in cache:
        if strata:
            ids, n_ids, configurations = _configurations(data.codes, data.cardinalities, strata)
            cache[strata] = moments(data.values, weights, ids, n_ids), [
                ", ".join(f"{names[c]}={states[c][k]!r}" for c, k in zip(strata, config))
                for config in configurations]
        else:
            cache[strata] = moments(data.values, weights), [""]
    stats, labels = cache[strata]
    kept = np.flatnonzero(stats.weight > 0)
    coef, rss, rss_x = (np.full(len(kept), np.nan) for _ in range(3))
    for k, s in enumerate(kept):
        spread = _free_variation(stats.scatter[s], px, continuous)
        if spread is not None:
            rss_x[k] = spread
            beta, rss[k] = regression(stats.scatter[s], py, [px, *continuous])
            coef[k] = beta[0]
    weight = stats.weight[kept]
    return _Strata(weight, coef, rss, rss_x, np.isnan(coef), len(continuous) + 2,
                   [labels[s] for s in kept])


def _warn_determined(caller, x, found, stacklevel, sets="parent"):
    """The warning for the parent sets (labels) that determine ``x`` (:func:`_free_variation`):
    ``found`` holds ``(parents, strata)`` per such set, ``strata`` its :class:`_Strata` (or
    None: ``x`` is a linear function of the whole set); ``stacklevel``: that of the user's
    call, seen from here; ``sets``: ``"parent"``, or ``"adjustment"`` when the sets are the
    optimal adjustment sets of ``ida(method="optimal")``."""
    its, member = ("its parents", "parent") if sets == "parent" else ("the adjustment set", "covariate")
    parents, strata = found[0]
    where = ""
    if strata is not None and strata.labels[0]:
        label, share, n = strata.first_determined()
        more = f" and {n - 1} more strata" if n > 1 else ""
        where = (f" within the rows with {label} ({share:.1%} of the rows{more}: a stratum of "
                 f"the discrete {member}s with too few rows, or in which {x!r} does not vary "
                 f"given the continuous {member}s)")
    more = f" (and in {len(found) - 1} more {sets} sets)" if len(found) > 1 else ""
    warnings.warn(f"{caller}: {x!r} is a linear function of {its} {parents!r}{where} in "
                  f"the data{more}: it cannot vary with them held fixed, so its effect adjusted "
                  f"for them is not defined (positivity fails); those effects are NaN. Drop a "
                  f"column computed from others"
                  f"{f', or merge rare states of a discrete {member}' if where else ''}",
                  RuntimeWarning, stacklevel=stacklevel)


def _warn_exact(caller, x, found, sets="parent", over=None):
    """One warning for every stratum, over all the sets of one call, whose regression has no
    residual degrees of freedom (:attr:`_Strata.exact`): ``found`` holds ``(set, strata)``
    (labels, :class:`_Strata`) per set with such strata; ``sets`` as in
    :func:`_warn_determined`; ``over``: ``(DAGs with such a stratum, DAGs)`` for
    :func:`effect_over_graphs`.

    The coefficient is kept, as R's ``lm`` keeps it (with NaN standard errors at 0 residual
    degrees of freedom): with ``|C| + 2`` rows the regression of ``y`` on ``(1, x, C)`` is
    exact, so the stratum's slope is defined (``x`` varies given ``C``) and unbiased, but
    it rests on that many rows' noise and can be extreme, and no residual variance is left
    to say how far off it may be; its weight in the average is its share of the rows.
    A set without discrete members has one stratum, all the rows: the message then speaks
    of regressions, not of strata of discrete parents, and advises only more rows."""
    member = "parent" if sets == "parent" else "covariate"
    whose = f"parents of {x!r}" if sets == "parent" else "covariates of the adjustment sets"
    exact = [(parents, stratum) for parents, strata in found for stratum in strata.exact_strata()]
    items = [f"{label} of the {sets} set {parents!r} ({rows:g} rows, {share:.1%} of the rows)"
             if label else f"the {sets} set {parents!r} ({rows:g} rows: all of them)"
             for parents, (label, rows, share) in exact]
    shown = "; ".join(items[:5]) + (f"; and {len(items) - 5} more" if len(items) > 5 else "")
    one = len(items) == 1
    in_dags = f" (in {over[0]} of {over[1]} DAGs)" if over else ""
    if any(label for _, (label, _, _) in exact):
        what = f"{len(items)} {'stratum' if one else 'strata'} of the discrete {whose}"
        kept, advice = "kept in the average with the stratum's share", (
            f"Merge rare states of a discrete {member}, or add rows")
    else:  # (no discrete parent: the regression over all the rows)
        what = f"the regression of the {sets} set" if one else f"the regressions of {len(items)} {sets} sets"
        kept, advice = "kept", "Add rows"
    warn_user(RuntimeWarning(
        f"{caller}: {what} {'has' if one else 'have'} no residual degrees of freedom{in_dags}: "
        f"{shown}. There the regression on {x!r} and the continuous {member}s C has no more "
        f"rows (of positive weight: the sum of their weights) than coefficients (|C| + 2: the "
        f"intercept, {x!r} and C), so it passes through the rows: the coefficient of {x!r} is "
        f"{kept} (as R's lm gives it), but it rests on "
        f"those rows' noise, and no residual variance says how precise it is (lm's standard "
        f"errors are NaN there). {advice}"))


def _gaussian_ida(g, data, states, weights, used, position, sets, adjust, xi, yi, x_value,
                  contrast, y_value, ess, optimal):
    """The Gaussian form of :func:`ida`: one total effect per parent set, the coefficient of
    ``x`` in the regression of ``y`` on ``x`` and the set ``adjust`` pairs with it (the
    parent set itself, or with ``optimal`` the O-set of its orientation,
    :func:`_optimal_sets`), averaged over the strata of that set's discrete columns
    (:func:`_stratified_effect`); 0 where ``adjust`` is None (no causal effect); NaN, with a
    warning, for a set of which ``x`` is a linear function (in some stratum)."""
    names = [g.nodes[i] for i in used]
    px, py = position[xi], position[yi]
    _check_gaussian(data, names, "ida", (px, py), (x_value, contrast, y_value, ess),
                    "x_value, contrast, y_value and ess")
    rows, determined, exact, cache = [], [], [], {}
    for (parent_ids, n_dags), adjusted in zip(sets, adjust):
        row = {"parents": tuple(g.nodes[i] for i in parent_ids)}
        if optimal:
            row["adjustment_set"] = _named(g, adjusted)
        if n_dags is not None:
            row["n_dags"] = n_dags
        row["y_is_parent"] = yi in parent_ids
        if adjusted is None:
            row["effect"] = 0.0
        else:
            fits = _stratified_effect(data, weights, px, py, [position[i] for i in adjusted],
                                      names, states, cache)
            row["effect"] = fits.effect
            if fits.determined.any():
                determined.append((_named(g, adjusted), fits))
            elif fits.exact.any():
                exact.append((_named(g, adjusted), fits))
        rows.append(row)
    sets_named = "adjustment" if optimal else "parent"
    if determined:
        _warn_determined("ida", g.nodes[xi], determined, stacklevel=4, sets=sets_named)
    if exact:
        _warn_exact("ida", g.nodes[xi], exact, sets=sets_named)
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------
# joint interventions
# ---------------------------------------------------------------------------------------------
def _is_completed(g):
    """Whether ``g`` is a DAG or a CPDAG (a completed PDAG), so the class is read off it."""
    if not (g.is_pdag and any(g.neighbours)):
        return True
    pdag = g.pdag()
    return dag_to_cpdag(pdag.nodes, [tuple(e) for e in g.extension]) == pdag


def _check_cpdag_for_local(g):
    """The structural intervention distance reads the class off a CPDAG
    (:func:`skbn.metrics.structural_intervention_distance`): refuse a PDAG that is not
    completed."""
    if not _is_completed(g):
        raise ValueError(
            "this needs a CPDAG (a completed PDAG) or a DAG; this PDAG has edges oriented "
            "beyond its CPDAG (background knowledge?) or missing orientations")


def _oriented(g, choice):
    """The graph ``g`` with the undirected edges at the nodes of ``choice`` oriented:
    ``w -> x`` for ``w`` in ``choice[x]``, ``x -> w`` for the other neighbours ``w`` of ``x``.

    Returns ``(directed pairs, undirected pairs)``, or None when two choices orient one edge
    both ways.
    """
    directed = {(u, v) for u in range(g.n) for v in g.children[u]}
    for x, parent_ids in choice.items():
        for w in g.neighbours[x]:
            edge = (w, x) if w in parent_ids else (x, w)
            if edge[::-1] in directed:
                return None
            directed.add(edge)
    undirected = [(u, v) for u in range(g.n) for v in g.neighbours[u]
                  if u < v and (u, v) not in directed and (v, u) not in directed]
    return sorted(directed), undirected


def _jointly_valid(g, choice, class_v_structures):
    """Whether some DAG of the class of the CPDAG ``g`` gives each node ``x`` of ``choice``
    the parents ``choice[x]``.

    The choices orient every undirected edge at those nodes; some DAG of the class agrees
    iff the result has an acyclic consistent extension (Dor & Tarsi 1992, complete for any
    PDAG) whose v-structures are the class's (no new one).
    """
    oriented = _oriented(g, choice)
    if oriented is None:
        return False
    directed, undirected = oriented
    parents, children = parents_children(g.n, directed)
    if topological_ids(g.n, parents, children)[1]:  # a directed cycle
        return False
    edges, forced = extension_ids(g.n, directed, undirected)
    if forced:
        return False
    parents = parents_children(g.n, edges)[0]
    return v_structure_ids(parents, g.adjacent) == class_v_structures


def _joint_parent_sets(g, xs, method, max_dags):
    """``[(tuple of parent-id tuples aligned with xs, number of DAGs or None)]``.

    Local: per chain component (connected component of the undirected edges; the DAGs of a
    CPDAG orient the components independently), the combinations of the locally valid
    parent sets of the ``xs`` in it that are jointly valid (:func:`_jointly_valid`), then
    every combination across components. On a PDAG with background knowledge (not
    completed: e.g. the conditional-Gaussian class of :func:`_clg_class`) the components do
    not orient independently, so every combination of all the ``xs`` is checked at once
    (the check is complete for any PDAG). Global: the parents of the ``xs`` in every DAG of
    the class, counted.
    """
    if method == "global":
        return _parents_over_class(g, xs, max_dags, "combinations")
    class_v_structures = v_structure_ids(parents_children(g.n, g.extension)[0], g.adjacent)
    completed = _is_completed(g)
    where = {}
    for k, component in enumerate(components(range(g.n), g.neighbours)):
        for v in component:
            where[v] = k if completed else 0
    groups = {}
    for x in xs:
        groups.setdefault(where[x], []).append(x)
    per_group = []
    for members in groups.values():
        options = [local_parent_sets(g.parents, g.neighbours, g.adjacent, x) for x in members]
        valid = [dict(zip(members, combo)) for combo in product(*options)
                 if (completed and len(members) == 1) or _jointly_valid(
                     g, {x: set(pa) for x, pa in zip(members, combo)}, class_v_structures)]
        per_group.append(valid)
    combos = []
    for parts in product(*per_group):
        merged = {}
        for part in parts:
            merged.update(part)
        combos.append((tuple(merged[x] for x in xs), None))
    return sorted(combos, key=lambda kv: (tuple(map(len, kv[0])), kv[0]))


def _cut_parents(cov, x, parents):
    """The covariance after cutting ``x`` off its ``parents`` (MCD, Nandy et al. 2017).

    With ``Q = parents + [x]`` and ``R`` the other columns: ``x`` becomes independent of
    the parents with its residual variance ``d = S_xx - S_xP S_PP^-1 S_Px``, the parents
    keep their covariance ``S_PP``, and ``R`` keeps its regression on ``Q``
    (``A = S_RQ S_QQ^-1``, residual covariance ``C = S_RR - A S_QR``):
    ``S'_QQ = diag(S_PP, d)``, ``S'_RQ = A S'_QQ``, ``S'_RR = A S'_QQ A^T + C``. This is
    the covariance whose modified Cholesky factor has the row of ``x`` emptied on its
    parents.
    """
    if not parents:
        return cov
    p = len(parents)
    q = list(parents) + [x]
    r = [k for k in range(len(cov)) if k not in q]
    s_qq = cov[np.ix_(q, q)]
    b = np.linalg.solve(s_qq[:p, :p], s_qq[:p, p])
    new_qq = np.zeros_like(s_qq)
    new_qq[:p, :p] = s_qq[:p, :p]
    new_qq[p, p] = s_qq[p, p] - s_qq[p, :p] @ b
    out = np.empty_like(cov)
    out[np.ix_(q, q)] = new_qq
    if r:
        s_rq = cov[np.ix_(r, q)]
        a = np.linalg.solve(s_qq, s_rq.T).T
        out[np.ix_(r, q)] = a @ new_qq
        out[np.ix_(q, r)] = out[np.ix_(r, q)].T
        out[np.ix_(r, r)] = a @ new_qq @ a.T + cov[np.ix_(r, r)] - a @ s_rq.T
    return out


def _joint_gaussian_effects(scatter, position, xs, y, parent_sets, technique):
    """The joint effects of ``xs`` on ``y`` for one combination of parent sets (ids).

    ``RRC``: ``B[i, j]``, the IDA coefficient of ``x_i`` on ``x_j`` (or ``y``) adjusting for
    ``pa(x_i)`` (0 when the target is a parent of ``x_i``), then for each ``x_a`` the other
    ``x_w`` eliminated in the order of ``xs``: ``B[r, c] -= B[r, w] B[w, c]`` on the rows and
    columns still present; the effect is ``B[a, y]``. ``MCD``: the covariance with every
    ``x_i`` cut off ``pa(x_i)`` in turn (:func:`_cut_parents`), then
    ``S'[y, x_i] / S'[x_i, x_i]``. Either way 0 for an ``x_i`` with ``y`` in its parents.
    """
    k = len(xs)
    py = position[y]
    if technique == "MCD":
        cov = scatter
        for x, pa in zip(xs, parent_sets):
            cov = _cut_parents(cov, position[x], [position[p] for p in pa])
        return [0.0 if y in pa else float(cov[py, position[x]] / cov[position[x], position[x]])
                for x, pa in zip(xs, parent_sets)]
    targets = list(xs) + [y]
    b = np.zeros((k, k + 1))
    for i, (x, pa) in enumerate(zip(xs, parent_sets)):
        regressors = [position[x], *(position[p] for p in pa)]
        for j, t in enumerate(targets):
            if t != x and t not in pa:
                b[i, j] = regression(scatter, position[t], regressors)[0][0]
    effects = []
    for a in range(k):
        if y in parent_sets[a]:
            effects.append(0.0)
            continue
        m = b.copy()
        rest = [w for w in range(k) if w != a]
        for step, w in enumerate(rest):
            later = rest[step + 1:]
            rows, cols = [a] + later, later + [k]
            m[np.ix_(rows, cols)] -= np.outer(m[rows, w], m[w, cols])
        effects.append(float(m[a, k]))
    return effects


def _joint_query_codes(xs, y, x_states, y_states, x_values, contrast, y_value):
    """Joint state codes of the treatments (mixed radix over ``xs``): ``[code]`` or
    ``[treated, control]``, their labels, and the outcome code (contrast)."""
    def joint(values, what):
        try:
            values = list(values)
        except TypeError:
            raise ValueError(f"{what} must give one state per node of xs, got {values!r}") from None
        if len(values) != len(xs):
            raise ValueError(f"{what} must give one state per node of xs ({len(xs)}), got "
                             f"{len(values)}")
        code = 0
        for x, states, v in zip(xs, x_states, values):
            code = code * len(states) + _state_code(states, v, f"{what} state of x={x!r}")
        return code, ", ".join(f"{x}={v}" for x, v in zip(xs, values))

    if contrast is None:
        code, label = joint(x_values, "x_values")
        return [code], [label], None
    treated, control = contrast
    (c1, l1), (c0, l0) = joint(treated, "contrast"), joint(control, "contrast")
    if y_value is None:
        if len(y_states) != 2:
            raise ValueError(f"y={y!r} has {len(y_states)} states {y_states!r}: give y_value, "
                             f"the outcome state of the contrast")
        return [c1, c0], [l1, l0], 1
    return [c1, c0], [l1, l0], _state_code(y_states, y_value, f"y_value of y={y!r}")


def _adjustment_blocker(g, xs, parent_sets):
    """A parent of some ``x`` (outside ``xs``) that is a descendant of some ``x`` in a DAG of
    the class giving the ``xs`` these parent sets, as ``(parent, x)``; None when there is
    none.

    The combination orients the edges at the ``xs``; closed under Meek's rules, that PDAG
    represents exactly the DAGs of the class with these parent sets (the combination is
    jointly valid), and a node is a descendant of ``x`` in one of them iff a b-possibly
    causal path leads to it from ``x`` (:func:`possible_descendants` along unshielded walks,
    Perković et al. 2017). Plain reachability along the undirected edges left over would
    also flag a parent that the closure shows can only point into that path (``r -> f``,
    ``f -> s``, ``r - s``: Meek's R2 orients ``r -> s``, so ``r`` never descends from
    ``f``) and refuse a combination that one adjustment answers."""
    directed, undirected = _oriented(g, dict(zip(xs, map(set, parent_sets))))
    closed = meek_orient(PDAG(g.nodes, [(g.nodes[u], g.nodes[v]) for u, v in directed],
                              [(g.nodes[u], g.nodes[v]) for u, v in undirected]))
    parents, children = parents_children(g.n, [(g.index[u], g.index[v])
                                                for u, v in closed.directed])
    neighbours = [set() for _ in range(g.n)]
    for u, v in closed.undirected:
        neighbours[g.index[u]].add(g.index[v])
        neighbours[g.index[v]].add(g.index[u])
    adjacent = adjacent_sets(parents, children, neighbours)
    z = set().union(*map(set, parent_sets)) - set(xs)
    for x in xs:
        reach = possible_descendants(children, neighbours, [x], adjacent=adjacent) - set(xs)
        if reach & z:
            return min(reach & z), x
    return None


def joint_ida(X, cpdag, xs, y, *, x_values=None, contrast=None, y_value=None,
              method="local", technique="RRC", ess=1.0, sample_weight=None, max_dags=1000,
              column_types="auto") -> pd.DataFrame:
    """Joint IDA: the possible effects of setting several nodes ``xs`` at once on ``y``.

    A CPDAG leaves the parents of the ``xs`` undetermined. Joint IDA (Nandy, Maathuis &
    Richardson 2017) estimates the effect for every **jointly valid** combination of parent
    sets: one parent set per ``x``, each locally valid (as in :func:`ida`), together given
    by some DAG of the class (the orientation of every undirected edge at the ``xs`` extends
    to a DAG without a new v-structure). The answer is a multiset with one row per
    combination; if the CPDAG is right, the true joint effect is among them.

    * ``method="local"`` (default; pcalg's ``jointIda`` on a ``"pdag"``): the distinct
      jointly valid combinations, found per chain component (the DAGs of a CPDAG orient
      its connected components of undirected edges independently) by checking each
      combination of locally valid sets for a consistent extension (Dor & Tarsi 1992) with
      the class's v-structures.
    * ``method="global"``: the parents of the ``xs`` in every DAG of the class (enumerated,
      at most ``max_dags``), each distinct combination once with the number of DAGs having
      it (``n_dags``).

    **Gaussian data** (every used column continuous): the effect of ``x_i`` is the total
    joint-intervention effect :math:`\\partial E[y \\mid \\mathrm{do}(x_1, \\dots, x_k)] /
    \\partial x_i`, one per ``x``, estimated from the weighted moments by

    * ``technique="RRC"`` (recursive regressions for causal effects): ``b_ij``, the IDA
      coefficient of ``x_i`` on ``x_j`` (or on ``y``) adjusting for ``pa(x_i)`` (0 when the
      target is a parent of ``x_i``), then for each ``x_a`` the other treatments ``w``
      removed one at a time in the order of ``xs``,
      :math:`b_{rc} \\leftarrow b_{rc} - b_{rw} b_{wc}`, which subtracts the part of the
      effect that goes through ``w`` (held fixed by the intervention); or
    * ``technique="MCD"`` (modifying the Cholesky decomposition): the covariance is changed
      so that every ``x_i`` in turn is independent of its parents with its residual
      variance, the rest keeping its regression on them (the post-intervention
      covariance); the effect is :math:`\\Sigma'_{y x_i} / \\Sigma'_{x_i x_i}`;

    both 0 for an ``x_i`` with ``y`` among its parents. In a linear-Gaussian model both
    converge to the joint effect (the sum over directed paths from ``x_i`` to ``y`` that
    avoid the other ``xs`` of the products of edge weights); on a finite sample they differ
    slightly, as in pcalg.

    **Discrete data**: ``P(y | do(x_1 = a_1, ..., x_k = a_k))`` by the joint adjustment

    .. math::

        P(y \\mid \\mathrm{do}(\\mathbf{x})) = \\sum_z P(y \\mid \\mathbf{x}, z)\\, P(z),
        \\qquad Z = \\bigcup_i \\mathrm{pa}(x_i) \\setminus \\{x_1, \\dots, x_k\\}

    (``= P(y)`` when ``y`` is in ``Z``), with the BDeu posterior mean of the family ``y |
    xs u Z`` (pseudocount ``ess / (q_Z q_xs r_y)`` per cell) and the empirical ``P(z)``.
    **Identification condition**: this is the true effect in a DAG when no node of ``Z`` is
    a descendant of any ``x`` (then ``Z`` satisfies the back-door criterion for the set of
    treatments: it blocks every back-door path and contains no descendant of a treatment).
    It is checked for every combination on the CPDAG with the edges at the ``xs`` oriented
    by it and closed under Meek's rules (a node is a descendant of ``x`` in some DAG of the
    class with these parent sets iff a b-possibly causal path leads to it from ``x``); a
    combination that fails it raises ``ValueError`` naming the parent and
    the treatment (e.g. ``x1 -> m -> x2``: the effect needs the sequential g-formula, not
    one adjustment).

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_samples, n_features)
        Observational data; the used columns (``xs``, ``y``, the candidate parents) are
        encoded as for :func:`ida`.
    cpdag : PDAG, fitted learner, or iterable of (parent, child) pairs
        The CPDAG, or any PDAG with a consistent extension (e.g. a CPDAG with background
        knowledge: ``method="local"`` then checks the combinations of all the ``xs``
        together, the PDAG's components not orienting independently).
    xs : sequence of hashable
        The intervened nodes (at least one, distinct, without ``y``).
    y : hashable
        The outcome node.
    x_values : sequence of states, optional
        Discrete data: the state of each ``x`` (aligned with ``xs``); one column
        ``P(y=s | do(...))`` per state ``s`` of ``y``.
    contrast : (treated, control) pair of sequences of states, optional
        Discrete data, instead of ``x_values``: the two joint settings, their probabilities
        of ``y = y_value`` and their difference ``effect``.
    y_value : state of ``y``, optional
        Outcome state of a ``contrast`` (may be omitted for a binary ``y``).
    method : {"local", "global"}, default="local"
    technique : {"RRC", "MCD"}, default="RRC"
        Gaussian estimator (discrete data take the joint adjustment: leave it at "RRC").
    ess : float >= 0, default=1.0
        Discrete data: Dirichlet (BDeu) smoothing, as in :func:`ida`.
    sample_weight : array-like of shape (n_samples,), optional
        Row weights.
    max_dags : int, default=1000
        Largest class ``method="global"`` enumerates.
    column_types : "auto", "discrete", "continuous", list or dict, default="auto"
        As in :func:`ida` (a fitted learner as the graph gives its ``column_types_``): all
        used columns continuous gives the Gaussian form; one continuous treatment and a
        continuous ``y`` with discrete candidate parents give :func:`ida`'s effect averaged
        over the strata (either technique); several continuous treatments with discrete
        candidate parents, and a discrete treatment or outcome among continuous columns,
        are refused; on mixed data the class is read among its DAGs that are CLG networks,
        as in :func:`ida`.

    Returns
    -------
    effects : pandas.DataFrame
        One row per combination. ``parents``: a tuple with one tuple of parent names per
        ``x`` (in the order of ``xs``); ``n_dags`` (global only); Gaussian data: one column
        ``effect_<x>`` per ``x`` (pcalg's ``jointIda`` matrix is their transpose);
        discrete data: the probability columns and, with ``contrast``, ``effect``.

    Raises
    ------
    ValueError
        Unknown node or state; ``y`` among the ``xs`` or a repeated ``x``; too large a class
        with ``method="global"``; a discrete treatment or outcome among continuous used
        columns; several continuous treatments with discrete candidate parents (not
        implemented: RRC and MCD multiply regression coefficients, and in a CLG network
        those vary with the configuration of the discrete variables, so the average of the
        products the joint effect needs is not the product of the strata's averages); a
        class none of whose DAGs is a CLG network; a discrete column on a (possibly) causal
        path from a continuous treatment to a continuous ``y`` (as in :func:`ida`); discrete
        data that fail the identification condition.

    Warns
    -----
    PositivityWarning
        Discrete data, ``ess > 0``: a queried joint state of ``xs`` is never observed with
        a configuration of the parents that the rows have (as in :func:`ida`).
    RuntimeWarning
        The same with ``ess=0``: those effects are NaN. Continuous data, as in :func:`ida`:
        a treatment that is a linear function of its parents (NaN), and (one treatment with
        discrete parents) strata with no residual degrees of freedom.

    References
    ----------
    .. [1] P. Nandy, M. H. Maathuis and T. S. Richardson, "Estimating the effect of joint
       interventions from observational data in sparse high-dimensional settings", Annals
       of Statistics 45(2), 2017.
    .. [2] D. Dor and M. Tarsi, "A simple algorithm to construct a consistent extension of
       a partially oriented graph", Technical Report R-185, UCLA, 1992.

    Examples
    --------
    >>> from skbn.graph import PDAG
    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(size=5000)
    >>> b = 0.8 * a + rng.normal(size=5000)
    >>> c = 0.5 * a + 0.7 * b + rng.normal(size=5000)
    >>> frame = pd.DataFrame({"a": a, "b": b, "c": c})
    >>> cpdag = PDAG("abc", undirected=[("a", "b"), ("a", "c"), ("b", "c")])
    >>> out = joint_ida(frame, cpdag, ["a", "b"], "c")
    >>> len(out), list(out.columns)  # the 6 DAGs of the class orient every edge at a or b
    (6, ['parents', 'effect_a', 'effect_b'])
    >>> truth = out["parents"] == ((), ("a",))   # a -> b -> c, a -> c
    >>> [round(float(out.loc[truth, f"effect_{v}"].iloc[0]), 2) for v in "ab"]
    [0.47, 0.71]
    """
    if method not in ("local", "global"):
        raise ValueError(f"method must be 'local' or 'global', got {method!r}")
    if technique not in ("RRC", "MCD"):
        raise ValueError(f"technique must be 'RRC' or 'MCD', got {technique!r}")
    if int(max_dags) != max_dags or max_dags < 1:
        raise ValueError(f"max_dags must be a positive integer, got {max_dags!r}")
    g = _compile(cpdag, name="cpdag")
    if isinstance(xs, (str, bytes)) or not hasattr(xs, "__iter__"):
        raise ValueError(f"xs must be a sequence of nodes, got {xs!r}")
    xs = list(xs)
    if not xs:
        raise ValueError("xs is empty: give at least one node to intervene on")
    missing = [v for v in [*xs, y] if v not in g.index]
    if missing:
        raise ValueError(f"unknown node {missing[0]!r}: not a node of the graph")
    if len(set(xs)) != len(xs):
        raise ValueError(f"xs repeats a node: {xs!r}")
    if y in xs:
        raise ValueError(f"y={y!r} is one of xs: the effect of a node on itself is not a "
                         f"question joint IDA answers")
    xi, yi = [g.index[x] for x in xs], g.index[y]
    # the columns the parent sets may use (those of the class: a superset of those of its
    # DAGs that respect the conditional-Gaussian rule), then that rule's class
    candidates = [s for x in xi for s, _ in _parent_sets(g, x, "local", int(max_dags))]
    first = [g.nodes[i] for i in sorted({yi, *xi}.union(*map(set, candidates)))]
    encoded, kinds = _encode_with_kinds(X, [g], first, sample_weight, column_types, cpdag)
    g = _clg_class(g, kinds, "joint_ida")
    combos = _joint_parent_sets(g, xi, method, int(max_dags))
    used = sorted({yi, *xi}.union(*(set(pa) for c, _ in combos for pa in c)))
    columns = [g.nodes[i] for i in used]
    data, states, weights = encoded if columns == first else _encode_effect_columns(
        X, columns, sample_weight, column_types, cpdag)
    position = {i: k for k, i in enumerate(used)}
    rows = []
    for parent_sets, n_dags in combos:
        row = {"parents": tuple(tuple(g.nodes[i] for i in pa) for pa in parent_sets)}
        if n_dags is not None:
            row["n_dags"] = n_dags
        rows.append(row)
    if data.has_continuous:
        names = [g.nodes[i] for i in used]
        _refuse_discrete_mediators(X, g, list(xi), yi, kinds | dict(zip(names, map(
            bool, data.continuous))), sample_weight, column_types, cpdag, "joint_ida")
        _check_gaussian(data, names, "joint_ida", [position[i] for i in (*xi, yi)],
                        (x_values, contrast, y_value, ess), "x_values, contrast, y_value and ess")
        discrete = [names[k] for k in range(len(used)) if not data.continuous[k]]
        if discrete and len(xs) > 1:
            raise ValueError(
                f"joint_ida: the joint effect of several continuous treatments with discrete "
                f"candidate parents {discrete!r} is not implemented: RRC and MCD combine "
                f"the treatments' regression coefficients (products of them), and in a "
                f"conditional linear Gaussian network those vary with the configuration of "
                f"the discrete variables, so the joint effect (an average of products) is not "
                f"a product of averages over the strata. Ask ida for one treatment at a time "
                f"(its effect averages the strata's coefficients), or declare those columns "
                f"continuous in column_types if they are measurements")
        if discrete:  # one treatment: ida's effect, averaged over the strata
            cache, determined, exact = {}, [], []
            for row, (parent_sets, _) in zip(rows, combos):
                if yi in parent_sets[0]:
                    row[f"effect_{xs[0]}"] = 0.0
                    continue
                fits = _stratified_effect(data, weights, position[xi[0]], position[yi],
                                          [position[i] for i in parent_sets[0]], names, states,
                                          cache)
                row[f"effect_{xs[0]}"] = fits.effect
                if fits.determined.any():
                    determined.append((row["parents"][0], fits))
                elif fits.exact.any():
                    exact.append((row["parents"][0], fits))
            if determined:
                _warn_determined("joint_ida", xs[0], determined, stacklevel=3)
            if exact:
                _warn_exact("joint_ida", xs[0], exact)
            return pd.DataFrame(rows)
        scatter = moments(data.values, weights).scatter[0]
        for row, (parent_sets, _) in zip(rows, combos):
            # a treatment that is a linear function of its parents leaves every effect of
            # the combination undefined (each is computed through all the treatments)
            x_determined = [(x, pa) for x, pa in zip(xi, parent_sets)
                            if yi not in pa and _free_variation(scatter, position[x],
                                                                [position[i] for i in pa]) is None]
            if x_determined:
                x, pa = x_determined[0]
                _warn_determined("joint_ida", g.nodes[x], [(tuple(g.nodes[i] for i in pa), None)],
                                 stacklevel=3)
                effects = [np.nan] * len(xs)
            else:
                effects = _joint_gaussian_effects(scatter, position, xi, yi, parent_sets,
                                                  technique)
            for x, value in zip(xs, effects):
                row[f"effect_{x}"] = value
        return pd.DataFrame(rows)
    if technique != "RRC":
        raise ValueError("technique applies to Gaussian data; leave it at 'RRC' for discrete "
                         "data (the joint adjustment)")
    _check_query(x_values, contrast, ess, ("x_values (one state per node of xs)",
                                           "(a (treated, control) pair of such sequences)"))
    px = [position[i] for i in xi]
    py = position[yi]
    x_states = [states[p] for p in px]
    codes, labels, y_code = _joint_query_codes(xs, y, x_states, states[py], x_values,
                                               contrast, y_value)
    # the treatments as one column (mixed radix over xs, as codes above), then the counts
    joint = np.zeros(data.n_samples, dtype=np.int64)
    for p in px:
        joint = joint * int(data.cardinalities[p]) + data.codes[:, p]
    all_codes = np.asfortranarray(np.column_stack([data.codes, joint]).astype(np.int64))
    cards = np.append(data.cardinalities, int(np.prod([data.cardinalities[p] for p in px])))
    jx = len(used)
    warn, found = False, []
    for row, (parent_sets, _) in zip(rows, combos):
        blocker = _adjustment_blocker(g, xi, parent_sets)
        if blocker is not None:
            p, x = blocker
            combo = {g.nodes[i]: tuple(g.nodes[k] for k in pa) for i, pa in zip(xi, parent_sets)}
            raise ValueError(
                f"joint_ida: with the parent sets {combo!r}, {g.nodes[p]!r} is a parent of a "
                f"treatment and a descendant of the treatment {g.nodes[x]!r} in a DAG of the "
                f"class with these parent sets, so the "
                f"parents of xs are not an adjustment set and the discrete joint effect is "
                f"not one adjustment (it needs the sequential g-formula)")
        z = sorted(set().union(*map(set, parent_sets)) - set(xi))
        table, gaps = _adjusted(all_codes, cards, weights, jx, py,
                                tuple(position[i] for i in z), float(ess))
        gaps = _labelled_gaps(gaps, {c: f"({label})" for c, label in zip(codes, labels)},
                              tuple(g.nodes[i] for i in z), [states[position[i]] for i in z])
        if gaps:
            found.append((tuple(g.nodes[i] for i in z), gaps))
        if contrast is None:
            for k, s in enumerate(states[py]):
                row[f"P({y}={s} | do({labels[0]}))"] = table[codes[0], k]
        else:
            ys = states[py][y_code]
            p1, p0 = table[codes[0], y_code], table[codes[1], y_code]
            row[f"P({y}={ys} | do({labels[0]}))"] = p1
            row[f"P({y}={ys} | do({labels[1]}))"] = p0
            row["effect"] = p1 - p0
        warn |= bool(np.isnan(table[codes]).any())
    if warn:
        warnings.warn("P(y | xs, z) is undefined for a configuration of the parents in which "
                      "a joint state of xs is never observed (positivity fails); those effects "
                      "are NaN: use ess > 0", RuntimeWarning, stacklevel=2)
    _warn_positivity("joint_ida", repr(tuple(xs)), y, found, ess)
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------
# effects over sampled graphs (structural uncertainty)
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GraphEffects:
    """The distribution of an effect over sampled DAGs (:func:`effect_over_graphs`).

    Parameters
    ----------
    effects : ndarray of shape (n_dags,)
        The effect in each DAG: ``P(y=y_value | do(x=treated)) - P(y=y_value |
        do(x=control))`` for a contrast, ``P(y=y_value | do(x=x_value))`` otherwise. The
        DAGs are the given graphs in order, or, with ``equivalence_class=True``, for each
        graph one DAG of its equivalence class per orientation of the chain component of
        ``x`` (which decides ``x``'s parents and whether ``y`` descends from ``x``; every
        orientation stands for equally many DAGs of the class; on mixed data, per
        orientation that respects the conditional-Gaussian rule, as the class's DAGs that
        are CLG networks), graph after graph. NaN for a DAG that gives no estimate (with
        ``ess=0``, a positivity gap; on continuous data, ``x`` a linear function of its
        parents in some stratum of the discrete ones, or, with ``parameter_uncertainty``, a
        stratum with no residual degrees of freedom): said in one warning, and left out of
        ``estimate`` and ``interval``.
    weights : ndarray of shape (n_dags,)
        Weight of each DAG, summing to 1 (``1 / n_graphs`` per graph, shared equally by its
        orientations).
    causes : ndarray of shape (n_dags,), dtype bool
        Whether the DAG has a directed path ``x -> ... -> y``; where it does not, ``x`` has
        no effect on ``y`` in it (contrast 0, probability ``P(y=y_value)``).
    estimate : float
        Weighted mean of ``effects`` (the model average), over the DAGs with an effect (not
        NaN), their weights renormalised to sum to 1.
    interval : tuple of float
        The central ``level`` interval: weighted quantiles ``(1 - level) / 2`` and
        ``(1 + level) / 2`` of ``effects`` (inverse of the weighted empirical CDF), over the
        same DAGs with the same weights.
    prob_causes : float
        Weight of the DAGs in which ``x`` causes ``y`` (for a contrast: ``P(effect != 0)``),
        every DAG counted: a DAG without an estimate still has (or has not) the directed
        path, which needs no estimate, and all such DAGs have it (a DAG without the path
        has the effect 0), so leaving them out would lower this probability.
    level : float
        The interval's coverage.
    positivity_fails : ndarray of shape (n_dags,), dtype bool
        Whether positivity fails for the DAG's parents of ``x`` (discrete data): a queried
        state of ``x`` is never observed with a configuration of them that the rows have,
        so the DAG's effect rests partly on the prior (with ``ess=0``: NaN), as the
        :class:`~skbn.exceptions.PositivityWarning` of the call says. All False on
        continuous data.
    """

    effects: np.ndarray
    weights: np.ndarray
    causes: np.ndarray
    estimate: float
    interval: tuple
    prob_causes: float
    level: float
    positivity_fails: np.ndarray

    def identified(self):
        """The distribution over the DAGs whose effect the data identify: those where
        positivity holds (``~positivity_fails``), their weights renormalised to sum to 1,
        ``estimate``, ``interval`` and ``prob_causes`` recomputed by the same rules.

        Returns
        -------
        GraphEffects
            Over the kept DAGs, in their order (all of them when positivity never fails).

        Raises
        ------
        ValueError
            When positivity fails in every DAG (no effect is identified).
        """
        keep = ~self.positivity_fails
        if not keep.any():
            raise ValueError("positivity fails in every DAG: no effect is identified from the data")
        weights = self.weights[keep] / self.weights[keep].sum()
        return _summarise_effects(self.effects[keep], self.causes[keep], weights, self.level,
                                  self.positivity_fails[keep])


def _weighted_quantile(values, weights, q):
    """Smallest value whose weighted empirical CDF reaches ``q`` (numpy's "inverted_cdf")."""
    order = np.argsort(values, kind="stable")
    cdf = np.cumsum(weights[order])
    cdf /= cdf[-1]
    k = min(int(np.searchsorted(cdf, q - 1e-12, side="left")), len(values) - 1)
    return float(values[order][k])


def effect_over_graphs(X, graphs, x, y, *, x_value=None, contrast=None, y_value=None,
                       level=0.9, equivalence_class=True, parameter_uncertainty=False,
                       random_state=None, ess=1.0, sample_weight=None,
                       max_dags=1000, column_types="auto") -> GraphEffects:
    """An intervention effect over sampled graphs, with an interval.

    For each DAG ``G_b`` (bootstrap resamples, order-MCMC samples, ...) the effect is
    estimated by adjusting for ``x``'s parents in ``G_b``, as :func:`ida` does for one
    parent set, except that a DAG without a directed path from ``x`` to ``y`` gives
    exactly no effect (``P(y | do(x)) = P(y)``): that is what the DAG implies. The
    distribution of the values reflects the uncertainty about the structure: its mean is
    the model-averaged effect, its quantiles an interval, and the weight of the DAGs with a
    directed path ``x -> y`` the probability that the effect is not zero.

    **Equivalence classes** (``equivalence_class=True``, the default): observational data
    cannot tell apart the DAGs of a Markov equivalence class, and a learner with a
    score-equivalent score (BDeu, BIC, ...) returns an arbitrary member; so each graph
    stands for its whole class, whose DAGs share the graph's weight equally. Only the chain
    component of ``x`` is enumerated: the components orient independently, each orientation
    of ``x``'s component stands for equally many DAGs, and it alone decides ``x``'s parents
    and whether ``y`` descends from ``x``, so the distribution is the whole class's (on
    ALARM, 63 DAGs for 20 bootstrap graphs instead of 7,964). With False each graph is
    taken as given.

    **Parameters** (``parameter_uncertainty=True``): each DAG's effect is computed from one
    draw of the parameters from their Dirichlet posterior (``P(y | x, z) ~ Dirichlet(N +
    a)`` per configuration, ``P(z) ~ Dirichlet(N_z + ess / q_z)``) instead of the posterior
    mean, so the interval also reflects the finite number of rows (with False, it reflects
    the structures only, and shrinks to a point when every graph agrees).

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_samples, n_features)
        The data the effects are estimated from.
    graphs : fitted BootstrapStructure (``keep_graphs=True``), fitted OrderMCMCStructure, or
        list of DAG edge lists
        The sampled DAGs: ``graphs_`` or ``dag_samples_`` of a fitted learner.
    x, y : hashable
        Treatment and outcome (distinct column names of ``X``).
    x_value, contrast, y_value :
        As in :func:`ida`; ``y_value`` is required with ``x_value`` (the probability of that
        outcome state is the effect) and may be omitted for a binary ``y`` in a contrast.
    level : float in (0, 1), default=0.9
        Coverage of ``interval``.
    equivalence_class : bool, default=True
        Replace each graph by the DAGs of its Markov equivalence class.
    parameter_uncertainty : bool, default=False
        Draw the parameters from their posterior, once per DAG.
    random_state : None, int or numpy RandomState, default=None
        Seed of the parameter draws (used only with ``parameter_uncertainty``).
    ess : float >= 0, default=1.0
        Dirichlet smoothing, as in :func:`ida` (must be > 0 with ``parameter_uncertainty``).
    sample_weight : array-like of shape (n_samples,), optional
        Row weights.
    max_dags : int, default=1000
        Most orientations of ``x``'s chain component enumerated (``equivalence_class=True``).
    column_types : "auto", dict or str, default="auto"
        Which columns are continuous, as the estimators' ``column_types`` (``"auto"`` with
        a fitted ``BootstrapStructure`` or ``OrderMCMCStructure``: its ``column_types_``).
        When ``x`` and ``y`` are continuous, the effect in each DAG is the Gaussian one of
        :func:`ida`: the coefficient of ``x`` in the least-squares regression of ``y`` on
        ``x`` and its parents (0 without a directed path; with discrete parents, the
        coefficients of the regressions on ``x`` and the continuous parents within their
        strata, averaged with the strata's shares), and ``parameter_uncertainty`` draws it
        from its Normal sampling distribution :math:`N(\\hat\\beta, \\hat\\sigma^2 /
        RSS_{x \\mid pa})` (per stratum, the strata's shares from
        :math:`\\mathrm{Dirichlet}(N_s)`); ``x_value``, ``contrast``, ``y_value`` and
        ``ess`` are then left unset. On mixed data each
        graph's class is that of its DAGs that are CLG networks (as in :func:`ida`): the
        orientations of ``x``'s chain component that respect the rule, each with an equal
        share of the graph's weight (each stands for equally many such DAGs).

    Returns
    -------
    GraphEffects
        The effect per DAG with its weight, the weighted mean, interval and probability
        that ``x`` causes ``y``.

    Raises
    ------
    ValueError
        If no graph is given, a learner kept no graphs, a graph is cyclic or misses ``x``
        or ``y``, a state is unknown, or a class has more than ``max_dags`` DAGs;
        or no DAG gives an estimate, or none of those in which ``x`` causes ``y`` does (the
        message names the reason, see ``effects``); for
        continuous ``x`` and ``y``, a graph with a discrete column on a (possibly) causal
        path from ``x`` to ``y`` (as in :func:`ida`).

    Warns
    -----
    PositivityWarning
        Discrete data, ``ess > 0``: in some DAGs a queried state of ``x`` is never observed
        with a configuration of its parents that the rows have, so their effects rest on
        the prior there; once per call, with the number of such DAGs and their weight
        (``positivity_fails`` marks them).
    RuntimeWarning
        Some DAGs give no estimate (NaN ``effects``: with ``ess=0`` those of the positivity
        gaps, on continuous data the reasons under ``effects``): once per call, with their
        number, weight and most frequent reason; ``estimate`` and ``interval`` are over the
        others. Continuous data: a stratum of the discrete parents of ``x`` in some DAG has
        no residual degrees of freedom (no more rows than the ``|C| + 2`` coefficients of
        its regression): once per call, naming every such stratum with its rows and share
        (its coefficient is kept, as in :func:`ida`).

    Examples
    --------
    >>> from skbn.datasets import load_network
    >>> net = load_network("asia")
    >>> rows = net.sample(2000, random_state=0)
    >>> chain = [("smoke", "lung"), ("lung", "either"), ("either", "dysp")]
    >>> out = effect_over_graphs(rows, [chain, chain, [("lung", "smoke")]], "smoke", "lung",
    ...                          contrast=("yes", "no"), y_value="yes",
    ...                          equivalence_class=False)
    >>> round(out.prob_causes, 3), float(out.effects[2])
    (0.667, 0.0)
    """
    learner = graphs  # a fitted OrderMCMCStructure / BootstrapStructure: its column_types_
    if hasattr(graphs, "dag_samples_"):
        graphs = graphs.dag_samples_
    elif hasattr(graphs, "edges_") and hasattr(graphs, "strength_matrix_"):
        if not hasattr(graphs, "graphs_"):
            raise ValueError("the BootstrapStructure kept no graphs: fit it with keep_graphs=True")
        graphs = graphs.graphs_
    graphs = [list(g) for g in graphs]
    if not graphs:
        raise ValueError("graphs is empty: give at least one DAG")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    if x == y:
        raise ValueError(f"x and y are the same node {x!r}")
    if int(max_dags) != max_dags or max_dags < 1:
        raise ValueError(f"max_dags must be a positive integer, got {max_dags!r}")
    compiled = []
    for k, edges in enumerate(graphs):
        nodes = list(dict.fromkeys([x, y] + [w for e in edges for w in e]))
        g = _compile(edges, nodes, f"graphs[{k}]")
        if equivalence_class:
            g = _compile(dag_to_cpdag(g.nodes, [(g.nodes[u], g.nodes[v]) for u, v in g.extension]))
        compiled.append(g)
    # the columns x's parents may be (in some DAG of each class), then, on mixed columns, each
    # class is that of the DAGs respecting the conditional-Gaussian rule
    first = list(dict.fromkeys([x, y] + [g.nodes[p] for g in compiled for p in
                                        sorted(g.parents[g.index[x]] | g.neighbours[g.index[x]])]))
    encoded, kinds = _encode_with_kinds(X, compiled, first, sample_weight, column_types, learner)
    dags, dag_weights, classes, read = [], [], {}, dict(kinds)
    for k, g in enumerate(compiled):
        if not equivalence_class:
            _clg_class(g, kinds, f"effect_over_graphs: graphs[{k}]")  # (refuses c -> d)
            read = _refuse_discrete_mediators(X, g, [g.index[x]], g.index[y], read, sample_weight,
                                              column_types, learner, f"effect_over_graphs: graphs[{k}]")
            dags.append(g)
            dag_weights.append(1.0)
            continue
        cpdag = (g.nodes, g.pdag())  # (labels and edges: the class)
        if cpdag not in classes:
            caller = f"effect_over_graphs: graphs[{k}]"
            h = _clg_class(g, kinds, caller)  # (refuses a class with no CLG DAG)
            read = _refuse_discrete_mediators(X, h, [h.index[x]], h.index[y], read,
                                              sample_weight, column_types, learner, caller)
            try:
                classes[cpdag] = _component_orientations(g, x, int(max_dags), kinds, caller)
            except _TooMany:
                raise ValueError(
                    f"graphs[{k}]: the chain component of x in its equivalence class (on mixed "
                    f"columns, the class's DAGs that respect the conditional-Gaussian rule) has "
                    f"more than max_dags={max_dags} orientations: raise max_dags or use "
                    f"equivalence_class=False") from None
        dags.extend(classes[cpdag])
        dag_weights.extend([1.0 / len(classes[cpdag])] * len(classes[cpdag]))
    dag_weights = np.asarray(dag_weights) / len(graphs)
    parents = {g.nodes[p] for g in dags for p in g.parents[g.index[x]]}
    columns = [c for c in first if c in (x, y) or c in parents]
    data, states, weights = encoded if columns == first else _encode_effect_columns(
        X, columns, sample_weight, column_types, learner)
    position = {c: k for k, c in enumerate(columns)}
    px, py = position[x], position[y]
    # whether y descends from x in each DAG (where it does not, x has no effect on y)
    causes = np.array([g.index[y] in possible_descendants(g.children, g.neighbours,
                                                          g.children[g.index[x]]) for g in dags])
    if data.has_continuous:
        effects, failures, exact = _gaussian_graph_effects(
            data, states, weights, dags, x, y, causes, columns, position,
            (x_value, contrast, y_value, ess),
            check_random_state(random_state) if parameter_uncertainty else None)
        _report_failures(x, effects, failures, dag_weights, causes)
        if exact:
            _warn_exact("effect_over_graphs", x, [(names, fits) for names, fits, _ in exact],
                        over=(len({k for *_, ks in exact for k in ks}), len(dags)))
        return _summarise_effects(effects, causes, dag_weights, level)
    _check_query(x_value, contrast, ess)
    if contrast is None and y_value is None:
        raise ValueError("give y_value with x_value: the effect is P(y=y_value | do(x=x_value))")
    rng = None
    if parameter_uncertainty:
        if not ess > 0:
            raise ValueError("parameter_uncertainty=True needs ess > 0 (a proper Dirichlet prior)")
        rng = check_random_state(random_state)
    values, y_code = _query_codes(x, y, states[px], states[py], x_value, contrast, y_value)
    if contrast is None:
        y_code = _state_code(states[py], y_value, f"y_value of y={y!r}")
    cache, found = {}, {}
    effects = np.empty(len(dags))
    gapped = np.zeros(len(dags), dtype=bool)
    x_labels = {k: f"{x}={states[px][k]!r}" for k in values}
    for k, g in enumerate(dags):
        z = tuple(sorted(position[g.nodes[p]] for p in g.parents[g.index[x]])) if causes[k] else (py,)
        if rng is not None:
            table, gaps = _adjusted(data.codes, data.cardinalities, weights, px, py, z,
                                    float(ess), rng)
        else:
            if z not in cache:
                cache[z] = _adjusted(data.codes, data.cardinalities, weights, px, py, z, float(ess))
            table, gaps = cache[z]
        gaps = _labelled_gaps(gaps, x_labels, tuple(columns[c] for c in z), [states[c] for c in z])
        if gaps:
            gapped[k] = True
            found.setdefault(tuple(columns[c] for c in z), gaps)
        if contrast is None:
            effects[k] = table[values[0], y_code]
        else:
            effects[k] = table[values[0], y_code] - table[values[1], y_code]
    _report_failures(x, effects, {
        f"with ess=0, a queried state of {x!r} is never observed with a configuration of "
        f"its parents that the rows have (positivity fails; positivity_fails marks them); "
        f"use ess > 0": list(np.flatnonzero(np.isnan(effects)))}, dag_weights, causes)
    _warn_positivity("effect_over_graphs", repr(x), y, list(found.items()), ess,
                     over=(int(gapped.sum()), len(dags), float(dag_weights[gapped].sum())))
    return _summarise_effects(effects, causes, dag_weights, level, gapped)


def _component_orientations(h, x, max_dags, kinds=None, caller=""):
    """One DAG of the class of the CPDAG ``h`` per orientation of the chain component of
    ``x`` (the other components as in one consistent extension); with ``kinds`` (mixed
    columns, :func:`_column_kinds`), per orientation that respects the conditional-Gaussian
    rule.

    The chain components of a CPDAG orient independently, and every orientation of one
    component appears in equally many DAGs of the class, so these DAGs with equal weights
    give the class's distribution of everything that depends only on the orientation of
    ``x``'s component. That includes ``x``'s parents, and whether ``y`` descends from ``x``:
    an undirected edge ``c - d`` of another component met after a directed ``b -> c``
    implies ``b -> d`` (the CPDAG is closed under Meek's rules, and has no semi-directed
    cycle), so a directed path out of ``x`` never depends on how another component is
    oriented. Fewer DAGs than the whole class (one component enumerated, not all).

    The class's DAGs are the products of one orientation per component (Andersson, Madigan
    & Perlman 1997), and the rule restricts each edge, hence each component, on its own: the
    DAGs of the class that respect it are the products of the components' orientations that
    respect it. So the orientations of ``x``'s component that respect the rule (the DAGs of
    the component, an undirected chordal graph, restricted by :func:`_clg_class`) again
    stand for equally many DAGs of the restricted class (when every component has one:
    the caller refuses a class that has none). The other components keep the extension's
    orientation, which decides neither ``x``'s parents nor its descendants.
    """
    xi = h.index[x]
    component = next(c for c in components(range(h.n), [set(ns) for ns in h.neighbours]) if xi in c)
    inside = set(component)
    base = [(h.nodes[u], h.nodes[v]) for u, v in h.extension if not (u in inside and v in inside)]
    if len(component) == 1:
        return [_compile(base, h.nodes)]
    labels = [h.nodes[i] for i in component]
    edges = sorted({tuple(sorted((u, v))) for u in component for v in h.neighbours[u]})
    sub = _compile(PDAG(tuple(labels), (), tuple((h.nodes[u], h.nodes[v]) for u, v in edges)))
    sub = _clg_class(sub, kinds or {}, caller)
    return [_compile(base + [(sub.nodes[u], sub.nodes[v]) for u, v in orientation], h.nodes)
            for orientation in _extension_ids(sub, max_dags)]


def _report_failures(x, effects, failures, dag_weights, causes):
    """Say which DAGs of :func:`effect_over_graphs` give no estimate (NaN ``effects``):
    ``failures`` maps a reason to the indices of its DAGs. One warning with their number,
    weight and most frequent reason, as one failed DAG must not take the others with it; a
    ValueError with the reason when no DAG gives an estimate (nothing to summarise), or
    when every DAG in which ``x`` causes ``y`` (``causes``) fails: the others hold the
    effect of no path by construction, so their summary would be a confident "no effect"
    that the failed DAGs, with their ``prob_causes``, contradict."""
    failed = np.isnan(effects)
    if not failed.any():
        return
    reasons = sorted(((len(ks), reason) for reason, ks in failures.items() if ks),
                     key=lambda item: -item[0])
    more = f" (and {len(reasons) - 1} more reasons)" if len(reasons) > 1 else ""
    if failed.all():
        raise ValueError(f"effect_over_graphs: no sampled DAG gives an estimate of the effect "
                         f"of {x!r}: {reasons[0][1]}{more}")
    if causes.any() and failed[causes].all():
        raise ValueError(f"effect_over_graphs: no sampled DAG in which {x!r} causes the outcome "
                         f"gives an estimate of its effect (the other DAGs, without a directed "
                         f"path, would only say it has none): {reasons[0][1]}{more}")
    n, kept = int(failed.sum()), int((~failed).sum())
    warn_user(RuntimeWarning(
        f"effect_over_graphs: {n} of {len(effects)} DAGs (weight {dag_weights[failed].sum():.3g}) "
        f"{'gives' if n == 1 else 'give'} no estimate of the effect of {x!r} "
        f"({reasons[0][0]} of them: {reasons[0][1]})"
        f"{more}. Their effects are NaN; estimate and interval are the weighted mean and "
        f"quantiles of the effects of the other {kept} DAGs (weights renormalised); "
        f"prob_causes counts every DAG"))


def _summarise_effects(effects, causes, dag_weights, level, positivity_fails=None):
    """The :class:`GraphEffects` of per-DAG effects and their weights. ``estimate`` and
    ``interval`` are the weighted mean and quantiles of the DAGs with an effect (not NaN:
    :func:`_report_failures`), their weights renormalised; ``prob_causes`` counts every DAG
    (whether ``y`` descends from ``x`` needs no estimate)."""
    valid = ~np.isnan(effects)
    shares = dag_weights if valid.all() else dag_weights[valid] / dag_weights[valid].sum()
    interval = (_weighted_quantile(effects[valid], shares, (1 - level) / 2),
                _weighted_quantile(effects[valid], shares, (1 + level) / 2))
    if positivity_fails is None:
        positivity_fails = np.zeros(len(effects), dtype=bool)
    return GraphEffects(effects=effects, weights=dag_weights, causes=causes,
                        estimate=float(np.dot(shares, effects[valid])), interval=interval,
                        prob_causes=float(np.dot(dag_weights, causes)), level=float(level),
                        positivity_fails=positivity_fails)


def _gaussian_graph_effects(data, states, weights, dags, x, y, causes, columns, position, query,
                            rng):
    r"""Per-DAG effects of :func:`effect_over_graphs` on continuous ``x`` and ``y``: in each DAG
    where ``y`` descends from ``x`` (``causes``), the coefficient of ``x`` in the regression of
    ``y`` on ``x`` and its parents, averaged over the strata of its discrete parents (the total
    effect, as :func:`ida`: :func:`_stratified_effect`), else 0. With ``rng`` (parameter
    uncertainty) each stratum's coefficient is drawn from
    :math:`N(\hat\beta_s, \hat\sigma_s^2 / RSS_{x \mid C, s})`, its sampling distribution:
    :math:`\hat\sigma_s^2 = RSS_s / (N_s - |C| - 2)` the residual variance of ``y`` and
    :math:`RSS_{x \mid C, s}` that of ``x`` on its continuous parents ``C`` in the stratum
    (the ``x`` entry of the inverse scatter matrix of the regressors); with several strata
    their shares are drawn from :math:`\mathrm{Dirichlet}(N_s)` (the posterior of the
    strata's probabilities under an improper uniform prior on the log scale), independently.

    Returns ``(effects, failures, exact)``: a DAG whose effect cannot be estimated has NaN,
    and ``failures`` maps the reason (text) to the indices of such DAGs: ``x`` is a linear
    function of its parents in some stratum (:func:`_free_variation`), or, with ``rng``, a
    stratum's regression has no residual degrees of freedom, so no residual variance to
    draw from (:attr:`_Strata.exact`; none is made up). Without ``rng`` such a stratum keeps
    its coefficient, and ``exact`` lists ``(parents, strata, DAG indices)`` per parent set
    with one (for :func:`_warn_exact`)."""
    px, py = position[x], position[y]
    _check_gaussian(data, columns, "effect_over_graphs", (px, py), query,
                    "x_value, contrast, y_value and ess")
    effects, cache, failures, exact = np.zeros(len(dags)), {}, {}, {}
    for k, g in enumerate(dags):
        if not causes[k]:
            continue
        parents = [position[g.nodes[i]] for i in sorted(g.parents[g.index[x]])]
        fits = _stratified_effect(data, weights, px, py, parents, columns, states, cache)
        names = [columns[i] for i in parents]
        reason = None
        if fits.determined.any():
            where = ""
            if fits.labels[0]:
                label, share, n = fits.first_determined()
                more = f" and {n - 1} more strata" if n > 1 else ""
                where = (f" within the rows with {label} ({share:.1%} of the rows{more}: a "
                         f"stratum of its discrete parents with too few rows, or in which "
                         f"{x!r} does not vary given its continuous parents)")
            reason = (f"{x!r} is a linear function of its parents {names!r}{where} in the "
                      f"data, so its effect adjusted for them is not defined; drop a column "
                      f"computed from others{' or merge rare states of a discrete parent' if where else ''}")
        elif fits.exact.any() and rng is not None:
            label, rows, _ = fits.exact_strata()[0]
            where = f" within the rows with {label}" if label else ""
            reason = (f"parameter_uncertainty draws the coefficient of {x!r} from its sampling "
                      f"distribution, and the regression on {x!r} and its parents {names!r}"
                      f"{where} has no residual degrees of freedom ({rows:g} rows for "
                      f"{fits.n_coefficients} coefficients), so no "
                      f"residual variance to draw from; merge rare "
                      f"states of a discrete parent")
        elif fits.exact.any():
            exact.setdefault(tuple(names), (fits, []))[1].append(k)
        if reason is not None:
            failures.setdefault(reason, []).append(k)
            effects[k] = np.nan
        elif rng is None:
            effects[k] = fits.effect
        else:
            coef = rng.normal(fits.coef, np.sqrt(fits.rss / fits.dof / fits.rss_x))
            effects[k] = coef[0] if len(coef) == 1 else float(np.dot(_dirichlet(rng, fits.weight), coef))
    return effects, failures, [(names, fits, ks) for names, (fits, ks) in exact.items()]
