"""Built-in networks and sampling helpers.

The ASIA network ("chest clinic") of Lauritzen & Spiegelhalter (1988) is stored here as
Python data, so it is available without any file.
"""

from pathlib import Path

import numpy as np

from .io import read_bif
from .network import DiscreteBayesianNetwork

__all__ = ["asia_network", "load_network", "sample_asia"]

_YES_NO = ["yes", "no"]


def asia_network():
    """The 8-node ASIA network (Lauritzen & Spiegelhalter, 1988).

    Nodes, in order: ``asia`` (visit to Asia), ``tub`` (tuberculosis), ``smoke``,
    ``lung`` (lung cancer), ``bronc`` (bronchitis), ``either`` (tuberculosis or lung
    cancer, a deterministic OR), ``xray`` (positive X-ray) and ``dysp`` (dyspnoea); every
    node has states ``["yes", "no"]``. The numbers are those of the bnlearn repository's
    ``asia.bif``.

    Returns
    -------
    network : DiscreteBayesianNetwork
        The network, with its states and conditional probability tables.

    References
    ----------
    .. [1] S. L. Lauritzen and D. J. Spiegelhalter, "Local computations with
       probabilities on graphical structures and their application to expert systems",
       *J. R. Stat. Soc. B* 50(2):157-224, 1988.

    Examples
    --------
    >>> from skbn.datasets import asia_network
    >>> net = asia_network()
    >>> net.nodes
    ['asia', 'tub', 'smoke', 'lung', 'bronc', 'either', 'xray', 'dysp']
    >>> net.edges[:3]
    [('asia', 'tub'), ('smoke', 'lung'), ('smoke', 'bronc')]
    """
    nodes = ["asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp"]
    states = {node: list(_YES_NO) for node in nodes}
    parents = {
        "tub": ["asia"],
        "lung": ["smoke"],
        "bronc": ["smoke"],
        "either": ["lung", "tub"],
        "xray": ["either"],
        "dysp": ["bronc", "either"],
    }
    cpts = {
        "asia": [0.01, 0.99],
        "tub": [[0.05, 0.95],          # asia = yes
                [0.01, 0.99]],         # asia = no
        "smoke": [0.5, 0.5],
        "lung": [[0.1, 0.9],           # smoke = yes
                 [0.01, 0.99]],        # smoke = no
        "bronc": [[0.6, 0.4],
                  [0.3, 0.7]],
        "either": [[[1.0, 0.0],        # lung = yes, tub = yes
                    [1.0, 0.0]],       # lung = yes, tub = no
                   [[1.0, 0.0],        # lung = no,  tub = yes
                    [0.0, 1.0]]],      # lung = no,  tub = no
        "xray": [[0.98, 0.02],
                 [0.05, 0.95]],
        "dysp": [[[0.9, 0.1],          # bronc = yes, either = yes
                  [0.8, 0.2]],         # bronc = yes, either = no
                 [[0.7, 0.3],          # bronc = no,  either = yes
                  [0.1, 0.9]]],        # bronc = no,  either = no
    }
    return DiscreteBayesianNetwork(
        states, parents, {node: np.array(cpt) for node, cpt in cpts.items()})


_BUILTIN = {"asia": asia_network}


def load_network(name_or_path):
    """A built-in network by name, or a network read from a ``.bif`` file.

    Parameters
    ----------
    name_or_path : str or path-like
        A path to a ``.bif`` file, or the name of a built-in network (``"asia"``).

    Returns
    -------
    network : DiscreteBayesianNetwork
        The network, with its states and conditional probability tables.

    Raises
    ------
    ValueError
        If the name is neither an existing ``.bif`` file nor a built-in network; the
        message lists the built-in names.
    """
    if isinstance(name_or_path, Path) or str(name_or_path).lower().endswith(".bif"):
        path = Path(name_or_path)
        if not path.is_file():
            raise ValueError(f"No such BIF file: {str(path)!r}.")
        return read_bif(path)
    key = str(name_or_path).lower()
    if key not in _BUILTIN:
        raise ValueError(
            f"Unknown network {name_or_path!r}: pass a path to a .bif file or one of "
            f"the built-in networks {sorted(_BUILTIN)!r}.")
    return _BUILTIN[key]()


def sample_asia(n_samples=10000, random_state=0):
    """Draw rows from the ASIA network by forward sampling.

    Parameters
    ----------
    n_samples : int, default=10000
        Number of rows.
    random_state : int, RandomState instance or None, default=0
        Seed of the draw.

    Returns
    -------
    X : pandas.DataFrame of shape (n_samples, 8)
        Categorical columns with categories ``["yes", "no"]``.

    Examples
    --------
    >>> from skbn.datasets import sample_asia
    >>> sample_asia(5).shape
    (5, 8)
    """
    return asia_network().sample(n_samples, random_state=random_state)
