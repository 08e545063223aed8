"""`python -m benchmarks NAME [options]` (:mod:`benchmarks.cli`)."""

import sys

from benchmarks.cli import main

sys.exit(main())
