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


# --- interventional equivalence
def interventional_essential_graph(n, edges, targets):
    r"""The interventional essential graph of a DAG on nodes ``0 .. n-1`` (Hauser & Bühlmann 2012).

    For a family of intervention targets :math:`\mathcal{I}` (sets of nodes), two DAGs
    :math:`D_1, D_2` are :math:`\mathcal{I}`-Markov equivalent iff they have the same
    skeleton, the same v-structures and, for every target :math:`I`, the same skeleton after
    removing the edges into :math:`I` (their Theorem 10). With equal skeletons the last
    condition says that every edge with exactly one endpoint in some target has the same
    orientation in both. The essential graph of the class (the edges oriented alike in all
    of its DAGs directed, the others undirected) is the closure under Meek's rules R1-R4 of
    the observational essential graph (CPDAG) with those edges oriented as in the DAG.

    Parameters
    ----------
    n : int
    edges : iterable of (parent, child) int pairs
        A DAG.
    targets : iterable of iterables of int
        The intervention targets (the empty target, observational data, orients nothing).

    Returns
    -------
    directed : list of (u, v)
        Sorted edges oriented alike in every DAG of the class.
    undirected : list of (u, v), u < v
        Sorted edges oriented both ways within the class.

    References
    ----------
    A. Hauser and P. Bühlmann, "Characterization and greedy learning of interventional
    Markov equivalence classes of directed acyclic graphs", JMLR 13 (2012) 2409-2464.
    """
    from skbn.graph import PDAG, dag_to_cpdag, meek_orient  # the labelled toolkit, on ids

    edges = [(int(u), int(v)) for u, v in edges]
    cpdag = dag_to_cpdag(range(n), edges)
    in_target = np.zeros((0, n), dtype=bool)
    rows = [np.isin(np.arange(n), list(t)) for t in targets]
    if rows:
        in_target = np.array(rows)
    # an edge u - v is oriented by a target holding exactly one of its endpoints
    oriented = {(u, v) for u, v in edges if (in_target[:, u] != in_target[:, v]).any()}
    if not oriented.difference(cpdag.directed):  # nothing beyond the CPDAG, closed already
        return sorted(cpdag.directed), sorted(cpdag.undirected)
    directed = set(cpdag.directed) | oriented
    undirected = [(u, v) for u, v in cpdag.undirected if (u, v) not in oriented and (v, u) not in oriented]
    closed = meek_orient(PDAG(tuple(range(n)), sorted(directed), undirected))
    return sorted(closed.directed), sorted(closed.undirected)
