"""AOTAutograd's cache serves a graph specialized to a size of 1 to a
recompile at another size.

Upstream: no report found (nearest: pytorch/pytorch#194001, a cache key
without shape-env guards, another path).

``torch.compile(program, dynamic=True)`` runs with ``rows=1``, then with
``rows=23``. The second call recompiles, and that compile looks in
AOTAutograd's cache (``torch._functorch.config.enable_autograd_cache``, on by
default, used only with Inductor's FX graph cache). The cached entry's shape
guards should turn it down, but ``ShapeEnv.produce_guards_expression`` joins
the guards with ``" and "`` and adds no parentheses, and
``x.unflatten(1, (-1, n))`` with a symbolic ``n`` adds a guard that prints as
``t1 == t3 or t3 > 0 and ...``. So the whole expression reads as
``(guards on rows and ...) or (the rest)``, which is true at ``rows=23``, and
the cache returns the graph that sums a single row (wrapping each guard in
parentheses makes the cache miss, and the result right).

Expected (eager, and compiled with the autograd cache off):
``[5572.0, 5595.0, 5618.0, 5641.0]``. Actual (torch 2.11, 2.12, 2.13):
``[4560.0, 4561.0, 4562.0, 4563.0]``, that is ``x[:1].sum(0) + x.sum()``.
Where the program indexes a table of ``rows`` rows (a rotary embedding's
``cos_sin_cache[positions]``), the wrong graph fails Inductor's bounds check
instead: ``index out of bounds: 0 <= tmp9 < 1L``. On 2.14.1 and 2.15.0 the
recompile gets another cache key, so the cache is not hit, though the join
without parentheses is still in the code.

Run: ``python upstream/autograd_cache_specialization.py`` (exit status 1
where it reproduces).
"""

import sys
import tempfile
from unittest import mock

import torch

ROWS = (1, 23)  # the first compile specializes to rows=1; the second must not reuse it


def program(x: torch.Tensor, rows: int, n: int) -> torch.Tensor:
    # unflatten with a symbolic n adds the guard that contains an "or".
    return x[:rows].sum(0) + x.unflatten(1, (-1, n)).sum()


def results(autograd_cache: bool = True) -> list[tuple[torch.Tensor, torch.Tensor | str]]:
    """(eager, compiled) for each of ROWS, compiled with a fresh, empty on-disk cache."""
    torch._dynamo.reset()  # forget earlier compiles, so that the second call recompiles
    out = []
    with (
        tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as cache,
        mock.patch.dict("os.environ", {"TORCHINDUCTOR_CACHE_DIR": cache}),
        # The autograd cache is skipped unless the FX graph cache is on.
        torch._inductor.config.patch(fx_graph_cache=True),
        torch._functorch.config.patch(enable_autograd_cache=autograd_cache),
    ):
        compiled = torch.compile(program, dynamic=True)
        for rows in ROWS:
            x = torch.arange(96.0).view(24, 4)  # small integers: every sum is exact
            try:
                got = compiled(x, rows, 4)
            except Exception as error:  # a wrong graph can also fail a bounds check
                got = f"{type(error).__name__}: {error}"
            out.append((program(x, rows, 4), got))
        torch._dynamo.reset()  # drop the graphs loaded from the folder about to go
    return out


def wrong(want: torch.Tensor, got: torch.Tensor | str) -> bool:
    return isinstance(got, str) or not torch.equal(want, got)


def reproduces() -> bool:
    return any(wrong(want, got) for want, got in results())


def shown(got: torch.Tensor | str) -> object:
    return got if isinstance(got, str) else got.tolist()


if __name__ == "__main__":
    pairs = results()
    want, got = pairs[-1]
    print(f"torch {torch.__version__}")
    print(f"rows={ROWS[-1]} expected (eager):          {want.tolist()}")
    print(f"rows={ROWS[-1]} autograd cache off:        {shown(results(False)[-1][1])}")
    print(f"rows={ROWS[-1]} actual, autograd cache on: {shown(got)}")
    sys.exit(int(any(wrong(w, g) for w, g in pairs)))
