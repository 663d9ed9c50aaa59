"""The integer graph kernel: every graph traversal of skbn, on node ids.

Private. Graphs are boolean adjacency matrices (``adjacency[u, v]``: an edge u -> v),
integer parent lists or Python-int bitsets over node ids ``0 .. p-1``; nothing here knows
a column name. :mod:`skbn.graph` is the public, labelled toolkit on top of it.
"""

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
