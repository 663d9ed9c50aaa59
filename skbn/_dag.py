"""The integer graph kernel: every graph traversal of skbn, on node ids.

Private. Graphs are boolean adjacency matrices (``adjacency[u, v]``: an edge u -> v),
integer parent lists or Python-int bitsets over node ids ``0 .. p-1``; nothing here knows
a column name. :mod:`skbn.graph` is the public, labelled toolkit on top of it.
"""

import heapq

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import minimum_spanning_tree


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


def _bit_ids_loop(bits):
    """:func:`bit_ids` by peeling the lowest set bit, one at a time."""
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return out


#: Bitsets below this bound (the node sets of up to 10 nodes) have their ids looked up in
#: :data:`_SMALL_IDS`.
_SMALL_LIMIT = 1 << 10
#: ``_SMALL_IDS[bits]``: the set bits of ``bits``, increasing, as a tuple.
_SMALL_IDS = tuple(tuple(_bit_ids_loop(bits)) for bits in range(_SMALL_LIMIT))
#: ``_HIGH_IDS[bits]``: the ids of :data:`_SMALL_IDS` shifted by 10 (the set bits 10 to 19
#: of ``bits << 10``): a bitset below ``2**20`` is its two halves' tuples joined.
_HIGH_IDS = tuple(tuple(v + 10 for v in ids) for ids in _SMALL_IDS)
#: Bitsets below this bound (the node sets of up to 20 nodes) are read as two halves.
_MEDIUM_LIMIT = 1 << 20


def bit_ids(bits):
    """The set bits of a Python-int bitset, increasing (a new list).

    The node sets of a search on few variables are small bitsets, read hundreds of times
    per fit: below :data:`_SMALL_LIMIT` they are looked up in a table (a copy of a stored
    tuple), below :data:`_MEDIUM_LIMIT` as two halves (:func:`id_tuple`), larger ones are
    peeled bit by bit."""
    if 0 <= bits < _SMALL_LIMIT:
        return list(_SMALL_IDS[bits])
    if 0 < bits < _MEDIUM_LIMIT:
        return [*_SMALL_IDS[bits & (_SMALL_LIMIT - 1)], *_HIGH_IDS[bits >> 10]]
    return _bit_ids_loop(bits)


def _popcount_table(n_variables):
    """``uint8`` number of members of every subset ``0 .. 2^p - 1`` of ``p`` variables (the
    sets with top bit ``v`` have one more than the sets below :math:`2^v`)."""
    popcount = np.zeros(1 << n_variables, dtype=np.uint8)
    for v in range(n_variables):
        np.add(popcount[:1 << v], 1, out=popcount[1 << v:2 << v])
    return popcount


#: :func:`popcounts` of the subsets of up to 10 variables, computed once (read-only): a
#: subset's member count does not depend on how many variables there are.
_SMALL_POPCOUNTS = _popcount_table(10)
_SMALL_POPCOUNTS.flags.writeable = False


def popcounts(n_variables):
    """``uint8`` number of members of every subset ``0 .. 2^p - 1`` of ``p`` variables
    (up to 10 variables a read-only view of :data:`_SMALL_POPCOUNTS`, else a new array)."""
    if n_variables <= 10:
        return _SMALL_POPCOUNTS[:1 << n_variables]
    return _popcount_table(n_variables)


def id_tuple(bits):
    """:func:`bit_ids` as a tuple, for a caller that only reads it (below
    :data:`_SMALL_LIMIT` the stored tuple itself, no copy; below :data:`_MEDIUM_LIMIT` the
    stored tuples of its low and high 10 bits joined)."""
    if 0 <= bits < _SMALL_LIMIT:
        return _SMALL_IDS[bits]
    if 0 < bits < _MEDIUM_LIMIT:
        return _SMALL_IDS[bits & (_SMALL_LIMIT - 1)] + _HIGH_IDS[bits >> 10]
    return tuple(_bit_ids_loop(bits))


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
    first) of their directed edges. Node sets are Python-int bit masks
    (:func:`extension_of_masks`).

    Returns
    -------
    edges : sorted list of (i, j)
        The directed pairs plus one orientation of every undirected pair.
    forced : sorted list of (i, j)
        The pairs oriented by the fallback (empty iff the extension is consistent).
    """
    pa, und = [0] * n, [0] * n
    for i, j in directed:
        pa[j] |= 1 << i
    for i, j in undirected:
        und[i] |= 1 << j
        und[j] |= 1 << i
    return _extension_of_masks(n, pa, und, list(directed))


def extension_of_masks(n, pa, und):
    """:func:`extension_ids` of the PDAG whose parents along directed edges and undirected
    neighbours are the bit masks ``pa`` and ``und`` (not modified)."""
    return _extension_of_masks(n, list(pa), list(und), [(i, j) for j in range(n) for i in id_tuple(pa[j])])


def _extension_of_masks(n, pa, und, result):
    """:func:`extension_ids` on the masks ``pa`` and ``und`` (modified), the directed pairs
    ``result`` (appended to).

    A removable node stays removable when another is removed (its adjacent nodes and its
    neighbours' adjacencies lose only the removed node, which is then adjacent to neither
    side), so the nodes found removable are kept in one mask, ``ready``, and only the
    nodes adjacent to a removed one are examined again: its lowest bit is the smallest
    removable node. Without undirected edges the directed pairs are the extension."""
    if not any(und):
        return sorted(result), []
    ch = _child_masks(pa)
    adj = [p | u | c for p, u, c in zip(pa, und, ch)]
    ready = 0
    for x in range(n):
        if _removable(x, pa, und, ch, adj):
            ready |= 1 << x
    alive = (1 << n) - 1
    forced = []
    while alive:
        if not ready:
            # stuck: orient the remaining undirected edges along a topological order of
            # the remaining directed edges; the removed nodes come after all of them
            rest = bit_ids(alive)
            indegree = {i: pa[i].bit_count() for i in rest}
            ready = [i for i in rest if not indegree[i]]
            heapq.heapify(ready)
            rank = {}
            while ready:
                i = heapq.heappop(ready)
                rank[i] = len(rank)
                for j in bit_ids(ch[i]):
                    indegree[j] -= 1
                    if not indegree[j]:
                        heapq.heappush(ready, j)
            for i in rest:
                for j in bit_ids(und[i]):
                    if i < j:
                        edge = (i, j) if rank[i] < rank[j] else (j, i)
                        result.append(edge)
                        forced.append(edge)
            break
        bit = ready & -ready
        ready ^= bit
        alive ^= bit
        x = bit.bit_length() - 1
        touched = pa[x] | und[x]  # (every node adjacent to x: it has no child)
        for y in id_tuple(und[x]):
            result.append((y, x))
        for y in id_tuple(touched):  # (x a parent or an undirected neighbour of y: gone)
            und[y] &= ~bit
            ch[y] &= ~bit
            adj[y] &= ~bit
        pa[x] = und[x] = 0
        for y in id_tuple(touched & ~ready):
            if _removable(y, pa, und, ch, adj):
                ready |= 1 << y
    return sorted(result), sorted(forced)


def _removable(x, pa, und, ch, adj):
    """Dor & Tarsi's condition: ``x`` has no child and, for each undirected neighbour ``y``
    of ``x``, every other node adjacent to ``x`` is adjacent to ``y`` (masks of the remaining
    graph; ``adj`` the union of the other three)."""
    if ch[x]:
        return False
    adjacent = pa[x] | und[x]
    neighbours = und[x]
    while neighbours:
        low = neighbours & -neighbours
        neighbours ^= low
        if adjacent & ~low & ~adj[low.bit_length() - 1]:
            return False
    return True


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


# --- spanning trees and branchings
def maximum_spanning_tree(weights, root):
    """Edges (parent, child) of a maximum-weight spanning forest, oriented away from ``root``.

    Only finite positive weights are candidate edges (``-inf`` or NaN: no edge). Uses
    scipy's minimum spanning tree on ``max(w) + 1 - w`` over the candidates; components not
    containing ``root`` are rooted at their smallest index.
    """
    p = weights.shape[0]
    upper = np.triu((weights > 0) & np.isfinite(weights), k=1)
    top = weights[upper].max() if upper.any() else 0.0
    shifted = np.where(upper, top + 1.0 - weights, 0.0)
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
    ``sum_v weights[parent[v], v]`` (a root adds 0) is the largest possible. A weight of
    ``-inf`` or NaN is no arc.

    Chu-Liu/Edmonds on a virtual root joined to every node by a 0-weight arc: each node
    takes its best incoming arc; a cycle is contracted (arcs into it re-weighted by the
    cycle arc they replace) and the problem solved again. Ties: the virtual root, then
    the smallest index.
    """
    p = weights.shape[0]
    W = np.full((p + 1, p + 1), -np.inf)
    W[0, 1:] = 0.0
    W[1:, 1:] = np.where(allowed & ~np.isnan(weights), weights, -np.inf)  # (NaN: no arc)
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
# neighbour sets. A path is "possibly causal" when every edge is u -> v or u - v walked
# forwards. On a maximally oriented PDAG (a CPDAG with background knowledge, closed under
# Meek's rules) the DAGs it represents rule out more: a path <V0, ..., Vk> is
# *b-possibly causal* (Perković, Kalisch & Maathuis 2017, Def. 3.1) when it is possibly
# causal and no edge Vj -> Vi (i < j) joins any two of its nodes, consecutive or not. On a
# DAG or a CPDAG the two notions reach the same nodes; the adjustment criterion below uses
# the b-notion throughout, so it is sound and complete on DAGs, CPDAGs and maximally
# oriented PDAGs alike.
def adjacent_sets(parents, children, neighbours):
    """The adjacent ids of every node (parents, children and undirected neighbours)."""
    return [p | c | u for p, c, u in zip(parents, children, neighbours)]


def possible_descendants(children, neighbours, seeds, avoid=frozenset(), adjacent=None):
    """Ids reachable from ``seeds`` along possibly directed paths (seeds included).

    Nodes in ``avoid`` are never entered (a seed in ``avoid`` is still a start). With
    ``adjacent`` (:func:`adjacent_sets`), only along walks whose consecutive triples
    ``a, b, c`` are unshielded (``a``, ``c`` non-adjacent): on a maximally oriented PDAG
    these reach exactly the ends of the b-possibly causal paths from the seeds, i.e. the
    nodes that are descendants of a seed in some DAG the PDAG represents (a b-possibly
    causal path contains an unshielded one between its ends, Perković et al. 2017, and an
    unshielded possibly causal path is b-possibly causal). The search then runs over the
    walked edges ``(a, b)`` instead of the nodes: ``O(sum of in-degree x out-degree)``.
    Without ``adjacent``, plain reachability (the same nodes on a DAG or a CPDAG).
    """
    result = set(seeds)
    seen = set() if adjacent is not None else set(seeds)
    stack = [(None, s) for s in seeds]
    while stack:
        a, u = stack.pop()
        shield = adjacent[a] if adjacent is not None and a is not None else ()
        for v in children[u] | neighbours[u]:
            if v in avoid or v == a or v in shield:
                continue
            state = (u, v) if adjacent is not None else v
            if state not in seen:
                seen.add(state)
                result.add(v)
                stack.append((u, v))
    return result


def possible_ancestors(parents, neighbours, seeds, avoid=frozenset(), adjacent=None):
    """Ids with a possibly directed path into ``seeds`` (seeds included), avoiding ``avoid``;
    with ``adjacent``, along b-possibly causal paths (:func:`possible_descendants`)."""
    return possible_descendants(parents, neighbours, seeds, avoid, adjacent)


def causal_nodes(parents, children, neighbours, xs, ys):
    """``cn(X, Y)``: the ids outside ``X`` on a proper b-possibly causal path from X to Y.

    A proper path starts at some ``x`` in ``X`` and meets ``X`` nowhere else, and a
    b-possibly causal one has no node with an edge into ``x`` (such an edge would point
    back along the path). So for each ``x``, with ``A = X u pa(x)`` avoided, the nodes
    b-possibly reachable from ``x`` that reach some ``y`` b-possibly, when that ``y`` is
    itself reachable from ``x``. Exact when the graph is adjustment amenable for
    ``(X, Y)`` (:func:`amenability_violation` is None), the only case the criterion uses it
    (Perković et al. 2018, Def. 3.8; Perković, Kalisch & Maathuis 2017 for maximally oriented
    PDAGs; on a DAG the causal nodes of Henckel et al. 2022).
    """
    xs = frozenset(xs)
    adjacent = adjacent_sets(parents, children, neighbours)
    out = set()
    for x in xs:
        avoid = xs | parents[x]
        down = possible_descendants(children, neighbours, {x}, avoid, adjacent) - {x}
        targets = set(ys) & down
        if targets:
            out |= down & possible_ancestors(parents, neighbours, targets, avoid, adjacent)
    return out


def forbidden_nodes(parents, children, neighbours, xs, ys, cn=None):
    """``Forb(X, Y) = X u PossDe(cn(X, Y))`` (b-possible descendants): nodes no adjustment
    set may contain; ``cn`` as :func:`causal_nodes` (computed when None)."""
    if cn is None:
        cn = causal_nodes(parents, children, neighbours, xs, ys)
    adjacent = adjacent_sets(parents, children, neighbours)
    return set(xs) | possible_descendants(children, neighbours, cn, adjacent=adjacent)


def amenability_violation(parents, children, neighbours, xs, ys):
    """An undirected edge ``(x, w)`` starting a proper b-possibly causal path from X to Y, or None.

    The graph is *adjustment amenable* for ``(X, Y)`` iff there is none: every proper
    (b-)possibly causal path from ``X`` to ``Y`` starts with a directed edge out of ``X``
    (Perković et al. 2018, Def. 3.5; b-amenability, Perković et al. 2017). The path
    ``x - w ...`` is b-possibly causal iff its part from ``w`` is and avoids ``X`` and the
    parents of ``x``. On a DAG there is never one.
    """
    xs = frozenset(xs)
    adjacent = adjacent_sets(parents, children, neighbours)
    for x in sorted(xs):
        avoid = xs | parents[x]
        for w in sorted(neighbours[x] - xs):
            if possible_descendants(children, neighbours, {w}, avoid, adjacent) & set(ys):
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


def meek_fires(g, a, b, ambiguous=frozenset()):
    """Which of Meek's rules (1-4) orients the undirected edge ``a - b`` as ``a -> b``; 0 if none.

    * R1: ``c -> a - b``, ``c``, ``b`` non-adjacent;
    * R2: ``a -> c -> b``;
    * R3: ``a - c -> b``, ``a - d -> b``, ``c``, ``d`` non-adjacent;
    * R4: ``a - c -> d -> b``, ``a`` adjacent to ``d``, ``c``, ``b`` non-adjacent (fires
      only with background knowledge: a CPDAG is closed under R1-R3 and never has it).

    R1 and R3 read an unshielded triple (``c - a - b``, ``c - a - d``) as a non-collider;
    they do not fire on one listed in ``ambiguous`` (conservative and majority PC: the tests
    did not decide whether it is a collider; Ramsey, Zhang & Spirtes 2006; pcalg's
    ``unfVect``).

    Parameters
    ----------
    g : MixedGraph
    a, b : int
        The ends of an undirected edge of ``g``.
    ambiguous : set of (x, z, y), default=frozenset()
        Ambiguous unshielded triples ``x - z - y``, ``x < y``.

    Returns
    -------
    int
        The first rule that fires, in the order R1, R2, R3, R4; 0 if none does.
    """
    if any(not g.adj(c, b) and (min(c, b), a, max(c, b)) not in ambiguous for c in g.pa[a]):
        return 1
    if g.ch[a] & g.pa[b]:
        return 2
    cands = sorted(g.und[a] & g.pa[b])
    for k, c in enumerate(cands):
        for d in cands[k + 1:]:
            if not g.adj(c, d) and (c, a, d) not in ambiguous:
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
    ambiguous : set of (x, z, y) or None
        Ambiguous unshielded triples ``x - z - y`` (``x < y``) that R1 and R3 do not read as
        non-colliders (:func:`meek_fires`).
    """

    def __init__(self, g, forbidden=None, ambiguous=None):

        self.g = g
        self.forbidden = forbidden
        self.ambiguous = frozenset(ambiguous or ())
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
        extra = (self.ambiguous,) if self.ambiguous else ()
        while heap:
            u, v = heapq.heappop(heap)
            queued.discard((u, v))
            if v not in g.und[u]:
                continue
            forward = meek_fires(g, u, v, *extra) > 0
            backward = meek_fires(g, v, u, *extra) > 0
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


def orient_with_knowledge(g, required, forbidden, ambiguous=None):
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
    ambiguous : set of (x, z, y) or None
        Ambiguous unshielded triples (conservative / majority PC), passed to
        :class:`MeekCloser`.

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
    closer = MeekCloser(out, forbidden, ambiguous)
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


def id_bits(nodes):
    """The Python-int bitset of an iterable of ids (the inverse of :func:`bit_ids`)."""
    bits = 0
    for v in nodes:
        bits |= 1 << v
    return bits


def node_masks(g):
    """Bit masks ``(adj, und, pa)`` of every node of the mixed graph ``g``: its adjacent
    nodes, undirected neighbours and parents."""
    und = [id_bits(s) for s in g.und]
    pa = [id_bits(s) for s in g.pa]
    adj = [u | p | id_bits(c) for u, p, c in zip(und, pa, g.ch)]
    return adj, und, pa


def _child_masks(pa):
    """The children bit mask of every node, from the parents bit masks ``pa``."""
    ch = [0] * len(pa)
    for v, parents in enumerate(pa):
        bit = 1 << v
        while parents:  # (bit_ids inlined: called for every node of every completion)
            low = parents & -parents
            ch[low.bit_length() - 1] |= bit
            parents ^= low
    return ch


def _mask_sets(masks):
    """Each bit mask as the set of its ids."""
    return [set(bit_ids(m)) if m else set() for m in masks]


def _pattern_masks(g):
    """The v-structure pattern of ``g`` (:func:`v_structure_pattern`) as bit masks
    ``(pa, und, adj)``: parents along the pattern's arrows, undirected neighbours and
    adjacent nodes of every node.

    ``a -> c`` stays an arrow iff another parent ``b`` of ``c`` is not adjacent to ``a``:
    with ``P`` the parents of ``c``, iff ``P & ~adj[a]`` has a bit other than ``a``'s."""
    adj, _, dag_pa = node_masks(g)
    return _pattern_of_masks(g.n, adj, dag_pa)[:3]


def _pattern_of_masks(n, adj, dag_pa):
    """:func:`_pattern_masks` of the graph with adjacency masks ``adj`` and parents along
    directed edges ``dag_pa``, and the children masks of its arrows: ``(pa, und, adj, ch)``
    (without a v-structure, every adjacency undirected)."""
    pa, ch = [0] * n, [0] * n
    arrows = False
    for c, parents in enumerate(dag_pa):
        if parents & (parents - 1):  # two parents or more
            for a in id_tuple(parents):
                if parents & ~adj[a] & ~(1 << a):
                    pa[c] |= 1 << a
                    ch[a] |= 1 << c
                    arrows = True
    if not arrows:
        return pa, list(adj), adj, ch
    und = [a & ~p & ~c for a, p, c in zip(adj, pa, ch)]
    return pa, und, adj, ch


def mask_sets(pa, und):
    """The ``(pa, ch, und)`` lists of sets of a :class:`MixedGraph` whose parents and
    undirected neighbours are the bit masks ``pa`` and ``und``."""
    return _mask_sets(pa), _mask_sets(_child_masks(pa)), _mask_sets(und)


def graph_from_masks(g, pa, und):
    """A graph of the class of ``g`` (its other attributes shared) with the parents
    ``pa`` and undirected neighbours ``und`` (bit masks, e.g. of :func:`completion_masks`)."""
    out = MixedGraph.__new__(type(g))
    out.__dict__.update(g.__dict__)
    out.pa, out.ch, out.und = mask_sets(pa, und)
    return out


def v_structure_pattern(g):
    """The pattern of ``g``: its skeleton with only the arrows of its v-structures.

    A v-structure is ``a -> c <- b`` with ``a``, ``b`` non-adjacent. Closing the pattern of
    a DAG, or of a PDAG that admits a consistent extension, under Meek's rules gives the
    CPDAG of its (extensions') Markov equivalence class (Meek 1995, theorem 3). Computed on
    bit masks (:func:`_pattern_masks`) in ``O(n + edges)`` big-int operations.

    Parameters
    ----------
    g : MixedGraph

    Returns
    -------
    MixedGraph
        Of the class of ``g`` (its other attributes shared with ``g``).
    """
    pa, und, _ = _pattern_masks(g)
    return graph_from_masks(g, pa, und)


def _meek_closed_masks(n, pa, und, adj, ch):
    """Close a pattern, given as bit masks, under Meek's rules R1-R3, in place; False on a
    conflict (both directions of an edge supported, or a directed cycle at the end).

    ``pa[v]`` / ``und[v]`` / ``adj[v]`` / ``ch[v]``: the parents, undirected neighbours,
    adjacent nodes and children of ``v`` (``ch`` kept up to date with ``pa``). Passes over
    the undirected edges (smallest ``(u, v)`` first) orient ``a - b`` as ``a -> b`` when
    R1 (``c -> a``, ``c`` not adjacent to ``b``), R2 (``a -> c -> b``) or R3 (``a - c ->
    b``, ``a - d -> b``, ``c``, ``d`` non-adjacent) fires, until a pass orients nothing.
    On the pattern of a PDAG that admits a consistent extension the closure is unique
    whatever the order and R4 never fires (Meek 1995), so this is :class:`MeekCloser`'s
    result; the caller falls back to it on a conflict.
    """
    if not any(pa):  # (no arrow: no rule fires, and nothing can be cyclic)
        return True

    def fires(a, b):
        if pa[a] & ~adj[b] or ch[a] & pa[b]:  # R1, R2
            return True
        common = und[a] & pa[b]
        while common:  # R3: two non-adjacent nodes of ``common``
            low = common & -common
            common ^= low
            if common & ~adj[low.bit_length() - 1]:
                return True
        return False

    changed = True
    while changed:
        changed = False
        for u in range(n):
            later = und[u] >> (u + 1) << (u + 1)  # (bit_ids inlined: the hot loop of a search)
            while later:
                low = later & -later
                later ^= low
                v = low.bit_length() - 1
                if not pa[u] | pa[v]:  # (every rule needs an arrow into u or v)
                    continue
                forward, backward = fires(u, v), fires(v, u)
                if forward and backward:
                    return False
                if forward or backward:
                    a, b = (u, v) if forward else (v, u)
                    und[a] &= ~(1 << b)
                    und[b] &= ~(1 << a)
                    pa[b] |= 1 << a
                    ch[a] |= 1 << b
                    changed = True
    # a consistent closure is acyclic: peel the sinks (from the nodes with a child: the
    # others are sinks, on no cycle)
    left = 0
    for v in range(n):
        if ch[v]:
            left |= 1 << v
    while left:
        sinks = 0
        rest = left
        while rest:
            low = rest & -rest
            rest ^= low
            if not ch[low.bit_length() - 1] & left:
                sinks |= low
        if not sinks:
            return False
        left &= ~sinks
    return True


def completion_masks(g):
    """The CPDAG of :func:`complete_pdag` as bit masks ``(pa, und, adj)`` (parents,
    undirected neighbours, adjacent nodes of every node), or None when the rules conflict
    (``g`` has no consistent extension; :func:`complete_pdag` then falls back to
    :class:`MeekCloser`)."""
    adj, _, dag_pa = node_masks(g)
    return completion_of_masks(g.n, adj, dag_pa)


def completion_of_masks(n, adj, dag_pa):
    """:func:`completion_masks` of the graph given by its bit masks: ``adj`` (adjacent
    nodes) and ``dag_pa`` (parents along directed edges) of every node (what
    :func:`node_masks` returns of it); the lists are not modified."""
    pa, und, adj, ch = _pattern_of_masks(n, adj, dag_pa)
    return (pa, und, adj) if _meek_closed_masks(n, pa, und, adj, ch) else None


def complete_pdag(g):
    """CPDAG of the class of a DAG, or of the consistent extensions of a PDAG, on ids.

    Its v-structure pattern (:func:`v_structure_pattern`) closed under Meek's rules: the
    compelled edges directed, the reversible ones undirected (Meek 1995). The PDAG must
    admit a consistent extension (e.g. the result of a valid GES operator); then the
    closure is computed on bit masks (:func:`_meek_closed_masks`). Should the rules
    conflict (no consistent extension), :class:`MeekCloser`'s closure of the pattern, with
    its tie rule and cycle guard, is returned instead.

    Parameters
    ----------
    g : MixedGraph
        Not modified.

    Returns
    -------
    MixedGraph
        Of the class of ``g`` (its other attributes shared with ``g``).
    """
    masks = completion_masks(g)
    if masks is not None:
        return graph_from_masks(g, masks[0], masks[1])
    out = v_structure_pattern(g)
    MeekCloser(out).close(all_edges=True)
    return out


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
    edges = [(int(u), int(v)) for u, v in edges]
    parents, children = parents_children(n, edges)
    order, _ = topological_ids(n, parents, children)
    compelled, reversible = cpdag_ids(parents, order)
    membership = [0] * n  # bit k of [v]: v is in the k-th target
    for k, target in enumerate(targets):
        for v in target:
            membership[int(v)] |= 1 << k
    # an edge u - v is oriented by a target holding exactly one of its endpoints
    oriented = {(u, v) for u, v in edges if membership[u] != membership[v]}
    if not oriented.difference(compelled):  # nothing beyond the CPDAG, closed already
        return sorted(compelled), sorted((min(u, v), max(u, v)) for u, v in reversible)
    directed = set(compelled) | oriented
    undirected = [(u, v) for u, v in reversible if (u, v) not in oriented]
    g = MixedGraph(n, sorted(directed), undirected)
    MeekCloser(g).close(all_edges=True)
    return g.edge_lists()
