"""
Draw a learned ALARM network next to the truth
==============================================

Draw a network learned from ALARM data next to the truth, and the search's score trace::

    python examples/plot_alarm.py              # learns and prints, draws nothing
    python examples/plot_alarm.py alarm.png    # also saves the pictures (needs matplotlib)

Learns the 37-node ALARM monitoring network (the built-in 8-node ASIA when
../shared/networks is absent) from 5,000 sampled rows by hill climbing with BDeu, prints
how many learned edges are right, reversed, extra or missing, and -- given an output file
name -- draws the learned graph over the true one (green: right, orange: reversed, red:
extra, dashed grey: missed) and the score after each move of the search.
"""

import sys

from _shared import load_example_network

from skbn import HillClimbStructure
from skbn.plotting import comparison_classes

name, truth = load_example_network("alarm")
train = truth.sample(5_000, random_state=0)
model = HillClimbStructure().fit(train)
classes, *_ = comparison_classes(truth, model)
print(f"{name}: {len(truth.nodes)} variables, {len(truth.edges)} true edges, "
      f"{len(model.edges_)} learned from {len(train)} rows in {model.n_iter_} moves")
for label, edges in classes.items():
    print(f"  {label:15s} {len(edges):3d}")

if len(sys.argv) > 1:
    output = sys.argv[1]
    try:
        import matplotlib

        matplotlib.use("Agg")
    except ImportError:
        print("matplotlib not installed (pip install 'skbn[plot]'): pictures skipped")
        sys.exit(0)
    from skbn.plotting import plot_comparison, plot_search_trace

    ax = plot_comparison(truth, model, title=f"hill climbing on {name}: learned vs true")
    ax.figure.savefig(output, dpi=110, bbox_inches="tight")
    trace_file = output.rsplit(".", 1)[0] + "_trace.png"
    trace_ax = plot_search_trace(model)
    trace_ax.figure.savefig(trace_file, dpi=110, bbox_inches="tight")
    print(f"pictures written to {output} and {trace_file}")
