"""GESStructure's incremental search state, checked against from-scratch answers.

A step re-enumerates only the targets whose operators it may have changed (``_affected``);
the operators of every other target are kept from earlier steps. Checked here after every
step of whole searches (Gaussian, discrete and mixed data; black and white lists,
``max_indegree``, ``max_subset_size``, experimental rows): the kept operators equal a fresh
enumeration on the new class, whose operators and gains equal the definitions (Chickering
2002, Theorems 15 and 17: every ``T`` / ``H``, every family scored on its own). Also: the
Insert path condition on bit masks against a breadth-first search over node sets
(:func:`semi_directed_path`) on random partially directed graphs, and the one-group
shortcuts of the Gaussian scores against the general (grouped) formulas, bit for bit.
(``tiers`` are not offered by GES, so they are not tested here.)
"""

import itertools
import math
from collections import deque

import numpy as np
import pytest
from test_ges_gaussian import discrete, gaussian, inserts_by_definition, mixed, random_pdag

from skbn import GESStructure
from skbn._counting import added_parent_rss, moments, regression
from skbn._counting._moments import SINGULAR_RCOND, _solve_psd
from skbn.estimators._ges import _adjacency_masks, _insert_path_blocked
from skbn.scores import GaussianBIC, _gaussian_loglik


def semi_directed_path(children, neighbours, source, target, blocked):
    """Whether a path ``source -> / - ... -> / - target`` (each step along a directed or an
    undirected edge, never against an arrow) avoids every node of ``blocked`` before
    ``target``: breadth-first over node sets, the reference for the mask version."""
    seen = {source}
    queue = deque([source])
    while queue:
        u = queue.popleft()
        for w in children[u] | neighbours[u]:
            if w == target:
                return True
            if w not in seen and w not in blocked:
                seen.add(w)
                queue.append(w)
    return False


def deletes_by_definition(g, y, fixed, bound):
    """Delete(X, y, H) from the definition: X a parent or undirected neighbour of y (not a
    required adjacency), H a subset of NA_yX = Ne_y & Adj_X with |H| <= bound and NA_yX \\ H a
    clique; the kept parents K = (Pa_y | NA_yX \\ H) - {X}."""
    out = []
    for x in sorted(g.pa[y] | g.und[y]):
        if (min(x, y), max(x, y)) in fixed:
            continue
        na = sorted(g.und[y] & g.adj_set(x))
        for size in range(min(len(na), bound) + 1):
            for h in itertools.combinations(na, size):
                rest = set(na) - set(h)
                if all(g.adj(a, b) for a, b in itertools.combinations(sorted(rest), 2)):
                    out.append((x, h, tuple(sorted((g.pa[y] | rest) - {x}))))
    return out


def _finite_sorted(found):
    # (the operators a step may take: a positive finite gain; the others are not kept)
    return sorted([c for c in found if math.isfinite(c[0]) and c[0] > 0], key=lambda c: -c[0])


def _check_after_every_step(monkeypatch, learner, X, interventions=None):
    """Fit ``learner`` checking the kept operators after each forward / backward step;
    returns the fitted learner and the number of steps checked."""
    original = GESStructure._step
    checked = []

    def step(self, phase, g, ctx, gaps, fixed, total):
        result = original(self, phase, g, ctx, gaps, fixed, total)
        if result is None or phase == "turning":
            return result
        new = result[0]
        if new.masks is not None:  # the masks the completion kept are those of its sets
            new.pa  # noqa: B018 (a class reached by a step builds its sets on first read)
            kept, new.masks = new.masks, None
            assert _adjacency_masks(new) == kept
            new.masks = kept
        kept_phase, per_target, refresh = ctx.operators
        assert kept_phase == phase
        for y in range(new.p):
            if y in refresh:
                continue
            if phase == "forward":
                fresh = ctx.insert_operators(y, self._insert_groups(new, y, ctx, gaps, _adjacency_masks(new)))
                defined = {(x, t) for x, t, _ in inserts_by_definition(new, y, gaps, self.max_indegree,
                                                                          self.max_subset_size)}
            else:
                fresh = self._delete_candidates(new, y, ctx, fixed)
                defined = {(x, h) for x, h, _ in deletes_by_definition(new, y, fixed, ctx.subset_bound)}
            # the kept operators are those of the new class, with the same gains, in the same order
            # (as built on few nodes, by decreasing gain on many: _by_decreasing_gain)
            assert sorted(per_target[y], key=lambda c: -c[0]) == _finite_sorted(fresh)
            assert {(c[1], c[3]) for c in fresh} == defined
        checked.append(phase)
        return result

    monkeypatch.setattr(GESStructure, "_step", step)
    model = learner.fit(X, interventions=interventions)
    return model, checked


def _lists(X):
    """A black list and a one-way white list that the conditional-Gaussian rule allows (no
    continuous parent of a discrete child)."""
    cols = list(X.columns)
    continuous = [X[c].dtype.kind == "f" for c in cols]
    white = next((cols[u], cols[v]) for u, v in [(3, 2), (2, 3), (3, 1), (1, 3)]
                 if continuous[v] or not continuous[u])
    return {"black_list": [(cols[0], cols[1]), (cols[2], cols[4])], "white_list": [white]}


def _gaps(X):
    """Adjacencies forbidden both ways (the search's ``gaps``) at a node of few and a node of
    many candidates."""
    cols = list(X.columns)
    return {"black_list": [(cols[0], cols[1]), (cols[1], cols[0]), (cols[2], cols[4]), (cols[4], cols[2])]}


SETTINGS = {
    "plain": {},
    "lists": _lists,
    "gaps": _gaps,
    "max_indegree": {"max_indegree": 2},
    "max_subset_size": {"max_subset_size": 1},
}


@pytest.mark.parametrize("kind", ["gaussian", "discrete", "mixed"])
@pytest.mark.parametrize("setting", list(SETTINGS))
@pytest.mark.parametrize("seed", [0, 1])
def test_kept_operators_equal_a_fresh_enumeration_after_every_step(monkeypatch, kind, setting, seed):
    p = 5 + 3 * seed if kind != "discrete" else 6 + seed
    X = {"gaussian": lambda: gaussian(p, 400, 10 + seed, edge_prob=0.5),
         "discrete": lambda: discrete(p, 1500, 20 + seed),
         "mixed": lambda: mixed(p, 1500, 30 + seed)}[kind]()
    kwargs = SETTINGS[setting](X) if callable(SETTINGS[setting]) else SETTINGS[setting]
    learner = GESStructure(fit_parameters=False, **kwargs)
    model, checked = _check_after_every_step(monkeypatch, learner, X)
    assert "forward" in checked  # (the search took steps: the check ran)
    plain = GESStructure(fit_parameters=False, **kwargs).fit(X)
    assert plain.cpdag_ == model.cpdag_ and plain.score_ == model.score_


@pytest.mark.parametrize("kind", ["gaussian", "discrete"])
def test_kept_operators_with_experimental_rows(monkeypatch, kind):
    X = gaussian(7, 600, 40, edge_prob=0.5) if kind == "gaussian" else discrete(7, 2000, 41)
    mask = np.zeros(X.shape, dtype=bool)
    mask[: len(X) // 5, 1] = True
    mask[len(X) // 5: len(X) // 3, 4] = True
    scorer = GaussianBIC(variance="mle") if kind == "gaussian" else "bdeu"
    model, checked = _check_after_every_step(
        monkeypatch, GESStructure(scorer=scorer, fit_parameters=False), X, interventions=mask)
    assert "forward" in checked


@pytest.mark.parametrize("kind", ["gaussian", "discrete", "mixed"])
def test_refreshing_every_target_gives_the_same_search(monkeypatch, kind):
    # the kept operators are an optimisation only: refreshing every target after every step
    # takes the same operators (the same class, score and number of steps per phase)
    X = {"gaussian": gaussian(9, 500, 50, edge_prob=0.4), "discrete": discrete(8, 2000, 51),
         "mixed": mixed(8, 2000, 52)}[kind]
    cols = list(X.columns)
    for kwargs in ({}, {"black_list": [(cols[1], cols[0])], "max_indegree": 3}):
        cached = GESStructure(fit_parameters=False, **kwargs).fit(X)
        with monkeypatch.context() as m:
            m.setattr(GESStructure, "_affected", staticmethod(lambda old, new: list(range(new.p))))
            fresh = GESStructure(fit_parameters=False, **kwargs).fit(X)
        assert cached.cpdag_ == fresh.cpdag_
        assert cached.score_ == fresh.score_ and cached.n_steps_ == fresh.n_steps_


@pytest.mark.parametrize("seed", range(6))
def test_insert_path_condition_equals_breadth_first_search(seed):
    rng = np.random.default_rng(seed)
    p = 7
    for _ in range(10):
        g = random_pdag(p, rng)
        masks = _adjacency_masks(g)
        forward = [a & ~pa for a, pa in zip(masks[0], masks[2])]
        reached = {}  # (one step's memo of each y's semi-directed reach, shared by its candidates)
        for x, y in itertools.permutations(range(p), 2):
            if g.adj(x, y):
                continue
            na = g.und[y] & g.adj_set(x)
            free = sorted(g.und[y] - g.adj_set(x))
            for size in range(len(free) + 1):
                for t in itertools.combinations(free, size):
                    want = not semi_directed_path(g.ch, g.und, y, x, na | set(t))
                    assert _insert_path_blocked(forward, masks, x, y, t) == want
                    assert _insert_path_blocked(forward, masks, x, y, t, reached) == want


def _added_scores_grouped(scorer, stats, child, parents, n_discrete=0):
    """``local_scores_added`` by the grouped formula (stacked groups, summed over axis 0)."""
    rss = np.stack([added_parent_rss(s, child, parents) for s in stats.scatter])
    n_coef = len(parents) + 2
    loglik = _gaussian_loglik(stats.weight[:, None], np.where(np.isnan(rss), 1.0, rss), n_coef,
                              scorer.variance).sum(axis=0)
    scores = (loglik - scorer._penalty(stats.n_groups * (n_coef + 1), float(np.sum(stats.weight)))
              - scorer.edge_penalty * (len(parents) + 1 + n_discrete))
    scores[np.isnan(rss[0])] = np.nan
    return scores


def _added_parent_rss_by_masks(scatter, child, parents):
    """The residual sums of squares of every added parent with the masks written out (the
    Schur complement of the module's formula; the same operations)."""
    d = np.sqrt(scatter.diagonal())
    d[d == 0] = 1.0
    columns = parents + [child]
    scaled = scatter[:, columns] / (d[:, None] * d[columns])
    diagonal = scatter.diagonal() / (d * d)
    if parents:
        cross = scaled[:, :-1]
        inverse_pp = _solve_psd(cross[parents], cross.T)
        residual_c = scaled[:, -1] - cross @ inverse_pp[:, child]
        residual_jj = diagonal - np.einsum("jp,pj->j", cross, inverse_pp)
    else:
        residual_c = scaled[:, -1].copy()
        residual_jj = diagonal
    rss_c = max(float(residual_c[child]), 0.0)
    usable = residual_jj > SINGULAR_RCOND
    gain = np.zeros_like(residual_jj)
    gain[usable] = residual_c[usable] ** 2 / residual_jj[usable]
    residual = rss_c - gain
    rss = np.where(residual > SINGULAR_RCOND, residual, 0.0) * d[child] ** 2
    rss[[child, *parents]] = np.nan
    return rss


@pytest.mark.parametrize("variance", ["unbiased", "mle"])
@pytest.mark.parametrize("edge_penalty", [0.0, 0.7])
def test_one_group_gaussian_scores_equal_the_grouped_formulas_bit_for_bit(variance, edge_penalty):
    rng = np.random.default_rng(7)
    scorer = GaussianBIC(variance=variance, edge_penalty=edge_penalty)
    x = rng.normal(size=(60, 6))
    x[:, 5] = x[:, 0] - 2 * x[:, 1]  # an exact linear function: rss 0, -inf families
    x[:, 4] = 3.0  # a constant column
    for n in (60, 4):  # 4 rows: families with fewer rows than coefficients
        stats = moments(x[:n])
        for child in range(6):
            others = [v for v in range(6) if v != child]
            for size in range(4):
                for parents in itertools.combinations(others, size):
                    parents = list(parents)
                    got = scorer.local_scores_added(stats, child, parents)
                    want = _added_scores_grouped(scorer, stats, child, parents)
                    np.testing.assert_array_equal(got, want)
                    scatter = stats.scatter[0]
                    np.testing.assert_array_equal(added_parent_rss(scatter, child, parents),
                                                  _added_parent_rss_by_masks(scatter, child, parents))
                    got = scorer.local_score_moments(stats, child, parents)
                    rss = np.array([regression(stats.scatter[0], child, parents)[1]])
                    n_coef = len(parents) + 1
                    loglik = float(np.sum(_gaussian_loglik(stats.weight, rss, n_coef, variance)))
                    want = (loglik - scorer._penalty(n_coef + 1, float(np.sum(stats.weight)))
                            - edge_penalty * len(parents))
                    assert got == want


@pytest.mark.parametrize("kwargs", [{}, {"max_subset_size": 1}])
def test_kept_delete_operators_after_every_backward_step(monkeypatch, kwargs):
    # few rows of a dense network: the forward phase overshoots and two Delete steps follow
    X = gaussian(7, 150, 35, edge_prob=0.6)
    model, checked = _check_after_every_step(monkeypatch, GESStructure(fit_parameters=False, **kwargs), X)
    assert checked.count("backward") >= 1


def test_network_fit_aliases_collinear_parents_and_refuses_a_determined_column():
    # collinear parents fail the check and follow lm's rule ('copy', last in name
    # order, is aliased: coefficient 0); a child determined by its parents has no density
    # and is refused, naming it
    X = gaussian(5, 200, 60)
    X["copy"] = X.iloc[:, 0] + X.iloc[:, 1]
    from skbn import FixedStructure  # noqa: PLC0415
    from skbn.exceptions import DeterminedColumnsWarning  # noqa: PLC0415

    cols = list(X.columns)
    edges = [(cols[0], cols[2]), (cols[1], cols[2]), ("copy", cols[2])]
    with pytest.warns(DeterminedColumnsWarning, match=f"The parents of the column '{cols[2]}' are exactly "
                                                      f"collinear \\('copy' is a linear function of"):
        net = FixedStructure(edges=edges).fit(X).network_
    assert dict(zip(net.parents[cols[2]], net.coefficients[cols[2]]))["copy"] == 0.0
    with pytest.raises(ValueError, match="the column 'copy': the residual variance is 0"):
        FixedStructure(edges=[(cols[0], "copy"), (cols[1], "copy")]).fit(X)
    edges = [(cols[0], cols[3]), (cols[1], cols[3])]
    model = FixedStructure(edges=edges).fit(X)
    # the same coefficients as the least-squares fit on the rows
    design = np.column_stack([np.ones(len(X)), X[cols[0]], X[cols[1]]])
    beta = np.linalg.lstsq(design, X[cols[3]].to_numpy(), rcond=None)[0]
    np.testing.assert_allclose(model.network_.coefficients[cols[3]], beta[1:], rtol=1e-10)
    np.testing.assert_allclose(model.network_.intercepts[cols[3]], beta[0], rtol=1e-10, atol=1e-12)


def _iterate_every_phase(self, g, total, ctx, phases, gaps, fixed, max_iter, n_steps):
    """pcalg's ``iterate`` as its definition reads: every phase in every pass, until a whole
    pass takes no step (the reference for the search's skipping of idle phases)."""
    n_iter, changed = 0, True
    while changed and n_iter < max_iter:
        changed = False
        for phase in phases:
            while n_iter < max_iter:
                step = self._step(phase, g, ctx, gaps, fixed, total)
                if step is None:
                    break
                g, gain = step
                total += gain
                n_iter += 1
                n_steps[phase] += 1
                changed = True
            ctx.operators = None
        if len(phases) == 1 or not changed:
            break
    return g, total, n_iter


@pytest.mark.parametrize("kind", ["gaussian", "discrete", "mixed"])
def test_idle_phases_skipped_give_the_same_search(monkeypatch, kind):
    # a phase that found no step is not run again on the same class: the same class, score,
    # steps per phase and restart scores as running every phase in every pass, and no
    # phase is ever asked twice about one class without a step in between
    # (data on which a later pass takes steps: a phase runs again after finding none)
    X = {"gaussian": gaussian(9, 500, 86, edge_prob=0.4), "discrete": discrete(8, 2000, 73),
         "mixed": mixed(8, 2000, 66)}[kind]
    cols = list(X.columns)
    original = GESStructure._step
    for kwargs in ({}, {"black_list": [(cols[1], cols[0])], "max_indegree": 3}, {"edge_restarts": 2}):
        asked = []

        def step(self, phase, g, ctx, gaps, fixed, total):
            result = original(self, phase, g, ctx, gaps, fixed, total)
            if result is None:
                asked.append((phase, g))
            return result

        with monkeypatch.context() as m:
            m.setattr(GESStructure, "_step", step)
            skipping = GESStructure(fit_parameters=False, **kwargs).fit(X)
        for k, (phase, g) in enumerate(asked):  # (the classes are kept alive by the list)
            assert not any(phase == later and g is same for later, same in asked[k + 1:])
        if not kwargs:
            assert len({phase for phase, _ in asked}) < len(asked)  # (some phase ran again)
        with monkeypatch.context() as m:
            m.setattr(GESStructure, "_phases", _iterate_every_phase)
            every = GESStructure(fit_parameters=False, **kwargs).fit(X)
        assert skipping.cpdag_ == every.cpdag_ and skipping.score_ == every.score_
        assert skipping.n_steps_ == every.n_steps_ and skipping.n_iter_ == every.n_iter_
        np.testing.assert_array_equal(skipping.edge_restart_scores_, every.edge_restart_scores_)


@pytest.mark.parametrize("kind", ["gaussian", "mixed"])
def test_insert_gains_kept_per_parent_set_equal_fresh_scores(monkeypatch, kind):
    # the Insert gains of a (child, parent set) kept by the fit context (the parent set's score
    # and, on Gaussian data, the batch of added-parent scores as a list) equal the family
    # scores computed afresh on a new cache, bit for bit (without the table of every local
    # score, which a Gaussian network of 8 columns would otherwise read)
    from skbn._engines import _local_scores
    from skbn._engines._local_scores import FamilyScoreCache
    from skbn.estimators._ges import _FitContext

    monkeypatch.setattr(_local_scores, "DENSE_MAX_COLUMNS", 0)

    X = gaussian(8, 600, 70, edge_prob=0.5) if kind == "gaussian" else mixed(8, 1500, 71)
    contexts = []
    original = _FitContext.__init__

    def init(self, data, *args, **kwargs):
        original(self, data, *args, **kwargs)
        contexts.append((self, data))

    monkeypatch.setattr(_FitContext, "__init__", init)
    GESStructure(fit_parameters=False).fit(X)
    ((ctx, data),) = contexts
    p = data.n_variables
    assert len(ctx._groups) > p  # (more parent sets than the empty ones)
    fresh = FamilyScoreCache(data, ctx.cache.scorer)
    for (child, mask), (parents, current, column) in list(ctx._groups.items()):
        assert parents == tuple(v for v in range(p) if mask >> v & 1)
        assert current == fresh.local_score(child, parents)
        extras = [x for x in range(p) if x != child and x not in parents]
        expected = [score - current for score in fresh.added_scores(child, parents, extras)]
        np.testing.assert_array_equal(ctx.insert_gains(child, mask, extras), expected)  # (NaN: -inf - -inf)
        assert (column is not None) == (kind == "gaussian")


@pytest.mark.parametrize("seed", range(4))
def test_shared_unit_scaling_gives_the_same_bits(seed):
    # the blocks read from Moments.unit (every column scaled once) equal each family's own
    # scaling: the same residual sums of squares, bit for bit (constant and collinear columns too)
    from skbn._counting._moments import regression_rss

    rng = np.random.default_rng(seed)
    for _ in range(40):
        k = int(rng.integers(3, 16))
        values = rng.normal(size=(80, k)) @ rng.normal(size=(k, k)) * rng.uniform(0.01, 100, size=k)
        values[:, 0] = 2.5  # a constant column (scale factor 1)
        values[:, 1] = 3 * values[:, 2]  # collinear columns
        stats = moments(values)
        d, scaled = stats.unit
        child = int(rng.integers(k))
        others = [j for j in range(k) if j != child]
        parents = sorted(rng.choice(others, size=int(rng.integers(0, min(6, k))), replace=False).tolist())
        assert regression_rss(stats.scatter, child, parents, stats.unit).tobytes() == \
            regression_rss(stats.scatter, child, parents).tobytes()
        assert added_parent_rss(stats.scatter[0], child, parents, (d[0], scaled[0])).tobytes() == \
            added_parent_rss(stats.scatter[0], child, parents).tobytes()


@pytest.mark.parametrize("kept_sorted", [False, True])
def test_operators_by_decreasing_gain_as_heapq_merge(kept_sorted):
    import heapq
    import operator

    from skbn.estimators._ges import _by_decreasing_gain

    rng = np.random.default_rng(0)
    for _ in range(300):
        lists = []
        for _ in range(int(rng.integers(0, 8))):
            gains = rng.choice([-1.0, 0.0, 0.5, 2.0, 2.0, 3.5], int(rng.integers(0, 6)))
            lists.append([(g, int(rng.integers(9)), int(rng.integers(9)), ()) for g in gains])
        ordered = [sorted(operators, key=operator.itemgetter(0), reverse=True) for operators in lists]
        expected = list(heapq.merge(*ordered, key=operator.itemgetter(0), reverse=True))
        # (kept sorted: the lists merged; else the lists as built, sorted at once)
        assert list(_by_decreasing_gain(ordered if kept_sorted else lists, kept_sorted)) == expected


@pytest.mark.parametrize("kind", ["gaussian", "discrete", "gaussian, many nodes"])
def test_step_offers_operators_by_decreasing_gain_targets_then_built_order(monkeypatch, kind):
    # _step offers _pick the kept operators of every target in the order of merging the
    # targets' lists, each sorted by decreasing gain (heapq.merge: equal gains in the order of
    # the targets, then as each target's operators were built), whether it sorts them all at
    # once (few nodes) or merges lists kept sorted (many); every gain positive, finite
    import heapq
    import operator

    from skbn.estimators._ges import _SORT_AT_ONCE_NODES

    X = {"gaussian": lambda: gaussian(8, 400, 60, edge_prob=0.5),
         "discrete": lambda: discrete(7, 2000, 61),
         "gaussian, many nodes": lambda: gaussian(_SORT_AT_ONCE_NODES + 3, 400, 62, edge_prob=0.2)}[kind]()
    orders = []
    pick = GESStructure._pick

    def recording(candidates, total, valid, ordered=False):
        if ordered:
            candidates = list(candidates)
            orders.append(candidates)
        return pick(candidates, total, valid, ordered)

    step = GESStructure._step

    def checked(self, phase, g, ctx, gaps, fixed, total):
        out = step(self, phase, g, ctx, gaps, fixed, total)
        if phase != "turning" and ctx.operators is not None:
            lists = [sorted(found, key=operator.itemgetter(0), reverse=True)
                     for found in ctx.operators[1].values()]
            assert orders[-1] == list(heapq.merge(*lists, key=operator.itemgetter(0), reverse=True))
            assert all(0.0 < c[0] < math.inf for c in orders[-1])
        return out

    monkeypatch.setattr(GESStructure, "_pick", staticmethod(recording))
    monkeypatch.setattr(GESStructure, "_step", checked)
    GESStructure(fit_parameters=False).fit(X)
    assert len(orders) > 2
