"""
Causal effects on ASIA
======================

What does lung cancer do to dyspnoea, once smoking is accounted for? ::

    python examples/causal_asia.py               # prints, then shows the figure
    python examples/causal_asia.py effects.png   # prints, saves the figure instead

The ASIA network (shipped with skbn) is the truth: its exact average causal effect
``P(dysp=yes | do(lung=yes)) - P(dysp=yes | do(lung=no))`` comes from the network by
truncated factorisation (``query(..., do=...)``); it differs from the observed difference
because smoking causes both lung cancer and (through bronchitis) dyspnoea. From rows
sampled from the network we estimate the effect three ways: IDA on the CPDAG learned by PC
(one effect per parent set lung cancer can have, since ``smoke - lung`` cannot be oriented
from observational data), IDA on the true CPDAG, and the effect over the DAGs hill climbing
learns on bootstrap resamples (each standing for its equivalence class, each DAG with one
posterior draw of its parameters), giving a 90% interval and the fraction of graphs in which
lung cancer causes dyspnoea at all. The
structural intervention distance says how many interventional distributions each learned
graph gets wrong.

Positivity: ``either`` (lung cancer or tuberculosis) is a function of ``lung``, and some
learned graphs take it for a parent of ``lung``. Adjusting for it needs ``P(dysp | lung=yes,
either=no)``, which no row estimates (``either='no'`` implies ``lung='no'``): the effect is
not identified from the data there and rests on the prior. ``ida`` and
``effect_over_graphs`` say so with a ``PositivityWarning``; the script catches it, marks
such parent sets with ``*`` and gives the bootstrap interval without those DAGs too
(``GraphEffects.identified()``, from ``positivity_fails``): with them, posterior draws of a prior-only
``P(dysp | lung=yes, either=no)`` send the interval down to about -0.4.

The figure (with matplotlib, ``pip install matplotlib``) shows both intervals as the rows
grow, against the truth.
"""

import sys
import warnings

from skbn import BootstrapStructure, HillClimbStructure, PCStructure
from skbn.causal import effect_over_graphs, ida
from skbn.datasets import load_network
from skbn.exceptions import PositivityWarning
from skbn.graph import dag_to_cpdag
from skbn.metrics import structural_intervention_distance
from _shared import show_or_save


def with_positivity(estimate, *args, **kwargs):
    """The estimate and whether it warned that positivity fails (expected here: see above)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PositivityWarning)
        result = estimate(*args, **kwargs)
    return result, any(issubclass(w.category, PositivityWarning) for w in caught)


asia = load_network("asia")
x, y = "lung", "dysp"
truth = asia.query(y, do={x: "yes"})["yes"] - asia.query(y, do={x: "no"})["yes"]
seen = (asia.query(y, evidence={x: "yes"})["yes"] - asia.query(y, evidence={x: "no"})["yes"])
print(f"exact effect of {x} on {y}: {truth:.4f} (the observational difference is {seen:.4f})")
true_cpdag = dag_to_cpdag(asia.nodes, asia.edges)

sizes = [500, 2_000, 10_000]
summary = []
for n in sizes:
    rows = asia.sample(n, random_state=0)
    pc = PCStructure().fit(rows)
    learned, _ = with_positivity(ida, rows, pc, x, y, contrast=("yes", "no"), y_value="yes")
    oracle = ida(rows, true_cpdag, x, y, contrast=("yes", "no"), y_value="yes")
    boot = BootstrapStructure(HillClimbStructure(), n_resamples=30, keep_graphs=True,
                              random_state=0).fit(rows)
    over, _ = with_positivity(effect_over_graphs, rows, boot, x, y, contrast=("yes", "no"),
                              y_value="yes", parameter_uncertainty=True, random_state=0)
    # the parent sets that fix lung's state (either, a function of lung, among them)
    sets = ", ".join(f"({', '.join(parents)}){'*' if 'either' in parents else ''}"
                     for parents in learned["parents"])
    hc = HillClimbStructure().fit(rows)
    sid_pc = structural_intervention_distance(asia.edges, pc.cpdag_)
    sid_hc = structural_intervention_distance(asia.edges, hc.edges_, nodes=asia.nodes)
    print(f"\n{n} rows")
    print(f"  IDA on PC's CPDAG:  {[round(e, 3) for e in learned['effect']]} "
          f"(parent sets {sets})")
    print(f"  IDA on true CPDAG:  {[round(e, 3) for e in oracle['effect']]}")
    print(f"  bootstrap HC (30):  mean {over.estimate:.3f}, 90% interval "
          f"[{over.interval[0]:.3f}, {over.interval[1]:.3f}], P({x} causes {y}) "
          f"{over.prob_causes:.2f}")
    identified = over.identified()  # (all of them when positivity holds everywhere)
    if over.positivity_fails.any():
        print(f"    positivity fails in {over.positivity_fails.sum()} of {len(over.effects)} "
              f"DAGs (weight {over.weights[over.positivity_fails].sum():.2f}); without them: "
              f"mean {identified.estimate:.3f}, 90% interval "
              f"[{identified.interval[0]:.3f}, {identified.interval[1]:.3f}]")
    print(f"  SID: PC CPDAG bounds {sid_pc}, hill climbing DAG {sid_hc} (of {8 * 7} pairs)")
    summary.append(((over.estimate, over.interval), (identified.estimate, identified.interval)))

try:
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib not installed (pip install matplotlib): figure skipped")
    sys.exit(0)

# %%
# The bootstrap's model-averaged effect and its 90% interval against the exact effect, over
# all DAGs and over those whose effect does not rest on the prior.
figure, axis = plt.subplots(figsize=(5.5, 3.5), layout="constrained")
for k, (label, shift) in enumerate((("bootstrap HC, 90%", 0.97),
                                    ("without positivity failures", 1.03))):
    means = [pair[k][0] for pair in summary]
    low = [m - pair[k][1][0] for m, pair in zip(means, summary)]
    high = [pair[k][1][1] - m for m, pair in zip(means, summary)]
    axis.errorbar([n * shift for n in sizes], means, yerr=[low, high], fmt="o", capsize=4,
                  label=label)
axis.axhline(truth, linestyle="--", color="gray", label=f"exact effect {truth:.3f}")
axis.set_xscale("log")
axis.set_xlabel("rows")
axis.set_ylabel(f"P({y}=yes | do({x}=yes)) - P({y}=yes | do({x}=no))")
axis.legend()
show_or_save({"": figure}, plt)  # python examples/causal_asia.py effects.png: save it
