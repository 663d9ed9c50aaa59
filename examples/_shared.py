"""Helper of the example scripts: saving figures."""

import os


def save_figure(figure_function, filename):
    """Draw with matplotlib when it is installed (pip install matplotlib); skip cleanly otherwise."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed (pip install matplotlib): figure skipped")
        return
    figure = figure_function(plt)
    figure.tight_layout()  # the gallery saves the figure as it is: keep the labels inside
    if os.environ.get("SKBN_GALLERY"):  # docs build: the gallery shows the open figure
        return
    figure.savefig(filename, dpi=110, bbox_inches="tight")
    plt.close(figure)
    print(f"figure written to {filename}")
