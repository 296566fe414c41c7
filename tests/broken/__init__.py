"""Broken engines (mutants): each module is an engine spec (`--engine tests.broken.<name>`) that
violates one documented behaviour the way a real implementation might.

`MUTANTS` maps each mutant module to the catalog IDs it breaks: a conformance run of the suites
selected with `--behaviour ID` must fail for every ID listed (tests/test_broken_engines.py). The
first ID is the behaviour the mutant was written against; further IDs are consequences the suite
must also notice. Torch mutants patch torch in their own process only (see `_torch.py`); reference
mutants patch a private copy of the reference engine's classes (see `_reference.py`).

This module must stay import-free: reading the registry must not import (and patch) any engine.
"""

MUTANTS: dict[str, tuple[str, ...]] = {
    # leaves and .grad
    "torch_leaf_flag_needs_requires_grad": ("LEAF-1",),
    "torch_views_are_leaves": ("LEAF-3",),
    "torch_grad_in_float32": ("LEAF-5",),
    "torch_keeps_intermediate_grads": ("LEAF-6",),
    "torch_retain_grad_ignored": ("LEAF-8",),
    "torch_constants_get_zero_grads": ("REQ-9",),
    "torch_all_leaves_get_grads": ("MISC-3",),
    "torch_sigmoid_vjp_sign": ("LEAF-5", "JAC-5", "JAC-6"),
    # accumulation and zeroing
    "torch_no_accumulation": ("ACC-1", "RETAIN-4"),
    "torch_grad_returns_copy": ("ACC-6",),
    "torch_grad_none_hides_buffer": ("ACC-8",),
    "torch_optimizer_zero_grad_fills_zeros": ("ACC-9",),
    "torch_module_zero_grad_fills_zeros": ("ACC-10",),
    # retain_graph
    "torch_second_backward_allowed": ("RETAIN-1",),
    "torch_second_backward_always_raises": ("RETAIN-3",),
    "torch_retain_graph_ignored": ("RETAIN-4",),
    # non-scalar backward and Jacobians
    "torch_implicit_ones_gradient": ("JAC-1",),
    "torch_scalar_check_by_ndim": ("JAC-3",),
    "torch_backward_ignores_gradient": ("JAC-5",),
    "torch_retained_gradient_cached": ("JAC-6",),
    "torch_functional_jacobian_transposed": ("JAC-8",),
    # requires_grad
    "torch_int_requires_grad_ignored": ("REQ-1",),
    "torch_requires_grad_from_first_input": ("REQ-8",),
    "torch_backward_without_grad_is_noop": ("REQ-10",),
    "torch_value_errors": ("RETAIN-1", "JAC-1", "REQ-1", "REQ-10"),
    # modules
    "torch_params_not_requiring_grad": ("MOD-1", "MOD-3"),
    "torch_module_no_grad_for_plain_input": ("MOD-3",),
    "torch_loss_detaches_input": ("MOD-4",),
    "torch_frozen_params_get_zero_grads": ("MOD-5",),
    # messages and in-place
    "torch_reworded_errors": ("MSG-1", "MSG-2", "MSG-3", "MSG-4"),
    "torch_setitem_not_recorded": ("INP-14",),
}


def spec(name: str) -> str:
    """The `--engine` spec of mutant `name`."""
    return f"tests.broken.{name}"


def cases() -> list[tuple[str, str]]:
    """Every (mutant, behaviour ID) pair the suite must catch."""
    return [(name, id_) for name, ids in MUTANTS.items() for id_ in ids]
