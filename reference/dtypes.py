"""The six dtypes of the reference engine and torch's type-promotion rules.

NumPy and torch promote differently (NumPy: int64 + float32 -> float64, a 0-dim float64 array wins
over a float32 matrix; torch: both give float32), so the op set asks `result_type` for torch's
answer whenever the operands' dtypes differ. This module knows nothing about autograd.
"""
import numpy as np


class dtype:
    """A dtype object compared with `==` to `Tensor.dtype`, printed like `reference.float32`."""

    __slots__ = ("name", "numpy", "is_floating_point", "is_complex", "category", "torch_name", "tensor_type",
                 "c_name")

    def __init__(self, name, numpy, category, torch_name, tensor_type, c_name):
        self.name = name
        self.numpy = np.dtype(numpy)
        self.category = category  # 0 bool, 1 integer, 2 floating point, 3 complex: torch promotes across these
        self.is_floating_point = category == 2
        self.is_complex = category == 3
        self.torch_name = torch_name  # the ScalarType name torch prints in messages ('Float')
        self.tensor_type = tensor_type  # the legacy type name torch prints in messages ('FloatTensor')
        self.c_name = c_name  # the C type name torch prints in messages ('float')

    def __repr__(self):
        return f"reference.{self.name}"

    def __reduce__(self):
        return self.name


float32 = dtype("float32", np.float32, 2, "Float", "FloatTensor", "float")
float64 = dtype("float64", np.float64, 2, "Double", "DoubleTensor", "double")
int64 = dtype("int64", np.int64, 1, "Long", "LongTensor", "long int")
bool = dtype("bool", np.bool_, 0, "Bool", "BoolTensor", "bool")  # torch's name
complex64 = dtype("complex64", np.complex64, 3, "ComplexFloat", "ComplexFloatTensor", "c10::complex<float>")
complex128 = dtype("complex128", np.complex128, 3, "ComplexDouble", "ComplexDoubleTensor", "c10::complex<double>")

float = float32  # torch's aliases
double = float64
long = int64
cfloat = complex64
cdouble = complex128

_BY_NUMPY = {d.numpy: d for d in (float32, float64, int64, bool, complex64, complex128)}
# NumPy dtypes the factories accept and convert to one of ours, as torch.tensor(np_array) would.
_CONVERTED = {np.dtype(np.float16): float32, np.dtype(np.int32): int64, np.dtype(np.int16): int64,
              np.dtype(np.int8): int64, np.dtype(np.uint8): int64}
_DEFAULT = {0: bool, 1: int64, 2: float32, 3: complex64}  # what a Python bool/int/float/complex becomes


def from_numpy(numpy_dtype):
    """Our dtype object for a NumPy dtype (float32 arrays -> reference.float32)."""
    found = _BY_NUMPY.get(numpy_dtype)
    return found if found is not None else _CONVERTED[numpy_dtype]


def scalar_category(value):
    """The category (0 bool, 1 integer, 2 floating point, 3 complex) of a Python number."""
    if isinstance(value, (np.bool_, type(True))):
        return 0
    if isinstance(value, (complex, np.complexfloating)):
        return 3
    return 1 if isinstance(value, (int, np.integer)) else 2


def result_type(*operands):
    """torch's result dtype for operands that are arrays or Python numbers (BC-3).

    The highest category present wins; within it, a tensor with dimensions beats a 0-dim tensor,
    which beats a Python number (which then takes the default dtype of its category).
    """
    ranked = []  # (category, priority, numpy dtype); priority 2 dimensioned, 1 zero-dim, 0 number
    for x in operands:
        if isinstance(x, np.ndarray):
            d = from_numpy(x.dtype)
            ranked.append((d.category, 2 if x.ndim else 1, d.numpy))
        else:
            c = scalar_category(x)
            ranked.append((c, 0, _DEFAULT[c].numpy))
    category = max(r[0] for r in ranked)
    if category == 3:
        return _complex_result(ranked)
    priority = max(r[1] for r in ranked if r[0] == category)
    return np.result_type(*[r[2] for r in ranked if r[0] == category and r[1] == priority])


def _complex_result(ranked):
    """torch's result dtype when a complex operand takes part (CPLX-1). Operands of one priority
    promote together (float64 with complex64 gives complex128); across priorities a complex operand
    of lower priority takes the precision of a floating-point one of higher priority
    (float32 matrix * complex128 0-dim -> complex64; float64 matrix * 1j -> complex128), while a
    complex operand of higher priority wins as it is."""
    result = None
    for priority in (0, 1, 2):
        level = [(c, d) for c, p, d in ranked if p == priority]
        if not level:
            continue
        top = max(c for c, _ in level)
        here = np.result_type(*[d for c, d in level if c >= 2 or c == top])
        if result is None or here.kind == "c" or result.kind != "c":
            result = here
        elif here.kind == "f":
            result = np.result_type(here, np.complex64)
    return result
