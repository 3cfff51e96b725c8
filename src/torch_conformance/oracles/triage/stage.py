"""The stage at fault: which compiler stage first disagrees with eager, and
within Inductor, the passes or subsystems whose removal makes it agree."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from torch_conformance.oracles.core.findings import Finding
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.core.verdicts import STAGE
from torch_conformance.oracles.modes.compiled import Compiled, stages_before
from torch_conformance.oracles.triage.switches import PASS, SWITCHES


def stage_at_fault(
    spec: Spec,
    mode: Compiled,
    compare: Callable[[Compiled], list[Finding]],
    eager: Sequence[Finding] = (),
) -> Finding:
    """Which compiler stage first disagrees with eager, as
    ``torch._inductor.compiler_bisector`` would find by hand: ``compare(stage)``
    compiles the failing Case again by each stage before ``mode``, in order.
    Where every stage before Inductor agrees, it compiles the Case again
    with each of Inductor's passes or subsystems off in turn
    (``oracles.triage.switches``) and names those under which it agrees.
    (An op whose schema torch.compile cannot functionalize never gets here:
    the runner reports its schema once, see ``runner.property``.)

    ``eager``: what the Case's eager run already gets wrong (it raised, or
    lies outside the reference's budget). No compiler stage is then named:
    the disagreement is not the compiler's to begin with."""
    wrong = [f for f in eager if f.blocking]
    if wrong:
        return Finding(
            STAGE,
            "no compiler stage is at fault: eager itself already disagrees with what the "
            f"spec expects ({wrong[0]})",
            blocking=False,
        )
    for stage in stages_before(mode):
        found = [f for f in compare(stage) if f.blocking]
        if found:
            return Finding(
                STAGE,
                f"the first compiler stage to disagree with eager is {stage.what}: {found[0]}",
                blocking=False,
            )
    before = ", ".join(stage.what for stage in stages_before(mode))
    blame = (
        " (which alone trusts the op's fake for strides and aliasing: the fake check "
        "tells whether the fake is to blame)"
        if mode.backend == "inductor" and spec.overload is not None
        else ""
    )
    return Finding(
        STAGE,
        f"every stage before {mode.name} ({before or 'none'}) agrees with eager: the "
        f"difference arises in {mode.what}{_culprits(mode, compare)}{blame}",
        blocking=False,
    )


def _culprits(mode: Compiled, compare: Callable[[Compiled], list[Finding]]) -> str:
    """Which of Inductor's passes, turned off alone, make the Case agree."""
    if mode.backend != "inductor":
        return ""
    tried = [s for s in SWITCHES.values() if s.kind == PASS and s.available(mode)]
    agree = [s.what for s in tried if not any(f.blocking for f in compare(s.mode(mode)))]
    if not agree:
        return f"; none of its {len(tried)} passes or subsystems, turned off alone, undoes it"
    return "; it disappears with " + " off, or with ".join(agree) + " off"
