"""Public: strategies of Cases of rows of a hidden dimension, as the norm,
activation and collective families draw them (see ``oracles.strategies.hidden_rows``)."""

from torch_conformance.oracles.strategies.hidden_rows import (
    FLOAT_DTYPES,
    Rows,
    RowsModel,
    RowsStructure,
    contiguous_model,
    rows_batches,
    rows_case,
    rows_cases,
)

__all__ = [
    "FLOAT_DTYPES",
    "Rows",
    "RowsModel",
    "RowsStructure",
    "contiguous_model",
    "rows_batches",
    "rows_case",
    "rows_cases",
]
