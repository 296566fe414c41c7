"""Properties of the reference engine that the conformance suites cannot see: memory, depth, speed paths.

These tests use the reference engine only; tests/test_reference_vs_torch.py compares it with torch.
"""
import gc
import sys
import tracemalloc
import weakref

import numpy as np
import pytest

import autograd_conformance.reference as ag


def test_backward_releases_saved_arrays():
    """After a backward without retain_graph, the arrays a node saved are freed (RETAIN-1)."""
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a = x * 2
    saved = weakref.ref(a._array)
    y = (a * a).sum()  # MulBackward0 keeps `a` alive
    del a
    gc.collect()
    assert saved() is not None
    y.backward()
    assert saved() is None


def test_retain_graph_keeps_saved_arrays_until_the_last_backward():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    a = x.exp()
    saved = weakref.ref(a._array)
    y = a.sum()
    del a
    y.backward(retain_graph=True)
    assert saved() is not None
    y.backward()
    assert saved() is None


def test_graph_is_freed_by_reference_counting_alone():
    """No reference cycles: a dropped graph disappears without the cycle collector."""
    gc.disable()
    try:
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        out = ag.tanh(ag.sigmoid(x * x) @ ag.exp(x)) / 3 - ag.relu(x).sum()
        node = weakref.ref(out.grad_fn)
        result = weakref.ref(out)
        del out
        assert node() is None and result() is None
    finally:
        gc.enable()


def test_memory_does_not_grow_over_10000_training_steps():
    """A small MLP trained for 10,000 steps (forward, backward, SGD step) keeps a flat memory profile."""
    ag.manual_seed(0)
    net = ag.nn.Sequential(ag.nn.Linear(4, 16), ag.nn.Tanh(), ag.nn.Linear(16, 1))
    opt = ag.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    x, target = ag.randn(8, 4), ag.randn(8, 1)
    loss_fn = ag.nn.MSELoss()

    def step():
        opt.zero_grad()
        loss_fn(net(x), target).backward()
        opt.step()

    for _ in range(200):
        step()
    gc.collect()
    tracemalloc.start()
    try:
        for _ in range(1000):
            step()
        baseline = tracemalloc.get_traced_memory()[0]
        for _ in range(8800):
            step()
        grown = tracemalloc.get_traced_memory()[0] - baseline
    finally:
        tracemalloc.stop()
    assert grown < 64 * 1024, f"memory grew by {grown} bytes over 8,800 steps"


def test_backward_through_a_chain_of_10000_ops_does_not_recurse():
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        x = ag.tensor(1.5, requires_grad=True)
        y = x
        for _ in range(10_000):
            y = y * 1.0 + 0.0
        y.backward()
        assert x.grad.item() == 1.0
        del y  # freeing the chain must not recurse either
    finally:
        sys.setrecursionlimit(limit)


def test_create_graph_through_a_chain_of_10000_ops():
    x = ag.tensor(2.0, requires_grad=True)
    y = x
    for _ in range(5_000):
        y = y * 1.0
    y = y * y
    g, = ag.autograd.grad(y, x, create_graph=True)
    gg, = ag.autograd.grad(g, x)
    assert g.item() == 4.0 and gg.item() == 2.0


def test_results_without_grad_record_nothing():
    """The fast path: no node when grad mode is off or no input requires grad (LEAF-2, MODE-1)."""
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    with ag.no_grad():
        assert (x * 2).grad_fn is None
    assert (ag.tensor([1.0]) * 2).grad_fn is None


def test_tensors_always_hold_arrays():
    """NumPy returns scalars for 0-dim results; the engine keeps arrays (in-place ops need them)."""
    x = ag.tensor(2.0, requires_grad=True)
    for t in (x * 3, ag.exp(x), x.sum(), x.mean(), ag.tensor([1.0, 2.0]) @ ag.tensor([3.0, 4.0]), x.reshape(1)[0]):
        assert type(t._array) is np.ndarray


def test_to_numpy_is_a_copy_without_graph():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    values = ag.to_numpy(y)
    values[0] = 100.0
    assert y.tolist() == [2.0, 4.0] and isinstance(values, np.ndarray)


def test_metadata():
    assert ag.name == "reference" and ag.version
    from autograd_conformance.harness.contract import CAPABILITIES, missing_core_names
    assert ag.capabilities == frozenset(CAPABILITIES)
    assert missing_core_names(ag) == []


def test_repeated_indices_add_up_in_a_differentiable_gradient():
    """x[[0, 0, 1]]: element 0 is read twice, so its gradient counts twice, also under
    create_graph (the second derivative of sum(x[[0, 0, 1]] ** 2) is [4, 2], as in torch)."""
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    (g,) = ag.autograd.grad((x[[0, 0, 1]] ** 2).sum(), [x], create_graph=True)
    (h,) = ag.autograd.grad(g.sum(), [x])
    assert g.tolist() == [4.0, 4.0] and h.tolist() == [4.0, 2.0]


def test_dense_layouts_are_told_from_overlapping_and_gapped_ones():
    """layout.py's test, which decides the layout of a first .grad (BC-4, LAYOUT-1)."""
    from autograd_conformance.reference import layout
    block = np.zeros((2, 3, 4))
    assert layout.non_overlapping_and_dense(block.transpose(2, 0, 1))
    assert layout.non_overlapping_and_dense(np.zeros((3, 1)).T)  # a size-1 dim's stride does not count
    assert not layout.non_overlapping_and_dense(block[:, :, :1])  # gaps
    assert not layout.non_overlapping_and_dense(block[:, 1:, :])
    assert not layout.non_overlapping_and_dense(np.broadcast_to(block[0], (5, 3, 4)))
    grad = layout.zeros_for_grad(block.transpose(2, 0, 1))
    assert grad.strides == block.transpose(2, 0, 1).strides and not grad.any()


def test_the_forward_traceback_names_the_callers_line_only():
    """Anomaly mode keeps the traceback of the op's caller, without the engine's own frames."""
    x = ag.tensor([1.0], requires_grad=True)
    with ag.autograd.set_detect_anomaly(True):
        y = x.exp()  # the line the trace must end with
    trace = y.grad_fn._trace
    assert "y = x.exp()" in trace[-1] and not any("reference" + "/" in line for line in trace)
    assert (x * 2).grad_fn._trace is None


def test_hooks_can_ask_which_backward_pass_runs_them():
    """walk.current_pass() is the pass that runs a hook, and None outside backward (the
    multi-grad hook keeps its state per pass, HOOK-19)."""
    from autograd_conformance.reference import walk
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    passes = []
    y.register_hook(lambda g: passes.append(walk.current_pass()))
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    assert walk.current_pass() is None
    assert len(passes) == 2 and None not in passes and passes[0] is not passes[1]
    assert passes[0].executes(y.grad_fn) and not passes[0].executes((x * 3).grad_fn)


def test_forward_mode_refuses_what_it_has_no_rule_for():
    """No forward-mode rule for in-place ops or custom Functions: an input with a tangent is
    refused (NotImplementedError) rather than given a stale or missing tangent; without one, both
    work inside a level as outside."""
    fw = ag.autograd.forward_ad

    class Double(ag.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with fw.dual_level():
        x = fw.make_dual(ag.tensor([1.0, 2.0]), ag.tensor([1.0, 1.0]))
        plain = ag.tensor([3.0, 4.0])
        for refused in (lambda: x.mul_(2.0), lambda: plain.add_(x), lambda: Double.apply(x)):
            try:
                refused()
            except NotImplementedError:
                pass
            else:
                raise AssertionError("a tangent went through an op without a forward-mode rule")
        assert plain.add_(1.0).tolist() == [4.0, 5.0] and Double.apply(plain).tolist() == [8.0, 10.0]


def test_tangents_end_with_their_level_without_being_visited():
    """Leaving a level ends its tangents by the level's identity: no registry of dual tensors is
    kept (which would keep them alive), and a new level never sees an old tangent."""
    fw = ag.autograd.forward_ad
    with fw.dual_level() as level:
        x = fw.make_dual(ag.tensor([1.0]), ag.tensor([2.0]))
        alive = weakref.ref(x)
    assert level == 0 and x._tangent is not None
    with fw.dual_level():
        assert fw.unpack_dual(x).tangent is None
    del x
    gc.collect()
    assert alive() is None


def test_arguments_it_cannot_honour_are_refused_not_ignored():
    """A device other than the CPU (for a factory, the CPU or meta) and a hessian's outer Jacobian
    strategy other than reverse mode raise; the engine never pretends to have done what it was
    asked."""
    for make in (lambda: ag.tensor([1.0], device="cuda"), lambda: ag.zeros(2, device="cuda:0"),
                 lambda: ag.nn.Linear(2, 3, device="meta")):
        with pytest.raises(RuntimeError, match="only the device"):
            make()
    assert ag.ones(2, device="cpu").shape == (2,)
    x = ag.tensor([1.0, 2.0])
    with pytest.raises(NotImplementedError, match="reverse mode only"):
        ag.autograd.functional.hessian(lambda t: (t * t).sum(), x,
                                       outer_jacobian_strategy="forward-mode")


def test_a_meta_tensor_has_a_shape_and_a_dtype_and_no_values():
    """A factory's tensor on the meta device knows its shape, dtype and device, and refuses to be
    computed with rather than compute with made-up values."""
    meta = ag.zeros(2, 3, dtype=ag.float64, device="meta")
    assert (meta.shape, meta.dtype, meta.device) == ((2, 3), ag.float64, "meta")
    with pytest.raises(NotImplementedError, match="meta device"):
        meta * 2


def test_a_recorded_write_through_an_expanded_view_is_refused_not_guessed():
    """torch's backward through zero_(), fill_() or index assignment into an expanded view that
    is recorded depends on the view's strides (it refuses some); the reference records none of
    them and says so, while the unrecorded writes go through (VIEW-15)."""
    y = ag.ones(3, requires_grad=True) * 2.0
    for write in (lambda e: e.zero_(), lambda e: e.fill_(2.0),
                  lambda e: e.__setitem__(0, ag.tensor([7.0, 7.0, 7.0]))):
        with pytest.raises(NotImplementedError, match="does not record a write into a view"):
            write(y.expand(2, 3))
    with ag.no_grad():
        y.expand(2, 3).fill_(5.0)
    assert y.tolist() == [5.0, 5.0, 5.0]
