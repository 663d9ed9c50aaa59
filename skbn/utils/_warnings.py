"""Warnings attributed to the user's line, not to skbn's internals."""

import sys
import warnings
from pathlib import Path

#: The installed package's folder: frames whose file is below it are skbn's own.
_PACKAGE = str(Path(__file__).resolve().parents[1])


def warn_user(message, category=UserWarning):
    """``warnings.warn`` with the stack level of the first caller outside skbn.

    A fixed ``stacklevel`` points at whichever skbn frame happens to sit there (a wrapper
    of ``fit``, a helper), so the warning would show a path inside the installed package
    and the ``"default"`` filter could not tell two user calls apart. This walks the stack
    to the first frame whose file is not in the package (the user's script, a test, or a
    library such as scikit-learn that called the estimator).
    """
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level + 1)
