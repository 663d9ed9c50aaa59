"""The integer graph kernel skbn/_dag.py, against independent answers.

References: brute force over every directed graph / DAG on 3 and 4 nodes (acyclicity by
trying every permutation, reachability by Warshall's algorithm, Markov equivalence classes
by grouping all DAGs by skeleton and v-structures), the definitions (sweeps, Kahn with the
smallest ready node), and networkx (test-only) for orders, ancestors, d-separation,
components, the moral graph and depth-first order; larger random graphs with fixed seeds.
"""

import itertools

import networkx as nx
import numpy as np
import pytest

from skbn import _dag

_nx_dsep = getattr(nx, "is_d_separator", None) or nx.d_separated


# ---------------------------------------------------------------------------------------------
# independent references (no skbn code)
# ---------------------------------------------------------------------------------------------
def all_digraphs(n):
    """Every directed graph without self loops on ``n`` nodes, as boolean matrices."""
    pairs = [(i, j) for i in range(n) for j in range(n) if i != j]
    for mask in range(2 ** len(pairs)):
        A = np.zeros((n, n), dtype=bool)
        for k, (i, j) in enumerate(pairs):
            if mask >> k & 1:
                A[i, j] = True
        yield A


def brute_acyclic(A):
    n = A.shape[0]
    return any(all(not A[perm[b], perm[a]] for a in range(n) for b in range(a + 1, n))
               for perm in itertools.permutations(range(n)))


def closure_acyclic(A):
    """Acyclic iff no node reaches itself (Warshall), for graphs too big to permute."""
    return not warshall(A).diagonal().any()


def all_dags(n):
    """Every DAG on ``n`` nodes: each pair absent, forward or backward, kept if acyclic."""
    pairs = list(itertools.combinations(range(n), 2))
    for choice in itertools.product((0, 1, 2), repeat=len(pairs)):
        A = np.zeros((n, n), dtype=bool)
        for (i, j), c in zip(pairs, choice):
            if c == 1:
                A[i, j] = True
            elif c == 2:
                A[j, i] = True
        if brute_acyclic(A):
            yield A


def warshall(A):
    """``R[i, j]``: a directed path of length >= 1 from i to j."""
    R = A.copy()
    for k in range(A.shape[0]):
        R = R | (R[:, [k]] & R[[k], :])
    return R


def lists(A):
    n = A.shape[0]
    parents = [set(np.flatnonzero(A[:, j]).tolist()) for j in range(n)]
    children = [set(np.flatnonzero(A[i]).tolist()) for i in range(n)]
    return parents, children


def pairs_of(A):
    return [(int(i), int(j)) for i, j in zip(*np.nonzero(A))]


def to_nx(A):
    G = nx.DiGraph()
    G.add_nodes_from(range(A.shape[0]))
    G.add_edges_from(pairs_of(A))
    return G


def random_dag_matrix(rng, n, density):
    order = rng.permutation(n)
    return np.triu(rng.random_sample((n, n)) < density, k=1)[np.ix_(order, order)]


def v_structs(A):
    n = A.shape[0]
    adj = A | A.T
    return {(a, c, b) for c in range(n) for a in range(n) for b in range(a + 1, n)
            if A[a, c] and A[b, c] and not adj[a, b]}


# ---------------------------------------------------------------------------------------------
# order, reachability, cycles
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [3, 4])
def test_topological_order_and_cycles_on_every_digraph(n):
    n_cyclic = 0
    for A in all_digraphs(n):
        parents, children = lists(A)
        order, leftover = _dag.topological_ids(n, parents, children)
        acyclic = brute_acyclic(A)
        assert (not leftover) == acyclic
        if acyclic:
            valid = [list(p) for p in itertools.permutations(range(n))
                     if all(not A[p[b], p[a]] for a in range(n) for b in range(a + 1, n))]
            assert order == min(valid)  # smallest ready node first = lexicographic minimum
            assert order == list(nx.lexicographical_topological_sort(to_nx(A)))
        else:
            n_cyclic += 1
            cycle = _dag.find_cycle(parents, leftover)
            assert len(set(cycle)) == len(cycle) >= 2
            assert all(A[u, v] for u, v in zip(cycle, cycle[1:] + cycle[:1]))
            with pytest.raises(ValueError, match="has a cycle: "):
                _dag._acyclic_ids("abcd"[:n], pairs_of(A), "it has a cycle")
    assert n_cyclic > 0


def test_acyclic_ids_names_the_cycle():
    with pytest.raises(ValueError, match=r"cyclic: 'c' -> 'b' -> 'c'"):
        _dag._acyclic_ids("abc", [(0, 1), (1, 2), (2, 1)], "cyclic")
    parents, children, order = _dag._acyclic_ids("abc", [(2, 0), (0, 1)])
    assert order == [2, 0, 1] and parents[1] == {0} and children[2] == {0}


def cycle_breaking_reference(n, pairs):
    """Definition: the smallest unplaced node whose parents (with multiplicity) are all
    placed, else the smallest unplaced node."""
    order = []
    while len(order) < n:
        rest = [v for v in range(n) if v not in order]
        ready = [v for v in rest if all(i in order for i, j in pairs if j == v)]
        order.append(ready[0] if ready else rest[0])
    return order


def test_cycle_breaking_order():
    rng = np.random.RandomState(0)
    for _ in range(300):
        n = rng.randint(1, 9)
        A = (rng.random_sample((n, n)) < rng.random_sample() * 0.5) & ~np.eye(n, dtype=bool)
        pairs = pairs_of(A)
        rng.shuffle(pairs)
        order = _dag.cycle_breaking_order(n, pairs)
        assert order == cycle_breaking_reference(n, pairs)
        if closure_acyclic(A):
            assert order == _dag.topological_ids(n, *lists(A))[0]
    assert _dag.cycle_breaking_order(3, [(0, 1), (1, 0), (1, 2)]) == [0, 1, 2]


def sweep_reference(parents):
    order, placed = [], set()
    while len(order) < len(parents):
        for v, pa in enumerate(parents):
            if v not in placed and set(pa) <= placed:
                placed.add(v)
                order.append(v)
    return order


def test_sweep_order():
    # node 0 has parent 1: the first sweep places 1 and 2, the second 0
    assert _dag.sweep_order([[1], [], []]) == [1, 2, 0]
    rng = np.random.RandomState(1)
    for _ in range(300):
        A = random_dag_matrix(rng, rng.randint(1, 10), rng.random_sample())
        parents = [sorted(p) for p in lists(A)[0]]
        assert _dag.sweep_order(parents) == sweep_reference(parents)
    with pytest.raises(ValueError, match="cycle"):
        _dag.sweep_order([[1], [0]])


@pytest.mark.parametrize("n", [3, 4])
def test_reachability_on_every_dag(n):
    for A in all_dags(n):
        R = warshall(A)
        parents, children = lists(A)
        np.testing.assert_array_equal(_dag.transitive_closure(A), R)
        for s in range(n):
            assert _dag.ancestor_ids(parents, {s}) == {s} | set(np.flatnonzero(R[:, s]).tolist())
            assert _dag.ancestor_ids(children, {s}) == {s} | set(np.flatnonzero(R[s]).tolist())
            for t in range(n):
                assert _dag.has_path(children, s, t) == R[s, t]
                target = np.zeros(n, dtype=bool)
                target[t] = True
                assert _dag.reaches_any(A, s, target) == R[s, t]


def test_reachability_on_random_dags_against_networkx():
    rng = np.random.RandomState(2)
    for p in (1, 2, 7, 40, 130):
        A = random_dag_matrix(rng, p, 3.0 / p)
        G = to_nx(A)
        R = _dag.transitive_closure(A)
        np.testing.assert_array_equal(R, warshall(A))
        parents, _ = lists(A)
        for s in rng.choice(p, size=min(p, 10), replace=False).tolist():
            assert _dag.ancestor_ids(parents, {s}) - {s} == nx.ancestors(G, s)
            assert set(np.flatnonzero(R[s]).tolist()) == nx.descendants(G, s)
        seeds = set(rng.choice(p, size=min(p, 3), replace=False).tolist())
        expected = set(seeds).union(*(nx.ancestors(G, s) for s in seeds))
        assert _dag.ancestor_ids(parents, seeds) == expected


def test_growing_reachability_guard():
    rng = np.random.RandomState(3)
    for _ in range(30):
        n = rng.randint(2, 12)
        A = np.zeros((n, n), dtype=bool)
        guard = _dag._Reachability(n)
        for _ in range(3 * n):
            i, j = rng.randint(n, size=2).tolist()
            R = warshall(A)
            assert guard.closes_cycle(i, j) == (i == j or R[j, i])
            if guard.closes_cycle(i, j):
                continue
            guard.add(i, j)
            A[i, j] = True
            R = warshall(A)
            for u in range(n):
                assert guard.desc[u] == sum(1 << int(v) for v in np.flatnonzero(R[u]))
                assert guard.anc[u] == sum(1 << int(v) for v in np.flatnonzero(R[:, u]))
                assert all(guard.reaches(u, v) == R[u, v] for v in range(n))
    with pytest.raises(ValueError, match="cycle"):
        _dag._Reachability(2, [(0, 1), (1, 0)])


def test_dynamic_reachability_under_random_moves():
    rng = np.random.RandomState(4)
    for n in (2, 5, 12):
        A = random_dag_matrix(rng, n, 0.3)
        dag = _dag.DynamicReachability(n)
        dag.set_graph(A)
        for _ in range(150):
            R = warshall(A)
            np.testing.assert_array_equal(dag.matrix(), R)
            for j in range(n):
                assert dag.parent_ids(j) == tuple(np.flatnonzero(A[:, j]).tolist())
            i, j = rng.randint(n, size=2).tolist()
            if i == j:
                continue
            sources, targets = (int(b) for b in rng.randint(1 << n, size=2))
            reach_or_self = R | np.eye(n, dtype=bool)
            expected = any(reach_or_self[s, t] for s in range(n) for t in range(n)
                           if sources >> s & 1 and targets >> t & 1)
            assert dag.reaches_bits(sources, targets) == expected
            if A[i, j]:
                B = A.copy()
                B[i, j], B[j, i] = False, True
                assert dag.reverse_closes_cycle(i, j) == (not closure_acyclic(B))
                if rng.random_sample() < 0.5:
                    dag.remove(i, j)
                    A[i, j] = False
                elif closure_acyclic(B):
                    dag.remove(i, j)
                    dag.add(j, i)
                    A = B
            elif not A[j, i]:
                B = A.copy()
                B[i, j] = True
                assert dag.add_closes_cycle(i, j) == (not closure_acyclic(B))
                if closure_acyclic(B):
                    dag.add(i, j)
                    A = B


def test_bitset_helpers():
    rng = np.random.RandomState(5)
    for p in (1, 7, 8, 9, 70):
        M = rng.random_sample((p, p)) < 0.3
        rows = _dag.row_bits(M)
        assert rows == [sum(1 << int(j) for j in np.flatnonzero(row)) for row in M]
        np.testing.assert_array_equal(_dag.bits_to_matrix(rows, p), M)
        assert [_dag.bit_ids(b) for b in rows] == [np.flatnonzero(row).tolist() for row in M]


# ---------------------------------------------------------------------------------------------
# components, moral graph, Markov blanket, depth-first order
# ---------------------------------------------------------------------------------------------
def test_components_against_networkx():
    rng = np.random.RandomState(6)
    for _ in range(100):
        n = rng.randint(1, 15)
        S = np.triu(rng.random_sample((n, n)) < 0.15, k=1)
        S = S | S.T
        neighbours = [set(np.flatnonzero(row).tolist()) for row in S]
        nodes = set(np.flatnonzero(rng.random_sample(n) < 0.7).tolist())
        G = nx.Graph()
        G.add_nodes_from(nodes)
        G.add_edges_from((u, v) for u in nodes for v in neighbours[u] if v in nodes)
        expected = sorted(sorted(c) for c in nx.connected_components(G))
        assert _dag.components(nodes, neighbours) == expected


def test_moral_graph_and_markov_blanket_against_networkx():
    rng = np.random.RandomState(7)
    for _ in range(100):
        n = rng.randint(1, 12)
        A = random_dag_matrix(rng, n, rng.random_sample())
        parents, children = lists(A)
        moral = nx.moral_graph(to_nx(A))
        neighbours = _dag.moral_neighbours(parents)
        assert neighbours == [set(moral[v]) for v in range(n)]
        for v in range(n):
            # the Markov blanket is the node's neighbourhood in the moral graph
            assert _dag.markov_blanket_ids(parents, children, v) == sorted(moral[v])


def test_depth_first_order_against_networkx():
    rng = np.random.RandomState(8)
    for _ in range(100):
        n = rng.randint(1, 15)
        S = np.triu(rng.random_sample((n, n)) < 0.2, k=1)
        G = nx.Graph()
        G.add_nodes_from(range(n))
        G.add_edges_from(sorted(pairs_of(S)))  # each adjacency list in increasing order
        neighbours = [sorted(G[v]) for v in range(n)]
        assert _dag.depth_first_order(neighbours) == list(nx.dfs_preorder_nodes(G))


# ---------------------------------------------------------------------------------------------
# d-separation
# ---------------------------------------------------------------------------------------------
def test_d_separation_on_every_dag_of_four_nodes():
    n = 4
    for A in all_dags(n):
        parents, children = lists(A)
        order = _dag.topological_ids(n, parents, children)[0]
        oracle = _dag._DSeparation(parents, order)
        G = to_nx(A)
        for x, y in itertools.combinations(range(n), 2):
            rest = [v for v in range(n) if v not in (x, y)]
            for k in range(len(rest) + 1):
                for z in itertools.combinations(rest, k):
                    assert oracle.separated({x}, {y}, set(z)) == _nx_dsep(G, {x}, {y}, set(z))


def test_d_separation_of_sets_on_random_dags():
    rng = np.random.RandomState(9)
    for _ in range(40):
        n = rng.randint(5, 25)
        A = random_dag_matrix(rng, n, 2.5 / n)
        parents, children = lists(A)
        oracle = _dag._DSeparation(parents, _dag.topological_ids(n, parents, children)[0])
        G = to_nx(A)
        for _ in range(25):
            labels = rng.randint(4, size=n)  # 0: x, 1: y, 2: z, 3: none
            xs, ys, zs = (set(np.flatnonzero(labels == k).tolist()) for k in range(3))
            if xs and ys:
                assert oracle.separated(xs, ys, zs) == _nx_dsep(G, xs, ys, zs)


# ---------------------------------------------------------------------------------------------
# v-structures, CPDAG, extension, minimal I-map
# ---------------------------------------------------------------------------------------------
def test_v_structures_by_brute_force():
    rng = np.random.RandomState(10)
    for _ in range(200):
        A = random_dag_matrix(rng, rng.randint(1, 9), rng.random_sample())
        adj = A | A.T
        found = _dag.v_structure_ids(lists(A)[0], lambda a, b: adj[a, b])
        assert found == sorted(v_structs(A))


def equivalence_classes(n):
    classes = {}
    for A in all_dags(n):
        skeleton = frozenset(map(frozenset, pairs_of(A)))
        classes.setdefault((skeleton, frozenset(v_structs(A))), []).append(A)
    return classes


@pytest.mark.parametrize("n", [3, 4])
def test_cpdag_labelling_and_extension_on_every_dag(n):
    # an edge is compelled iff every Markov-equivalent DAG has it in the same direction
    classes = equivalence_classes(n)
    assert sum(len(c) for c in classes.values()) == {3: 25, 4: 543}[n]
    for members in classes.values():
        always = np.logical_and.reduce(members)
        for A in members:
            parents, children = lists(A)
            order = _dag.topological_ids(n, parents, children)[0]
            compelled, reversible = _dag.cpdag_ids(parents, order)
            assert compelled == pairs_of(A & always)
            assert reversible == pairs_of(A & ~always)
            # the extension of the CPDAG is a member of the class
            undirected = [(min(e), max(e)) for e in reversible]
            edges, forced = _dag.extension_ids(n, compelled, undirected)
            assert forced == []
            B = np.zeros((n, n), dtype=bool)
            for i, j in edges:
                B[i, j] = True
            assert any(np.array_equal(B, M) for M in members)


def consistent_extensions(n, directed, undirected):
    """Every DAG with the PDAG's skeleton, its directed edges and its v-structures."""
    D = np.zeros((n, n), dtype=bool)
    for i, j in directed:
        D[i, j] = True
    adj = D | D.T
    for i, j in undirected:
        adj[i, j] = adj[j, i] = True
    pdag_v = {(a, c, b) for c in range(n) for a in range(n) for b in range(a + 1, n)
              if D[a, c] and D[b, c] and not adj[a, b]}
    out = []
    for flips in itertools.product((False, True), repeat=len(undirected)):
        B = D.copy()
        for (i, j), f in zip(undirected, flips):
            B[j, i] = f
            B[i, j] = not f
        if closure_acyclic(B) and v_structs(B) == pdag_v:
            out.append(B)
    return out


def test_extension_of_random_pdags_by_brute_force():
    rng = np.random.RandomState(11)
    n_consistent = n_stuck = 0
    for _ in range(300):
        n = rng.randint(2, 7)
        A = random_dag_matrix(rng, n, 0.6)
        directed, undirected = [], []
        for i, j in pairs_of(A):
            if rng.random_sample() < 0.6:
                undirected.append((min(i, j), max(i, j)))
            else:
                directed.append((i, j))
        directed, undirected = sorted(directed), sorted(undirected)
        edges, forced = _dag.extension_ids(n, directed, undirected)
        masks = _dag.node_masks(_dag.MixedGraph(n, directed, undirected))  # (adj, und, pa)
        assert _dag.extension_of_masks(n, masks[2], masks[1]) == (edges, forced)
        assert masks == _dag.node_masks(_dag.MixedGraph(n, directed, undirected))  # unmodified
        B = np.zeros((n, n), dtype=bool)
        for i, j in edges:
            B[i, j] = True
        assert edges == sorted(edges) and set(directed) <= set(edges)
        assert np.array_equal(B | B.T, A | A.T) and closure_acyclic(B)
        extensions = consistent_extensions(n, directed, undirected)
        assert (forced == []) == bool(extensions)
        if extensions:
            n_consistent += 1
            assert any(np.array_equal(B, E) for E in extensions)
        else:
            n_stuck += 1
            assert set(forced) <= set(edges) and forced
    assert n_consistent and n_stuck
    # the chordless 4-cycle has no consistent extension
    square = [(0, 1), (1, 2), (2, 3), (0, 3)]
    assert _dag.extension_ids(4, [], square)[1]


def test_extension_removes_the_smallest_removable_node_first():
    # the chain 0 - 1 - 2: 0 and 2 are removable, 1 is not (0, 2 non-adjacent). Removing 0
    # first orients 1 -> 0; then 1 (its one neighbour 2) gives 2 -> 1. (Removing 2 first
    # would give 0 -> 1 -> 2.)
    assert _dag.extension_ids(3, [], [(0, 1), (1, 2)]) == ([(1, 0), (2, 1)], [])
    assert _dag.extension_of_masks(3, [0, 0, 0], [0b10, 0b101, 0b10]) == ([(1, 0), (2, 1)], [])
    # 0 -> 2 and 1 - 2: 1 is removable first (2 is not: its parent 0 is not adjacent to 1),
    # orienting 2 -> 1; then 2, then 0
    assert _dag.extension_ids(3, [(0, 2)], [(1, 2)]) == ([(0, 2), (2, 1)], [])


def test_minimal_imap_with_a_d_separation_oracle_gives_the_parents():
    rng = np.random.RandomState(12)
    for _ in range(60):
        n = rng.randint(1, 8)
        A = np.triu(rng.random_sample((n, n)) < rng.random_sample(), k=1)  # 0..n-1 topological
        parents, children = lists(A)
        oracle = _dag._DSeparation(parents, list(range(n)))
        calls = []

        def independent(i, ys, zs, oracle=oracle, calls=calls):
            calls.append((i, list(ys), list(zs)))
            return oracle.separated({i}, set(ys), set(zs))

        assert _dag.minimal_imap_ids(n, independent) == pairs_of(A)
        assert all(ys == sorted(ys) and zs == sorted(zs) for _, ys, zs in calls)
