"""The integer graph kernel: every graph traversal of skbn, on node ids.

Private. Graphs are boolean adjacency matrices (``adjacency[u, v]``: an edge u -> v),
integer parent lists or Python-int bitsets over node ids ``0 .. p-1``; nothing here knows
a column name. :mod:`skbn.graph` is the public, labelled toolkit on top of it.
"""

import heapq

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import minimum_spanning_tree


# --- spanning trees and branchings
def maximum_spanning_tree(weights, root):
    """Edges (parent, child) of a maximum-weight spanning forest, oriented away from ``root``.

    Only positive weights are candidate edges. Uses scipy's minimum spanning tree on
    ``max(w) + 1 - w``; components not containing ``root`` are rooted at their smallest index.
    """
    p = weights.shape[0]
    upper = np.triu(weights > 0, k=1)
    shifted = np.where(upper, weights.max() + 1.0 - weights, 0.0)
    tree = minimum_spanning_tree(csr_matrix(shifted)).tocoo()
    neighbours = [[] for _ in range(p)]
    for u, v in zip(tree.row.tolist(), tree.col.tolist()):
        neighbours[u].append(v)
        neighbours[v].append(u)
    # orient away from the root of each component: in a forest every node but the root
    # has exactly one neighbour nearer the root, its parent, whatever the visiting order
    edges, seen = [], [False] * p
    for start in [root] + [i for i in range(p) if i != root]:
        if seen[start]:
            continue
        seen[start] = True
        queue = [start]
        for u in queue:  # grows while it is read: breadth-first
            for v in neighbours[u]:
                if not seen[v]:
                    seen[v] = True
                    edges.append((u, v))
                    queue.append(v)
    return sorted(edges, key=lambda e: (e[1], e[0]))


def maximum_branching(weights, allowed):
    """Parents of a maximum-weight branching (a forest of arborescences): ``parent[v]`` is
    ``-1`` (a root) or ``u`` with ``allowed[u, v]``, the parent graph is acyclic, and
    ``sum_v weights[parent[v], v]`` (a root adds 0) is the largest possible.

    Chu-Liu/Edmonds on a virtual root joined to every node by a 0-weight arc: each node
    takes its best incoming arc; a cycle is contracted (arcs into it re-weighted by the
    cycle arc they replace) and the problem solved again. Ties: the virtual root, then
    the smallest index.
    """
    p = weights.shape[0]
    W = np.full((p + 1, p + 1), -np.inf)
    W[0, 1:] = 0.0
    W[1:, 1:] = np.where(allowed, weights, -np.inf)
    np.fill_diagonal(W, -np.inf)
    parent = _edmonds(W)
    return np.asarray(parent[1:]) - 1


def _edmonds(W):
    """Parents (``-1`` for node 0, the virtual root) of a maximum branching of the arc
    weights ``W`` (``-inf``: no arc), by recursive cycle contraction."""
    n = W.shape[0]
    parent = [-1] + [int(np.argmax(W[:, v])) for v in range(1, n)]  # first maximum wins
    cycle = _parent_cycle(parent)
    if cycle is None:
        return parent
    in_cycle = np.zeros(n, dtype=bool)
    in_cycle[cycle] = True
    outside = [v for v in range(n) if not in_cycle[v]]  # root 0 stays first
    index = {v: k for k, v in enumerate(outside)}
    c = len(outside)
    W2 = np.full((c + 1, c + 1), -np.inf)
    W2[:c, :c] = W[np.ix_(outside, outside)]
    enter = {}
    leave = {}
    for u in outside:
        gains = W[u, cycle] - W[[parent[v] for v in cycle], cycle]
        k = int(np.argmax(gains))
        W2[index[u], c] = gains[k]
        enter[u] = cycle[k]
    for v in outside:
        k = int(np.argmax(W[cycle, v]))
        W2[c, index[v]] = W[cycle[k], v]
        leave[v] = cycle[k]
    sub = _edmonds(W2)
    result = list(parent)
    for v in outside:
        if v == 0:
            continue
        u = sub[index[v]]
        result[v] = leave[v] if u == c else outside[u]
    u = outside[sub[c]]
    result[enter[u]] = u
    return result


def _parent_cycle(parent):
    """Nodes of a cycle of the parent map ``parent`` (``-1``: no parent), or None."""
    n = len(parent)
    state = [0] * n  # 0 unseen, 1 on the current path, 2 done
    for start in range(n):
        path = []
        v = start
        while v != -1 and state[v] == 0:
            state[v] = 1
            path.append(v)
            v = parent[v]
        if v != -1 and state[v] == 1:
            return path[path.index(v):]
        for w in path:
            state[w] = 2
    return None



# ---------------------------------------------------------------------------------------------
# --- causal paths and adjustment
# ---------------------------------------------------------------------------------------------
# A (partially) directed graph on ids is given by three lists of sets: ``parents[v]`` (u with
# u -> v), ``children[u]`` and ``neighbours[v]`` (undirected u - v). A DAG has empty
# neighbour sets. Paths are "possibly directed" when every edge is u -> v or u - v walked
# forwards (Perković et al. 2017: in a CPDAG such a walk contains an unshielded possibly
# causal path between its ends, so reachability along it is possible descendance).
def possible_descendants(children, neighbours, seeds, avoid=frozenset()):
    """Ids reachable from ``seeds`` along possibly directed paths (seeds included).

    Nodes in ``avoid`` are never entered (a seed in ``avoid`` is still a start).
    """
    result = set(seeds)
    stack = list(seeds)
    while stack:
        u = stack.pop()
        for v in children[u] | neighbours[u]:
            if v not in result and v not in avoid:
                result.add(v)
                stack.append(v)
    return result


def possible_ancestors(parents, neighbours, seeds, avoid=frozenset()):
    """Ids with a possibly directed path into ``seeds`` (seeds included), avoiding ``avoid``."""
    return possible_descendants(parents, neighbours, seeds, avoid)


def causal_nodes(parents, children, neighbours, xs, ys):
    """``cn(X, Y)``: the ids outside ``X`` on a proper possibly causal path from X to Y.

    A proper path meets ``X`` only at its first node, so
    ``cn = (possible descendants of X through non-X nodes) & (possible ancestors of Y
    through non-X nodes)``, both without ``X`` (Perković et al. 2018, Def. 3.8; on a DAG the
    causal nodes of Henckel et al. 2022).
    """
    xs = frozenset(xs)
    down = set()
    for x in xs:
        down |= possible_descendants(children, neighbours,
                                     (children[x] | neighbours[x]) - xs, xs)
    up = possible_ancestors(parents, neighbours, set(ys) - xs, xs)
    return down & up


def forbidden_nodes(parents, children, neighbours, xs, ys):
    """``Forb(X, Y) = X u PossDe(cn(X, Y))``: nodes no adjustment set may contain."""
    cn = causal_nodes(parents, children, neighbours, xs, ys)
    return set(xs) | possible_descendants(children, neighbours, cn)


def amenability_violation(parents, children, neighbours, xs, ys):
    """An undirected edge ``(x, w)`` starting a proper possibly causal path from X to Y, or None.

    The graph is *adjustment amenable* for ``(X, Y)`` iff there is none: every proper
    possibly causal path from ``X`` to ``Y`` starts with a directed edge out of ``X``
    (Perković et al. 2018, Def. 3.5). On a DAG there is never one.
    """
    xs = frozenset(xs)
    up = possible_ancestors(parents, neighbours, set(ys) - xs, xs)
    for x in sorted(xs):
        for w in sorted(neighbours[x] - xs):
            if w in up:
                return x, w
    return None


def proper_backdoor_edges(edges, xs, cn):
    """The DAG ``edges`` without the first edge ``x -> c`` (x in X, c in cn) of every proper
    causal path: the proper back-door graph of Perković et al. (2018), Def. 4.1."""
    return [(u, v) for u, v in edges if not (u in xs and v in cn)]


def local_parent_sets(parents, neighbours, adjacent, x):
    """Parent sets of ``x`` over the orientations of its undirected edges that create no
    new v-structure with collider ``x`` (local IDA, Maathuis, Kalisch & Bühlmann 2009).

    ``S`` of ``x``'s neighbours may point into ``x`` iff every two nodes of ``S`` are
    adjacent and every node of ``S`` is adjacent to every parent of ``x``. Returns sorted
    tuples ``parents[x] | S``, ``S`` enumerated by size then lexicographically.
    """
    from itertools import combinations

    pa = sorted(parents[x])
    nb = sorted(neighbours[x])
    out = []
    for k in range(len(nb) + 1):
        for subset in combinations(nb, k):
            if all(adjacent(a, b) for i, a in enumerate(subset) for b in subset[i + 1:]) and \
                    all(adjacent(s, p) for s in subset for p in pa):
                out.append(tuple(sorted(pa + list(subset))))
    return out


# --- Meek's rules and background knowledge
class MixedGraph:
    """Mutable partially directed graph on ids ``0 .. n-1`` (the orientation algorithms' graph).

    ``pa[v]`` / ``ch[u]`` are the sets of parents / children along directed edges, ``und[u]``
    the undirected neighbours. A pair of nodes carries at most one edge (the caller's duty).

    Parameters
    ----------
    n : int
        Number of nodes.
    directed, undirected : iterable of (int, int)
        Directed edges ``u -> v`` and undirected edges ``u - v`` (either orientation).
    """

    def __init__(self, n, directed=(), undirected=()):
        self.n = n
        self.pa = [set() for _ in range(n)]
        self.ch = [set() for _ in range(n)]
        self.und = [set() for _ in range(n)]
        for i, j in directed:
            self.pa[j].add(i)
            self.ch[i].add(j)
        for i, j in undirected:
            self.und[i].add(j)
            self.und[j].add(i)

    def copy(self):
        """An independent copy."""
        new = MixedGraph.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.pa = [set(s) for s in self.pa]
        new.ch = [set(s) for s in self.ch]
        new.und = [set(s) for s in self.und]
        return new

    def adj(self, i, j):
        """Whether ``i`` and ``j`` are joined by an edge of any kind."""
        return j in self.und[i] or j in self.pa[i] or j in self.ch[i]

    def orient(self, i, j):
        """Turn the undirected edge ``i - j`` (or no edge) into ``i -> j``."""
        self.und[i].discard(j)
        self.und[j].discard(i)
        self.pa[j].add(i)
        self.ch[i].add(j)

    def edge_lists(self):
        """``(directed, undirected)`` id pairs, sorted; undirected as ``(u, v)`` with ``u < v``."""
        directed = [(u, v) for u in range(self.n) for v in sorted(self.ch[u])]
        undirected = [(u, v) for u in range(self.n) for v in sorted(self.und[u]) if u < v]
        return directed, undirected


def meek_fires(g, a, b):
    """Which of Meek's rules (1-4) orients the undirected edge ``a - b`` as ``a -> b``; 0 if none.

    * R1: ``c -> a - b``, ``c``, ``b`` non-adjacent;
    * R2: ``a -> c -> b``;
    * R3: ``a - c -> b``, ``a - d -> b``, ``c``, ``d`` non-adjacent;
    * R4: ``a - c -> d -> b``, ``a`` adjacent to ``d``, ``c``, ``b`` non-adjacent (fires
      only with background knowledge: a CPDAG is closed under R1-R3 and never has it).

    Parameters
    ----------
    g : MixedGraph
    a, b : int
        The ends of an undirected edge of ``g``.

    Returns
    -------
    int
        The first rule that fires, in the order R1, R2, R3, R4; 0 if none does.
    """
    if any(not g.adj(c, b) for c in g.pa[a]):
        return 1
    if g.ch[a] & g.pa[b]:
        return 2
    cands = sorted(g.und[a] & g.pa[b])
    for k, c in enumerate(cands):
        for d in cands[k + 1:]:
            if not g.adj(c, d):
                return 3
    for d in sorted(g.pa[b]):
        if d != a and g.adj(a, d):
            for c in sorted(g.und[a] & g.pa[d]):
                if not g.adj(c, b):
                    return 4
    return 0


class MeekCloser:
    """Close a :class:`MixedGraph` under Meek's rules R1-R4, in place, never closing a cycle.

    Undirected edges are examined from a work list, smallest ``(u, v)`` first; when an edge
    is oriented only the undirected edges it can affect are queued again (those at its two
    ends, for R1-R3, and at the children of its head, for R4, where the head plays ``d``).
    A rule's orientation is refused when it would close a directed cycle (checked on the
    descendant bitsets of the acyclicity guard, as Tetrad's ``meekPreventCycles``) or when
    ``forbidden`` forbids it; if a rule supports the other direction that one is taken,
    otherwise the edge stays undirected. Rules supporting both directions (neither refused):
    ``u -> v`` for ``u < v``. Each of these is a *conflict*, impossible when the graph
    admits a consistent extension that respects ``forbidden`` (then the closure is unique,
    whatever the order: Meek 1995).

    Parameters
    ----------
    g : MixedGraph
        Modified in place; its directed edges must be acyclic (else ``ValueError``).
    forbidden : (n, n) bool array or None
        ``forbidden[u, v]``: the rules never orient ``u -> v``.
    """

    def __init__(self, g, forbidden=None):
        from skbn.graph import _Reachability  # moves to this module (the lead merges)

        self.g = g
        self.forbidden = forbidden
        self.guard = _Reachability(g.n, g.edge_lists()[0])
        self.heap = []
        self.queued = set()
        self.conflicts = set()

    def refused(self, u, v):
        """Whether ``u -> v`` may not be added (cycle or forbidden)."""
        return self.guard.closes_cycle(u, v) or (
            self.forbidden is not None and bool(self.forbidden[u, v]))

    def push_incident(self, k):
        """Queue the undirected edges at ``k``."""
        for m in self.g.und[k]:
            e = (min(k, m), max(k, m))
            if e not in self.queued:
                self.queued.add(e)
                heapq.heappush(self.heap, e)

    def orient(self, u, v):
        """Orient ``u - v`` (or add) as ``u -> v`` and queue what it can affect; the caller
        checked :meth:`refused`."""
        g = self.g
        g.orient(u, v)
        self.guard.add(u, v)
        self.push_incident(u)
        self.push_incident(v)
        for c in sorted(g.ch[v]):
            self.push_incident(c)

    def close(self, all_edges=False):
        """Apply the rules until none fires (``all_edges``: queue every undirected edge first).

        Returns
        -------
        set of (u, v)
            All conflicts so far, ``u < v``.
        """
        g = self.g
        if all_edges:
            for k in range(g.n):
                self.push_incident(k)
        heap, queued = self.heap, self.queued
        while heap:
            u, v = heapq.heappop(heap)
            queued.discard((u, v))
            if v not in g.und[u]:
                continue
            forward = meek_fires(g, u, v) > 0
            backward = meek_fires(g, v, u) > 0
            if forward and backward:
                self.conflicts.add((u, v))
            if forward and self.refused(u, v):
                self.conflicts.add((u, v))
                forward = False
            if backward and self.refused(v, u):
                self.conflicts.add((u, v))
                backward = False
            if forward:
                self.orient(u, v)
            elif backward:
                self.orient(v, u)
        return self.conflicts


def knowledge_directions(required, forbidden):
    """The directions background knowledge fixes on an adjacency, as a ``(n, n)`` bool matrix.

    ``u -> v`` is fixed when it is a one-way required edge (``required[u, v]`` and not
    ``required[v, u]``) or when ``v -> u`` is forbidden and ``u -> v`` is not (an adjacency
    with one direction forbidden has the other one).
    """
    required = np.asarray(required, dtype=bool)
    forbidden = np.asarray(forbidden, dtype=bool)
    return (required & ~required.T) | (forbidden.T & ~forbidden)


def orient_with_knowledge(g, required, forbidden):
    """Maximally oriented PDAG of a PDAG with background knowledge (Meek 1995), on ids.

    ``g`` is closed under R1-R4 (:class:`MeekCloser`); then every adjacency whose direction
    the knowledge fixes (:func:`knowledge_directions`) is taken in turn, smallest ``(u, v)``
    first: kept if already directed that way, else oriented, and the graph closed again
    under R1-R4 (the rules never orient a forbidden direction). This is Meek's (1995)
    procedure: when ``g`` is a CPDAG (or a pattern: skeleton and v-structures) and the
    knowledge is consistent with its class, i.e. some DAG of the class has every required
    edge and no forbidden one, the result is the *maximally oriented PDAG*: its directed
    edges are exactly those directed the same way in every such DAG, and each undirected
    edge is oriented each way by one of them. R4 is needed here (it never fires on a CPDAG).

    **Inconsistent knowledge** is found by the same procedure (Meek 1995, theorem 4): a
    fixed direction whose edge is already directed the other way, or whose orientation would
    close a directed cycle, or a required edge between non-adjacent nodes, or an adjacency
    forbidden both ways. Each such ``(u, v)`` (the direction asked for) is returned as a
    knowledge conflict and skipped; rule conflicts as in :class:`MeekCloser`. The output is
    always a PDAG with an acyclic directed part and the input's adjacencies.

    Parameters
    ----------
    g : MixedGraph
        Not modified; directed part acyclic.
    required, forbidden : (n, n) bool arrays
        ``required[u, v]`` / ``forbidden[u, v]``: the edge ``u -> v`` is required / forbidden
        (:class:`skbn.knowledge.BackgroundKnowledge`; a pair required both ways is a required
        adjacency of free direction).

    Returns
    -------
    out : MixedGraph
        The maximally oriented PDAG.
    knowledge_conflicts : list of (u, v)
        Sorted directions ``u -> v`` the knowledge asks for and the class refuses (for a
        forbidden adjacency both ways: ``u < v``).
    rule_conflicts : list of (u, v)
        Sorted edges ``u < v`` on which a rule was refused or rules disagreed.
    """
    required = np.asarray(required, dtype=bool)
    forbidden = np.asarray(forbidden, dtype=bool)
    out = g.copy()
    closer = MeekCloser(out, forbidden)
    closer.close(all_edges=True)
    wanted = knowledge_directions(required, forbidden)
    bad = set()
    for u, v in np.argwhere((required | required.T) & ~np.eye(g.n, dtype=bool)):
        if u < v and not out.adj(u, v):
            bad.add((int(u), int(v)) if required[u, v] else (int(v), int(u)))
    for u, v in np.argwhere(np.triu(forbidden & forbidden.T, 1)):
        if out.adj(u, v):
            bad.add((int(u), int(v)))
    for u, v in np.argwhere(wanted):
        u, v = int(u), int(v)
        if v in out.ch[u] or not out.adj(u, v):
            continue
        if u in out.ch[v] or closer.guard.closes_cycle(u, v):
            bad.add((u, v))
            continue
        closer.orient(u, v)
        closer.close()
    return out, sorted(bad), sorted(closer.conflicts)


def v_structure_pattern(g):
    """The pattern of ``g``: its skeleton with only the arrows of its v-structures.

    A v-structure is ``a -> c <- b`` with ``a``, ``b`` non-adjacent. Closing the pattern of
    a DAG, or of a PDAG that admits a consistent extension, under Meek's rules gives the
    CPDAG of its (extensions') Markov equivalence class (Meek 1995, theorem 3).

    Parameters
    ----------
    g : MixedGraph

    Returns
    -------
    MixedGraph
        Of the class of ``g`` (whose constructor takes ``(n, directed, undirected)``).
    """
    arrows = set()
    for c in range(g.n):
        parents = sorted(g.pa[c])
        for k, a in enumerate(parents):
            for b in parents[k + 1:]:
                if not g.adj(a, b):
                    arrows.add((a, c))
                    arrows.add((b, c))
    directed, undirected = g.edge_lists()
    undirected = undirected + [(min(e), max(e)) for e in directed if e not in arrows]
    return type(g)(g.n, sorted(arrows), undirected)


def complete_pdag(g):
    """CPDAG of the class of a DAG, or of the consistent extensions of a PDAG, on ids.

    Its v-structure pattern (:func:`v_structure_pattern`) closed under Meek's rules: the
    compelled edges directed, the reversible ones undirected (Meek 1995). The PDAG must
    admit a consistent extension (e.g. the result of a valid GES operator).

    Parameters
    ----------
    g : MixedGraph
        Not modified.

    Returns
    -------
    MixedGraph
        Of the class of ``g``.
    """
    out = v_structure_pattern(g)
    MeekCloser(out).close(all_edges=True)
    return out
