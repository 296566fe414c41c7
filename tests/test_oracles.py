"""The oracles' comparison says what is wrong: a None is reported as None, not as a shape."""

import numpy as np
import pytest

from autograd_conformance.harness.oracles import assert_close


def test_a_missing_gradient_is_reported_as_none():
    with pytest.raises(AssertionError, match=r"^h\.grad is None, but the model oracle gives "
                                             r"\[1\.0, 2\.0, 3\.0\]$"):
        assert_close(None, np.array([1.0, 2.0, 3.0]), dtype="float32", oracle="model",
                     what="h.grad")


def test_a_gradient_where_the_oracle_gives_none_is_reported():
    with pytest.raises(AssertionError, match=r"^g is \[0\.5\], but the first call oracle gives None$"):
        assert_close(np.array([0.5]), None, dtype="float64", oracle="first call", what="g")


def test_a_shape_mismatch_is_still_reported_as_shapes():
    with pytest.raises(AssertionError, match=r"shape \(\), but the model oracle gives \(3,\)"):
        assert_close(np.float64(1.0), np.zeros(3), dtype="float32", oracle="model", what="h.grad")
