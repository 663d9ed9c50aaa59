"""
A Bayesian-network classifier in a pipeline
===========================================

A Bayesian-network classifier in a scikit-learn pipeline on continuous data::

    python examples/tan_classifier.py

KBinsDiscretizer turns the breast-cancer measurements into ordinal bins; tree-augmented naive
Bayes (ChowLiuTree(variant="tan")) is compared with a plain Chow-Liu tree over features and
class, by cross-validated accuracy and log loss.
"""

from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import StratifiedKFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import KBinsDiscretizer

from skbn import ChowLiuTree

X, y = load_breast_cancer(return_X_y=True, as_frame=True)
cv = StratifiedKFold(5, shuffle=True, random_state=0)
for label, learner in [("TAN", ChowLiuTree(variant="tan")), ("Chow-Liu", ChowLiuTree())]:
    pipe = make_pipeline(
        KBinsDiscretizer(n_bins=4, encode="ordinal", strategy="quantile",
                         quantile_method="averaged_inverted_cdf"),
        learner,
    )
    result = cross_validate(pipe, X, y, cv=cv, scoring=["accuracy", "neg_log_loss"])
    print(f"{label:9s} accuracy {result['test_accuracy'].mean():.3f}   "
          f"log loss {-result['test_neg_log_loss'].mean():.3f}")
