"""Warnings and errors raised by skbn (the ``sklearn.exceptions`` of this package).

Filter them like any Python warning, e.g. ``warnings.simplefilter("error",
UnseenStateWarning)`` to turn them into errors in a test suite.
"""

__all__ = ["DeterminedColumnsWarning", "NotEstimable", "OrientationConflictWarning",
           "PositivityWarning", "PowerRuleWarning", "UnseenStateWarning", "WholeNumberStatesWarning",
           "ZeroProbabilityWarning"]


class UnseenStateWarning(UserWarning):
    """A state never seen (nor declared) at fit time was met at score or predict time.

    Raised with ``handle_unknown="warn"`` (the default) by ``score_samples``, ``score``,
    ``predict_proba`` and ``predict``: such cells are summed out of the rows they are in,
    as with ``handle_unknown="marginalize"``, and the warning names the columns, the
    states and the number of rows. In cross-validation it is the mark of rows sorted by a
    column and split into unshuffled folds (shuffle them, e.g.
    ``cv=KFold(5, shuffle=True, random_state=0)``), of a rare state (one in a single row is
    never in a training and a test fold at once) or of folds holding out groups of the
    column (``GroupKFold``): declare the column's states from the whole data
    (``X[column].astype("category")`` before splitting, or ``categories=``).
    """


class ZeroProbabilityWarning(UserWarning):
    """Rows have probability 0: scored (log-likelihood ``-inf``), or evidence to predict from.

    A CPT estimated with ``parameter_estimator="mle"`` gives probability 0 to a state never
    seen in fit with its parents' configuration (a state declared with ``categories=`` but
    absent from the training rows, or a state its parents' configuration never had), so a
    held-out row holding it has log-likelihood ``-inf``: ``score`` is then ``-inf``,
    ``cross_val_score`` returns ``-inf`` for the fold and ``GridSearchCV`` never selects the
    candidate. The values are those of maximum likelihood and are not changed; the warning,
    once per call, names each column and how many rows it gave probability 0.
    ``parameter_estimator="bayes"`` (the default) gives every state a positive probability.

    Also raised, once per call, by ``predict_proba`` and ``predict`` of the learners and of
    the network objects (:class:`~skbn.network.DiscreteBayesianNetwork`'s
    ``predict_proba_codes``, the Gaussian and CLG networks' ``predict`` and
    ``predict_proba``) when a row's evidence has probability (density) 0 -- a CPT entry of
    0, or a constant node observed at another value: such a row has no posterior and gets
    the uniform distribution (a continuous target: NaN) while the other rows are predicted
    as usual; the message names the columns and how many rows each.

    Attributes
    ----------
    n_rows : int or None
        The number of rows of probability 0 (scored rows only; None for evidence).
    causes : str or None
        The part of the message that names the columns and how many rows each (scored rows
        only; None for evidence), for a caller that reports the rows itself.
    """

    def __init__(self, message, n_rows=None, causes=None):
        super().__init__(message)
        self.n_rows = n_rows
        self.causes = causes


class OrientationConflictWarning(UserWarning):
    """Orientation steps disagreed: an edge orientation was refused to keep the graph a PDAG.

    Raised (as a warning) by learners such as :class:`skbn.PCStructure` when colliders or
    Meek's rules asked for an arrowhead that contradicts one already placed or closes a
    directed cycle, or when a PDAG had no consistent extension. With a perfect independence
    oracle this never happens, so it signals errors of the statistical tests.
    :class:`skbn.BootstrapStructure` around PC raises it once per fit, with the total over
    its resamples (``n_orientation_conflicts_``), not once per resample.
    """


class PowerRuleWarning(UserWarning):
    """A CI test's heuristic power rule, not the data, decided some of a fit's tests.

    Raised (as a warning, once per fit) by :class:`skbn.PCStructure`,
    :class:`skbn.MMHCStructure`, :class:`skbn.PCSelect` and :class:`skbn.BootstrapStructure`
    (once for all its resamples) when tests with fewer than ``min_samples_per_dof`` samples
    per degree of freedom (:class:`skbn.citests.ChiSquare`, :class:`skbn.citests.GTest`)
    were taken as dependence, keeping their edges or features; ``n_power_rule_tests_`` gives
    the count. bnlearn's and pcalg's tests take such tests as independence.
    """


class PositivityWarning(UserWarning):
    """An adjusted effect rests on the prior: positivity fails in the data.

    Raised (once per call) by :func:`skbn.causal.ida`, :func:`skbn.causal.joint_ida` and
    :func:`skbn.causal.effect_over_graphs` (and ``skbn effect``) on discrete data with
    ``ess > 0`` when a queried state of the treatment is never observed with some
    configuration of its parents that the rows have (``P(x | pa) = 0`` with ``P(pa) > 0``).
    The effect is then not identified from the data: the adjustment formula weighs
    ``P(y | x, pa)`` of that configuration, which no row estimates, by the configuration's
    share of the rows, and takes it from the Dirichlet prior alone (1 / r_y per state as a
    posterior mean; with ``parameter_uncertainty=True`` a draw of the prior, nearly all its
    mass on one state). The values are returned unchanged; the message names the treatment
    states, the parent configurations and their share of the rows (for
    ``effect_over_graphs``, in how many DAGs). With ``ess=0`` such effects are NaN, with a
    ``RuntimeWarning``, instead. A parent that fixes the treatment's state (an effect of it
    taken for a cause, as ``either -> lung`` in ASIA, where ``either='no'`` implies
    ``lung='no'``) cannot be adjusted for.

    Attributes
    ----------
    share : float
        The largest share of the rows on which one queried treatment state's effect rests
        on the prior (over the parent sets or DAGs of the call).
    """

    def __init__(self, message, share=None):
        super().__init__(message)
        self.share = share


class DeterminedColumnsWarning(UserWarning):
    """Columns of the training data are exactly determined by other columns, with no noise.

    Raised by ``fit`` of every structure learner that learns the graph, naming each such
    column and the columns that determine it: a continuous column that is an exact linear
    function of other continuous columns (a duplicated column, a change of units, a total),
    and, for the learners that run conditional-independence tests (PC, MMHC), a discrete
    column that is a function of another discrete column (a duplicated column, labels
    beside their codes, a treatment group beside the units that received it). Structure
    learning assumes that no variable is a deterministic function
    of others (faithfulness): given the columns that determine it, such a column is
    constant, so a test finds it independent of every other column, and the scores of the
    residual variance (``bic-g``, ``aic-g``, ``loglik-g`` and their CLG forms) give its
    family ``-inf`` (as bnlearn does). The learned graph can then leave these columns, and
    the columns they explain, unconnected. Keep one column of each such group. BGe gives
    that family a finite score instead, which its search favours, and the network could not
    be fitted (a node of standard deviation 0): a learner whose scorer does so refuses such
    data with a ``ValueError`` before its search when it fits parameters, and with
    ``fit_parameters=False`` this warning says so (``docs/gaussian.md``).

    Also given when a learner's network regresses a continuous column on exactly collinear
    parents (a parent that is a linear function of the others): R's ``lm`` rule applies, the
    aliased parent gets coefficient 0, and the warning names the column and the parents.

    On mixed data, a second warning of this class names continuous columns with no spread in
    some state (of at least two rows) of a discrete column, such as a zero-inflated
    measurement exactly 0 in one group: a CLG score gives every family with that discrete
    parent ``-inf``, so the score-based learners never learn the edge, and PC's CLG test
    leaves the state out, so its answer depends on the column's scale. Make the column
    discrete, or add noise far below its spread to the repeated values.
    """


class WholeNumberStatesWarning(UserWarning):
    """Undeclared columns of whole numbers were made discrete with many states, each value one.

    Raised once per ``fit`` by every learner (and :class:`skbn.PCSelect`; a
    :class:`skbn.BootstrapStructure` once, not once per resample), naming in name order
    each numeric column of whole numbers, declared neither by ``column_types=`` nor by
    ``categories=``, that the column-type rule made discrete with more than
    :data:`~skbn._data.SPARSE_INTEGER_STATES` (10) and at most
    :data:`~skbn._data.MAX_INTEGER_STATES` (32) distinct values, with its number of values
    and of rows (the rule's rows: integer ``sample_weight`` counts copies). Each value is
    then a state: the order and distances of the values are lost, and a discrete model
    needs many rows per state (HSAUR3's ``skulls``: four skull measurements in mm, 16 to 27
    values in 150 rows, give BDeu no edge; declared continuous they give a CLG network).
    Declare measurements ``column_types={name: "continuous"}`` (``"continuous"`` for every
    column), and codes ``column_types={name: "discrete"}``, which keeps them without this
    warning. Text, bool and pandas ``category`` columns are never named (they declare their
    states), nor is the target (``y`` of ``fit(X, y)`` or ``target=``: class labels).
    """


class NotEstimable(ValueError):
    """A linear regression that the rows of one configuration cannot estimate: no row, no
    more rows than coefficients, a constant or collinear parent there, or no residual spread.

    Raised by the Gaussian and CLG networks' ``from_data`` (and caught by the learners'
    networks, which apply the rule ``docs/gaussian.md`` gives); the message names the node,
    the configuration and the parent. A ``ValueError``, so ``except ValueError`` catches it.
    ``reason`` says why in a few words.
    """

    def __init__(self, message, reason):
        super().__init__(message)
        self.reason = reason
