"""DAG and PDAG toolkit: topological order, d-separation, CPDAGs, Meek rules, extensions.

Conventions
-----------
* Nodes are hashable labels; the ``nodes`` sequence passed to every function fixes their
  *position*. Every function here is a labelled wrapper: labels -> positions, one call into
  the integer graph kernel (``skbn/_dag.py``, where every traversal lives), positions ->
  labels. Every output is sorted by node position, so no set or dict iteration order can decide a
  result (outputs do not depend on ``PYTHONHASHSEED`` nor on the order of the input edges).
* Edges are ``(parent, child)`` pairs of labels. Undirected edges of a :class:`PDAG` are stored
  as ``(u, v)`` with ``u`` before ``v`` in node order.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from sklearn.utils import check_random_state

from skbn._dag import (
    MeekCloser,
    _acyclic_ids,
    _DSeparation,
    ancestor_ids,
    cpdag_ids,
    extension_ids,
    has_path,
    markov_blanket_ids,
    minimal_imap_ids,
    orient_with_knowledge,
    parents_children,
    topological_ids,
    v_structure_ids,
)
from skbn._dag import MixedGraph as _Mixed

__all__ = [
    "PDAG",
    "topological_order",
    "is_acyclic",
    "has_directed_path",
    "ancestors",
    "d_separated",
    "markov_blanket",
    "v_structures",
    "dag_to_cpdag",
    "meek_orient",
    "pdag_to_dag",
    "is_markov_equivalent",
    "minimal_imap",
    "random_dag",
    "interventional_essential_graph",
]


# ---------------------------------------------------------------------------------------------
# internal helpers (integer nodes)
# ---------------------------------------------------------------------------------------------
def _node_index(nodes) -> dict:
    index = {}
    for i, node in enumerate(nodes):
        if node in index:
            raise ValueError(f"duplicate node {node!r} in nodes")
        index[node] = i
    return index


def _lookup(index, node):
    try:
        return index[node]
    except (KeyError, TypeError):
        raise ValueError(f"unknown node {node!r}") from None


def _edge_ids(index, edges, what="edge") -> list:
    """Map label pairs to sorted, de-duplicated integer pairs; reject self loops."""
    out = set()
    for edge in edges:
        try:
            u, v = edge
        except (TypeError, ValueError):
            raise ValueError(f"{what} {edge!r} is not a (u, v) pair") from None
        i, j = _lookup(index, u), _lookup(index, v)
        if i == j:
            raise ValueError(f"self loop on node {u!r}")
        out.add((i, j))
    return sorted(out)


def _check_dag(nodes, edges):
    """Validate a DAG; return (index, pairs, parents, children, topological order of ids)."""
    nodes = tuple(nodes)
    index = _node_index(nodes)
    pairs = _edge_ids(index, edges)
    parents, children, order = _acyclic_ids(nodes, pairs, "the graph has a directed cycle")
    return index, pairs, parents, children, order


def _as_node_set(index, x, name):
    """``x`` is one node or an iterable of nodes; returns a set of ids."""
    try:
        if x in index:
            return {index[x]}
    except TypeError:  # unhashable: an iterable of nodes
        pass
    if isinstance(x, (str, bytes)):
        raise ValueError(f"unknown node {x!r} in {name}")
    try:
        items = list(x)
    except TypeError:
        raise ValueError(f"unknown node {x!r} in {name}") from None
    out = set()
    for item in items:
        try:
            out.add(index[item])
        except (KeyError, TypeError):
            raise ValueError(f"unknown node {item!r} in {name}") from None
    return out


# ---------------------------------------------------------------------------------------------
# DAG functions
# ---------------------------------------------------------------------------------------------
def topological_order(nodes: Sequence[Hashable], edges: Iterable[tuple]) -> list:
    """Topological order of a DAG (Kahn's algorithm).

    Among the nodes that are ready (all parents placed), the one earliest in ``nodes`` is
    placed first, so the result is unique and equals ``list(nodes)`` when that order is
    already topological.

    Parameters
    ----------
    nodes : sequence of hashable
        The nodes; their order breaks ties.
    edges : iterable of (parent, child) pairs
        The directed edges.

    Returns
    -------
    order : list
        Every node, parents before children.

    Raises
    ------
    ValueError
        If the graph has a directed cycle; the message names the nodes on one cycle.

    Examples
    --------
    >>> topological_order(["c", "b", "a"], [("a", "b"), ("b", "c")])
    ['a', 'b', 'c']
    """
    nodes = tuple(nodes)
    _, _, _, _, order = _check_dag(nodes, edges)
    return [nodes[i] for i in order]


def is_acyclic(nodes: Sequence[Hashable], edges: Iterable[tuple]) -> bool:
    """Whether the directed graph ``(nodes, edges)`` has no directed cycle.

    Parameters
    ----------
    nodes : sequence of hashable
        The graph's nodes, in node order.
    edges : iterable of (parent, child) pairs
        Its directed edges.

    Returns
    -------
    bool
        True when no directed cycle exists.

    Examples
    --------
    >>> is_acyclic("abc", [("a", "b"), ("b", "c"), ("c", "a")])
    False
    """
    nodes = tuple(nodes)
    index = _node_index(nodes)
    parents, children = parents_children(len(nodes), _edge_ids(index, edges))
    return not topological_ids(len(nodes), parents, children)[1]


def has_directed_path(nodes, edges, source, target) -> bool:
    """Whether a directed path (of length >= 1) leads from ``source`` to ``target``.

    Parameters
    ----------
    nodes : sequence of hashable
        The graph's nodes, in node order.
    edges : iterable of (parent, child) pairs
        Its directed edges.
    source, target : hashable
        The path's first and last node.

    Returns
    -------
    bool
        True when ``source -> ... -> target`` exists.

    Examples
    --------
    >>> has_directed_path("abc", [("a", "b"), ("b", "c")], "a", "c")
    True
    >>> has_directed_path("abc", [("a", "b"), ("b", "c")], "c", "a")
    False
    """
    nodes = tuple(nodes)
    index = _node_index(nodes)
    _, children = parents_children(len(nodes), _edge_ids(index, edges))
    return has_path(children, _lookup(index, source), _lookup(index, target))


def ancestors(nodes, edges, node) -> list:
    """Proper ancestors of ``node`` (or of a set of nodes), in node order.

    Parameters
    ----------
    nodes : sequence of hashable
        The graph's nodes, in node order.
    edges : iterable of (parent, child) pairs
        Its directed edges.
    node : hashable or iterable of hashable
        A node, or several nodes (their ancestors outside the set are returned).

    Returns
    -------
    list
        The ancestors, in node order.
    """
    nodes = tuple(nodes)
    index = _node_index(nodes)
    parents, _ = parents_children(len(nodes), _edge_ids(index, edges))
    seeds = _as_node_set(index, node, "node")
    return [nodes[i] for i in sorted(ancestor_ids(parents, seeds) - seeds)]


def d_separated(nodes, edges, x, y, z=()) -> bool:
    """Whether ``x`` and ``y`` are d-separated given ``z`` in the DAG ``(nodes, edges)``.

    Uses the reachability ("Bayes-ball") algorithm of Koller & Friedman (2009), Algorithm 3.1:
    one linear-time traversal of (node, direction) pairs from all of ``x`` at once, on
    bitsets and restricted to the ancestral set of ``x``, ``y`` and ``z``; ``x`` and ``y``
    are d-separated iff no node of ``y`` is reachable by an active trail. For many queries
    on one DAG use :class:`skbn.citests.DSeparationOracle`, which compiles the DAG once.

    Parameters
    ----------
    nodes : sequence of hashable
        The DAG's nodes.
    edges : iterable of (parent, child) pairs
        Must form a DAG.
    x, y : node or iterable of nodes
        A value that is itself a node is taken as that node; otherwise it is iterated.
        An empty ``x`` or ``y`` is (vacuously) d-separated from anything.
    z : iterable of nodes, default=()
        The conditioning (observed) set.

    Returns
    -------
    bool
        True when every trail between ``x`` and ``y`` is blocked by ``z``.

    Raises
    ------
    ValueError
        If ``x``, ``y`` and ``z`` are not pairwise disjoint, a node is unknown, or the graph
        has a cycle.

    References
    ----------
    D. Koller and N. Friedman, *Probabilistic Graphical Models*, MIT Press, 2009, Alg. 3.1.

    Examples
    --------
    >>> edges = [("a", "c"), ("b", "c")]
    >>> d_separated("abc", edges, "a", "b")
    True
    >>> d_separated("abc", edges, "a", "b", ["c"])
    False
    """
    nodes = tuple(nodes)
    index, _, parents, _, order = _check_dag(nodes, edges)
    xs = _as_node_set(index, x, "x")
    ys = _as_node_set(index, y, "y")
    zs = _as_node_set(index, z, "z")
    for a, b, name in ((xs, ys, "x and y"), (xs, zs, "x and z"), (ys, zs, "y and z")):
        common = a & b
        if common:
            labels = [nodes[i] for i in sorted(common)]
            raise ValueError(f"{name} must be disjoint; both contain {labels!r}")
    if not xs or not ys:
        return True
    return _DSeparation(parents, order).separated(xs, ys, zs)


def markov_blanket(nodes, edges, node) -> list:
    """Markov blanket of ``node``: its parents, children and the children's other parents.

    Parameters
    ----------
    nodes : sequence of hashable
        The graph's nodes, in node order.
    edges : iterable of (parent, child) pairs
        Its directed edges.
    node : hashable
        The node whose blanket is returned.

    Returns
    -------
    blanket : list
        In node order, without ``node`` itself.

    Examples
    --------
    >>> markov_blanket("abcd", [("a", "b"), ("b", "c"), ("d", "c")], "b")
    ['a', 'c', 'd']
    """
    nodes = tuple(nodes)
    index = _node_index(nodes)
    parents, children = parents_children(len(nodes), _edge_ids(index, edges))
    return [nodes[j] for j in markov_blanket_ids(parents, children, _lookup(index, node))]


def v_structures(nodes, edges) -> list:
    """Unshielded colliders ``a -> c <- b`` with ``a`` and ``b`` non-adjacent.

    Parameters
    ----------
    nodes : sequence of hashable
        The graph's nodes, in node order.
    edges : iterable of (parent, child) pairs
        Its directed edges.

    Returns
    -------
    triples : list of (a, c, b)
        ``a`` before ``b`` in node order; sorted by the node positions of ``(a, c, b)``.

    Examples
    --------
    >>> v_structures("abc", [("a", "c"), ("b", "c")])
    [('a', 'c', 'b')]
    """
    nodes = tuple(nodes)
    index = _node_index(nodes)
    pairs = _edge_ids(index, edges)
    parents, children = parents_children(len(nodes), pairs)

    def adjacent(a, b):
        return b in parents[a] or b in children[a]

    return [(nodes[a], nodes[c], nodes[b]) for a, c, b in v_structure_ids(parents, adjacent)]


# ---------------------------------------------------------------------------------------------
# PDAG
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PDAG:
    """A partially directed graph: directed edges ``u -> v`` and undirected edges ``u - v``.

    Instances are normalised on construction, so two PDAGs with the same edges compare equal
    whatever the order of the input: ``nodes`` is a tuple, ``directed`` is sorted by the
    positions of ``(u, v)``, and each undirected pair is stored as ``(u, v)`` with ``u`` before
    ``v`` in node order, sorted likewise. A pair of nodes carries at most one edge.

    Parameters
    ----------
    nodes : sequence of hashable
        The nodes, in node order.
    directed : iterable of (u, v) pairs, default=()
        Directed edges ``u -> v``.
    undirected : iterable of (u, v) pairs, default=()
        Undirected edges ``u - v`` (either orientation of the pair).

    Examples
    --------
    >>> g = PDAG(("a", "b", "c"), directed=[("a", "c")], undirected=[("b", "a")])
    >>> g.undirected
    (('a', 'b'),)
    >>> g.adjacent("c", "a"), g.adjacent("b", "c")
    (True, False)
    """

    nodes: tuple
    directed: tuple = ()
    undirected: tuple = ()
    _index: dict = field(init=False, repr=False, compare=False, hash=False)
    _pairs: frozenset = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self):
        nodes = tuple(self.nodes)
        index = _node_index(nodes)
        directed = _edge_ids(index, self.directed, "directed edge")
        undirected = sorted({(min(e), max(e)) for e in _edge_ids(index, self.undirected,
                                                                  "undirected edge")})
        seen = {}
        for kind, pairs in (("directed", directed), ("undirected", undirected)):
            for i, j in pairs:
                key = (min(i, j), max(i, j))
                if key in seen:
                    raise ValueError(
                        f"nodes {nodes[key[0]]!r} and {nodes[key[1]]!r} carry more than one "
                        f"edge ({seen[key]} and {kind})")
                seen[key] = kind
        self._store(nodes, index, directed, undirected, frozenset(seen))

    def _store(self, nodes, index, directed, undirected, pairs):
        """Set the fields from the node tuple, its index and the sorted id pairs (the
        undirected ones ``(i, j)`` with ``i < j``; ``pairs``: every adjacent pair so)."""
        object.__setattr__(self, "nodes", nodes)
        object.__setattr__(self, "directed", tuple((nodes[i], nodes[j]) for i, j in directed))
        object.__setattr__(self, "undirected",
                           tuple((nodes[i], nodes[j]) for i, j in undirected))
        object.__setattr__(self, "_index", index)
        object.__setattr__(self, "_pairs", pairs)

    @classmethod
    def _of_ids(cls, nodes, directed, undirected):
        """The PDAG on the distinct ``nodes`` of the sorted, distinct id pairs ``directed``
        and ``undirected`` (``(i, j)`` with ``i < j``), at most one edge per pair and no self
        loop (a learner's graph on positions): what the constructor makes of their labels,
        without mapping them back to ids."""
        new = object.__new__(cls)
        nodes = tuple(nodes)
        pairs = frozenset([(i, j) if i < j else (j, i) for i, j in directed] + list(undirected))
        new._store(nodes, {node: i for i, node in enumerate(nodes)}, directed, undirected, pairs)
        return new

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def from_dag(cls, nodes, edges) -> PDAG:
        """Build the PDAG whose edges are all directed (no acyclicity check).

        Parameters
        ----------
        nodes : sequence of hashable
            The nodes, in node order.
        edges : iterable of (parent, child) pairs
            The directed edges.

        Returns
        -------
        PDAG
            The graph with ``directed=edges`` and no undirected edge.
        """
        return cls(tuple(nodes), tuple(edges), ())

    def _ids(self):
        index = self._index
        directed = [(index[u], index[v]) for u, v in self.directed]
        undirected = [(index[u], index[v]) for u, v in self.undirected]
        return directed, undirected

    # -- queries -------------------------------------------------------------------------------
    @property
    def is_dag(self) -> bool:
        """True when no edge is undirected and the directed edges have no cycle."""
        return not self.undirected and is_acyclic(self.nodes, self.directed)

    def adjacent(self, u, v) -> bool:
        """Whether ``u`` and ``v`` are joined by an edge of any kind.

        Parameters
        ----------
        u, v : hashable
            Two nodes.

        Returns
        -------
        bool
            True for ``u -> v``, ``v -> u`` or ``u - v``.
        """
        i, j = _lookup(self._index, u), _lookup(self._index, v)
        return (min(i, j), max(i, j)) in self._pairs

    def skeleton(self) -> tuple:
        """Unordered adjacencies as ``(u, v)`` pairs, ``u`` before ``v``, sorted by position.

        Returns
        -------
        tuple of (u, v)
            One pair per edge, whatever its kind.
        """
        directed, undirected = self._ids()
        pairs = sorted({(min(e), max(e)) for e in directed} | set(undirected))
        return tuple((self.nodes[i], self.nodes[j]) for i, j in pairs)

    def parents(self, v) -> list:
        """Nodes ``u`` with ``u -> v``, in node order.

        Parameters
        ----------
        v : hashable
            A node.

        Returns
        -------
        list
            Its parents.
        """
        return [u for u, w in self._sorted_by_first(self.directed, v, second=True)]

    def children(self, u) -> list:
        """Nodes ``v`` with ``u -> v``, in node order.

        Parameters
        ----------
        u : hashable
            A node.

        Returns
        -------
        list
            Its children.
        """
        return [w for _, w in self._sorted_by_first(self.directed, u, second=False)]

    def neighbors(self, u) -> list:
        """Nodes joined to ``u`` by an undirected edge, in node order.

        Parameters
        ----------
        u : hashable
            A node.

        Returns
        -------
        list
            Its undirected neighbours.
        """
        _lookup(self._index, u)
        out = [b if a == u else a for a, b in self.undirected if u in (a, b)]
        return sorted(out, key=self._index.__getitem__)

    def _sorted_by_first(self, pairs, node, second):
        _lookup(self._index, node)
        hits = [(a, b) for a, b in pairs if (b if second else a) == node]
        return sorted(hits, key=lambda e: (self._index[e[0]], self._index[e[1]]))

    def to_adjacency_matrix(self) -> np.ndarray:
        """Boolean matrix ``A`` with ``A[i, j]`` true iff ``i -> j`` or ``i - j``.

        An undirected edge sets both ``A[i, j]`` and ``A[j, i]`` (the pcalg convention).

        Returns
        -------
        ndarray of shape (n_nodes, n_nodes), dtype bool
            Rows and columns in node order.
        """
        n = len(self.nodes)
        a = np.zeros((n, n), dtype=bool)
        directed, undirected = self._ids()
        for i, j in directed:
            a[i, j] = True
        for i, j in undirected:
            a[i, j] = a[j, i] = True
        return a




# ---------------------------------------------------------------------------------------------
# CPDAG, Meek rules, consistent extension
# ---------------------------------------------------------------------------------------------
def dag_to_cpdag(nodes, edges) -> PDAG:
    """Completed PDAG (essential graph) of a DAG's Markov equivalence class.

    Compelled edges stay directed, reversible edges become undirected. Implements Chickering's
    (1995) edge-labelling: edges are ordered (children in topological order, each child's
    parents from last to first) and labelled *compelled* or *reversible* in that order.

    Parameters
    ----------
    nodes : sequence of hashable
        The DAG's nodes.
    edges : iterable of (parent, child) pairs
        Must form a DAG.

    Returns
    -------
    PDAG
        Compelled edges directed, reversible edges undirected.

    References
    ----------
    D. M. Chickering, "A transformational characterization of equivalent Bayesian network
    structures", UAI 1995.

    Examples
    --------
    >>> dag_to_cpdag("abc", [("a", "b"), ("b", "c")]).undirected
    (('a', 'b'), ('b', 'c'))
    >>> dag_to_cpdag("abc", [("a", "c"), ("b", "c")]).directed
    (('a', 'c'), ('b', 'c'))
    """
    nodes = tuple(nodes)
    _, _, parents, _, order = _check_dag(nodes, edges)
    compelled, reversible = cpdag_ids(parents, order)
    directed = [(nodes[i], nodes[j]) for i, j in compelled]
    undirected = [(nodes[min(i, j)], nodes[max(i, j)]) for i, j in reversible]
    return PDAG(nodes, directed, undirected)


def meek_orient(pdag: PDAG, *, required=(), forbidden=()) -> PDAG:
    """Close a PDAG under Meek's rules R1-R4; with background knowledge, its maximally oriented PDAG.

    * R1: ``c -> a - b``, ``c``, ``b`` non-adjacent: orient ``a -> b``.
    * R2: ``a -> c -> b`` and ``a - b``: orient ``a -> b``.
    * R3: ``a - c -> b``, ``a - d -> b``, ``c``, ``d`` non-adjacent, ``a - b``: ``a -> b``.
    * R4: ``a - c -> d -> b``, ``a`` adjacent to ``d``, ``c``, ``b`` non-adjacent, ``a - b``:
      ``a -> b`` (needed only with background knowledge).

    **Background knowledge** (Meek 1995). ``required`` edges ``(u, v)`` must be ``u -> v``
    (a pair listed both ways only requires the adjacency), ``forbidden`` edges ``(u, v)``
    may not be ``u -> v``; so an adjacency with one direction forbidden has the other. After
    closing ``pdag`` under the rules, each adjacency whose direction the knowledge fixes is
    oriented in turn (smallest positions first) and the graph closed again. For a CPDAG, or
    a pattern (skeleton and v-structures), and knowledge consistent with its Markov
    equivalence class (some DAG of the class has every required edge and no forbidden
    one), the result is the **maximally oriented PDAG**: an edge is directed iff every DAG
    of the class that respects the knowledge has it that way (Tetrad's FGES and PC return
    it too). Knowledge inconsistent with the class -- a direction against an edge the
    class compels, one that closes a directed cycle or that the rules can reach only by
    orienting a forbidden direction, a required edge between non-adjacent nodes, an
    adjacency forbidden both ways -- raises ``ValueError`` naming the edge (Meek's
    procedure finds every inconsistency, theorem 4 of the paper).

    Deterministic: undirected edges are examined from a work list, smallest
    ``(position u, position v)`` first; when an edge is oriented, only the undirected edges
    it can affect are queued again. For a PDAG that admits a consistent extension the
    closure is unique (Meek 1995), so the order does not matter and no rule ever proposes
    both directions of an edge or a cycle.

    **Conflicts** without knowledge (a PDAG without consistent extension, e.g. colliders
    found by erroneous independence tests): an orientation that would close a directed
    cycle is never made (checked on descendant bitsets, as Tetrad's ``meekPreventCycles``);
    if a rule supports the other direction, that one is taken, otherwise the edge stays
    undirected. When rules support both directions (and neither closes a cycle),
    ``u -> v`` wins for ``u`` before ``v`` in node order. So the output is always a PDAG
    whose directed part is acyclic and that has exactly the input's adjacencies; the
    directed edges of the input are kept.

    Parameters
    ----------
    pdag : PDAG
        The graph to orient (not modified). Its directed edges must be acyclic.
    required : iterable of (u, v), default=()
        Required edges ``u -> v``; both ``(u, v)`` and ``(v, u)``: a required adjacency.
    forbidden : iterable of (u, v), default=()
        Forbidden edges ``u -> v``; both ways: a forbidden adjacency.

    Returns
    -------
    PDAG
        The maximally oriented PDAG.

    Raises
    ------
    ValueError
        If the directed edges of ``pdag`` have a cycle (the message names one), or if the
        knowledge is inconsistent with the graph (the message names the edge).

    References
    ----------
    C. Meek, "Causal inference and causal explanation with background knowledge", UAI 1995.

    Examples
    --------
    >>> g = PDAG("abc", directed=[("a", "b")], undirected=[("b", "c")])
    >>> meek_orient(g).directed
    (('a', 'b'), ('b', 'c'))
    >>> chain = PDAG("abc", undirected=[("a", "b"), ("b", "c")])
    >>> meek_orient(chain, required=[("a", "b")]).directed
    (('a', 'b'), ('b', 'c'))
    >>> meek_orient(chain, forbidden=[("a", "b")]).directed
    (('b', 'a'),)
    """
    required, forbidden = list(required), list(forbidden)
    if not required and not forbidden:
        return _meek(pdag)[0]
    nodes = pdag.nodes
    n = len(nodes)
    req = np.zeros((n, n), dtype=bool)
    forb = np.zeros((n, n), dtype=bool)
    for matrix, edges, what in ((req, required, "required edge"),
                                (forb, forbidden, "forbidden edge")):
        for i, j in _edge_ids(pdag._index, edges, what):
            matrix[i, j] = True
    both = np.argwhere(req & forb)
    if len(both):
        i, j = both[0]
        raise ValueError(f"edge ({nodes[i]!r}, {nodes[j]!r}) is both required and forbidden")
    directed, undirected = pdag._ids()
    _acyclic_ids(nodes, directed)
    out, bad, rules = orient_with_knowledge(_Mixed(n, directed, undirected), req, forb)
    if bad:
        i, j = bad[0]
        if forb[i, j] and forb[j, i]:
            what = f"the adjacency {nodes[i]!r} - {nodes[j]!r} is forbidden both ways"
        elif not out.adj(i, j):
            what = f"the required edge {nodes[i]!r} -> {nodes[j]!r} joins non-adjacent nodes"
        else:
            what = (f"the direction {nodes[i]!r} -> {nodes[j]!r} (required, or its reverse "
                    f"forbidden) is against an edge the graph compels or closes a cycle")
        raise ValueError(f"background knowledge inconsistent with the PDAG: {what}"
                         + (f" ({len(bad) - 1} more)" if len(bad) > 1 else ""))
    if rules:
        i, j = rules[0]
        raise ValueError(
            f"background knowledge inconsistent with the PDAG: Meek's rules need a forbidden "
            f"or cycle-closing orientation of {nodes[i]!r} - {nodes[j]!r} (or the PDAG has "
            f"no consistent extension)")
    d, u = out.edge_lists()
    return PDAG(nodes, [(nodes[a], nodes[b]) for a, b in d], [(nodes[a], nodes[b]) for a, b in u])


def _meek(pdag):
    """:func:`meek_orient` without knowledge, also returning its conflicts.

    Returns
    -------
    pdag : PDAG
    conflicts : list of (u, v) label pairs, ``u`` before ``v`` in node order
        The undirected edges (at the time) for which a rule proposed an orientation that
        would close a directed cycle, or for which rules proposed both directions; sorted.
    """
    nodes = pdag.nodes
    directed, undirected = pdag._ids()
    _acyclic_ids(nodes, directed)
    g = _Mixed(len(nodes), directed, undirected)
    conflicts = MeekCloser(g).close(all_edges=True)
    d, u = g.edge_lists()
    out = PDAG(nodes, [(nodes[a], nodes[b]) for a, b in d], [(nodes[a], nodes[b]) for a, b in u])
    return out, [(nodes[a], nodes[b]) for a, b in sorted(conflicts)]


def pdag_to_dag(pdag: PDAG, *, strict: bool = True) -> list:
    """A consistent extension of a PDAG (Dor & Tarsi, 1992).

    The returned DAG keeps every directed edge, orients every undirected edge, and has the
    same skeleton and the same v-structures as the PDAG (no new v-structure). Repeatedly
    removes a node ``x`` that is a sink among the remaining nodes and whose undirected
    neighbours are adjacent to all other nodes adjacent to ``x``, orienting its undirected
    edges into ``x``; the earliest such node in node order is taken.

    Parameters
    ----------
    pdag : PDAG
        The partially directed graph to extend; its directed edges must be acyclic.
    strict : bool, default=True
        What to do when the PDAG admits no consistent extension (no DAG with its skeleton,
        its directed edges and no new v-structure, e.g. an undirected chordless 4-cycle):
        raise ``ValueError`` (True), or (False) return the fallback DAG: when no node is
        removable, the undirected edges among the remaining nodes are oriented along the
        topological order of their directed edges (Kahn's algorithm, ties by node
        position). The fallback keeps every directed edge and every adjacency and is
        acyclic, but may create v-structures the PDAG does not have.

    Returns
    -------
    edges : list of (parent, child)
        Sorted by node positions; exactly one edge per adjacency of ``pdag``.

    Raises
    ------
    ValueError
        If the directed edges have a cycle, or if ``strict`` and the PDAG admits no
        consistent extension.

    References
    ----------
    D. Dor and M. Tarsi, "A simple algorithm to construct a consistent extension of a
    partially oriented graph", Technical Report R-185, UCLA, 1992.

    Examples
    --------
    >>> pdag_to_dag(PDAG("abc", undirected=[("a", "b"), ("b", "c")]))
    [('b', 'a'), ('c', 'b')]
    >>> square = PDAG("abcd", undirected=[("a", "b"), ("b", "c"), ("c", "d"), ("a", "d")])
    >>> pdag_to_dag(square, strict=False)
    [('a', 'b'), ('a', 'd'), ('b', 'c'), ('c', 'd')]
    """
    edges, forced = _extension(pdag)
    if forced and strict:
        nodes = pdag.nodes
        left = sorted({nodes.index(v) for e in forced for v in e})
        left = [nodes[i] for i in left]
        more = f" and {len(left) - 10} more" if len(left) > 10 else ""
        raise ValueError(
            f"the PDAG admits no consistent extension (no DAG with the same skeleton and "
            f"v-structures); stuck on nodes {left[:10]!r}{more}")
    return edges


def _extension(pdag):
    """Dor-Tarsi with the fallback of :func:`pdag_to_dag` (``strict=False``).

    Returns
    -------
    edges : list of (parent, child) labels, sorted by positions
    forced : list of (parent, child) labels
        The edges oriented by the fallback (empty iff the extension is consistent).
    """
    nodes = pdag.nodes
    directed, undirected = pdag._ids()
    _acyclic_ids(nodes, directed)
    result, forced = extension_ids(len(nodes), directed, undirected)
    edges = [(nodes[i], nodes[j]) for i, j in result]
    return edges, [(nodes[i], nodes[j]) for i, j in forced]


def is_markov_equivalent(nodes, edges1, edges2) -> bool:
    """Whether two DAGs are Markov equivalent: same skeleton and same v-structures.

    (Verma & Pearl, 1990.) Both edge lists must form DAGs over ``nodes``.

    Parameters
    ----------
    nodes : sequence of hashable
        The nodes of both DAGs.
    edges1, edges2 : iterable of (parent, child) pairs
        The edges of the two DAGs.

    Returns
    -------
    bool
        True when the DAGs have the same skeleton and the same v-structures.

    Examples
    --------
    >>> is_markov_equivalent("abc", [("a", "b"), ("b", "c")], [("c", "b"), ("b", "a")])
    True
    >>> is_markov_equivalent("abc", [("a", "b"), ("b", "c")], [("a", "b"), ("c", "b")])
    False
    """
    nodes = tuple(nodes)
    _, pairs1, _, _, _ = _check_dag(nodes, edges1)
    _, pairs2, _, _, _ = _check_dag(nodes, edges2)
    skeleton1 = {(min(e), max(e)) for e in pairs1}
    skeleton2 = {(min(e), max(e)) for e in pairs2}
    if skeleton1 != skeleton2:
        return False
    return v_structures(nodes, edges1) == v_structures(nodes, edges2)


def minimal_imap(ordering: Sequence[Hashable],
                 independent: Callable[[Hashable, list, list], bool]) -> list:
    """Build a minimal I-map for a variable ordering (Koller & Friedman, Algorithm 3.2).

    For each ``X_i`` in ``ordering``, start from all its predecessors ``U`` and, scanning the
    predecessors in order, drop ``p`` from ``U`` whenever
    ``independent(X_i, predecessors - (U - {p}), U - {p})`` still holds. With a perfect-map
    oracle (e.g. d-separation in a DAG for which ``ordering`` is topological) the parents
    found are exactly the true parents.

    Parameters
    ----------
    ordering : sequence of hashable
        The variable ordering; it also fixes the node positions of the result.
    independent : callable ``(x, ys, zs) -> bool``
        Oracle for ``x`` independent of the set ``ys`` given the set ``zs``; ``ys`` and ``zs``
        are lists in ``ordering`` order and ``ys`` is never empty.

    Returns
    -------
    edges : list of (parent, child)
        Sorted by node positions.

    Examples
    --------
    >>> dag = [("a", "c"), ("b", "c")]
    >>> minimal_imap("abc", lambda x, ys, zs: d_separated("abc", dag, x, ys, zs))
    [('a', 'c'), ('b', 'c')]
    """
    ordering = tuple(ordering)
    _node_index(ordering)

    def independent_ids(i, others, rest):
        return independent(ordering[i], [ordering[u] for u in others], [ordering[u] for u in rest])

    return [(ordering[p], ordering[i]) for p, i in minimal_imap_ids(len(ordering), independent_ids)]


def random_dag(n_nodes: int, edge_prob: float, random_state=None, max_indegree=None,
               shuffle: bool = False):
    """Random DAG (Erdos-Renyi on a random or the natural causal order).

    Each pair ``i < j`` in the causal order gets the edge ``i -> j`` with probability
    ``edge_prob``; if ``max_indegree`` is given, a node with more parents keeps a uniformly
    random subset of that size.

    Parameters
    ----------
    n_nodes : int
        Number of nodes.
    edge_prob : float in [0, 1]
        Probability of each edge of the causal order.
    random_state : None, int or numpy RandomState
        Seed of the draw.
    max_indegree : int or None
        Largest number of parents of a node (None: no limit).
    shuffle : bool, default=False
        If False the causal order is ``X0, X1, ...`` (so ``nodes`` is topological); if True it
        is a random permutation, so the node order is not topological in general.

    Returns
    -------
    nodes : list of str
        ``["X0", ..., "X{n_nodes - 1}"]``.
    edges : list of (parent, child)
        Sorted by node positions.

    Examples
    --------
    >>> nodes, edges = random_dag(4, 1.0)
    >>> edges[:3]
    [('X0', 'X1'), ('X0', 'X2'), ('X0', 'X3')]
    """
    if int(n_nodes) != n_nodes or n_nodes < 0:
        raise ValueError(f"n_nodes must be a non-negative integer, got {n_nodes!r}")
    if not 0.0 <= edge_prob <= 1.0:
        raise ValueError(f"edge_prob must be in [0, 1], got {edge_prob!r}")
    if max_indegree is not None and max_indegree < 0:
        raise ValueError(f"max_indegree must be None or >= 0, got {max_indegree!r}")
    n = int(n_nodes)
    rng = check_random_state(random_state)
    order = rng.permutation(n) if shuffle else np.arange(n)
    mask = np.triu(rng.random_sample((n, n)) < edge_prob, k=1)  # mask[a, b]: order[a]->order[b]
    pairs = []
    for b in range(n):
        pa = np.flatnonzero(mask[:, b])
        if max_indegree is not None and len(pa) > max_indegree:
            pa = np.sort(rng.choice(pa, size=max_indegree, replace=False))
        pairs.extend((int(order[a]), int(order[b])) for a in pa)
    nodes = [f"X{i}" for i in range(n)]
    return nodes, [(nodes[i], nodes[j]) for i, j in sorted(pairs)]


# ---------------------------------------------------------------------------------------------
# Interventional equivalence
# ---------------------------------------------------------------------------------------------
def interventional_essential_graph(nodes, edges, targets) -> PDAG:
    """Interventional essential graph of a DAG for a family of intervention targets.

    Two DAGs are Markov equivalent under hard interventions on the targets ``I`` (each a
    set of nodes; the empty set is observational data) iff they have the same skeleton,
    the same v-structures and, for every target, the same skeleton once the edges into the
    target are removed (Hauser & Bühlmann 2012, Theorem 10). The essential graph directs
    the edges oriented alike in every DAG of the class: those of the CPDAG
    (:func:`dag_to_cpdag`), every edge with exactly one endpoint in some target, and what
    Meek's rules (:func:`meek_orient`) orient from them.

    Parameters
    ----------
    nodes : sequence of hashable
        The DAG's nodes.
    edges : iterable of (parent, child) pairs
        Must form a DAG.
    targets : iterable of collections of nodes
        The intervention targets (e.g. ``[(), ("a",)]``: observational rows and rows where
        ``a`` was set).

    Returns
    -------
    PDAG
        Edges oriented alike in the whole class directed, the others undirected.

    References
    ----------
    A. Hauser and P. Bühlmann, "Characterization and greedy learning of interventional
    Markov equivalence classes of directed acyclic graphs", JMLR 13 (2012) 2409-2464.

    Examples
    --------
    >>> interventional_essential_graph("abc", [("a", "b"), ("b", "c")], [()]).undirected
    (('a', 'b'), ('b', 'c'))
    >>> interventional_essential_graph("abc", [("a", "b"), ("b", "c")], [(), ("b",)]).directed
    (('a', 'b'), ('b', 'c'))
    """
    from skbn._dag import interventional_essential_graph as _essential

    nodes = tuple(nodes)
    index = _node_index(nodes)
    pairs = _edge_ids(index, edges)
    _check_dag(nodes, edges)
    ids = [[_lookup(index, v) for v in target] for target in targets]
    directed, undirected = _essential(len(nodes), pairs, ids)
    return PDAG(nodes, [(nodes[u], nodes[v]) for u, v in directed],
                [(nodes[u], nodes[v]) for u, v in undirected])
