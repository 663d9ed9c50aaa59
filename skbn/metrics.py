"""Structure-learning metrics: structural Hamming and intervention distances, skeleton and
arrowhead scores.

Every function accepts a graph either as an iterable of ``(parent, child)`` pairs (a DAG's
edges, all directed) or as a :class:`skbn.graph.PDAG` (directed and undirected edges). Nodes
are hashable labels; isolated nodes never change a metric.
"""

from __future__ import annotations

import itertools
import math
from numbers import Integral, Real

from ._dag import ancestor_ids, components
from .graph import PDAG, dag_to_cpdag, pdag_to_dag

__all__ = ["structural_hamming_distance", "skeleton_scores", "arrowhead_scores",
           "structural_intervention_distance"]

_UNDIRECTED = "-"


def _parse(graph, name):
    """Return (nodes in first-seen order, {frozenset pair: (u, v) or "-"})."""
    marks = {}
    if isinstance(graph, PDAG):
        for u, v in graph.directed:
            marks[frozenset((u, v))] = (u, v)
        for u, v in graph.undirected:
            marks[frozenset((u, v))] = _UNDIRECTED
        return list(graph.nodes), marks
    if isinstance(graph, (str, bytes)):
        raise TypeError(f"{name} must be an iterable of (parent, child) pairs or a PDAG")
    nodes, seen = [], set()
    for edge in graph:
        try:
            u, v = edge
        except (TypeError, ValueError):
            raise ValueError(f"{name}: edge {edge!r} is not a (parent, child) pair") from None
        if u == v:
            raise ValueError(f"{name}: self loop on node {u!r}")
        key = frozenset((u, v))
        if key in marks and marks[key] != (u, v):
            raise ValueError(f"{name}: both {u!r} -> {v!r} and {v!r} -> {u!r} are given")
        marks[key] = (u, v)
        for w in (u, v):
            if w not in seen:
                seen.add(w)
                nodes.append(w)
    return nodes, marks


def _check_nodes(nodes, node_lists, names):
    known = set(nodes)
    for seen, name in zip(node_lists, names):
        unknown = [w for w in seen if w not in known]
        if unknown:
            raise ValueError(f"{name} uses nodes not in `nodes`: {unknown!r}")


def _to_cpdag_marks(graph, nodes):
    if isinstance(graph, PDAG):
        try:
            cpdag = dag_to_cpdag(graph.nodes, pdag_to_dag(graph))
        except ValueError:  # no DAG in its class (finite-sample PC output): compare as given
            cpdag = graph
    else:
        cpdag = dag_to_cpdag(nodes, graph)
    return _parse(cpdag, "cpdag")[1]


def structural_hamming_distance(true_edges, learned_edges, nodes=None, *, cpdag=False) -> int:
    """Structural Hamming distance (SHD) between two graphs.

    Counts the unordered pairs of nodes ``{u, v}`` whose edge differs between the graphs::

        SHD = #{ {u, v} : mark_true(u, v) != mark_learned(u, v) }

    where the mark of a pair is *none*, ``u -> v``, ``v -> u`` or ``u - v``. So a missing edge,
    an extra edge, a reversed edge, and a directed edge against an undirected one each count
    exactly 1 (Tsamardinos et al., 2006, count reversals as 1 too; some authors count 2).

    Parameters
    ----------
    true_edges, learned_edges : iterable of (parent, child) pairs or PDAG
        DAG edge lists, or partially directed graphs.
    nodes : sequence of hashable, optional
        All nodes. If given, every edge must use these nodes (checked). Not needed otherwise.
    cpdag : bool, default=False
        If True, each graph is first replaced by the CPDAG (completed PDAG) of its Markov
        equivalence class: a DAG edge list by :func:`skbn.graph.dag_to_cpdag`, a PDAG by the
        CPDAG of one of its consistent extensions (the identity on a CPDAG), or taken as given
        when it has none (as PC can return on finite samples). Then the SHD of two
        Markov-equivalent DAGs is 0. Edge lists must be acyclic in that case.

    Returns
    -------
    int
        The number of node pairs whose marks differ.

    See Also
    --------
    skeleton_scores, arrowhead_scores, skbn.graph.dag_to_cpdag

    References
    ----------
    I. Tsamardinos, L. E. Brown and C. F. Aliferis, "The max-min hill-climbing Bayesian
    network structure learning algorithm", Machine Learning 65, 2006.

    Examples
    --------
    >>> structural_hamming_distance([("a", "b"), ("b", "c")], [("b", "a")])
    2
    >>> structural_hamming_distance([("a", "b")], [("b", "a")], cpdag=True)
    0
    """
    true_nodes, true_marks = _parse(true_edges, "true_edges")
    learned_nodes, learned_marks = _parse(learned_edges, "learned_edges")
    if nodes is not None:
        nodes = list(nodes)
        _check_nodes(nodes, (true_nodes, learned_nodes), ("true_edges", "learned_edges"))
    else:
        nodes = list(dict.fromkeys(true_nodes + learned_nodes))
    if cpdag:
        true_marks = _to_cpdag_marks(true_edges, nodes)
        learned_marks = _to_cpdag_marks(learned_edges, nodes)
    pairs = set(true_marks) | set(learned_marks)
    return sum(true_marks.get(p) != learned_marks.get(p) for p in pairs)


def _check_zero_division(zero_division):
    if not isinstance(zero_division, Real) or not (
            math.isnan(zero_division) or 0.0 <= zero_division <= 1.0):
        raise ValueError(f"zero_division must be a number in [0, 1] or nan, "
                         f"got {zero_division!r}")
    return float(zero_division)


def _scores(true, learned, items, zero_division):
    """Precision/recall/F1 of ``items(marks)`` (a set) of ``learned`` against ``true``."""
    zero_division = _check_zero_division(zero_division)
    true_items = items(_parse(true, "true")[1])
    learned_items = items(_parse(learned, "learned")[1])
    tp = len(true_items & learned_items)
    n_pred, n_true = len(learned_items), len(true_items)
    precision = tp / n_pred if n_pred else zero_division
    recall = tp / n_true if n_true else zero_division
    f1 = 2 * tp / (n_pred + n_true) if n_pred + n_true else zero_division
    return {"precision": precision, "recall": recall, "f1": f1}


def skeleton_scores(true, learned, *, zero_division=1.0) -> dict:
    """Precision, recall and F1 of the learned adjacencies (orientation ignored).

    An unordered pair ``{u, v}`` adjacent in ``learned`` is a true positive if it is adjacent
    in ``true``. ``precision = TP / #learned adjacencies``, ``recall = TP / #true
    adjacencies``, ``f1 = 2 TP / (#learned + #true)``.

    Parameters
    ----------
    true, learned : iterable of (parent, child) pairs or PDAG
        The true and the learned graph.
    zero_division : float in [0, 1] or nan, default=1.0
        Value of a ratio whose denominator is 0: precision when nothing is learned, recall
        when the truth is empty, F1 when both are empty. The default 1.0 reads "no false
        claims" / "nothing to find"; use 0.0 for scikit-learn's convention.

    Returns
    -------
    dict
        ``{"precision": float, "recall": float, "f1": float}``.

    Examples
    --------
    >>> skeleton_scores([("a", "b"), ("b", "c")], [("b", "a"), ("a", "c")])
    {'precision': 0.5, 'recall': 0.5, 'f1': 0.5}
    """
    return _scores(true, learned, set, zero_division)


def arrowhead_scores(true, learned, *, zero_division=1.0) -> dict:
    """Precision, recall and F1 of the learned arrowheads (directed edges).

    An arrowhead ``a -> b`` in ``learned`` is a true positive iff ``true`` has ``a -> b``.
    Undirected edges contribute no arrowheads, in either graph (so compare a learned CPDAG
    with the true CPDAG, ``dag_to_cpdag(...)``, to score only what is identifiable).
    ``precision = TP / #learned arrowheads``, ``recall = TP / #true arrowheads``,
    ``f1 = 2 TP / (#learned + #true)``.

    Parameters
    ----------
    true, learned : iterable of (parent, child) pairs or PDAG
        The true and the learned graph.
    zero_division : float in [0, 1] or nan, default=1.0
        Value of a ratio whose denominator is 0 (see :func:`skeleton_scores`).

    Returns
    -------
    dict
        ``{"precision": float, "recall": float, "f1": float}``.

    Examples
    --------
    >>> arrowhead_scores([("a", "b"), ("c", "b")], [("a", "b"), ("b", "c")])
    {'precision': 0.5, 'recall': 0.5, 'f1': 0.5}
    """
    return _scores(true, learned, _arrowheads, zero_division)


def _arrowheads(marks):
    return {m for m in marks.values() if m != _UNDIRECTED}


def _chain_components(h):
    """Node names of every connected component of the undirected part of the compiled
    estimate ``h`` (singletons included), in node order."""
    return [[h.nodes[u] for u in component]
            for component in components(range(h.n), [set(ns) for ns in h.neighbours])]


def _component_orientations(h, component):
    """The parents each node of a chain component takes from the component, in every
    orientation of its undirected edges without a directed cycle or a v-structure (the
    component's share of the DAGs of the class): a list of ``{node: frozenset}``.

    Every acyclic orientation is the order of some permutation of the component (the
    neighbours before a node are its parents); it has no v-structure when each node's
    parents are pairwise adjacent. The component has at most ``max_component_size`` nodes,
    so its permutations are enumerated and the distinct orientations kept.
    """
    ids = [h.index[v] for v in component]
    inside = set(ids)
    neighbours = {u: h.neighbours[u] & inside for u in ids}
    seen = {}
    for order in itertools.permutations(ids):
        before, parents = set(), []
        for u in order:
            chosen = neighbours[u] & before
            if any(b not in neighbours[a] for a in chosen for b in chosen if a < b):
                break  # a v-structure at u
            parents.append((u, frozenset(chosen)))
            before.add(u)
        else:
            key = frozenset(parents)
            seen.setdefault(key, parents)
    return [{h.nodes[u]: frozenset(h.nodes[k] for k in chosen) for u, chosen in parents}
            for parents in seen.values()]


def structural_intervention_distance(true_dag, estimated, nodes=None, *, max_component_size=8):
    """Structural intervention distance (SID) of an estimated graph from the true DAG.

    Peters & Bühlmann (2015) count the ordered pairs ``(i, j)``, ``i != j``, whose
    interventional distribution ``p(x_j | do(x_i))`` is inferred wrongly when the estimated
    graph ``H`` is used to adjust, i.e. when ``pa_H(i)`` is not a valid adjustment set for
    ``(i, j)`` in the true DAG ``G``::

        SID(G, H) = #{(i, j), i != j :
                      j in pa_H(i) and j in De_G(i)            (H says "no effect": wrong)
                   or j not in pa_H(i) and pa_H(i) is not an adjustment set for (i, j) in G}

    Validity is the adjustment criterion of :func:`skbn.causal.is_adjustment_set`. The SID
    is not symmetric; ``SID(G, G) = 0``, and a supergraph of ``G`` (extra edges, same
    orientation) can have SID 0 while every missing or reversed edge costs interventions.

    For a CPDAG estimate the result is the smallest and the largest SID of the DAGs of its
    class, as in the SID R package (``sidLowerBound``, ``sidUpperBound``): the DAGs of the
    class orient each chain component (connected component of the undirected edges)
    independently, so every component's orientations without a directed cycle or a
    v-structure are enumerated, each node's wrong pairs summed over the component for each,
    and the minima and maxima over the components added. A component of more than
    ``max_component_size`` nodes (8, the R package's limit, by default) is not enumerated:
    there each node's minimum and maximum over its local parent sets (those of IDA) are
    added, which bound the class's SIDs but may be reached by no DAG.

    Parameters
    ----------
    true_dag : iterable of (parent, child) pairs, or PDAG without undirected edges
        The true DAG ``G``.
    estimated : iterable of (parent, child) pairs, or PDAG
        The estimate ``H``: the edges of a DAG, or a CPDAG (a DAG given as a PDAG is a
        class of one DAG).
    nodes : sequence of hashable, optional
        Every node (isolated nodes of both graphs add no wrong pair, so this only checks
        the graphs' nodes). Default: the nodes of both graphs.
    max_component_size : int, default=8
        Largest chain component of a CPDAG estimate whose DAGs are enumerated for the exact
        bounds (a complete component of ``k`` nodes has ``k!`` of them).

    Returns
    -------
    int or tuple (lower, upper)
        An ``int`` when ``estimated`` is an edge list; ``(lower, upper)`` ints when it is a
        PDAG (``lower == upper`` for a fully directed one).

    Raises
    ------
    ValueError
        If ``true_dag`` is not a DAG, an edge uses a node not in ``nodes``, or the PDAG is
        not a CPDAG (a PDAG without consistent extension, or oriented beyond its class).

    References
    ----------
    J. Peters and P. Bühlmann, "Structural intervention distance for evaluating causal
    graphs", Neural Computation 27(3), 2015.

    Examples
    --------
    >>> truth = [("x1", "x2"), ("x2", "x3")]
    >>> structural_intervention_distance(truth, truth)
    0
    >>> structural_intervention_distance(truth, [("x1", "x2"), ("x2", "x3"), ("x1", "x3")])
    0
    >>> structural_intervention_distance(truth, [("x2", "x1"), ("x2", "x3")])
    3
    """
    from .causal import (  # causal imports graph, not metrics
        _check_cpdag_for_local,
        _compile,
        _is_valid,
        _parent_sets,
    )

    if isinstance(max_component_size, bool) or not isinstance(max_component_size, Integral) \
            or max_component_size < 1:
        raise ValueError(f"max_component_size must be an integer >= 1, got {max_component_size!r}")

    if isinstance(true_dag, PDAG):
        if true_dag.undirected:
            raise ValueError("true_dag must be a DAG; it has undirected edges")
        true_nodes, true_edges = list(true_dag.nodes), list(true_dag.directed)
    else:
        true_nodes, marks = _parse(true_dag, "true_dag")
        true_edges = list(marks.values())
    if isinstance(estimated, PDAG):
        est_nodes = list(estimated.nodes)
    else:
        est_nodes, est_marks = _parse(estimated, "estimated")
        estimated = list(est_marks.values())
    if nodes is not None:
        nodes = list(nodes)
        _check_nodes(nodes, (true_nodes, est_nodes), ("true_dag", "estimated"))
    else:
        nodes = list(dict.fromkeys(true_nodes + est_nodes))
    g = _compile(true_edges, nodes, "true_dag")
    if isinstance(estimated, PDAG):
        missing = [v for v in nodes if v not in estimated._index]
        h = _compile(PDAG(tuple(estimated.nodes) + tuple(missing), estimated.directed,
                          estimated.undirected), name="estimated")
    else:
        h = _compile(estimated, nodes, "estimated")
    descendants = [ancestor_ids(g.children, [i]) - {i} for i in range(g.n)]  # children: descendants

    def wrong_pairs(i, parent_names):
        """Number of ``j`` whose effect ``p(x_j | do(x_i))`` adjusting for these parents is wrong."""
        z = {g.index[name] for name in parent_names}
        wrong = 0
        for j in range(g.n):
            if j != i:
                wrong += (j in descendants[i]) if j in z else not _is_valid(g, {i}, {j}, z)
        return wrong

    try:
        _check_cpdag_for_local(h)
    except ValueError:
        raise ValueError("estimated must be a DAG or a CPDAG (a completed PDAG); this PDAG "
                         "is oriented beyond or short of its CPDAG") from None
    counts = {}  # node -> {frozenset of parent names: wrong pairs}
    for v in nodes:
        parent_sets = _parent_sets(h, h.index[v], "local", 1)
        counts[v] = {frozenset(h.nodes[k] for k in ids): wrong_pairs(g.index[v], [h.nodes[k] for k in ids])
                     for ids, _ in parent_sets}
    lower = upper = 0
    for component in _chain_components(h):
        if len(component) == 1 or len(component) > max_component_size:
            # (a larger component: every node's extremes on its own, as the SID package does)
            lower += sum(min(counts[v].values()) for v in component)
            upper += sum(max(counts[v].values()) for v in component)
            continue
        directed = {v: frozenset(h.nodes[k] for k in h.parents[h.index[v]]) for v in component}
        totals = [sum(counts[v][directed[v] | oriented[v]] for v in component)
                  for oriented in _component_orientations(h, component)]
        lower += min(totals)
        upper += max(totals)
    if isinstance(estimated, PDAG):
        return lower, upper
    return lower
