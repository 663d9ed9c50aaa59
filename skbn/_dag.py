"""The integer graph kernel: every graph traversal of skbn, on node ids.

Private. Graphs are boolean adjacency matrices (``adjacency[u, v]``: an edge u -> v),
integer parent lists or Python-int bitsets over node ids ``0 .. p-1``; nothing here knows
a column name. :mod:`skbn.graph` is the public, labelled toolkit on top of it.
"""


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
