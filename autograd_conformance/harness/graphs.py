"""A failing example's graph, for the report to draw beside the graph torch builds: what the engine
says about each variable's tensor (`describe_graph`, read from the example's own tensors, nothing
run again), and what torch would build by the catalog's rules (`expected_graph`, nothing run). The
library reads the engine here so that the report room never touches one: the runner attaches both
to the failing test's report (runner/evidence.py)."""

from __future__ import annotations

from .ops import OPS


def _variables(program) -> list[dict]:
    return ([{"name": leaf.name, "op": None, "args": []} for leaf in program.leaves]
            + [{"name": node.name, "op": node.op, "args": list(node.args)}
               for node in program.nodes])


def describe_graph(program, engine, tensors: dict) -> dict:
    """Read, for every variable of `program`, what the engine says about its tensor in `tensors`
    (the failing example's own, from its script: nothing is run again):
    {"variables": [{name, op, args, is_leaf, requires_grad, grad_fn, edges}], "error": str | None,
    "grad_fn_names": bool}. `grad_fn` is the node's label (`grad_fn.name()` where the node has
    one, else its class name); `edges` says, per operand, whether next_functions has a node for
    it, and is read only from engines that declare `graph`; `grad_fn_names` says whether the
    engine declares torch's node names, so that the picture compares names only then. Values are
    strings or booleans as the engine gave them; nothing is interpreted."""
    variables = _variables(program)
    missing = [variable["name"] for variable in variables if variable["name"] not in tensors]
    for variable in variables:
        tensor = tensors.get(variable["name"])
        if tensor is None:
            continue
        variable["is_leaf"] = _read(lambda: bool(tensor.is_leaf))
        variable["requires_grad"] = _read(lambda: bool(tensor.requires_grad))
        variable["grad_fn"] = _read(lambda: node_label(tensor.grad_fn))
        variable["edges"] = (_read(lambda: [child is not None for child, _ in
                                            tensor.grad_fn.next_functions])
                             if engine.has("graph") and variable["grad_fn"] is not None else None)
    error = f"not built: {', '.join(missing)} (the script failed before)" if missing else None
    return {"variables": variables, "error": error, "grad_fn_names": engine.has("grad_fn_names")}


def expected_graph(program) -> dict:
    """The graph torch builds for `program`, by the catalog's rules rather than by running torch:
    a result requires grad iff an input does (REQ-8) and is then a non-leaf (LEAF-3) whose node is
    the op's torch node (ops.py), with an edge per operand that requires grad (GFN-3).
    Torch's reshape of an input that may not be contiguous records a copy node of its own
    choosing, so there only the node's presence is known (`uncertain`)."""
    variables = _variables(program)
    contiguous = _surely_contiguous(program)
    for variable in variables:
        requires_grad = program.requires_grad(variable["name"])
        node = variable["op"] is not None and requires_grad
        variable["requires_grad"] = requires_grad
        variable["is_leaf"] = not node
        variable["grad_fn"] = (OPS[variable["op"]].grad_fn_name(program.node(variable["name"]).param)
                               if node else None)
        variable["edges"] = ([program.requires_grad(arg) for arg in variable["args"]]
                             if node else None)
        if node and variable["op"] == "reshape" and not contiguous[variable["args"][0]]:
            variable["uncertain"] = True
    return {"variables": variables, "error": None, "grad_fn_names": True}


def _surely_contiguous(program) -> dict[str, bool]:
    """Which variables torch surely lays out contiguously: leaves, and results of ops on surely
    contiguous inputs other than transpose (elementwise results keep their inputs' layout)."""
    contiguous = {leaf.name: True for leaf in program.leaves}
    for node in program.nodes:
        contiguous[node.name] = (node.op != "transpose"
                                 and all(contiguous[arg] for arg in node.args))
    return contiguous


def node_label(grad_fn) -> str | None:
    """A graph node's label: its `name()` where it has one (torch's Node.name()), else its class
    name; None for no node."""
    if grad_fn is None:
        return None
    name = getattr(grad_fn, "name", None)
    return str(name()) if callable(name) else type(grad_fn).__name__


def _read(getter):
    try:
        return getter()
    except Exception as error:  # noqa: BLE001
        return f"error: {type(error).__name__}: {error}"
