"""Columns exactly determined by others: the checks ``fit`` of every structure learner runs
(:func:`skbn.estimators._base._check_determined_columns`) and
:func:`skbn.posterior.edge_posteriors` runs as :class:`~skbn.estimators.ExactStructure` does,
on the encoded data, below the learners."""

import numpy as np

from skbn._counting import count_cells, functional_pairs, linear_dependencies, weights_are_integral
from skbn._counting._moment_counter import MomentCounter
from skbn._data import name_ranks
from skbn.exceptions import DeterminedColumnsWarning
from skbn.scores import _moment_family_score
from skbn.utils._warnings import warn_user

#: Most (continuous column, discrete column) pairs, and states of one pair, a message names.
_FLAT_PAIRS_SHOWN, _FLAT_STATES_SHOWN = 10, 5


def check_determined_columns(data, states, learner, *, tests=False, reader="score", scorer_of=None,
                             refuse=None):
    """Warn (:class:`~skbn.exceptions.DeterminedColumnsWarning`), naming them, about columns
    of the encoded ``data`` exactly determined by others, which break the faithfulness a
    learned graph (or an edge posterior) relies on; refuse them (``refuse``) when the
    scorer gives such a family a finite score and a network is to be fitted. The messages
    begin with ``learner``, the name of the search.

    * Continuous columns that are exact linear functions of other continuous columns
      (:func:`skbn._counting.linear_dependencies` on the one-group moments the search
      reads). Skipped with missing cells, and when there are no more rows than continuous
      columns, where the columns are always linearly dependent (PC's rule for conditioning
      sets too large for the rows applies then). The family of such a column ``c`` given
      the columns ``P`` that determine it has residual variance 0: the residual-variance
      scores (``bic-g``, ``aic-g``, ``loglik-g`` and their CLG forms) give it ``-inf``, as
      bnlearn does, so their searches never learn it; BGe, a marginal likelihood under a
      proper normal-Wishart prior, gives it a finite score, larger than that of any family
      with noise (``log|R_cc.P|`` of ``R = T + S_N`` is then bounded by the prior scale
      ``T`` alone), so its searches learn it (bnlearn's too). A Gaussian network has no
      density with a node of standard deviation 0, so the parameter fit after such a
      search would fail: with ``refuse`` (a learner that fits its network) a scorer that
      gives ``c | P`` a finite score (:func:`finitely_scored`) is refused here,
      before the search, with a ``ValueError`` naming the columns; otherwise the warning
      says so. A search by tests alone (``tests`` and no ``scorer_of``: PC) has no score to keep
      it away from such a family: a column stays dependent on the columns that determine it
      whatever else a test conditions on (given all but one of them it is that one plus a
      constant), so they stay adjacent, and the extension of the learned class gives the
      last of them in its order the others as parents (the v-structure ``a -> c <- b`` of
      ``c = a + b`` with independent ``a``, ``b``; one of two duplicates the other). With
      ``refuse`` every determined column is then refused (:func:`tested_refusal`).
    * With ``tests`` (a learner that runs conditional-independence tests on the data: a
      ``ci_test`` plug-in other than the d-separation oracle, PC, MMHC), discrete columns that are
      functions of another discrete column (:func:`skbn._counting.functional_pairs`,
      complete columns only): one-to-one recodings of each other, and many-to-one
      relations (a group beside its units). Given the finer column, the coarser one is
      constant, so every test of it given the finer one finds independence, and the
      coarser column loses its edges even to the columns it explains (the units of R's
      ``CO2`` data, ``Plant``, determine their ``Type`` and ``Treatment``, and PC then
      links neither to ``uptake``). A score-based learner finds such a family without
      harm (one column predicts the other exactly), so it is not told.
    * In a second warning, on mixed data, for a search that scores the data or tests it
      (``reader``; :func:`flat_states`): continuous columns with no spread in some state (of at
      least two rows) of a discrete column, such as a zero-inflated measurement, exactly 0
      in one group. A CLG score gives every family with that discrete parent ``-inf``,
      and the CLG test leaves the state's rows out of both of its regressions, so the
      dependence, often the strongest in the data, is never learned.

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
        scorer as given (e.g. ``"scorer='bge'"``), whose finite-scored determined families are
        then an error naming the columns, or for a search by tests alone
        ``"fit_parameters=True"``, every determined column an error. None: only warned.

    Call it inside :func:`~skbn._counting._moment_counter.shared_moments` of ``data`` to share
    its moments with the search.
    """
    ranks = name_ranks(data.names)
    found = []
    n_continuous = int(np.count_nonzero(data.continuous)) if data.has_continuous else 0
    counter = None
    if n_continuous:
        try:
            counter = MomentCounter.of(data)  # (the fit's shared counter: the search reuses its moments)
        except ValueError:  # missing cells: no moments
            counter = None
    # the rows behind the moments (their rank): chunks are summarised (row_scatter); in
    # memory every row counts once (rows of weight 0 were dropped before encoding)
    rows = data.total_weight if data.row_scatter is not None else data.n_samples
    finite = []  # (column, predictors, score): determined families the scorer scores finite
    if counter is not None and rows > n_continuous:
        columns = counter.continuous
        dependencies = [(int(columns[j]), tuple(int(columns[i]) for i in given))
                        for j, given in linear_dependencies(counter.moments_given().scatter[0],
                                                            np.argsort(ranks[columns], kind="stable"))]
        found += [f"{_dependence(data.names, j, given)})" for j, given in dependencies]
        if dependencies and scorer_of is not None:
            scorer = scorer_of()
            finite = finitely_scored(scorer, data, counter, dependencies)
            if finite and refuse is not None:
                raise ValueError(determined_refusal(learner, refuse, scorer, finite, data.names))
        elif dependencies and tests and refuse is not None:  # (a search by tests alone: PC)
            raise ValueError(tested_refusal(learner, dependencies, data.names))
    if tests:
        discrete = [j for j in np.argsort(ranks, kind="stable").tolist() if data.cardinalities[j] > 0]
        # (the identifier rule counts rows: integer weights are copies, as chunks' are)
        copies = data.weights is not None and weights_are_integral(data.weights)
        n_rows = data.total_weight if copies else data.n_samples
        pairs = functional_pairs(data.codes, discrete, n_rows=n_rows)  # (a, b): b = f(a), name order
        both = set(pairs) & {(b, a) for a, b in pairs}
        found += [f"{data.names[a]!r} and {data.names[b]!r} (one-to-one recodings of each other)"
                  for a, b in pairs if (a, b) in both and ranks[a] < ranks[b]]
        determinants = {}  # column -> the columns it is a function of (not one-to-one)
        for a, b in pairs:
            if (a, b) not in both:
                determinants.setdefault(b, []).append(a)
        found += [f"{data.names[b]!r} (a function of {', '.join(repr(data.names[a]) for a in given)})"
                  for b, given in sorted(determinants.items(), key=lambda item: ranks[item[0]])]
    if found:
        if finite:  # (no network fitted: the structure alone, or posteriors)
            score_rule = (f"; the scorer {scorer!r} gives the family of a continuous one given the columns "
                          "that determine it a finite score, above any family with noise, so the learned "
                          "graph is likely to hold such a family, of residual variance 0, which a Gaussian "
                          "network cannot fit (a learner with fit_parameters=True refuses these data)")
        elif scorer_of is not None and n_continuous:
            score_rule = ("; the score gives the family of a continuous one given the columns that "
                          "determine it -inf (as bnlearn's bic-g, aic-g and loglik-g do)")
        else:
            score_rule = ""
        warn_user(
            f"{learner}: {'; '.join(found)}: "
            f"{'these columns are' if len(found) > 1 else 'a column is'} exactly determined by other "
            "columns, with no noise. Structure learning assumes no such deterministic relation: "
            "given the columns that determine it, a column is constant, so the tests find it "
            f"independent of every other column{score_rule}; the "
            "learned graph can leave these columns, and those they explain, unconnected. Keep one "
            "column of each such group (drop duplicates, recodings, converted units or totals; of "
            "a fine column and the coarse ones it determines, such as units and their treatment "
            "group, keep those you want to model).",
            DeterminedColumnsWarning,
        )
    if counter is not None and reader is not None and n_continuous < data.n_variables:
        flat = flat_states(data, counter, ranks)
        if flat:
            warn_user(flat_states_message(learner, flat, data.names, states, reader),
                      DeterminedColumnsWarning)


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


def determined_refusal(learner, parameter, scorer, finite, names):
    """The error of :func:`check_determined_columns` about the determined families
    ``finite`` (:func:`finitely_scored`) of a learner that fits parameters;
    ``parameter``: its scorer parameter (with the alias given), ``scorer`` the resolved scorer."""
    families = "; ".join(f"{_dependence(names, c, given)}, family score {score:.6g})"
                         for c, given, score in finite)
    return (
        f"{learner}: {families}: {'these columns are' if len(finite) > 1 else 'a column is'} "
        f"exactly determined by other columns, with no noise, and the scorer {scorer!r} "
        f"({parameter}) gives the "
        "family of such a column given the columns that determine it a finite score, above any "
        "family with noise (BGe's marginal likelihood of a singular scatter matrix is bounded by "
        "its prior alone; bic-g, aic-g and loglik-g give such a family -inf, as bnlearn does). The "
        "search would favour such a family, whose residual variance is 0, and a Gaussian network "
        "cannot give it a density, so the parameter fit after the search would fail. Keep one "
        "column of each such group (drop duplicates, converted units or totals), learn the "
        "structure alone with fit_parameters=False, or use a score that never learns such a "
        "family (scorer='bic-g')."
    )


def tested_refusal(learner, dependencies, names):
    """The error of :func:`check_determined_columns` about the determined columns
    ``dependencies`` (``(column, predictors)``, :func:`skbn._counting.linear_dependencies`)
    of a search by tests alone (PC) that fits its network."""
    columns = "; ".join(f"{_dependence(names, c, given)})" for c, given in dependencies)
    return (
        f"{learner}: {columns}: {'these columns are' if len(dependencies) > 1 else 'a column is'} "
        "exactly determined by other columns, with no noise. A conditional-independence test finds "
        "such a column dependent on the columns that determine it whatever else it conditions on, "
        "so the learned graph keeps them adjacent and gives one of them the others as parents: a "
        "family of residual variance 0, which a Gaussian network cannot give a density, so the "
        "parameter fit after the search would fail (fit_parameters=True). Keep one column of each "
        "such group (drop duplicates, converted units or totals), or learn the structure alone "
        "with fit_parameters=False."
    )


def flat_states(data, counter, ranks):
    """The continuous columns with no spread in some state of a discrete column.

    A state counts when it holds at least two rows (integer weights count as copies, as
    for the identifiers of :func:`check_determined_columns`; a lone row is too few rows,
    not a point mass) and the column has no spread there by the scores' rule
    (:attr:`skbn._counting.Moments.flat`, on :meth:`~skbn._counting.MomentCounter.moments_given`
    the discrete column: the fit's shared moments, which a CLG search and PC's tests of
    that column read again). The split moments are computed only for the discrete columns
    that :meth:`~skbn._counting.MomentCounter.flat_screen` flags (one pass over the rows
    for all of them; it never misses a flat column). Discrete columns with missing cells
    are skipped.

    Returns
    -------
    list of (continuous_position, discrete_position, state_codes)
        In name order of the continuous column, then of the discrete one.
    """
    copies = data.weights is None or weights_are_integral(data.weights)
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
        n_rows = stats.weight if copies else count_cells(data.codes[:, d], stats.n_groups)
        flat = stats.flat & (n_rows >= 2)[:, None]
        for t in np.flatnonzero(flat.any(axis=0)).tolist():
            found.append((int(counter.continuous[t]), d, np.flatnonzero(flat[:, t]).tolist()))
    found.sort(key=lambda item: (ranks[item[0]], ranks[item[1]]))
    return found


def flat_states_message(learner, flat, names, states, reader):
    """The warning of :func:`check_determined_columns` about ``flat`` (:func:`flat_states`)."""
    def state_list(d, codes):
        shown = " or ".join(repr(states[d][c]) for c in codes[:_FLAT_STATES_SHOWN])
        more = len(codes) - _FLAT_STATES_SHOWN
        return shown + (f" (and {more} more states)" if more > 0 else "")

    items = "; ".join(f"{names[j]!r} where {names[d]!r} is {state_list(d, codes)}"
                      for j, d, codes in flat[:_FLAT_PAIRS_SHOWN])
    if len(flat) > _FLAT_PAIRS_SHOWN:
        items += f"; and {len(flat) - _FLAT_PAIRS_SHOWN} more such pairs of columns"
    y, g = names[flat[0][0]], names[flat[0][1]]
    if reader in ("score", "posterior"):
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
        f"within a state of a discrete column. {effect}. A point mass, such as a zero-inflated "
        "measurement or a dose fixed at 0 in a placebo group, is not conditional-Gaussian. To "
        "learn such a dependence, make the column discrete (bin its values with the mass as a "
        "state of its own, or declare a column with few values discrete with column_types=; a "
        "discrete column may have discrete parents, though no continuous ones), or add to its "
        "repeated values noise far smaller than the column's spread (the mass then becomes a "
        "narrow normal the model can fit); a graph you know can be fitted as it is with "
        "FixedStructure(edges=...)."
    )
