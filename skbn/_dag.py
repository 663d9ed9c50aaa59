"""The integer graph kernel: every graph traversal of skbn, on node ids.

Private. Graphs are boolean adjacency matrices (``adjacency[u, v]``: an edge u -> v),
integer parent lists or Python-int bitsets over node ids ``0 .. p-1``; nothing here knows
a column name. :mod:`skbn.graph` is the public, labelled toolkit on top of it.
"""

import heapq

import numpy as np


# ---------------------------------------------------------------------------------------------
# --- representations: parent / child sets, bitsets
# ---------------------------------------------------------------------------------------------
def parents_children(n, pairs):
    """Parent and child sets of every node of the directed pairs ``(i, j)``: ``i -> j``."""
    parents = [set() for _ in range(n)]
    children = [set() for _ in range(n)]
    for i, j in pairs:
        parents[j].add(i)
        children[i].add(j)
    return parents, children


def row_bits(matrix):
    """Each row of a boolean matrix as a Python-int bitset (column ``j`` -> bit ``j``)."""
    packed = np.packbits(matrix, axis=1, bitorder="little")
    return [int.from_bytes(row.tobytes(), "little") for row in packed]


def bits_to_matrix(rows, p):
    """Boolean matrix whose row ``i`` has the bits of ``rows[i]`` (bit ``j`` -> column ``j``)."""
    width = (p + 7) // 8
    packed = np.frombuffer(b"".join(bits.to_bytes(width, "little") for bits in rows), dtype=np.uint8)
    return np.unpackbits(packed.reshape(p, width), axis=1, count=p, bitorder="little").astype(bool)


def bit_ids(bits):
    """The set bits of a Python-int bitset, increasing."""
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return out


# ---------------------------------------------------------------------------------------------
# --- order, reachability, cycles
# ---------------------------------------------------------------------------------------------
def topological_ids(n, parents, children):
    """Kahn's algorithm, the smallest ready id first. Returns ``(order, leftover)``.

    ``leftover``: the ids never placed (increasing), empty iff the graph is acyclic; every
    leftover node has a leftover parent, so they contain a directed cycle.
    """
    indegree = [len(p) for p in parents]
    heap = [i for i in range(n) if indegree[i] == 0]
    heapq.heapify(heap)
    order = []
    while heap:
        i = heapq.heappop(heap)
        order.append(i)
        for j in children[i]:
            indegree[j] -= 1
            if indegree[j] == 0:
                heapq.heappush(heap, j)
    leftover = [i for i in range(n) if indegree[i] > 0]
    return order, leftover


def cycle_breaking_order(n, pairs):
    """An order of all ``n`` ids, a topological one when the pairs are acyclic.

    Kahn's algorithm, the smallest ready id first; when no id is ready (a cycle), the
    smallest unplaced id is placed next, which breaks the cycles through it.
    """
    indegree = [0] * n
    children = [[] for _ in range(n)]
    for i, j in pairs:
        indegree[j] += 1
        children[i].append(j)
    heap = [v for v in range(n) if indegree[v] == 0]
    heapq.heapify(heap)
    done = [False] * n
    order, smallest = [], 0
    while len(order) < n:
        v = None
        while heap:
            u = heapq.heappop(heap)
            if not done[u]:
                v = u
                break
        if v is None:
            while done[smallest]:
                smallest += 1
            v = smallest
        done[v] = True
        order.append(v)
        for c in children[v]:
            indegree[c] -= 1
            if indegree[c] == 0 and not done[c]:
                heapq.heappush(heap, c)
    return order


def sweep_order(parents):
    """Topological order of repeated sweeps: scanning the ids in increasing order again
    and again, a node is placed as soon as all its parents are (earlier in the same sweep
    included); the graph must be acyclic.

    Node ``v`` is placed in sweep ``s(v) = max_p (s(p) + [p > v])`` (0 without parents),
    so the order sorts by ``(s(v), v)``; computed along a Kahn order in ``O(n + e)``.
    """
    n = len(parents)
    children = [[] for _ in range(n)]
    for v, pa in enumerate(parents):
        for p in pa:
            children[p].append(v)
    order, leftover = topological_ids(n, parents, children)
    if leftover:
        raise ValueError("the graph has a directed cycle")
    sweep = [0] * n
    for v in order:
        sweep[v] = max((sweep[p] + (p > v) for p in parents[v]), default=0)
    return sorted(range(n), key=lambda v: (sweep[v], v))


def find_cycle(parents, leftover):
    """A directed cycle among ``leftover`` (every leftover node has a leftover parent).

    Walks from the smallest leftover id to its smallest leftover parent until a node
    repeats; returns the cycle's ids in the direction of the arrows.
    """
    remaining = set(leftover)
    seen = {}
    path = []
    i = min(leftover)
    while i not in seen:
        seen[i] = len(path)
        path.append(i)
        i = min(p for p in parents[i] if p in remaining)
    cycle = path[seen[i]:]
    cycle.reverse()  # we walked parent links: reverse to follow the arrows
    return cycle


def _acyclic_ids(nodes, directed, what="the directed edges of the PDAG have a cycle"):
    """``(parents, children, topological order)`` of the directed pairs (ids); raise
    ``ValueError`` starting with ``what`` and naming a cycle (by ``nodes[i]``, the labels
    used only for the message) if they are cyclic."""
    parents, children = parents_children(len(nodes), directed)
    order, leftover = topological_ids(len(nodes), parents, children)
    if leftover:
        cycle = find_cycle(parents, leftover)
        labels = " -> ".join(repr(nodes[i]) for i in cycle + cycle[:1])
        raise ValueError(f"{what}: {labels}")
    return parents, children, order


def ancestor_ids(parents, seeds):
    """The seeds and all their ancestors (a set of ids). With ``children`` in place of
    ``parents``: the seeds and their descendants."""
    result = set(seeds)
    stack = list(seeds)
    while stack:
        i = stack.pop()
        for p in parents[i]:
            if p not in result:
                result.add(p)
                stack.append(p)
    return result


def has_path(children, source, target):
    """Whether a directed path of length >= 1 leads from ``source`` to ``target``."""
    seen = set()
    stack = list(children[source])
    while stack:
        i = stack.pop()
        if i == target:
            return True
        if i not in seen:
            seen.add(i)
            stack.extend(children[i])
    return False


def reaches_any(adjacency, source, targets):
    """Whether a directed path of length >= 1 leads from ``source`` to a node ``v`` with
    ``targets[v]`` (``adjacency``: boolean matrix, ``targets``: boolean vector)."""
    seen = np.zeros(adjacency.shape[0], dtype=bool)
    stack = [source]
    seen[source] = True
    while stack:
        v = stack.pop()
        for c in np.flatnonzero(adjacency[v] & ~seen).tolist():
            if targets[c]:
                return True
            seen[c] = True
            stack.append(c)
    return False


def closure_bits(adjacency):
    """Reachability of a DAG as Python-int bitsets: bit ``j`` of ``[i]`` set iff ``i ~> j``
    (a directed path of length >= 1).

    One pass in reverse topological order (Kahn's algorithm),
    ``reach(v) = OR_{c child of v} (reach(c) | {c})``: ``O(p + e)`` big-int operations.
    """
    p = adjacency.shape[0]
    children = [[] for _ in range(p)]
    for i, j in zip(*(a.tolist() for a in np.divmod(np.flatnonzero(adjacency), p))):
        children[i].append(j)
    indegree = adjacency.sum(axis=0).tolist()
    order = [v for v in range(p) if indegree[v] == 0]
    for v in order:  # grows while it is read: Kahn's queue
        for c in children[v]:
            indegree[c] -= 1
            if indegree[c] == 0:
                order.append(c)
    reach = [0] * p
    for v in reversed(order):
        bits = 0
        for c in children[v]:
            bits |= reach[c] | (1 << c)
        reach[v] = bits
    return reach


def transitive_closure(adjacency):
    """``R[i, j]``: a directed path of length >= 1 from ``i`` to ``j`` in a DAG
    (:func:`closure_bits` unpacked to a boolean matrix)."""
    return bits_to_matrix(closure_bits(adjacency), adjacency.shape[0])


class _Reachability:
    """The acyclicity guard: descendant / ancestor bitsets of a growing DAG.

    ``desc[i]`` / ``anc[i]`` are Python-int bitsets of the proper descendants / ancestors of
    node ``i`` along the directed edges added so far. :meth:`closes_cycle` answers in O(1)
    whether adding ``i -> j`` would close a directed cycle (``j`` already reaches ``i``);
    :meth:`add` inserts an edge in ``O(|An(i)| + |De(j)|)`` big-int operations (every
    ancestor of ``i``, ``i`` included, gains ``j`` and its descendants, and symmetrically).
    Every step that adds arrows one by one (PC's knowledge and collider steps,
    :func:`skbn.graph.meek_orient`) goes through it, so none can close a cycle.

    Parameters
    ----------
    n : int
        Number of nodes (ids ``0 .. n - 1``).
    edges : iterable of (int, int)
        The initial directed edges; must be acyclic (else ``ValueError``).
    """

    __slots__ = ("desc", "anc")

    def __init__(self, n, edges=()):
        edges = list(edges)
        parents, children = parents_children(n, edges)
        order, leftover = topological_ids(n, parents, children)
        if leftover:
            raise ValueError("the directed edges have a cycle")
        self.desc = [0] * n
        self.anc = [0] * n
        for i in reversed(order):
            for c in children[i]:
                self.desc[i] |= self.desc[c] | (1 << c)
        for i in order:
            for p in parents[i]:
                self.anc[i] |= self.anc[p] | (1 << p)

    def reaches(self, i, j):
        """Whether a directed path of length >= 1 leads from ``i`` to ``j``."""
        return bool(self.desc[i] >> j & 1)

    def closes_cycle(self, i, j):
        """Whether adding ``i -> j`` would close a directed cycle."""
        return i == j or bool(self.desc[j] >> i & 1)

    def add(self, i, j):
        """Record the edge ``i -> j`` (the caller checked :meth:`closes_cycle`)."""
        if self.desc[i] >> j & 1:
            return  # j already a descendant of i: no reachability changes
        up = self.anc[i] | (1 << i)
        down = self.desc[j] | (1 << j)
        desc, anc = self.desc, self.anc
        bits = up
        while bits:
            low = bits & -bits
            desc[low.bit_length() - 1] |= down
            bits ^= low
        bits = down
        while bits:
            low = bits & -bits
            anc[low.bit_length() - 1] |= up
            bits ^= low


class DynamicReachability:
    """A DAG under single-edge additions and removals: parent / child bitsets and the
    reachability bitsets, kept exact (the acyclicity test of local search).

    ``parents[j]`` / ``children[i]``: bit ``i`` / ``j`` set iff ``i -> j``. The reachability
    (:attr:`reach`, bit ``j`` of ``reach[i]`` iff ``i ~> j``) is built on first use by one
    pass in topological order (:func:`closure_bits`), then updated by every edge change:
    an addition ``i -> j`` gives ``i`` and its ancestors ``j`` and its descendants; a
    removal recomputes only ``i`` and its ancestors (every lost path used ``i -> j``).
    :meth:`set_graph` drops it (rebuilt when next read).

    Parameters
    ----------
    p : int
        Number of nodes; the graph starts empty.
    """

    __slots__ = ("p", "parents", "children", "_reach")

    def __init__(self, p):
        self.p = p
        self.parents = [0] * p
        self.children = [0] * p
        self._reach = [0] * p

    def set_graph(self, adjacency):
        """Jump to the DAG of the boolean matrix ``adjacency``."""
        self.parents = row_bits(adjacency.T)
        self.children = row_bits(adjacency)
        self._reach = None

    @property
    def reach(self):
        """Reachability bitsets: bit ``j`` of ``[i]`` set iff ``i ~> j`` (length >= 1)."""
        if self._reach is None:
            self._reach = closure_bits(bits_to_matrix(self.children, self.p))
        return self._reach

    def matrix(self):
        """``R[i, j]``: a directed path ``i ~> j`` of length >= 1 exists."""
        return bits_to_matrix(self.reach, self.p)

    def parent_ids(self, child):
        """Sorted parents of ``child``, as a tuple."""
        return tuple(bit_ids(self.parents[child]))

    def add_closes_cycle(self, i, j):
        """Whether adding ``i -> j`` closes a directed cycle: ``j ~> i``."""
        reach = self._reach
        if reach is None:
            reach = self.reach
        return bool((reach[j] >> i) & 1)

    def reverse_closes_cycle(self, i, j):
        """Whether reversing the edge ``i -> j`` closes a directed cycle: ``i`` reaches
        another parent of ``j``."""
        reach = self._reach
        if reach is None:
            reach = self.reach
        return bool(reach[i] & self.parents[j])

    def reaches_bits(self, sources, targets):
        """Whether a node of bitset ``sources`` is in bitset ``targets`` or reaches one."""
        reach, hit = self.reach, 0
        for x in bit_ids(sources):
            hit |= reach[x] | (1 << x)
        return bool(hit & targets)

    def add(self, i, j):
        """Edge ``i -> j`` added (the caller checked it keeps the graph acyclic)."""
        self.parents[j] |= 1 << i
        self.children[i] |= 1 << j
        reach = self._reach
        if reach is not None:
            gained, bit_i = reach[j] | (1 << j), 1 << i
            reach[i] |= gained
            for u, bits in enumerate(reach):
                if bits & bit_i:
                    reach[u] = bits | gained

    def remove(self, i, j):
        """Edge ``i -> j`` removed.

        Only ``i`` and its ancestors can lose descendants (every lost path used ``i -> j``).
        They are recomputed from their children, ``reach(u) = OR_c (reach(c) | {c})``, in
        increasing order of their old number of descendants: a child ``c`` of ``u`` has
        strictly fewer (``reach(u)`` held ``reach(c)`` and ``c``), so it comes first.
        """
        self.parents[j] &= ~(1 << i)
        self.children[i] &= ~(1 << j)
        reach, child_bits = self._reach, self.children
        if reach is None:
            return
        bit_i = 1 << i
        affected = [u for u, bits in enumerate(reach) if bits & bit_i]
        affected.append(i)
        affected.sort(key=lambda u: reach[u].bit_count())
        for u in affected:
            bits, rest = 0, child_bits[u]
            while rest:
                low = rest & -rest
                bits |= reach[low.bit_length() - 1] | low
                rest ^= low
            reach[u] = bits


# ---------------------------------------------------------------------------------------------
# --- components, moral graph, Markov blanket
# ---------------------------------------------------------------------------------------------
def components(nodes, neighbours):
    """Connected components of the undirected graph ``neighbours`` (a list of id sets)
    restricted to the ids ``nodes``: sorted lists, sorted by their first member."""
    free, out = set(nodes), []
    while free:
        seed = min(free)
        free.discard(seed)
        component, stack = [seed], [seed]
        while stack:
            for v in neighbours[stack.pop()] & free:
                free.discard(v)
                component.append(v)
                stack.append(v)
        out.append(sorted(component))
    return sorted(out)


def depth_first_order(neighbours):
    """Every id in depth-first preorder of the undirected graph ``neighbours`` (lists or
    sets of ids): trees started from the smallest unvisited id, neighbours visited in
    increasing order; each connected component is one contiguous run."""
    n = len(neighbours)
    seen, order = [False] * n, []
    for start in range(n):
        stack = [start]
        while stack:
            v = stack.pop()
            if seen[v]:
                continue
            seen[v] = True
            order.append(v)
            stack.extend(sorted(set(neighbours[v]), reverse=True))
    return order


def moral_neighbours(parents):
    """The moral graph of a DAG (Lauritzen & Spiegelhalter 1988): the skeleton plus an
    edge between every two parents of a common child. Returns the neighbour sets."""
    neighbours = [set() for _ in parents]
    for c, pa in enumerate(parents):
        pa = sorted(pa)
        for k, a in enumerate(pa):
            neighbours[a].add(c)
            neighbours[c].add(a)
            for b in pa[k + 1:]:
                neighbours[a].add(b)
                neighbours[b].add(a)
    return neighbours


def markov_blanket_ids(parents, children, i):
    """Parents, children and the children's other parents of ``i`` (sorted ids)."""
    blanket = set(parents[i]) | children[i]
    for c in children[i]:
        blanket |= parents[c]
    blanket.discard(i)
    return sorted(blanket)


# ---------------------------------------------------------------------------------------------
# --- d-separation (bitset Bayes-ball)
# ---------------------------------------------------------------------------------------------
class _DSeparation:
    """A DAG compiled for fast d-separation queries: node sets are Python-int bitsets.

    Built once in ``O(n + e)`` big-int operations: ``parents[i]`` / ``children[i]`` are the
    bitsets of the parents / children of node ``i`` and ``ancestors[i]`` that of ``i`` and
    all its ancestors (one pass in topological order, ``anc(i) = {i} | U_p anc(p)``).

    :meth:`separated` answers one query by the reachability ("Bayes-ball") walk of Koller &
    Friedman (2009), Algorithm 3.1, run level by level on bitsets from all sources at once,
    restricted to the ancestral set ``An(X u Y u Z)`` (d-separation in a DAG equals
    d-separation in the subgraph induced by that set, Lauritzen et al. 1990), and stopped as
    soon as a node of ``Y`` is reached. With ``Z`` empty it is one test: ``X`` and ``Y`` are
    d-connected iff they share an ancestor (themselves included).

    Parameters
    ----------
    parents : list of iterables of int
        Parent ids of every node.
    order : sequence of int
        A topological order of the ids.
    """

    __slots__ = ("parents", "children", "ancestors")

    def __init__(self, parents, order):
        n = len(parents)
        self.parents = [0] * n
        self.children = [0] * n
        for j, pa in enumerate(parents):
            for i in pa:
                self.parents[j] |= 1 << i
                self.children[i] |= 1 << j
        self.ancestors = [0] * n
        for j in order:
            bits = 1 << j
            for i in parents[j]:
                bits |= self.ancestors[i]
            self.ancestors[j] = bits

    def separated(self, sources, targets, observed=()):
        """Whether node-id sets ``sources`` and ``targets`` are d-separated by ``observed``.

        The three sets must be disjoint and non-empty for ``sources`` and ``targets``.
        """
        ancestors = self.ancestors
        source_bits = source_anc = 0
        for i in sources:
            source_bits |= 1 << i
            source_anc |= ancestors[i]
        target_bits = target_anc = 0
        for i in targets:
            target_bits |= 1 << i
            target_anc |= ancestors[i]
        if not observed:  # d-connected iff a common ancestor (a trek)
            return not source_anc & target_anc
        observed_bits = observed_anc = 0
        for i in observed:
            observed_bits |= 1 << i
            observed_anc |= ancestors[i]
        # An(X) disjoint from An(Y u Z): no edge or moral edge joins them (ancestral sets are
        # closed under parents), so X and Y are separated in the moral ancestral graph
        if not (source_anc & (target_anc | observed_anc)
                and target_anc & (source_anc | observed_anc)):
            return True
        relevant = source_anc | target_anc | observed_anc  # the ancestral set
        unobserved = ~observed_bits
        parents, children = self.parents, self.children
        # "up": reached from a child (or a source); "down": reached from a parent
        up, down, seen_up, seen_down = source_bits, 0, 0, 0
        while up or down:
            seen_up |= up
            seen_down |= down
            next_up = next_down = 0
            walk = (up | down) & unobserved  # an unobserved node passes the trail to children
            while walk:
                low = walk & -walk
                next_down |= children[low.bit_length() - 1]
                walk ^= low
            # up through an unobserved node; down into an observed node's ancestor (collider)
            walk = (up & unobserved) | (down & observed_anc)
            while walk:
                low = walk & -walk
                next_up |= parents[low.bit_length() - 1]
                walk ^= low
            if (next_up | next_down) & target_bits:
                return False
            up = next_up & relevant & ~seen_up
            down = next_down & relevant & ~seen_down
        return True


# ---------------------------------------------------------------------------------------------
# --- v-structures, CPDAG, consistent extension, minimal I-map
# ---------------------------------------------------------------------------------------------
def v_structure_ids(parents, adjacent):
    """Unshielded colliders ``(a, c, b)``, ``a < b`` parents of ``c`` with
    ``adjacent(a, b)`` false; sorted."""
    out = []
    for c, pa in enumerate(parents):
        ps = sorted(pa)
        for k, a in enumerate(ps):
            for b in ps[k + 1:]:
                if not adjacent(a, b):
                    out.append((a, c, b))
    out.sort()
    return out


def cpdag_ids(parents, order):
    """Chickering's (1995) edge labelling of a DAG: ``(compelled, reversible)`` sorted
    lists of its edges ``(i, j)``.

    Edges are ordered (children in the topological ``order``, each child's parents from
    last to first in it) and labelled *compelled* or *reversible* in that order.
    """
    rank = [0] * len(parents)
    for r, i in enumerate(order):
        rank[i] = r
    compelled = set()
    reversible = set()
    for y in order:  # lowest ordered child first
        pa_y = parents[y]
        for x in sorted(pa_y, key=rank.__getitem__, reverse=True):  # highest ordered parent
            if (x, y) in compelled or (x, y) in reversible:
                continue
            done = False
            for w in sorted(parents[x]):
                if (w, x) not in compelled:
                    continue
                if w not in pa_y:
                    compelled.update((p, y) for p in pa_y)
                    done = True
                    break
                compelled.add((w, y))
            if done:
                continue
            unknown = [(p, y) for p in pa_y if (p, y) not in compelled and (p, y) not in reversible]
            if any(z != x and z not in parents[x] for z in pa_y):
                compelled.update(unknown)
            else:
                reversible.update(unknown)
    return sorted(compelled), sorted(reversible)


def extension_ids(n, directed, undirected):
    """Dor & Tarsi's (1992) consistent extension of a PDAG with acyclic ``directed`` pairs.

    Repeatedly removes the smallest node ``x`` that is a sink among the remaining nodes and
    whose undirected neighbours are adjacent to all other nodes adjacent to ``x``,
    orienting its undirected edges into ``x``. When no node is removable, the undirected
    edges among the remaining nodes are oriented along the Kahn order (smallest ready id
    first) of their directed edges.

    Returns
    -------
    edges : sorted list of (i, j)
        The directed pairs plus one orientation of every undirected pair.
    forced : sorted list of (i, j)
        The pairs oriented by the fallback (empty iff the extension is consistent).
    """
    pa = [set() for _ in range(n)]
    ch = [set() for _ in range(n)]
    und = [set() for _ in range(n)]
    for i, j in directed:
        pa[j].add(i)
        ch[i].add(j)
    for i, j in undirected:
        und[i].add(j)
        und[j].add(i)
    result = list(directed)
    forced = []

    def adj(i, j):
        return j in und[i] or j in pa[i] or j in ch[i]

    def removable(x):
        if ch[x]:
            return False
        adjacent_x = pa[x] | und[x]
        for y in und[x]:
            for z in adjacent_x:
                if z != y and not adj(y, z):
                    return False
        return True

    heap = [x for x in range(n) if removable(x)]
    heapq.heapify(heap)
    alive = [True] * n
    n_alive = n
    while n_alive:
        x = None
        while heap:
            cand = heapq.heappop(heap)
            if alive[cand] and removable(cand):
                x = cand
                break
        if x is None:
            # stuck: orient the remaining undirected edges along a topological order of
            # the remaining directed edges; the removed nodes come after all of them
            rest = [i for i in range(n) if alive[i]]
            indegree = {i: len(pa[i]) for i in rest}
            ready = [i for i in rest if not indegree[i]]
            heapq.heapify(ready)
            rank = {}
            while ready:
                i = heapq.heappop(ready)
                rank[i] = len(rank)
                for j in ch[i]:
                    indegree[j] -= 1
                    if not indegree[j]:
                        heapq.heappush(ready, j)
            for i in rest:
                for j in sorted(und[i]):
                    if i < j:
                        edge = (i, j) if rank[i] < rank[j] else (j, i)
                        result.append(edge)
                        forced.append(edge)
            break
        touched = pa[x] | und[x]
        for y in und[x]:
            result.append((y, x))
        for y in pa[x]:
            ch[y].discard(x)
        for y in und[x]:
            und[y].discard(x)
        pa[x] = set()
        und[x] = set()
        alive[x] = False
        n_alive -= 1
        for y in sorted(touched):
            if removable(y):
                heapq.heappush(heap, y)
    return sorted(result), sorted(forced)


def minimal_imap_ids(n, independent):
    """Minimal I-map for the order ``0 .. n-1`` (Koller & Friedman 2009, Algorithm 3.2).

    For each ``i``, start from all its predecessors ``U`` and, scanning them in order, drop
    ``p`` whenever ``independent(i, predecessors - (U - {p}), U - {p})`` holds (id lists,
    increasing). Returns the sorted edges ``(p, i)``.
    """
    edges = []
    for i in range(n):
        preds = list(range(i))
        kept = list(preds)
        for p in preds:
            rest = [u for u in kept if u != p]
            rest_set = set(rest)
            others = [u for u in preds if u not in rest_set]
            if independent(i, others, rest):
                kept = rest
        edges.extend((p, i) for p in kept)
    return sorted(edges)
