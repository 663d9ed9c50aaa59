"""The one place that imports scikit-learn names (private ones included).

Supported: scikit-learn >= 1.6.
"""

from sklearn.exceptions import NotFittedError  # noqa: F401
from sklearn.utils._param_validation import (  # noqa: F401
    Interval,
    StrOptions,
    validate_parameter_constraints,
)
from sklearn.utils.metaestimators import available_if  # noqa: F401
from sklearn.utils.validation import check_is_fitted, validate_data  # noqa: F401
