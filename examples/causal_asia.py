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
graph gets wrong. The figure (with matplotlib, ``pip install matplotlib``) shows the
intervals narrowing around the truth as the rows grow.
"""

import sys

from skbn import BootstrapStructure, HillClimbStructure, PCStructure
from skbn.causal import effect_over_graphs, ida
from skbn.datasets import load_network
from skbn.graph import dag_to_cpdag
from skbn.metrics import structural_intervention_distance
from _shared import show_or_save

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
    learned = ida(rows, pc, x, y, contrast=("yes", "no"), y_value="yes")
    oracle = ida(rows, true_cpdag, x, y, contrast=("yes", "no"), y_value="yes")
    boot = BootstrapStructure(HillClimbStructure(), n_resamples=30, keep_graphs=True,
                              random_state=0).fit(rows)
    over = effect_over_graphs(rows, boot, x, y, contrast=("yes", "no"), y_value="yes",
                              parameter_uncertainty=True, random_state=0)
    hc = HillClimbStructure().fit(rows)
    sid_pc = structural_intervention_distance(asia.edges, pc.cpdag_)
    sid_hc = structural_intervention_distance(asia.edges, hc.edges_, nodes=asia.nodes)
    print(f"\n{n} rows")
    print(f"  IDA on PC's CPDAG:  {[round(e, 3) for e in learned['effect']]} "
          f"(parent sets {list(learned['parents'])})")
    print(f"  IDA on true CPDAG:  {[round(e, 3) for e in oracle['effect']]}")
    print(f"  bootstrap HC (30):  mean {over.estimate:.3f}, 90% interval "
          f"[{over.interval[0]:.3f}, {over.interval[1]:.3f}], P({x} causes {y}) "
          f"{over.prob_causes:.2f}")
    print(f"  SID: PC CPDAG bounds {sid_pc}, hill climbing DAG {sid_hc} (of {8 * 7} pairs)")
    summary.append((n, over.estimate, over.interval))

try:
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib not installed (pip install matplotlib): figure skipped")
    sys.exit(0)

# %%
# The bootstrap's model-averaged effect and its 90% interval against the exact effect.
figure, axis = plt.subplots(figsize=(5.5, 3.5), layout="constrained")
means = [m for _, m, _ in summary]
low = [m - i[0] for _, m, i in summary]
high = [i[1] - m for _, m, i in summary]
axis.errorbar(sizes, means, yerr=[low, high], fmt="o", capsize=4, label="bootstrap HC, 90%")
axis.axhline(truth, linestyle="--", color="gray", label=f"exact effect {truth:.3f}")
axis.set_xscale("log")
axis.set_xlabel("rows")
axis.set_ylabel(f"P({y}=yes | do({x}=yes)) - P({y}=yes | do({x}=no))")
axis.legend()
show_or_save({"": figure}, plt)  # python examples/causal_asia.py effects.png: save it
