"""PC: constraint-based structure learning, from CI tests to the CPDAG (Spirtes & Glymour 1991).

The search is written as plain functions with explicit inputs and outputs --
:func:`skbn._engines._skeleton.skeleton` (levels of CI tests, separating sets),
:func:`collider_separating_sets` (the extra tests of the conservative / majority collider
rules), :func:`orient_colliders`, then Meek's rules with the knowledge
(``skbn._dag.orient_with_knowledge``) -- around one per-fit
:class:`~skbn._engines._ci_runner.CITestRunner` that owns the data, the resolved CI test, the
decision level and the scratch of the fit (caches, memory-mapped codes for process workers).
"""

from numbers import Integral, Real

import numpy as np

from skbn._dag import MixedGraph, _Reachability, orient_with_knowledge
from skbn._data import observed_by_no_row
from skbn._engines._ci_runner import CITestRunner, _streamed, report_power_rule
from skbn._engines._skeleton import _edge_subsets, skeleton
from skbn.citests import AUTO_TESTS
from skbn.estimators._base import _MISSING_CONSTRAINTS, _BaseStructureLearner
from skbn.exceptions import OrientationConflictWarning
from skbn.graph import PDAG, _extension
from skbn.utils._progress import Progress, amount
from skbn.utils._sklearn_compat import Interval, StrOptions
from skbn.utils._warnings import warn_user


def unshielded_triples(adjacency):
    """Every ``(x, z, y)`` with ``x - z - y``, ``x < y`` non-adjacent, sorted."""
    triples = []
    for z in range(len(adjacency)):
        nbrs = sorted(adjacency[z])
        for i, x in enumerate(nbrs):
            for y in nbrs[i + 1:]:
                if y not in adjacency[x]:
                    triples.append((x, z, y))
    triples.sort()
    return triples


def collider_separating_sets(runner, adjacency, triples, decided, max_cond_vars=None):
    """Phase 2 of the conservative / majority rules: all separating sets of each triple's ends.

    For every pair ``(x, y)`` of ends of an unshielded triple, every subset of
    ``adj(x) - {y}`` and of ``adj(y) - {x}`` (sizes up to ``max_cond_vars``) is tested,
    reusing the decisions of the skeleton's tests (``decided``, a
    :class:`~skbn._engines._skeleton.Decisions`, read only). The tests run size by size,
    each size for all the pairs (:func:`_streamed` groups, so memory holds one group's sets,
    not all of them: a pair of ends next to a hub of degree ``d`` has about ``2**d`` sets).
    The pairs next to one hub share its subsets, so a group holds all of them for one set
    and counts the set's strata once (a group pair by pair held a few of them, and each
    group counted every set again: 124,484 counts of 39,201 sets on a 441-variable
    pedigree). Only the separating sets are kept while the tests run.

    Returns
    -------
    separating : dict {(x, y): list of tuple}
        The sets found to separate ``x`` and ``y``, in :func:`_edge_subsets` order (``x``'s
        side, then the new sets of ``y``'s, each by size, then lexicographically); an empty
        list when none does (the triples of the pair are then ambiguous,
        :func:`ambiguous_triples`). A pair whose tests ``max_time`` stopped is left out:
        its triples follow the standard rule.
    n_tests : int
        Tests run here (not already decided).
    pvalues : dict {(x, y): list of float}
        The p-values of the tests of ``separating[(x, y)]``, set by set (the skeleton's
        separating set: ``decided.sepset_pvalue``).
    """
    pairs = sorted({(x, y) for x, _, y in triples})
    frozen = [sorted(a) for a in adjacency]

    def largest(x, y):
        size = max(len(frozen[x]), len(frozen[y]))
        return size if max_cond_vars is None else min(size, max_cond_vars)

    found = {pair: {} for pair in pairs}  # {S: p-value} of the sets that separate

    def new_units():
        for size in range(max((largest(x, y) for x, y in pairs), default=-1) + 1):
            block, n_sets = [], 0
            for x, y in pairs:
                if size <= largest(x, y):
                    known, subsets = decided.of_pair(x, y, size), []
                    for s in _edge_subsets(frozen, x, y, [size]):
                        independent = known.get(s)
                        if independent is None:
                            subsets.append(s)
                        elif independent:  # the skeleton's separating set
                            found[(x, y)][s] = float(decided.sepset_pvalue[x, y])
                    if subsets:
                        block.append((x, y, subsets))
                        n_sets += len(subsets)
                if n_sets >= runner.max_group_sets:
                    yield from _chunk_major(block, _COLLIDER_CHUNK)
                    block, n_sets = [], 0
            yield from _chunk_major(block, _COLLIDER_CHUNK)

    stopped, n_tests = set(), 0
    for (x, y, subsets), (pvals, flags, _) in _streamed(runner, new_units(), False):
        n_tests += len(flags)
        if len(flags) < len(subsets):  # stopped by max_time: the skeleton's set decides
            stopped.add((x, y))
            if runner.stopped_at is None:
                runner.stopped_at = "the collider tests"
        found[(x, y)].update((s, pvalue) for s, pvalue, flag in zip(subsets, pvals, flags) if flag)

    separating, pvalues = {}, {}
    for x, y in pairs:
        if (x, y) in stopped:
            continue
        side = set(frozen[x]) - {y}
        order = sorted(found[(x, y)], key=lambda s: (not side.issuperset(s), len(s), s))
        separating[(x, y)] = order
        pvalues[(x, y)] = [float(found[(x, y)][s]) for s in order]
    return separating, n_tests, pvalues


#: Sets per piece of a pair's collider tests of one size (:func:`_chunk_major`).
_COLLIDER_CHUNK = 128


def _chunk_major(units, chunk):
    """The ``(x, y, subsets)`` units cut into pieces of ``chunk`` sets, chunk by chunk: the
    first ``chunk`` sets of every unit, then the next ones, and so on. Units whose sets
    are the same list (the pairs next to one hub) then have the pieces of one range of
    sets side by side, so the workers of :meth:`CITestRunner.run`, which take contiguous
    pieces, each count a range of the sets for all those pairs rather than every set for
    a few pairs."""
    longest = max((len(subsets) for _, _, subsets in units), default=0)
    for start in range(0, longest, chunk):
        for x, y, subsets in units:
            if start < len(subsets):
                yield x, y, subsets[start:start + chunk]


def collider_candidates(triples, sepsets, separating=None, orient="standard", fixed_arrows=()):
    """The unshielded triples ``(x, z, y)`` that the collider rule calls colliders.

    Parameters
    ----------
    triples : sorted list of (x, z, y)
    sepsets : dict {(x, y): tuple}
        Separating sets of the skeleton phase (none for a pair removed by knowledge: its
        triples are colliders only if the sets of ``separating`` say so).
    separating : dict {(x, y): list of tuple} or None
        All separating sets found (:func:`collider_separating_sets`); None for
        ``"standard"``. A pair left out (its tests stopped by ``max_time``) follows the
        standard rule; a pair with no separating set has only ambiguous triples
        (:func:`ambiguous_triples`), never colliders.
    orient : {"standard", "conservative", "majority"}
    fixed_arrows : set of (parent, child)
        Orientations fixed by background knowledge: a collider needing an arrowhead against
        one of them is not a candidate (knowledge wins, as in pcalg and Tetrad).

    Returns
    -------
    colliders : list of (x, z, y)
        In the order of ``triples``.
    share : dict {(x, z, y): float}
        Fraction of the separating sets of ``x, y`` that contain ``z`` (0 for the
        standard rule, and for a pair left out of ``separating``).
    """
    colliders, share = [], {}
    for x, z, y in triples:
        sets = None if separating is None else separating.get((x, y))
        if sets is None:  # the standard rule: z not in the skeleton's separating set (a
            # pair removed by knowledge has none, which says nothing about z)
            fraction = 0.0
            collider = (x, y) in sepsets and z not in sepsets[(x, y)]
        elif not sets:  # no subset separates x and y: ambiguous, no collider
            continue
        else:
            fraction = sum(z in s for s in sets) / len(sets)
            collider = fraction == 0.0 if orient == "conservative" else fraction < 0.5
        if collider and (z, x) not in fixed_arrows and (z, y) not in fixed_arrows:
            colliders.append((x, z, y))
            share[(x, z, y)] = fraction
    return colliders, share


def ambiguous_triples(triples, separating, orient):
    """The unshielded triples the conservative or majority rule leaves undecided.

    ``z`` is in some but not all of the separating sets of ``x, y`` found by
    :func:`collider_separating_sets` (conservative), or in exactly half of them (majority);
    or, for both rules, no subset of ``adj(x) - {y}`` or ``adj(y) - {x}`` separates ``x`` and
    ``y`` at all (the skeleton's separating set is no longer a subset of either adjacency,
    or the pair was removed by the FDR step or by knowledge): the data then show no
    separation by which to read the triple. Ramsey, Zhang & Spirtes (2006) call all these
    triples unfaithful, and so does pcalg's ``pc`` (``pc.cons.intern`` with ``version.unf =
    c(2, 1)``: a triple whose ends no tested subset separates goes to ``unfTripl``, for a
    pair of ``fixedGaps`` too; the skeleton's set is not counted apart from the tests).
    Meek's rules R1 and R3 do not read them as non-colliders.

    Returns
    -------
    set of (x, z, y)
        Empty for the standard rule (``separating`` is None); a pair left out of
        ``separating`` (tests stopped by ``max_time``) has none.
    """
    ambiguous = set()
    if separating is None:
        return ambiguous
    for x, z, y in triples:
        sets = separating.get((x, y))
        if sets is None:
            continue
        if not sets:
            ambiguous.add((x, z, y))
            continue
        fraction = sum(z in s for s in sets) / len(sets)
        if (0.0 < fraction < 1.0) if orient == "conservative" else fraction == 0.5:
            ambiguous.add((x, z, y))
    return ambiguous


def place_colliders(n_variables, colliders, fixed_arrows=()):
    """Arrowheads of ``colliders``, in the given order, keeping the graph a PDAG.

    Each collider ``x -> z <- y`` is placed whole or not at all: it is skipped when one of
    its arrowheads would close a directed cycle with the arrows already placed (which
    includes an arrowhead already placed the other way, ``z -> x``: a 2-cycle), checked by
    :class:`skbn.graph._Reachability` (Tetrad's "prioritize existing" conflict rule,
    with bnlearn's cycle check).

    Parameters
    ----------
    n_variables : int
    colliders : sequence of (x, z, y)
        In priority order.
    fixed_arrows : iterable of (parent, child)
        Arrows placed before (background knowledge); must be acyclic.

    Returns
    -------
    arrows : set of (parent, child)
        ``fixed_arrows`` plus the arrowheads of the colliders placed.
    skipped : list of (x, z, y)
        The colliders not placed, in the given order.
    """
    arrows = set(fixed_arrows)
    guard = _Reachability(n_variables, arrows)
    skipped = []
    for x, z, y in colliders:
        if guard.closes_cycle(x, z) or guard.closes_cycle(y, z):
            skipped.append((x, z, y))
            continue
        for a in (x, y):
            if (a, z) not in arrows:
                arrows.add((a, z))
                guard.add(a, z)
    return arrows, skipped


def orient_colliders(triples, sepsets, separating=None, orient="standard", fixed_arrows=(),
                     evidence=None, n_variables=None, names=None):
    """Phase 3: arrowheads of the colliders ``x -> z <- y`` among unshielded triples.

    The colliders (:func:`collider_candidates`) are placed by :func:`place_colliders`.
    Without conflicts the result is their union, whatever the order. With conflicts (two
    colliders asking for opposite arrowheads on one edge, or arrowheads that close a
    directed cycle: only possible with test errors) the colliders are placed in order of
    evidence, the strongest first, and a collider that conflicts with those already placed
    is skipped whole: ranked by the fraction of the separating sets of ``x, y`` containing
    ``z`` (lowest first; 0 except under the majority rule), then by the largest p-value of
    the tests that separated ``x`` and ``y`` without ``z`` (:func:`collider_evidence`),
    highest first ("most independent first", as Ramsey's (2016) PC-Max), then by the
    column names of ``(x, z, y)`` (the ends in name order).

    Parameters
    ----------
    triples, sepsets, separating, orient, fixed_arrows
        As in :func:`collider_candidates`; ``fixed_arrows`` must be acyclic.
    evidence : callable or None
        ``evidence(colliders) -> {(x, z, y): p-value}``, called only when there is a
        conflict (None: ties only, by ``(x, z, y)`` positions).
    n_variables : int or None
        Number of variables (None: inferred from the triples and arrows).
    names : sequence or None
        Column names, for the last tie rule (None: ``(x, z, y)`` positions).

    Returns
    -------
    arrows : set of (parent, child)
        ``fixed_arrows`` plus the collider arrowheads placed.
    skipped : list of (x, z, y)
        The colliders not placed, sorted.
    """
    fixed_arrows = set(fixed_arrows)
    if n_variables is None:
        n_variables = 1 + max([v for t in triples for v in t]
                              + [v for e in fixed_arrows for v in e], default=-1)
    colliders, share = collider_candidates(triples, sepsets, separating, orient, fixed_arrows)
    arrows, skipped = place_colliders(n_variables, colliders, fixed_arrows)
    if skipped:  # a conflict: the order matters, place the strongest evidence first
        pvalue = evidence(colliders) if evidence is not None else {}
        def label(t):  # the ends in name order: the rule does not depend on the column order
            if names is None:
                return t
            ends = sorted((str(names[t[0]]), str(names[t[2]])))
            return ends[0], str(names[t[1]]), ends[1]

        colliders.sort(key=lambda t: (share[t], -pvalue.get(t, 0.0), label(t)))
        arrows, skipped = place_colliders(n_variables, colliders, fixed_arrows)
    return arrows, sorted(skipped)


def collider_evidence(colliders, sepsets, sepset_pvalue, separating=None, separating_pvalues=None):
    """Largest p-value of the tests that separated the ends of each collider without its middle.

    For ``(x, z, y)`` the sets considered are the skeleton's separating set of ``x, y`` and
    (conservative / majority rules) every separating set of ``separating[(x, y)]``, those
    without ``z``. These tests were all run before and their p-values kept: the skeleton's
    in ``sepset_pvalue`` (``[x, y]``, see :class:`~skbn._engines._skeleton.Decisions`),
    the others in ``separating_pvalues`` (:func:`collider_separating_sets`), so no test is
    run here. With the conservative / majority rules the sets of ``separating`` do not
    depend on the column order, so neither does the evidence.

    Returns
    -------
    dict {(x, z, y): float}
    """
    evidence = {}
    for x, z, y in colliders:
        pvalues = [float(sepset_pvalue[x, y])] if (x, y) in sepsets and z not in sepsets[(x, y)] else []
        pvalues += [pvalue for subset, pvalue in zip((separating or {}).get((x, y), ()),
                                                     (separating_pvalues or {}).get((x, y), ()))
                    if z not in subset]
        evidence[(x, z, y)] = max(pvalues, default=0.0)
    return evidence


def knowledge_arrows(adjacency, required, forbidden):
    """Orientations of the skeleton's edges fixed by background knowledge.

    An adjacency ``x - y`` becomes ``x -> y`` when ``y -> x`` is forbidden (black list or
    tiers) and ``x -> y`` is not, or when both directions are allowed and ``x -> y`` is a
    one-way required edge (white list). Every other edge is left to the data, so the
    edges left undirected allow both directions and no later rule can break a constraint.

    Parameters
    ----------
    adjacency : list of sets
    required, forbidden : (p, p) bool arrays
        ``required[x, y]`` / ``forbidden[x, y]``: the edge ``x -> y`` is required /
        forbidden (:class:`skbn.knowledge.BackgroundKnowledge`).

    Returns
    -------
    set of (parent, child)
    """
    arrows = set()
    for x in range(len(adjacency)):
        for y in adjacency[x]:
            if forbidden[y, x] and not forbidden[x, y]:
                arrows.add((x, y))
            elif not (forbidden[x, y] or forbidden[y, x]) and required[x, y] and not required[y, x]:
                arrows.add((x, y))
    return arrows


def acyclic_arrows(n_variables, arrows):
    """Keep ``arrows`` in the given order unless one closes a directed cycle with those kept.

    Returns
    -------
    kept : set of (parent, child)
    skipped : list of (parent, child)
    """
    guard = _Reachability(n_variables)
    kept, skipped = set(), []
    for a, b in arrows:
        if guard.closes_cycle(a, b):
            skipped.append((a, b))
        else:
            kept.add((a, b))
            guard.add(a, b)
    return kept, skipped


def report_conflicts(learner, conflicts, continuous=None, over=None):
    """One :class:`~skbn.exceptions.OrientationConflictWarning` summarising a fit's conflicts
    (none when there are none, or when ``learner._quiet_summaries`` is true: a resample's
    fit, summed by its wrapper).

    ``continuous`` (name -> bool, on mixed data): a ``("knowledge", (u, v))`` conflict with
    ``u`` discrete and ``v`` continuous is the conditional-Gaussian rule's (no continuous
    parent of a discrete node), whatever the user's knowledge, and is told apart: the tests
    then put an arrowhead into a discrete column from a continuous one, a dependence a CLG
    network cannot hold (an outcome of measurements), not a sign of test errors.
    ``over=(k, fits)``: ``conflicts`` are those of several PC fits (e.g. ``"PCStructure fits
    on 50 resamples"`` of a bootstrap), ``k`` of which had any; the warning says so and
    points to ``n_orientation_conflicts_``, their total."""
    if not conflicts or getattr(learner, "_quiet_summaries", False):
        return
    continuous = continuous or {}
    counts = {}
    for step, nodes in conflicts:
        if step == "knowledge" and not continuous.get(nodes[0], False) and continuous.get(nodes[1], False):
            step = "clg"
        counts[step] = counts.get(step, 0) + 1
    what = {"knowledge": "background-knowledge orientation(s) the tests contradict",
            "clg": "conditional-Gaussian orientation(s) the tests contradict",
            "collider": "collider(s) not oriented", "meek": "edge(s) with conflicting Meek rules",
            "extension": "edge(s) of edges_ oriented by the fallback (no consistent extension)"}
    parts = ", ".join(f"{counts[k]} {what[k]}" for k in what if k in counts)
    distinct = list(dict.fromkeys(conflicts))  # (several fits: the same conflict listed once)
    first = "; ".join(f"{step} {nodes}" for step, nodes in distinct[:3])
    more = f"; ... ({len(distinct) - 3} more)" if len(distinct) > 3 else ""
    clg = ("The conditional-Gaussian rule (a discrete node has no continuous parent) kept "
           "discrete -> continuous where the tests point an arrowhead into the discrete "
           "column: a discrete column caused by continuous ones (an outcome of measurements) "
           "is a dependence a CLG network cannot hold, not a test error. "
           if "clg" in counts else "")
    errors = ("The CI tests contradict each other, a sign of test errors (too few rows for "
              "the conditioning sets, or a too large alpha). "
              if set(counts) - {"clg"} else "")
    scope, whose, its, see = "", "", "", "orientation_conflicts_"
    if over is not None:
        scope = f" in its {over[1]}, {over[0]:,} of which had any"
        whose, its, see = "Each fit's ", "its ", "n_orientation_conflicts_"
    warn_user(
        f"{type(learner).__name__}: {len(conflicts):,} orientation conflict(s){scope}: {parts} "
        f"({first}{more}). {clg}{errors}{whose}cpdag_ is still a PDAG with an acyclic directed part "
        f"and {its}edges_ keeps every adjacency; see {see}.",
        OrientationConflictWarning)


def _separated_on_no_rows(data, sepsets):
    """The removed pairs whose separating test had no data: ``[(x, y, S), ...]``.

    Under test-wise deletion (``missing="available_case"``) the test of ``x ⫫ y | S`` counts
    the rows observing ``x``, ``y`` and every variable of ``S`` (codes ``>= 0``, weight > 0).
    When there is none, every test returns independence (p = 1) by its convention for too
    few rows, so the edge is removed on no evidence: columns never observed together (nlme's
    ``Quinidine``: ``conc`` and ``interval``) separate every pair that is tested given them.
    Complete data never have such a test (every row observes every column); the sets no
    row observes are found by :func:`skbn._data.observed_by_no_row` (a union bound first).
    """
    tests = [(x, y, tuple(s)) for (x, y), s in sorted(sepsets.items())]
    return [tests[k] for k in observed_by_no_row(data, [[x, y, *s] for x, y, s in tests])]


def _warn_separated_on_no_rows(data, sepsets, names):
    """Warn, naming them, about the edges removed by a test that no row observed."""
    found = _separated_on_no_rows(data, sepsets)
    if not found:
        return
    shown = ", ".join(
        f"{names[x]!r} - {names[y]!r} (given {', '.join(repr(names[v]) for v in s) or 'nothing'})"
        for x, y, s in found[:10]) + (f" and {len(found) - 10} more" if len(found) > 10 else "")
    warn_user(
        f"PCStructure: {len(found)} edge{'s were' if len(found) > 1 else ' was'} removed by a "
        f"test that no row could decide: no row observes all of its variables, so the test "
        f"had no data and returned independence (p = 1, its rule for too few rows): {shown}. "
        "The data do not show these pairs independent: no row observes a pair together with "
        "the columns it was tested given. Drop or impute one of the columns rarely observed "
        "together, or learn with missing='em' (a score-based learner).",
        UserWarning,
    )


class PCStructure(_BaseStructureLearner):
    r"""PC algorithm: CI tests -> skeleton -> v-structures -> Meek rules -> CPDAG.

    1. **Skeleton** (PC-stable, Colombo & Maathuis 2014). Start from the complete graph. At
       level :math:`\ell = 0, 1, \dots` every adjacent pair ``x - y`` is tested for
       :math:`x \perp y \mid S` for the sets ``S`` of size :math:`\ell` drawn from
       ``adj(x) - {y}`` and then ``adj(y) - {x}`` (lexicographic, by column index), with the
       adjacencies *frozen at the start of the level*; the first independence removes the
       edge and records ``S`` as the separating set. Freezing makes the skeleton
       independent of the column order and lets all pairs of a level be tested in parallel.
       Level 0 tests every pair at once from the one-hot Gram matrix of pairwise counts.
    2. **Colliders.** For every unshielded triple ``x - z - y`` (``x``, ``y`` non-adjacent):

       * ``"standard"``: ``x -> z <- y`` iff ``z`` is not in the separating set of ``x, y``;
       * ``"conservative"`` (Ramsey et al. 2006): all subsets of ``adj(x) - {y}`` and of
         ``adj(y) - {x}`` (sizes up to ``max_cond_vars``) are tested; collider iff ``z`` is in
         none of the separating sets found, non-collider iff in all; otherwise the triple is
         ambiguous and left unoriented;
       * ``"majority"`` (Colombo & Maathuis 2014): as conservative, collider iff ``z`` is in
         less than half of them, non-collider if more than half, ambiguous at exactly half.

       When none of those sets separates ``x`` and ``y`` (test errors: the separating set of
       step 1 is no longer a subset of either adjacency, or the pair was removed by
       ``correction="fdr"`` or by a forbidden adjacency), the data give no separating set
       to read: every triple ``x - z - y`` is ambiguous under both rules (Ramsey et al.'s
       unfaithful triples; pcalg's ``pc(conservative = TRUE)`` / ``pc(maj.rule = TRUE)``,
       which count only these tests: the set of step 1 counts when it is one of the
       subsets tested, as any other).
       **Conflicts.** With a perfect oracle the colliders never disagree; test errors can
       make two colliders ask for opposite arrowheads on one edge, or put a ring of
       arrowheads (a directed cycle). Every collider is placed whole (both arrowheads) or
       not at all, and is skipped when an arrowhead would close a directed cycle with the
       arrows already placed (an opposite arrowhead is a 2-cycle; Tetrad's "prioritize
       existing" rule with bnlearn's cycle check). Without conflicts the result is the
       union of the colliders, whatever the order. With conflicts the colliders are placed
       strongest evidence first: lowest fraction of separating sets containing ``z``
       (majority rule; 0 otherwise), then highest p-value among the tests that separated
       ``x`` and ``y`` without ``z`` ("most independent first", Ramsey 2016), then by the
       names of ``(x, z, y)``. With the majority / conservative rules this order does not
       depend on the column order (except for exact ties of p-values).
    3. **Meek rules** R1-R4, then the background knowledge's directions one by one, each
       followed by the rules again (:func:`skbn.graph.meek_orient` with ``required`` /
       ``forbidden``, Meek 1995), give the maximally oriented PDAG ``cpdag_``. An
       orientation that would close a directed cycle, or that the knowledge forbids, is
       never made (the other direction is taken if a rule supports it, else the edge stays
       undirected), so ``cpdag_`` always has an acyclic directed part and no bidirected
       edge. With the conservative and majority rules, R1 and R3 do not read an ambiguous
       triple as a non-collider (Ramsey et al. 2006; pcalg's unfaithful triples).
    4. **A DAG in the class** (:func:`skbn.graph.pdag_to_dag`, Dor & Tarsi) gives ``edges_``,
       used for the CPTs, so ``score``, ``score_samples``, ``predict_proba`` and ``sample``
       work as for the score-based learners. With finite-sample errors the PDAG may admit no
       consistent extension; then the undirected edges left when Dor-Tarsi gets stuck are
       oriented along a topological order of the remaining directed edges (ties by column
       index; ``pdag_to_dag(..., strict=False)``). ``edges_`` always has one edge per
       adjacency of ``cpdag_`` and contains all its directed edges.

    Every conflict is listed in ``orientation_conflicts_`` and one
    :class:`~skbn.exceptions.OrientationConflictWarning` summarises them: they indicate CI test
    errors (too few rows for the conditioning sets, or a too large ``alpha``).

    **Row weights** (``sample_weight``, stored as the data's weights) enter every
    contingency table: a CI test sees weighted frequencies, so an integer weight ``w`` is
    exactly ``w`` copies of the row (same tests, same CPDAG, same separating sets) and the
    tests' sample size is the total weight (see :class:`~skbn.citests.BaseCITest`).

    **Background knowledge** (``white_list``, ``black_list``, ``tiers``; parsed and checked by
    :func:`skbn.knowledge.parse_knowledge`, which refuses contradictions), as in pcalg's
    ``fixedEdges`` / ``fixedGaps``, bnlearn and Tetrad (Meek 1995):

    * a forbidden adjacency (both directions black-listed) is removed before level 0, without
      a test and without a separating set; a required adjacency (white list) is never tested
      and never removed;
    * before the collider step every remaining edge with one direction forbidden (black list,
      tiers) is oriented the other way, and every one-way required edge in its direction;
    * a collider that would put an arrowhead against one of these orientations is not
      oriented at all: the knowledge wins (as in pcalg and Tetrad), and its orientation is
      listed as a ``("knowledge", (u, v))`` conflict since the tests contradict it; a
      triple whose ends were separated by knowledge alone is a collider only if the
      conservative / majority tests say so, and ambiguous when no subset separates them
      (as pcalg's ``fixedGaps``; the standard rule reads it as a non-collider, where
      pcalg's ``pc`` orients a collider);
    * after the colliders, Meek's rules close the graph without ever orienting a forbidden
      direction, and every direction the knowledge fixes is (re)applied, each followed by
      the rules (step 3). With a perfect oracle and knowledge consistent with the true
      class, ``cpdag_`` is the maximally oriented PDAG: an edge is directed iff every DAG
      of the class respecting the knowledge has it that way; the edges left undirected
      allow both directions, so the DAG extension cannot break a constraint either.
      Knowledge the learned graph contradicts (a required direction against a collider
      or closing a cycle) is not an error: the tests may be wrong, so the direction is
      left out, listed in ``orientation_conflicts_`` as ``("knowledge", (u, v))`` and
      reported by the :class:`~skbn.exceptions.OrientationConflictWarning`.

    Parameters
    ----------
    ci_test : str or BaseCITest, default="auto"
        "auto" is "chi_square" on discrete data, "zf" on continuous data and "mi-cg" on
        mixed data (``ci_test_`` holds the one used; see ``docs/gaussian.md``).
        ``"chi_square"`` (:class:`~skbn.citests.ChiSquare`), ``"g_test"``
        (:class:`~skbn.citests.GTest`), ``"bayes_factor"``
        (:class:`~skbn.citests.BayesFactor`), or a test object such as
        ``GTest(alpha=0.01)`` or ``DSeparationOracle(true_dag)``. **The test level lives on
        the test object** (default 0.05 for the aliases); tune it as ``ci_test__alpha``.
        Continuous columns: ``"zf"`` (:class:`~skbn.citests.FisherZ`, pcalg's
        ``gaussCItest``), ``"mi-g"``, ``"cor"``, ``"robust_fisher_z"``
        (:class:`~skbn.citests.RobustFisherZ`, one robust covariance per fit) read one
        correlation matrix, never the rows again; ``"mi-cg"``
        (:class:`~skbn.citests.CLGMutualInformation`) on mixed data. A Gaussian test with
        :math:`n - |S| - 3 \le 0` reports independence, as pcalg does (see
        :class:`~skbn.citests.FisherZ`), so PC runs on data with more columns than rows.
    max_cond_vars : int or None, default=None
        Largest conditioning set tried (None: until no pair has enough neighbours). With a
        perfect oracle any value >= the true maximum in-degree still gives the exact CPDAG.
    max_time : float or None, default=None
        Wall-time budget of the tests, in seconds (None: no limit), checked between
        rounds of tables. When it runs out during a level of the skeleton, the edges
        already removed by that level stay removed, every other edge is kept and no
        further level is run (so the skeleton is a superset of the one the full run would
        give, every removal still justified by a test); when it runs out during the
        collider tests of ``"conservative"`` / ``"majority"``, the triples whose ends were
        not fully tested are oriented by the separating set of the skeleton phase (the
        ``"standard"`` rule). Either way a ``UserWarning`` says where it stopped. A fit
        stopped by ``max_time`` depends on the machine; one that finishes within it is
        the same as without it.
    variant : {"stable", "original"}, default="stable"
        ``"stable"`` freezes adjacencies per level (order-independent skeleton, parallel);
        ``"original"`` removes edges as soon as found (order-dependent, always sequential).
    orient : {"standard", "conservative", "majority"}, default="majority"
        Collider rule (see above). The default majority rule makes the whole result
        independent of the column order (with ``variant="stable"``) and was the most accurate
        on the shared networks: CPDAG SHD 0 instead of 15 on CHILD and 4 (equal) on ALARM at
        10,000 rows, for about 1.3-1.7x the tests. ``"standard"`` is the textbook rule.
    correction : {None, "bonferroni", "fdr"}, default=None
        Multiple-testing control of the *adjacencies kept* (an edge is kept only if every test
        of it rejects independence). ``"bonferroni"`` runs every test at level
        ``alpha / m`` with ``m = p (p - 1) / 2`` pairs, so the family-wise probability of
        keeping any absent edge is at most ``alpha`` whenever a true separating set is among
        the sets tried (``m`` excludes the pairs fixed by ``white_list`` / ``black_list``).
        ``"fdr"`` (after Li & Wang 2009): each pair's p-value is the maximum p-value of all
        its tests; after every level the Benjamini-Hochberg procedure at level ``alpha`` is
        applied to these ``m`` p-values and the edges it does not reject are removed too
        (separating set: the set of the maximum p-value), bounding the expected fraction of
        false adjacencies. Needs a test with frequentist p-values and ``alpha``.
    white_list : sequence of (parent, child), default=()
        Required edges; a pair listed both ways is a required adjacency of free direction.
    black_list : sequence of (parent, child), default=()
        Forbidden edges; a pair listed both ways is a forbidden adjacency.
    tiers : list of lists of columns or None, default=None
        No edge from a later tier into an earlier one (bnlearn's ``tiers2blacklist``).
    n_jobs : int or None, default=None
        joblib workers, in the active joblib backend (processes by default, or e.g. dask
        through ``joblib.parallel_config(backend="dask")``), on codes memory-mapped once per
        fit: the tests of every level, of the collider step and of the collider evidence,
        in batches of about equal cost, a variable with many neighbours (or a pair with
        many collider sets) split between workers (with missing cells or a non-counting
        test, level 1's Gram products with ``prefer="threads"``, a soft hint: a backend set
        by the user wins). A level or group of tests with less than ``10**7`` counted
        cells (conditioning sets x rows) runs in-process, where it is faster. Results are
        identical for any value.
    {verbose_parameter}
    missing : {"error", "complete_case", "available_case"}, default="error"
        Missing cells (NaN/None) in ``X``: refuse them; drop incomplete rows (with a
        warning giving their number); or test-wise deletion (Tu et al. 2019): every CI test
        of ``x`` and ``y`` given ``S`` counts the rows observing ``x``, ``y`` and all of
        ``S`` (continuous columns: the moments of those rows); the CPTs of the learned DAG
        are then estimated by parameter EM (exact E-step, at most 100 iterations, relative
        tolerance 1e-6; ``docs/missing.md``).
    {common_parameters}

    Attributes
    ----------
    cpdag_ : skbn.graph.PDAG
        Learned (maximally oriented) partially directed graph over the column names.
    directed_edges_ : list of (parent, child)
        Directed edges of ``cpdag_``, sorted by column position.
    undirected_edges_ : list of (u, v)
        Undirected edges of ``cpdag_`` (``u`` before ``v`` in column order).
    edges_ : list of (parent, child)
        A DAG in the learned class (see step 4); its CPTs are ``network_``.
    sepsets_ : dict {(x, y): tuple}
        Separating set of every pair removed by a test (``x`` before ``y`` in column
        order), names; pairs removed by ``black_list`` have none.
    orientation_conflicts_ : list of (step, nodes)
        What the orientation steps refused or forced to keep ``cpdag_`` a PDAG, in this
        order: ``("knowledge", (u, v))``, a direction ``u -> v`` required by ``white_list``
        or implied by ``black_list`` / ``tiers`` (or, on mixed data, by the conditional-Gaussian
        rule: ``u`` discrete, ``v`` continuous) that closes a cycle with the white-listed
        and the other implied ones (placed in that order; left to the data), then those
        that overrule a collider the tests found (kept), then those the graph after the
        colliders and Meek's rules refuses (step 3); ``("collider",
        (x, z, y))``, a collider not oriented; ``("meek", (u, v))``, an edge for which
        Meek's rules proposed an orientation closing a directed cycle or forbidden by the
        knowledge, or both directions;
        ``("extension", (u, v))``, an edge of ``edges_`` oriented by the fallback of step 4.
        Empty with a perfect oracle.
    n_orientation_conflicts_ : int
        ``len(orientation_conflicts_)``.
    n_tests_ : int
        Number of CI tests whose result the algorithm used (chunked evaluation may compute
        up to a few more past a deciding independence; they are not counted).
    n_power_rule_tests_ : int
        How many of those ``n_tests_`` tests the test's heuristic power rule decided instead
        of the data: fewer than ``min_samples_per_dof`` samples per degree of freedom
        (:class:`~skbn.citests.ChiSquare`, :class:`~skbn.citests.GTest`), so dependence was
        assumed (``pvalue = 0``) and the edge kept, where bnlearn's and pcalg's tests find
        independence. A :class:`~skbn.exceptions.PowerRuleWarning` gives the count when it is
        not 0; 0 for tests without such a rule. The same for any ``n_jobs``.
    ci_test_ : BaseCITest
        The resolved test (a clone; never modified: with ``"bonferroni"`` PC decides each
        test at ``ci_test_.alpha / m`` from its p-value).
    network_ : DiscreteBayesianNetwork, GaussianBayesianNetwork or CLGBayesianNetwork
        The DAG with its parameters: CPTs on discrete data, linear Gaussian regressions
        on continuous columns (a CLG network on mixed data; ``docs/gaussian.md``).
    em_trace_ : ndarray
        With ``missing="available_case"`` (and ``fit_parameters=True``): the objective of
        the parameter EM of the CPTs, as in :class:`FixedStructure`.
    em_n_iter_ : int
        ``len(em_trace_) - 1``.
    {common_attributes}

    References
    ----------
    R. Tu, C. Zhang, P. Ackermann, K. Mohan, H. Kjellström and K. Zhang (2019), "Causal
    discovery in the presence of missing data", AISTATS.
    P. Spirtes, C. Glymour and R. Scheines (2000), *Causation, Prediction, and Search*, 2nd ed.
    D. Colombo and M. H. Maathuis (2014), "Order-independent constraint-based causal structure
    learning", JMLR 15.
    J. Ramsey, J. Zhang and P. Spirtes (2006), "Adjacency-faithfulness and conservative causal
    inference", UAI.
    J. Li and Z. J. Wang (2009), "Controlling the false discovery rate of the
    association/causality structure learned with the PC algorithm", JMLR 10.
    C. Meek (1995), "Causal inference and causal explanation with background knowledge", UAI.
    J. Ramsey (2016), "Improving accuracy and scalability of the PC algorithm by maximizing
    P-value", arXiv:1610.00378.
    D. Dor and M. Tarsi (1992), "A simple algorithm to construct a consistent extension of a
    partially oriented graph", Technical Report R-185, UCLA.
    D. B. Rubin (1981), "The Bayesian bootstrap", The Annals of Statistics 9(1).

    Examples
    --------
    >>> from skbn import PCStructure
    >>> from skbn.datasets import sample_asia
    >>> model = PCStructure().fit(sample_asia(5000, random_state=0))
    >>> ("lung", "either") in model.directed_edges_
    True
    """

    _parameter_constraints = {
        **_BaseStructureLearner._parameter_constraints,
        "ci_test": "no_validation",
        "max_cond_vars": [None, Interval(Integral, 0, None, closed="left")],
        "max_time": [None, Interval(Real, 0, None, closed="neither")],
        "variant": [StrOptions({"stable", "original"})],
        "orient": [StrOptions({"standard", "conservative", "majority"})],
        "correction": [None, StrOptions({"bonferroni", "fdr"})],
        "n_jobs": [None, Integral],
        "verbose": ["verbose"],
        "missing": _MISSING_CONSTRAINTS["missing"],
    }
    _plugins = ("ci_test",)
    _auto_plugins = {"ci_test": AUTO_TESTS}
    _continuous = True
    _knowledge = ("white_list", "black_list", "tiers")
    _missing_modes = ("error", "complete_case", "available_case")

    def __init__(
        self,
        *,
        ci_test="auto",
        max_cond_vars=None,
        max_time=None,
        variant="stable",
        orient="majority",
        correction=None,
        white_list=(),
        black_list=(),
        tiers=None,
        n_jobs=None,
        verbose=0,
        missing="error",
        categories="auto",
        column_types="auto",
        handle_unknown="warn",
        target=None,
        fit_parameters=True,
        parameter_estimator="bayes",
        parameter_ess=1.0,
    ):
        self.ci_test = ci_test
        self.max_cond_vars = max_cond_vars
        self.max_time = max_time
        self.variant = variant
        self.orient = orient
        self.correction = correction
        self.white_list = white_list
        self.black_list = black_list
        self.tiers = tiers
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.missing = missing
        self.categories = categories
        self.column_types = column_types
        self.handle_unknown = handle_unknown
        self.target = target
        self.fit_parameters = fit_parameters
        self.parameter_estimator = parameter_estimator
        self.parameter_ess = parameter_ess

    # ------------------------------------------------------------------ hook
    def _test_level(self, ci_test, n_pairs):
        """Per-test decision level: None (the test's own decision) or ``alpha / m``."""
        if self.correction is None:
            return None
        if not ci_test.pvalue_is_probability or "alpha" not in ci_test.get_params():
            raise ValueError(
                f"correction={self.correction!r} needs a ci_test with frequentist p-values "
                f"and an alpha level; {type(ci_test).__name__} has none."
            )
        if self.correction == "bonferroni":
            return ci_test.alpha / max(n_pairs, 1)
        return None

    def _restore_column_order(self, names):
        super()._restore_column_order(names)
        position = {name: i for i, name in enumerate(names)}
        pairs = {tuple(sorted(pair, key=position.get)): tuple(sorted(s, key=position.get))
                 for pair, s in self.sepsets_.items()}
        self.sepsets_ = {pair: pairs[pair] for pair in sorted(pairs, key=lambda e: (position[e[0]],
                                                                                   position[e[1]]))}

    def _learn_structure(self, data, knowledge, *, start=None, counter=None):
        p = data.n_variables
        names = list(data.names)
        fixed, removed = knowledge.required_adjacency, knowledge.forbidden_adjacency
        ci_test = self.ci_test_
        n_pairs = int(np.triu(~(fixed | removed), 1).sum())
        level = self._test_level(ci_test, n_pairs)
        fdr_alpha = ci_test.alpha if self.correction == "fdr" else None
        progress = Progress(self.verbose, "PCStructure", unit="test",
                            detail=f"{amount(p, 'column')}, {amount(data.n_samples, 'row')}, "
                                   f"{amount(n_pairs, 'pair')}")
        with CITestRunner(data, ci_test, level, self.n_jobs, self.max_time) as runner:
            adjacency, sepsets, n_tests, decided = skeleton(
                runner, p, fixed=fixed, removed=removed, max_cond_vars=self.max_cond_vars,
                variant=self.variant, fdr_alpha=fdr_alpha, progress=progress)
            triples = unshielded_triples(adjacency)
            separating, extra_tests, separating_pvalues = None, 0, None
            if self.orient != "standard":
                separating, extra_tests, separating_pvalues = collider_separating_sets(
                    runner, adjacency, triples, decided, self.max_cond_vars)
            _warn_separated_on_no_rows(data, sepsets, names)
            if runner.stopped_at is not None:
                warn_user(
                    f"PCStructure stopped by max_time={self.max_time} during "
                    f"{runner.stopped_at}: the edges not yet separated were kept (see max_time).",
                    UserWarning,
                )
            # the columns are in name order (``_structure``): every work list and tie rule
            # below goes by position, hence by name, whatever the column order of X
            implied = knowledge_arrows(adjacency, knowledge.required, knowledge.forbidden)
            # white-listed orientations first (acyclic: parse_knowledge refuses cycles), then
            # those implied by black_list / tiers, each in name order
            known, knowledge_skipped = acyclic_arrows(p, sorted(
                implied, key=lambda e: (not knowledge.required[e], e[0], e[1])))
            arrows, colliders_skipped = orient_colliders(
                triples, sepsets, separating, self.orient, known,
                evidence=lambda colliders: collider_evidence(
                    colliders, sepsets, decided.sepset_pvalue, separating, separating_pvalues),
                n_variables=p, names=names)
            # knowledge the colliders contradict (it wins; reported as a conflict)
            overruled = sorted({(z, a) for x, z, y in collider_candidates(
                triples, sepsets, separating, self.orient)[0] for a in (x, y) if (z, a) in known})
        undirected = [
            (x, y) for x in range(p) for y in sorted(adjacency[x])
            if x < y and (x, y) not in arrows and (y, x) not in arrows
        ]
        # Meek's rules, then the knowledge's directions one by one (the rules never orient
        # a forbidden direction): the maximally oriented PDAG (work lists and tie rule by
        # position, i.e. by name)
        oriented, knowledge_refused, meek_conflicts = orient_with_knowledge(
            MixedGraph(p, sorted(arrows), sorted(undirected)), knowledge.required, knowledge.forbidden,
            {(min(x, y), z, max(x, y)) for x, z, y in ambiguous_triples(triples, separating, self.orient)})
        directed, undirected = (sorted((int(a), int(b)) for a, b in part) for part in oriented.edge_lists())
        knowledge_refused = [(int(a), int(b)) for a, b in knowledge_refused]
        meek_conflicts = [(int(a), int(b)) for a, b in meek_conflicts]  # in name order
        self.cpdag_ = PDAG(names, [(names[a], names[b]) for a, b in directed],
                           [(names[a], names[b]) for a, b in undirected])
        knowledge_skipped += [e for e in overruled + knowledge_refused if e not in knowledge_skipped]
        self.directed_edges_ = list(self.cpdag_.directed)
        self.undirected_edges_ = list(self.cpdag_.undirected)
        self.sepsets_ = {
            (names[x], names[y]): tuple(names[v] for v in s) for (x, y), s in sorted(sepsets.items())
        }
        self.n_tests_ = int(n_tests + extra_tests)
        report_power_rule(self, ci_test, runner.n_power_rule, self.n_tests_)
        # the DAG extension in name order too (Dor-Tarsi takes the first removable node)
        edges, forced = _extension(self.cpdag_)
        index = {name: i for i, name in enumerate(names)}
        edges = sorted(edges, key=lambda e: (index[e[0]], index[e[1]]))
        self.orientation_conflicts_ = (
            [("knowledge", (names[a], names[b])) for a, b in knowledge_skipped]
            + [("collider", tuple(names[v] for v in t)) for t in sorted(
                t if t[0] < t[2] else t[::-1] for t in colliders_skipped)]
            + [("meek", (names[a], names[b])) for a, b in meek_conflicts]
            + [("extension", e) for e in forced])
        self.n_orientation_conflicts_ = len(self.orientation_conflicts_)
        report_conflicts(self, self.orientation_conflicts_,
                         dict(zip(names, data.continuous)) if data.has_continuous else None)
        progress.close(done=self.n_tests_, edges=len(self.directed_edges_) + len(self.undirected_edges_))
        return [(index[u], index[v]) for u, v in edges]
