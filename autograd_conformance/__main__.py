"""`python -m autograd_conformance`: the `autograd-conformance` command."""

import sys

from .cli import main

sys.exit(main())
