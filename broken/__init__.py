"""Every broken engine of the project, in one place that the tests and the scripts share:

- the mutants, here: each module is an engine spec (`--engine broken.<name>`) that violates one
  documented behaviour the way a real implementation might;
- `hostile/`: engines that hang, crash, interrupt or raise, for the gate's robustness tests;
- `adapters/`: adapters that fail to load or declare what they lack, for the loading tests;
- `run.py` (the one subprocess runner of the suites), `reproducers.py` and the probe plugin.

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
    "torch_grad_in_float32": ("LEAF-5", "BC-3"),
    "torch_keeps_intermediate_grads": ("LEAF-6",),
    "torch_retain_grad_ignored": ("LEAF-8",),
    "torch_constants_get_zero_grads": ("REQ-9",),
    "torch_all_leaves_get_grads": ("MISC-3",),
    "torch_mul_vjp_sign": ("LEAF-5", "OP-2"),
    # accumulation and zeroing
    "torch_no_accumulation": ("ACC-1", "RETAIN-4", "SEQ-1"),
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
    "torch_reworded_errors": ("MSG-1", "MSG-2", "MSG-3", "MSG-4", "MSG-8"),
    "torch_setitem_not_recorded": ("INP-14",),
    # grad mode
    "torch_no_grad_results_flagged": ("MODE-1",),
    "torch_factories_obey_no_grad": ("MODE-2",),
    "torch_no_grad_update_drops_requires_grad": ("MODE-3",),
    "torch_grad_mode_exit_enables": ("MODE-4",),
    "torch_set_grad_enabled_context_only": ("MODE-5",),
    "torch_inference_mode_is_no_grad": ("MODE-6",),
    "torch_backward_obeys_no_grad": ("MODE-8",),
    "torch_no_grad_is_noop": ("MODE-1", "MODE-9"),
    # detach
    "torch_detach_copies": ("DET-1",),
    "torch_detach_keeps_graph": ("DET-2", "DET-1"),
    "torch_detach_is_data": ("DET-3",),
    "torch_detach_inplace_returns_copy": ("DET-5",),
    "torch_detach_inplace_allows_views": ("DET-6",),
    "torch_detach_inplace_cuts_recorded_graph": ("DET-7",),
    "torch_detach_inplace_keeps_leaf_flag": ("DET-8",),
    # requires_grad flags
    "torch_requires_grad_returns_copy": ("REQ-5",),
    "torch_non_leaf_flag_change_ignored": ("REQ-6", "MSG-5"),
    "torch_detach_remembers_source": ("REQ-7",),
    "torch_backward_on_leaf_raises": ("REQ-13",),
    # graph structure
    "torch_op_results_never_leaves": ("LEAF-2",),
    "torch_next_functions_skip_constants": ("GFN-3",),
    "torch_accumulator_per_use": ("GFN-4",),
    "torch_grad_fn_names_unnumbered": ("GFN-1",),
    "torch_setitem_node_named_index_put": ("GFN-6",),
    # autograd.grad and higher order
    "torch_autograd_grad_accumulates": ("GRAD-1",),
    "torch_only_inputs_honoured": ("GRAD-3",),
    "torch_create_graph_backward_silent": ("MISC-14",),
    "torch_autograd_grad_unused_zeros": ("GRAD-2",),
    "torch_autograd_grad_leaves_only": ("GRAD-4",),
    "torch_autograd_grad_empty_inputs_ok": ("GRAD-8",),
    "torch_autograd_grad_implicit_ones": ("JAC-2",),
    "torch_autograd_grad_retains": ("RETAIN-2",),
    "torch_autograd_grad_constants_zero": ("REQ-12",),
    "torch_backward_ignores_inputs": ("MISC-4",),
    "torch_create_graph_ignored": ("HO-1",),
    "torch_backward_always_recorded": ("HO-2",),
    "torch_backward_create_graph_ignored": ("HO-3",),
    # in-place
    "torch_inplace_on_leaf_allowed": ("INP-1", "MSG-6"),
    "torch_setitem_into_leaf_allowed": ("INP-3",),
    "torch_inplace_refused_on_all_leaves": ("INP-4",),
    "torch_inplace_bypasses_autograd": ("INP-11", "INP-5", "MSG-7"),
    "torch_any_inplace_blocks_backward": ("INP-9",),
    "torch_setitem_not_versioned": ("INP-10",),
    "torch_constant_setitem_not_recorded": ("INP-12",),
    "torch_inplace_on_plain_not_recorded": ("INP-16",),
    # hooks
    "torch_leaf_hook_result_ignored": ("HOOK-1",),
    "torch_non_leaf_hook_result_ignored": ("HOOK-2",),
    "torch_retain_grad_order_dependent": ("HOOK-3",),
    "torch_hook_remove_noop": ("HOOK-4",),
    "torch_hook_without_requires_grad_ok": ("HOOK-5",),
    "torch_hooks_run_in_reverse": ("HOOK-6",),
    "reference_oldest_node_first": ("HOOK-13",),
    "reference_linear_bias_grad_unsummed_mean": ("MOD-14",),
    "reference_mse_loss_without_factor_two": ("MOD-15",),
    "reference_copy_passes_gradient_through": ("INP-19",),
    "reference_saved_result_unversioned": ("INP-6",),
    "reference_create_graph_accumulates_in_place": ("ACC-4",),
    "reference_second_derivatives_in_float32": ("VAL-4",),
    "torch_leaf_hook_after_accumulation": ("HOOK-7",),
    "torch_hook_fires_per_use": ("HOOK-10",),
    # op gradients, values, broadcasting
    "torch_sub_vjp_sign": ("OP-1",),
    "torch_div_vjp_unsquared": ("OP-2",),
    "torch_tanh_vjp_unsquared": ("OP-3",),
    "torch_pow_vjp_abs_base": ("OP-4",),
    "torch_relu_vjp_unmasked": ("OP-5",),
    "torch_relu_grad_one_at_zero": ("GRAD-6",),
    "torch_mean_dim_over_numel": ("OP-6", "BC-5"),
    "torch_matmul_vjp_untransposed": ("OP-7",),
    "torch_slice_vjp_ignores_start": ("OP-8",),
    "torch_float64_grads_in_bfloat16": ("VAL-1",),
    "torch_unary_ops_promote_to_float64": ("VAL-2",),
    "torch_exp_vjp_missing": ("OP-3",),
    "torch_broadcast_grads_averaged": ("BC-1",),
    "torch_zero_dim_grads_as_vectors": ("BC-2",),
    # reuse, errors, training, legacy
    "torch_same_operand_counted_once": ("MISC-2",),
    "torch_new_graph_resets_grads": ("ACC-2",),
    "torch_gradient_broadcast_to_output": ("JAC-11",),
    "torch_sgd_ascends": ("OPT-1",),
    "torch_step_zeroes_grads": ("OPT-2",),
    "torch_zero_grad_always_none": ("OPT-3",),
    "torch_zero_grad_fills_missing_grads": ("OPT-3",),
    "torch_decay_applies_to_gradless_params": ("MOD-13",),
    "torch_retain_variables_accepted": ("RETAIN-10",),
    "torch_volatile_removed": ("RETAIN-12",),
    "torch_variable_ignores_volatile": ("RETAIN-13",),
    # on the reference engine
    "reference_unreduced_broadcast": ("LEAF-5", "BC-1", "INP-12", "VAL-3"),
    "reference_shared_node_counted_once": ("LEAF-5",),
    "reference_last_contribution_wins": ("MISC-1", "LEAF-5"),
    "reference_no_accumulation": ("ACC-1", "RETAIN-4"),
    "reference_float32_accumulation": ("LEAF-5", "BC-3"),
    "reference_graph_never_freed": ("RETAIN-1",),
    # almost right: only an oracle at the dtype's own precision sees these
    "reference_exp_backward_in_float32": ("VAL-1",),
    "reference_accumulation_in_float32": ("ACC-1",),
    "torch_float32_grads_slightly_off": ("VAL-2",),
    # custom autograd.Function
    "reference_function_outputs_not_attached": ("FN-1",),
    "reference_function_node_named_generically": ("FN-2",),
    "reference_function_forward_recorded": ("FN-3",),
    "reference_function_backward_gets_ones": ("FN-4",),
    "reference_function_saved_tensors_unversioned": ("FN-5",),
    "reference_function_saved_tensors_never_freed": ("FN-6",),
    "reference_function_needs_input_grad_for_every_tensor": ("FN-7",),
    "reference_function_non_differentiable_ignored": ("FN-8",),
    "reference_function_always_materializes": ("FN-9",),
    "reference_function_none_gradient_as_zeros": ("FN-10",),
    "reference_function_gradient_count_unchecked": ("FN-11",),
    "reference_function_gradient_resized": ("FN-12",),
    "reference_function_gradient_not_summed": ("FN-13",),
    "reference_function_records_under_no_grad": ("FN-14",),
    "reference_function_dirty_ignored": ("FN-15",),
    "reference_function_once_differentiable_ignored": ("FN-16",),
    "reference_function_backward_never_recorded": ("FN-17",),
    "reference_function_setup_context_before_forward": ("FN-18",),
    "reference_function_one_node_per_class": ("FN-19",),
    "reference_function_messages_generic": ("FN-20",),
    "reference_function_edges_for_numbers": ("FN-21",),
    # saved tensors and their hooks
    "reference_saved_hooks_pack_at_backward": ("SAV-1",),
    "reference_saved_hooks_unpack_skipped": ("SAV-2",),
    "reference_saved_hooks_unpack_result_ignored": ("SAV-3",),
    "reference_saved_hooks_outermost_wins": ("SAV-4",),
    "reference_saved_hooks_never_disabled": ("SAV-5",),
    "reference_save_on_cpu_in_float32": ("SAV-6",),
    "reference_function_saves_bypass_hooks": ("SAV-7",),
    "reference_saved_hooks_unpacked_with_current_hooks": ("SAV-8",),
    "reference_unpacked_tensors_detached": ("SAV-9",),
    # views and in-place operations on views
    "reference_views_copy": ("VIEW-1",),
    "reference_view_base_is_parent": ("VIEW-2",),
    "reference_clone_shares_storage": ("VIEW-3",),
    "reference_view_own_version_counter": ("VIEW-4",),
    "reference_view_copies_silently": ("VIEW-5",),
    "reference_views_of_leaves_writable": ("VIEW-6",),
    "reference_view_of_leaf_message_generic": ("VIEW-7",),
    "reference_view_writes_not_in_base": ("VIEW-8",),
    "reference_views_never_follow_base": ("VIEW-9", "VIEW-10"),
    "reference_views_follow_own_writes_only": ("VIEW-10",),
    "reference_as_strided_named_generically": ("VIEW-11",),
    "reference_plain_base_stays_out_of_graph": ("VIEW-12",),
    "reference_no_grad_views_writable": ("VIEW-13",),
    "reference_no_grad_view_message_generic": ("VIEW-14",),
    "reference_expanded_views_unchecked": ("VIEW-15",),
    "reference_detach_base_detaches_views": ("VIEW-16",),
    "reference_no_grad_view_writes_unversioned": ("VIEW-17",),
    # leftovers of the fact sheet: grad modes, modules, in-place, higher order, conversions
    "reference_inference_tensors_saved": ("MODE-7",),
    "reference_grad_mode_decorators_need_parentheses": ("MODE-10",),
    "reference_set_grad_enabled_decorator_switches": ("MODE-11",),
    "reference_inference_mode_false_keeps_grad_mode": ("MODE-12",),
    "reference_parameter_always_requires_grad": ("MOD-2",),
    "reference_module_output_always_requires_grad": ("MOD-6",),
    "reference_frozen_layers_run_under_no_grad": ("MOD-7",),
    "reference_module_requires_grad_not_recursive": ("MOD-8",),
    "reference_module_zero_grad_skips_frozen": ("MOD-9",),
    "reference_buffers_registered_as_parameters": ("MOD-10",),
    "reference_eval_freezes_parameters": ("MOD-11",),
    "reference_parameters_updatable_in_place": ("MOD-12",),
    "reference_version_error_without_counts": ("INP-7",),
    "reference_no_grad_inplace_unversioned": ("INP-8",),
    "reference_setitem_always_recorded": ("INP-15",),
    "torch_double_backward_only": ("HO-4",),
    "reference_seed_gradient_requires_grad": ("HO-5",),
    "torch_autograd_grad_first_output_only": ("GRAD-9",),
    "reference_unused_index_from_one": ("GRAD-10",),
    "torch_backward_empty_inputs_means_all": ("MISC-5",),
    "torch_backward_returns_self": ("MISC-6",),
    "reference_numpy_of_requiring_tensor": ("MISC-7",),
    "reference_tensor_of_tensor_keeps_graph": ("MISC-8",),
    # forward-mode AD
    "reference_make_dual_outside_a_level": ("FWD-1",),
    "reference_dual_levels_nest": ("FWD-1",),
    "reference_unpack_dual_plain_tuple": ("FWD-2",),
    "reference_missing_tangents_as_zeros": ("FWD-3",),
    "reference_tanh_jvp_from_input": ("FWD-4",),
    "reference_tangents_outlive_their_level": ("FWD-5",),
    "reference_make_dual_checks_numel": ("FWD-6",),
    "reference_make_dual_accepts_integers": ("FWD-6",),
    "reference_no_grad_stops_tangents": ("FWD-7",),
    "reference_detach_keeps_tangent": ("FWD-8",),
    "reference_forward_ad_ignores_inference_mode": ("FWD-9",),
    "reference_make_dual_copies_primal": ("FWD-10",),
}


def spec(name: str) -> str:
    """The `--engine` spec of mutant `name`."""
    return f"broken.{name}"


def cases() -> list[tuple[str, str]]:
    """Every (mutant, behaviour ID) pair the suite must catch."""
    return [(name, id_) for name, ids in MUTANTS.items() for id_ in ids]
