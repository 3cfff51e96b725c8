"""The bug zoo of every family: ``pytest --specs suites/zoo.py`` must fail on each.

Each family keeps its zoo beside its kernels (``families/<name>/zoo.py``);
``tests/compiled/test_zoo.py`` asserts the Finding each entry produces.
"""

from __future__ import annotations

from torch_conformance.suites.catalog import specs_of

SPECS = specs_of("zoo")
