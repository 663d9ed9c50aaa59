"""Columns exactly determined by others: the checks ``fit`` of every structure learner runs
(:func:`skbn.estimators._base._check_determined_columns`) and
:func:`skbn.posterior.edge_posteriors` runs as :class:`~skbn.estimators.ExactStructure` does,
on the encoded data, below the learners."""

import itertools
from dataclasses import replace

import numpy as np

from skbn._counting import (
    Moments,
    collinear_pairs,
    count_cells,
    functional_pairs,
    linear_dependencies,
    moments,
    observed_together,
    row_copies,
)
from skbn._counting._moment_counter import SCREEN_RESOLUTION, MomentCounter
from skbn._data import complete_row_mask, counted_rows, kept_rows, name_ranks, permute_columns
from skbn.exceptions import DeterminedColumnsWarning
from skbn.scores import _moment_family_score
from skbn.utils._warnings import warn_user

#: Most (continuous column, discrete column) pairs, and states of one pair, a message names.
_FLAT_PAIRS_SHOWN, _FLAT_STATES_SHOWN = 10, 5
#: Most determined continuous columns the warning names.
_DEPENDENCES_SHOWN = 20
#: Most parent sets :func:`reachable_families` tries for one column under a bound on its parents.
_PARENT_SETS_TRIED = 4096
#: Most sets of discrete columns :func:`within_states` examines (by size, then in name order).
_WITHIN_SETS = 1024
#: Largest number of declared configurations :func:`_configurations` numbers by mixed radix
#: (beyond it the observed ones are renumbered).
_DECLARED_IDS = 1 << 20
#: The pivot below which :func:`within_states` screens a set of rows as holding a determined
#: column: ``1e6`` times :data:`~skbn._counting._moments.SINGULAR_RCOND`, a margin for moments
#: rounded otherwise, or of rows inside a configuration (an exact relation leaves a pivot of
#: rounding, far below either bound); a column with noise of ``1e-4`` of its spread passes the
#: screen and is then cleared by the rule.
_SCREEN_RCOND = 1e-6


def check_determined_columns(data, states, learner, *, tests=False, reader="score", scorer_of=None,
                             refuse=None, reach=None, rank_rule=False):
    """Warn (:class:`~skbn.exceptions.DeterminedColumnsWarning`), naming them, about columns
    of the encoded ``data`` exactly determined by others, which break the faithfulness a
    learned graph (or an edge posterior) relies on; refuse them (``refuse``) when the
    scorer gives such a family a finite score and a network is to be fitted. The messages
    begin with ``learner``, the name of the search.

    * Continuous columns that are exact linear functions of other continuous columns
      (:func:`skbn._counting.linear_dependencies` on the one-group moments the search
      reads; with missing cells, each relation on the rows that observe its own columns,
      named only, with those rows: :func:`_observed_row_dependencies`). The family of such
      a column ``c`` given the columns ``P`` that determine it has residual variance 0: the residual-variance
      scores (``bic-g``, ``aic-g``, ``loglik-g`` and their CLG forms) give it ``-inf``, as
      bnlearn does, so their searches never learn it; BGe, a marginal likelihood under a
      proper normal-Wishart prior, gives it a finite score, larger than that of any family
      with noise (``log|R_cc.P|`` of ``R = T + S_N`` is then bounded by the prior scale
      ``T`` alone), so its searches learn it (bnlearn's too). A Gaussian network has no
      density with a node of standard deviation 0, so the parameter fit after such a
      search would fail: with ``refuse`` (a learner that fits its network) a scorer that
      gives a determined family *the search can reach* a finite score
      (:func:`finitely_scored`) is refused here, before the search, with a ``ValueError``
      naming the family; otherwise the warning says so. A search by tests alone
      (``tests`` and no ``scorer_of``: PC) has no score to keep it away from such a family:
      a column stays dependent on the columns that determine it whatever else a test
      conditions on (given all but one of them it is that one plus a constant), so they
      stay adjacent, and the extension of the learned class gives the last of them in its
      order the others as parents (the v-structure ``a -> c <- b`` of ``c = a + b`` with
      independent ``a``, ``b``; one of two duplicates the other). With ``refuse`` a
      determined family it can reach is then refused (:func:`tested_refusal`).

      *The reach* (:func:`reachable_families`, from ``reach``): every column of a
      dependence can be the child (with ``a + b - c = 0``, ``a | b, c``, ``b | a, c`` and
      ``c | a, b`` are all determined), with any parents besides; such a family is reached
      only if its size, with the parents the child must have, is at most the search's bound
      on parents (``max_indegree``, one in a tree) and none of its edges is forbidden
      (``black_list``, ``tiers``, the conditional-Gaussian rule, an edge against the
      required ones, K2's ordering). What a search learns from the data before it scores
      (MMHC's candidate parents, PC's skeleton) is not known before it, so it is not read:
      for them the rule may refuse a family the tests would have ruled out.

      *No more rows than continuous columns.* With ``N`` rows the centred rows span at most
      ``N - 1`` dimensions, so every column is a linear function of any ``N - 1`` others
      in general position, and :func:`~skbn._counting.linear_dependencies` would name all
      but ``N - 1`` of them. Then only the dependences of one column on one other (a
      duplicate, a change of units; :func:`skbn._counting.collinear_pairs`) are looked
      for, and reported and refused as above; and with ``rank_rule`` (a learner whose
      network holds its search's families, with no tests: not a bootstrap's averaged
      network, which leaves determined families out, nor PC or MMHC, whose tests find
      independence given conditioning sets too large for the rows, so that no node keeps
      ``N - 1`` neighbours) a scorer that gives a reachable family of ``N - 1`` continuous
      parents that determine its child a finite score (BGe) is refused
      (:func:`rank_family`, :func:`rank_refusal`): such a search learns one, and ``N``
      rows do not estimate its ``N + 1`` parameters. A bound ``max_indegree <= N - 2``
      lets it through. Dependences of two or more columns not forced by the rows are not
      looked for there (telling them from those the rows force is a search over subsets).
    * With ``tests`` (a learner that runs conditional-independence tests on the data: a
      ``ci_test`` plug-in other than the d-separation oracle, PC, MMHC), discrete columns that are
      functions of another discrete column (:func:`skbn._counting.functional_pairs`):
      one-to-one recodings of each other, and many-to-one relations (a group beside its
      units). With missing cells a pair is read on the rows that observe both columns (the
      rows test-wise deletion gives a test of the two), by the rule of complete data there,
      whose identifier rule (two rows per state of the finer column) also keeps a pair seen
      on a few rows from being named; the warning then says on how many rows. Such a pair
      is named even though the missing cells could break it: a test reads only rows where
      it holds, and EM completes the missing cells from a model fitted to those rows.
      Given the finer column, the coarser one is
      constant, so every test of it given the finer one finds independence, and the
      coarser column loses its edges even to the columns it explains (the units of R's
      ``CO2`` data, ``Plant``, determine their ``Type`` and ``Treatment``, and PC then
      links neither to ``uptake``). A score-based learner finds such a family without
      harm (one column predicts the other exactly), so it is not told.
    * On mixed data, for a search that scores the data or tests it (``reader``;
      :func:`within_states`): continuous columns that are exact linear functions of other
      continuous columns within every configuration, or some configurations, of a set of
      discrete columns that a reachable family can hold, though not over all rows
      (``c = a + b + 3 [d = v]``, an intercept or slopes per state; ``c = a + b`` where ``d``
      is ``v`` only), named with the discrete columns (``'c' (a linear function of 'a', 'b'
      within each state of 'd')``) and, when not every one, the configurations (``... where
      'd' is 'v')``). Given the continuous columns that determine it and those discrete
      columns, such a column has no residual spread in those configurations: the CLG test
      leaves them out of its statistic (bnlearn's ``mi-cg`` gives statistic 0, p-value 1),
      so PC can find it independent of the columns that determine it and return an empty
      graph; the CLG scores give such a family ``-inf`` (bnlearn's ``bic-cg``, ``aic-cg``,
      ``loglik-cg`` too), so a search never learns it. These columns are warned about
      only, never refused: a search by tests removes their edges instead of keeping them,
      and a CLG network takes such a family
      anyway (the parameter fit gives a configuration with no residual spread its
      regression over all the rows, with a warning), so no fit fails after the search.
      Columns the one-group check names are left out, and columns with no spread in every
      state (a function of a discrete column alone) are left to the next check. With missing
      cells each relation is read on the rows that observe its own columns, and named with
      those rows (:func:`observed_within_states`): a test reads only those rows, and EM
      learns such a family only where its completions give it spread.
    * In a second warning, on mixed data, for a search that scores the data or tests it
      (``reader``; :func:`flat_states`): continuous columns with no spread in some state (of at
      least two rows) of a discrete column, such as a zero-inflated measurement, exactly 0
      in one group. A CLG score gives every family with that discrete parent ``-inf``,
      and the CLG test leaves the state's rows out of both of its regressions, so the
      dependence, often the strongest in the data, is never learned. With missing cells
      each pair is read on the rows that observe both, and under EM only where no
      completion can add spread to the state (:func:`observed_flat_states`).
    * In a third warning (a plain ``UserWarning``), on mixed data, for a search that scores
      with a scorer that gives such a family ``-inf`` (:func:`lone_states`): discrete
      columns with a state of a single row (R's ``survival::lung``: one patient with
      ``ph.ecog`` 3). A CLG score gives every family in which such a column is a parent of
      a continuous one ``-inf``, so it never gets a continuous child. With missing cells
      (EM's completions) a state counts only when its row has no missing cell, and for the
      continuous columns to which no completion of the discrete column adds spread there
      (every row that misses it holds the lone row's value), the scorer's rule read on the
      complete rows (:func:`lone_states`).

    The columns are taken in name order, so the message does not depend on the column order.

    Parameters
    ----------
    data : EncodedData
        The rows a search reads (rows of weight 0 dropped, weights in ``data.weights``).
    states : list
        The state names of every column (None for a continuous one), as ``fit`` encodes them.
    learner : str
        The name of the search, first in the messages.
    tests : bool, default=False
        Whether the search runs conditional-independence tests on the data: the discrete
        functional pairs are then checked too.
    reader : {"score", "test", "posterior"} or None, default="score"
        How the search reads a continuous column's spread within the states of a discrete
        column (:func:`skbn.estimators._base._reads_spread`): a CLG score, the CLG test, or
        a CLG score whose every family is summed over (:func:`skbn.posterior.edge_posteriors`,
        where such an edge gets posterior 0); None: not read, not checked.
    scorer_of : callable or None, default=None
        For a search that scores: returns its scorer, resolved as the search resolves it
        (called only when a continuous column is determined). None: no score is read.
    refuse : str or None, default=None
        For a learner that fits a network after its search: the parameter to name, its
        scorer as given (e.g. ``"scorer='bge'"``), whose finite-scored reachable determined
        families are then an error naming them, or for a search by tests alone
        ``"fit_parameters=True"``, every reachable determined family an error. None: only warned.
    reach : callable or None, default=None
        Returns ``(allowed, required, bound)``, the families the search can give a node
        (:meth:`skbn.estimators._base._BaseStructureLearner._family_reach`), called only
        when a continuous column is determined. None: any family.
    rank_rule : bool, default=False
        Whether a reachable family of ``N - 1`` continuous parents on ``N`` rows, no more
        than the continuous columns, is refused too (see above).

    Call it inside :func:`~skbn._counting._moment_counter.shared_moments` of ``data`` to share
    its moments with the search.
    """
    ranks = name_ranks(data.names)
    resolved = []

    def scorer():  # (the learner's scorer, resolved once, when first read)
        if not resolved:
            resolved.append(scorer_of())
        return resolved[0]

    parsed = []

    def reached_by():  # (the learner's reach, parsed once, when first read; None: any family)
        if not parsed:
            parsed.append(reach() if reach is not None else None)
        return parsed[0]

    found = []
    counter = None
    if data.has_continuous:  # (some column continuous)
        try:
            counter = MomentCounter.of(data)  # (the fit's shared counter: the search reuses its moments)
        except ValueError:  # missing cells: no moments
            counter = None
    n_continuous = int(np.count_nonzero(data.continuous)) if data.has_continuous else 0
    rows = _moment_rows(data)
    dependencies, finite, score_rule, observed_rule = [], [], "", ""
    unlearned = False  # whether a score of -inf keeps every search away from a family named
    if counter is None and n_continuous and data.row_scatter is None:  # (missing cells)
        dependencies, seen, observed_rule = _observed_row_dependencies(data, ranks)
        found += _named_dependencies(data.names, dependencies, seen)
    if counter is not None:
        columns = counter.continuous
        stats = counter.moments_given()
        scatter = stats.scatter[0]
        few_rows = _forced_by_rows(rows, n_continuous)  # (every column a function of rows - 1 others)
        dependencies = _dependencies(scatter, columns, counter.name_order(), few_rows, stats.unit[1][0])
        if dependencies:
            found += _named_dependencies(data.names, dependencies)
        # (the learner's reach is parsed only when it is read: a determined column, or few rows)
        needed = reach is not None and (dependencies or (few_rows and rank_rule))
        searched = reached_by() if needed else None
        if dependencies and scorer_of is not None:
            reached = reachable_families(scatter, columns, dependencies, searched, ranks)
            finite = finitely_scored(scorer(), data, counter, reached)
            if finite and refuse is not None:
                raise ValueError(determined_refusal(learner, refuse, scorer(), finite, data.names, ranks))
            if finite:  # (no network fitted: the structure alone, or posteriors)
                score_rule = (f"the scorer {scorer()!r} gives the family of a continuous one given the "
                              "columns that determine it a finite score, above any family with noise, so "
                              "the learned graph is likely to hold such a family, of residual variance 0, "
                              "which a Gaussian network cannot fit (a learner with fit_parameters=True "
                              "refuses these data)")
            elif finitely_scored(scorer(), data, counter, dependencies):
                score_rule = (f"the scorer {scorer()!r} gives the family of a continuous one given the "
                              "columns that determine it a finite score, but the search cannot reach such "
                              "a family (its max_indegree, the shape of its graph or the background "
                              "knowledge rule each one out)")
            else:
                unlearned = True  # (a score of -inf: no search learns the family)
                score_rule = ("the score gives the family of a continuous one given the columns that "
                              "determine it -inf (as bnlearn's bic-g, aic-g and loglik-g do)")
        elif dependencies and tests and refuse is not None:  # (a search by tests alone: PC)
            reached = reachable_families(scatter, columns, dependencies, searched, ranks)
            if reached:
                raise ValueError(tested_refusal(learner, reached, data.names, ranks))
        if few_rows and rank_rule and scorer_of is not None and refuse is not None:
            family = rank_family(scatter, columns, rows, searched, ranks)
            scored = finitely_scored(scorer(), data, counter, [family]) if family else []
            if scored:
                raise ValueError(rank_refusal(learner, refuse, scorer(), scored[0], rows, n_continuous,
                                              data.names))
    flat, within, within_rule, within_missing_rule = [], [], "", ""
    incomplete = data.row_scatter is None and n_continuous and (
        counter is None or (data.codes.dtype.kind == "i" and (data.codes < 0).any()))
    if incomplete and reader in ("test", "score") and n_continuous < data.n_variables:
        # (missing cells: each pair on the rows observing both; a score reads EM's completions)
        flat = observed_flat_states(data, ranks, completed=reader == "score")
    elif counter is not None and reader is not None and n_continuous < data.n_variables:
        flat = flat_states(data, counter, ranks)
    observed_within = incomplete and reader in ("test", "score")  # (each relation on its own rows)
    if (counter is not None or observed_within) and reader is not None and n_continuous < data.n_variables:
        told, flat_columns = [j for j, _ in dependencies], {item[0] for item in flat}
        within = (observed_within_states(data, ranks, told=told, flat=flat_columns, reach=reached_by)
                  if observed_within else
                  within_states(data, counter, ranks, told=told, flat=flat_columns, reach=reached_by))
        # (whether a relation's own columns miss a cell: only then can EM's completions reach it)
        completed = observed_within and any(item[4] is not None for item in within)
        found += [_within(data.names, states, *item) for item in within[:_DEPENDENCES_SHOWN]]
        if len(within) > _DEPENDENCES_SHOWN:
            found.append(f"and {len(within) - _DEPENDENCES_SHOWN} more such columns")
        if within and scorer_of is not None:  # (no refusal: the network fit takes such a family)
            families = [(j, tuple(sorted((*given, *where), key=lambda i: ranks[i])))
                        for j, given, where, *_ in within]
            if observed_within:  # (the scorer's rule, read on the rows that observe the first family)
                j, parents = families[0]
                involved = sorted((j, *parents), key=lambda i: ranks[i])
                part = _observed_part(data, involved, (data.codes[:, involved] >= 0).all(axis=1))
                position = {c: i for i, c in enumerate(involved)}
                scored = finitely_scored(scorer(), part, MomentCounter(part),
                                         [(position[j], tuple(position[i] for i in parents))])
            else:
                scored = finitely_scored(scorer(), data, counter, families)
            if scored:
                within_rule = (f"the scorer {scorer()!r} gives the family of such a column given the "
                               "continuous and discrete columns that determine it a finite score, so the "
                               "learned graph may hold it (the network fit then gives it, in each "
                               "configuration with no residual spread, its regression over all its rows)")
            else:
                unlearned = True
                within_rule = ("the conditional-Gaussian score gives the family of such a column given the "
                               "continuous and discrete columns that determine it -inf (as bnlearn's "
                               "bic-cg, aic-cg and loglik-cg do), so "
                               + ("no graph that holds it has posterior mass" if reader == "posterior"
                                  else "the search never learns it" if not completed else
                                  "the search learns it only where missing='em' completes enough of "
                                  "its cells to give it spread"))
        if completed:
            within_missing_rule = ("with missing cells, a relation within states is read on the rows "
                                   "where its columns are observed: a test of missing='available_case' "
                                   "reads those rows alone, and missing='em' starts from the graph learned "
                                   "on the complete rows and completes the others from a model fitted where "
                                   "the relation holds")
    discrete_found, missing_rule = [], ""
    if tests:
        discrete = [j for j in np.argsort(ranks, kind="stable").tolist() if data.cardinalities[j] > 0]
        copies = row_copies(data.weights)  # (the identifier rule counts rows)
        pairs = functional_pairs(data.codes, discrete, copies=copies)  # (a, b): b = f(a), name order
        seen = {pair: _seen_on(data.codes, *pair, copies) for pair in pairs}
        both = set(pairs) & {(b, a) for a, b in pairs}
        recodings = [f"{data.names[a]!r} and {data.names[b]!r} (one-to-one recodings of each other"
                     f"{seen[a, b]})" for a, b in pairs if (a, b) in both and ranks[a] < ranks[b]]
        determinants = {}  # column -> the columns it is a function of (not one-to-one)
        for a, b in pairs:
            if (a, b) not in both:
                determinants.setdefault(b, []).append(a)
        functions = [f"{data.names[b]!r} (a function of "
                     f"{', '.join(repr(data.names[a]) + seen[a, b] for a in given)})"
                     for b, given in sorted(determinants.items(), key=lambda item: ranks[item[0]])]
        if any(seen.values()):
            missing_rule = ("with missing cells, a discrete relation is read on the rows where both "
                            "columns are observed: the tests read those rows (missing='available_case' "
                            "deletes the others test by test) and missing='em' completes the others from "
                            "a model fitted where the relation holds, so a missing cell that would break "
                            "it changes nothing the learner sees")
        discrete_found = (recodings, functions)
        found += recodings + functions
    if found:
        recodings, functions = discrete_found or ([], [])
        clauses = []
        if tests and (dependencies or recodings or functions):
            clauses.append("given the columns that determine it, a column is constant, so the tests find "
                           "it independent of every other column")
        if tests and any(item[3] is None for item in within):
            clauses.append("a column determined within the states of discrete columns has no residual "
                           "spread there given the columns that determine it, and the conditional-Gaussian "
                           "test leaves such a state out of its statistic (as bnlearn's mi-cg does: "
                           "statistic 0, p-value 1), so the tests find the column independent of the "
                           "columns that determine it")
        if tests and any(item[3] is not None for item in within):
            clauses.append("a column determined where discrete columns take some states only has no "
                           "residual spread there given the columns that determine it; the "
                           "conditional-Gaussian test leaves those states out and reads the others alone "
                           "(bnlearn's mi-cg gives statistic 0, p-value 1), so the tests can find the "
                           "column independent of the columns that determine it")
        clauses += [rule for rule in (score_rule, within_rule, observed_rule, within_missing_rule,
                                      missing_rule) if rule]
        if tests or unlearned:  # (tests, or a score of -inf: no edge to them)
            clauses.append("the learned graph can leave these columns, and those they explain, unconnected")
        computed = [item for item in within if item[1]]  # (no predictor: a point mass there)
        kinds = [what for what, told in (("duplicates, converted units or totals", dependencies),
                                         ("columns computed from others state by state", computed),
                                         ("recodings", recodings)) if told]
        advice = []
        if kinds or functions:
            keep = f"Keep one column of each such group ({'drop ' + ' or '.join(kinds) if kinds else ''}"
            if functions:
                keep += ("; of" if kinds else "of") + (
                    " a fine column and the coarse ones it determines, such as units and their "
                    "treatment group, keep those you want to model")
            advice.append(keep + ").")
        if len(computed) < len(within):  # (a zero-inflated count in a joint configuration: R's esoph)
            advice.append(_POINT_MASS_ADVICE)
        warn_user(
            f"{learner}: {'; '.join(found)}: "
            f"{'these columns are' if len(found) > 1 else 'a column is'} exactly determined by other "
            "columns, with no noise. Structure learning assumes no such deterministic relation"
            f"{': ' + '; '.join(clauses) if clauses else ''}. {' '.join(advice)}",
            DeterminedColumnsWarning,
        )
    if flat:
        warn_user(flat_states_message(learner, flat, data.names, states, reader), DeterminedColumnsWarning)
    scored = (0 < n_continuous < data.n_variables and reader in ("score", "posterior")
              and scorer_of is not None)  # (a lone state is a discrete column's)
    lone = lone_states(data, ranks) if scored else []
    if lone:
        # (the scorer's rule, read on one family: a lone row leaves every continuous child no
        # spread; with missing cells, on the complete rows, which hold each lone state's row)
        complete = complete_row_mask(data)
        with_missing = complete is not None and not complete.all()
        rows_read, read = (kept_rows(data, complete), None) if with_missing else (data, counter)
        if read is None and rows_read.n_samples >= 2:
            read = MomentCounter.of(rows_read)
        d, _, children = lone[0]
        family = None
        if read is not None:  # (a continuous column no completion adds spread to: any one without)
            family = (int(read.continuous[0]) if children is None else children[0], (d,))
        if family is not None and not finitely_scored(scorer(), rows_read, read, [family]):
            n_rows = counted_rows(data.n_samples, data.weights) if with_missing else None
            warn_user(lone_states_message(learner, lone, data.names, states, reader, n_rows))


def _dependencies(scatter, columns, order, few_rows, unit=None):
    """The continuous ``columns`` (positions in the data) that are exact linear functions of
    others, from their centred cross-products ``scatter``, taken in name order (``order``, positions
    in ``columns``: :meth:`~skbn._counting.MomentCounter.name_order`): ``[(column,
    (given, ...))]`` by :func:`~skbn._counting.linear_dependencies`, or with ``few_rows`` (no
    more rows than columns: every column a function of any ``rows - 1`` others) the
    dependences of one column on one other alone (:func:`~skbn._counting.collinear_pairs`).
    ``unit``: the unit-diagonal ``scatter`` (:attr:`~skbn._counting.Moments.unit`), or None."""
    within = (collinear_pairs(scatter, order) if few_rows
              else linear_dependencies(scatter, order, limit=len(columns), unit=unit))
    return [(int(columns[j]), tuple(int(columns[i]) for i in given)) for j, given in within]


def _named_dependencies(names, dependencies, seen=None):
    """The warning's items for ``dependencies`` (:func:`_dependencies`): the first
    ``_DEPENDENCES_SHOWN``, then how many more; ``seen``: ``{column: rows}``, the rows
    a relation with missing cells was read on (:func:`_observed_row_dependencies`)."""
    seen = seen or {}
    named = [f"{_dependence(names, j, given)}"
             f"{f' on the {seen[j]} rows where these columns are observed' if j in seen else ''})"
             for j, given in dependencies[:_DEPENDENCES_SHOWN]]
    if len(dependencies) > _DEPENDENCES_SHOWN:
        named.append(f"and {len(dependencies) - _DEPENDENCES_SHOWN} more such columns")
    return named


def _observed_row_dependencies(data, ranks):
    """With missing cells (no moments of every row): the continuous columns that are exact
    linear functions of others on the rows where the columns of the relation are
    observed, ``([(column, (given, ...))], {column: rows}, clause)``, the rows counted for
    the columns of a relation with a missing cell only, the clause the warning gives them
    ("" when none has one).

    A relation among ``s`` columns is reported only when seen on more than ``s`` rows
    (:func:`_forced_by_rows`: on fewer the rows force one), by the rule of
    :func:`~skbn._counting.collinear_pairs` or :func:`~skbn._counting.linear_dependencies`
    on the moments of exactly those rows. Candidates come from two passes:

    * every pair of columns, on the rows that observe both (a duplicate, a change of
      units), screened on the correlations of the pairwise-complete rows (of the columns
      centred and scaled over their observed cells) at :data:`_SCREEN_RCOND`, far above the
      rule;
    * relations of three or more columns on the rows that observe every column of a
      nested chain of sets: all the continuous columns, then without the column with the
      most missing cells (ties in name order), and so on while some column of the set has
      a missing cell (a set is read only when it gains rows). A relation is found when a
      set of the chain holds its columns on more rows than the set has columns, and then
      counted on every row that observes its columns; one among the columns with the most
      missing cells, on rows that miss some other column each, is not looked for (a search
      over subsets of columns). The chain stops at the first set read on which every column
      the rule names is named already (or has one predictor, the pairs' pass) and the other
      columns pass the screen of :func:`_singular` (far from any relation, so that none is
      hidden by rounding, as on a set with barely more rows than columns): a later set has
      fewer columns and more rows, and a relation among its columns on its rows holds on
      the earlier set's, where the last of its columns in name order was named. With no
      relation in the data the chain stops at the first set with rows enough (on 5,000 rows
      of 80 columns with 5% of the cells missing, after one set instead of 78).

    Only named, never refused: the relation is the data's on those rows, and whatever the
    missing cells would have held, ``missing="em"`` completes them from a model fitted
    where it holds (EM then gives such a column the columns that determine it as parents,
    with its residual variance held at its floor: ``docs/gaussian.md``), and a test of
    ``missing="available_case"`` reads only the rows where its columns are observed."""
    columns = np.flatnonzero(data.continuous)
    columns = columns[np.argsort(ranks[columns], kind="stable")]  # (in name order)
    values = data.values[:, columns]
    observed = ~np.isnan(values)
    weights = data.weights
    k = len(columns)
    found = {}  # position in ``columns`` -> (positions given, rows)

    def holds(child, given):  # (its rows if the relation holds on the rows that observe it)
        involved = [*given, child]
        rows = observed[:, involved].all(axis=1)
        n_rows = int(np.count_nonzero(rows))
        if _forced_by_rows(n_rows, len(involved)):
            return None
        block = values[rows][:, involved]
        if _forced_by_rows(_points(block, len(involved) + 1), len(involved)):
            return None
        scatter = moments(block, None if weights is None else weights[rows]).scatter[0]
        rule = collinear_pairs if len(given) == 1 else linear_dependencies
        return n_rows if any(j == len(given) and told for j, told in rule(scatter)) else None

    for j, i in _screened_pairs(values, observed, weights):
        if j not in found and i not in found:
            n_rows = holds(j, (i,))
            if n_rows is not None:
                found[j] = ((i,), n_rows)
    last = -1
    for kept, rows in _missing_chain(observed, range(k), np.arange(k)):  # (positions in name order)
        if len(kept) < 3:
            break
        n_rows = int(np.count_nonzero(rows))
        if n_rows > last and not _forced_by_rows(n_rows, len(kept)):
            last = n_rows
            stats = moments(values[rows][:, kept], None if weights is None else weights[rows])
            dependencies = linear_dependencies(stats.scatter[0], limit=len(kept))
            for j, given in dependencies:
                child, given = kept[j], tuple(kept[i] for i in given)
                if child not in found and len(given) >= 2:
                    seen = holds(child, given)
                    if seen is not None:
                        found[child] = (given, seen)
            rest = np.setdiff1d(np.arange(len(kept)), [j for j, _ in dependencies])
            near = len(rest) and _singular(Moments(stats.weight, stats.mean[:, rest],
                                                   stats.scatter[:, rest][:, :, rest]))[0]
            if not near and all(kept[j] in found or len(given) < 2 for j, given in dependencies):
                break  # (no later set names a column not named yet)
    dependencies, seen = [], {}
    for j in sorted(found):
        given, n_rows = found[j]
        dependencies.append((int(columns[j]), tuple(int(columns[i]) for i in given)))
        if not observed[:, [*given, j]].all():
            seen[int(columns[j])] = n_rows
    rule = ("with missing cells, a continuous relation is read on the rows where its columns are "
            "observed; missing='em' completes the other rows as if it held there too, and can give such "
            "a column the columns that determine it as parents, with its residual variance held at its "
            "floor (a tiny variance, a huge log-likelihood)") if seen else ""
    return dependencies, seen, rule


def _missing_chain(observed, columns, ranks):
    """The nested chain of column sets that the checks with missing cells read: the
    ``columns`` (positions in ``observed``), then without the column with the most missing
    cells (ties in name order, ``ranks``), and so on while some column of the set has a
    missing cell. Yields ``(kept, rows)``: the set (one list, shortened in place after the
    caller's step) and the mask of the rows that observe all of it."""
    n_missing = np.count_nonzero(~observed, axis=0)
    kept = list(columns)
    chain = sorted((j for j in kept if n_missing[j]), key=lambda j: (-int(n_missing[j]), ranks[j]))
    while True:
        rows = observed[:, kept].all(axis=1)
        yield kept, rows
        if rows.all():  # (no column of the set misses a cell: nothing left to drop)
            return
        kept.remove(chain.pop(0))


def _screened_pairs(values, observed, weights):
    """The pairs ``(j, i)`` of columns of ``values`` (``i`` before ``j``, by ``j`` then
    ``i``) whose correlation on the rows that observe both is 1 within :data:`_SCREEN_RCOND`
    (``1 - r^2`` at most it), from products of the columns centred and scaled over their
    observed cells (``0`` in a missing cell): a screen for :func:`_observed_row_dependencies`,
    which decides each pair on its own rows."""
    w = np.ones(len(values)) if weights is None else np.asarray(weights, dtype=np.float64)
    mask = observed.astype(np.float64)
    total = w @ mask
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(observed, values, 0.0).T @ w / total
        z = np.where(observed, values - mean, 0.0)
        z /= np.sqrt((z ** 2).T @ w / total)
    z = np.where(observed & np.isfinite(z), z, 0.0)
    zw = z * w[:, None]
    count = (mask * w[:, None]).T @ mask  # [i, j]: the weight of the rows that observe both
    first = zw.T @ mask  # [i, j]: the sum of column i over them
    second = (zw * z).T @ mask
    cross = zw.T @ z
    with np.errstate(divide="ignore", invalid="ignore"):
        covariance = cross - first * first.T / count
        variance = second - first ** 2 / count  # [i, j]: of column i on the rows that observe j
        residual = 1.0 - covariance ** 2 / (variance * variance.T)
    close = (variance > 0) & (variance.T > 0) & (residual <= _SCREEN_RCOND)
    return [(j, i) for j in range(values.shape[1]) for i in range(j) if close[i, j]]


def _forced_by_rows(n_rows, n_columns):
    """Whether ``n_rows`` rows force a linear relation among ``n_columns`` continuous
    columns: their centred rows span at most ``n_rows - 1`` dimensions, so with no more
    rows than columns some column is a linear function of the others by the rows alone.
    Pass the distinct rows (:func:`_points`) where the rows are at hand."""
    return n_rows <= n_columns


def _points(values, enough=None):
    """The distinct rows of ``values`` (rows by columns, no NaN): a repeated row is one
    point, as a row of weight 2 is, so ``N`` rows of ``P`` distinct points span at most
    ``P - 1`` dimensions once centred (MASS's ``birthwt``: 4 rows of 3 points, on a plane,
    named a relation of ``lwt``, ``age`` and ``bwt`` before this count). With ``enough``,
    a count of at least ``enough`` may stand for any larger one: the first ``4 enough``
    rows are read first, and all of them only when those hold fewer points."""
    if enough is not None:
        head = len(set(map(tuple, values[:4 * enough].tolist())))  # (a few rows: a set is quicker)
        if head >= enough or len(values) <= 4 * enough:
            return head
    return len(np.unique(values, axis=0)) if len(values) else 0


def _seen_on(codes, a, b, copies):
    """`` on the N rows where both are observed`` for a discrete pair with missing cells
    (:func:`~skbn._counting.observed_together`, the rows :func:`~skbn._counting.functional_pairs`
    reads it on), else ``""``, for a message."""
    both, n_rows = observed_together(codes, a, b, copies)
    return "" if both.all() else f" on the {n_rows} rows where both are observed"


def _moment_rows(data):
    """The number of rows behind the moments of ``data``, which bounds their rank (``N``
    centred rows span at most ``N - 1`` dimensions): chunked data are summarised by the
    moments of the rows of each distinct row of its discrete columns (``row_scatter``), so
    its weights count the rows; in memory every row counts once, whatever its weight (a
    weighted row is one point; rows of weight 0 were dropped before encoding)."""
    return data.total_weight if data.row_scatter is not None else data.n_samples


def _dependence(names, column, given):
    """``'c' (a linear function of 'a', 'b'`` (or ``(no spread``), unclosed, for a message."""
    what = f"a linear function of {', '.join(repr(names[i]) for i in given)}" if given else "no spread"
    return f"{names[column]!r} ({what}"


def finitely_scored(scorer, data, counter, families):
    """The families ``column | predictors`` of ``families`` (positions: the exact linear
    functions of :func:`skbn._counting.linear_dependencies`, or a family of an averaged
    network) that ``scorer`` gives a finite score, with that score: ``[(column,
    predictors, score), ...]``. No determined family for the residual-variance scores
    (``bic-g``, ``aic-g``, ``loglik-g`` and their CLG forms: ``-inf``); every one for BGe."""
    found = []
    for column, predictors in families:
        with np.errstate(divide="ignore", invalid="ignore"):
            score = _moment_family_score(counter, scorer, column, list(predictors), data.n_variables)
        if np.isfinite(score):
            found.append((column, predictors, score))
    return found


def any_family(p, bound=None):
    """The reach of a search that may give any node any family of at most ``bound`` parents
    (``p - 1`` when None), as :meth:`skbn.estimators._base._BaseStructureLearner._family_reach`
    returns one: ``(allowed, required, bound)``."""
    return (~np.eye(p, dtype=bool), np.zeros((p, p), dtype=bool),
            np.full(p, p - 1 if bound is None else bound))


def reachable_families(scatter, columns, dependencies, reach, ranks):
    """The determined families a search can reach: for each column of a dependence, the
    smallest set of parents that determines it exactly and that the search may give it, if
    any.

    Every column of a dependence can be the child: with ``a + b - c = 0``, ``a | b, c``,
    ``b | a, c`` and ``c | a, b`` are all determined, and so is a family with more parents
    (a superset determines the child too). A family ``child | P`` is reachable when every
    column of ``P`` may be a parent of the child (``allowed``) and the family with the
    parents the child always has (``required``) has at most ``bound[child]`` parents. A
    set ``P`` that determines the child holds one in which the child is a linear function
    of every column (a circuit: the child and the support of the dependence), and the
    constraints only ever forbid more, so a reachable determined family exists exactly
    when such a smallest one does. Only the columns of ``dependencies`` can be in one
    (the columns no dependence involves are in none), and the search for the smallest
    tries parent sets by size, at most :data:`_PARENT_SETS_TRIED` of them per column;
    beyond that (a bound far below a large group), the family of all the allowed parents is
    taken as reachable (a refusal before the search, never a failure after it).

    Parameters
    ----------
    scatter : ndarray of shape (k, k)
        The one-group scatter of the continuous ``columns`` (positions in the data).
    dependencies : list of (int, tuple of int)
        :func:`skbn._counting.linear_dependencies` or :func:`skbn._counting.collinear_pairs`
        (data positions).
    reach : (allowed, required, bound) or None
        :meth:`skbn.estimators._base._BaseStructureLearner._family_reach` (data positions);
        None: any family.
    ranks : ndarray
        The columns' ranks in name order.

    Returns
    -------
    list of (int, tuple of int)
        ``(child, parents)``, the parents in name order, the children last in name order
        first.
    """
    allowed, required, bound = reach if reach is not None else any_family(len(ranks))
    involved = sorted({k for j, given in dependencies for k in (j, *given)}, key=lambda k: ranks[k])
    families = []
    for child in involved[::-1]:
        must = set(np.flatnonzero(required[:, child]).tolist())
        fixed = [k for k in involved if k in must]  # (free: the parents it has anyway)
        free = [k for k in involved if k != child and k not in must and allowed[k, child]]
        room = int(bound[child]) - len(must)
        given = _determining(scatter, columns, ranks, child, fixed + free)
        if given is None or room < 0:
            continue
        if len(set(given) - must) > room:  # (the smallest one, under the bound)
            given = _smallest_determining(scatter, columns, ranks, child, fixed, free, room, given)
        if given is not None:
            families.append((child, given))
    return families


def _determining(scatter, columns, ranks, child, parents):
    """The columns among ``parents`` (data positions) of which ``child`` is an exact linear
    function, by the rule of :func:`skbn._counting.linear_dependencies` (taken in the order
    given), in name order; None if it is not one."""
    local = {int(c): i for i, c in enumerate(columns)}
    order = [local[k] for k in parents] + [local[child]]
    for j, given in linear_dependencies(scatter, order, limit=len(order)):
        if j == local[child]:
            return tuple(sorted((int(columns[i]) for i in given), key=lambda k: ranks[k]))
    return None


def _smallest_determining(scatter, columns, ranks, child, fixed, free, room, fallback):
    """The first set of at most ``room`` columns of ``free`` (by size, then in name order)
    that with ``fixed`` determines ``child`` (:func:`_determining`), or None; ``fallback``
    after :data:`_PARENT_SETS_TRIED` sets."""
    tried = 0
    for size in range(min(room, len(free)) + 1):
        for chosen in itertools.combinations(free, size):
            tried += 1
            if tried > _PARENT_SETS_TRIED:
                return fallback
            given = _determining(scatter, columns, ranks, child, fixed + list(chosen))
            if given is not None:
                return given
    return None


def rank_family(scatter, columns, rows, reach, ranks):
    """On no more rows than continuous columns: a family of ``rows - 1`` continuous parents
    the search can reach whose child they determine, ``(child, parents)``, or None.

    The centred rows span at most ``rows - 1`` dimensions, so a continuous column is an
    exact linear function of any ``rows - 1`` continuous columns in general position (and
    ``rows`` rows cannot estimate the ``rows`` coefficients and the variance of such a
    family anyway). The columns are tried in name order, each with its required
    continuous parents and the first allowed ones in name order (:func:`reachable_families`
    for ``reach``), until one is determined."""
    allowed, required, bound = reach if reach is not None else any_family(len(ranks))
    need = int(rows) - 1
    named = sorted((int(c) for c in columns), key=lambda k: ranks[k])
    for child in named:
        must = np.flatnonzero(required[:, child]).tolist()
        fixed = [k for k in named if k in must]
        free = [k for k in named if k != child and k not in must and allowed[k, child]]
        parents = fixed + free[:max(need - len(fixed), 0)]
        if len(parents) < need or len(parents) + len(must) - len(fixed) > bound[child]:
            continue
        if _determining(scatter, columns, ranks, child, parents) is not None:
            return child, tuple(sorted(parents, key=lambda k: ranks[k]))
    return None


def _shown(families, ranks):
    """The families a message names: the child last in name order first, a family left out
    when its columns are all in those named before it (``c | a, b`` of ``c = a + b`` names
    the group; ``a | b, c`` and ``b | a, c`` would repeat it), then in name order."""
    shown, covered = [], set()
    for family in sorted(families, key=lambda family: -ranks[family[0]]):
        if not {family[0], *family[1]} <= covered:
            shown.append(family)
            covered |= {family[0], *family[1]}
    return sorted(shown, key=lambda family: ranks[family[0]])


def determined_refusal(learner, parameter, scorer, finite, names, ranks):
    """The error of :func:`check_determined_columns` about the determined families
    ``finite`` (:func:`finitely_scored` of :func:`reachable_families`) of a learner that fits
    parameters; ``parameter``: its scorer parameter (with the alias given), ``scorer`` the
    resolved scorer."""
    shown = _shown(finite, ranks)
    families = "; ".join(f"{_dependence(names, c, given)}, family score {score:.6g})"
                         for c, given, score in shown)
    return (
        f"{learner}: {families}: {'these columns are' if len(shown) > 1 else 'a column is'} "
        f"exactly determined by other columns, with no noise, and the scorer {scorer!r} "
        f"({parameter}) gives the "
        "family of such a column given the columns that determine it a finite score, above any "
        "family with noise (BGe's marginal likelihood of a singular scatter matrix is bounded by "
        "its prior alone; bic-g, aic-g and loglik-g give such a family -inf, as bnlearn does). The "
        "search would favour such a family, whose residual variance is 0, and a Gaussian network "
        "cannot give it a density, so the parameter fit after the search would fail. Keep one "
        "column of each such group (drop duplicates, converted units or totals), forbid the "
        "edges of such families (black_list, tiers, max_indegree), learn the structure alone "
        "with fit_parameters=False, or use a score that never learns such a family "
        "(scorer='bic-g')."
    )


def tested_refusal(learner, families, names, ranks):
    """The error of :func:`check_determined_columns` about the determined families
    ``families`` (:func:`reachable_families`) of a search by tests alone (PC) that fits
    its network."""
    shown = _shown(families, ranks)
    columns = "; ".join(f"{_dependence(names, c, given)})" for c, given in shown)
    return (
        f"{learner}: {columns}: {'these columns are' if len(shown) > 1 else 'a column is'} "
        "exactly determined by other columns, with no noise. A conditional-independence test finds "
        "such a column dependent on the columns that determine it whatever else it conditions on, "
        "so the learned graph keeps them adjacent and gives one of them the others as parents: a "
        "family of residual variance 0, which a Gaussian network cannot give a density, so the "
        "parameter fit after the search would fail (fit_parameters=True). Keep one column of each "
        "such group (drop duplicates, converted units or totals), forbid the edges of such "
        "families (black_list, tiers), or learn the structure alone with fit_parameters=False."
    )


def rank_refusal(learner, parameter, scorer, family, rows, n_continuous, names):
    """The error of :func:`check_determined_columns` about a family of :func:`rank_family`
    (with its score, :func:`finitely_scored`) on ``rows`` rows and ``n_continuous``
    continuous columns."""
    child, parents, score = family
    named = ", ".join(repr(names[k]) for k in parents[:5]) + (
        f" and {len(parents) - 5} more" if len(parents) > 5 else "")
    return (
        f"{learner}: {rows:g} rows, not more than the {n_continuous} continuous columns: the centred "
        f"rows span at most {rows - 1:g} dimensions, so a continuous column is an exact linear "
        f"function of any {rows - 1:g} others in general position (the family of {names[child]!r} "
        f"given {named}, family score {score:.6g}), and the scorer {scorer!r} ({parameter}) gives "
        f"such a family a finite score, which its search can reach. A Gaussian network cannot give a family "
        f"of residual variance 0 a density ({rows:g} rows do not estimate {rows - 1:g} coefficients, "
        "an intercept and a variance), so the parameter fit after the search would fail. Bound "
        f"the parents with max_indegree={max(rows - 2, 0):g} (or fewer), add rows, learn the "
        "structure alone with fit_parameters=False, or use a score that never learns such a "
        "family (scorer='bic-g')."
    )


def flat_states(data, counter, ranks):
    """The continuous columns with no spread in some state of a discrete column.

    A state counts when it holds at least two rows (:func:`~skbn._counting.row_copies`:
    integer weights count as copies, as for the identifiers of
    :func:`check_determined_columns`; a lone row is too few rows, not a point mass) and the
    column has no spread there by the scores' rule (:attr:`skbn._counting.Moments.flat`, on
    :meth:`~skbn._counting.MomentCounter.moments_given` the discrete column: the fit's shared
    moments, which a CLG search and PC's tests of that column read again). The split moments
    are computed only for the discrete columns that
    :meth:`~skbn._counting.MomentCounter.flat_screen` flags (one pass over the rows for all of
    them; it never misses a flat column). Discrete columns with missing cells are skipped.

    Returns
    -------
    list of (continuous_position, discrete_position, state_codes)
        In name order of the continuous column, then of the discrete one.
    """
    copies = row_copies(data.weights)
    signed = data.codes.dtype.kind == "i"
    discrete = [d for d in np.argsort(ranks, kind="stable").tolist() if data.cardinalities[d] > 0]
    complete = [d for d in discrete if not (signed and (data.codes[:, d] < 0).any())]
    # one pass flags the discrete columns worth splitting by (None: each is split; the
    # indicators of a column with missing cells would be wrong)
    flagged, offsets = counter.flat_screen() if len(complete) == len(discrete) else (None, None)
    found = []
    for d in complete:
        if flagged is not None and not flagged[offsets[d]:offsets[d + 1]].any():
            continue  # (no column flat in any state of d: its split moments are not needed)
        stats = counter.moments_given([d])
        n_rows = count_cells(data.codes[:, d], stats.n_groups, copies)
        flat = stats.flat & (n_rows >= 2)[:, None]
        for t in np.flatnonzero(flat.any(axis=0)).tolist():
            found.append((int(counter.continuous[t]), d, np.flatnonzero(flat[:, t]).tolist()))
    found.sort(key=lambda item: (ranks[item[0]], ranks[item[1]]))
    return found


def observed_flat_states(data, ranks, completed=False):
    """:func:`flat_states` on data with missing cells: each (continuous ``y``, discrete
    ``g``) pair read on the rows that observe both, by the same rule there (a state of at
    least two such rows, no spread by the scores' rule).

    For a search by tests with test-wise deletion (``missing="available_case"``) those are
    the rows a test of the two reads. For a search that scores EM's completions
    (``completed``, ``missing="em"``), a state counts only when no completion can reach it:
    no row that misses ``y`` is in it or misses ``g``, and no row that misses ``g``
    observes ``y``. A completion adds spread to the state it falls in (EM holds that
    state's variance at its floor), and its CLG family then scores finite: hill climbing,
    GES and MMHC learn ``g -> y`` when cells of ``y`` are missing in the flat state, and
    lose it, as on complete data, when only another column has missing cells.

    Returns
    -------
    list of (continuous_position, discrete_position, state_codes, rows)
        As :func:`flat_states`, with the number of rows of those states that observe both
        (counted as there).
    """
    copies = row_copies(data.weights)
    order = np.argsort(ranks, kind="stable").tolist()
    continuous = [j for j in order if data.cardinalities[j] == 0]
    discrete = [d for d in order if data.cardinalities[d] > 0]
    screened = {d: _nearly_flat(data.values[:, continuous], data.codes[:, d], copies) for d in discrete}
    found = []
    for t, j in enumerate(continuous):
        y_observed = ~np.isnan(data.values[:, j])
        for d in (d for d in discrete if screened[d][t]):
            g, r = data.codes[:, d].astype(np.intp), int(data.cardinalities[d])
            rows = (g >= 0) & y_observed
            weights = None if data.weights is None else data.weights[rows]
            stats = moments(data.values[rows, j], weights, g[rows], r)
            n_rows = count_cells(g[rows], r, None if copies is None else copies[rows])
            flat = stats.flat[:, 0] & (n_rows >= 2)
            if completed and flat.any():
                if (g < 0).any():
                    continue  # (a row missing g can be completed into any state)
                flat &= count_cells(g[~y_observed], r) == 0  # (no cell of y to complete there)
            codes = np.flatnonzero(flat)
            if len(codes):
                found.append((j, d, codes.tolist(), int(n_rows[codes].sum())))
    return found


def _nearly_flat(values, codes, copies=None):
    """For each column of ``values`` (NaN: missing): whether, in some state of ``codes``
    (``-1``: missing), its observed values (two rows or more, counted by ``copies`` as
    :func:`observed_flat_states` counts them) span at most ``1e-5`` of their
    largest magnitude, far above the scores' rule (a spread of at most ``N_g ((16 + n_g) eps
    mean)^2``, deviations of ``2e-7`` of the mean at ``1e6`` rows): a screen for
    :func:`observed_flat_states`, one sort of the rows, that never misses a column the
    rule finds flat."""
    rows = np.flatnonzero(codes >= 0)
    rows = rows[np.argsort(codes[rows], kind="stable")]
    if not len(rows):
        return np.zeros(values.shape[1], dtype=bool)
    starts = np.flatnonzero(np.r_[True, np.diff(codes[rows]) != 0])
    sorted_values = values[rows]
    with np.errstate(invalid="ignore"):
        highest = np.fmax.reduceat(sorted_values, starts, axis=0)
        lowest = np.fmin.reduceat(sorted_values, starts, axis=0)
    observed = ~np.isnan(sorted_values)
    seen = np.add.reduceat(observed if copies is None else observed * copies[rows, None], starts, axis=0)
    scale = np.maximum(np.abs(highest), np.abs(lowest))
    return ((seen >= 2) & (highest - lowest <= 1e-5 * scale)).any(axis=0)


def lone_states(data, ranks):
    """The discrete columns with a state observed in a single row.

    In such a state every continuous column has one value, and its regression there (an
    intercept, and a slope per continuous parent) has no residual degree of freedom: the
    residual-variance CLG scores (``bic-cg``, ``aic-cg``, ``loglik-cg``; bnlearn's too) give
    every family in which the discrete column is a parent of a continuous one ``-inf``.
    :func:`flat_states` leaves such a state out (one row is too few rows, not a point
    mass); a state of two rows or more with no spread is its. Rows are counted as there
    (:func:`~skbn._counting.row_copies`: a row of integer weight 2 is two rows).

    With missing cells a score reads EM's completions (``missing="em"``, the one mode of a
    search that scores with missing cells), and a state counts only when no completion can
    add spread to it. A completed cell in the state's one row, in any column, makes the
    family of a continuous child given the column score finite (EM's expected rows add
    spread to the state), and hill climbing then learns ``g -> y``: such a state is not
    named. A row that misses the discrete column is completed into every state, the lone
    one too, with its posterior share of weight: it adds spread there to a continuous
    column ``y`` only when its own ``y`` is missing or differs from the lone row's. So a
    state is named, for the continuous columns to which every row missing the column
    holds the lone row's value (R's ``survival::lung``: the one row missing ``ph.ecog``
    has the Karnofsky scores, ``ph.karno`` 60 and ``pat.karno`` 70, of the one row with
    ``ph.ecog`` 3, so both families stay ``-inf`` on EM's completions, and hill climbing
    and GES by EM leave ``ph.ecog`` unlinked to them; without that row they learn
    ``ph.ecog -> ph.karno`` and ``ph.ecog -> pat.karno``), for every continuous column when
    no row misses it; a missing cell in another row only leaves the state's one row, and
    the edge lost, as on complete data.

    Returns
    -------
    list of (discrete_position, state_codes, children)
        In name order of the discrete column; ``children``: the continuous columns (data
        positions, in name order) to which no completion adds spread in those states, or
        None for every one (no row misses the discrete column).
    """
    copies = row_copies(data.weights)
    complete = complete_row_mask(data)  # (None: no missing cell)
    if complete is not None and complete.all():
        complete = None
    continuous = [j for j in np.argsort(ranks, kind="stable").tolist() if data.cardinalities[j] == 0]
    found = []
    for d in np.argsort(ranks, kind="stable").tolist():
        if data.cardinalities[d] == 0:
            continue
        codes_d, r = data.codes[:, d], int(data.cardinalities[d])
        observed = codes_d >= 0
        n_rows = count_cells(codes_d[observed], r, None if copies is None else copies[observed])
        lone = n_rows == 1
        if complete is not None and lone.any():  # (the state's one row has a missing cell)
            lone &= count_cells(codes_d[~complete & observed], r) == 0
        codes, children = np.flatnonzero(lone).tolist(), None
        if codes and not observed.all():
            # (the rows missing d are completed into every state: a column keeps no spread in a
            # lone state only where each of them holds the lone row's value)
            completed = data.values[np.ix_(~observed, continuous)]
            held = np.zeros(len(continuous), dtype=bool)
            for code in list(codes):
                row = int(np.flatnonzero(codes_d == code)[0])
                same = (completed == data.values[row, continuous]).all(axis=0)
                if same.any():
                    held |= same
                else:
                    codes.remove(code)
            children = tuple(j for j, kept in zip(continuous, held.tolist()) if kept)
        if codes:
            found.append((d, codes, children))
    return found


_LONE_MISSING_RULE = (
    " (with missing cells such a state is named only when its row has none, and for the continuous "
    "columns to which no completion adds spread there: missing='em' completes a missing cell of its "
    "row with spread, and a row missing the discrete column into every state, and the family then "
    "scores finite)")


def lone_states_message(learner, lone, names, states, reader, n_rows=None):
    """The warning of :func:`check_determined_columns` about ``lone`` (:func:`lone_states`);
    ``n_rows``: with missing cells, the rows read (counted as there), which the message names."""
    def state_list(d, codes):
        shown = " or ".join(repr(states[d][c]) for c in codes[:_FLAT_STATES_SHOWN])
        more = len(codes) - _FLAT_STATES_SHOWN
        return shown + (f" (and {more} more states)" if more > 0 else "")

    def column_list(children):
        shown = ", ".join(repr(names[j]) for j in children[:_FLAT_STATES_SHOWN])
        more = len(children) - _FLAT_STATES_SHOWN
        return shown + (f" and {more} more" if more > 0 else "")

    def held(d, children):  # (with missing cells of d: the columns no completion adds spread to)
        if children is None:
            return ""
        return (f"; the rows that miss {names[d]!r} hold its values of {column_list(children)}, so no "
                "completion adds spread to them there")

    of = "" if n_rows is None else f" of {n_rows:g} (a row with no missing cell"
    items = "; ".join(f"{names[d]!r} is {state_list(d, codes)} in a single row"
                      f"{of}{held(d, children)}{')' if of else ''}"
                      for d, codes, children in lone[:_FLAT_PAIRS_SHOWN])
    if len(lone) > _FLAT_PAIRS_SHOWN:
        items += f"; and {len(lone) - _FLAT_PAIRS_SHOWN} more such columns"
    g = repr(names[lone[0][0]]) if len(lone) == 1 else "such a column"
    declare = (f"column_types={{{names[lone[0][0]]!r}: 'continuous'}}" if len(lone) == 1
               else "column_types={name: 'continuous'}")
    # (a column with missing cells keeps only the continuous children named with it from
    # its completions: said of every column named, whichever comes first)
    restricted = any(children is not None for _, _, children in lone)
    if not restricted:
        child = "a continuous column"
    elif len(lone) == 1:
        child = " or ".join(repr(names[j]) for j in lone[0][2])
    else:
        child = "a continuous column (for a column with missing cells, one of the columns named with it)"
    harm = ("such edges get posterior 0" if reader == "posterior" else
            f"{g} never gets a continuous child" if not restricted else "such an edge is never learned")
    return (
        f"{learner}: {items}: a state of a discrete column holds a single row. A "
        f"conditional-Gaussian score gives every family in which {g} is a parent of {child} "
        "-inf (one row leaves the regression there no residual degree of "
        f"freedom; bnlearn's rule), so {harm}, however strong the dependence; its edges to "
        f"discrete columns are unaffected{'' if n_rows is None else _LONE_MISSING_RULE}. To learn "
        "such a dependence, merge the rare state into another one (for an ordinal code, its "
        "neighbour) or drop its row, or declare a column of "
        f"whole-number measurements continuous ({declare}); the conditional-Gaussian test of PC "
        "leaves such a state out."
    )


def within_states(data, counter, ranks, told=(), flat=(), reach=None):
    r"""The continuous columns that are exact linear functions of other continuous columns
    within some configurations of some discrete columns, though not over all rows.

    ``c = a + b + 3 [d = v]`` (an intercept per state of ``d``), ``c = 2a`` where ``d`` is
    ``u`` and ``c = -b`` where it is ``v`` (a slope per state), or ``c = a + b`` where ``d``
    is ``v`` and noise elsewhere (one state): the pooled column ``c - a - b`` has spread, so
    the one-group check (:func:`skbn._counting.linear_dependencies` on
    :meth:`~skbn._counting.MomentCounter.moments_given` no discrete column) misses it. In
    such a configuration the family of ``c`` given ``a``, ``b`` and those discrete columns
    has residual variance 0: its Gaussian log-likelihood
    :math:`-\frac{N_g}{2}\log(2\pi\hat\sigma_g^2) - \dots` has no finite value (no density
    with :math:`\sigma_g = 0`), and the CLG scores give the family ``-inf`` whether the
    configuration is one of several or every one (bnlearn's ``loglik-cg`` and ``bic-cg``
    too); the CLG test leaves the configuration out of its statistic.

    A configuration is *usable* when it holds more rows than ``k`` (the continuous columns
    looked at): its centred rows span at most ``N_g - 1`` dimensions, so on ``N_g <= k``
    rows some column is a linear function of the others by the rows alone, which says
    nothing about the data. A column is reported for a set of discrete columns when it is
    determined, by the rule of :func:`~skbn._counting.linear_dependencies` (residual
    variance at most :data:`~skbn._counting._moments.SINGULAR_RCOND` of the column's own,
    the columns in name order), in one usable configuration at least, with the union of its
    predictors over them (the slopes may differ from one configuration to the next) and
    those configurations (None when they are all the usable ones). It is reported once, for
    the first set that determines it: sets are taken by size, then in name order, and a
    column determined in a configuration of a set is determined in every usable
    configuration of a larger set inside it. The columns of ``told`` (named by the one-group
    check: a dependence that involves one of them is read off the others, which span the
    same space) are left out. A column with no predictor (no spread there: a function of
    the discrete columns alone) is left to :func:`flat_states` (``flat``: the columns it
    names) for one discrete column, whose states of two rows or more it names; for two or
    more it is reported as having no spread there.

    *The sets examined.* Every set of discrete columns that a family of a continuous column
    can hold in the search's ``reach`` (all of them allowed parents of one continuous
    column, and no more of them than its bound on parents: ``max_indegree``, background
    knowledge), and that has a usable configuration among the rows not cleared below (a
    set without one has no larger set with one: its configurations only split); at most
    :data:`_WITHIN_SETS` of them, by size and then in name order (larger sets past that
    are not examined). Families a search cannot reach are never scored, and their
    configurations are not looked at.

    *Cost.* A column determined in a configuration is determined on any rows inside it. The
    configurations of all the discrete columns jointly partition the rows and lie inside
    a configuration of every set; one of them whose first rows (``4 (k + 1)``, or the rows
    it holds, when more than ``k``) have no determined column by a pivot bound of
    :data:`_SCREEN_RCOND` (far above the rule: the smallest eigenvalue of their unit-diagonal
    scatter, which no Cholesky pivot is below) clears every configuration that holds it,
    for every set. When every row is in such a configuration (the common case: a few
    discrete columns, no determined column) nothing else is done: one split of the rows
    and the moments of a few rows per configuration. Otherwise only the configurations of
    the sets above that hold no cleared row are screened the same way, and only those
    that pass are computed on all their rows and decided by the rule. Summarised rows
    (chunked ``X``) are cleared by their own scatter (each is a configuration of all the
    discrete columns), and the configurations that hold no cleared one are decided on
    their pooled moments. Discrete columns with missing cells are skipped (data with missing
    cells are read by :func:`observed_within_states`).

    Parameters
    ----------
    data : EncodedData
        The rows a search reads, with continuous and discrete columns.
    counter : MomentCounter
        Its moment counter.
    ranks : ndarray
        The columns' ranks in name order.
    told : collection of int
        Data positions of the continuous columns the one-group check named (left out).
    flat : collection of int
        Data positions of the continuous columns :func:`flat_states` names.
    reach : callable or None, default=None
        Returns ``(allowed, required, bound)``, the families the search can give a node
        (:func:`check_determined_columns`), called only when some rows are not cleared.
        None: any family.

    Returns
    -------
    list of (int, tuple of int, tuple of int, tuple of tuple of int or None)
        ``(column, predictors, discrete, configurations)`` (data positions, the predictors
        and the discrete columns in name order; the state codes of the discrete columns in
        each configuration where the column is determined, or None for every usable one),
        in name order of the column.
    """
    told = {int(j) for j in told}
    looked = [t for t in np.argsort(ranks[counter.continuous], kind="stable").tolist()
              if int(counter.continuous[t]) not in told]  # (moment columns, in name order)
    k = len(looked)
    signed = data.codes.dtype.kind == "i"
    discrete = [d for d in np.argsort(ranks, kind="stable").tolist() if data.cardinalities[d] > 0
                and not (signed and (data.codes[:, d] < 0).any())]
    if k < 2 or not discrete:  # (one column: determined by no other, a point mass, flat_states' report)
        return []
    units = _Units(data, counter, looked)
    fine, n_fine = _configurations(data.codes, data.cardinalities, discrete)
    cleared = units.cleared(fine, n_fine)
    left = np.flatnonzero(~cleared[fine])  # (the rows in no cleared configuration of every discrete column)
    if units.rows(fine[left], n_fine, left).sum() <= k:
        return []  # (no configuration of any set has more than k of them)
    first = np.zeros(n_fine, dtype=np.intp)
    first[fine[::-1]] = np.arange(len(fine))[::-1]  # (the first row of each configuration)
    held = first[np.flatnonzero(cleared)]  # (a row of each cleared configuration)
    both = np.concatenate([left, held])  # (the rows a set's configurations are read on)
    holdable = _holdable(reach() if reach is not None else None, discrete, counter.continuous[looked])
    found, seen, tried = [], set(), 0
    frontier = [()]
    while frontier and tried < _WITHIN_SETS:
        following = []
        for base in frontier:
            start = discrete.index(base[-1]) + 1 if base else 0
            for d in discrete[start:]:
                given_states = (*base, d)
                if tried >= _WITHIN_SETS or not holdable(given_states):
                    continue
                tried += 1
                ids, n_ids = _configurations(data.codes[both], data.cardinalities, given_states)
                open_rows = units.rows(ids[:len(left)], n_ids, left) > k  # (usable on rows not cleared)
                if not open_rows.any():
                    continue  # (nor has any larger set)
                following.append(given_states)
                candidates = open_rows & (np.bincount(ids[len(left):], minlength=n_ids) == 0)
                if not candidates.any():  # (every one holds a cleared configuration)
                    continue
                determined = units.determined(left, ids[:len(left)], np.flatnonzero(candidates), k)
                columns = {}
                for g, within in determined.items():
                    for t, given in within.items():
                        if looked[t] not in seen:
                            columns.setdefault(t, [set(), []])
                            columns[t][0].update(given)
                            columns[t][1].append(g)
                n_usable = None  # (the set's usable configurations over all rows, counted once)
                for t, (given, where) in columns.items():
                    column = int(counter.continuous[looked[t]])
                    if not given and (len(given_states) == 1 or column in flat):
                        continue  # (a point mass: flat_states names it)
                    seen.add(looked[t])
                    if n_usable is None:
                        every, _ = _configurations(data.codes, data.cardinalities, given_states)
                        n_usable = int(np.count_nonzero(units.rows(every, int(every.max()) + 1) > k))
                    rows = [left[int(np.argmax(ids[:len(left)] == g))] for g in sorted(where)]
                    configurations = tuple(tuple(int(c) for c in data.codes[i, list(given_states)])
                                           for i in rows)
                    if len(where) == n_usable:  # (determined in every usable configuration)
                        configurations = None
                    found.append((column, tuple(sorted((int(counter.continuous[looked[i]]) for i in given),
                                                       key=lambda i: ranks[i])),
                                  given_states, configurations))
        frontier = following
    found.sort(key=lambda item: ranks[item[0]])
    return found


def observed_within_states(data, ranks, told=(), flat=(), reach=None):
    """:func:`within_states` on data with missing cells: each relation read on the rows that
    observe its own columns (the determined column, its predictors and the discrete columns),
    by the same rule there.

    A test of ``missing="available_case"`` reads exactly those rows, where the relation holds,
    and leaves its configurations out of its statistic as on complete data (PC returned the
    empty graph on ``c = a + b + 3 [d = v]`` with one missing cell anywhere). Under
    ``missing="em"`` structural EM starts from the search on the complete rows, which never
    learns the family, and completes the other rows from a model fitted where the relation
    holds: a few completed cells of the relation's columns leave the family ``-inf`` or too
    little spread to learn it (hill climbing and GES lost it with one missing cell in ``a``,
    ``b``, ``c`` or ``d``), more of them can give it spread and the search learns it (five
    cells there). So a relation is named whatever its missing cells, as the one-group ones
    are (:func:`_observed_row_dependencies`), never refused.

    Candidates come from a nested chain of column sets, as there: every column (less those of
    ``told``), then without the column with the most missing cells (ties in name order), and so
    on while some column of the set has a missing cell and it holds two continuous columns and
    a discrete one; a set is read (:func:`within_states` on its columns and the rows that
    observe them all) only when it gains rows. A column found there is then decided on the rows
    that observe its relation's columns (:func:`within_states` on those columns alone, whose
    usable configurations hold more rows than the relation has continuous columns). A relation
    among columns that no set of the chain observes together on enough rows is not looked for
    (a search over subsets of columns). A set in which :func:`within_states` could name no new
    column (every usable configuration cleared by :class:`_ChainScreen`, on it or on an earlier
    set) is not read: each configuration is screened once, not once per set.

    Parameters
    ----------
    data : EncodedData
        The rows a search reads, with missing cells (``-1`` codes).
    ranks, told, flat, reach
        As for :func:`within_states` (data positions; ``reach`` called at most once).

    Returns
    -------
    list of (int, tuple of int, tuple of int, tuple of tuple of int or None, int or None)
        As :func:`within_states`, with the number of rows that observe the relation's columns
        (every row counted once, whatever its weight), None when none of them has a missing
        cell, in name order of the column.
    """
    told = {int(j) for j in told}
    observed = data.codes >= 0
    columns = [j for j in np.argsort(ranks, kind="stable").tolist() if j not in told]
    parsed = []

    def reached():  # (the search's reach, parsed once, when first read)
        if not parsed:
            parsed.append(reach() if reach is not None else None)
        return parsed[0]

    found, last, screen = {}, -1, _ChainScreen(data)
    for kept, rows in _missing_chain(observed, columns, ranks):
        n_continuous = sum(1 for j in kept if data.cardinalities[j] == 0)
        if n_continuous < 2 or n_continuous == len(kept):
            break
        n_rows = int(np.count_nonzero(rows))
        gained, last = n_rows > last, max(last, n_rows)  # (a set is read only when it gains rows)
        if gained and not screen.cleared(kept, rows, reached, found, flat):
            for column, given, discrete, _ in _within_part(data, kept, rows, flat, reached):
                if column in found:
                    continue
                involved = sorted({column, *given, *discrete}, key=lambda j: ranks[j])
                own = observed[:, involved].all(axis=1)
                for item in _within_part(data, involved, own, flat, reached):
                    if item[0] == column:
                        seen = None if own.all() else int(np.count_nonzero(own))
                        found[column] = (*item, seen)
    return [found[j] for j in sorted(found, key=lambda j: ranks[j])]


class _ChainScreen:
    """Which sets of the chain of :func:`observed_within_states` cannot name a new column,
    so that :func:`within_states` need not read them.

    :func:`within_states` names a column only in a usable configuration (more rows than the
    continuous columns looked at) of a set of discrete columns it examines (a set a family
    can hold, reached by size and name order from sets with a usable configuration, at most
    :data:`_WITHIN_SETS` of them), and the columns it can name there are those its rule
    (:func:`~skbn._counting.linear_dependencies`, columns in name order) finds determined on
    the configuration's rows; like its own screens, this one reads a column determined on a
    configuration's rows as determined on any rows inside it. A configuration is *cleared*
    when its first ``4 (k + 1)`` rows pass the screen of :func:`_singular` (no determined
    column), or else when every column the rule finds determined on them is one the chain
    has named already (it is not named again) or has no predictor where
    :func:`within_states` leaves such a column to :func:`flat_states` (one discrete column,
    or a column ``flat`` names), and the other columns pass the screen (so that rounding
    on rows barely more than the columns hides no relation). A set of the chain every such
    configuration of which is cleared, here or on an earlier set (or decided by the rule on
    all its rows, for this set only), is skipped: :func:`within_states` would name no new
    column there. Any other set is read by :func:`within_states` as it is; the sets are
    screened one size at a time and the first configuration not cleared ends the screen.

    A verdict carries down the chain, so each configuration is screened once (until it
    fails): a later set has a subset of the columns, and holds every row of an earlier one,
    so a configuration keeps the rows it was screened on. The unit-diagonal scatter of
    fewer columns on those rows is a principal submatrix of the one screened, whose
    smallest eigenvalue is at least that of the whole (Cauchy's interlacing), its spreads
    are among those screened, and a column's residual given fewer columns before it is no
    smaller: the rule finds no column determined there that it did not find before.
    Configurations are numbered over every row by :func:`_configurations` (the rows of a set
    observe its discrete columns), one row of each cleared one kept.

    On 5,000 rows of 60 independent continuous and 8 three-state discrete columns with 5%
    of the cells missing, 66 sets of the chain are read, each by :func:`within_states`
    before (about 0.45 s in all), while this screen skips all 66 (about 0.06 s): each
    configuration's moments are computed once, for the set on which it first counts.
    """

    def __init__(self, data):
        self.data = data
        self.ids = {}  # discrete columns -> (the configuration of every row, their number)
        self.held = {}  # discrete columns -> [a row of each configuration cleared]

    def _ids(self, discrete):
        if discrete not in self.ids:
            self.ids[discrete] = _configurations(self.data.codes, self.data.cardinalities, discrete)
        return self.ids[discrete]

    def cleared(self, kept, rows, reach, named, flat):
        """Whether every usable configuration :func:`within_states` would examine on the
        columns ``kept`` (data positions, in name order) and the ``rows`` (a bool mask) that
        observe them all is cleared; screens those not cleared yet (``reach``: a callable,
        the search's reach in data positions, or None; ``named``: the columns the chain has
        named, ``flat``: those :func:`flat_states` names, data positions)."""
        data = self.data
        continuous = [j for j in kept if data.cardinalities[j] == 0]
        discrete = [j for j in kept if data.cardinalities[j] > 0]
        k, index = len(continuous), np.flatnonzero(rows)
        holdable = _holdable(reach(), discrete, continuous)
        # (with no configuration of every discrete column that counts, within_states clears no
        # rows before its sets and reaches them in this order: the same first _WITHIN_SETS)
        fine, n_fine = self._ids(tuple(discrete))
        same_sets = not (np.bincount(fine[index], minlength=n_fine) > k).any()
        frontier, tried = [()], 0
        while frontier:  # (the sets of one size at a time; the first that fails ends the screen)
            following, opened = [], []
            for base in frontier:
                start = discrete.index(base[-1]) + 1 if base else 0
                for d in discrete[start:]:
                    given_states = (*base, d)
                    if tried >= _WITHIN_SETS and same_sets:
                        continue  # (a set within_states does not examine)
                    if not holdable(given_states):
                        continue
                    if tried >= _WITHIN_SETS:  # (it may examine other sets: read them as they are)
                        return False
                    tried += 1
                    every, n_ids = self._ids(given_states)
                    ids = every[index]
                    counts = np.bincount(ids, minlength=n_ids)
                    usable = counts > k
                    if not usable.any():
                        continue  # (nor has any larger set)
                    following.append(given_states)
                    held = self.held.get(given_states)
                    if held:
                        usable[every[held]] = False
                    if usable.any():
                        groups = np.flatnonzero(usable)
                        opened.append((given_states, ids, groups, counts[groups]))
            if opened and not self._screen(opened, index, continuous, named, flat):
                return False
            frontier = following
        return True

    def _screen(self, opened, index, continuous, named, flat):
        """Screens the configurations ``opened`` (``[(discrete columns, their configuration
        of every row of ``index``, the configurations to screen, their rows)]``) on their
        first ``4 (k + 1)`` rows, keeps a row of each cleared one, and returns whether all
        are clear on this set.

        One that fails the screen is read by the rule on those rows: it is cleared when
        every column the rule names is one :func:`within_states` would not name anew there
        and the other columns pass the screen (far from any relation: on rows barely more
        than the columns rounding can hide one, which more rows reveal); when they do not,
        it is clear on this set only if those are all its rows (the rows
        :func:`within_states` reads there), and screened again on the next."""
        data, k = self.data, len(continuous)
        units, labels, n_groups = [], [], 0
        for _, ids, groups, _ in opened:
            chosen, label = _first_units(ids, groups, 4 * (k + 1))
            units.append(index[chosen])
            labels.append(label + n_groups)
            n_groups += len(groups)
        units, labels = np.concatenate(units), np.concatenate(labels)
        weights = None if data.weights is None else data.weights[units]
        stats = moments(data.values[np.ix_(units, continuous)], weights, labels, n_groups)
        cleared = ~_singular(stats)
        clear = cleared.copy()  # (on this set)
        first = np.zeros(n_groups, dtype=np.intp)
        first[labels[::-1]] = units[::-1]  # (a row of each configuration screened)
        offset = 0
        for given_states, _, groups, counts in opened:
            for i in np.flatnonzero(~cleared[offset:offset + len(groups)]).tolist():  # (the rule decides)
                g, single = offset + i, len(given_states) == 1
                within = linear_dependencies(stats.scatter[g], limit=k)
                if not all(continuous[t] in named or (not given and (single or continuous[t] in flat))
                           for t, given in within):
                    continue
                rest = np.setdiff1d(np.arange(k), [t for t, _ in within])
                near = len(rest) and _singular(Moments(stats.weight[[g]], stats.mean[[g]][:, rest],
                                                       stats.scatter[[g]][:, rest][:, :, rest]))[0]
                cleared[g] = not near
                clear[g] = cleared[g] or counts[i] <= 4 * (k + 1)
            rows = first[offset:offset + len(groups)][cleared[offset:offset + len(groups)]]
            self.held.setdefault(given_states, []).extend(rows.tolist())
            offset += len(groups)
        return bool(clear.all())


def _observed_part(data, columns, rows):
    """The ``columns`` of ``data`` (positions) on the ``rows`` (a bool mask) that observe
    them all, as data of their own (codes unsigned; no target, no experimental rows, no row
    groups: every kept row read for every column)."""
    plain = replace(data, target=None, target_from_y=False, intervened=None, groups=None)
    return kept_rows(permute_columns(plain, columns), rows)


def _within_part(data, columns, rows, flat, reach):
    """:func:`within_states` on the ``columns`` of ``data`` (positions, in name order) and the
    ``rows`` (a bool mask) that observe them all, in data positions; ``flat`` and ``reach``
    (a callable) in data positions too."""
    columns = np.asarray(columns, dtype=np.intp)
    cardinalities = data.cardinalities[columns]
    if int(np.count_nonzero(rows)) < 2 or not (cardinalities == 0).any():
        return []
    part = _observed_part(data, columns, rows)
    position = {int(j): i for i, j in enumerate(columns)}

    def part_reach():  # (the search's reach over these columns)
        searched = reach()
        if searched is None:
            return None
        allowed, required, bound = searched
        inside = np.ix_(columns, columns)
        return allowed[inside], required[inside], np.asarray(bound)[columns]

    within = within_states(part, MomentCounter(part), name_ranks(part.names),
                           flat={position[j] for j in flat if j in position}, reach=part_reach)
    return [(int(columns[j]), tuple(int(columns[i]) for i in given), tuple(int(columns[d]) for d in discrete),
             where) for j, given, discrete, where in within]


def _configurations(codes, cardinalities, columns):
    """Every row's configuration of the discrete ``columns`` and their number: the
    mixed-radix id over the declared states (first column slowest) while it stays below
    :data:`_DECLARED_IDS`, else renumbered over the observed ones (then in the order of the
    mixed-radix ids)."""
    ids, n_ids = np.zeros(codes.shape[0], dtype=np.int64), 1
    for column in columns:
        r = int(cardinalities[column])
        if n_ids * r > _DECLARED_IDS:
            observed, ids = np.unique(ids, return_inverse=True)
            ids, n_ids = ids.ravel().astype(np.int64), len(observed)
        ids, n_ids = ids * r + codes[:, column], n_ids * r
    return ids, n_ids


def _holdable(reach, discrete, children):
    """Whether a set of ``discrete`` columns can be the discrete parents of a family the
    search can reach of one of the continuous ``children``: every one an allowed parent of
    it and no more of them than its bound (:func:`within_states`)."""
    if reach is None:
        return lambda columns: True
    allowed, _, bound = reach
    rows = {d: i for i, d in enumerate(discrete)}
    sub = np.asarray(allowed)[np.ix_(discrete, children)]
    limits = np.asarray(bound)[children]
    return lambda columns: bool((sub[[rows[d] for d in columns]].all(axis=0)
                                 & (len(columns) <= limits)).any())


class _Units:
    """The rows :func:`within_states` reads (or, for chunked ``X``, the summarised rows, each
    the rows of one configuration of every discrete column, with their moments), and its
    screens and rule on the continuous columns ``looked`` (moment positions, in name
    order)."""

    def __init__(self, data, counter, looked):
        self.summarised = data.row_scatter is not None
        self.values = counter.values[:, looked]
        self.weights = data.weights
        self.looked = looked
        self.k = len(looked)
        # rows per unit: in memory every row once, whatever its weight (as the one-group rule
        # counts them); summarised rows stand for their weight in rows
        self.size = (np.asarray(data.weights if data.weights is not None else np.ones(len(self.values)),
                                dtype=np.float64) if self.summarised else None)
        if self.summarised:
            self.scatter = data.row_scatter[:, looked][:, :, looked]

    def rows(self, ids, n_ids, mask=None):
        """The rows of every configuration (of the units ``mask`` selects, ``ids`` theirs)."""
        if self.size is None:
            return np.bincount(ids, minlength=n_ids)
        size = self.size if mask is None else self.size[mask]
        return np.bincount(ids, weights=size, minlength=n_ids)

    def _sample(self, ids, groups, every=False):
        """The units of the configurations ``groups`` of ``ids``, the first ``4 (k + 1)`` of
        each (all of them with ``every``): ``(units, labels)``, labels the index in ``groups``."""
        return _first_units(ids, groups, None if every else 4 * (self.k + 1))

    def _moments(self, units, labels, n_labels):
        if self.summarised:
            stats = Moments(self.size[units], self.values[units], self.scatter[units])
            return stats.pooled(labels, n_labels)
        return moments(self.values[units], None if self.weights is None else self.weights[units],
                       labels, n_labels)

    def cleared(self, ids, n_ids):
        """Which configurations ``ids`` (of every discrete column) hold no determined column:
        more than ``k`` rows, and no pivot below :data:`_SCREEN_RCOND` on rows inside them
        (those among the first rows of the data, when more than ``k``, else their first
        rows; summarised: their own moments)."""
        usable = self.rows(ids, n_ids) > self.k
        cleared = np.zeros(n_ids, dtype=bool)
        if not self.summarised:  # (a prefix of the rows first: no sort of every row)
            head = min(len(ids), 8 * (self.k + 1) * int(np.count_nonzero(usable)))
            inside = usable & (np.bincount(ids[:head], minlength=n_ids) > self.k)
            rows = np.flatnonzero(inside[ids[:head]])
            if len(rows):
                stats = moments(self.values[rows], None if self.weights is None else self.weights[rows],
                                ids[rows], n_ids)
                cleared[inside] = ~_singular(stats)[inside]
        groups = np.flatnonzero(usable & ~cleared)
        if len(groups):
            units, labels = self._sample(ids, groups, every=self.summarised)
            cleared[groups] = ~_singular(self._moments(units, labels, len(groups)))
        return cleared

    def determined(self, rows, ids, groups, k):
        """``{configuration: {column: predictors}}`` (moment positions in ``looked``) for the
        configurations ``groups`` of ``ids`` (those of the units ``rows``, which hold every
        unit of these configurations) where some column is determined by the rule of
        :func:`~skbn._counting.linear_dependencies`, screened first on their first rows."""
        if not self.summarised:
            units, labels = self._sample(ids, groups)
            groups = groups[_singular(self._moments(rows[units], labels, len(groups)))]
            if not len(groups):
                return {}
        units, labels = self._sample(ids, groups, every=True)
        stats = self._moments(rows[units], labels, len(groups))
        bounds = np.searchsorted(labels, np.arange(len(groups) + 1))  # (units come grouped by label)
        found = {}
        for i, g in enumerate(groups.tolist()):
            within = dict(linear_dependencies(stats.scatter[i], limit=k))
            if within and not (not self.summarised and _forced_by_rows(  # (a repeated row is one point)
                    _points(self.values[rows[units[bounds[i]:bounds[i + 1]]]], k + 1), k)):
                found[g] = within
        return found


def _first_units(ids, groups, limit=None):
    """The units (positions in ``ids``) of the configurations ``groups`` of ``ids``, the first
    ``limit`` of each (all of them with None), grouped: ``(units, labels)``, labels the index
    in ``groups``."""
    chosen = np.zeros(int(ids.max()) + 1 if len(ids) else 0, dtype=np.intp) - 1
    chosen[groups] = np.arange(len(groups))
    labels = chosen[ids]
    units = np.flatnonzero(labels >= 0)
    units = units[np.argsort(labels[units], kind="stable")]
    labels = labels[units]
    if limit is not None:
        starts = np.flatnonzero(np.r_[True, labels[1:] != labels[:-1]])
        rank = np.arange(len(units)) - np.repeat(starts, np.diff(np.r_[starts, len(units)]))
        keep = rank < limit
        units, labels = units[keep], labels[keep]
    return units, labels


def _singular(stats):
    """Per group of ``stats``: whether a column may be a linear function of the others (or
    have no spread), far above the rule's bound: the smallest eigenvalue of the
    unit-diagonal scatter at most :data:`_SCREEN_RCOND` (no Cholesky pivot is below it), or a
    spread at most ``N_g`` times the square of :data:`SCREEN_RESOLUTION` times the mean (far
    above the moments' own rule). The common case, every group far from a relation, is read
    off one batched Cholesky factorisation of the scatters less :data:`_SCREEN_RCOND` times
    the identity, which exists exactly when every smallest eigenvalue is above it (a
    fraction of the cost of the eigenvalues, computed only when it fails)."""
    diagonal = np.diagonal(stats.scatter, axis1=1, axis2=2)
    flat = (diagonal <= stats.weight[:, None] * (SCREEN_RESOLUTION * stats.mean) ** 2).any(axis=1)
    _, scaled = stats.unit
    try:
        np.linalg.cholesky(scaled - _SCREEN_RCOND * np.eye(scaled.shape[-1]))
    except np.linalg.LinAlgError:
        return flat | (np.linalg.eigvalsh(scaled)[:, 0] <= _SCREEN_RCOND)
    return flat


def _within(names, states, column, given, discrete, configurations, rows=None):
    """``'c' (a linear function of 'a', 'b' within each state of 'd')``, or ``... where 'd'
    is 'v')`` when only some usable configurations (``configurations``, state codes)
    determine it, for a message; ``states``: the state names of every column; ``rows``: with
    missing cells, the rows that observe the relation's columns (:func:`observed_within_states`)."""
    seen = "" if rows is None else f" on the {rows} rows where these columns are observed"
    if configurations is None:
        where = (f"each state of {names[discrete[0]]!r}" if len(discrete) == 1 else
                 f"each configuration of {', '.join(repr(names[d]) for d in discrete)}")
        return f"{_dependence(names, column, given)} within {where}{seen})"
    shown = [[states[d][c] for d, c in zip(discrete, codes)] for codes in configurations[:_FLAT_STATES_SHOWN]]
    if len(discrete) == 1:
        where = f"{names[discrete[0]]!r} is " + " or ".join(repr(labels[0]) for labels in shown)
    else:
        where = (f"({', '.join(repr(names[d]) for d in discrete)}) is "
                 + " or ".join(f"({', '.join(repr(label) for label in labels)})" for labels in shown))
    n_more = len(configurations) - _FLAT_STATES_SHOWN
    more = f" (and {n_more} more)" if n_more > 0 else ""
    return f"{_dependence(names, column, given)} where {where}{more}{seen})"


def warn_flat_tested_pairs(data, states, learner, pairs, consequence):
    """Warn (:class:`~skbn.exceptions.DeterminedColumnsWarning`) about the continuous columns
    with no spread in a state of a discrete column (:func:`flat_states`), for the
    ``(continuous, discrete)`` position pairs ``pairs`` of ``data`` only: the pairs a
    conditional-Gaussian test *tests* against each other, whose dependence it cannot see
    when it lies in such a state (it leaves that state's rows out of its regressions of the
    continuous one). A learner's ``fit`` warns about every pair
    (:func:`check_determined_columns`); one test (:func:`skbn.checking.ci_test`) or
    PC-simple's tests of the target (:class:`skbn.PCSelect`) read fewer. ``consequence``: what
    that does to the caller's answer, a template with ``{y}`` (the continuous column) and
    ``{g}`` (the discrete one). Its callers pass the rows their tests read, with no
    missing cell: :func:`skbn.checking.ci_test` (and ``skbn citest``) accepts missing cells
    only by ``missing="complete_case"``, which keeps the rows observing every tested column
    before this check, and :class:`skbn.PCSelect` refuses them (data with missing cells in
    continuous columns have no moments and would not be checked here)."""
    pairs = set(pairs)
    if not pairs:
        return
    try:
        counter = MomentCounter.of(data)
    except ValueError:  # (missing cells: no moments)
        return
    flat = [item for item in flat_states(data, counter, name_ranks(data.names)) if item[:2] in pairs]
    if flat:
        message = flat_states_message(learner, flat, data.names, states, "test", consequence=consequence)
        warn_user(message, DeterminedColumnsWarning)


def flat_states_message(learner, flat, names, states, reader, consequence=None):
    """The warning of :func:`check_determined_columns` about ``flat`` (:func:`flat_states`);
    ``consequence`` replaces its sentence on what the search does with such a column (a template
    with ``{y}``, the continuous column, and ``{g}``, the discrete one)."""
    def state_list(d, codes):
        shown = " or ".join(repr(states[d][c]) for c in codes[:_FLAT_STATES_SHOWN])
        more = len(codes) - _FLAT_STATES_SHOWN
        return shown + (f" (and {more} more states)" if more > 0 else "")

    def seen(codes, rows):  # (with missing cells: the rows of those states that observe both)
        if not rows:
            return ""
        where = "that state" if len(codes) == 1 else "those states"
        return f" (on the {rows[0]} rows of {where} where both are observed)"

    items = "; ".join(f"{names[j]!r} where {names[d]!r} is {state_list(d, codes)}{seen(codes, rows)}"
                      for j, d, codes, *rows in flat[:_FLAT_PAIRS_SHOWN])
    if len(flat) > _FLAT_PAIRS_SHOWN:
        items += f"; and {len(flat) - _FLAT_PAIRS_SHOWN} more such pairs of columns"
    y, g = names[flat[0][0]], names[flat[0][1]]
    if consequence is not None:
        effect = consequence.format(y=repr(y), g=repr(g))
    elif reader in ("score", "posterior"):
        harm = "gets posterior 0" if reader == "posterior" else "is never learned"
        effect = (f"A conditional-Gaussian score gives every family in which {g!r} is a parent of "
                  f"{y!r} -inf (the regression of {y!r} has no variance in that state; bnlearn's "
                  f"rule), so such an edge {harm}, however strong the dependence")
    else:
        effect = (f"The conditional-Gaussian test leaves the rows of that state out of its "
                  f"regressions of {y!r} (it has no variance there), so it cannot see the "
                  f"difference that state makes: the edge between {g!r} and {y!r} can be lost, "
                  "however strong the dependence")
    subject = "these continuous columns have" if len(flat) > 1 else "a continuous column has"
    return (
        f"{learner}: {items}: {subject} no spread (a single repeated value, in two or more rows) "
        f"within a state of a discrete column. {effect}. {_POINT_MASS_ADVICE}"
    )


# what to do with a continuous column that has no spread where discrete columns take some
# states (:func:`flat_states` for one discrete column, :func:`within_states` for several)
_POINT_MASS_ADVICE = (
    "A point mass, such as a zero-inflated measurement or a dose fixed at 0 in a placebo group, is "
    "not conditional-Gaussian. To learn such a dependence, make the column discrete (bin its values "
    "with the mass as a state of its own, or declare a column with few values discrete with "
    "column_types=; a discrete column may have discrete parents, though no continuous ones), or add "
    "to its repeated values noise far smaller than the column's spread (the mass then becomes a "
    "narrow normal the model can fit); a graph you know can be fitted as it is with "
    "FixedStructure(edges=...).")
