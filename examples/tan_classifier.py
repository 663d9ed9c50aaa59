"""
A Bayesian-network classifier in a pipeline
===========================================

A Bayesian-network classifier in a scikit-learn pipeline on continuous data::

    python examples/tan_classifier.py

KBinsDiscretizer turns the breast-cancer measurements into ordinal bins; tree-augmented naive
Bayes (ChowLiuTree(variant="tan")) is compared with a plain Chow-Liu tree over features and
class, by cross-validated accuracy and log loss. ``set_output(transform="pandas")`` keeps
the column names through the discretizer, so the learned graph is over the measurements'
names (``mean radius``, ...) rather than ``0, 1, 2, ...``.
"""

from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import StratifiedKFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import KBinsDiscretizer

from _shared import save_figure
from skbn import ChowLiuTree

X, y = load_breast_cancer(return_X_y=True, as_frame=True)  # 30 continuous columns, y = "target"


def make_model(learner):
    # set_output(transform="pandas"): the discretizer returns a DataFrame with the column names
    bins = KBinsDiscretizer(n_bins=4, encode="ordinal", strategy="quantile",
                            quantile_method="averaged_inverted_cdf").set_output(transform="pandas")
    return make_pipeline(bins, learner)


cv = StratifiedKFold(5, shuffle=True, random_state=0)
results = {}
for label, learner in [("TAN", ChowLiuTree(variant="tan")), ("Chow-Liu", ChowLiuTree())]:
    result = cross_validate(make_model(learner), X, y, cv=cv, scoring=["accuracy", "neg_log_loss"])
    results[label] = result
    print(f"{label:9s} accuracy {result['test_accuracy'].mean():.3f}   "
          f"log loss {-result['test_neg_log_loss'].mean():.3f}")

tan = make_model(ChowLiuTree(variant="tan")).fit(X, y)[-1]
tree = [(u, v) for u, v in tan.edges_ if "target" not in (u, v)]
print(f"\nTAN: the class is a parent of all {len(X.columns)} features; the feature tree's "
      f"first edges: {tree[:3]}")


def draw(plt):
    figure, axes = plt.subplots(1, 2, figsize=(7, 3))
    for axis, key, title in [(axes[0], "test_accuracy", "accuracy per fold"),
                             (axes[1], "test_neg_log_loss", "log loss per fold")]:
        values = [results[label][key] * (-1 if "loss" in key else 1) for label in results]
        axis.boxplot(values)
        axis.set_xticks(range(1, len(results) + 1), list(results))
        axis.set_title(title)
    figure.tight_layout()
    return figure


save_figure(draw, "tan_classifier.png")
