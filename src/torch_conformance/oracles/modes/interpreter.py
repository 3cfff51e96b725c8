"""Triton's interpreter, known-answer tested before its arithmetic judges anyone.

Without a GPU, Triton kernels (a spec's own, or those Inductor generates for
``inductor_triton``) run in Triton's interpreter, which is not exact: in
Triton 3.9 a product of two bfloat16 values is garbage and a float32 value
converted to bfloat16 is truncated, not rounded; and a load or store masked
by a comparison of the kernel's scalar arguments (which Inductor generates
for a view at a symbolic offset) raises ``mask has unsupported dtype``.
``faults()`` runs small kernels once per process, for every operation and
dtype below and for that mask, against what torch computes; ``launches()``
counts the interpreted kernels a run launched. A Case whose values come
from the interpreter in a dtype it gets wrong cannot be judged here by its
values, nor a run that raised what the self-check's kernel raises
(``oracles.triage.interpreter`` says so).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import torch

from torch_conformance.oracles.core.expectation import Expected, ulp_error
from torch_conformance.oracles.core.findings import error_chain

DTYPES = (torch.float32, torch.float16, torch.bfloat16)
# Operations whose result is one correct rounding: compared bit for bit.
EXACT = ("+", "-", "*", "/", "to float32 and back", "from float32")
# Operations a math library computes within an ULP or two.
APPROXIMATE = ("fma", "exp", "sin", "cos")
ULP_BUDGET = 2


# The faults' standalone reproductions, by kind.
ARITHMETIC_REPRO = "python upstream/triton_interpreter_bf16.py"
SCALAR_MASK_REPRO = "python upstream/triton_interpreter_scalar_mask.py"


@dataclasses.dataclass(frozen=True)
class InterpreterFault:
    """An operation the interpreter gets wrong in a dtype, with an example;
    or (``dtype`` None) one it refuses in every dtype, raising ``error``."""

    operation: str
    dtype: torch.dtype | None
    example: str
    repro: str = ARITHMETIC_REPRO
    error: str | None = None

    def __str__(self) -> str:
        if self.dtype is None:
            return f"{self.operation}: {self.example}"
        return f"{str(self.dtype).removeprefix('torch.')} {self.operation}: {self.example}"


def _error_text(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def active() -> bool:
    """Triton kernels run in Triton's interpreter in this process."""
    return os.environ.get("TRITON_INTERPRET") == "1"


@functools.cache
def _kernels() -> dict[str, Any]:
    import triton
    import triton.language as tl

    @triton.jit
    def binary(a_ptr, b_ptr, c_ptr, out_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
        offsets = tl.arange(0, BLOCK)
        mask = offsets < n
        a = tl.load(a_ptr + offsets, mask=mask)
        b = tl.load(b_ptr + offsets, mask=mask)
        c = tl.load(c_ptr + offsets, mask=mask)
        if OP == "+":
            result = a + b
        elif OP == "-":
            result = a - b
        elif OP == "*":
            result = a * b
        elif OP == "/":
            result = a / b
        elif OP == "fma":
            result = tl.fma(a, b, c)
        elif OP == "exp":
            result = tl.exp(a.to(tl.float32)).to(a.dtype)
        elif OP == "sin":
            result = tl.sin(a.to(tl.float32)).to(a.dtype)
        elif OP == "cos":
            result = tl.cos(a.to(tl.float32)).to(a.dtype)
        else:  # through float32 and back
            result = a.to(tl.float32).to(a.dtype)
        tl.store(out_ptr + offsets, result, mask=mask)

    @triton.jit
    def convert(source_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.arange(0, BLOCK)
        mask = offsets < n
        value = tl.load(source_ptr + offsets, mask=mask)
        tl.store(out_ptr + offsets, value.to(out_ptr.dtype.element_ty), mask=mask)

    @triton.jit
    def scalar_mask(source_ptr, out_ptr, start, end, BLOCK: tl.constexpr):
        # As Inductor writes a view's bounds check when its offset is symbolic.
        inside = (start >= 0) & (start < end)
        value = tl.load(source_ptr + tl.broadcast_to(start, [BLOCK]), inside, other=0.0)
        tl.store(out_ptr + tl.arange(0, BLOCK), value)

    return {"binary": binary, "convert": convert, "scalar_mask": scalar_mask}


def _check_scalar_mask() -> InterpreterFault | None:
    """A load masked by a comparison of scalar arguments: raises, or is wrong."""
    source, got = torch.arange(4, dtype=torch.float32), torch.zeros(1)
    operation = "a load masked by a comparison of scalar arguments"
    try:
        _kernels()["scalar_mask"][(1,)](source, got, 2, 4, BLOCK=1)
    except Exception as error:  # noqa: BLE001 - what it raises is the fault
        text = _error_text(error)
        return InterpreterFault(operation, None, f"raises {text}", SCALAR_MASK_REPRO, text)
    if got.item() != 2.0:
        return InterpreterFault(
            operation, None, f"gives {got.item()!r}, expected 2.0", SCALAR_MASK_REPRO
        )
    return None


def _operands(dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Fixed values of ``dtype``, normal ones and (for the round trip) subnormals."""
    generator = torch.Generator().manual_seed(0)
    a, b, c = (torch.randn(16, generator=generator).to(dtype) for _ in range(3))
    tiny = torch.finfo(dtype).tiny
    a[-3:] = torch.tensor([tiny / 3, -tiny / 7, tiny / 2.5]).to(dtype)
    b[b.abs() < 0.25] = 0.5  # no division by a near zero
    return a, b, c


def _expected(operation: str, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """What torch gives (exact operations) or float64 gives (approximate ones)."""
    exact = {"+": a + b, "-": a - b, "*": a * b, "/": a / b, "to float32 and back": a.clone()}
    if operation in exact:
        return exact[operation]
    wide = a.double()
    return {
        "fma": wide * b.double() + c.double(),
        "exp": wide.exp(),
        "sin": wide.sin(),
        "cos": wide.cos(),
    }[operation]


def _wrong(got: torch.Tensor, want: torch.Tensor, exact: bool) -> int | None:
    """The first element where ``got`` is wrong, if any."""
    if exact:
        bits = {1: torch.uint8, 2: torch.int16, 4: torch.int32}[got.element_size()]
        bad = got.view(bits) != want.view(bits)
    else:
        bad = ulp_error(got, Expected(want, want.abs())) > ULP_BUDGET
    where = bad.nonzero()
    return None if where.numel() == 0 else int(where[0])


def _check(operation: str, dtype: torch.dtype) -> InterpreterFault | None:
    kernels = _kernels()
    a, b, c = _operands(dtype)
    if operation == "from float32":
        source = torch.randn(16, generator=torch.Generator().manual_seed(1))
        got, want = torch.empty(16, dtype=dtype), source.to(dtype)
        kernels["convert"][(1,)](source, got, 16, BLOCK=16)
        first = _wrong(got, want, exact=True)
        if first is None:
            return None
        example = f"{source[first].item()!r} becomes {got[first].item()!r}"
        return InterpreterFault(
            operation, dtype, f"{example}, torch rounds to {want[first].item()!r}"
        )
    got = torch.empty_like(a)
    kernels["binary"][(1,)](a, b, c, got, a.numel(), OP=operation, BLOCK=16)
    want = _expected(operation, a, b, c)
    first = _wrong(got, want, exact=operation in EXACT)
    if first is None:
        return None
    shown = f"{a[first].item()!r} {operation} {b[first].item()!r}"
    if operation == "to float32 and back":
        bits = int(a.view(torch.int16 if dtype != torch.float32 else torch.int32)[first])
        shown = f"{a[first].item()!r} (bits {bits & 0xFFFF:#06x}) through float32"
    elif operation in APPROXIMATE and operation != "fma":
        shown = f"{operation}({a[first].item()!r})"
    return InterpreterFault(
        operation, dtype, f"{shown} -> {got[first].item()!r}, expected {want[first].item()!r}"
    )


@functools.cache
def faults() -> tuple[InterpreterFault, ...]:
    """What the interpreter gets wrong here, once per process (none where it is off)."""
    if not active():
        return ()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy on the garbage values
        arithmetic = tuple(
            fault
            for dtype in DTYPES
            for operation in (*EXACT, *APPROXIMATE)
            if (fault := _check(operation, dtype)) is not None
        )
        mask = _check_scalar_mask()
        return arithmetic + ((mask,) if mask is not None else ())


def raised_by(fault: InterpreterFault, error: BaseException) -> bool:
    """``error`` (or one it was raised from) is what ``fault``'s kernel raised."""
    return fault.error is not None and any(
        _error_text(cause) == fault.error for cause in error_chain(error)
    )


class _Launches:
    count = 0


_LAUNCHES = _Launches()


def _count_launches() -> None:
    """Count every kernel launch Triton's interpreter runs from now on."""
    from triton.runtime.interpreter import InterpretedFunction

    run = InterpretedFunction.run
    if getattr(run, "counts_launches", False):
        return

    def counted(self, *args, **kwargs):
        if not kwargs.get("warmup"):
            _LAUNCHES.count += 1
        return run(self, *args, **kwargs)

    counted.counts_launches = True  # type: ignore[attr-defined]
    InterpretedFunction.run = counted


def _drop_discarded_overflow_checks() -> None:
    """Stop the interpreter computing integer-overflow checks it then discards.

    Triton's ``sanitize_overflow`` (on by default) recomputes every int32
    add, sub and mul in int64 and hands the bounds check to
    ``device_assert``, which drops it without ``debug``: on a GPU the check
    is compiled out, but the interpreter still computes it, element by
    element, and in Inductor's indexing that is half of its time. Values
    and errors are unchanged; under ``debug`` the checks stay.
    """
    from triton.runtime.interpreter import interpreter_builder

    options = interpreter_builder.options
    if not options.debug and getattr(options, "sanitize_overflow", False):
        interpreter_builder.options = dataclasses.replace(options, sanitize_overflow=False)


@contextlib.contextmanager
def launches() -> Iterator[Callable[[], int]]:
    """``launched()``: how many interpreted kernels ran inside the block."""
    if not active():
        yield lambda: 0
        return
    _drop_discarded_overflow_checks()
    _count_launches()
    before = _LAUNCHES.count
    yield lambda: _LAUNCHES.count - before
