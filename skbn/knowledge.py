"""Background knowledge: required and forbidden edges, tiers, an in-degree bound, a start graph.

Every structure learner takes the same vocabulary -- ``white_list``, ``black_list``,
``tiers``, ``max_indegree`` and, where a start graph means something, ``start`` -- and
turns it into one :class:`BackgroundKnowledge` with :func:`parse_knowledge` at the top of
its search. The learner then reads only the matrices below, so a constraint means the
same thing everywhere and every contradiction is refused by the same code, with a message
naming the parameter at fault.

Semantics (bnlearn's, see ``?whitelist`` and ``tiers2blacklist``):

* ``white_list``: ``(parent, child)`` pairs that must be edges of the DAG. Listing both
  ``(a, b)`` and ``(b, a)`` requires the *adjacency* ``a - b`` with the direction left to
  the learner: PC never tests the pair and keeps it undirected unless its orientation
  rules direct it; score-based learners keep ``a`` and ``b`` adjacent in either direction
  (the edge may be reversed, never removed).
* ``black_list``: ``(parent, child)`` pairs that must not be edges; both directions
  listed forbid the adjacency.
* ``tiers``: a list of lists of columns; no edge may go from a later tier into an earlier
  one (edges within a tier and forward across tiers are allowed). Columns in no tier are
  unconstrained.
* ``max_indegree``: the largest number of parents of any node.
* ``start``: a DAG to start a local search from; the required edges are added to it.
"""

import functools
from dataclasses import dataclass, replace
from numbers import Integral

import numpy as np
import pandas as pd

from skbn._dag import knowledge_directions
from skbn.graph import _check_dag, meek_orient

__all__ = ["EDGE_LIST_TYPES", "KNOWLEDGE_PARAMETERS", "BackgroundKnowledge", "parse_knowledge"]

#: What ``white_list``, ``black_list`` and ``start`` accept, in every learner: a list or
#: tuple of ``(parent, child)`` pairs, a numpy array of shape ``(n_edges, 2)``, or a pandas
#: DataFrame of two columns (parent, child), one edge per row.
EDGE_LIST_TYPES = (list, tuple, np.ndarray, pd.DataFrame)

#: The knowledge parameters a learner may honour (it declares which, see
#: ``docs/architecture.md``), in :func:`parse_knowledge`'s argument order.
KNOWLEDGE_PARAMETERS = ("white_list", "black_list", "tiers", "max_indegree", "start")


@dataclass(frozen=True, eq=False)
class BackgroundKnowledge:
    """Parsed background knowledge over ``p`` variables (positions in column order).

    Build it with :func:`parse_knowledge`; the arrays are read-only.

    Parameters
    ----------
    required : ndarray of shape (p, p), bool
        ``required[i, j]``: the edge ``i -> j`` must be in the DAG. When both
        ``required[i, j]`` and ``required[j, i]`` hold, the adjacency ``i - j`` is required
        and its direction is free (see :attr:`required_undirected`).
    forbidden : ndarray of shape (p, p), bool
        ``forbidden[i, j]``: the edge ``i -> j`` is never in the DAG (black list and tiers;
        the diagonal is True).
    max_indegree : int
        Largest number of parents of any node (``p - 1`` when none was given).
    start : ndarray of shape (p, p), bool, or None, default=None
        Start DAG with the required edges added (two-way pairs oriented as in
        :meth:`initial_graph`), or None when no start graph was given.
    names : tuple, default=()
        Column names, for messages.
    """

    required: np.ndarray
    forbidden: np.ndarray
    max_indegree: int
    start: np.ndarray | None = None
    names: tuple = ()

    @property
    def n_variables(self):
        """Number ``p`` of variables (columns)."""
        return self.required.shape[0]

    @property
    def forbidden_adjacency(self):
        """``(p, p)`` bool: no edge either way between ``i`` and ``j`` (PC removes the pair
        without a test)."""
        return self.forbidden & self.forbidden.T

    @property
    def required_adjacency(self):
        """``(p, p)`` bool: ``i`` and ``j`` must be adjacent (PC never tests the pair)."""
        return self.required | self.required.T

    @property
    def required_directed(self):
        """``(p, p)`` bool: the required edges whose direction is given (one-way pairs)."""
        return self.required & ~self.required.T

    @property
    def required_undirected(self):
        """``(p, p)`` bool, symmetric: required adjacencies of free direction (two-way pairs)."""
        return self.required & self.required.T

    @functools.cached_property
    def constrains_edges(self):
        """Whether some edge is required or forbidden, beyond the self loops (a search
        without such knowledge skips reading it edge by edge)."""
        return bool(self.required.any()) or int(self.forbidden.sum()) > int(self.forbidden.trace())

    @property
    def is_empty(self):
        """True when nothing is required or forbidden, beyond self loops, and no bound binds."""
        p = self.n_variables
        return (not self.required.any() and np.array_equal(self.forbidden, np.eye(p, dtype=bool))
                and self.max_indegree >= p - 1 and self.start is None)

    def allowed_parents(self, child):
        """Positions of the variables that may be parents of ``child``.

        Parameters
        ----------
        child : int
            Position of the child variable.

        Returns
        -------
        ndarray of int64
            Ascending positions ``i`` whose edge ``i -> child`` is not forbidden.
        """
        return np.flatnonzero(~self.forbidden[:, child])

    def required_parents(self, child):
        """Positions of the parents ``child`` must have.

        Parameters
        ----------
        child : int
            Position of the child variable.

        Returns
        -------
        ndarray of int64
            Ascending positions ``i`` of the one-way required edges ``i -> child`` (two-way
            pairs, of free direction, are not included).
        """
        return np.flatnonzero(self.required_directed[:, child])

    def initial_graph(self):
        """Start DAG of a local search.

        :attr:`start` if given, else the required edges with each two-way pair oriented
        along the topological order of the one-way required edges (ties by column
        position), which keeps it acyclic.

        Returns
        -------
        ndarray of shape (p, p), bool
            Adjacency matrix of the start DAG (a new array): ``[i, j]`` is the edge ``i -> j``.
        """
        if self.start is not None:
            return self.start.copy()
        return _orient_two_way(self.required_directed, self.required_undirected, self.names)

    def with_forbidden_adjacencies(self, pairs):
        """A copy that also forbids the adjacencies in ``pairs``, except the required ones.

        This is how a hybrid learner (e.g. MMHC) restricts its search space.

        Parameters
        ----------
        pairs : ndarray of shape (p, p), bool
            Adjacencies to forbid; symmetrised (``[i, j]`` forbids both ``i -> j`` and
            ``j -> i``).

        Returns
        -------
        BackgroundKnowledge
            The same knowledge with the extra forbidden edges.
        """
        extra = (pairs | pairs.T) & ~self.required_adjacency
        return replace(self, forbidden=_frozen(self.forbidden | extra))

    def violations(self, adjacency):
        """Messages for every way the DAG ``adjacency`` breaks the knowledge.

        Used by tests and by learners that must check their result.

        Parameters
        ----------
        adjacency : array-like of shape (p, p), bool
            Adjacency matrix of a DAG: ``[i, j]`` is the edge ``i -> j``.

        Returns
        -------
        list of str
            One message per missing required edge or adjacency, forbidden edge present and
            node with more than ``max_indegree`` parents; empty when the DAG respects the
            knowledge.
        """
        names = self.names or tuple(range(self.n_variables))
        adjacency = np.asarray(adjacency, dtype=bool)
        out = []
        for i, j in np.argwhere(self.required_directed & ~adjacency):
            out.append(f"required edge {names[i]!r} -> {names[j]!r} is missing")
        for i, j in np.argwhere(np.triu(self.required_undirected & ~(adjacency | adjacency.T))):
            out.append(f"required adjacency {names[i]!r} - {names[j]!r} is missing")
        for i, j in np.argwhere(self.forbidden & adjacency):
            out.append(f"forbidden edge {names[i]!r} -> {names[j]!r} is present")
        indegree = adjacency.sum(axis=0)
        for j in np.flatnonzero(indegree > self.max_indegree):
            out.append(f"{names[j]!r} has {int(indegree[j])} parents, more than "
                       f"max_indegree={self.max_indegree}")
        return out


def parse_knowledge(names, *, white_list=(), black_list=(), tiers=None, max_indegree=None, start=None,
                    continuous=None):
    """Parse and check background knowledge over the columns ``names``.

    Labels are column names, or integer positions when no name matches (arrays).

    Parameters
    ----------
    names : sequence
        Column names, in column order.
    white_list : list, tuple or ndarray of (parent, child) pairs, or DataFrame, default=()
        Required edges; both directions of a pair = a required adjacency of free direction.
        An array has shape ``(n_edges, 2)``; a DataFrame has two columns, parent then
        child, one edge per row (:data:`EDGE_LIST_TYPES`).
    black_list : list, tuple or ndarray of (parent, child) pairs, or DataFrame, default=()
        Forbidden edges; both directions = a forbidden adjacency. Same types as
        ``white_list``.
    tiers : sequence of sequences of columns or None, default=None
        No edge from a column of a later tier into a column of an earlier tier.
    max_indegree : int or None, default=None
        Largest number of parents (None: ``p - 1``).
    start : list, tuple or ndarray of (parent, child) pairs, DataFrame or None, default=None
        Start DAG of a local search (same types as ``white_list``).
    continuous : bool ndarray of shape (p,) or None, default=None
        Which columns are continuous. In a network with discrete and continuous nodes (a
        conditional linear Gaussian network) a discrete node never has a continuous parent
        (bnlearn's rule, Lauritzen & Wermuth 1989): every edge continuous -> discrete is
        forbidden, with the user's knowledge. A pair listed both ways in ``white_list``
        becomes the one allowed direction; a required or start edge that breaks the rule is
        refused, naming it.

    Returns
    -------
    BackgroundKnowledge
        The required and forbidden edge matrices, in-degree bound and start graph over the
        positions of ``names``.

    Raises
    ------
    ValueError
        Naming the parameter: unknown column, self loop, malformed pair, a column in two
        tiers, a required edge that is forbidden (by ``black_list`` or ``tiers``), a cycle
        of one-way required edges, more required parents than ``max_indegree``, a start
        graph that is cyclic or breaks ``black_list`` / ``tiers`` / ``max_indegree``.

    Examples
    --------
    >>> from skbn.knowledge import parse_knowledge
    >>> k = parse_knowledge(["a", "b", "c"], white_list=[("a", "b")], tiers=[["a"], ["b", "c"]])
    >>> k.forbidden.astype(int)
    array([[1, 0, 0],
           [1, 1, 0],
           [1, 0, 1]])
    >>> k.allowed_parents(2).tolist()
    [0, 1]
    """
    names = tuple(names)
    if (len(names) <= _SHARED_COLUMNS and tiers is None and max_indegree is None and start is None
            and _no_edges(white_list) and _no_edges(black_list)
            and all(type(name) is str for name in names)):
        # (the defaults: no knowledge but the conditional-Gaussian rule, the same parse for
        # the same columns; their names compare equal only when they are the same text)
        kinds = None if continuous is None else tuple(np.asarray(continuous, dtype=bool).tolist())
        return _default_knowledge(names, kinds)
    return _parse_knowledge(names, white_list, black_list, tiers, max_indegree, start, continuous)


#: Most columns whose default knowledge :func:`_default_knowledge` keeps (two ``p x p`` bool
#: matrices each): a small fit's parse is most of its cost, a wide one's is not.
_SHARED_COLUMNS = 100


def _no_edges(edges):
    """Whether an edge-list parameter is the empty list or tuple (its default)."""
    return type(edges) in (list, tuple) and not edges


@functools.lru_cache(maxsize=64)
def _default_knowledge(names, continuous):
    """:func:`parse_knowledge` of string column ``names`` without knowledge parameters
    (``continuous``: a tuple of bools, or None), parsed once: a :class:`BackgroundKnowledge`
    is frozen and its arrays read-only, so every fit on these columns can share it."""
    return _parse_knowledge(names, (), (), None, None, None,
                            None if continuous is None else np.asarray(continuous, dtype=bool))


def _parse_knowledge(names, white_list, black_list, tiers, max_indegree, start, continuous):
    """:func:`parse_knowledge` of the tuple ``names`` (its arguments, positional)."""
    p = len(names)
    if max_indegree is None:
        max_indegree = max(p - 1, 0)
    elif not isinstance(max_indegree, Integral) or isinstance(max_indegree, bool) or max_indegree < 0:
        raise ValueError(f"max_indegree must be None or an integer >= 0, got {max_indegree!r}.")
    max_indegree = int(max_indegree)

    required = _edge_matrix(white_list, names, "white_list")
    black = _edge_matrix(black_list, names, "black_list")
    tier_forbidden = _tier_matrix(tiers, names)
    rule = np.zeros((p, p), dtype=bool)
    if continuous is not None and np.any(continuous) and not np.all(continuous):
        rule = conditional_gaussian_rule(continuous)
        required &= ~(rule & required.T)  # a two-way pair keeps its allowed direction
    clg_rule = "the conditional-Gaussian rule (a discrete node has no continuous parent)"
    any_required = required.any()  # (none: nothing to clash, cycle or exceed the bound)
    for source, matrix in (("black_list", black), ("tiers", tier_forbidden), (clg_rule, rule)):
        clash = np.argwhere(required & matrix) if any_required else ()
        if len(clash):
            i, j = clash[0]
            raise ValueError(
                f"white_list requires the edge ({names[i]!r}, {names[j]!r}) but {source} "
                "forbids it." + (" (A pair listed both ways in white_list requires both "
                                 "directions to be allowed; list only the allowed one.)"
                                 if required[j, i] else "")
            )
    forbidden = black | tier_forbidden | rule | np.eye(p, dtype=bool)
    directed = required & ~required.T
    if any_required:
        _check_acyclic(directed, names, "white_list", "the required edges")
        _check_indegree(directed, names, max_indegree, "white_list")

    start_graph = None
    if start is not None:
        given = _edge_matrix(start, names, "start")
        for source, matrix in (("black_list", black), ("tiers", tier_forbidden), (clg_rule, rule)):
            clash = np.argwhere(given & matrix)
            if len(clash):
                i, j = clash[0]
                raise ValueError(f"start edge ({names[i]!r}, {names[j]!r}) is forbidden by {source}.")
        _check_acyclic(given, names, "start", "the start graph")
        _check_acyclic(given | directed, names, "start", "the start graph with the required edges added")
        undirected = required & required.T & ~(given | given.T)
        start_graph = _orient_two_way(given | directed, undirected, names)
        _check_indegree(start_graph, names, max_indegree, "start (with the required edges added)")
    elif any_required:
        _check_indegree(_orient_two_way(directed, required & required.T, names), names, max_indegree,
                        "white_list")
    return BackgroundKnowledge(
        required=_frozen(required), forbidden=_frozen(forbidden), max_indegree=max_indegree,
        start=None if start_graph is None else _frozen(start_graph), names=names,
    )


def conditional_gaussian_rule(continuous):
    """The edges the conditional-Gaussian rule forbids: ``(p, p)`` bool, ``[i, j]`` when
    column ``i`` is continuous and ``j`` discrete (``continuous``: bool per column). In a
    conditional linear Gaussian network a discrete node never has a continuous parent
    (Lauritzen & Wermuth 1989; bnlearn's rule)."""
    continuous = np.asarray(continuous, dtype=bool)
    return continuous[:, None] & ~continuous[None, :]


def restricted_class(pdag, required, forbidden):
    """The DAGs of ``pdag`` that respect background knowledge, as one PDAG.

    ``required`` / ``forbidden``: ``(p, p)`` bool matrices over ``pdag.nodes`` (as
    :class:`BackgroundKnowledge`'s). When the knowledge fixes no direction
    (:func:`skbn._dag.knowledge_directions`) ``pdag`` is returned; otherwise its maximally
    oriented PDAG under the knowledge (:func:`skbn.graph.meek_orient`, Meek 1995): for a
    CPDAG (or a PDAG representing a set of DAGs closed as Meek's rules close it) an edge is
    directed iff every DAG of the class that respects the knowledge has it that way, and each
    undirected edge is oriented each way by one of them.

    Raises
    ------
    ValueError
        If no DAG of the class respects the knowledge (:func:`skbn.graph.meek_orient`'s
        message names the edge).
    """
    if not knowledge_directions(required, forbidden).any():
        return pdag
    names = pdag.nodes
    pairs = {name: [(names[u], names[v]) for u, v in np.argwhere(matrix) if u != v]
             for name, matrix in (("required", required), ("forbidden", forbidden))}
    return meek_orient(pdag, **pairs)


def dag_matrix(edges, names, parameter="edges", continuous=None):
    """Adjacency matrix of the DAG ``edges`` over the columns ``names``.

    Parameters
    ----------
    edges : iterable of (parent, child)
        Column labels (or integer positions when no label matches).
    names : sequence
        The column labels.
    parameter : str, default="edges"
        The name the errors give the edges.
    continuous : bool ndarray of shape (len(names),) or None, default=None
        Which columns are continuous: an edge from a continuous column to a discrete one
        breaks the conditional-Gaussian rule (a discrete node has no continuous parent).

    Returns
    -------
    ndarray of shape (len(names), len(names)), bool
        ``matrix[i, j]``: the edge ``names[i] -> names[j]``.

    Raises
    ------
    ValueError
        Naming ``parameter`` and the culprit: an unknown column, a self loop, a malformed
        pair, a cycle, or an edge into a discrete column from a continuous one.
    """
    names = tuple(names)
    matrix = _edge_matrix(edges, names, parameter)
    _check_acyclic(matrix, names, parameter, "its edges")
    if continuous is not None:
        check_conditional_gaussian(np.argwhere(matrix).tolist(), names, continuous)
    return matrix


def check_conditional_gaussian(edges, names, continuous):
    """Refuse, naming it, the first edge of ``edges`` (position pairs) from a continuous
    column to a discrete one (``continuous``: bool per column): in a conditional Gaussian
    network a discrete node has only discrete parents (Lauritzen & Wermuth 1989; bnlearn's
    rule)."""
    for i, j in edges:
        if not continuous[i] or continuous[j]:
            continue
        parent, child = names[i], names[j]
        raise ValueError(
            f"Edge {parent!r} -> {child!r}: the discrete column {child!r} cannot have the "
            f"continuous parent {parent!r} (in a conditional Gaussian network discrete nodes "
            "have only discrete parents). Reverse the edge, or declare "
            f"column_types={{{parent!r}: 'discrete'}} if its values are categories.")


# ----------------------------------------------------------------------------- labels
def _label_positions(names):
    """``{label: position}`` of the column labels (the first position of a repeated label)."""
    positions = {}
    for position, name in enumerate(names):
        positions.setdefault(name, position)
    return positions


def _find_column(label, names, positions=None):
    """Position of a column given by label, or by integer position when no label matches;
    None when it is neither (``positions``: :func:`_label_positions` of ``names``, for many
    look-ups)."""
    try:
        position = (_label_positions(names) if positions is None else positions).get(label)
    except TypeError:  # unhashable: not a label
        position = None
    if position is not None:
        return position
    if isinstance(label, (int, np.integer)) and not isinstance(label, bool) and 0 <= label < len(names):
        return int(label)
    return None


def _column_position(label, names, parameter, positions=None):
    """:func:`_find_column`, refusing a label that is not a column with a message naming
    ``parameter``."""
    position = _find_column(label, names, positions)
    if position is None:
        raise ValueError(f"{parameter}={label!r} is not a column of X (columns: {list(names)}).")
    return position


def _edge_positions(edges, names, what):
    """``(parent, child)`` column labels (or integer positions) -> position pairs, refusing
    malformed entries, unknown columns and self loops with a message naming ``what``.

    ``edges`` is a list or tuple of pairs, a numpy array of shape ``(n_edges, 2)`` or a
    DataFrame of two columns (parent, child), one edge per row (see :data:`EDGE_LIST_TYPES`).
    """
    if isinstance(edges, pd.DataFrame):
        if edges.shape[1] != 2:
            raise ValueError(
                f"{what} as a DataFrame must have two columns (parent, child), got "
                f"{edges.shape[1]}: {list(edges.columns)}."
            )
        edges = list(edges.itertuples(index=False, name=None))
    if edges is None or isinstance(edges, (str, bytes)):
        raise ValueError(f"{what} must be a sequence of (parent, child) pairs (() for none), "
                         f"got {edges!r}.")
    pairs = []
    positions_of = _label_positions(names)
    for edge in edges:
        try:
            if isinstance(edge, (str, bytes)):
                raise TypeError
            parent, child = edge
        except (TypeError, ValueError):
            raise ValueError(f"{what} entry {edge!r} is not a (parent, child) pair.") from None
        positions = []
        for node in (parent, child):
            try:
                positions.append(_column_position(node, names, what, positions_of))
            except ValueError:  # unknown (or unhashable) label
                raise ValueError(
                    f"{what} edge ({parent!r}, {child!r}) names unknown column {node!r}; "
                    f"columns are {list(names)}."
                ) from None
        if positions[0] == positions[1]:
            raise ValueError(f"{what} edge ({parent!r}, {child!r}) is a self loop.")
        pairs.append(tuple(positions))
    return pairs


# ----------------------------------------------------------------------------- helpers
def _frozen(matrix):
    matrix = np.array(matrix, dtype=bool)
    matrix.setflags(write=False)
    return matrix


def _edge_matrix(edges, names, what):
    p = len(names)
    matrix = np.zeros((p, p), dtype=bool)
    if _no_edges(edges):  # (the default: nothing to check)
        return matrix
    for parent, child in _edge_positions(edges, names, what):
        matrix[parent, child] = True
    return matrix


def _tier_matrix(tiers, names):
    """``forbidden[i, j]``: ``i`` is in a later tier than ``j`` (bnlearn's tiers2blacklist)."""
    p = len(names)
    matrix = np.zeros((p, p), dtype=bool)
    if tiers is None:
        return matrix
    if isinstance(tiers, (str, bytes)):
        raise ValueError(f"tiers must be a list of lists of columns, got {tiers!r}.")
    level = np.full(p, -1)
    positions = _label_positions(names)
    for t, tier in enumerate(tiers):
        if isinstance(tier, (str, bytes)) or not hasattr(tier, "__iter__"):
            raise ValueError(f"tiers entry {tier!r} is not a list of columns (tiers is a list of lists).")
        for label in tier:
            i = _column_position(label, names, "tiers", positions)
            if level[i] >= 0:
                raise ValueError(
                    f"tiers puts column {names[i]!r} in more than one tier (tiers {level[i]} and {t})."
                )
            level[i] = t
    tiered = level >= 0
    matrix = (level[:, None] > level[None, :]) & tiered[:, None] & tiered[None, :]
    return matrix


def _check_acyclic(matrix, names, parameter, what):
    edges = [(names[i], names[j]) for i, j in np.argwhere(matrix)]
    try:
        _check_dag(names, edges)
    except ValueError as error:
        raise ValueError(f"{parameter}: {what} must be acyclic: {error}.") from None


def _check_indegree(matrix, names, max_indegree, parameter):
    indegree = matrix.sum(axis=0)
    if indegree.max(initial=0) > max_indegree:
        j = int(np.argmax(indegree))
        raise ValueError(
            f"{parameter} gives {names[j]!r} {int(indegree[j])} required parents, more than "
            f"max_indegree={max_indegree}."
        )


def _orient_two_way(directed, undirected, names):
    """``directed`` plus each pair of the symmetric ``undirected`` oriented along a
    topological order of ``directed`` (ties by position): acyclic if ``directed`` is."""
    p = directed.shape[0]
    graph = np.array(directed, dtype=bool)
    if not undirected.any():
        return graph
    labels = tuple(range(p))
    order = _check_dag(labels, [(int(i), int(j)) for i, j in np.argwhere(directed)])[-1]
    rank = np.empty(p, dtype=np.int64)
    rank[np.asarray(order, dtype=np.int64)] = np.arange(p)
    graph |= np.asarray(undirected, dtype=bool) & (rank[:, None] < rank[None, :])
    return graph
