"""``python -m torch_conformance``: the ``torch-conformance`` command."""

import sys

from torch_conformance.cli import main

sys.exit(main())
