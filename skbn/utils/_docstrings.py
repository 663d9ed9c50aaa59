"""Docstring text shared by every estimator, written once.

An estimator's class docstring puts the placeholder ``{common_parameters}`` alone on a line
at the end of its Parameters section; :func:`fill_common_parameters` (called for every
subclass by the base class) replaces it with :data:`COMMON_PARAMETERS`, indented like the
placeholder. Learners with structural EM (``missing="em"``) put
``{structural_em_parameters}`` after their own ``missing`` entry, filled with
:data:`STRUCTURAL_EM_PARAMETERS`, and ``{structural_em_attributes}`` in their Attributes
section (:data:`STRUCTURAL_EM_ATTRIBUTES`); every learner puts ``{verbose_parameter}`` where it
documents ``verbose`` (:data:`VERBOSE_PARAMETER`); learners that take experimental rows
put ``{interventional_cpdag_attribute}`` in their Attributes section, and every learner
ends its Attributes section with ``{common_attributes}`` (:data:`COMMON_ATTRIBUTES`). Readers of
``help(HillClimbStructure)`` and of the API reference then see every parameter in place
instead of a pointer to a private class.
"""

import textwrap

__all__ = ["COMMON_ATTRIBUTES", "COMMON_PARAMETERS", "INTERVENTIONAL_CPDAG_ATTRIBUTE",
           "STRUCTURAL_EM_ATTRIBUTES", "STRUCTURAL_EM_PARAMETERS", "VERBOSE_PARAMETER",
           "fill_common_parameters"]

#: numpydoc entries of the parameters every estimator shares (no indentation).
COMMON_PARAMETERS = """\
categories : "auto", list of sequences or dict, default="auto"
    State space of every column. "auto" takes the pandas categories of a categorical
    column (unobserved categories kept) and the sorted observed values otherwise. A list
    gives the states of every column in column order; a dict maps column names to their
    states (columns not in the dict use "auto"; a key that is not a column is an error).
    Declared but unobserved states get prior probability mass. Only None, NaN, pd.NA and
    NaT are missing: strings such as "None" or "NA" are states.
column_types : "auto", "discrete", "continuous", list or dict, default="auto"
    Which columns are discrete and which continuous: "auto" applies the rule,
    "discrete" or "continuous" declares every column of ``X`` and the target ``y`` of
    ``fit(X, y)`` (a ``y`` of text, bools or a pandas categorical stays discrete under
    "continuous"), a list gives "discrete", "continuous" or "auto" for every column of
    ``X`` in column order (``y`` then follows the rule), a dict maps column names, ``y``'s
    included, to them (other columns: "auto"). The rule: categorical, text and bool columns are
    discrete; a numeric column holding a non-integer value is continuous; a numeric column
    of whole numbers is discrete with at most 32 distinct values (and, when it has more
    than 10, at least twice as many rows as values) and must be declared otherwise (one error names every
    such column). ``column_types_`` reports the types a fit
    used. Continuous columns give Gaussian networks, mixed data conditional linear
    Gaussian ones, in which a discrete node never has a continuous parent (see
    ``docs/gaussian.md``).
handle_unknown : {"warn", "error", "marginalize"}, default="warn"
    What a state never seen nor declared in fit does at score and predict time: be summed
    out of that row's likelihood (treated as a missing cell) with a
    :class:`skbn.exceptions.UnseenStateWarning` naming the columns, the states and the
    number of rows -- in cross-validation the mark of rows sorted by a column in
    unshuffled folds, of a rare state or of held-out groups (declare the states from the
    whole data); raise a ``ValueError`` naming the column and the value; or be
    summed out silently (the vocabulary of scikit-learn's ``OneHotEncoder``).
target : column label, int or None, default=None
    Column of ``X`` to predict with ``predict_proba`` and ``predict`` (an alternative to
    ``fit(X, y)``). An integer is a column position when no column has that label.
fit_parameters : bool, default=True
    Whether ``fit`` also estimates the conditional probability tables. With ``False`` only
    the structure is learned (``edges_`` and the learner's structure attributes are set,
    ``network_`` is None and the scoring, prediction and sampling methods raise
    ``NotFittedError``), e.g. when a dense graph has a CPT too large to store.
parameter_estimator : {"bayes", "mle"}, default="bayes"
    How the conditional probability tables are estimated from the counts: posterior mean
    under a BDeu-style Dirichlet prior of equivalent sample size ``parameter_ess``
    (:math:`\\theta_{k|j} = (N_{jk} + \\alpha / (q r)) / (N_j + \\alpha / q)`), or maximum
    likelihood :math:`N_{jk} / N_j` (uniform for unobserved parent configurations).
parameter_ess : float, default=1.0
    Equivalent sample size :math:`\\alpha > 0` of the CPT prior."""

#: numpydoc entries of the EM parameters of the learners with structural EM (``missing="em"``);
#: each learner documents its own ``random_state`` (HillClimbStructure's also seeds its search).
STRUCTURAL_EM_PARAMETERS = """\
latent : dict or None, default=None
    Hidden variables ``{name: n_states}`` (needs ``missing="em"``), placed by
    structural EM like any node; states identified only up to a permutation. Starting
    from the empty graph a latent node is independent of the data and stays
    disconnected: connect it with ``white_list`` (or hill climbing's ``start``). K2
    puts latent nodes first in its default ordering; a given ``ordering`` must name them.
e_step : {"exact", "gibbs"}, default="exact"
    See :class:`skbn.FixedStructure`.
n_init : int, default=1
    EM initialisations of the starting (empty-graph) network.
em_max_iter : int, default=100
    Largest number of structure searches of structural EM, and of EM iterations of
    the final parameter EM.
em_tol : float, default=1e-6
    Relative tolerance of the final parameter EM."""

#: numpydoc entries of the fitted attributes of structural EM (``{structural_em_attributes}``,
#: in the Attributes section of the learners with ``{structural_em_parameters}``).
STRUCTURAL_EM_ATTRIBUTES = """\
em_trace_ : ndarray
    With ``missing="em"``: the EM objective (log-likelihood for "mle", log-posterior
    for "bayes") along the starting network's EM (the search's graph on the complete
    rows, or the empty graph), then of each graph structural EM adopts (one that scores
    higher on the completions than the current graph), then along the final parameter
    EM. It never decreases within an EM (exact E-step); from one graph to the next it
    can (a graph with fewer parameters: ``docs/missing.md``, structural EM).
em_n_iter_ : int
    ``len(em_trace_) - 1``."""

#: numpydoc entry of ``verbose``, the same for every learner (``{verbose_parameter}``).
VERBOSE_PARAMETER = """\
verbose : int, default=0
    Progress on standard error (never standard output): 0 writes nothing; 1 a start line,
    at most one summary line every 5 seconds (work done, rate and, when the total work is
    known, the share done and the time left) and a final summary; 2 or more summaries
    every second plus detail lines (search moves, PC levels, GES phases, EM iterations)."""

#: numpydoc entry of the fitted ``interventional_cpdag_`` of the learners that take
#: ``fit(X, interventions=...)`` (``{interventional_cpdag_attribute}``).
INTERVENTIONAL_CPDAG_ATTRIBUTE = """\
interventional_cpdag_ : skbn.graph.PDAG
    The interventional essential graph of the learned DAG for the intervention targets
    of ``fit(X, interventions=...)`` (each distinct set of columns set together in a
    row): the edges every DAG of its interventional Markov equivalence class orients
    alike are directed (Hauser & Bühlmann 2012; see
    :func:`skbn.graph.interventional_essential_graph`). Without ``interventions``, the
    CPDAG. When the background knowledge fixes directions (a one-way white-listed or
    black-listed edge, tiers, and on mixed data the rule that a discrete node has no
    continuous parent), the class is that of the DAGs which respect it: the maximally
    oriented graph (Meek 1995, :func:`skbn.graph.meek_orient`)."""

#: numpydoc entries of the fitted attributes every estimator shares (``{common_attributes}``).
COMMON_ATTRIBUTES = """\
column_types_ : dict {column: "discrete" or "continuous"}
    How every column of ``X`` (and a target fitted through ``y``) was used: the types the
    ``column_types`` rule or declaration gave.
categories_ : list of (ndarray or None)
    The states of every column of ``X``, in column order (``None`` for a continuous column).
classes_ : ndarray of shape (n_classes,)
    Only with a discrete target (``fit(X, y)`` or ``target=``): its states sorted as
    ``np.unique`` sorts them (the column order of ``predict_proba``), whatever the order
    of a categorical target's categories.
n_features_in_ : int
    Number of columns of ``X`` seen in ``fit``.
feature_names_in_ : ndarray of str
    The column names of ``X``, when they are all strings."""

_PLACEHOLDERS = {
    "{common_parameters}": COMMON_PARAMETERS,
    "{structural_em_parameters}": STRUCTURAL_EM_PARAMETERS,
    "{structural_em_attributes}": STRUCTURAL_EM_ATTRIBUTES,
    "{verbose_parameter}": VERBOSE_PARAMETER,
    "{interventional_cpdag_attribute}": INTERVENTIONAL_CPDAG_ATTRIBUTE,
    "{common_attributes}": COMMON_ATTRIBUTES,
}


def fill_common_parameters(docstring):
    """Replace the placeholder lines of ``docstring`` by the shared parameter entries.

    ``{common_parameters}`` becomes :data:`COMMON_PARAMETERS`, ``{structural_em_parameters}``
    :data:`STRUCTURAL_EM_PARAMETERS`, ``{common_attributes}`` :data:`COMMON_ATTRIBUTES`, and so on
    for every key of ``_PLACEHOLDERS``.

    Parameters
    ----------
    docstring : str or None
        A class docstring; ``None`` (docstrings stripped with ``python -OO``) is returned as is.

    Returns
    -------
    docstring : str or None
        The docstring with the placeholder line replaced, indented like the placeholder.
    """
    if not docstring or not any(key in docstring for key in _PLACEHOLDERS):
        return docstring
    lines = docstring.splitlines()
    for i, line in enumerate(lines):
        if line.strip() in _PLACEHOLDERS:
            indent = line[: len(line) - len(line.lstrip())]
            lines[i] = textwrap.indent(_PLACEHOLDERS[line.strip()], indent)
    return "\n".join(lines)
