"""`backward` and `grad`: the two ways to ask for gradients.

They validate their arguments with torch's messages (JAC-1, JAC-11, JAC-14, REQ-10,
GRAD-2, GRAD-8, MISC-5), then hand the roots to the walk in `walk.run_backward`.
"""
import warnings

import numpy as np

from .. import walk
from ..graph import edge, input_node
from ..tensor import Tensor, make
from .graph import GradientEdge


def _as_tuple(x):
    if isinstance(x, (Tensor, GradientEdge)):  # an edge is a tuple too, but stands for one tensor
        return (x,)
    return tuple(x)


def _root_grads(outputs, grad_outputs, as_tensors):
    """One gradient per output: given ones checked and cast, implicit ones for single-element
    outputs, so that backward() is backward(ones) and backward(c) scales by c (JAC-17). Arrays
    unless `as_tensors` (create_graph): a given gradient that requires grad is then a constant, and
    under create_graph J^T v is differentiable in it (JAC-16). The implicit ones never require
    grad, so a gradient that depends on nothing requiring grad does not either (HO-5)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    else:
        grad_outputs = _as_tuple(grad_outputs)
        for g in grad_outputs:
            if g is not None and not isinstance(g, Tensor):
                raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        if len(grad_outputs) != len(outputs):
            raise RuntimeError(f"got {len(outputs)} tensors and {len(grad_outputs)} gradients")
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if isinstance(out, GradientEdge):  # GRAD-13: its gradient as given, to start from its node
            if g is None:
                raise NotImplementedError("reference: an output given as a GradientEdge needs its "
                                          "gradient in grad_outputs (the edge keeps no shape to "
                                          "make one like)")
            grads.append(g if as_tensors else g._array)
            continue
        if g is None and not out._requires_grad:  # no gradient to imply: `_root_edges` refuses the root (JAC-18)
            grads.append(None)
            continue
        if g is None:  # implicit ones for a one-element output of any shape (JAC-3)
            if out._array.size != 1:  # JAC-1, JAC-2, MSG-2
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if out._array.dtype.kind == "c":  # JAC-4: which real loss would a 1 stand for?
                raise RuntimeError("grad can be implicitly created only for real scalar outputs but got "
                                   f"torch.{out.dtype.name}")
            value = np.ones(out._array.shape, out._array.dtype)
            grads.append(make(value) if as_tensors else value)
            continue
        if g.shape != out.shape:  # JAC-11, MSG-8: no broadcasting
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of torch.Size({list(g.shape)}) "
                               f"and output[{i}] has a shape of torch.Size({list(out.shape)}).")
        _check_complex_iff(i, g, out)
        if as_tensors:
            grads.append(g if g._array.dtype == out._array.dtype else g.to(out.dtype))
        else:  # JAC-12: another real dtype is cast silently
            grads.append(g._array if g._array.dtype == out._array.dtype else g._array.astype(out._array.dtype))
    return grads


def _check_complex_iff(i, g, out):
    """A gradient is complex exactly when its output is (CPLX-7): between two real or two complex
    dtypes it is cast (JAC-12), but a real gradient for a complex output (or the reverse) would drop or
    invent an imaginary part."""
    if (g._array.dtype.kind == "c") != (out._array.dtype.kind == "c"):
        raise RuntimeError("For complex Tensors, both grad_output and output are required to have the same "
                           f"dtype. Mismatch in dtype: grad_output[{i}] has a dtype of torch.{g.dtype.name} "
                           f"and output[{i}] has a dtype of torch.{out.dtype.name}.")


def _root_edges(outputs):
    """Where each output's gradient starts: its grad_fn (at the output's number), or for a leaf its
    AccumulateGrad, which saves nothing, so backward on a leaf fills its own .grad and can be
    repeated (REQ-13); for a GradientEdge, the edge itself (GRAD-13). An output that does not
    require grad raises, naming its index (REQ-10, REQ-11, MSG-3)."""
    edges = []
    for i, out in enumerate(outputs):
        if isinstance(out, GradientEdge):
            edges.append(tuple(out))
            continue
        if not out._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        edges.append(edge(out))
    return edges


def _for_output(grad, node, output_nr):
    """The part of what arrived at `node` that is its output `output_nr`'s: all of it, unless the node
    is a custom Function's with several outputs, which receives one gradient (or None) per output."""
    return grad[output_nr] if node.outputs > 1 else grad


def _edge_of(t):
    """(node, output number) where the gradient w.r.t. an input of grad arrives: a tensor's, which
    must require grad (REQ-12), or a GradientEdge as given (GRAD-13)."""
    if isinstance(t, GradientEdge):
        return tuple(t)
    if not t._requires_grad:
        raise RuntimeError("One of the differentiated Tensors does not require grad")
    return input_node(t), t._output_nr


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None):
    """Accumulate the gradients of `tensors` into the leaves' `.grad` (or only into `inputs`, MISC-4)
    and return None (MISC-6). retain_graph defaults to create_graph (RETAIN-5); an explicit False
    frees the graph under create_graph too (RETAIN-6)."""
    if grad_variables is not None:
        warnings.warn("`grad_variables` is deprecated. Use `grad_tensors` instead.", FutureWarning, stacklevel=2)
        grad_tensors = grad_variables
    outputs = _as_tuple(tensors)
    if create_graph:
        walk.warn_create_graph_backward()
    grads = _root_grads(outputs, grad_tensors, create_graph)
    roots = _root_edges(outputs)
    targets = None
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        by_node = {}  # the outputs of one custom Function share its node
        for t in inputs:
            if not t._requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            by_node.setdefault(input_node(t), {})[id(t)] = t
        # An input off the graph is never reached: no error, its .grad stays None (GRAD-11).
        # A node's named outputs, last named first: see _accumulator_of.
        targets = {node: _accumulator_of(list(reversed(ts.values()))) for node, ts in by_node.items()}
    walk.run_backward(roots, grads, create_graph if retain_graph is None else retain_graph, create_graph, targets,
                      run_targets=True)


def _accumulator_of(tensors):
    """What backward(inputs=[...]) does with the gradient that reaches the node of `tensors`:
    accumulate each one's part into its .grad (MISC-4), a non-leaf's too (LEAF-12), as torch's
    retain_grad does: out of place, the earlier .grad keeping its value, and once, not again for a
    tensor whose retain_grad() stored it already. Several outputs of one custom Function come
    (from backward) and store theirs in the reverse of `inputs`' order, as torch 2.13 runs the
    retain hooks that backward gives them (the latest first): under create_graph a later pass,
    running the newest node first (HOOK-13), reaches their .grad tensors' nodes in `inputs`' order.
    A leaf's node is its AccumulateGrad, which the walk runs (`run_targets`): it accumulates by
    itself. The only output of a node is made to retain its gradient, as torch calls retain_grad()
    on a non-leaf input, so that this pass and every later one that runs its node store it there
    (LEAF-16); retain_grad keeps one output per node (walk.py), so a node of several outputs is
    given this pass's parts only."""
    if tensors[0].grad_fn is None:
        return _accumulated_by_the_node
    if input_node(tensors[0]).outputs == 1:
        tensors[0].retain_grad()

    def accumulate(grad):
        for t in tensors:
            part = _for_output(grad, input_node(t), t._output_nr)
            if part is not None and not t._retains_grad:
                walk._store_retained(t, part if isinstance(part, Tensor) else make(np.asarray(part)))
    return accumulate


def _accumulated_by_the_node(grad):
    """A leaf's gradient is added by its AccumulateGrad node as it runs."""


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of `outputs` w.r.t. `inputs` as a tuple; `.grad` fields are not touched (GRAD-1)."""
    if not only_inputs:  # deprecated and ignored: still the inputs' gradients only (GRAD-3)
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
                      "gradient for other parts of the graph, please use torch.autograd.backward.",
                      FutureWarning, stacklevel=2)
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    allow_unused = allow_unused or materialize_grads
    if is_grads_batched:
        return _batched(outputs, inputs, grad_outputs, retain_graph, create_graph=create_graph,
                        allow_unused=allow_unused, materialize_grads=materialize_grads)
    outputs = _as_tuple(outputs)
    named = inputs if isinstance(inputs, dict) else None
    inputs = tuple(named.values()) if named is not None else _as_tuple(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")  # GRAD-8
    edges = [_edge_of(t) for t in inputs]
    # One root per output: the walk sums their vector-Jacobian products at each input (GRAD-9).
    grads = _root_grads(outputs, grad_outputs, create_graph)  # v^T J for grad_outputs v (JAC-2)
    roots = _root_edges(outputs)
    captured = {}
    # A non-leaf input's gradient is the one that arrives at its grad_fn (GRAD-4).
    targets = {node: _capture(captured, node) for node, _ in edges}
    # Saved tensors are freed as by backward, unless retain_graph (RETAIN-2), which defaults to
    # create_graph (RETAIN-5, RETAIN-6).
    walk.run_backward(roots, grads, create_graph if retain_graph is None else retain_graph, create_graph, targets)
    results = []
    for i, (t, (node, output_nr)) in enumerate(zip(inputs, edges)):
        g = captured.get(node)
        g = None if g is None else _for_output(g, node, output_nr)
        if g is None:
            if not allow_unused:  # GRAD-2; the index counts the inputs from 0 (GRAD-10)
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the "
                                   "graph. Set allow_unused=True if this is the desired behavior.")
            if materialize_grads and isinstance(t, GradientEdge):  # no tensor to make zeros like (GRAD-13)
                raise RuntimeError("materialize_grads cannot be used when the given input is a GradientEdge")
            results.append(make(np.zeros_like(t._array)) if materialize_grads else None)
        elif isinstance(g, Tensor):
            results.append(g)
        else:
            dtype = None if isinstance(t, GradientEdge) else t._array.dtype  # an edge's: as it arrived
            results.append(make(np.array(g, dtype=dtype)))  # dL/dx + i dL/dy if complex (CPLX-8)
    return dict(zip(named, results)) if named is not None else tuple(results)


def _capture(captured, node):
    """Where the walk hands the gradient that reaches `node`: once, as the walk runs each node once
    with every path's contribution summed (an input listed twice shares its node's entry)."""
    def store(grad):
        captured[node] = grad
    return store


def _batched(outputs, inputs, grad_outputs, retain_graph, **options):
    """is_grads_batched=True (JAC-10): the first dim of each grad_output is a batch of vectors, and
    each result holds one vjp per vector, stacked along a new first dim. torch maps one backward
    pass over the batch (vmap); one pass per vector gives the same values."""
    batches = _as_tuple(grad_outputs)
    size = batches[0].shape[0]
    passes = [grad(outputs, inputs, tuple(g[k] for g in batches),
                   retain_graph=True if k + 1 < size else retain_graph, **options) for k in range(size)]
    return tuple(None if first is None else stack([row[i] for row in passes], options["create_graph"])
                 for i, first in enumerate(passes[0]))


def stack(rows, differentiable):
    """The tensors `rows`, of one shape, stacked along a new first dim; when differentiable, by index
    assignment into zeros, so that gradients flow back to each row."""
    stacked = make(np.zeros((len(rows),) + rows[0].shape, rows[0]._array.dtype))
    for k, row in enumerate(rows):
        if differentiable:
            stacked[k] = row
        else:
            stacked._array[k] = row._array
    return stacked
