"""Local search over DAGs with a delta-score table (engine of :class:`HillClimbStructure`).

State: the adjacency matrix ``A`` (``A[i, j]`` = edge ``i -> j``), the reachability matrix
``R`` (``R[i, j]`` = a directed path ``i ~> j`` exists) and, for every child ``j``, the
*toggle column* ``T[:, j]``: ``T[i, j]`` is the local score of ``j`` with the parent ``i``
toggled (added if absent, removed if present) and ``T[j, j]`` the current local score. So

* adding ``i -> j`` or removing it changes the score by ``D[i, j] = T[i, j] - T[j, j]``;
* reversing ``i -> j`` changes it by ``D[i, j] + D[j, i]``.

A move changes one family (two for a reversal) and only those toggle columns are
recomputed. A column is one pass of the counting engine over the rows
(:meth:`skbn._counting.FamilyCounter.added_parent_tables`: every candidate family table
``(pa_j + k, j)`` at once, or the one-hot Gram matrix for an empty parent set), scored in
one batch by :meth:`skbn.scores.BaseScore.local_scores`; removals are marginals of the
current family table. Columns are cached by ``(child, parent set)``.

Nothing here depends on set or dict iteration order: candidates are flat indices over
``(parent, child, move)`` in row-major order.
"""

import math
from collections import deque

import numpy as np

from skbn._counting import FamilyCounter, n_configurations
from skbn.scores import FamilyScoreCache

#: A candidate must beat the incumbent by more than this relative margin; candidates within
#: it of the best count as ties, won by the first in scan order.
TIE_TOLERANCE = 1e-10

ADD, REMOVE, REVERSE = 0, 1, 2
MOVE_NAMES = ("add", "remove", "reverse")


# ----------------------------------------------------------------------------- engine
class FamilyColumns:
    """Local scores of a child's family with every other variable toggled in or out.

    ``toggle_column(child, parents)[k]`` is the local score of ``child`` with parent set
    ``parents`` plus ``k`` (minus ``k`` when ``k`` is a parent); entry ``child`` is the
    score of ``parents`` itself. One pass over the rows counts every candidate family
    (:meth:`skbn._counting.FamilyCounter.added_parent_tables`) and the score evaluates them
    in one batch (:meth:`skbn.scores.BaseScore.local_scores`). Columns are cached by
    ``(child, parents)``, family scores in a :class:`~skbn.scores.FamilyScoreCache`. Used by
    hill climbing and by K2.
    """

    def __init__(self, data, scorer):
        self.scorer = scorer
        self.counter = FamilyCounter(data)
        self.cards = self.counter.cardinalities
        self.n, self.p = data.codes.shape
        self.family_cache = FamilyScoreCache(data, scorer, self.counter)
        self.column_cache = {}

    def toggle_column(self, child, parents):
        """Local scores of ``child`` with each variable toggled; entry ``child`` = current."""
        key = (child, parents)
        column = self.column_cache.get(key)
        if column is not None:
            return column
        scorer, cards = self.scorer, self.cards
        r_child = int(cards[child])
        stack, family, dense = self.counter.added_parent_tables(child, parents)
        q = n_configurations(cards, parents)
        base = self.family_cache.lookup(child, parents)
        if base is None:
            base = scorer.local_score(family, q, len(parents))
            self.family_cache.store(child, parents, base)
        column = scorer.local_scores(stack)
        column[child] = base
        for position, k in enumerate(parents):
            rest = parents[:position] + parents[position + 1:]
            value = self.family_cache.lookup(child, rest)
            if value is None:
                if dense:  # the family without k is a marginal of the current table
                    shape = [int(cards[v]) for v in parents] + [r_child]
                    table = family.reshape(shape).sum(axis=position).reshape(-1, r_child)
                    value = scorer.local_score(table, q // int(cards[k]), len(rest))
                    self.family_cache.store(child, rest, value)
                else:
                    value = self.family_cache.local_score(child, rest)
            column[k] = value
        self.column_cache[key] = column
        return column


class DeltaEngine(FamilyColumns):
    """Toggle-column table, reachability and legality masks of one search state.

    Parameters
    ----------
    data : EncodedData
    scorer : BaseScore
    required, forbidden : ndarray of shape (p, p), bool
        Edges that must stay (never removed or reversed) and edges never added.
    max_indegree : int
    """

    def __init__(self, data, scorer, required, forbidden, max_indegree):
        super().__init__(data, scorer)
        self.required = required
        self.forbidden = forbidden | np.eye(self.p, dtype=bool)
        self.max_indegree = max_indegree
        self.A = np.zeros((self.p, self.p), dtype=bool)
        self.R = np.zeros((self.p, self.p), dtype=bool)
        self.T = np.zeros((self.p, self.p))

    # --------------------------------------------------------------- state
    def parents_of(self, child):
        return tuple(int(i) for i in np.flatnonzero(self.A[:, child]))

    def refresh(self, child):
        self.T[:, child] = self.toggle_column(child, self.parents_of(child))

    def set_graph(self, adjacency):
        """Jump to a DAG (refreshing only the columns whose parents changed)."""
        changed = np.flatnonzero((self.A != adjacency).any(axis=0))
        self.A = adjacency.copy()
        self.R = transitive_closure(self.A)
        for child in changed:
            self.refresh(int(child))

    def start(self, adjacency):
        self.A = adjacency.copy()
        self.R = transitive_closure(self.A)
        for child in range(self.p):
            self.refresh(child)

    @property
    def score(self):
        return float(np.sum(np.diag(self.T)))

    def deltas(self):
        """Move deltas, shape (p, p, 3): ``[..., ADD/REMOVE/REVERSE]``; illegal = -inf."""
        A, R = self.A, self.R
        D = self.T - np.diag(self.T)[None, :]
        indegree = A.sum(axis=0)
        room = indegree < self.max_indegree
        absent = ~(A | A.T)
        add_ok = absent & ~self.forbidden & ~R.T & room[None, :]
        removable = A & ~self.required
        # another path i ~> j besides i -> j: i reaches some other parent of j
        other_path = (R.astype(np.float32) @ A.astype(np.float32)) > 0
        reverse_ok = removable & ~self.forbidden.T & room[:, None] & ~other_path
        out = np.full((self.p, self.p, 3), -np.inf)
        out[..., ADD] = np.where(add_ok, D, -np.inf)
        out[..., REMOVE] = np.where(removable, D, -np.inf)
        out[..., REVERSE] = np.where(reverse_ok, D + D.T, -np.inf)
        return out

    def apply(self, move):
        """Apply ``(kind, i, j)``; return the changed families."""
        kind, i, j = move
        if kind == ADD:
            self.A[i, j] = True
            ancestors = self.R[:, i].copy()
            ancestors[i] = True
            descendants = self.R[j].copy()
            descendants[j] = True
            self.R |= ancestors[:, None] & descendants[None, :]
            self.refresh(j)
        elif kind == REMOVE:
            self.A[i, j] = False
            self.R = transitive_closure(self.A)
            self.refresh(j)
        else:
            self.A[i, j] = False
            self.A[j, i] = True
            self.R = transitive_closure(self.A)
            self.refresh(j)
            self.refresh(i)


def transitive_closure(adjacency):
    """``R[i, j]``: a directed path of length >= 1 from ``i`` to ``j`` (repeated squaring)."""
    reach = adjacency.astype(np.float32)
    while True:
        grown = ((reach + reach @ reach) > 0).astype(np.float32)
        if np.array_equal(grown, reach):
            return reach > 0
        reach = grown


def tolerance(score):
    """Absolute tie / improvement tolerance at this score."""
    return TIE_TOLERANCE * (1.0 + abs(score))


def improves(candidate, incumbent):
    """The documented tie rule: strictly better by more than the relative tolerance."""
    return candidate > incumbent + tolerance(incumbent)


def best_move(flat, score, excluded=()):
    """First move in scan order among those within tolerance of the best delta."""
    if excluded:
        flat = flat.copy()
        flat[list(excluded)] = -np.inf
    best = flat.max() if flat.size else -np.inf
    if not np.isfinite(best):
        return None, -np.inf
    index = int(np.flatnonzero(flat >= best - tolerance(score))[0])
    return index, float(flat[index])


def decode(index, p):
    pair, kind = divmod(index, 3)
    i, j = divmod(pair, p)
    return kind, i, j


def graph_key(adjacency):
    return np.packbits(adjacency).tobytes()


# ----------------------------------------------------------------------------- searches
class _Recorder:
    """Trace of scores and a move counter shared by the search phases."""

    def __init__(self, verbose, names, label):
        self.trace = []
        self.n_moves = 0
        self.verbose = verbose
        self.names = names
        self.label = label

    def record(self, engine, move=None):
        score = engine.score
        self.trace.append(score)
        if move is not None:
            self.n_moves += 1
        if self.verbose and move is not None:
            kind, i, j = move
            print(f"[HillClimbStructure{self.label}] step {self.n_moves}: {MOVE_NAMES[kind]} "
                  f"{self.names[i]!r} -> {self.names[j]!r}, score {score:.6f}")


def steepest_ascent(engine, recorder, max_moves):
    """Take the best improving legal move until none improves (or the budget ends)."""
    taken = 0
    while taken < max_moves:
        score = engine.score
        index, delta = best_move(engine.deltas().ravel(), score)
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
    while taken < max_moves:
        score = engine.score
        flat = engine.deltas().ravel()
        legal = np.flatnonzero(np.isfinite(flat))
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
    while taken < max_moves and stale < patience:
        score = engine.score
        flat = engine.deltas().ravel()
        excluded = []
        while True:
            index, _ = best_move(flat, score, excluded)
            if index is None:
                break
            move = decode(index, engine.p)
            key = _key_after(engine.A, move)
            if tabu_length == 0 or key not in recent:
                break
            excluded.append(index)
        if index is None:
            break
        engine.apply(move)
        recent.append(graph_key(engine.A))
        taken += 1
        recorder.record(engine, move)
        if engine.score > best_score + tolerance(best_score):
            best_graph, best_score, stale = engine.A.copy(), engine.score, 0
        else:
            stale += 1
    engine.set_graph(best_graph)
    return taken


def _key_after(adjacency, move):
    kind, i, j = move
    after = adjacency.copy()
    after[i, j] = kind == ADD
    if kind == REVERSE:
        after[j, i] = True
    return graph_key(after)


def simulated_annealing(engine, recorder, n_proposals, temperature, cooling, rng):
    """Metropolis moves with a geometric cooling schedule; return the best graph seen."""
    best_graph, best_score = engine.A.copy(), engine.score
    taken = 0
    for _ in range(n_proposals):
        flat = engine.deltas().ravel()
        legal = np.flatnonzero(np.isfinite(flat))
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
        legal = np.flatnonzero(np.isfinite(engine.deltas().ravel()))
        if not len(legal):
            return
        engine.apply(decode(int(legal[rng.randint(len(legal))]), engine.p))
