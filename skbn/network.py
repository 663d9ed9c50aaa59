"""Bayesian network objects: discrete, Gaussian and conditional linear Gaussian (CLG).

* :class:`DiscreteBayesianNetwork`: a DAG, the states of every node and one conditional
  probability table per node; the joint distribution factorises over the families,
  :math:`p(x_1, \\dots, x_d) = \\prod_i \\theta_{x_i \\mid x_{\\mathrm{pa}(i)}}`. Exact
  likelihoods, queries and sampling, interventions (``do``).
* :class:`GaussianBayesianNetwork`: every node a linear regression on its parents with
  Gaussian noise (a multivariate normal joint); :class:`CLGBayesianNetwork`: discrete nodes
  with discrete parents and CPTs, continuous nodes regressed on their continuous parents in
  each configuration of their discrete parents. :class:`MultivariateNormal` and
  :class:`NormalMixture` are the answers of their queries; ``predict`` gives a continuous
  node's conditional mean row by row and ``predict_proba`` (CLG) a discrete node's
  posterior, missing cells marginalised.

The learners build these objects in ``fit`` (``network_``); they also stand alone (built by
hand, read from BIF / JSON, or fitted from data and a DAG).
"""

from skbn._continuous_network import (
    CLGBayesianNetwork,
    GaussianBayesianNetwork,
    MultivariateNormal,
    NormalMixture,
)
from skbn._discrete_network import DiscreteBayesianNetwork

__all__ = [
    "CLGBayesianNetwork",
    "DiscreteBayesianNetwork",
    "GaussianBayesianNetwork",
    "MultivariateNormal",
    "NormalMixture",
]

# pickles, reprs and the API reference name the public module
for _cls in (CLGBayesianNetwork, DiscreteBayesianNetwork, GaussianBayesianNetwork, MultivariateNormal,
             NormalMixture):
    _cls.__module__ = __name__
del _cls
