"""Greedy equivalence search (Chickering 2002): score-based search over CPDAGs; with
experimental rows, greedy interventional equivalence search (GIES, Hauser & Bühlmann 2012)
over interventional essential graphs."""

import heapq
import math
import operator
from numbers import Integral

import numpy as np
from sklearn.utils import check_random_state

from skbn._dag import (
    MixedGraph,
    _child_masks,
    bit_ids,
    complete_pdag,
    completion_masks,
    completion_of_masks,
    extension_ids,
    extension_of_masks,
    graph_from_masks,
    id_bits,
    id_tuple,
    interventional_essential_graph,
    knowledge_directions,
    mask_sets,
    node_masks,
    orient_with_knowledge,
)
from skbn._engines._local_scores import FamilyScoreCache, make_counter
from skbn._engines._search import DeltaEngine, improves, perturb, tolerance
from skbn.estimators._base import _MISSING_CONSTRAINTS, _BaseStructureLearner, _intervention_targets
from skbn.graph import PDAG
from skbn.utils._progress import Progress, amount
from skbn.utils._sklearn_compat import Interval, StrOptions

__all__ = ["GESStructure"]

_PHASES = ("forward", "backward", "turning")


class _FitContext:
    """Everything one GES fit computes and reuses, kept off the estimator.

    Local scores by (node, parent set) are cached (:class:`FamilyScoreCache`); their
    statistics come from the fit's counter (:func:`skbn._engines._local_scores.make_counter`:
    count tables, pairs from the one-hot Gram matrix and larger families by extending the
    cached configuration ids of the base parent set; moments for continuous children).
    On a small Gaussian network scored from residual sums of squares, ``table`` holds the
    local score of every family at once (:meth:`FamilyScoreCache.dense_scores`, set by
    :meth:`use_table` before the first step: the same values, bit for bit), and the
    operators' score changes are read from it by bit mask.
    ``operators`` caches the last step's candidate operators per target as
    ``(phase, per_target, targets to refresh)``; ``subset_bound`` bounds ``|T|``, ``|H|``, ``|C|``;
    ``progress`` is the search's :class:`skbn.utils._progress.Progress`; ``knowledge`` the
    background knowledge when it fixes some direction (else None).
    """

    def __init__(self, data, scorer, subset_bound, progress=None):
        self.counter = make_counter(data)
        self.cache = FamilyScoreCache(data, scorer, self.counter)
        #: ``local(child, parents)``: the cached local score of a family (the cache's method)
        self.local = self.cache.local_score
        self.subset_bound = subset_bound
        self.operators = None
        self.table = None  # table[child][mask]: every local score (use_table), or None
        self._groups = {}  # (child, parent mask) -> (parents, score, added column): insert_gains
        self.names = data.names
        # the search's reporter (a silent one when none is given)
        self.progress = Progress(0, "GESStructure") if progress is None else progress
        self.knowledge = None  # BackgroundKnowledge when it fixes a direction, set by the search

    def use_table(self):
        """Read the score changes from the table of every local score when the cache gives
        one (:meth:`FamilyScoreCache.dense_scores`)."""
        self.table = self.cache.dense_scores()

    def admits(self, g):
        """Whether the class of the CPDAG ``g`` has a DAG respecting the directional knowledge
        (Meek's procedure finds no conflict: :func:`skbn._dag.orient_with_knowledge`)."""
        if self.knowledge is None:
            return True
        _, bad, rules = orient_with_knowledge(g, self.knowledge.required, self.knowledge.forbidden)
        return not bad and not rules

    def extension(self, g):
        """A DAG of the class of ``g`` (Dor & Tarsi) that respects the directional knowledge:
        the extension of its maximally oriented PDAG with the knowledge. On mixed data the
        knowledge holds the conditional-Gaussian rule, and a DAG of the class with a
        continuous parent of a discrete node scores -inf, so the class is scored by one
        that respects it."""
        if self.knowledge is not None:
            g = orient_with_knowledge(g, self.knowledge.required, self.knowledge.forbidden)[0]
        return _extension(g)

    def local_mask(self, child, parents):
        """The local score of ``child`` given the parents of the bit mask ``parents`` (from
        the table when there is one: the cache's value, bit for bit)."""
        if self.table is not None:
            return self.table[child][parents]
        return self.local(child, bit_ids(parents))

    def gain(self, child, base, extra):
        """``s(child, base + {extra}) - s(child, base)``; ``base`` a bit mask."""
        if self.table is not None:
            row = self.table[child]
            return row[base | 1 << extra] - row[base]
        parents = tuple(bit_ids(base))
        return self.cache.extended_score(child, parents, extra) - self.local(child, parents)

    def insert_gains(self, child, base, extras):
        """``s(child, base + {x}) - s(child, base)`` for every ``x`` of ``extras``, ``base`` a
        bit mask: the Insert operators of one parent set, when there is no table
        (:meth:`insert_operators` reads the table itself). The parent set's score and its
        batch of added-parent scores (:meth:`FamilyScoreCache.added_column`, on Gaussian
        data) are looked up once per ``(child, base)`` and kept."""
        group = self._groups.get((child, base))
        if group is None:
            parents = tuple(bit_ids(base))
            column = self.cache.added_column(child, parents)  # (first: it may score the family too)
            group = self._groups[child, base] = (parents, self.local(child, parents), column)
        parents, current, column = group
        if column is not None:
            return [column[x] - current for x in extras]
        return [score - current for score in self.cache.added_scores(child, parents, extras)]

    def open_groups(self, pairs):
        """Let the cache compute together the added-parent columns of the parent sets
        ``(child, base)`` (``base`` a bit mask) of ``pairs`` that :meth:`insert_gains` has
        not kept yet: one step's Insert groups (:meth:`FamilyScoreCache.added_columns`;
        :meth:`insert_gains` then reads them from the cache). Nothing with a table."""
        if self.table is None:
            self.cache.added_columns([(child, tuple(bit_ids(base))) for child, base in pairs
                                      if (child, base) not in self._groups])

    def insert_operators(self, y, groups, positive=False):
        """The Insert operators ``(gain, x, y, T)`` of the groups ``(P, xs, T)`` of the
        target ``y`` (:meth:`GESStructure._insert_groups`), scored by :meth:`insert_gains`
        (read here from the table's row of ``y`` when there is one); with ``positive``, only
        those of a positive finite gain (the only ones a step can take)."""
        if self.table is not None:  # (s(y, P + x) - s(y, P); plain loops: cheaper here than
            # a comprehension, a function of its own)
            row, inf, out = self.table[y], math.inf, []
            for mask, xs, t in groups:
                current = row[mask]
                for x in xs:
                    gain = row[mask | 1 << x] - current
                    if not positive or 0.0 < gain < inf:
                        out.append((gain, x, y, t))
            return out
        out = []
        for mask, xs, t in groups:
            gains = self.insert_gains(y, mask, xs)
            if positive:
                out += [(gain, x, y, t) for gain, x in zip(gains, xs) if 0.0 < gain < math.inf]
            else:
                out += [(gain, x, y, t) for gain, x in zip(gains, xs)]
        return out


class _CPDAG(MixedGraph):
    """Mutable integer CPDAG (the kernel's mixed graph: ``pa``, ``ch``, ``und``).

    ``masks``: the bit masks ``(adj, und, pa)`` of :func:`_adjacency_masks`, kept by
    :meth:`completed` (which computes them); a copy, which the operators modify, has none.
    A completed class (:meth:`completed`, :meth:`inserted`, :meth:`deleted`) holds only
    its masks at first: its sets are built from them on first access (most classes of a
    search are read through their masks only).
    """

    def __init__(self, p, directed=(), undirected=()):
        super().__init__(p, directed, undirected)
        self.p = p
        self.masks = None

    def __getattr__(self, name):
        # (called only for an attribute the instance lacks: the sets of a class built
        # from its masks, made once)
        if name in ("pa", "ch", "und") and self.__dict__.get("masks") is not None:
            _, und, pa = self.masks
            self.pa, self.ch, self.und = mask_sets(pa, und)
            return self.__dict__[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def copy(self):
        new = super().copy()
        new.masks = None
        return new

    def adj_set(self, u):
        return self.pa[u] | self.ch[u] | self.und[u]

    def edge_lists(self):
        """:meth:`MixedGraph.edge_lists` (sorted ``(directed, undirected)`` id pairs), read
        from the masks of a completed class without building its sets (the children of
        ``u``: its adjacent nodes that are neither parents nor undirected neighbours)."""
        if self.__dict__.get("masks") is None:
            return super().edge_lists()
        adj, und, pa = self.masks
        directed, undirected = [], []
        for u in range(self.p):
            for v in id_tuple(adj[u] & ~und[u] & ~pa[u]):
                directed.append((u, v))
            for v in id_tuple(und[u] >> (u + 1) << (u + 1)):
                undirected.append((u, v))
        return directed, undirected

    def completed(self):
        """The CPDAG of the consistent extensions of this PDAG: its v-structures closed
        under Meek's rules (:func:`skbn._dag.complete_pdag`), on ids, with its masks."""
        masks = completion_masks(self)
        if masks is None:  # (no consistent extension: the kernel's fallback)
            return complete_pdag(self)
        return self._from_masks(masks)

    def inserted(self, x, y, t):
        """The class after Insert(x, y, T): :meth:`insert` on a copy, then :meth:`completed`.
        A graph that holds its masks (a completed one) applies the operator to them and
        completes them directly: the same masks and sets, without copying the sets."""
        if self.masks is None:
            new = self.copy()
            new.insert(x, y, t)
            return new.completed()
        adj, _, pa = self.masks
        adj, pa = list(adj), list(pa)
        adj[x] |= 1 << y
        adj[y] |= 1 << x
        pa[y] |= 1 << x
        for w in t:  # w - y oriented w -> y
            pa[y] |= 1 << w
        return self._completed_masks(adj, pa)

    def deleted(self, x, y, h):
        """The class after Delete(x, y, H): :meth:`delete` on a copy, then :meth:`completed`
        (on the masks, as :meth:`inserted`)."""
        if self.masks is None:
            new = self.copy()
            new.delete(x, y, h)
            return new.completed()
        adj, und, pa = self.masks
        adj, pa = list(adj), list(pa)
        for v, w in ((x, y), (y, x)):  # the edge x - y, x -> y or y -> x removed
            adj[v] &= ~(1 << w)
            pa[v] &= ~(1 << w)
        for w in h:  # y - w oriented y -> w, and x - w as x -> w
            pa[w] |= 1 << y
            if und[x] >> w & 1:
                pa[w] |= 1 << x
        return self._completed_masks(adj, pa)

    def _completed_masks(self, adj, pa):
        """:meth:`completed` of the graph of this kind with the adjacency and parent masks
        ``adj``, ``pa`` (its other adjacencies undirected)."""
        masks = completion_of_masks(self.p, adj, pa)
        if masks is None:  # (no consistent extension: the kernel's fallback, on the sets)
            ch = _child_masks(pa)
            new = graph_from_masks(self, pa, [a & ~p & ~c for a, p, c in zip(adj, pa, ch)])
            new.masks = None
            return complete_pdag(new)
        return self._from_masks(masks)

    def _from_masks(self, masks):
        """A class of this kind holding only the completion's masks ``(pa, und, adj)``
        (its sets built from them when read)."""
        return type(self)._of_masks(self.p, (masks[2], masks[1], masks[0]))

    @classmethod
    def _of_masks(cls, p, masks):
        """A class on ``p`` nodes holding only its masks ``(adj, und, pa)`` (its sets built
        from them when read)."""
        new = _CPDAG.__new__(cls)
        new.n = new.p = p
        new.masks = masks
        return new

    def with_dag(self, edges):
        """A graph of the same kind (and targets) holding the DAG ``edges`` (not completed)."""
        new = self.copy()
        new.pa, new.ch, new.und = ([set() for _ in range(self.p)] for _ in range(3))
        for u, v in edges:
            new.pa[v].add(u)
            new.ch[u].add(v)
        return new

    def _drop_masks(self):
        """Forget the masks before the sets change (building the sets first if they were
        not yet read)."""
        self.pa  # noqa: B018 (the sets, from the masks if not built yet)
        self.masks = None

    def insert(self, x, y, t):
        """Chickering's Insert(x, y, T): add ``x -> y`` and orient ``t - y`` as ``t -> y``
        for every ``t`` in T."""
        self._drop_masks()
        self.pa[y].add(x)
        self.ch[x].add(y)
        for w in t:
            self.orient(w, y)

    def delete(self, x, y, h):
        """Chickering's Delete(x, y, H): remove the edge ``x - y`` / ``x -> y``; orient
        ``y - h`` as ``y -> h`` and ``x - h`` as ``x -> h`` for every ``h`` in H."""
        self._drop_masks()
        for s in (self.pa, self.ch, self.und):
            s[x].discard(y)
            s[y].discard(x)
        for w in h:
            self.orient(y, w)
            if w in self.und[x]:
                self.orient(x, w)


class _InterventionalGraph(_CPDAG):
    r"""Mutable interventional essential graph for the targets ``targets`` (GIES).

    The operators of GES keep their form in the space of interventional essential graphs
    (Hauser & Bühlmann 2012, section 5: the graph is a chain graph with chordal chain
    components, and Insert / Delete at ``y`` are defined by the same clique and path
    conditions), but their result is completed differently: an operator picks the DAG
    :math:`D` of the current class in which the parents of ``y`` are
    :math:`\mathrm{Pa}_y \cup C` (:math:`C = \mathrm{NA}_{y,x} \cup T` for Insert,
    :math:`\mathrm{NA}_{y,x} \setminus H` for Delete; such a DAG exists because
    :math:`C` is a clique) and every other neighbour of ``y`` is its child; the edge is
    added to or removed from :math:`D`, and the new class is the interventional essential
    graph of that DAG (:func:`skbn._dag.interventional_essential_graph`). Its score
    differs from the old one by exactly the operator's score change at ``y``, since an
    interventional score (each family scored on the rows where its child was not set) is
    equal for interventionally equivalent DAGs.

    Parameters
    ----------
    p : int
        Number of nodes.
    targets : list of tuple of int
        The intervention targets (each distinct set of nodes set together in a row).
    directed, undirected : iterable of (int, int)
        The edges.

    It keeps no masks (:meth:`completed` returns none), so :meth:`_CPDAG.inserted` and
    :meth:`_CPDAG.deleted` apply its own :meth:`insert` / :meth:`delete` to a copy.
    """

    def __init__(self, p, targets, directed=(), undirected=()):
        super().__init__(p, directed, undirected)
        self.targets = targets

    def _orient_around(self, y, parents):
        """Orient every undirected edge at ``y``: ``w -> y`` for ``w`` in ``parents``,
        ``y -> w`` otherwise (the representative DAG's family of ``y``)."""
        for w in sorted(self.und[y]):
            if w in parents:
                self.orient(w, y)
            else:
                self.orient(y, w)

    def insert(self, x, y, t):
        r"""Insert(x, y, T) on the representative with parents
        :math:`\mathrm{Pa}_y \cup \mathrm{NA}_{y,x} \cup T` of ``y``."""
        parents = (self.und[y] & self.adj_set(x)).union(t)
        self._orient_around(y, parents)
        self.pa[y].add(x)
        self.ch[x].add(y)

    def delete(self, x, y, h):
        r"""Delete(x, y, H) on the representative with parents
        :math:`\mathrm{Pa}_y \cup (\mathrm{NA}_{y,x} \setminus H) \cup \{x\}` of ``y``
        (then ``x -> w`` for ``w`` in H: ``x -> y -> w`` in that DAG)."""
        parents = (self.und[y] & self.adj_set(x)).difference(h) | {x}
        self._orient_around(y, parents)
        for s in (self.pa, self.ch):
            s[x].discard(y)
            s[y].discard(x)
        for w in h:
            if w in self.und[x]:
                self.orient(x, w)

    def completed(self):
        """The interventional essential graph of a consistent extension (Dor & Tarsi) of
        this partially directed graph."""
        directed, undirected = self.edge_lists()
        dag = extension_ids(self.p, directed, undirected)[0] if undirected else directed
        directed, undirected = interventional_essential_graph(self.p, dag, self.targets)
        return _InterventionalGraph(self.p, self.targets, directed, undirected)


_gain = operator.itemgetter(0)  # sort key of an operator (gain, ...); sorted with reverse=True (stable)

#: On at most this many nodes, a step keeps each target's operators as built and sorts them
#: all at once (:func:`_by_decreasing_gain`)
_SORT_AT_ONCE_NODES = 15


def _by_decreasing_gain(lists, kept_sorted):
    """The operators of the lists ``lists`` (an iterable) by decreasing gain; equal gains in
    the order of the lists, then of their positions in them (with each list sorted by
    decreasing gain, stably: the order of ``heapq.merge(*lists, key=gain, reverse=True)``).

    ``kept_sorted``: each list is by decreasing gain already; they are merged lazily
    (:func:`_merged`): on many nodes a step mostly takes one of the first few of hundreds.
    Else (on at most :data:`_SORT_AT_ONCE_NODES` nodes, a few dozen operators) one stable
    sort of the lists joined, a list (empty when there is none): the same order, cheaper
    than sorting each target's list and merging, the more so when a step walks far down,
    e.g. past operators that fail the path condition."""
    if kept_sorted:
        return _merged(list(lists))
    joined = []
    for operators in lists:
        joined += operators
    joined.sort(key=_gain, reverse=True)
    return joined


def _merged(lists):
    """Lists each by decreasing gain merged by decreasing gain, lazily (equal gains in the
    order of the lists, then of their positions): plain tuples ``(-gain, list, position)``
    on a heap."""
    heap = [(-operators[0][0], i, 0) for i, operators in enumerate(lists) if operators]
    heapq.heapify(heap)
    while heap:
        _, i, k = heap[0]
        operators = lists[i]
        yield operators[k]
        if k + 1 < len(operators):
            heapq.heapreplace(heap, (-operators[k + 1][0], i, k + 1))
        else:
            heapq.heappop(heap)


def _pairs(matrix):
    """The unordered position pairs ``(i, j)``, ``i < j``, of a symmetric bool matrix."""
    rows, columns = np.nonzero(matrix)
    return {(i, j) for i, j in zip(rows.tolist(), columns.tolist()) if i < j}


def _extension(g):
    """The DAG of :func:`skbn.graph.pdag_to_dag` (Dor & Tarsi, sorted pairs) of a class ``g``
    of the search, on positions, from its masks (:func:`_adjacency_masks`): a completed
    class, or one maximally oriented with the knowledge it admits, always has a consistent
    extension."""
    _, und, pa = _adjacency_masks(g)
    dag, forced = extension_of_masks(g.p, pa, und)
    if forced:  # (a class of the search is never one: an internal error, not the data's)
        raise RuntimeError(f"GESStructure: a class of the search has no consistent extension ({forced}).")
    return dag


def _adjacency_masks(g):
    """Bit masks of the adjacent nodes, undirected neighbours and parents of every node
    (those a completed :class:`_CPDAG` keeps, else computed)."""
    if getattr(g, "masks", None) is not None:
        return g.masks
    return node_masks(g)


def _is_clique(nodes, adj):
    """Whether the nodes of the mask ``nodes`` are pairwise adjacent (``adj``: symmetric
    adjacency masks): each node against the nodes after it."""
    while nodes:
        low = nodes & -nodes
        nodes ^= low
        if nodes & ~adj[low.bit_length() - 1]:
            return False
    return True


def _clique_masks(nodes, adj, bound):
    """Every clique (bit mask, the empty one first) of at most ``bound`` nodes among the
    nodes of the mask ``nodes``, grown in index order (``adj``: adjacency masks)."""
    if not nodes & (nodes - 1):  # (no node or one: the empty clique and that node)
        return [0, nodes] if nodes and bound > 0 else [0]
    out = [0]
    if bound > 0:
        _grow_cliques(out, 0, nodes, 1, adj, bound)
    return out


def _grow_cliques(out, clique, allowed, size, adj, bound):
    """Append to ``out`` each clique ``clique + {w}`` (``size`` nodes) for ``w`` in the mask
    ``allowed`` (nodes after those of ``clique``, adjacent to all of them), in index order,
    each followed by its own extensions while ``size < bound``."""
    while allowed:
        low = allowed & -allowed
        allowed ^= low
        new = clique | low
        out.append(new)
        later = allowed & adj[low.bit_length() - 1]
        if later and size < bound:
            _grow_cliques(out, new, later, size + 1, adj, bound)


def _mask_reaches(step, sources, targets, allowed):
    """Whether a walk from the mask ``sources`` along ``step`` (a mask of next nodes per
    node) through nodes of the mask ``allowed`` reaches a node of the mask ``targets``
    (the sources themselves count; a target need not be allowed)."""
    if not targets:  # (nothing to reach: the walk need not be taken)
        return False
    seen = frontier = sources
    while frontier:
        if frontier & targets:
            return True
        reach = 0
        for w in id_tuple(frontier):
            reach |= step[w]
        if reach & targets:
            return True
        frontier = reach & allowed & ~seen
        seen |= frontier
    return False


def _reached(step, start, allowed):
    """The nodes a walk from ``start`` along ``step`` (a mask of next nodes per node) reaches
    in one step or more through nodes of the mask ``allowed`` only (every node of the walk
    after ``start`` allowed), as a mask."""
    seen = frontier = step[start] & allowed
    while frontier:
        reach = 0
        for w in id_tuple(frontier):
            reach |= step[w]
        frontier = reach & allowed & ~seen
        seen |= frontier
    return seen


def _insert_path_blocked(forward, masks, x, y, t, reached=None):
    r"""Insert(x, y, T)'s global condition: whether every semi-directed path from ``y`` to
    ``x`` (each step along an undirected edge or an arrow, never against one) meets
    :math:`\mathrm{NA}_{y,x} \cup T` (Chickering 2002, Theorem 15). ``forward``: the mask of
    the nodes one such step from each node; ``masks``: :func:`_adjacency_masks`.

    ``reached`` (a dict kept for one class, e.g. one step's candidates) holds per ``y`` the
    nodes of some semi-directed path from ``y`` (:func:`_reached` through every node but
    ``y``): when ``x`` is not among them no path exists and the condition holds; when it is
    and :math:`\mathrm{NA}_{y,x} \cup T` is empty that path meets nothing, so it fails;
    otherwise the walk is taken again avoiding :math:`\mathrm{NA}_{y,x} \cup T` (``x``
    itself is never in it: it is not adjacent to ``y``, whose neighbours hold both sets)."""
    if reached is None:
        reached = {}
    free = reached.get(y)
    if free is None:
        free = reached[y] = _reached(forward, y, ~(1 << y))
    if not free >> x & 1:
        return True
    blocking = masks[1][y] & masks[0][x]
    for w in t:
        blocking |= 1 << w
    if not blocking:
        return False
    allowed = ~(blocking | 1 << y)
    return not _mask_reaches(forward, forward[y] & allowed, 1 << x, allowed)


def _subsets(items, max_size):
    """Subsets of sorted ``items`` (size <= max_size) grown in index order (each subset
    followed by its extensions), as ``(sorted tuple, bit mask)`` pairs."""
    out = [((), 0)]
    if max_size > 0:
        _grow_subset_pairs(out, items, 0, (), 0, max_size)
    return out


def _grow_subset_pairs(out, items, start, current, mask, max_size):
    """Append to ``out`` the pair of ``current + (w,)`` for each ``w`` of ``items[start:]``,
    each followed by its own extensions while shorter than ``max_size``."""
    for i in range(start, len(items)):
        w = items[i]
        new = current + (w,)
        bits = mask | 1 << w
        out.append((new, bits))
        if len(new) < max_size and i + 1 < len(items):
            _grow_subset_pairs(out, items, i + 1, new, bits, max_size)


class GESStructure(_BaseStructureLearner):
    r"""Greedy equivalence search (GES) over completed PDAGs (Chickering 2002).

    The search moves between Markov equivalence classes, each represented by its CPDAG,
    with a score-equivalent decomposable score (BDeu, BIC, AIC). With
    :math:`\mathrm{Ne}_Y` the undirected neighbours of :math:`Y`, :math:`\mathrm{Pa}_Y` its
    parents and :math:`\mathrm{NA}_{Y,X} = \mathrm{Ne}_Y \cap \mathrm{Adj}_X`:

    * **forward**: ``Insert(X, Y, T)`` for non-adjacent :math:`X, Y` and
      :math:`T \subseteq \mathrm{Ne}_Y \setminus \mathrm{Adj}_X`, valid iff
      :math:`\mathrm{NA}_{Y,X} \cup T` is a clique and every semi-directed path from
      :math:`Y` to :math:`X` meets :math:`\mathrm{NA}_{Y,X} \cup T`; its score change is
      :math:`s(Y, P \cup \{X\}) - s(Y, P)` with :math:`P = \mathrm{Pa}_Y \cup \mathrm{NA}_{Y,X} \cup T`;
    * **backward**: ``Delete(X, Y, H)`` for adjacent :math:`X - Y` or :math:`X \to Y` and
      :math:`H \subseteq \mathrm{NA}_{Y,X}`, valid iff :math:`\mathrm{NA}_{Y,X} \setminus H`
      is a clique; score change :math:`s(Y, P \setminus \{X\}) - s(Y, P \cup \{X\})` with
      :math:`P = \mathrm{Pa}_Y \cup (\mathrm{NA}_{Y,X} \setminus H)`;
    * **turning**: Hauser & Bühlmann's (2012, section 5.3) ``Turn(U, Y, C)``, which
      reverses an edge into ``Y``'s parent set, in whichever DAG of the class the clique
      :math:`C \subseteq \mathrm{Ne}_Y` names (:math:`|C|` bounded by ``max_subset_size``):
      for an undirected ``U - Y``, :math:`U \notin C`, :math:`C \not\subseteq N =
      \mathrm{Ne}_Y \cap \mathrm{Ne}_U` and :math:`C \cap N` separates
      :math:`C \setminus N` from :math:`N \setminus C` within :math:`\mathrm{Ne}_Y`;
      score change :math:`s(Y, P \cup \{U\}) - s(Y, P) + s(U, Q) - s(U, Q \cup \{Y\})`
      with :math:`P = \mathrm{Pa}_Y \cup C`, :math:`Q = \mathrm{Pa}_U \cup (C \cap N)`;
      for a directed ``Y -> U``, :math:`C \supseteq \mathrm{Ne}_Y \cap \mathrm{Pa}_U`
      and every path from ``Y`` to ``U`` other than the edge (along directed or undirected
      edges) meets :math:`C \cup \mathrm{Ne}_U`; score change
      :math:`s(Y, P \cup \{U\}) - s(Y, P) + s(U, \mathrm{Pa}_U \setminus \{Y\}) -
      s(U, \mathrm{Pa}_U)`. These reach exactly the classes obtained by reversing one edge
      of one DAG of the current class (tested by enumerating the class's DAGs).

    Each phase takes the best valid operator while it improves the score; after each step
    the operator is applied to the PDAG and the CPDAG of its consistent extensions is
    recomputed on node ids (its v-structures closed under Meek's rules, Meek 1995). The
    phases are repeated in order until a full pass takes no step (pcalg's ``iterate``).
    The Insert and Delete operators' score changes are cached per target node :math:`Y`
    and recomputed only for targets whose parents, neighbours, or neighbours' adjacencies
    a step changed (the clique condition and the score change depend on nothing else); the
    Turn operators are recomputed at each turning step. The global path conditions are
    checked only for the operators about to be taken. The Insert operators that extend the same parent set are
    scored together (for a continuous child, one batched regression of the child on that set
    plus each candidate: ``docs/gaussian.md``, "GES on continuous data").

    **Experimental rows** (``fit(X, interventions=...)``): GIES (Hauser & Bühlmann 2012).
    Every family is scored on the rows where its child was not set by intervention, which
    makes the score equal for interventionally Markov equivalent DAGs, and the search
    moves between interventional essential graphs for the targets of the data (each
    distinct set of columns set together in a row): the same Insert and Delete operators,
    applied to the DAG of the class in which ``Y``'s parents are the operator's, and the
    result completed to the interventional essential graph of the new DAG
    (:func:`skbn.graph.interventional_essential_graph`); the turning phase takes the same
    Turn operators on the interventional essential graph, completed the same way. On
    Gaussian data with ``GaussianBIC(variance="mle")`` it returns pcalg's ``gies`` graph
    (``benchmarks/bench_gies.py``; pcalg's ``GaussL0penIntScore`` differs only in the
    penalty of an intervened child: :math:`\log(n)/2` per parameter where skbn uses the
    log of the child's kept rows).

    **Escaping local optima.** The greedy search can stop in a class that scores below the
    true DAG, e.g. on near-deterministic families (ALARM's ventilation block), where no
    single operator improves it. ``edge_restarts=10`` (deterministic) restarts the phases
    from the best class with one of its weakest edges deleted (below); ``n_restarts`` from
    random perturbations of it. Both only ever keep a class that scores higher, so the
    result never scores below the plain search's. By default (``edge_restarts="auto"``)
    edge restarts run on experimental rows with a discrete column (GIES on discrete or
    mixed data, which no peer implements); observational GES and Gaussian GIES are the
    plain search, pcalg's ``ges`` / ``gies``.

    Determinism: the largest score change wins; changes within the relative tolerance of
    ``improves`` (``skbn/_engines/_search.py``) count as ties, won by the first operator in scan
    order ``(X, Y, T)`` (column indices, ``T`` as a sorted tuple; ``(U, Y, C)`` for Turn).
    A step is taken only if it improves the score by more than that tolerance.

    Parameters
    ----------
    scorer : str or BaseScore, default="auto"
        "auto" is "bdeu" on discrete data, "bic-g" on continuous data and "bic-cg" on
        mixed data (``scorer_`` holds the one used; see ``docs/gaussian.md``).
        A score-equivalent decomposable score ("bdeu", "bic", "aic" or such an object);
        others (e.g. "k2") are refused, since GES's operators assume every DAG of a class
        scores the same.
    max_indegree : int or None, default=None
        Bound on the family size an Insert creates at ``Y``
        (:math:`|\mathrm{Pa}_Y \cup \mathrm{NA}_{Y,X} \cup T| + 1`) and on a turned edge's
        new family.
    black_list : sequence of (u, v), default=()
        Forbidden edges ``u -> v``; a pair listed both ways is never made adjacent.
    white_list : sequence of (u, v), default=()
        Required edges ``u -> v``; a pair listed both ways is a required adjacency of free
        direction. Required pairs are in the start class and never deleted.

        **Directions** (as Tetrad's FGES, Meek 1995): a direction belongs to the class, not
        to an operator, so when the knowledge fixes one (a one-way entry of either list)
        GES takes an operator only if its class *respects* the knowledge -- some DAG of it
        has every required edge and no forbidden one, checked lazily on the operators about
        to be taken by Meek's procedure (orient each fixed direction in turn and close under
        R1-R4, as :func:`skbn.graph.meek_orient` does; a conflict means no such DAG). The
        search starts from the class of the required edges, which respects it, so every
        class visited does: knowledge against the data is never an error, the result is the
        best class found among those that respect it. ``cpdag_`` is then the *maximally
        oriented PDAG* of the class with the knowledge and ``edges_`` a DAG of it that
        respects the knowledge. ``tiers`` is not offered.
    phases : sequence of {"forward", "backward", "turning"}, default=("forward", "backward", "turning")
        Phases run in this order.
    max_subset_size : int or None, default=None
        Bound on :math:`|T|` (Insert), :math:`|H|` (Delete) and :math:`|C|` (Turn); None
        enumerates all subsets.
        Bound it for graphs with large undirected neighbourhoods.
    max_iter : int or None, default=None
        Bound on the number of steps (operators applied) of each search (the first one,
        each restart, and each of the two searches of an edge restart).
    n_restarts : int, default=0
        Random restarts (opt-in; the default result is the plain search's): after the
        phases converge, a DAG of the best class found so far is perturbed by
        ``perturbation`` uniformly random legal moves (additions, deletions, reversals that
        keep it acyclic and respect the lists and ``max_indegree``, as
        :class:`HillClimbStructure`'s restarts), and the phases are run again from its
        class; a restart's class replaces the best one if it scores higher (by more than
        the tie tolerance). Deterministic for a fixed ``random_state``. Escapes local optima
        of the greedy search, e.g. on near-deterministic families (ALARM's ventilation
        block). They run after the edge restarts.
    perturbation : int, default=10
        Random legal moves applied at each restart.
    edge_restarts : int or "auto", default="auto"
        Deterministic restarts by edge deletion (10 escapes the ALARM local optima of
        ``n_restarts=50`` at a fraction of its time; 0 is the plain search). ``"auto"``: 10
        when some rows are experimental (``interventions``) and a column is discrete, where
        GIES has no peer to match and the plain search fails on ALARM (``docs/ges.md``);
        0 otherwise, so that observational GES and Gaussian GIES stay pcalg's ``ges`` /
        ``gies``. The value used is ``edge_restarts_``. After the phases converge, with :math:`D` the DAG of
        the best class that scores it, the edges :math:`u \to v` of :math:`D` (required
        pairs excepted) are tried weakest first, by the loss
        :math:`s(v, \mathrm{Pa}_v) - s(v, \mathrm{Pa}_v \setminus \{u\})` of removing the
        edge from its child's family (ties: ``(v, u)`` in the order of the column names). A try deletes the
        edge from :math:`D`, runs the phases from the class of the result with the pair
        forbidden, then again from there with the pair allowed; its class replaces the best
        one if it scores higher (by more than the tie tolerance), and the order is then
        recomputed from the new class. Stops after ``edge_restarts`` consecutive tries
        without improvement, or once every edge of the best class was tried. No random
        draws. Similar in spirit to XGES (Nazaret & Blei 2025), which tests deleting edges
        of its result to leave a local optimum; the order and stop rule are skbn's.
    {verbose_parameter}
    missing : {"error", "complete_case", "em"}, default="error"
        Missing cells (NaN/None) in ``X``: refuse them; drop incomplete rows (with a warning
        giving their number); or structural EM (Friedman 1997) as in
        :class:`skbn.HillClimbStructure`: alternate expected completions under the
        current network (weighted rows) and a new GES run on them, which starts from the empty
        class every iteration (``docs/missing.md``).
    {structural_em_parameters}
    random_state : int, RandomState instance or None, default=None
        Seeds the restarts' perturbations, EM's random initialisations (``n_init > 1``)
        and Gibbs draws.
    {common_parameters}

    Attributes
    ----------
    cpdag_ : PDAG
        The learned equivalence class over the column labels: its CPDAG, or with directional
        knowledge its maximally oriented PDAG (an edge is directed iff every DAG of the
        class that respects the knowledge has it that way; :func:`skbn.graph.meek_orient`).
    directed_edges_ : list of (u, v)
        Directed edges of ``cpdag_`` (compelled by the class or by the knowledge).
    undirected_edges_ : list of (u, v)
        Undirected edges of ``cpdag_`` (``u`` before ``v`` in column order).
    interventional_cpdag_ : PDAG
        ``cpdag_``: with ``interventions``, the interventional essential graph of the
        learned class (:func:`skbn.graph.interventional_essential_graph`), else the CPDAG.
    edges_ : list of (parent, child)
        A consistent DAG extension of ``cpdag_`` (Dor & Tarsi), used for the CPTs; it
        respects ``white_list`` and ``black_list``.
    network_ : DiscreteBayesianNetwork, GaussianBayesianNetwork or CLGBayesianNetwork
        The DAG with its parameters: CPTs on discrete data, linear Gaussian regressions
        on continuous columns (a CLG network on mixed data; ``docs/gaussian.md``).
    score_ : float
        Score of the learned class.
    scorer_ : BaseScore
    n_iter_ : int
        Number of operators applied.
    n_steps_ : dict
        Operators applied per phase (over every search).
    restart_scores_ : ndarray of shape (n_restarts,)
        Score of the class each restart reached (``score_`` is the best of the first
        search's, these and ``edge_restart_scores_``).
    edge_restart_scores_ : ndarray of shape (n_tries,)
        Score of the class each edge restart reached, in the order tried (empty when
        ``edge_restarts_`` is 0).
    edge_restarts_ : int
        The number of edge restarts without improvement the search allowed
        (``edge_restarts`` with ``"auto"`` resolved).
    {structural_em_attributes}
    {common_attributes}

    References
    ----------
    D. M. Chickering, "Optimal structure identification with greedy search", JMLR 3, 2002.
    C. Meek, "Causal inference and causal explanation with background knowledge", UAI 1995.
    A. Hauser and P. Buhlmann, "Characterization and greedy learning of interventional
    Markov equivalence classes of directed acyclic graphs", JMLR 13, 2012.
    J. Ramsey et al., "A million variables and more: the fast greedy equivalence search
    algorithm", Int. J. Data Sci. Anal. 3, 2017.
    A. Nazaret and D. Blei, "Extremely greedy equivalence search", arXiv:2502.19551, 2025.

    Examples
    --------
    >>> from skbn import GESStructure
    >>> from skbn.datasets import sample_asia
    >>> model = GESStructure().fit(sample_asia(5000, random_state=0))
    >>> ("either", "xray") in model.directed_edges_
    True
    """

    _parameter_constraints = {
        **_BaseStructureLearner._parameter_constraints,
        **_MISSING_CONSTRAINTS,
        "random_state": ["random_state"],
        "scorer": "no_validation",
        "max_indegree": [None, Interval(Integral, 1, None, closed="left")],
        "phases": [list, tuple],
        "max_subset_size": [None, Interval(Integral, 0, None, closed="left")],
        "max_iter": [None, Interval(Integral, 0, None, closed="left")],
        "n_restarts": [Interval(Integral, 0, None, closed="left")],
        "perturbation": [Interval(Integral, 1, None, closed="left")],
        "edge_restarts": [Interval(Integral, 0, None, closed="left"), StrOptions({"auto"})],
        "verbose": ["verbose"],
    }
    _plugins = ("scorer",)
    _auto_plugins = {"scorer": ("bdeu", "bic-g", "bic-cg")}
    _continuous = True
    _knowledge = ("white_list", "black_list", "max_indegree")
    _bounded_score = True
    _missing_modes = ("error", "complete_case", "em")
    _structural_em = True
    _interventions = True

    def __init__(
        self,
        *,
        scorer="auto",
        max_indegree=None,
        black_list=(),
        white_list=(),
        phases=("forward", "backward", "turning"),
        max_subset_size=None,
        max_iter=None,
        n_restarts=0,
        perturbation=10,
        edge_restarts="auto",
        verbose=0,
        missing="error",
        latent=None,
        e_step="exact",
        n_init=1,
        em_max_iter=100,
        em_tol=1e-6,
        random_state=None,
        categories="auto",
        column_types="auto",
        handle_unknown="warn",
        target=None,
        fit_parameters=True,
        parameter_estimator="bayes",
        parameter_ess=1.0,
    ):
        self.scorer = scorer
        self.max_indegree = max_indegree
        self.black_list = black_list
        self.white_list = white_list
        self.phases = phases
        self.max_subset_size = max_subset_size
        self.max_iter = max_iter
        self.n_restarts = n_restarts
        self.perturbation = perturbation
        self.edge_restarts = edge_restarts
        self.verbose = verbose
        self.categories = categories
        self.column_types = column_types
        self.handle_unknown = handle_unknown
        self.target = target
        self.fit_parameters = fit_parameters
        self.parameter_estimator = parameter_estimator
        self.parameter_ess = parameter_ess
        self.missing = missing
        self.latent = latent
        self.e_step = e_step
        self.n_init = n_init
        self.em_max_iter = em_max_iter
        self.em_tol = em_tol
        self.random_state = random_state

    # ----------------------------------------------------------------- checks
    def _check(self, data, knowledge):
        if not getattr(self.scorer_, "score_equivalent", False):
            raise ValueError(
                f"GESStructure needs a score-equivalent scorer (e.g. 'bdeu', 'bic', 'aic'): "
                f"{type(self.scorer_).__name__} can score Markov-equivalent DAGs differently, "
                f"so a search over equivalence classes is not defined for it. Use "
                f"HillClimbStructure or K2Structure for such scores."
            )
        phases = tuple(self.phases)
        bad = [ph for ph in phases if ph not in _PHASES]
        if bad or not phases:
            raise ValueError(f"phases must be a non-empty sequence of {_PHASES}; got {self.phases!r}.")
        if not knowledge.constrains_edges:  # (no pair forbidden or required)
            return phases, set(), set()
        # unordered position pairs: adjacencies forbidden both ways / required
        return phases, _pairs(knowledge.forbidden_adjacency), _pairs(knowledge.required_adjacency)

    # ------------------------------------------------------------- operators
    def _insert_groups(self, g, y, ctx, gaps, masks):
        r"""Insert(X, y, T) operators satisfying the clique condition, grouped by the parent
        set they extend: a list of ``(P, xs, T)``, ``P`` a bit mask, ``xs`` the operators'
        ``X`` and ``T`` their common ``T`` (a sorted tuple), one entry per
        :math:`\mathrm{NA}_{y,X}` and ``T`` (a parent set may recur).

        Node sets are bit masks (``masks``: :func:`_adjacency_masks` of ``g``). The
        candidates ``X`` are grouped by :math:`\mathrm{NA}_{y,X}`: within a group
        the free neighbours :math:`\mathrm{Ne}_y \setminus \mathrm{Adj}_X = \mathrm{Ne}_y
        \setminus \mathrm{NA}_{y,X}` are the same, so the clique condition is checked and
        the sets ``T`` are enumerated once per group: the cliques among the free neighbours
        adjacent to every node of :math:`\mathrm{NA}_{y,X}` (:func:`_clique_masks`, in
        index order), with which :math:`\mathrm{NA}_{y,X} \cup T` is a clique. The
        operators of an entry extend one parent set
        :math:`P = \mathrm{Pa}_y \cup \mathrm{NA}_{y,X} \cup T` and are scored at once
        (:meth:`_FitContext.insert_operators`: from the table of every local score,
        or by :meth:`_FitContext.insert_gains` from :meth:`FamilyScoreCache.added_scores`, one
        batched kernel call for the continuous candidates of a continuous child, kept per
        ``(y, P)``), and the new parent sets of one step's targets may be computed together
        (:meth:`_FitContext.open_groups`).
        """
        adj, und, par = masks
        ne, pa = und[y], par[y]
        closed = adj[y] | (1 << y)
        if not ne:  # no undirected neighbour: NA and T empty, one parent set (Pa_y)
            if self.max_indegree is not None and pa.bit_count() >= self.max_indegree:
                return []
            outside = ((1 << g.p) - 1) & ~closed
            xs = id_tuple(outside)
            if gaps:
                xs = [x for x in xs if (min(x, y), max(x, y)) not in gaps]
            return [(pa, xs, ())] if xs else []
        by_na = {}  # NA_{y,x} -> the candidates x (increasing)
        if gaps:
            candidates = [x for x in range(g.p) if not closed >> x & 1 and (min(x, y), max(x, y)) not in gaps]
        else:  # (no forbidden adjacency: every node outside the closed neighbourhood)
            candidates = id_tuple(((1 << g.p) - 1) & ~closed)
        for x in candidates:
            na = ne & adj[x]
            if na in by_na:
                by_na[na].append(x)
            else:
                by_na[na] = [x]
        n_pa, bound, max_indegree = pa.bit_count(), ctx.subset_bound, self.max_indegree
        groups = []
        for na, xs in by_na.items():
            if na & (na - 1) and not _is_clique(na, adj):  # (no node or one: a clique)
                continue
            limit = bound
            if max_indegree is not None:
                room = max_indegree - 1 - n_pa - na.bit_count()
                if room < 0:
                    continue
                limit = min(limit, room)
            base = pa | na
            groups.append((base, xs, ()))
            free = ne & ~na  # Ne_y \ Adj_x: the same for every x with this NA
            if limit and free:
                for v in id_tuple(na):  # (a node of T is adjacent to every node of NA)
                    free &= adj[v]
                if free & (free - 1):  # (each T: a non-empty clique of them)
                    for t in _clique_masks(free, adj, limit):
                        if t:
                            groups.append((base | t, xs, id_tuple(t)))
                elif free:  # (one: T = (w,) only)
                    groups.append((base | free, xs, id_tuple(free)))
        return groups

    def _delete_candidates(self, g, y, ctx, fixed, masks=None, positive=False):
        r"""Delete(X, y, H) operators satisfying the clique condition, with their gains.

        For every ``X`` adjacent to ``y`` by an undirected edge or as a parent (not a
        required adjacency) and every :math:`H \subseteq \mathrm{NA}_{y,X}` (at most
        ``subset_bound`` nodes, in index order), valid iff :math:`\mathrm{NA}_{y,X}
        \setminus H` is a clique; its score change is :math:`s(y, K) - s(y, K \cup \{X\})`
        with :math:`K = (\mathrm{Pa}_y \cup \mathrm{NA}_{y,X} \setminus H) \setminus \{X\}`.
        Node sets are bit masks (``masks``: :func:`_adjacency_masks` of ``g``, computed when
        None); with ``positive``, only the operators of a positive finite gain (the only
        ones a step can take)."""
        adj, und, par = _adjacency_masks(g) if masks is None else masks
        pa, ne = par[y], und[y]
        out = []
        for x in id_tuple(pa | ne):
            if fixed and (min(x, y), max(x, y)) in fixed:
                continue
            na = ne & adj[x]
            bit = 1 << x
            if na & (na - 1):  # (two nodes or more)
                subsets = _subsets(id_tuple(na), ctx.subset_bound)
            elif na and ctx.subset_bound:  # (one node w: H is () or (w,), _subsets' two)
                subsets = (((), 0), (id_tuple(na), na))
            else:
                subsets = (((), 0),)
            for h, h_bits in subsets:
                rest = na & ~h_bits
                if rest & (rest - 1) and not _is_clique(rest, adj):  # (no node or one: a clique)
                    continue
                gain = -ctx.gain(y, (pa | rest) & ~bit, x)
                if not positive or 0.0 < gain < math.inf:
                    out.append((gain, x, y, h))
        return out

    @staticmethod
    def _pick(candidates, total, valid, ordered=False):
        """Best valid candidate under the documented tie rule, or None.

        Candidates are ``(gain, x, y, subset)`` (``ordered``: already by decreasing gain).
        The largest valid gain wins if the score improves by more than the tolerance; valid
        gains within the tolerance of it are ties, won by the smallest ``(x, y, subset)``.
        Validity is checked lazily, from the largest gain down (the order among equal gains
        does not matter: every candidate of a gain is reached once one of them is), and
        only for a candidate that would replace the best so far (one after a smaller valid
        ``(x, y, subset)`` cannot win, valid or not).
        """
        threshold = tolerance(total)  # (absolute when a required -inf family makes total -inf)
        if not ordered:
            candidates = sorted([c for c in candidates if c[0] > threshold], key=_gain, reverse=True)
        best = None
        for c in candidates:
            if not c[0] > threshold or best is not None and improves(best[0], c[0]):
                break
            if (best is None or c[1:] < best[1:]) and valid(c):
                best = c
        return best

    # ------------------------------------------------------------------ search
    def _learn_structure(self, data, knowledge, *, start=None, counter=None):
        phases, gaps, fixed = self._check(data, knowledge)
        p = data.n_variables
        progress = Progress(self.verbose, "GESStructure", unit="operator",
                            detail=f"{amount(p, 'column')}, {amount(data.n_samples, 'row')}"
                            if self.verbose else None)  # (formatted for a reader only)
        ctx = _FitContext(data, self.scorer_, p if self.max_subset_size is None else self.max_subset_size,
                          progress)
        if knowledge.constrains_edges and knowledge_directions(knowledge.required, knowledge.forbidden).any():
            ctx.knowledge = knowledge
        g = _empty_graph(data)
        if knowledge.constrains_edges or knowledge.start is not None:  # (else no start edge)
            start = np.argwhere(knowledge.initial_graph())
            if len(start):
                g = g.with_dag([(int(i), int(j)) for i, j in start]).completed()
        max_iter = np.inf if self.max_iter is None else self.max_iter
        n_steps = {phase: 0 for phase in _PHASES}
        if max_iter:  # (a search that takes no step reads no score change)
            ctx.use_table()
        total = self._total(g, ctx)
        g, total, n_iter = self._phases(g, total, ctx, phases, gaps, fixed, max_iter, n_steps)
        edge_scores = []
        self.edge_restarts_ = self._resolved_edge_restarts(data)
        if self.edge_restarts_:
            g, total, steps = self._edge_restarts(g, total, ctx, phases, gaps, fixed, max_iter,
                                                  n_steps, self.edge_restarts_, edge_scores)
            n_iter += steps
        restart_scores = []
        if self.n_restarts:
            # escape a local optimum: perturb a DAG of the best class so far by random legal
            # moves (the hill climber's engine and perturbation), search again from its class
            rng = check_random_state(self.random_state)
            engine = DeltaEngine(data, self.scorer_, knowledge.required, knowledge.forbidden,
                                 knowledge.max_indegree, ctx.counter)
            adjacency = np.zeros((p, p), dtype=bool)
            engine.start(adjacency)
            for _ in range(self.n_restarts):
                adjacency = np.zeros((p, p), dtype=bool)
                for u, v in ctx.extension(g):
                    adjacency[u, v] = True
                engine.set_graph(adjacency)
                perturb(engine, self.perturbation, rng)
                start_class = g.with_dag([(int(u), int(v)) for u, v in np.argwhere(engine.A)]).completed()
                progress.message(f"restart {len(restart_scores) + 1} of {self.n_restarts}")
                found, score, steps = self._phases(start_class, self._total(start_class, ctx), ctx,
                                                   phases, gaps, fixed, max_iter, n_steps)
                n_iter += steps
                restart_scores.append(score)
                if improves(score, total):
                    g, total = found, score
        self.restart_scores_ = np.array(restart_scores, dtype=float)
        self.edge_restart_scores_ = np.array(edge_scores, dtype=float)
        if ctx.knowledge is not None:  # consistent: every class of the search was checked
            g = orient_with_knowledge(g, ctx.knowledge.required, ctx.knowledge.forbidden)[0]
        directed, undirected = g.edge_lists()
        self.cpdag_ = PDAG._of_ids(data.names, directed, undirected)  # (sorted id pairs)
        self.directed_edges_ = list(self.cpdag_.directed)
        self.undirected_edges_ = list(self.cpdag_.undirected)
        self.interventional_cpdag_ = self.cpdag_
        dag = _extension(g)
        self.score_ = float(self._total_dag(p, dag, ctx))
        self.n_iter_ = n_iter
        self.n_steps_ = n_steps
        progress.close(done=n_iter, score=self.score_, edges=len(dag))
        return dag  # (Python ints: read from the class's masks)

    def _phases(self, g, total, ctx, phases, gaps, fixed, max_iter, n_steps):
        """Run the phases in order from the class ``g`` (score ``total``), each while it
        improves, and repeat them until a whole pass takes no step (pcalg's ``iterate``) or
        ``max_iter`` steps were taken; counts the steps per phase in ``n_steps``. Returns
        (class, score, steps).

        A phase that found no step is not run again before some step changes the class: a
        phase's choice is a function of the class and its score alone, so it would find
        none again (the last pass then only confirms the others found none either)."""
        progress, n_iter, changed = ctx.progress, 0, True
        idle = {}  # phase -> the step count at which it last found no step
        while changed and n_iter < max_iter:
            changed = False
            for phase in phases:
                if idle.get(phase) == n_iter:  # the class has not changed since
                    continue
                if progress.detailed:  # (the message is not formatted for nobody)
                    progress.message(f"{phase} phase, score {total:.6f}")
                while n_iter < max_iter:
                    step = self._step(phase, g, ctx, gaps, fixed, total)
                    if step is None:
                        idle[phase] = n_iter
                        break
                    g, gain = step
                    # (+inf: the step made a -inf family finite; -inf + inf is NaN, so rescore)
                    total = total + gain if math.isfinite(gain) else self._total(g, ctx)
                    n_iter += 1
                    n_steps[phase] += 1
                    changed = True
                    if progress.enabled:
                        progress.update(sum(n_steps.values()), phase=phase, score=total)
                ctx.operators = None
            if len(phases) == 1 or not changed:
                break
        return g, total, n_iter

    def _resolved_edge_restarts(self, data):
        """``edge_restarts``, with ``"auto"`` resolved (see the parameter)."""
        if self.edge_restarts != "auto":
            return self.edge_restarts
        experimental = data.intervened is not None  # (None when no cell was set)
        return 10 if experimental and not data.continuous.all() else 0

    def _edge_restarts(self, g, total, ctx, phases, gaps, fixed, max_iter, n_steps, patience, scores):
        r"""Deterministic restarts by edge deletion from the class ``g`` (score ``total``).

        With :math:`D` the DAG of the class that scores it (:meth:`_FitContext.extension`),
        the edges :math:`u \to v` of :math:`D` whose pair is not required are tried weakest
        first, by the loss :math:`s(v, \mathrm{Pa}_v) - s(v, \mathrm{Pa}_v \setminus \{u\})`
        of removing the edge from its child's family (ties: ``(v, u)``). A try deletes the
        edge from :math:`D`, runs the phases from the class of the result with the pair
        forbidden, then again from there with the pair allowed; if it ends strictly higher
        (:func:`improves`) its class becomes the best and the order is recomputed from it.
        Stops after ``patience`` consecutive tries without improvement, or when every edge
        of the best class was tried. Appends each try's score to ``scores``; returns
        (class, score, steps).
        """
        n_iter = failures = 0
        while True:
            dag = [(int(u), int(v)) for u, v in ctx.extension(g)]
            parents = [set() for _ in range(g.p)]
            for u, v in dag:
                parents[v].add(u)
            order = sorted((ctx.gain(v, id_bits(parents[v] - {u}), u), v, u) for u, v in dag
                           if (min(u, v), max(u, v)) not in fixed)
            for _, v, u in order:
                ctx.progress.message(f"edge restart: {ctx.names[u]!r} -> {ctx.names[v]!r} deleted")
                start = g.with_dag([e for e in dag if e != (u, v)]).completed()
                found, score, steps = self._phases(start, self._total(start, ctx), ctx, phases,
                                                   gaps | {(min(u, v), max(u, v))}, fixed, max_iter, n_steps)
                n_iter += steps
                found, score, steps = self._phases(found, score, ctx, phases, gaps, fixed, max_iter, n_steps)
                n_iter += steps
                scores.append(score)
                if improves(score, total):
                    g, total, failures = found, score, 0
                    break
                failures += 1
                if failures >= patience:
                    return g, total, n_iter
            else:  # every edge of the best class was tried
                return g, total, n_iter

    @staticmethod
    def _total_dag(p, dag, ctx):
        parents = [0] * p
        for u, v in dag:
            parents[v] |= 1 << u
        return sum(ctx.local_mask(v, mask) for v, mask in enumerate(parents))

    def _total(self, g, ctx):
        # (the empty class: the empty DAG, nothing to extend; read from its masks when it has them)
        if not any(g.masks[0]) if g.masks is not None else not any(g.pa) and not any(g.und):
            return self._total_dag(g.p, [], ctx)
        return self._total_dag(g.p, ctx.extension(g), ctx)

    def _step(self, phase, g, ctx, gaps, fixed, total):
        """Take the best valid operator of ``phase``; returns (new CPDAG, gain) or None."""
        if phase == "turning":
            return self._turn(g, ctx, total)
        cached = ctx.operators
        if cached is None or cached[0] != phase:
            targets = range(g.p)
            per_target = {}
        else:
            _, per_target, targets = cached
        masks = _adjacency_masks(g)
        groups = None
        if phase == "forward" and not per_target and ctx.table is None:  # (every target: their new
            # parent sets computed together, from the empty class one for all; a later step
            # re-evaluates a few targets, of other sets)
            groups = {y: self._insert_groups(g, y, ctx, gaps, masks) for y in targets}
            ctx.open_groups([(y, group[0]) for y in targets for group in groups[y]])
        # each target's operators of a positive finite gain (no other can be taken, now or at
        # a later step: a step must gain more than a positive tolerance; a non-finite gain
        # never wins: NaN or +inf come from a family scoring -inf on both or on the current
        # side, a continuous parent of a discrete node on mixed data, which no move may leave
        # or enter)
        if phase == "forward":
            insert_groups, insert_operators = self._insert_groups, ctx.insert_operators
            for y in targets:
                group = groups[y] if groups else insert_groups(g, y, ctx, gaps, masks)
                per_target[y] = insert_operators(y, group, positive=True)
        else:
            for y in targets:
                per_target[y] = self._delete_candidates(g, y, ctx, fixed, masks, positive=True)
        kept_sorted = g.p > _SORT_AT_ONCE_NODES  # (each target's list by decreasing gain)
        if kept_sorted:
            for y in targets:
                per_target[y].sort(key=_gain, reverse=True)
        candidates = _by_decreasing_gain(per_target.values(), kept_sorted)
        if not candidates:  # (sorted at once, and none has a positive gain: _pick would find none)
            ctx.operators = None
            return None
        forward = [a & ~pa for a, pa in zip(masks[0], masks[2])] if phase == "forward" else None
        reached = {}  # (the semi-directed reach of each y in this class: _insert_path_blocked)

        def apply(c):
            _, x, y, s = c
            return g.inserted(x, y, s) if phase == "forward" else g.deleted(x, y, s)

        built = {}

        def valid(c):
            _, x, y, s = c
            if phase == "forward" and not _insert_path_blocked(forward, masks, x, y, s, reached):
                return False
            if ctx.knowledge is None:
                return True
            built[c[1:]] = new = apply(c)
            return ctx.admits(new)

        best = self._pick(candidates, total, valid, ordered=True)
        if best is None:
            ctx.operators = None
            return None
        gain, x, y, s = best
        new = built[best[1:]] if best[1:] in built else apply(best)
        if ctx.progress.detailed:
            op, names = "Insert" if phase == "forward" else "Delete", ctx.names
            ctx.progress.message(f"{op}({names[x]!r}, {names[y]!r}, {[names[v] for v in s]}) gain {gain:.4f}")
        ctx.operators = (phase, per_target, self._affected(g, new))
        return new, gain

    @staticmethod
    def _affected(old, new):
        """Targets whose cached operators a step may have changed: the nodes whose parents,
        children or undirected neighbours changed, and the undirected neighbours (before
        and after) of those whose adjacency changed (on :func:`_adjacency_masks`: equal
        adjacency, undirected and parent masks mean equal children)."""
        adj0, und0, par0 = _adjacency_masks(old)
        adj1, und1, par1 = _adjacency_masks(new)
        out = 0
        for v in range(new.p):
            if adj0[v] != adj1[v]:
                out |= 1 << v | und0[v] | und1[v]
            elif und0[v] != und1[v] or par0[v] != par1[v]:
                out |= 1 << v
        return bit_ids(out)

    def _turn_candidates(self, g, v, ctx, masks, above=-math.inf):
        r"""The Turn operators that make ``u`` a parent of ``v`` (Hauser & Bühlmann 2012,
        section 5.3), with their score changes, above ``above`` (the step's threshold: no
        other can be taken); the global path condition of a directed edge is left to
        :meth:`_turn_path_free`.

        With :math:`\mathrm{Ne}`, :math:`\mathrm{Pa}` the undirected neighbours and the
        parents in ``g``, ``C`` ranges over the cliques of :math:`\mathrm{Ne}_v` (of size at
        most ``max_subset_size``):

        * ``u - v`` (undirected): :math:`u \notin C`, with
          :math:`N = \mathrm{Ne}_v \cap \mathrm{Ne}_u`, :math:`C \setminus N \neq
          \emptyset` and :math:`C \cap N` separating :math:`C \setminus N` from
          :math:`N \setminus C` in the subgraph induced by :math:`\mathrm{Ne}_v`. The DAG
          of the class with :math:`\mathrm{Pa}_v \cup C \to v \to` (the rest of
          :math:`\mathrm{Ne}_v`, ``u`` among them) and :math:`\mathrm{Pa}_u \cup (C \cap
          N) \cup \{v\} \to u` has ``v -> u`` reversed; score change
          :math:`s(v, \mathrm{Pa}_v \cup C \cup \{u\}) - s(v, \mathrm{Pa}_v \cup C)
          + s(u, \mathrm{Pa}_u \cup (C \cap N)) - s(u, \mathrm{Pa}_u \cup (C \cap N)
          \cup \{v\})`;
        * ``v -> u`` (directed): :math:`C \supseteq N = \mathrm{Ne}_v \cap
          \mathrm{Pa}_u`, and no path from ``v`` to ``u`` other than the edge itself,
          along directed or undirected edges, avoids :math:`C \cup \mathrm{Ne}_u`; the DAG
          of the class with :math:`\mathrm{Pa}_v \cup C \to v` and ``u`` before its
          undirected neighbours has ``v -> u`` reversed; score change
          :math:`s(v, \mathrm{Pa}_v \cup C \cup \{u\}) - s(v, \mathrm{Pa}_v \cup C)
          + s(u, \mathrm{Pa}_u \setminus \{v\}) - s(u, \mathrm{Pa}_u)`.

        Returns ``(gain, u, v, C)`` with ``C`` a sorted tuple (non-finite gains, and gains
        not above ``above``, dropped).
        """
        adj, und, par, children = masks
        ne, pa_v = und[v], par[v]
        if not ne | children[v]:  # (no neighbour, no child: no edge to turn into v)
            return []
        limit = None if self.max_indegree is None else self.max_indegree - 1
        out = []
        cliques = None  # (enumerated when first read)
        for u in id_tuple(ne | children[v]):
            bit = 1 << u
            if cliques is None and (not ne & bit or ne & ~und[u] & ~bit):
                cliques = _clique_masks(ne, adj, ctx.subset_bound)
            if ne & bit:  # u - v
                n = ne & und[u]
                if not ne & ~n & ~bit:  # (every clique without u lies within N)
                    continue
                for c in cliques:
                    if c & bit or not c & ~n:
                        continue
                    if limit is not None and ((pa_v | c).bit_count() > limit
                                              or (par[u] | (c & n)).bit_count() > limit + 1):
                        continue
                    gain = ctx.gain(v, pa_v | c, u) - ctx.gain(u, par[u] | (c & n), v)
                    # (finite and above the threshold; the separation condition, a walk,
                    # is read only then)
                    if above < gain < math.inf and not _mask_reaches(adj, c & ~n, n & ~c, ne & ~(c & n)):
                        out.append((gain, u, v, id_tuple(c)))
            else:  # v -> u
                n = ne & par[u]
                loss = ctx.gain(u, par[u] & ~(1 << v), v)
                for c in cliques:
                    if c & n != n or (limit is not None and (pa_v | c).bit_count() > limit):
                        continue
                    gain = ctx.gain(v, pa_v | c, u) - loss
                    if above < gain < math.inf:
                        out.append((gain, u, v, id_tuple(c)))
        return out

    @staticmethod
    def _turn_path_free(masks, u, v, c):
        """For a directed ``v -> u``: whether every path from ``v`` to ``u`` other than the
        edge, along directed or undirected edges, meets ``C`` or the undirected neighbours
        of ``u`` (always true for an undirected ``u - v``, whose condition is local)."""
        _, und, _, ch = masks
        if und[v] >> u & 1:
            return True
        forward = [a | b for a, b in zip(ch, und)]
        blocked = und[u] | (1 << v)
        for w in c:
            blocked |= 1 << w
        return not _mask_reaches(forward, forward[v] & ~(1 << u) & ~blocked, 1 << u, ~blocked)

    @staticmethod
    def _apply_turn(g, u, v, c):
        """The class after Turn(u, v, C): the DAG of the current class named in
        :meth:`_turn_candidates` (the edges at ``u`` and ``v`` oriented, the rest by Dor &
        Tarsi's extension), ``v -> u`` reversed, completed to its (interventional) essential
        graph."""
        d = g.copy()
        if u in g.und[v]:
            keep = g.und[u].intersection(c)
            for w in sorted(g.und[u] - {v}):
                d.orient(*((w, u) if w in keep else (u, w)))
        else:
            for w in sorted(g.und[u]):
                d.orient(u, w)
        for w in sorted(g.und[v]):
            d.orient(*((w, v) if w in c else (v, w)))
        dag, _ = extension_ids(g.p, *d.edge_lists())
        return g.with_dag([(u, v) if (a, b) == (v, u) else (a, b) for a, b in dag]).completed()

    def _turn(self, g, ctx, total):
        """Take the best valid Turn operator (:meth:`_turn_candidates`); returns (new class,
        gain) or None."""
        adj, und, par = _adjacency_masks(g)
        masks = (adj, und, par, [a & ~(u | p) for a, u, p in zip(adj, und, par)])  # (children: the rest)
        threshold = tolerance(total)  # (_pick's: a gain not above it is never taken)
        candidates = [c for v in range(g.p) for c in self._turn_candidates(g, v, ctx, masks, threshold)]
        if not candidates:  # (none above the threshold: _pick would find none)
            return None
        built = {}

        def valid(c):
            _, u, v, s = c
            if not self._turn_path_free(masks, u, v, s):
                return False
            if ctx.knowledge is None:
                return True
            built[c[1:]] = new = self._apply_turn(g, u, v, s)
            return ctx.admits(new)

        best = self._pick(candidates, total, valid)
        if best is None:
            return None
        gain, u, v, s = best
        new = built[best[1:]] if best[1:] in built else self._apply_turn(g, u, v, s)
        if ctx.progress.detailed:
            names = ctx.names
            clique = [names[w] for w in s]
            ctx.progress.message(f"Turn({names[u]!r} -> {names[v]!r}, {clique}) gain {gain:.4f}")
        return new, gain


def _empty_graph(data):
    """The empty class: a :class:`_CPDAG`, or with experimental rows (``data.intervened``)
    an :class:`_InterventionalGraph` for their targets (GIES)."""
    if data.intervened is None:  # (completed: its first Insert reads the masks)
        p = data.n_variables
        return _CPDAG._of_masks(p, ([0] * p, [0] * p, [0] * p))
    return _InterventionalGraph(data.n_variables, _intervention_targets(data))
