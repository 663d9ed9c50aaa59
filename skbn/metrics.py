"""Structure-learning metrics: structural Hamming distance, skeleton and arrowhead scores.

Every function accepts a graph either as an iterable of ``(parent, child)`` pairs (a DAG's
edges, all directed) or as a :class:`skbn.graph.PDAG` (directed and undirected edges). Nodes
are hashable labels; isolated nodes never change a metric.
"""

from __future__ import annotations

import math
from numbers import Real

from .graph import PDAG, dag_to_cpdag, pdag_to_dag

__all__ = ["structural_hamming_distance", "skeleton_scores", "arrowhead_scores"]

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
