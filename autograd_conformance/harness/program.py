"""Random programs as data: engine-neutral instruction lists, and the interpreters that run them.

A `Program` is a list of leaves (values, dtype, requires_grad) and of nodes (one op applied to
earlier variables). It is written as torch statements (`script_lines`), which a test's Script
(autograd_conformance/harness/script.py) runs on an engine and prints in the reproducer, and computed in float64 NumPy
(`evaluate`, the oracle's forward pass).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .ops import OPS, render

# The values of the leaves `Program.fed_by` adds: distinct, exact in float32, neither 0 nor 1.
FRESH_FACTORS = (2.0, -0.5, 1.5, -3.0)


@dataclass(frozen=True)
class Leaf:
    name: str
    values: np.ndarray          # float64 values, exactly representable in the program's dtype
    requires_grad: bool


@dataclass(frozen=True)
class Node:
    name: str
    op: str
    args: tuple[str, ...]
    param: Any = None


@dataclass(frozen=True)
class Program:
    dtype: str                  # "float32" or "float64"
    leaves: tuple[Leaf, ...]
    nodes: tuple[Node, ...]
    output: str
    _requires_grad: dict = field(default_factory=dict, compare=False, repr=False)

    # -- structure ---------------------------------------------------------------------------
    def leaf(self, name: str) -> Leaf:
        return next(leaf for leaf in self.leaves if leaf.name == name)

    def node(self, name: str) -> Node:
        return next(node for node in self.nodes if node.name == name)

    def requires_grad(self, name: str) -> bool:
        """Whether variable `name` requires grad (in grad mode): torch's propagation rule REQ-8."""
        if not self._requires_grad:
            flags = {leaf.name: leaf.requires_grad for leaf in self.leaves}
            for node in self.nodes:
                flags[node.name] = any(flags[arg] for arg in node.args)
            self._requires_grad.update(flags)
        return self._requires_grad[name]

    def ancestors(self, name: str | None = None) -> set[str]:
        """Every variable that `name` (default: the output) depends on, itself included."""
        parents = {node.name: node.args for node in self.nodes}
        seen, stack = set(), [name or self.output]
        while stack:
            current = stack.pop()
            if current not in seen:
                seen.add(current)
                stack.extend(parents.get(current, ()))
        return seen

    def grad_leaves(self) -> list[Leaf]:
        """Leaves that require grad and take part in the output: they get `.grad` (LEAF-5)."""
        used = self.ancestors()
        return [leaf for leaf in self.leaves if leaf.requires_grad and leaf.name in used]

    def saves_tensors(self) -> bool:
        """Whether backward from the output passes a torch node that saved tensors (RETAIN-1/3)."""
        used = self.ancestors()
        return any(OPS[node.op].saves_tensors and self.requires_grad(node.name)
                   for node in self.nodes if node.name in used)

    def output_shape(self) -> tuple[int, ...]:
        return self.evaluate()[self.output].shape

    def with_leaf_values(self, name: str, values: np.ndarray) -> "Program":
        leaves = tuple(Leaf(leaf.name, values, leaf.requires_grad) if leaf.name == name else leaf
                       for leaf in self.leaves)
        return Program(self.dtype, leaves, self.nodes, self.output)

    def with_requires_grad(self, flags: dict[str, bool]) -> "Program":
        leaves = tuple(Leaf(leaf.name, leaf.values, flags.get(leaf.name, leaf.requires_grad))
                       for leaf in self.leaves)
        return Program(self.dtype, leaves, self.nodes, self.output)

    def fed_by(self, count: int, op: str = "mul") -> "Program":
        """This program with fresh 0-dim leaves f1, f2, ... (requiring grad, of distinct values
        exact in float32) that `op` ("mul", or "add" to keep a linear program linear) combines
        with its output, one after another, until at least `count` leaves that require grad feed
        the output: for a test that needs that many inputs. Through "mul", each one's derivative
        differs from the others' (unless the output is zero)."""
        leaves, nodes, output = list(self.leaves), list(self.nodes), self.output
        for k, value in enumerate(FRESH_FACTORS[:max(0, count - len(self.grad_leaves()))], start=1):
            leaves.append(Leaf(f"f{k}", np.array(value), True))
            nodes.append(Node(f"fed{k}", op, (output, f"f{k}")))
            output = f"fed{k}"
        return Program(self.dtype, tuple(leaves), tuple(nodes), output)

    # -- interpreters ------------------------------------------------------------------------
    def run_on(self, engine, given: dict[str, Any] | None = None) -> dict[str, Any]:
        """Build the program's graph on `engine` by running its script lines there (with `torch`
        bound to the engine's namespace); returns every variable's tensor by name. `given`
        supplies ready-made tensors for some leaves (e.g. a function's argument)."""
        names = {"torch": engine.ns, **(given or {})}
        exec("\n".join(self.script_lines(given=tuple(given or ()))), names)
        return {name: names[name] for name in self.variables()}

    def evaluate(self, overrides: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
        """Every variable's value in float64 NumPy. `overrides` replaces the values of some
        variables, leaves or nodes (a node given a value is treated as an input)."""
        values = {leaf.name: leaf.values for leaf in self.leaves}
        values.update(overrides or {})
        for node in self.nodes:
            if node.name not in values:
                values[node.name] = np.asarray(
                    OPS[node.op].on_numpy(*(values[a] for a in node.args), node.param),
                    dtype=np.float64)
        return values

    # -- the program as torch code (autograd_conformance/harness/script.py runs it and prints it) -------------------
    def script_lines(self, given=(), wrap=None) -> list[str]:
        """The statements that build this program in a torch script, ending with `out = ...`.
        Leaves named in `given` are left out (the script defines them); `wrap(name, line)`, if
        given, returns the lines that replace node `name`'s line `line`."""
        lines = []
        for leaf in self.leaves:
            if leaf.name not in given:
                grad = ", requires_grad=True" if leaf.requires_grad else ""
                lines.append(f"{leaf.name} = torch.tensor({leaf.values.tolist()!r}, "
                             f"dtype=torch.{self.dtype}{grad})")
        for node in self.nodes:
            line = f"{node.name} = {render(OPS[node.op], node.args, node.param)}"
            lines.extend([line] if wrap is None else wrap(node.name, line))
        lines.append(f"out = {self.output}")
        return lines

    def variables(self) -> list[str]:
        return [leaf.name for leaf in self.leaves] + [node.name for node in self.nodes] + ["out"]

    def __repr__(self) -> str:
        return "\n" + "\n".join(self.script_lines()) + "\n"

    def _repr_pretty_(self, printer, cycle) -> None:
        """Hypothesis prints a falsifying program as its torch script."""
        printer.text(repr(self))
