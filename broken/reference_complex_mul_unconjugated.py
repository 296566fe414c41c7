"""Breaks CPLX-3 on the reference engine. MulBackward0 multiplies the gradient by the other
operand as for real numbers, without conjugating it: z * z backpropagates v * 2z, not v * conj(2z)."""

import autograd_conformance.reference.ops.arithmetic as arithmetic
from autograd_conformance.reference.ops.common import sum_to
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _unconjugated(self, grad):
    a, b = self.saved(grad)
    return (sum_to(grad * b, self.metas[0]) if self.needs_grad(0) else None,
            sum_to(grad * a, self.metas[1]) if self.needs_grad(1) else None)


arithmetic.MulBackward0.backward = _unconjugated
