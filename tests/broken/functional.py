"""Mutants of the catalog's chapter 'functional' (suites/test_functional.py): The functional API:
vjp, jvp, vhp, hvp, jacobian, hessian."""

import numpy as np

from autograd_conformance import reference
from autograd_conformance.harness.counts import FUNCTION_INPUTS, FUNCTION_OUTPUTS
from autograd_conformance.reference.autograd import forward_jacobian, functional, gradients
from tests.broken import _reference
from tests.broken.registry import mutant


@mutant("FUNC-1")
def reference_vjp_pulls_back_ones():
    """vjp seeds its backward pass with ones of v's shape, the implicit gradient of a sum, instead
    of v: it returns the gradient of sum(func(inputs))."""
    def _with_ones(vjp):
        def vjp_of_the_sum(func, inputs, v=None, create_graph=False, strict=False):
            ones = None if v is None else (tuple(map(reference.ones_like, v)) if isinstance(v, tuple)
                                           else reference.ones_like(v))
            return vjp(func, inputs, ones, create_graph, strict)
        return vjp_of_the_sum

    _reference.replace(functional, "vjp", _with_ones)


@mutant("FUNC-2")
def reference_jvp_transposed():
    """jvp confuses forward and reverse mode: it returns the vjp with v, v^T J, instead of J v (the
    same only where J is symmetric, and a shape error where the input and output shapes differ)."""
    def _transposed(jvp):
        def jvp_by_vjp(func, inputs, v=None, create_graph=False, strict=False):
            return functional.vjp(func, inputs, v, create_graph, strict)
        return jvp_by_vjp

    _reference.replace(functional, "jvp", _transposed)


@mutant("FUNC-3")
def reference_v_defaults_to_ones():
    """A v left out is taken as ones of the shape it would have, for any number of elements,
    instead of raising where it is not one number."""
    def _ones_for_none(vectors):
        def vectors_or_ones(v, like, like_is_tuple, whose, create_graph):
            if v is None:
                return tuple(reference.ones_like(t) for t in like)
            return vectors(v, like, like_is_tuple, whose, create_graph)
        return vectors_or_ones

    _reference.replace(functional, "_vectors", _ones_for_none)


@mutant("FUNC-4")
def reference_hessian_of_a_constant_gradient():
    """hessian takes the inner gradient without create_graph, so the outer jacobian differentiates
    a constant: every second derivative comes out zero."""
    def _constant_gradient(hessian):
        def hessian_of_a_constant(func, inputs, create_graph=False, strict=False, vectorize=False,
                                  outer_jacobian_strategy="reverse-mode"):
            def gradient(*xs):
                return functional.jacobian(lambda *a: func(*a).reshape(()), xs)  # no create_graph
            rows = functional.jacobian(gradient, inputs, create_graph=create_graph, strict=strict,
                                       vectorize=vectorize)
            return rows if isinstance(inputs, tuple) else rows[0]
        return hessian_of_a_constant

    _reference.replace(functional, "hessian", _constant_gradient)


@mutant("FUNC-5")
def reference_hvp_drops_mixed_derivatives():
    """hvp and vhp of several inputs differentiate the function with respect to each input on its
    own, the others held fixed: each result is H_jj v_j, without the mixed second derivatives
    H_jk v_k."""
    def _one_input_at_a_time(product):
        def product_per_input(func, inputs, v=None, create_graph=False, strict=False):
            if not isinstance(inputs, tuple) or len(inputs) == 1 or v is None:
                return product(func, inputs, v, create_graph, strict)
            results = []
            for j, x in enumerate(inputs):
                def along_j(moved, j=j):
                    return func(*inputs[:j], moved, *inputs[j + 1:])
                output, result = product(along_j, x, v[j], create_graph, strict)
                results.append(result)
            return output, tuple(results)
        return product_per_input

    _reference.replace(functional, "hvp", _one_input_at_a_time)
    _reference.replace(functional, "vhp", _one_input_at_a_time)


@mutant("FUNC-6")
def reference_strict_ignored():
    """The functional API accepts strict=True but never checks: it gives zeros where no path leads
    from an output to an input, as strict=False does."""
    def _lenient(api):
        def never_strict(*args, strict=False, **kwargs):
            return api(*args, strict=False, **kwargs)
        return never_strict

    for _api in ("vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"):
        _reference.replace(functional, _api, _lenient)


@mutant("FUNC-6")
def reference_strict_ignores_create_graph():
    """strict=True checks that every output has a path to every input, but with create_graph=True
    gives a constant Jacobian (a linear function's) without history instead of refusing it."""
    def _unchecked(finish_derivatives):
        def finish_without_the_check(derivatives, create_graph, strict, what="jacobian"):
            return finish_derivatives(derivatives, create_graph, False, what)
        return finish_without_the_check

    _reference.replace(functional, "_finish_derivatives", _unchecked)


@mutant("FUNC-6")
def reference_strict_with_vectorize():
    """jacobian (and hessian through it) accepts strict=True together with vectorize=True, checking
    strictly in its batched call, where torch refuses the pair."""
    def _batched_strict(jacobian):
        def jacobian_accepting_both(func, inputs, create_graph=False, strict=False, vectorize=False,
                                    strategy="reverse-mode"):
            if strict and vectorize:
                return jacobian(func, inputs, create_graph, strict=True, vectorize=False,
                                strategy=strategy)
            return jacobian(func, inputs, create_graph, strict, vectorize, strategy)
        return jacobian_accepting_both

    _reference.replace(functional, "jacobian", _batched_strict)


@mutant("FUNC-7")
def reference_functional_results_keep_history():
    """The functional API returns its results as computed, never detached: without create_graph,
    outputs and derivatives still require grad and have a grad_fn."""
    _reference.replace(functional, "_finish", lambda finish: lambda tensors, create_graph: tuple(tensors))


@mutant("FUNC-8")
def reference_vectorized_jacobian_unshaped():
    """With vectorize=True, jacobian returns each block as the batched call gives it, one row per
    output element, (output.numel(),) + input.shape, without reshaping it to output.shape +
    input.shape."""
    def _unshaped(blocks):
        def rows_as_batched(i, out, inputs, create_graph, strict, vectorize):
            result = blocks(i, out, inputs, create_graph, strict, vectorize)
            if not vectorize:
                return result
            return tuple(block.reshape((out.numel(),) + x.shape) for block, x in zip(result, inputs))
        return rows_as_batched

    _reference.replace(functional, "_blocks", _unshaped)


@mutant("JAC-9")
def reference_jacobian_input_major():
    """jacobian of tuple inputs and tuple outputs nests its blocks input first, result[j][i] = d
    output_i / d input_j, instead of output first."""
    def _input_major(jacobian):
        def jacobian_by_input(func, inputs, *args, **kwargs):
            result = jacobian(func, inputs, *args, **kwargs)
            if isinstance(result, tuple) and result and isinstance(result[0], tuple):
                return tuple(zip(*result))
            return result
        return jacobian_by_input

    _reference.replace(functional, "jacobian", _input_major)


@mutant("JAC-9", corner=FUNCTION_INPUTS)
def reference_jacobian_reverses_the_inputs_after_the_second():
    """jacobian gives, in each row, the blocks of the third input onwards in reverse order: right
    for up to three inputs (the functional tests drew three before counts.py), wrong from four
    (hessian's own inner jacobians keep their order)."""
    def _reversed_inputs(jacobian):
        def jacobian_reversing_inputs(func, inputs, *args, **kwargs):
            result = jacobian(func, inputs, *args, **kwargs)
            if (not isinstance(inputs, tuple) or len(inputs) < 4
                    or func.__qualname__.startswith("hessian.")):
                return result
            if isinstance(result[0], tuple):
                return tuple(row[:2] + row[2:][::-1] for row in result)
            return result[:2] + result[2:][::-1]
        return jacobian_reversing_inputs

    _reference.replace(functional, "jacobian", _reversed_inputs)


@mutant("JAC-9", corner=FUNCTION_OUTPUTS)
def reference_jacobian_puts_the_second_output_last():
    """jacobian of a function returning three or more outputs gives the row of the second output
    after those of the third onwards: right for one or two outputs (hessian's own inner jacobians
    keep their order)."""
    def _second_output_last(jacobian):
        def jacobian_second_output_last(func, inputs, *args, **kwargs):
            result = jacobian(func, inputs, *args, **kwargs)
            rows = (isinstance(result[0], tuple) if isinstance(inputs, tuple)
                    else isinstance(result, tuple))
            if not rows or func.__qualname__.startswith("hessian."):
                return result
            return result[:1] + result[2:] + result[1:2]
        return jacobian_second_output_last

    _reference.replace(functional, "jacobian", _second_output_last)


@mutant("FUNC-2", corner=FUNCTION_INPUTS)
def reference_jvp_drops_the_tangents_from_the_fourth_input():
    """jvp takes the v of the fourth input onwards as zeros, leaving their columns out of J v:
    right for up to three inputs (the functional tests drew three before counts.py)."""
    def _dropped(jvp):
        def jvp_of_the_first_three(func, inputs, v=None, create_graph=False, strict=False):
            if isinstance(v, tuple) and len(v) >= 4:
                v = v[:3] + tuple(reference.zeros_like(each) for each in v[3:])
            return jvp(func, inputs, v, create_graph, strict)
        return jvp_of_the_first_three

    _reference.replace(functional, "jvp", _dropped)


@mutant("JAC-10")
def reference_batched_grad_sums_the_batch():
    """autograd.grad(..., is_grads_batched=True) pulls back the sum of the batch for every row, as
    if the vectors were gradients of one root to add up, instead of one vector-Jacobian product
    per vector."""
    def _summed(batched):
        def every_row_the_sum(outputs, inputs, grad_outputs, retain_graph, **options):
            batches = grad_outputs if isinstance(grad_outputs, tuple) else (grad_outputs,)
            summed = tuple(gradients.make(np.broadcast_to(g._array.sum(axis=0), g.shape).copy())
                           for g in batches)
            return batched(outputs, inputs, summed, retain_graph, **options)
        return every_row_the_sum

    _reference.replace(gradients, "_batched", _summed)


@mutant("FUNC-9")
def reference_forward_jacobian_transposed():
    """jacobian(strategy="forward-mode") lays each block's columns out as rows: d input / d output
    reshaped to output.shape + input.shape, right only where a block is symmetric (elementwise
    functions of one input)."""
    def _transposed(jacobian):
        def jacobian_with_transposed_blocks(func, inputs):
            returned_tuple, blocks = jacobian(func, inputs)
            return returned_tuple, tuple(
                tuple(functional.make(_transpose(block._array, x.numel())) for block, x in zip(row, inputs))
                for row in blocks)
        return jacobian_with_transposed_blocks

    _reference.replace(forward_jacobian, "jacobian", _transposed)


def _transpose(block, columns):
    """A block of shape output.shape + input.shape, its (outputs x inputs) matrix transposed and
    read back in that shape."""
    return np.ascontiguousarray(block.reshape(-1, columns).T).reshape(block.shape)
