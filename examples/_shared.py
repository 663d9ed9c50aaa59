"""Helpers of the example scripts: saving or showing figures."""

import os
import sys
from pathlib import Path


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


def show_or_save(figures, plt):
    """Show the figures, or save them when the script is given a file name.

    ``python examples/plot_alarm.py alarm.png`` writes ``alarm.png``, ``alarm_pc.png``, ...
    (one file per entry of ``figures``, a dict from file-name tag to figure); without an
    argument the figures are shown (the gallery collects the open figures).
    """
    if len(sys.argv) > 1:
        output = Path(sys.argv[1])
        names = [output.with_name(f"{output.stem}{tag}{output.suffix or '.png'}") for tag in figures]
        for name, figure in zip(names, figures.values()):
            figure.savefig(name, dpi=110, bbox_inches="tight")
        print(f"figures written to {', '.join(map(str, names))}")
    else:
        plt.show()
