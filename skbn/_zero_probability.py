r"""Rows of probability (density) 0, and the one rule for predicting from them.

A row's *evidence* is its observed cells other than the target. Its probability (a density
with continuous cells) is

.. math::

    p(x_o) = \sum_{x_m} \prod_i \theta_{x_i \mid x_{\mathrm{pa}(i)}}
    \prod_j \phi(x_j;\, b_{j0}(\delta) + b_j(\delta)^\top x_{\Gamma_j},\, \sigma_j(\delta)^2),

summed over the missing discrete cells (and integrated over the missing continuous ones).
It is 0 when a CPT entry of 0 meets the row (a state never seen with its parents' states,
under maximum likelihood), or when a constant node (standard deviation 0, such as one set
by ``do``) is observed at another value. The target's posterior
:math:`p(y \mid x_o) = p(y, x_o) / p(x_o)` is then undefined, and every prediction method,
of the networks (:class:`~skbn.network.DiscreteBayesianNetwork`'s ``predict_proba_codes``,
the Gaussian and CLG networks' ``predict`` and ``predict_proba``) and of the learners,
follows one rule: such a row gets the uniform distribution over the target's states
(``predict``: the first state in sorted order) or, for a continuous target, NaN; the other
rows are predicted as usual; and one :class:`~skbn.exceptions.ZeroProbabilityWarning` per
call names the columns that make the rows impossible and how many rows each
(:func:`impossible_evidence_message`). A learner's model average finds a row impossible
when every averaged DAG does (its weighted sum of densities is then 0).

The log-likelihood of a row of probability 0 is ``-inf``, the exact value, kept; every
method that returns it -- the networks' ``log_likelihood`` (and
:class:`~skbn.network.DiscreteBayesianNetwork`'s ``log_likelihood_codes``), the learners'
``score_samples`` and ``score`` -- warns once per call the same way, naming the columns
(:func:`zero_probability_warning`). A learner computes its network's values without the
network's warning and gives its own, which adds the advice of ``parameter_estimator``, so
a call warns once.
"""

import numpy as np

from skbn.exceptions import ZeroProbabilityWarning
from skbn.utils._warnings import warn_user


def zero_cpt_rows(networks, variants, rows):
    """``{column: bool mask over rows}``: the rows ``rows`` to which the column's CPT gives
    probability 0 in some of the code arrays ``variants`` (the rows' codes, or one copy per
    state of a left-out target), the column and its parents observed in the row (in some
    network of ``networks``, the averaged DAGs, for a row impossible under all of them)."""
    zero = {}
    for codes in variants:
        for network in networks:
            position = {node: i for i, node in enumerate(network.nodes)}
            for node, cpt in getattr(network, "cpts", {}).items():  # (none in a Gaussian network)
                family = [position[p] for p in network.parents[node]] + [position[node]]
                cells = codes[np.ix_(rows, family)]
                observed = (cells >= 0).all(axis=1)
                found = np.zeros(len(rows), dtype=bool)
                found[observed] = cpt[tuple(cells[observed].T)] == 0
                if found.any():
                    zero[node] = zero.get(node, np.zeros(len(rows), dtype=bool)) | found
    return zero


def column_counts(masks):
    """``{column: bool mask}`` as text: each column and its number of rows."""
    return " and ".join(f"column {node!r} ({rows_text(int(mask.sum()))})" for node, mask in masks.items())


def rows_text(count):
    """``"1 row"``, ``"2 rows"``."""
    return f"{count} row{'' if count == 1 else 's'}"


def mle_advice(estimator):
    """The advice a learner fitted with ``parameter_estimator=estimator`` adds."""
    return (" parameter_estimator='mle' estimates such a probability as 0; "
            "parameter_estimator='bayes' gives every state a positive probability."
            if estimator == "mle" else "")


def zero_probability_warning(networks, codes, impossible, *, constants=None, estimator=None):
    """The ``ZeroProbabilityWarning`` for the rows ``impossible`` (log-likelihood ``-inf``, a
    bool mask over the rows of ``codes``) of a network's ``log_likelihood`` or a learner's
    ``score_samples`` and ``score``. Its text names the columns whose CPT gives their state
    probability 0 (:func:`zero_cpt_rows`; ``networks``, ``codes`` and ``estimator`` as in
    :func:`impossible_evidence_message`), the constant nodes observed at another value
    (``constants``), and the rows whose probability is 0 only once their missing cells are
    summed out (with continuous cells the probability is a density); its ``n_rows`` is the
    number of such rows and its ``causes`` that naming alone, for a caller that reports the
    rows itself (``skbn score``)."""
    rows = np.flatnonzero(impossible)
    causes = _causes(networks, [codes], rows, constants, estimator)
    return ZeroProbabilityWarning(
        f"{len(rows)} of {len(codes)} rows have probability 0 (log-likelihood -inf){_attached(causes)}."
        f"{mle_advice(estimator)}", n_rows=len(rows), causes=causes)


def warn_zero_probability(networks, codes, log_likelihood, **context):
    """Warn once when some row's ``log_likelihood`` is ``-inf``, with
    :func:`zero_probability_warning` (``context``: its keywords); the values are not changed."""
    impossible = np.isneginf(log_likelihood)
    if impossible.any():
        warn_user(zero_probability_warning(networks, codes, impossible, **context))


def _causes(networks, variants, rows, constants, estimator, target=None):
    """The text naming why the rows ``rows`` have probability 0 (it follows "N of M rows
    have ... 0" as :func:`_attached` joins it): CPT entries of 0 met in some of the code arrays ``variants``
    (:func:`zero_cpt_rows`; ``target``: a discrete target filled in each of its states),
    constant nodes observed at another value (``constants``: column -> bool mask over all
    rows), and the rows left unexplained, whose probability is 0 only once their missing
    cells are summed out."""
    zero = zero_cpt_rows(networks, variants, rows)
    causes = []
    if zero:
        whatever = f"whatever the state of {target!r}, " if target is not None else ""
        seen = ", a state never seen in fit with its parents' states" if estimator is not None else ""
        causes.append(f"{whatever}the CPT gives probability 0 to their state of {column_counts(zero)}{seen}")
    off = {name: mask[rows] for name, mask in (constants or {}).items() if mask[rows].any()}
    if off:
        causes.append(f"their value of {column_counts(off)} is not the constant value of that node "
                      "(standard deviation 0, such as a node set by do)")
    explained = np.zeros(len(rows), dtype=bool)
    for mask in (*zero.values(), *off.values()):
        explained |= mask
    others = int((~explained).sum())
    if causes and others:
        causes.append(f"{rows_text(others)} more {_SUMMED_OUT}")
    return "; ".join(causes) if causes else _SUMMED_OUT


#: The cause :func:`_causes` gives rows it finds no other cause for.
_SUMMED_OUT = "once their missing cells are summed out"


def _attached(causes):
    """The text of :func:`_causes` as it follows "N of M rows have ... 0" in a message."""
    return f" {causes}" if causes == _SUMMED_OUT else f": {causes}"


def impossible_evidence_message(networks, codes, impossible, target, *, constants=None, estimator=None,
                                method="predict_proba"):
    """The ``ZeroProbabilityWarning`` text for the rows ``impossible`` (a bool mask over the
    rows of ``codes``), whose evidence has probability 0, so that no posterior of ``target``
    (a node name) exists.

    Parameters
    ----------
    networks : list of networks with CPTs
        Searched for CPT entries of 0 (:func:`zero_cpt_rows`): a learner's network or its
        averaged DAGs, or a CLG network's :attr:`discrete_network`; empty for a Gaussian
        network. A discrete ``target`` is one of their nodes, and the CPTs are read with it
        in each of its states ("whatever the state of ..."); a continuous one is in none.
    codes : ndarray of shape (n_samples, n_nodes of networks)
        State codes of the rows, ``-1`` for a missing cell.
    impossible : ndarray of bool, shape (n_samples,)
    target : hashable
    constants : dict, optional
        Continuous column -> bool mask over the rows where that constant node (standard
        deviation 0) is observed at another value.
    estimator : {"bayes", "mle"} or None
        A learner's ``parameter_estimator`` (its advice is added); None for a network.
    method : str, default="predict_proba"
        The method that gives a discrete target's posterior (``"predict_proba_codes"`` for
        a discrete network, which has no ``predict``).

    Returns
    -------
    str
    """
    rows = np.flatnonzero(impossible)
    states = next((net.states[target] for net in networks[:1] if target in getattr(net, "states", {})), None)
    variants = [codes]
    if states is not None:  # (the target in each of its states)
        position = list(networks[0].nodes).index(target)
        variants = [codes.copy() for _ in states]
        for state, filled in enumerate(variants):
            filled[:, position] = state
    cause = _causes(networks, variants, rows, constants, estimator,
                    target if states is not None else None)
    outcome = "predict gives them NaN"
    if states is not None:
        outcome = f"{method} gives them the uniform distribution"
        if method == "predict_proba":
            first = ", the first class of classes_" if estimator is not None else ""
            outcome += f" (predict: the first state in sorted order{first})"
    return (f"{len(rows)} of {len(codes)} rows have evidence of probability 0{_attached(cause)}, so "
            f"they have no posterior of {target!r}: {outcome}.{mle_advice(estimator)}")


def warn_impossible_evidence(networks, codes, impossible, target, **context):
    """Warn once (:class:`~skbn.exceptions.ZeroProbabilityWarning`) when some row is
    ``impossible``, with :func:`impossible_evidence_message` (``context``: its keywords)."""
    if np.any(impossible):
        warn_user(impossible_evidence_message(networks, codes, impossible, target, **context),
                  ZeroProbabilityWarning)
