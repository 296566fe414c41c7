"""Devices: every tensor of the reference engine computes on the CPU. torch's meta device is known
only so far as a tensor can be made on it and is refused where torch refuses one: as the `.grad`
of a CPU leaf (ACC-12).

A meta tensor has a shape and a dtype and no values: its array is a `MetaArray`, which takes no
memory (every element is the one zero it is broadcast from) and refuses to be computed with, the
reference having no kernels for the meta device.
"""
import numpy as np

NO_KERNELS = "reference: a tensor on the meta device has no values to compute with"


class MetaArray(np.ndarray):
    """The array of a meta tensor: its shape and dtype are read, its values never."""

    def __array_ufunc__(self, *args, **kwargs):
        raise NotImplementedError(NO_KERNELS)

    def __array_function__(self, *args, **kwargs):
        raise NotImplementedError(NO_KERNELS)

    def tolist(self):
        raise NotImplementedError(NO_KERNELS)


def placed(array, device):
    """`array` on `device`: on the CPU (None: the default) as it is, on the meta device as a
    MetaArray of its shape and dtype; any other device is refused, not ignored."""
    if device is None or str(device) == "cpu":
        return array
    if str(device) == "meta":
        return np.broadcast_to(np.zeros((), array.dtype), array.shape).view(MetaArray)
    raise RuntimeError(f"the reference engine has only the devices 'cpu' and 'meta', not {device!r}")


def device_of(array):
    return "meta" if isinstance(array, MetaArray) else "cpu"
