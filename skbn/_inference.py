"""Exact inference in discrete Bayesian networks: one variable-elimination engine.

Everything that sums over unobserved states goes through :class:`VariableElimination`:
the marginal likelihood of rows with missing cells (scoring), posteriors of a target
(``predict_proba``), ``DiscreteBayesianNetwork.query`` and the E-step of EM
(:mod:`skbn._em`). It works on integer codes (``-1`` = missing) in node order and
knows only the CPTs, the parent indices and the cardinalities; node names and state
labels stay in :class:`skbn.network.DiscreteBayesianNetwork`. Its results depend on the
node order in their last bits (ties of the elimination order, the order of the factors
of a product and of the terms of a sum): a network therefore builds its engine on its
nodes in name order, each CPT's parent axes in that order too, so the same network with
its nodes in another order computes with the very same numbers.

For a row with observed cells :math:`x_o` and a set of kept nodes :math:`K`,

.. math::

    p(x_K, x_o) = \\sum_{x \\setminus (x_K \\cup x_o)} \\prod_i \\theta_{x_i \\mid \\mathrm{pa}_i},

summed over the ancestral closure of :math:`K \\cup o` only (every other node is barren
and sums out to 1), eliminating variables in greedy min-fill order. Two batched
strategies compute it for many rows at once:

* **per pattern** (:meth:`VariableElimination.eliminate`): rows sharing one missingness
  pattern are reduced together, the observed cells sliced out of every CPT first;
* **indicators** (:meth:`VariableElimination.eliminate_indicators`): one elimination
  for rows of any pattern, with per-row evidence indicators
  :math:`\\lambda_i[n, x] = [x_{ni} = x \\text{ or } x_{ni} \\text{ missing}]`.

:meth:`VariableElimination.marginalise_rows` picks the cheaper by a cost model.

References
----------
.. [1] D. Koller and N. Friedman, *Probabilistic Graphical Models*, MIT Press, 2009,
   ch. 9 (variable elimination) and 9.4.3 (min-fill ordering).
"""

import numpy as np
from scipy.special import logsumexp

from skbn._dag import ancestor_ids

__all__ = ["VariableElimination"]

# Incomplete rows: rough per-call cost model (seconds, measured on ALARM and asia) deciding
# between one elimination per missingness pattern and one batched indicator elimination.
_COST_PATTERN_NODE = 1e-5  # per pattern and relevant node (per-pattern path)
_COST_STEP = 5e-5  # per elimination step (batched path, fixed)
_COST_ROW_UNIT = 5e-9  # per row and unit of plan work (batched path)
_INDICATOR_BUDGET = 1 << 21  # numbers in the largest product of factors, per chunk
_INDICATOR_CHUNK_MAX = 4096
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
# Operands numpy's einsum takes in one call: NPY_MAXARGS (32 before numpy 2, 64 since) counts
# the output too. `optimize` contracts pairwise, but a product that sums no index (the
# factors of a node's many children, all over that node's states) goes to one call.
_EINSUM_MAX_OPERANDS = 31
# CPTs of up to this many cells keep a table of their logs (complete rows look it up);
# a larger one, a family whose parent configurations number in the millions of which the
# data observe a few (BDeu at a small ess on many-state networks), takes the log of the
# entries it looks up instead: the same numbers (``log`` is applied entry by entry) without
# a second table as large as the CPT. (8 MB as float64; no result depends on it.)
_LOG_TABLE_MAX_CELLS = 1 << 20


class VariableElimination:
    """Exact inference engine over a network's CPTs (codes in, probabilities out).

    Parameters
    ----------
    cpts : list of ndarray
        CPT of node ``i`` (node order), shape ``(r_pa_1, ..., r_pa_k, r_i)``.
    parent_idx : list of tuple of int
        Parent indices of node ``i``, in the order of the CPT's axes.
    cardinalities : ndarray of shape (n_nodes,), int64
    cost_pattern_node : float, default=1e-5
        The cost model's seconds per missingness pattern and relevant node of the
        per-pattern path (``_COST_PATTERN_NODE``): :meth:`marginalise_rows` takes the batched
        indicator elimination when its estimated cost is lower (0 forces the per-pattern
        path, a huge value the batched one; both are exact).
    indicator_budget : int, default=2**21
        Numbers in the largest product of factors of one chunk of rows of the batched path
        (``_INDICATOR_BUDGET``): a memory bound, no result depends on it.

    Notes
    -----
    Elimination plans of the indicator path are cached per ``(relevant, keep)``; the
    engine is immutable otherwise and pickles with its network. The log of every CPT of at
    most ``_LOG_TABLE_MAX_CELLS`` cells is computed once; larger CPTs log the entries looked
    up (:meth:`log_factor_at`).
    """

    def __init__(self, cpts, parent_idx, cardinalities, *, cost_pattern_node=_COST_PATTERN_NODE,
                 indicator_budget=_INDICATOR_BUDGET):
        self.cost_pattern_node = cost_pattern_node
        self.indicator_budget = indicator_budget
        self.cpts = list(cpts)
        self.parent_idx = [tuple(pa) for pa in parent_idx]

        self.cardinalities = np.asarray(cardinalities, dtype=np.int64)
        with np.errstate(divide="ignore"):
            self._log_cpts = [np.log(c) if c.size <= _LOG_TABLE_MAX_CELLS else None
                              for c in self.cpts]
        for a in self._log_cpts:
            if a is not None:
                a.flags.writeable = False
        self._plan_cache = {}

    def __setstate__(self, state):
        """Unpickling (also ``copy.deepcopy``): the CPTs and their logs are read-only again
        (pickle rebuilds every array writeable)."""
        self.__dict__.update(state)
        for a in self.cpts + self._log_cpts:
            if a is not None:
                a.flags.writeable = False

    def log_likelihood(self, codes):
        """``log p(x_o)`` of every row of validated int64 ``codes`` (``-1`` = missing).

        Complete rows use a vectorised table look-up; the others are marginalised by
        :meth:`marginalise_rows`. ``-inf`` where the row has probability 0.
        """
        out = np.empty(codes.shape[0])
        observed = codes >= 0
        complete = observed.all(axis=1)
        out[complete] = self.complete_log_joint(codes[complete])
        for rows, values, log_scale in self.marginalise_rows(codes, observed, ~complete, ()):
            with np.errstate(divide="ignore"):
                out[rows] = np.log(values) + log_scale
        return out

    def posterior(self, codes, target):
        """``(proba, impossible)``: ``P(x_target | x_o)`` per row of validated ``codes`` (the
        target's column is ignored), and the rows whose evidence ``x_o`` has probability 0,
        which get the uniform distribution (:mod:`skbn._zero_probability`)."""
        r_t = int(self.cardinalities[target])
        codes = codes.copy()
        codes[:, target] = -1
        observed = codes >= 0
        observed[:, target] = True
        complete = observed.all(axis=1)
        proba = np.empty((codes.shape[0], r_t))
        sub = codes[complete]
        log_joint = np.empty((sub.shape[0], r_t))
        for k in range(r_t):
            sub[:, target] = k
            log_joint[:, k] = self.complete_log_joint(sub)
        impossible = np.zeros(codes.shape[0], dtype=bool)
        proba[complete], impossible[complete] = _normalise_log(log_joint)
        observed[:, target] = False
        for rows, values, _ in self.marginalise_rows(codes, observed, ~complete, (target,)):
            proba[rows], impossible[rows] = _normalise(values)
        return proba, impossible

    def complete_log_joint(self, codes):
        """sum_i log theta[x_i | x_pa(i)] for complete rows (n, n_nodes) -> (n,), the
        terms added in node order."""
        out = np.zeros(codes.shape[0])
        for i in range(len(self.cpts)):
            out += self.family_log_factor(codes, i)
        return out

    def family_log_factor(self, codes, node):
        """``log theta[x_node | x_pa(node)]`` of every complete row (n,)."""
        return self.family_log_factor_at(node, self.family_cells(codes, node))

    def family_cells(self, codes, node):
        """Flat index into ``node``'s CPT of every complete row's family configuration."""
        family = self.parent_idx[node] + (node,)
        return np.ravel_multi_index(tuple(codes[:, f] for f in family), self.cpts[node].shape)

    def family_log_factor_at(self, node, cells):
        """``log theta`` of ``node``'s CPT at the flat indices ``cells``."""
        return self.log_factor_at(node, cells, flat=True)

    def log_factor_at(self, node, index, flat=False):
        """``log theta`` of ``node``'s CPT at ``index``: a tuple of code arrays (one per axis,
        parents then the node), or with ``flat=True`` flat indices into the raveled CPT.
        From the table of logs where the CPT has one, else the log of the entries looked
        up (the same numbers; ``-inf`` at a zero entry)."""
        table = self._log_cpts[node]
        if table is not None:
            return table.ravel()[index] if flat else table[index]
        cpt = self.cpts[node]
        with np.errstate(divide="ignore"):
            return np.log(cpt.ravel()[index] if flat else cpt[index])

    def marginalise_rows(self, codes, observed, rows_mask, keep):
        """Marginalise the rows of ``rows_mask``: yield ``(rows, values, log_scale)`` blocks.

        Two exact strategies, chosen per call: few distinct missingness patterns -> one
        pruned elimination per pattern (:meth:`eliminate`); many -> one batched
        elimination with per-row evidence indicators over all rows at once
        (:meth:`eliminate_indicators`), whose cost does not depend on the patterns.
        """
        rows = np.flatnonzero(rows_mask)
        if rows.size == 0:
            return
        patterns, inverse = np.unique(observed[rows], axis=0, return_inverse=True)
        inverse = inverse.ravel()
        empty = ~observed[rows].any(axis=1)  # nothing observed: a trivial pattern
        busy = rows[~empty]
        relevant = tuple(int(i) for i in np.flatnonzero(self.relevant_nodes(
            list(np.flatnonzero(observed[busy].any(axis=0))) + list(keep))))
        steps, _, _, work = self._indicator_plan(relevant, tuple(keep))
        batched_cost = _COST_STEP * len(steps) + _COST_ROW_UNIT * work * busy.size
        pattern_cost = self.cost_pattern_node * len(relevant) * len(patterns)
        if batched_cost < pattern_cost:
            if empty.any():
                yield (rows[empty], *self.eliminate(codes[rows[empty]],
                                                     observed[rows[empty][0]], keep))
            for start in range(0, busy.size, _INDICATOR_CHUNK_MAX):
                block = busy[start:start + _INDICATOR_CHUNK_MAX]
                yield (block, *self.eliminate_indicators(codes[block], keep, relevant))
            return
        for g, pattern in enumerate(patterns):
            block = rows[inverse == g]
            yield (block, *self.eliminate(codes[block], pattern, keep))

    def _indicator_plan(self, relevant, keep):
        """Elimination schedule over all ``relevant`` nodes, cached per (relevant, keep).

        Factors ``0..m-1`` are the CPTs (no row axis), ``m..2m-1`` the indicators
        ``lambda_i`` (row axis). Each step multiplies the factors touching one variable
        and sums it out; the final step multiplies what is left onto ``keep``.
        """
        key = (relevant, keep)
        cache = self._plan_cache
        if key in cache:
            return cache[key]
        scopes = [self.parent_idx[i] + (i,) for i in relevant] + [(i,) for i in relevant]
        batched = [False] * len(relevant) + [True] * len(relevant)
        order = _min_fill_order(scopes, [i for i in relevant if i not in keep])
        live = list(range(len(scopes)))
        steps, largest, work = [], 1, 0
        for v in order:
            touching = [f for f in live if v in scopes[f]]
            live = [f for f in live if v not in scopes[f]]
            union = sorted({u for f in touching for u in scopes[f]})
            size = int(np.prod(self.cardinalities[union]))
            largest, work = max(largest, size), work + size
            scope = tuple(u for u in union if u != v)
            spec = _einsum_spec([scopes[f] for f in touching],
                                [batched[f] for f in touching], scope)
            steps.append((touching, spec, len(scope)))
            scopes.append(scope)
            batched.append(True)
            live.append(len(scopes) - 1)
        final = (live, _einsum_spec([scopes[f] for f in live], [batched[f] for f in live],
                                    keep))
        chunk = int(max(1, min(_INDICATOR_CHUNK_MAX, self.indicator_budget // largest)))
        cache[key] = plan = (steps, final, chunk, work)
        return plan

    def eliminate_indicators(self, codes, keep, relevant):
        """Batched variable elimination with per-row evidence indicators.

        For node :math:`i` and row :math:`n`, :math:`\\lambda_i[n, x] = 1` if the cell is
        missing or equals :math:`x`, else 0. Then

        .. math::

            p(x_{\\mathrm{keep}}, x_o^{(n)}) = \\sum_{x \\setminus x_{\\mathrm{keep}}}
            \\prod_i \\theta_{x_i \\mid \\mathrm{pa}_i} \\, \\lambda_i[n, x_i],

        one elimination (fixed min-fill order) for every row whatever its pattern, over the
        ``relevant`` nodes (a tuple containing the ancestral closure of the rows' observed
        cells and ``keep``; the others are barren). Each intermediate factor is rescaled per
        row by its maximum (log scale accumulated) so nothing underflows. Rows are processed
        in chunks sized so that the largest product of factors holds at most
        ``indicator_budget`` numbers.

        Returns ``(values, log_scale)`` as :meth:`eliminate`.
        """
        n_rows = codes.shape[0]
        steps, (final_ids, final_spec), chunk, _ = self._indicator_plan(relevant, tuple(keep))
        cpts = [self.cpts[i] for i in relevant]
        dims = tuple(int(self.cardinalities[k]) for k in keep)
        values_out = np.empty((n_rows,) + dims)
        log_scale_out = np.empty(n_rows)
        for start in range(0, n_rows, chunk):
            block = codes[start:start + chunk]
            factors = list(cpts)
            for i in relevant:
                col = block[:, i]
                lam = (col[:, None] == np.arange(self.cardinalities[i])) | (col[:, None] < 0)
                factors.append(lam.astype(np.float64))
            log_scale = np.zeros(block.shape[0])
            with np.errstate(divide="ignore", invalid="ignore"):
                for touching, spec, n_out in steps:
                    values = _contract(spec, [factors[f] for f in touching])
                    if n_out:
                        peak = values.max(axis=tuple(range(1, values.ndim)))
                        safe = np.where(peak > 0, peak, 1.0)
                        values = values / safe.reshape((-1,) + (1,) * n_out)
                    else:
                        peak, values = values, np.ones_like(values)
                    log_scale += np.log(peak)
                    for f in touching:
                        factors[f] = None
                    factors.append(values)
                if final_ids:
                    values = _contract(final_spec, [factors[f] for f in final_ids])
                else:
                    values = np.ones((block.shape[0],) + dims)
            values = np.broadcast_to(values, (block.shape[0],) + dims)
            possible = np.isfinite(log_scale).reshape((-1,) + (1,) * len(keep))
            values_out[start:start + chunk] = np.where(possible, values, 0.0)
            log_scale_out[start:start + chunk] = log_scale
        return values_out, log_scale_out

    def relevant_nodes(self, kept):
        """Ancestral closure of ``kept``: every other node is barren and sums out to 1."""
        relevant = np.zeros(len(self.cpts), dtype=bool)
        relevant[sorted(ancestor_ids(self.parent_idx, kept))] = True
        return relevant

    def eliminate(self, codes, observed, keep):
        """Batched variable elimination for rows sharing one missingness pattern.

        Parameters
        ----------
        codes : int ndarray (B, n_nodes); cells with ``observed[j]`` True are valid codes.
        observed : bool ndarray (n_nodes,), the pattern; ``keep`` nodes must be False.
        keep : tuple of node indices left in the result (not summed out).

        Returns
        -------
        values : ndarray (B, r_keep_1, ..., r_keep_k); ``values * exp(log_scale)`` is
            ``p(x_keep, x_o)`` (rescaled on the way to avoid underflow). Rows with
            ``log_scale == -inf`` have probability 0 and all-zero ``values``.
        log_scale : ndarray (B,)
        """
        n_rows = codes.shape[0]
        relevant = self.relevant_nodes(list(np.flatnonzero(observed)) + list(keep))
        log_scale = np.zeros(n_rows)
        factors = []  # (scope: tuple of node indices, values: (b, *dims) with b in {1, B})
        with np.errstate(divide="ignore"):
            for i in np.flatnonzero(relevant):
                family = self.parent_idx[i] + (i,)
                obs_axes = [a for a, v in enumerate(family) if observed[v]]
                miss_axes = [a for a, v in enumerate(family) if not observed[v]]
                cpt = self.cpts[i]
                if obs_axes:
                    reduced = cpt.transpose(obs_axes + miss_axes)[
                        tuple(codes[:, family[a]] for a in obs_axes)]
                else:
                    reduced = cpt[None]
                scope = tuple(family[a] for a in miss_axes)
                if scope:
                    factors.append((scope, reduced))
                else:
                    log_scale += np.log(reduced)
            keep_set = set(keep)
            to_eliminate = sorted({v for s, _ in factors for v in s} - keep_set)
            for v in _min_fill_order([s for s, _ in factors], to_eliminate):
                touching = [f for f in factors if v in f[0]]
                factors = [f for f in factors if v not in f[0]]
                scope = tuple(sorted({u for s, _ in touching for u in s} - {v}))
                values = _einsum(touching, scope)
                if scope:
                    peak = values.max(axis=tuple(range(1, values.ndim)))
                    safe = np.where(peak > 0, peak, 1.0)
                    values = values / safe.reshape((-1,) + (1,) * len(scope))
                    log_scale = log_scale + np.log(peak)
                    factors.append((scope, values))
                else:
                    log_scale = log_scale + np.log(values)
        dims = tuple(int(self.cardinalities[k]) for k in keep)
        if factors:
            values = _einsum(factors, keep)
        else:
            values = np.ones((1,) + dims)
        values = np.broadcast_to(values, (n_rows,) + dims)
        possible = np.isfinite(log_scale).reshape((-1,) + (1,) * len(keep))
        return np.where(possible, values, 0.0), log_scale


# ---------------------------------------------------------------------- helpers
def _min_fill_order(scopes, to_eliminate):
    """Greedy min-fill elimination order over the interaction graph; ties by node index."""
    neighbours = {}
    for scope in scopes:
        for u in scope:
            neighbours.setdefault(u, set()).update(w for w in scope if w != u)
    remaining = set(to_eliminate)
    order = []
    while remaining:
        best, best_fill = None, None
        for v in sorted(remaining):
            nb = sorted(neighbours.get(v, ()))
            fill = sum(1 for a in range(len(nb)) for b in nb[a + 1:]
                       if b not in neighbours[nb[a]])
            if best_fill is None or fill < best_fill:
                best, best_fill = v, fill
        nb = neighbours.pop(best, set())
        for u in nb:
            neighbours[u].discard(best)
            neighbours[u].update(w for w in nb if w != u)
        remaining.remove(best)
        order.append(best)
    return order


def _einsum(factors, out_scope):
    """Product of factors (leading batch axis) summed onto ``out_scope``."""
    letters = {}
    operands = []
    if len({v for scope, _ in factors for v in scope}) > len(_LETTERS):
        raise ValueError("Variable elimination step joins more than 52 variables; the "
                         "network is too densely connected for exact inference.")
    for scope, values in factors:
        sub = "".join(letters.setdefault(v, _LETTERS[len(letters)]) for v in scope)
        operands += [values, "..." + sub]
    out = "..." + "".join(letters[v] for v in out_scope)
    spec = ",".join(operands[1::2]) + "->" + out
    return _contract(spec, operands[0::2])


def _contract(spec, operands):
    """``np.einsum(spec, *operands)`` for any number of operands.

    Beyond :data:`_EINSUM_MAX_OPERANDS`, the leading operands are multiplied first, their
    product keeping every index that a later operand or the output still uses, and take
    their place. A product is associative and an index is summed only where no later
    operand holds it, so the result is the same; the partial product holds no index that
    the full product does not.
    """
    inputs, output = spec.split("->")
    subscripts, operands = inputs.split(","), list(operands)
    while len(subscripts) > _EINSUM_MAX_OPERANDS:
        head = subscripts[:_EINSUM_MAX_OPERANDS]
        subscripts = subscripts[_EINSUM_MAX_OPERANDS:]
        later = set(output).union(*subscripts)
        letters = dict.fromkeys(c for sub in head for c in sub.replace("...", ""))
        partial = ("..." if any("..." in sub for sub in head) else "") + "".join(
            c for c in letters if c in later)
        product = np.einsum(",".join(head) + "->" + partial,
                            *operands[:_EINSUM_MAX_OPERANDS], optimize=True)
        subscripts = [partial, *subscripts]
        operands = [product, *operands[_EINSUM_MAX_OPERANDS:]]
    return np.einsum(",".join(subscripts) + "->" + output, *operands,
                     optimize=len(subscripts) > 2)


def _einsum_spec(scopes, batched, out_scope):
    """einsum subscripts for factors over ``scopes`` (``batched`` ones lead with the row
    axis ``z``) multiplied onto the row axis and ``out_scope``."""
    letters = {}
    letter_pool = _LETTERS.replace("z", "")
    if len({v for scope in scopes for v in scope} | set(out_scope)) > len(letter_pool):
        raise ValueError("Variable elimination step joins more than 51 variables; the "
                         "network is too densely connected for exact inference.")
    subs = []
    for scope, b in zip(scopes, batched):
        sub = "".join(letters.setdefault(v, letter_pool[len(letters)]) for v in scope)
        subs.append(("z" if b else "") + sub)
    out = "z" + "".join(letters.setdefault(v, letter_pool[len(letters)]) for v in out_scope)
    return ",".join(subs) + "->" + out


def _normalise(values):
    """Rows of (n, r) non-negative values -> ``(probabilities, all-zero rows)``; all-zero
    rows get the uniform distribution."""
    values = np.asarray(values, dtype=np.float64)
    total = values.sum(axis=1, keepdims=True)
    uniform = np.full_like(values, 1.0 / values.shape[1])
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, values / np.where(total > 0, total, 1.0), uniform), ~(total[:, 0] > 0)


def _normalise_log(log_values):
    """Rows of (n, r) log-values -> ``(probabilities via logsumexp, all -inf rows)``; all
    -inf rows get the uniform distribution."""
    log_total = logsumexp(log_values, axis=1, keepdims=True)
    ok = np.isfinite(log_total)
    with np.errstate(invalid="ignore"):
        proba = np.exp(log_values - np.where(ok, log_total, 0.0))
    return np.where(ok, proba, 1.0 / log_values.shape[1]), ~ok[:, 0]
