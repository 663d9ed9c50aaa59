"""Where the examples find their data: ../shared/networks if present, else the built-in ASIA."""

import os
from pathlib import Path

from skbn.datasets import asia_network
from skbn.io import read_bif

SHARED_NETWORKS = Path(__file__).resolve().parents[2] / "shared" / "networks"


def load_example_network(name):
    """The shared benchmark network ``name``, or ASIA (built in) when ../shared is absent."""
    path = SHARED_NETWORKS / f"{name}.bif"
    if path.exists():
        return name, read_bif(path)
    print(f"({path} not found: using the built-in ASIA network instead)")
    return "asia", asia_network()


def save_figure(figure_function, filename):
    """Draw with matplotlib when it is installed (pip install skbn[plot]); skip cleanly otherwise."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed (pip install 'skbn[plot]'): figure skipped")
        return
    figure = figure_function(plt)
    if os.environ.get("SKBN_GALLERY"):  # docs build: the gallery shows the open figure
        return
    figure.savefig(filename, dpi=110, bbox_inches="tight")
    plt.close(figure)
    print(f"figure written to {filename}")
