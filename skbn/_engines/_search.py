"""Local search over DAGs with a delta-score table (engine of :class:`HillClimbStructure`).

State: the adjacency matrix ``A`` (``A[i, j]`` = edge ``i -> j``), the table of move deltas
(:class:`DeltaEngine`; acyclicity is checked only for the move about to be taken) and, for
every child ``j``, the *toggle column* ``T[:, j]``: ``T[i, j]`` is the local score of ``j``
with the parent ``i`` toggled (added if absent, removed if present) and ``T[j, j]`` the
current local score. So

* adding ``i -> j`` or removing it changes the score by ``D[i, j] = T[i, j] - T[j, j]``;
* reversing ``i -> j`` changes it by ``D[i, j] + D[j, i]``.

A move changes one family (two for a reversal) and only those toggle columns are
recomputed. The engine asks the local-score module (:mod:`skbn._engines._local_scores`)
for toggle columns and family scores only, never for a count table:
:meth:`~skbn._engines._local_scores.FamilyColumns.toggle_column` (one pass of the
counting engine over the rows for every candidate family ``(pa_j + k, j)`` at once,
scored in one batch; cached by ``(child, parent set)``) and
:meth:`~skbn._engines._local_scores.FamilyColumns.local_score`.

Nothing here depends on set or dict iteration order: candidates are flat indices over
``(parent, child, move)`` in row-major order.
"""

import math
import time
from collections import deque

import numpy as np

from skbn._dag import DynamicReachability
from skbn._engines._local_scores import FamilyColumns
from skbn.utils._progress import Progress

#: A candidate must beat the incumbent by more than this relative margin; candidates within
#: it of the best count as ties, won by the first in scan order.
TIE_TOLERANCE = 1e-10

ADD, REMOVE, REVERSE = 0, 1, 2
MOVE_NAMES = ("add", "remove", "reverse")


# ----------------------------------------------------------------------------- engine
class DeltaEngine:
    """Toggle columns, the move-delta table and legality of one search state.

    ``table[i, j, kind]`` holds the delta of every move that is legal *up to acyclicity*
    (pair not already adjacent, ``black_list``, ``white_list``, ``max_indegree``) and
    ``-inf`` elsewhere. A move changes one or two families; only the table entries that
    read those families' toggle columns or in-degrees are recomputed (their column, and for
    reversals their row: ``O(p)`` per move instead of ``O(p^2)``). Acyclicity is checked
    only for a move about to be taken (:func:`select_move`), by one bit test on the
    reachability bitsets of the graph kernel (:class:`skbn._dag.DynamicReachability`:
    built by one pass in topological order, then updated exactly by every move); a move
    found to close a cycle
    stays masked out until the next removal or reversal. The full legal table
    (:meth:`deltas`, used by the randomised searches) masks every cyclic move at once.
    Toggle columns (``columns``: a :class:`~skbn._engines._local_scores.FamilyColumns`)
    count and score only the parents not forbidden (its ``candidates``): a forbidden
    entry of ``T`` is ``-inf`` and never read.

    Parameters
    ----------
    data : EncodedData
    scorer : BaseScore
    required, forbidden : ndarray of shape (p, p), bool
        Edges that must stay (never removed; never reversed unless both directions are
        required: a required adjacency of free direction) and edges never added.
    max_indegree : int
    counter : FamilyCounter or None
        Counting context of ``data`` to share (see
        :class:`~skbn._engines._local_scores.FamilyColumns`).
    """

    def __init__(self, data, scorer, required, forbidden, max_indegree, counter=None):
        self.columns = FamilyColumns(data, scorer, candidates=~forbidden, counter=counter)
        self.scorer, self.counter = scorer, self.columns.counter
        p = self.p = self.columns.p
        self.required = required
        self.forbidden = forbidden | np.eye(p, dtype=bool)
        self.max_indegree = max_indegree
        # pair-only legality: a required pair is never removed; it is reversed only when
        # both directions are required; a reversal must not create a forbidden edge
        self._addable = ~self.forbidden
        self._removable = ~(required | required.T)
        self._reversible = ~(required & ~required.T) & ~self.forbidden.T
        # a node with p - 1 parents has no variable left to gain, so a bound of p - 1 (the
        # default) never binds
        self._bounded = max_indegree < p - 1
        # the same with the current graph, as additive masks (0 = legal, -inf = illegal; a
        # delta plus its mask is its table entry): adding (i, j) needs a non-adjacent pair,
        # removing or reversing it the edge i -> j. Kept up to date pair by pair.
        self._add_mask = np.zeros((p, p))
        self._remove_mask = np.zeros((p, p))
        self._reverse_mask = np.zeros((p, p))
        self.A = np.zeros((p, p), dtype=bool)
        self.T = np.zeros((p, p))
        self.table = np.full((p, p, 3), -np.inf)
        self.indegree = np.zeros(p, dtype=np.int64)
        self.dag = DynamicReachability(p)  # parent / child / reachability bitsets of A
        self.n_evaluations = 0  # toggle columns requested (see Budget)
        # moves known to close a cycle (kept while edges are only added): flat table index ->
        # the move (kind, i, j), so that re-examining them decodes nothing
        self._cyclic = {}
        self._score = None

    # --------------------------------------------------------------- state
    @property
    def _parent_bits(self):
        """Bit ``i`` of ``[j]`` set iff the edge ``i -> j``."""
        return self.dag.parents

    def parents_of(self, child):
        """Sorted parents of ``child``, read off its parent bitset."""
        return self.dag.parent_ids(child)

    def refresh(self, child):
        self.n_evaluations += 1
        self.T[:, child] = self.columns.toggle_column(child, self.parents_of(child))
        self._score = None

    def _set_adjacency(self, adjacency):
        self.A = adjacency.copy()
        A = self.A
        self._add_mask[...] = np.where(~(A | A.T) & self._addable, 0.0, -np.inf)
        self._remove_mask[...] = np.where(A & self._removable, 0.0, -np.inf)
        self._reverse_mask[...] = np.where(A & self._reversible, 0.0, -np.inf)
        self.indegree = self.A.sum(axis=0).astype(np.int64)
        self.dag.set_graph(self.A)
        self._cyclic.clear()  # the table is filled afresh next

    def set_graph(self, adjacency):
        """Jump to a DAG (refreshing only the columns whose parents changed)."""
        changed = np.flatnonzero((self.A != adjacency).any(axis=0))
        self._set_adjacency(adjacency)
        for child in changed:
            self.refresh(int(child))
        self._fill_table()

    def start(self, adjacency):
        self._set_adjacency(adjacency)
        for child in range(self.p):
            self.refresh(child)
        self._fill_table()

    @property
    def score(self):
        """Score of the current graph: the sum of the diagonal of ``T`` (cached until a
        column changes: :meth:`refresh` is the only writer of ``T``)."""
        if self._score is None:
            self._score = float(np.add.reduce(self.T.diagonal()))  # np.sum(np.diag(T)), without wrappers
        return self._score

    # --------------------------------------------------------------- delta table
    def _update_masks(self, i, j):
        """The legality masks of the pair ``{i, j}`` after its edge changed."""
        A = self.A
        adjacent = A[i, j] or A[j, i]
        for a, b in ((i, j), (j, i)):
            self._add_mask[a, b] = -np.inf if adjacent or not self._addable[a, b] else 0.0
            self._remove_mask[a, b] = 0.0 if A[a, b] and self._removable[a, b] else -np.inf
            self._reverse_mask[a, b] = 0.0 if A[a, b] and self._reversible[a, b] else -np.inf

    def _room_mask(self):
        """0 where a variable may gain a parent (``max_indegree``), -inf elsewhere."""
        return np.where(self.indegree < self.max_indegree, 0.0, -np.inf)

    def _fill_table(self):
        """Every entry of the table (after a jump to another graph)."""
        T = self.T
        with np.errstate(invalid="ignore"):
            D = T - np.diag(T)[None, :]
            self.table[..., ADD] = D + self._add_mask
            self.table[..., REMOVE] = D + self._remove_mask
            self.table[..., REVERSE] = D + D.T + self._reverse_mask
        if self._bounded:
            room = self._room_mask()
            self.table[..., ADD] += room[None, :]  # adding i -> j: j gains a parent
            self.table[..., REVERSE] += room[:, None]  # reversing i -> j: i gains one
        _no_gain(self.table)

    def _update_family(self, v):
        """Entries that read family ``v``: column ``v`` (add, remove, reverse ``x -> v``)
        and row ``v`` of the reversals (``v -> x`` becomes ``x -> v``: ``v`` gains ``x``).
        Every entry is its delta plus the legality masks (0 or -inf)."""
        T, table = self.T, self.table
        diagonal = T.diagonal()
        with np.errstate(invalid="ignore"):
            d_col = _no_gain(T[:, v] - diagonal[v])  # D[:, v]
            # D[x, v] + D[v, x]: reversing x -> v or v -> x
            d_reverse = _no_gain(d_col + _no_gain(T[v] - diagonal))
        table[:, v, REMOVE] = d_col + self._remove_mask[:, v]
        if not self._bounded or self.indegree[v] < self.max_indegree:  # v may gain a parent
            table[:, v, ADD] = d_col + self._add_mask[:, v]
            table[v, :, REVERSE] = d_reverse + self._reverse_mask[v]
        else:
            table[:, v, ADD] = -np.inf
            table[v, :, REVERSE] = -np.inf
        reverse_into = d_reverse + self._reverse_mask[:, v]  # x -> v reversed: x gains v
        if self._bounded:
            reverse_into += self._room_mask()
        table[:, v, REVERSE] = reverse_into

    def reachability(self):
        """``R[i, j]``: a directed path ``i ~> j`` of length >= 1 exists."""
        return self.dag.matrix()

    def deltas(self):
        """Move deltas, shape (p, p, 3): ``[..., ADD/REMOVE/REVERSE]``; illegal = -inf."""
        R = self.reachability()
        out = self.table.copy()
        out[..., ADD][R.T] = -np.inf  # adding i -> j closes a cycle iff j ~> i
        edges_i, edges_j = np.divmod(np.flatnonzero(self.A), self.p)
        if len(edges_i):
            # reversing i -> j closes a cycle iff i reaches another parent of j
            other_path = (R[edges_i] & self.A[:, edges_j].T).any(axis=1)
            out[edges_i[other_path], edges_j[other_path], REVERSE] = -np.inf
        return out

    def keeps_acyclic(self, index):
        """Whether the move with flat table index ``index`` leaves the graph acyclic.

        A move found to close a cycle is masked out of the table (``-inf``) until a removal
        or reversal (adding edges never opens a cycle back up), which re-examines it.
        """
        pair, kind = divmod(index, 3)  # decode(index, p)
        if kind == REMOVE:
            return True
        i, j = divmod(pair, self.p)
        dag = self.dag
        cyclic = dag.add_closes_cycle(i, j) if kind == ADD else dag.reverse_closes_cycle(i, j)
        if cyclic:
            self._cyclic[index] = (kind, i, j)
            self.table.reshape(-1)[index] = -np.inf
        return not cyclic

    def _add_entry(self, i, j):
        """Table entry of adding ``i -> j`` (as :meth:`_fill_table`, one move)."""
        if (self.A[i, j] or self.A[j, i] or not self._addable[i, j]
                or self.indegree[j] >= self.max_indegree):
            return -np.inf
        T = self.T
        return _gain(T[i, j], T[j, j])

    def _reverse_entry(self, i, j):
        """Table entry of reversing ``i -> j``."""
        if not (self.A[i, j] and self._reversible[i, j] and self.indegree[i] < self.max_indegree):
            return -np.inf
        T = self.T
        delta = _gain(T[i, j], T[j, j]) + _gain(T[j, i], T[i, i])  # (Python floats: NaN, no warning)
        return delta if delta == delta else -np.inf

    def _recheck_cycles(self):
        """After a removal or reversal: put back the masked moves that no longer close a
        cycle, mask again (their entries were maybe rewritten) those that still do."""
        if not self._cyclic:
            return
        flat = self.table.reshape(-1)
        # the tests of DynamicReachability.add_closes_cycle / reverse_closes_cycle, inlined
        # on its bitsets (this loop is hot): adding i -> j closes a cycle iff j ~> i,
        # reversing i -> j iff i reaches another parent of j
        reach, parent_bits, cyclic = self.dag.reach, self.dag.parents, self._cyclic
        freed = []
        for index, (kind, i, j) in cyclic.items():
            if (reach[j] >> i) & 1 if kind == ADD else reach[i] & parent_bits[j]:
                flat[index] = -np.inf
            else:
                flat[index] = self._add_entry(i, j) if kind == ADD else self._reverse_entry(i, j)
                freed.append(index)
        for index in freed:
            del cyclic[index]

    def apply(self, move):
        """Apply ``(kind, i, j)``; refresh the changed families and their table entries."""
        kind, i, j = move
        if kind == ADD:
            self.A[i, j] = True
            self.indegree[j] += 1
            self.dag.add(i, j)
            changed = (j,)
        elif kind == REMOVE:
            self.A[i, j] = False
            self.indegree[j] -= 1
            self.dag.remove(i, j)
            changed = (j,)
        else:
            self.A[i, j] = False
            self.A[j, i] = True
            self.indegree[j] -= 1
            self.indegree[i] += 1
            self.dag.remove(i, j)
            self.dag.add(j, i)
            changed = (j, i)
        self._update_masks(i, j)
        for v in changed:
            self.refresh(v)
        for v in changed:
            self._update_family(v)
        flat = self.table.reshape(-1)
        if kind != REVERSE:  # the pair's other direction (column i)
            flat[(j * self.p + i) * 3 + ADD] = self._add_entry(j, i)
        if kind == ADD:  # still cyclic: mask again what the updates rewrote
            if self._cyclic:
                flat[list(self._cyclic)] = -np.inf
        else:
            self._recheck_cycles()


def _gain(new, old):
    """Score change ``new - old`` of one family, ``-inf`` when both are ``-inf``.

    A family scores ``-inf`` where its score is undefined (a conditional-Gaussian
    configuration with too few rows), and a required edge can keep it there. A move that
    leaves it at ``-inf`` is no gain (``-inf - -inf`` is NaN, which would win every
    ``argmax`` and stop the search); one that makes it finite gains ``+inf``. So the moves
    of the other families are still compared by their finite deltas, as bnlearn does
    (its ``delta > max`` is false for NaN).
    """
    delta = float(new) - float(old)  # (Python floats: -inf - -inf is NaN without a warning)
    return delta if delta == delta else -np.inf


def _no_gain(deltas):
    """:func:`_gain`'s rule on an array of deltas, in place: NaN (a family left at
    ``-inf``, or a reversal fixing one family and breaking the other) becomes ``-inf``."""
    deltas[np.isnan(deltas)] = -np.inf
    return deltas


def tolerance(score):
    """Absolute tie / improvement tolerance at this score (``TIE_TOLERANCE`` relative to a
    finite score; absolute when a family scoring ``-inf`` makes the score infinite)."""
    return TIE_TOLERANCE * (1.0 + abs(score)) if math.isfinite(score) else TIE_TOLERANCE


def improves(candidate, incumbent):
    """The documented tie rule: strictly better by more than the relative tolerance."""
    return candidate > incumbent + tolerance(incumbent)


def best_move(flat, score, excluded=()):
    """First move in scan order among those within tolerance of the best delta."""
    if excluded:
        flat = flat.copy()
        flat[list(excluded)] = -np.inf
    best = flat.max() if flat.size else -np.inf
    if best == -np.inf:
        return None, -np.inf
    index = int(np.flatnonzero(flat >= best - tolerance(score))[0])
    return index, float(flat[index])


def select_move(engine, score):
    """:func:`best_move` over the legal moves, checking acyclicity lazily.

    Equal to ``best_move(engine.deltas().ravel(), score)`` without building the full legal
    table: the first best entry of ``engine.table`` is checked for acyclicity (a move
    closing a cycle is masked out, :meth:`DeltaEngine.keeps_acyclic`) until it is legal;
    then the earlier entries within the tolerance of it are checked in scan order and the
    first legal one is returned (else that best entry). Entries set to ``-inf`` by the
    caller (tabu moves) are excluded.
    """
    flat = engine.table.reshape(-1)
    if not flat.size:
        return None, -np.inf
    while True:
        top = int(flat.argmax())  # first index holding the largest entry
        best = float(flat[top])
        if best == -math.inf:  # (+inf: a move that makes a -inf family finite)
            return None, -np.inf
        if engine.keeps_acyclic(top):
            break
    # ``top`` is legal and first among the best: only an earlier entry within the
    # tolerance can come first in scan order (argmax of a boolean array: its first True)
    earlier = flat[:top] >= best - tolerance(score)
    while earlier.any():
        index = int(earlier.argmax())
        if engine.keeps_acyclic(index):
            return index, float(flat[index])
        earlier[index] = False
    return top, best


def unmask(engine, masked):
    """Put back the table entries a search masked out (``masked``: index -> value)."""
    flat = engine.table.reshape(-1)
    for index, value in masked.items():
        flat[index] = value
    masked.clear()


def decode(index, p):
    pair, kind = divmod(index, 3)
    i, j = divmod(pair, p)
    return kind, i, j


def graph_key(adjacency):
    return np.packbits(adjacency).tobytes()


# ----------------------------------------------------------------------------- searches
class Budget:
    """Anytime stopping rule shared by every phase of one fit.

    ``max_time`` is in seconds of wall time from the creation of the budget;
    ``max_evaluations`` counts :attr:`DeltaEngine.n_evaluations`, the family re-scorings
    (one toggle column: a family and its ``p`` single-parent neighbours) requested so far,
    cached or not, so a search stopped by it is deterministic. Searches check the budget
    between moves: the move in progress, and the return to the best graph seen, may go a
    few evaluations past it. ``None`` means no limit.
    """

    def __init__(self, max_time=None, max_evaluations=None):
        self.start = time.perf_counter()
        self.max_time = max_time
        self.max_evaluations = max_evaluations

    def elapsed(self):
        return time.perf_counter() - self.start

    def exhausted(self, engine):
        if self.max_evaluations is not None and engine.n_evaluations >= self.max_evaluations:
            return True
        return self.max_time is not None and self.elapsed() >= self.max_time


_UNLIMITED = Budget()


class _Recorder:
    """Trace of scores, times and evaluations, and a move counter shared by the phases.

    ``progress`` (a :class:`skbn.utils._progress.Progress`, shared by the restarts) hears
    of every recorded graph: the moves so far and the score (summaries under ``verbose``);
    at ``verbose >= 2`` each move is also written. A plain ``verbose`` int is accepted too.
    """

    def __init__(self, progress, names, label, budget=None):
        if not isinstance(progress, Progress):
            progress = Progress(progress, "HillClimbStructure", unit="move")
        self.trace = []
        self.times = []
        self.evaluations = []
        self.n_moves = 0
        self.progress = progress
        self.names = names
        self.label = label
        self.budget = _UNLIMITED if budget is None else budget

    def step_label(self):
        """``"step"``, or ``"restart 2, step"`` in a restart (the detail lines' prefix)."""
        return f"{self.label.strip()}, step" if self.label.strip() else "step"

    def record(self, engine, move=None):
        score = engine.score
        self.trace.append(score)
        self.times.append(self.budget.elapsed())
        self.evaluations.append(engine.n_evaluations)
        if move is not None:
            self.n_moves += 1
        progress = self.progress
        if progress.enabled:
            if move is not None:
                progress.done += 1
                if progress.detailed:
                    kind, i, j = move
                    progress.message(f"{self.step_label()} {self.n_moves}: {MOVE_NAMES[kind]} "
                                     f"{self.names[i]!r} -> {self.names[j]!r}, score {score:.6f}")
            progress.update(progress.done, score=score)


def steepest_ascent(engine, recorder, max_moves):
    """Take the best improving legal move until none improves (or the budget ends)."""
    taken = 0
    budget = recorder.budget
    while taken < max_moves and not budget.exhausted(engine):
        score = engine.score
        index, delta = select_move(engine, score)
        if index is None or delta <= tolerance(score):
            break
        move = decode(index, engine.p)
        engine.apply(move)
        taken += 1
        recorder.record(engine, move)
    return taken


def first_improvement(engine, recorder, max_moves, rng):
    """Opportunistic ascent: try legal moves in random order, take the first that improves."""
    taken = 0
    while taken < max_moves and not recorder.budget.exhausted(engine):
        score = engine.score
        flat = engine.deltas().ravel()
        legal = np.flatnonzero(flat > -np.inf)  # (+inf: makes a -inf family finite)
        order = legal[rng.permutation(len(legal))]
        better = np.flatnonzero(flat[order] > tolerance(score))
        if not len(better):
            break
        move = decode(int(order[better[0]]), engine.p)
        engine.apply(move)
        taken += 1
        recorder.record(engine, move)
    return taken


def tabu_search(engine, recorder, max_moves, tabu_length, patience):
    """bnlearn's tabu search: best non-tabu move even if worse; return the best graph seen."""
    best_graph, best_score = engine.A.copy(), engine.score
    recent = deque([graph_key(engine.A)], maxlen=max(tabu_length, 1))
    stale = taken = 0
    masked = {}
    flat = engine.table.reshape(-1)
    while taken < max_moves and stale < patience and not recorder.budget.exhausted(engine):
        score = engine.score
        while True:
            index, _ = select_move(engine, score)
            if index is None:
                break
            move = decode(index, engine.p)
            key = _key_after(recent[-1], engine.p, move)
            if tabu_length == 0 or key not in recent:
                break
            masked[index] = flat[index]  # tabu: the next best move
            flat[index] = -np.inf
        unmask(engine, masked)
        if index is None:
            break
        engine.apply(move)
        recent.append(key)  # the key of the graph the move led to
        taken += 1
        recorder.record(engine, move)
        if engine.score > best_score + tolerance(best_score):
            best_graph, best_score, stale = engine.A.copy(), engine.score, 0
        else:
            stale += 1
    engine.set_graph(best_graph)
    return taken


def _key_after(key, p, move):
    """:func:`graph_key` of the graph that ``move`` leads to, from the current ``key``: every
    move toggles entry ``(i, j)`` (and a reversal ``(j, i)``), bit ``7 - (i p + j) % 8`` of
    byte ``(i p + j) // 8`` of the packed adjacency (:func:`numpy.packbits`, big-endian)."""
    kind, i, j = move
    after = bytearray(key)
    for a, b in ((i, j), (j, i)) if kind == REVERSE else ((i, j),):
        byte, bit = divmod(a * p + b, 8)
        after[byte] ^= 0x80 >> bit
    return bytes(after)


# ------------------------------------------------------------- triangle -> v-structure
def triangle_moves(engine):
    r"""Deltas of the compound moves that turn a triangle into a v-structure.

    For every triangle ``{a, b, c}`` (three pairwise adjacent nodes, ``a < b < c``) and
    every apex ``z`` of it (``a``, then ``b``, then ``c``), with ``u < w`` the two other
    nodes: remove the ``u - w`` edge and orient ``u -> z <- w`` (reversing ``z -> u`` /
    ``z -> w`` where needed); every other edge stays. Three families change (``z`` gains
    ``u`` and ``w``, ``u`` and ``w`` lose ``z`` and each other), so the delta is

    .. math::
        \sum_{v \in \{u, w, z\}} s(x_v, \mathrm{pa}'_v) - s(x_v, \mathrm{pa}_v).

    Such a move is worth up to three single-edge moves at once, each of which can lower the
    score on its own: a climb that covered a v-structure ``u -> z <- w`` by a triangle (the
    first edge into ``z`` oriented out of it by a tie between the two score-equivalent
    orientations, then ``u - w`` added because ``u`` and ``w`` are dependent given ``z``)
    cannot undo it one edge at a time. A triangle of a DAG is transitive (source ->
    middle -> sink, source -> sink): the apex ``z`` = sink is the single removal of the
    source -> middle edge, kept so that every v-structure of the triangle is a candidate;
    the other two are the "arc triangle deletions" of pyAgrum's greedy search (aGrUM 3,
    ``GraphChangesSelector4DiGraph``).

    Legality up to acyclicity: the removed edge is not required, every reversed edge is
    reversible (:class:`DeltaEngine`: not a one-way required edge, its reverse not
    forbidden), and ``z`` stays within ``max_indegree``. A family with one parent toggled
    reads its toggle column; others (two parents added or removed) come from the engine's
    :meth:`~skbn._engines._local_scores.FamilyColumns.local_score` (counted on the first
    request, not counted as evaluations of the :class:`Budget`).

    Returns
    -------
    moves : list of (delta, (a, b, c, z))
        In scan order (triangle, then apex).
    """
    A, T, scores = engine.A, engine.T, engine.columns
    neighbours = [set(np.flatnonzero(row).tolist()) for row in A | A.T]
    parents = [set(np.flatnonzero(column).tolist()) for column in A.T]

    def gain(v, new):
        """Local score of ``v`` with parents ``new`` minus its current one."""
        (toggled, *more) = parents[v] ^ new
        if not more:  # one parent toggled: the toggle column has it
            return T[toggled, v] - T[v, v]
        return scores.local_score(v, new) - T[v, v]

    moves = []
    for a in range(engine.p):
        for b in sorted(v for v in neighbours[a] if v > a):
            for c in sorted(v for v in neighbours[a] & neighbours[b] if v > b):
                for z, u, w in ((a, b, c), (b, a, c), (c, a, b)):
                    if not engine._removable[u, w]:
                        continue
                    if any(A[z, s] and not engine._reversible[z, s] for s in (u, w)):
                        continue
                    new_z = parents[z] | {u, w}
                    if len(new_z) > engine.max_indegree:
                        continue
                    delta = gain(z, new_z) if len(new_z) > len(parents[z]) else 0.0
                    for v, other in ((u, w), (w, u)):
                        if other in parents[v] or z in parents[v]:
                            delta += gain(v, parents[v] - {other, z})
                    moves.append((delta, (a, b, c, z)))
    return moves


def triangle_graph(adjacency, move):
    """The DAG after the triangle move ``(a, b, c, z)`` (:func:`triangle_moves`)."""
    a, b, c, z = move
    u, w = (v for v in (a, b, c) if v != z)
    after = adjacency.copy()
    after[u, w] = after[w, u] = after[z, u] = after[z, w] = False
    after[u, z] = after[w, z] = True
    return after


def _triangle_keeps_acyclic(engine, move):
    """Whether the triangle move ``(a, b, c, z)`` leaves the graph acyclic.

    Its new edges are the reversed ``z -> s`` (``s`` in ``{u, w}``, the new tails), so a
    cycle after it is a path from ``z`` back to a new tail. Such a path leaves ``z`` by a
    child ``x`` other than ``u`` and ``w`` and reaches a new tail by edges of the current
    graph: it avoids ``z`` (a cycle now) and the removed ``u - w`` edge (entering ``w``
    from ``u`` means reaching ``u`` first, itself a new tail, or else ``u -> z`` with
    ``z ~> u``, a cycle now). So the move closes a cycle iff such an ``x`` is a new tail or
    reaches one: one test on the engine's reachability bitsets.
    """
    a, b, c, z = move
    A = engine.A
    tails = sum(1 << s for s in (a, b, c) if s != z and A[z, s])
    if not tails:
        return True  # only the removal of u - w
    sources = engine.dag.children[z] & ~((1 << a) | (1 << b) | (1 << c))
    return not engine.dag.reaches_bits(sources, tails)


def triangle_descent(engine, recorder, climb):
    """Escape single-edge local optima by triangle -> v-structure moves.

    While the budget lasts and an improving triangle move (:func:`triangle_moves`) keeps the
    graph acyclic, take the best (ties: the first in scan order, the rule of
    :func:`best_move`), then call ``climb()`` (the caller's local search from the new graph,
    which leaves the engine at its result). Each taken triangle move counts as one move of
    the ``recorder``. The score never decreases. Returns the number of triangle moves.
    """
    taken = 0
    while not recorder.budget.exhausted(engine):
        score = engine.score
        candidates = [m for m in triangle_moves(engine) if m[0] > tolerance(score)]
        after = None
        while candidates:
            best = max(delta for delta, _ in candidates)
            k = next(k for k, (delta, _) in enumerate(candidates)
                     if delta >= best - tolerance(score))
            move = candidates.pop(k)[1]
            if _triangle_keeps_acyclic(engine, move):
                after = triangle_graph(engine.A, move)
                break
        if after is None:
            break
        engine.set_graph(after)
        taken += 1
        recorder.n_moves += 1
        recorder.progress.done += 1
        recorder.record(engine)
        if recorder.progress.detailed:
            a, b, c, z = (recorder.names[v] for v in move)
            recorder.progress.message(
                f"{recorder.step_label()} {recorder.n_moves}: triangle {a!r}, {b!r}, {c!r} "
                f"-> v-structure at {z!r}, score {engine.score:.6f}")
        climb()
    return taken


def polish(engine, recorder, max_moves):
    """Steepest ascent after a search that may have returned to the best graph it saw
    (recorded first when it did)."""
    if recorder.trace[-1] != engine.score:  # returned to the best graph seen
        recorder.record(engine)
    steepest_ascent(engine, recorder, max_moves)


def tabu_triangle_climb(engine, recorder, max_moves, tabu_length, patience):
    """The climb of ``search="multistart_tabu"`` and of memetic search's seeds: tabu search,
    steepest ascent from the best graph it saw, then :func:`triangle_descent` with that same
    climb after every triangle move."""
    def climb():
        tabu_search(engine, recorder, max_moves, tabu_length, patience)
        polish(engine, recorder, max_moves)

    climb()
    triangle_descent(engine, recorder, climb)


def simulated_annealing(engine, recorder, n_proposals, temperature, cooling, rng):
    """Metropolis moves with a geometric cooling schedule; return the best graph seen."""
    best_graph, best_score = engine.A.copy(), engine.score
    taken = 0
    for _ in range(n_proposals):
        if recorder.budget.exhausted(engine):
            break
        flat = engine.deltas().ravel()
        legal = np.flatnonzero(flat > -np.inf)  # (+inf: makes a -inf family finite)
        if not len(legal):
            break
        index = int(legal[rng.randint(len(legal))])
        delta = float(flat[index])
        accept = rng.random_sample()
        if delta > 0 or (temperature > 0 and accept < math.exp(delta / temperature)):
            move = decode(index, engine.p)
            engine.apply(move)
            taken += 1
            recorder.record(engine, move)
            if engine.score > best_score + tolerance(best_score):
                best_graph, best_score = engine.A.copy(), engine.score
        temperature *= cooling
    engine.set_graph(best_graph)
    return taken


def perturb(engine, n_moves, rng):
    """Apply ``n_moves`` uniformly random legal moves (constraints respected)."""
    for _ in range(n_moves):
        legal = np.flatnonzero(engine.deltas().ravel() > -np.inf)
        if not len(legal):
            return
        engine.apply(decode(int(legal[rng.randint(len(legal))]), engine.p))
