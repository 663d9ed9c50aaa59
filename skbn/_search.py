"""Local search over DAGs with a delta-score table (engine of :class:`HillClimbStructure`).

State: the adjacency matrix ``A`` (``A[i, j]`` = edge ``i -> j``), the reachability matrix
``R`` (``R[i, j]`` = a directed path ``i ~> j`` exists) and, for every child ``j``, the
*toggle column* ``T[:, j]``: ``T[i, j]`` is the local score of ``j`` with the parent ``i``
toggled (added if absent, removed if present) and ``T[j, j]`` the current local score. So

* adding ``i -> j`` or removing it changes the score by ``D[i, j] = T[i, j] - T[j, j]``;
* reversing ``i -> j`` changes it by ``D[i, j] + D[j, i]``.

A move changes one family (two for a reversal) and only those toggle columns are
recomputed. A column is computed from one pass over the rows: with ``c`` the id of each
row's configuration of ``(parents of j, x_j)``, one ``bincount`` over
``c * sum(r) + offset_k + x_k`` for all variables ``k`` at once gives every candidate
family table ``(pa_j + k, j)`` (the same trick as the one-hot Gram matrix of
:func:`skbn._counting.pairwise_tables`, which gives all columns of the empty graph at
once); removals are marginals of the current family table. The built-in scores are then
evaluated for all candidates together. Columns are cached by ``(child, parent set)``.

Nothing here depends on set or dict iteration order: candidates are flat indices over
``(parent, child, move)`` in row-major order.
"""

import math
from collections import deque

import numpy as np
from scipy.special import gammaln, xlogy

from skbn._counting import compress_ids, config_ids, n_configurations, pairwise_tables
from skbn.scores import AIC, BIC, BDeu, FamilyScoreCache, K2Score, LogLikelihood

#: A candidate must beat the incumbent by more than this relative margin; candidates within
#: it of the best count as ties, won by the first in scan order.
TIE_TOLERANCE = 1e-10

ADD, REMOVE, REVERSE = 0, 1, 2
MOVE_NAMES = ("add", "remove", "reverse")


# ----------------------------------------------------------------------------- kernels
def _segment_sum(per_column, offsets):
    """Sum a (sum r,) vector over each variable's block of columns."""
    return np.add.reduceat(per_column, offsets[:-1])


def _nonzero_columns(matrix):
    """Values and column indices of the non-zero entries of a 2-D array."""
    flat = matrix.ravel()
    where = np.flatnonzero(flat)
    return flat[where], where % matrix.shape[1]


def _vector_add_scores(scorer, G, q_parents, n_parents, r_child, cards, offsets, n_rows):
    """Local scores of every family ``(parents + k) -> child`` from the stacked tables.

    ``G[p, b, o_k + a]`` counts rows with parent configuration ``p``, child state ``b`` and
    ``x_k = a``. Returns an array (n_variables,) or None when the scorer has no vectorised
    kernel (exact built-in classes only, so a subclass's own formula is always honoured).
    """
    kind = type(scorer)
    if kind not in (BDeu, K2Score, BIC, AIC, LogLikelihood):
        return None
    total = offsets[-1]
    col_card = np.repeat(cards, cards).astype(np.float64)  # r_k of each column
    flat = G.reshape(-1, total)
    rows = G.sum(axis=1)  # (m, sum r): row sums of every candidate table
    cell_vals, cell_cols = _nonzero_columns(flat)
    row_vals, row_cols = _nonzero_columns(rows)
    q = float(q_parents) * np.asarray(cards, dtype=np.float64)  # declared q of each candidate
    if kind in (BDeu, K2Score):
        if kind is BDeu:
            a_row = scorer.ess / (float(q_parents) * col_card)
            a_cell = a_row / r_child
        else:
            a_row = np.full(total, float(r_child))
            a_cell = np.ones(total)
        ac = a_cell[cell_cols]
        ar = a_row[row_cols]
        per_col = np.bincount(cell_cols, gammaln(ac + cell_vals) - gammaln(ac), minlength=total)
        per_col -= np.bincount(row_cols, gammaln(ar + row_vals) - gammaln(ar), minlength=total)
        scores = _segment_sum(per_col, offsets)
    else:
        per_col = np.bincount(cell_cols, xlogy(cell_vals, cell_vals), minlength=total)
        per_col -= np.bincount(row_cols, xlogy(row_vals, row_vals), minlength=total)
        scores = _segment_sum(per_col, offsets)
        if kind is BIC and n_rows > 0:
            scores = scores - 0.5 * math.log(n_rows) * (r_child - 1) * q
        elif kind is AIC:
            scores = scores - (r_child - 1) * q
    return scores - scorer.edge_penalty * n_parents


# ----------------------------------------------------------------------------- engine
class FamilyColumns:
    """Local scores of a child's family with every other variable toggled in or out.

    ``toggle_column(child, parents)[k]`` is the local score of ``child`` with parent set
    ``parents`` plus ``k`` (minus ``k`` when ``k`` is a parent); entry ``child`` is the
    score of ``parents`` itself. One pass over the rows counts every candidate family
    (see the module docstring). Columns are cached by ``(child, parents)``, family scores
    in a :class:`~skbn.scores.FamilyScoreCache`. Used by hill climbing and by K2.
    """

    def __init__(self, data, scorer):
        self.data = data
        self.scorer = scorer
        self.codes = data.codes
        self.cards = np.asarray(data.cardinalities, dtype=np.int64)
        self.n, self.p = data.codes.shape
        self.family_cache = FamilyScoreCache(data, scorer)
        self.column_cache = {}
        self._gram = None
        self._shifted = None
        self.offsets = np.concatenate([[0], np.cumsum(self.cards)]).astype(np.int64)

    # ------------------------------------------------------------- counting
    def _stacked_tables(self, child, parents):
        """``G`` of shape (m, r_child, sum r) (see :func:`_vector_add_scores`)."""
        r_child = int(self.cards[child])
        total = int(self.offsets[-1])
        if not parents:
            if self._gram is None:
                self._gram, _ = pairwise_tables(self.codes, self.cards)
            block = self._gram[self.offsets[child]:self.offsets[child + 1]]
            return block[None, :, :], 1
        ids, m = config_ids(self.codes, self.cards, parents)
        if m * r_child * total > max(4 * self.n * self.p, 1 << 16):
            ids, m = compress_ids(ids, m)
        if self._shifted is None:
            self._shifted = np.ascontiguousarray(self.codes, dtype=np.int64) + self.offsets[:-1]
        cell = (ids * r_child + self.codes[:, child]) * total
        flat = np.bincount((cell[:, None] + self._shifted).ravel(), minlength=m * r_child * total)
        return flat.reshape(m, r_child, total).astype(np.float64), m

    def toggle_column(self, child, parents):
        """Local scores of ``child`` with each variable toggled; entry ``child`` = current."""
        key = (child, parents)
        column = self.column_cache.get(key)
        if column is not None:
            return column
        scorer, cards = self.scorer, self.cards
        r_child = int(cards[child])
        G, m = self._stacked_tables(child, parents)
        q = n_configurations(cards, parents)
        states = np.arange(r_child)
        family = G[:, states, self.offsets[child] + states]  # (m, r_child)
        base = self.family_cache.lookup(child, parents)
        if base is None:
            base = scorer.local_score(family, q, len(parents))
            self.family_cache.store(child, parents, base)
        column = _vector_add_scores(scorer, G, q, len(parents) + 1, r_child, cards, self.offsets, self.n)
        if column is None:
            column = np.empty(self.p)
            for k in range(self.p):
                if k == child or k in parents:
                    continue
                block = G[:, :, self.offsets[k]:self.offsets[k + 1]].transpose(0, 2, 1)
                column[k] = scorer.local_score(block.reshape(-1, r_child), q * int(cards[k]), len(parents) + 1)
        column[child] = base
        for position, k in enumerate(parents):
            rest = parents[:position] + parents[position + 1:]
            value = self.family_cache.lookup(child, rest)
            if value is None:
                if m == q:  # dense table: the family without k is a marginal
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
        Edges that must stay (never removed; never reversed unless both directions are
        required: a required adjacency of free direction) and edges never added.
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
        # a required pair is never removed; reversed only when both directions are required
        removable = A & ~(self.required | self.required.T)
        reversible = A & ~(self.required & ~self.required.T)
        # another path i ~> j besides i -> j: i reaches some other parent of j
        other_path = (R.astype(np.float32) @ A.astype(np.float32)) > 0
        reverse_ok = reversible & ~self.forbidden.T & room[:, None] & ~other_path
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
