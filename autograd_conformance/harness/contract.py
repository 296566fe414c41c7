"""The adapter contract in code: capability names and the `core` surface checked at start-up.

The prose version, with every signature, is docs/adapter-contract.md; keep the two in step.
"""

import inspect
import warnings

CAPABILITIES = {
    "core": "tensors, the random-program op set, backward, .grad, grad_fn, retain_grad, detach, no_grad",
    "float64": "float64 tensors",
    "dtype_conversion": "Tensor.to(dtype) between float32 and float64, a differentiable copy",
    "grad_mode": "enable_grad, set_grad_enabled, is_grad_enabled, decorators",
    "inference_mode": "inference_mode() and Tensor.is_inference()",
    "autograd_grad": "autograd.grad",
    "autograd_backward": "autograd.backward(tensors, grad_tensors): several roots in one backward",
    "backward_inputs": "backward(inputs=...)",
    "higher_order": "autograd.grad(create_graph=True): differentiable gradients",
    "backward_create_graph": "backward(create_graph=True): a differentiable .grad",
    "functional": "autograd.functional.jacobian",
    "graph": "grad_fn.next_functions and AccumulateGrad nodes",
    "grad_fn_names": "torch's grad_fn class names (strict level)",
    "messages": "torch's error message texts (strict level)",
    "inplace": "in-place ops, index assignment, version counter",
    "hooks": "Tensor.register_hook",
    "nn": "nn.Module, Parameter, Linear, Sequential, ReLU, Tanh, Sigmoid, MSELoss",
    "optim": "optim.SGD and optim.Adam",
    "legacy": "the seeds' removed API names (Variable, volatile, retain_variables)",
    "custom_function": "autograd.Function (static forward/backward, apply, setup_context, ctx) "
                       "and autograd.function.once_differentiable",
    "saved_tensor_hooks": "autograd.graph.saved_tensors_hooks, disable_saved_tensors_hooks and "
                          "save_on_cpu",
    "views": "views that share storage and version counter with their base (view, reshape, "
             "flatten, transpose, t, indexing, select, narrow, unsqueeze, squeeze, expand, and "
             "the several views of split, chunk and unbind), with in-place ops on them recorded "
             "in the base; _base and _is_view() (strict level)",
    "saved_tensor_mutation": "autograd.graph.increment_version and "
                             "autograd.graph.allow_mutation_on_saved_tensors",
    "conversions": "Tensor.numpy() (refused for tensors that require grad), tolist(), int(t), "
                   "bool(t), and tensor(t) of a tensor t",
    "anomaly": "autograd.detect_anomaly, autograd.set_detect_anomaly, is_anomaly_enabled and "
               "is_anomaly_check_nan_enabled: NaN checks and forward tracebacks in backward",
    "grad_layout": "strided tensors (stride(), is_contiguous(); transpose, expand and narrow "
                   "results kept by detach()) and the layout of .grad",
    "grad_assignment": "assigning a tensor to a leaf's .grad",
    "meta_device": "factories' device='meta': tensors with a shape and a dtype but no values, on "
                   "torch's meta device",
    "grad_dtype": "Tensor.grad_dtype: the dtype a leaf's .grad takes, settable",
    "post_accumulate_hooks": "Tensor.register_post_accumulate_grad_hook",
    "node_hooks": "grad_fn.register_hook and grad_fn.register_prehook (hooks on graph nodes)",
    "node_metadata": "grad_fn.metadata, a dict per node",
    "module_hooks": "nn.Module.register_full_backward_hook and register_full_backward_pre_hook",
    "multi_grad_hooks": "autograd.graph.register_multi_grad_hook, modes 'all' and 'any'",
    "integer_outputs": "the dtype bool, comparisons giving bool tensors, argmax() and "
                       "Tensor.to(int64) / to(bool)",
    "saved_attributes": "grad_fn._saved_<name>: the tensors a node saved, under torch's names "
                        "(strict level)",
    "tensor_repr": "repr(tensor) in torch's form: requires_grad=True and grad_fn=<Name> "
                   "(a target, strict level)",
    "functional_api": "the rest of autograd.functional: vjp, jvp, vhp, hvp, hessian, and jacobian "
                      "of tuples with create_graph, strict and vectorize",
    "grads_batched": "autograd.grad(..., is_grads_batched=True): a batch of vector-Jacobian products",
    "gradient_edge": "autograd.graph.get_gradient_edge(t), accepted by autograd.grad in place of t",
    "forward_ad": "autograd.forward_ad: dual_level, make_dual, unpack_dual, and tangents (J v) "
                  "through the random-program op set",
    "tensor_data": "Tensor.data: the tensor's values outside autograd, sharing its storage",
    "complex": "complex64/complex128 tensors that require grad: torch.complex, .real, .imag, "
               ".conj(), abs() and the holomorphic ops on them, with conjugate Wirtinger gradients",
    "checkpoint": "torch.utils.checkpoint.checkpoint with use_reentrant=False and True, with "
                  "manual_seed and rand for the random draws its recomputation replays",
    "threads": "autograd used from several Python threads at once: per-thread grad mode and "
               "saved-tensor hooks, concurrent backward and autograd.grad",
    "max_min": "max, min, amax, amin, full and per-dim, and median of every element, with "
               "torch's tie rules",
}

# Names an adapter must have for the harness to run anything at all. The `requires_grad` flag
# (the factories' keyword, the attribute, `requires_grad_()`) is core behaviour but not checked
# here: an engine without per-tensor flags gets a run, whose tests of the flag fail.
CORE_NAMESPACE = (
    "tensor", "zeros", "ones", "zeros_like",
    "float32", "int64",
    "exp", "log", "tanh", "sigmoid", "relu", "sqrt", "abs",
    "no_grad",
)
CORE_TENSOR = (
    "backward", "retain_grad", "detach", "sum", "mean", "reshape", "transpose", "clone",
    "item", "numel",
)


# Ops of the random programs' op set (harness/ops.py) that an adapter may declare it lacks
# (`missing_ops`), and the core names that only those ops need. The generator builds every
# program's shape with the others (a leaf plus, times, minus, a sum at the end), so they are core.
REQUIRED_OPS = ("add", "mul", "neg", "sum")
OP_NAMES = {"exp": "exp", "log": "log", "tanh": "tanh", "sigmoid": "sigmoid", "relu": "relu",
            "sqrt": "sqrt", "abs": "abs", "mean": "Tensor.mean", "reshape": "Tensor.reshape",
            "transpose": "Tensor.transpose", "clone": "Tensor.clone"}


def missing_core_names(namespace, missing_ops=frozenset()) -> list[str]:
    """The names of the core surface that `namespace` lacks (empty when it is complete); the
    names of the ops it declares missing are not required."""
    excused = {OP_NAMES[op] for op in missing_ops if op in OP_NAMES}
    missing = [name for name in CORE_NAMESPACE if not hasattr(namespace, name)
               and name not in excused]
    if missing or not callable(getattr(namespace, "tensor", None)):
        return missing or ["tensor (not callable)"]
    try:
        sample = namespace.tensor([1.0, 2.0])
    except Exception as error:  # noqa: BLE001 - any failure means the surface is unusable
        return [f"tensor([1.0, 2.0]) raised {type(error).__name__}: {error}"]
    return [f"Tensor.{name}" for name in CORE_TENSOR if not hasattr(sample, name)
            and f"Tensor.{name}" not in excused]


# The names each capability's tests use, where a name can be looked up without running anything:
# on the namespace (`autograd.grad`), on a tensor that requires grad (`Tensor.register_hook`,
# `Tensor.__setitem__`), or on the node of an op's result (`grad_fn.next_functions`); a keyword a
# test passes by name is a name too (`autograd.grad(materialize_grads=)`). Every name a test uses
# (recorded in suites/names.toml by tools/test_names.py) is listed under core or under a
# capability the test needs; a capability's tests that use a name its adapter lacks are skipped
# (autograd_conformance/runner/needs.py), a core test fails. `--check-adapter` lists them; the
# prose in docs/adapter-contract.md says what each must do, naming each under its capability
# (tests/test_names.py checks both).
CONTRACT_NAMES = {
    "core": ("tensor", "zeros", "ones", "zeros_like", "float32", "int64", "exp", "log", "tanh",
             "sigmoid", "relu", "sqrt", "abs", "no_grad", "Tensor.backward", "Tensor.retain_grad",
             "Tensor.detach", "Tensor.sum", "Tensor.mean", "Tensor.reshape", "Tensor.transpose",
             "Tensor.clone", "Tensor.item", "Tensor.numel", "Tensor.shape", "Tensor.dtype",
             "Tensor.requires_grad", "Tensor.requires_grad_", "Tensor.is_leaf", "Tensor.grad",
             "Tensor.grad_fn", "Tensor.retains_grad", "Tensor.zero_",
             "Tensor.__add__", "Tensor.__radd__", "Tensor.__sub__", "Tensor.__rsub__",
             "Tensor.__mul__", "Tensor.__rmul__", "Tensor.__truediv__", "Tensor.__rtruediv__",
             "Tensor.__neg__", "Tensor.__pow__", "Tensor.__rpow__", "Tensor.__matmul__",
             "Tensor.__getitem__", "tensor(dtype=)", "tensor(requires_grad=)", "zeros(dtype=)",
             "zeros(requires_grad=)", "ones(dtype=)", "ones(requires_grad=)",
             "Tensor.backward(gradient=)", "Tensor.backward(retain_graph=)", "Tensor.sum(dim=)",
             "Tensor.sum(keepdim=)", "Tensor.mean(dim=)", "Tensor.mean(keepdim=)"),
    "float64": ("float64",),
    "dtype_conversion": ("Tensor.to",),
    "grad_mode": ("enable_grad", "set_grad_enabled", "is_grad_enabled"),
    "inference_mode": ("inference_mode", "Tensor.is_inference", "is_grad_enabled"),
    "autograd_grad": ("autograd.grad", "autograd.grad(grad_outputs=)",
                      "autograd.grad(retain_graph=)", "autograd.grad(allow_unused=)",
                      "autograd.grad(materialize_grads=)", "autograd.grad(only_inputs=)"),
    "autograd_backward": ("autograd.backward", "autograd.backward(grad_tensors=)",
                          "autograd.backward(retain_graph=)"),
    "backward_inputs": ("Tensor.backward(inputs=)",),
    "higher_order": ("autograd.grad(create_graph=)",),
    "backward_create_graph": ("Tensor.backward(create_graph=)",),
    "functional": ("autograd.functional.jacobian",),
    "functional_api": ("autograd.functional.vjp", "autograd.functional.jvp",
                       "autograd.functional.vhp", "autograd.functional.hvp",
                       "autograd.functional.hessian", "float64",
                       "autograd.functional.jacobian(create_graph=)",
                       "autograd.functional.jacobian(strict=)",
                       "autograd.functional.jacobian(vectorize=)",
                       "autograd.functional.jacobian(strategy=)",
                       "autograd.functional.hessian(create_graph=)",
                       "autograd.functional.hessian(strict=)",
                       "autograd.functional.hessian(vectorize=)",
                       "autograd.functional.vjp(create_graph=)",
                       "autograd.functional.vjp(strict=)",
                       "autograd.functional.jvp(create_graph=)",
                       "autograd.functional.jvp(strict=)",
                       "autograd.functional.vhp(create_graph=)",
                       "autograd.functional.vhp(strict=)",
                       "autograd.functional.hvp(create_graph=)",
                       "autograd.functional.hvp(strict=)"),
    "grads_batched": ("autograd.grad(is_grads_batched=)",),
    "gradient_edge": ("autograd.graph.get_gradient_edge",),
    "graph": ("grad_fn.next_functions", "grad_fn.name"),
    "grad_fn_names": ("grad_fn.name",),
    "messages": (),
    "inplace": ("Tensor.add_", "Tensor.mul_", "Tensor.zero_", "Tensor.copy_", "Tensor.__setitem__",
                "Tensor.detach_", "Tensor._version"),
    "hooks": ("Tensor.register_hook",),
    "nn": ("nn.Module", "nn.Parameter", "nn.Linear", "nn.Sequential", "nn.ReLU", "nn.Tanh",
           "nn.Sigmoid", "nn.MSELoss", "nn.Module.parameters", "nn.Module.named_parameters",
           "nn.Module.zero_grad", "nn.Module.requires_grad_", "nn.Module.eval", "nn.Module.train",
           "nn.Module.register_buffer", "nn.Module.named_buffers",
           "nn.Module.zero_grad(set_to_none=)"),
    "optim": ("optim.SGD", "optim.Adam"),
    "legacy": ("autograd.Variable", "Tensor.volatile"),
    "custom_function": ("autograd.Function", "autograd.function.once_differentiable",
                        "is_grad_enabled", "Tensor.data"),
    "saved_tensor_hooks": ("autograd.graph.saved_tensors_hooks",
                           "autograd.graph.disable_saved_tensors_hooks",
                           "autograd.graph.save_on_cpu"),
    "views": ("Tensor.view", "Tensor.flatten", "Tensor.t", "Tensor.select", "Tensor.narrow",
              "Tensor.unsqueeze", "Tensor.squeeze", "Tensor.expand", "Tensor.split",
              "Tensor.chunk", "Tensor.unbind", "Tensor._base", "Tensor._is_view",
              "Tensor.contiguous", "Tensor.add_", "Tensor.div_", "Tensor.fill_", "Tensor.detach_",
              "arange", "rand", "float64"),
    "saved_tensor_mutation": ("autograd.graph.increment_version",
                              "autograd.graph.allow_mutation_on_saved_tensors"),
    "conversions": ("Tensor.numpy", "Tensor.tolist", "Tensor.__int__", "Tensor.__bool__"),
    "anomaly": ("autograd.detect_anomaly", "autograd.set_detect_anomaly",
                "is_anomaly_enabled", "is_anomaly_check_nan_enabled", "Tensor.sqrt"),
    "grad_layout": ("Tensor.stride", "Tensor.is_contiguous", "Tensor.expand", "Tensor.narrow"),
    "grad_assignment": ("Tensor.grad",),
    "meta_device": ("zeros(device=)",),
    "grad_dtype": ("Tensor.grad_dtype",),
    "post_accumulate_hooks": ("Tensor.register_post_accumulate_grad_hook",),
    "node_hooks": ("grad_fn.register_hook", "grad_fn.register_prehook"),
    "node_metadata": ("grad_fn.metadata",),
    "module_hooks": ("nn.Module.register_full_backward_hook",
                     "nn.Module.register_full_backward_pre_hook"),
    "multi_grad_hooks": ("autograd.graph.register_multi_grad_hook",
                         "autograd.graph.register_multi_grad_hook(mode=)"),
    "integer_outputs": ("bool", "Tensor.argmax", "Tensor.to"),
    "saved_attributes": ("grad_fn._saved_self", "grad_fn._saved_other"),
    "tensor_repr": (),
    "forward_ad": ("autograd.forward_ad.dual_level", "autograd.forward_ad.make_dual",
                   "autograd.forward_ad.unpack_dual", "autograd.forward_ad.make_dual(level=)",
                   "autograd.forward_ad.unpack_dual(level=)", "Tensor.sgn", "ones_like"),
    "tensor_data": ("Tensor.data",),
    "complex": ("complex", "complex64", "complex128", "Tensor.real", "Tensor.conj", "Tensor.abs",
                "float64"),
    "checkpoint": ("utils.checkpoint.checkpoint", "utils.checkpoint.checkpoint(use_reentrant=)",
                   "manual_seed", "rand", "rand(dtype=)"),
    "threads": (),
    "max_min": ("Tensor.max", "Tensor.min", "Tensor.amax", "Tensor.amin", "Tensor.median",
                "Tensor.__int__",
                "Tensor.max(dim=)", "Tensor.max(keepdim=)", "Tensor.min(dim=)",
                "Tensor.min(keepdim=)", "Tensor.amax(dim=)", "Tensor.amax(keepdim=)",
                "Tensor.amin(dim=)", "Tensor.amin(keepdim=)"),
}


def _takes_keyword(function, keyword: str) -> bool:
    """Whether `function` can be passed `keyword` by name; True where its signature cannot be read
    (a builtin's: the tests that pass it find out)."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(parameter.kind is parameter.VAR_KEYWORD or parameter.name == keyword
               and parameter.kind is not parameter.POSITIONAL_ONLY for parameter in parameters)


def lacking_names(namespace, names) -> list[str]:
    """Those of `names` (as in CONTRACT_NAMES) that `namespace` does not have. Tensor names are
    looked up on `tensor([1.0, 2.0], requires_grad=True)`, node names on that tensor times 2's
    grad_fn; where those cannot be made, the name counts as lacking. A keyword,
    `autograd.grad(materialize_grads=)`, is lacking where its function's signature does not take
    it."""
    def tensor():
        return namespace.tensor([1.0, 2.0], requires_grad=True)

    roots = {"Tensor": tensor, "grad_fn": lambda: (tensor() * 2).grad_fn}
    lacking = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # looking a name up is not using it (`Tensor.volatile`)
        for name in names:
            path, _, keyword = name.removesuffix("=)").partition("(")
            root, _, rest = path.partition(".")
            try:
                target = roots[root]() if root in roots else namespace
                for part in (rest if root in roots else path).split("."):
                    target = getattr(target, part)
            except Exception:  # noqa: BLE001 - a name the adapter does not give, however it fails
                lacking.append(name)
                continue
            if keyword and not _takes_keyword(target, keyword):
                lacking.append(name)
    return lacking
