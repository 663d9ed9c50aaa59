"""
How sure is a causal effect? ALARM, 200 to 20,000 rows
======================================================

The interval of an intervention effect narrows as the rows grow. ::

    python examples/effect_interval_alarm.py               # prints, then shows the figure
    python examples/effect_interval_alarm.py interval.png  # prints, saves the figure instead

The ALARM network (37 variables, shipped with skbn) is the truth. A ventilator disconnection
(``DISCONNECT``) acts on the catecholamine level (``CATECHOL``) only through chains of four or
five other variables (tube, lung ventilation, alveolar ventilation, then arterial CO2 or the
oxygen saturation), so the effect rests on a large part of the learned graph. Its exact
average causal effect ``P(CATECHOL=HIGH | do(DISCONNECT=TRUE)) - P(CATECHOL=HIGH |
do(DISCONNECT=FALSE))`` comes from the network by truncated factorisation
(``query(..., do=...)``); ``DISCONNECT`` has no parents, so it equals the observed
difference, but a learner does not know that: with few rows it may orient an edge into
``DISCONNECT`` or miss the path.

For each number of rows we print IDA's possible effects on the CPDAG of the DAG hill climbing
learns (one per parent set ``DISCONNECT`` can have), then the effect over the DAGs hill
climbing learns on 10 bootstrap resamples, each standing for its equivalence class and with
one posterior draw of its parameters: the mean, the 90% interval, its width and the
fraction of graphs in which ``DISCONNECT`` causes ``CATECHOL`` at all. The command line does
the same for one data file::

    skbn effect rows.csv --x DISCONNECT --y CATECHOL --contrast TRUE,FALSE --y-value HIGH \\
        --n-resamples 10 --parameter-uncertainty --max-dags 10000

The figure (with matplotlib, ``pip install matplotlib``) shows the intervals against the
number of rows, with the exact effect as a line.
"""

import sys
import warnings

from skbn import BootstrapStructure, HillClimbStructure
from skbn.causal import effect_over_graphs, ida
from skbn.datasets import load_network
from skbn.exceptions import PositivityWarning
from skbn.graph import dag_to_cpdag
from _shared import show_or_save

alarm = load_network("alarm")
x, y = "DISCONNECT", "CATECHOL"
question = dict(contrast=("TRUE", "FALSE"), y_value="HIGH")
truth = (alarm.query(y, do={x: "TRUE"})["HIGH"] - alarm.query(y, do={x: "FALSE"})["HIGH"])
seen = (alarm.query(y, evidence={x: "TRUE"})["HIGH"]
        - alarm.query(y, evidence={x: "FALSE"})["HIGH"])
print(f"exact effect of {x} on {y}=HIGH: {truth:.4f} (observational difference {seen:.4f})\n")

sizes = [200, 1_000, 5_000, 20_000]
summary = []
print(f"{'rows':>6s}  {'IDA on the learned CPDAG':26s} {'mean':>7s}  {'90% interval':18s} "
      f"{'width':>6s}  {'P(causes)':>9s}")
for n in sizes:
    rows = alarm.sample(n, random_state=0)
    hc = HillClimbStructure().fit(rows)
    # a learned parent of DISCONNECT whose configuration never meets one of its states
    # leaves the effect resting on the prior there (PositivityWarning): marked * below
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PositivityWarning)
        point = ida(rows, dag_to_cpdag(list(rows.columns), hc.edges_), x, y, **question)
    prior_based = any(issubclass(w.category, PositivityWarning) for w in caught)
    boot = BootstrapStructure(HillClimbStructure(), n_resamples=10, keep_graphs=True,
                              random_state=0).fit(rows)
    # max_dags: a graph learned on ALARM may stand for a class of a few thousand DAGs
    # a DAG where a state of DISCONNECT never meets a configuration of its learned parents
    # rests on the prior there (PositivityWarning): counted below instead of warned
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PositivityWarning)
        over = effect_over_graphs(rows, boot, x, y, **question, parameter_uncertainty=True,
                                  random_state=0, max_dags=10_000)
    low, high = over.interval
    ida_text = ", ".join(f"{e:.3f}" for e in point["effect"]) + ("*" if prior_based else "")
    print(f"{n:6d}  {ida_text:26s} {over.estimate:7.3f}  [{low:6.3f}, {high:6.3f}]   "
          f"{high - low:6.3f}  {over.prob_causes:9.2f}"
          + (f"  (positivity fails in {over.positivity_fails.sum()} of {len(over.effects)} DAGs)"
             if over.positivity_fails.any() else ""))
    summary.append((n, over.estimate, low, high))
print(f"\nexact effect: {truth:.4f}  (*: positivity fails for some parent set of {x})")

try:
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib not installed (pip install matplotlib): figure skipped")
    sys.exit(0)

# %%
# The bootstrap's model-averaged effect and its 90% interval against the exact effect.
figure, axis = plt.subplots(figsize=(5.5, 3.5), layout="constrained")
ns = [n for n, *_ in summary]
means = [m for _, m, _, _ in summary]
axis.errorbar(ns, means, yerr=[[m - lo for _, m, lo, _ in summary],
                               [hi - m for _, m, _, hi in summary]],
              fmt="o", capsize=4, label="bootstrap hill climbing, 90%")
axis.axhline(truth, linestyle="--", color="gray", label=f"exact effect {truth:.3f}")
axis.axhline(0, color="black", linewidth=0.5)
axis.set_xscale("log")
axis.set_xlabel("rows")
axis.set_ylabel(f"effect of {x} on P({y}=HIGH)")
axis.legend()
show_or_save({"": figure}, plt)  # python examples/effect_interval_alarm.py interval.png
