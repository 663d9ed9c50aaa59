"""``python -m skbn``: the ``skbn`` command line (see :mod:`skbn.cli`).

Without a command it runs the demo: learn the built-in ASIA network back from sampled
rows (``python -m skbn --n-samples 2000``); ``python -m skbn --help`` lists the commands.
"""

import sys

if __name__ == "__main__":
    try:
        from skbn.cli import main
    except KeyboardInterrupt:  # Ctrl-C while starting up
        print("skbn: interrupted", file=sys.stderr)
        sys.exit(130)
    sys.exit(main())
