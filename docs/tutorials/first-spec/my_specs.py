# my_specs.py
import mylib  # noqa: F401  (registers mylib::scale)
import torch
from hypothesis import strategies as st

from torch_conformance.case import Buffer, Case, View
from torch_conformance.layouts import strided_layouts
from torch_conformance.reference import Expectation, Expected
from torch_conformance.spec import Spec


@st.composite
def scale_cases(draw):
    shape = tuple(draw(st.lists(st.integers(1, 8), min_size=1, max_size=3)))
    layout = draw(strided_layouts(shape, last_dim_contiguous=False))
    dtype = draw(st.sampled_from([torch.float32, torch.bfloat16]))
    return Case(
        buffers={"x": Buffer(layout.buffer_shape, dtype)},
        args={"x": View("x", layout.ops), "alpha": draw(st.floats(-4, 4))},
        seed=draw(st.integers(0, 2**32 - 1)),
    )


def scale_reference(x, alpha):
    value = x.double() * alpha
    return Expectation(outputs=(Expected(value, value.abs()),))


SPECS = [
    Spec(
        name="scale",
        op="mylib::scale",  # or torch.ops.mylib.scale, or a Python function
        cases=scale_cases(),
        reference=scale_reference,
        ulp_budget=2,  # alpha rounded to float, then the product
        program=lambda op, **args: op(**args).reshape(-1),  # data movement only
        families=("elementwise",),
    ),
]
