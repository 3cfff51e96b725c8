"""The Cases a script runs: their buffers as data, their views as torch calls."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from torch_conformance.oracles.core.buffers import DEFAULT, Case, View, views_in
from torch_conformance.oracles.core.devices import DEFAULT_DEVICE
from torch_conformance.oracles.core.signature import Constant
from torch_conformance.oracles.core.views import view_expression, view_ranks
from torch_conformance.oracles.repro.values import comment, literal, size_literal


def allocate_function(cases: Sequence[Case]) -> str:
    """``allocate``: a Case's buffers as the suite allocates them, moved to
    its device where the script's Cases are not on the CPU (a CPU Case's
    script reads as it did before Cases had devices)."""
    on_device = any(case.device != DEFAULT_DEVICE for case in cases)
    entry = "name: buffer.allocate(generator)" + ('.to(case["device"])' if on_device else "")
    where = ", on its device" if on_device else ""
    return f'''
def allocate(case):
    """The Case's buffers as the suite allocates them: one generator seeded with
    the Case's seed, the buffers in sorted name order (so the same values){where}."""
    generator = torch.Generator().manual_seed(case["seed"])
    return {{{entry} for name, buffer in sorted(case["buffers"].items())}}
'''


def cases_table(cases: Sequence[Case], sizes: Sequence[tuple[int, ...]], buffer: str) -> str:
    """``CASES``: each Case's seed, buffers (made by the class named ``buffer``)
    and the sizes that vary across a batch."""
    lines = ["CASES = ["]
    for number, (case, case_sizes) in enumerate(zip(cases, sizes, strict=True), 1):
        title = f"Case {number} of {len(cases)}" if len(cases) > 1 else "The Case"
        if len(cases) > 1 and number == len(cases):
            title += " (the one the suite saw fail)"
        text = comment(f"{title}: {case.describe()}", "  ", 84)
        lines.append("    " + text.replace("\n", "\n    "))
        lines.append("    {")
        lines.append(f'        "seed": {case.seed},')
        if case.device != DEFAULT_DEVICE:
            lines.append(f'        "device": {literal(case.device)},')
        lines.append('        "buffers": {')
        for name, spec in sorted(case.buffers.items()):
            lines.append(
                f"            {literal(name)}: {buffer}({literal(tuple(spec.shape))}, "
                f"{literal(spec.dtype)}, {literal(spec.fill)}),"
            )
        lines.append("        },")
        lines.append(f'        "sizes": {literal(tuple(case_sizes))},')
        if case.tangents:
            lines.append(f'        "tangents": {literal(tuple(case.tangents))},')
        lines.append("    },")
    lines.append("]")
    return "\n".join(lines)


def _views_expression(
    template: Any, concrete: Any, meta: dict[str, Any], parameters: dict[str, str]
) -> str:
    """A View (or a list of them: ``Tensor[]``) as the torch calls that make it."""
    if isinstance(template, View):
        ranks = view_ranks(meta[concrete.buffer], concrete.ops)
        return view_expression(parameters[template.buffer], template.ops, ranks, size_literal)
    items = [
        _views_expression(t, c, meta, parameters) for t, c in zip(template, concrete, strict=True)
    ]
    return f"[{', '.join(items)}]"


def arguments_function(
    args: Sequence[tuple[str, Any]],
    case: Case,
    buffer_names: Sequence[str],
    size_names: Sequence[str],
    parameters: dict[str, str],
) -> str:
    """``arguments``: the op's arguments made of the buffers (and sizes)."""
    meta = case.meta_buffers()
    entries = []
    for name, value in args:
        if isinstance(value, Constant):
            value = value.value
        if value is DEFAULT:
            continue  # left out: the op uses its schema default
        if views_in(value):
            expression = _views_expression(value, case.args[name], meta, parameters)
        else:
            expression = literal(value)
        entries.append(f"        {literal(name)}: {expression},")
    signature = ", ".join([parameters[n] for n in buffer_names] + list(size_names))
    body = "\n".join(entries)
    code = (
        f"def arguments({signature}):\n"
        '    """The op\'s arguments: the Case\'s views of its buffers, as in the suite."""\n'
        f"    return {{\n{body}\n    }}\n"
    )
    if size_names:
        varying = ", ".join(size_names)
        code = (
            f"# {varying}: sizes of the views, inputs of the compiled program as in the\n"
            "# suite (symbolic where it compiles with dynamic shapes).\n" + code
        )
    return code
