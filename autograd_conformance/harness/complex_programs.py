"""Random complex programs and their real oracle: the same program on the real and imaginary parts.

A `ComplexProgram` is a chain of complex ops (+, -, *, negation, and, unless drawn holomorphic
only, conj()) on complex leaves of one shape, ending in a real loss L = Re(sum(conj(out) * v)) for
a complex weight v, so that out.backward(v) asks for the same gradient (CPLX-2, CPLX-3).
torch's convention is z.grad = dL/dx + i dL/dy for z = x + iy. `split` writes the program as a
real `Program` of autograd_conformance/harness/ops.py (each complex leaf two real leaves x_re, x_im; each complex op its
real formulas, a product (a_re*b_re - a_im*b_im, a_re*b_im + a_im*b_re)), whose analytic gradients
(autograd_conformance/harness/oracles.py) are dL/dx and dL/dy: an oracle that knows nothing of Wirtinger calculus.

Error analysis: oracles.py's tolerances carry over. Each complex op is at most two real roundings
deep per component (products, then one sum), the engine's complex arithmetic rounds the same
products and sums, and the ops have no amplifying derivatives (no log, division or exp): with at
most MAX_OPS = 4 complex ops and the loss's three real ops a path is at most 11 ops long, within the
14 that the tolerances were derived for, and `Gradients.magnitude` of the split program scales the
absolute part exactly as for real programs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

from .program import Leaf, Node, Program
from .strategies import shapes, values

MAX_OPS = 4
TEMPLATES = {"add": "{0} + {1}", "sub": "{0} - {1}", "mul": "{0} * {1}", "neg": "-{0}",
             "conj": "{0}.conj()"}
HOLOMORPHIC = ("add", "sub", "mul", "neg")
REAL_DTYPE = {"complex64": "float32", "complex128": "float64"}


def complex_literal(array: np.ndarray) -> str:
    """A complex array as a nested list of Python complex numbers that reads back exactly."""
    return repr(np.asarray(array, np.complex128).tolist())


@dataclass(frozen=True)
class ComplexProgram:
    dtype: str                                   # "complex64" or "complex128"
    leaves: tuple[tuple[str, np.ndarray], ...]   # complex128 values exact in dtype
    nodes: tuple[Node, ...]                      # ops of TEMPLATES; the last one is the output
    weight: np.ndarray                           # v of the loss Re(sum(conj(out) * v))

    @property
    def real_dtype(self) -> str:
        return REAL_DTYPE[self.dtype]

    def script_lines(self) -> list[str]:
        """The torch statements that build the program and `v`, ending with `out = ...`."""
        lines = [f"{name} = torch.tensor({complex_literal(value)}, dtype=torch.{self.dtype}, "
                 "requires_grad=True)" for name, value in self.leaves]
        lines += [f"{node.name} = {TEMPLATES[node.op].format(*node.args)}" for node in self.nodes]
        lines.append(f"v = torch.tensor({complex_literal(self.weight)}, dtype=torch.{self.dtype})")
        lines.append(f"out = {self.nodes[-1].name}")
        return lines

    def split(self) -> Program:
        """The real program over the leaves' real and imaginary parts whose output is L."""
        parts, nodes = {}, []

        def apply(op, *args):
            nodes.append(Node(f"t{len(nodes)}", op, args))
            return nodes[-1].name

        leaves = [Leaf(f"{name}_{part}", np.array(take(value)), True)
                  for name, value in self.leaves for part, take in (("re", np.real), ("im", np.imag))]
        leaves += [Leaf("v_re", self.weight.real.copy(), False),
                   Leaf("v_im", self.weight.imag.copy(), False)]
        for name, _ in self.leaves:
            parts[name] = (f"{name}_re", f"{name}_im")
        parts["v"] = ("v_re", "v_im")
        for node in self.nodes:
            parts[node.name] = _split_op(apply, node.op, *(parts[arg] for arg in node.args))
        (o_re, o_im), (v_re, v_im) = parts[self.nodes[-1].name], parts["v"]
        loss = apply("sum", apply("add", apply("mul", o_re, v_re), apply("mul", o_im, v_im)))
        return Program(self.real_dtype, tuple(leaves), tuple(nodes), loss)

    def __repr__(self) -> str:
        return "\n" + "\n".join(self.script_lines()) + "\n"


def _split_op(apply, op, a, b=None):
    """(real part, imaginary part) of one complex op, from its operands' parts, as real nodes."""
    if op in ("add", "sub"):
        return apply(op, a[0], b[0]), apply(op, a[1], b[1])
    if op == "mul":
        return (apply("sub", apply("mul", a[0], b[0]), apply("mul", a[1], b[1])),
                apply("add", apply("mul", a[0], b[1]), apply("mul", a[1], b[0])))
    if op == "neg":
        return apply("neg", a[0]), apply("neg", a[1])
    return a[0], apply("neg", a[1])     # conj


def complex_values(shape: tuple[int, ...], dtype: str) -> st.SearchStrategy[np.ndarray]:
    """Complex arrays of `shape` whose real and imaginary parts are strategies.values of the
    matching real dtype (exact in `dtype`), as complex128."""
    parts = values(shape, REAL_DTYPE[dtype])
    return st.tuples(parts, parts).map(lambda pair: np.asarray(pair[0] + 1j * pair[1]))


@st.composite
def complex_programs(draw, holomorphic: bool = False) -> ComplexProgram:
    """A chain of 1 to MAX_OPS complex ops; each op's first operand is the latest variable, so every
    leaf reaches the output, and a binary op's second is an earlier variable or a fresh leaf."""
    dtype = draw(st.sampled_from(("complex64", "complex128")), label="dtype")
    shape = draw(shapes(max_dims=2), label="shape")
    leaves = [("z0", draw(complex_values(shape, dtype), label="z0"))]
    names, nodes = ["z0"], []
    for index in range(draw(st.integers(1, MAX_OPS), label="ops")):
        op = draw(st.sampled_from(HOLOMORPHIC if holomorphic else tuple(TEMPLATES)), label="op")
        args = (names[-1],)
        if op in ("add", "sub", "mul"):
            choice = draw(st.integers(0, len(names)), label=f"{op} second operand")
            if choice == len(names):
                leaves.append((f"z{len(leaves)}", draw(complex_values(shape, dtype),
                                                        label=f"z{len(leaves)}")))
                names.append(leaves[-1][0])
            args += (names[choice],)
        nodes.append(Node(f"c{index}", op, args))
        names.append(nodes[-1].name)
    weight = draw(complex_values(shape, dtype), label="v")
    return ComplexProgram(dtype, tuple(leaves), tuple(nodes), weight)
