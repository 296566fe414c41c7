"""Differential tests: the same snippets run through torch and the reference engine must print the same.

Each case is a function of the namespace (`torch` or `reference`) written like the catalog entry it
checks (the IDs are in /work/shared/behaviours.md). The comparison covers results, exception types and
messages, and warnings; torch's "torch." prefixes are mapped to "reference." before comparing, except
where torch's messages name torch types (torch.Size, torch.FloatTensor), which the engine prints too.
Optimizer steps and nn.Linear's initialisation are compared numerically at the end.
"""
import math
import warnings

import numpy as np
import pytest
import torch

from autograd_conformance import reference

# Warnings torch emits once per process (MISC-14): whether one shows depends on the tests run before.
# (torch 2.13's first forward-mode AD call scripts helpers with the deprecated torch.jit.script.)
WARN_ONCE = ("Using backward() with create_graph=True", "Converting a tensor with requires_grad=True",
             "`torch.jit.script` is deprecated")


def outcome(ag, f):
    """What running f(ag) shows: its result's repr or the exception, then every warning's text."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            shown = [repr(f(ag))]
        except Exception as error:  # noqa: BLE001 - the exception is the outcome
            shown = [f"{type(error).__name__}: {error}"]
    shown += [f"{w.category.__name__}: {str(w.message).split(' (Triggered')[0]}" for w in caught
              if not str(w.message).startswith(WARN_ONCE)]
    text = "\n".join(shown).replace("torch.", "reference.")
    return text.replace("reference.Size", "torch.Size").replace("reference.FloatTensor", "torch.FloatTensor")


cases = {}


def raises(f):
    """The exception f() raises, as 'Type: message' (a case's last step may be expected to fail)."""
    try:
        f()
    except Exception as error:  # noqa: BLE001
        return f"{type(error).__name__}: {error}"
    return "no exception"


def case(f):
    cases[f.__name__] = f
    return f


@case
def leaf1(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True); y = x * 2; y.sum().backward(); return y.grad, x.grad
@case
def leaf7(ag):
    x = ag.tensor([1.0], requires_grad=True); y = x*2; y.retain_grad(); z = x*3; z.sum().backward(inputs=[z]); return y.grad, z.grad
@case
def leaf8(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True); y = x * 2; y.retain_grad(); (y*y).sum().backward(); return y.grad, y.retains_grad, x.retains_grad, x.grad
@case
def leaf9(ag):
    ag.tensor([1.0]).retain_grad()
@case
def leaf10(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True); y = x*2; y.retain_grad(); z = y.sum(); z.backward(retain_graph=True); z.backward(); return y.grad, x.grad
@case
def leaf11(ag):
    x = ag.tensor([1.0], requires_grad=True); (x*2).sum().backward(); return x.grad.is_leaf, x.grad.requires_grad, x.grad.grad_fn
@case
def gfn1(ag):
    x = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    w = ag.tensor([[1.0, 0.0], [0.0, 1.0]], requires_grad=True)
    v = ag.tensor([1.0, 2.0], requires_grad=True)
    cases = {'x+1': x + 1, 'x+w': x + w, 'x-1': x - 1, 'x-w': x - w, '1-x': 1 - x, '-x': -x,
     'x*2': x * 2, 'x*w': x * w, 'x/2': x / 2, 'x/w': x / w, '2/x': 2 / x,
     'x@w': x @ w, 'x@v': x @ v, 'v@v': v @ v,
     'x.sum()': x.sum(), 'x.sum(0)': x.sum(0), 'x.mean()': x.mean(), 'x.mean(0)': x.mean(0),
     'x**2': x ** 2, 'x.pow(2)': x.pow(2), 'x**w': x ** w, '2**x': 2 ** x,
     'x.exp()': x.exp(), 'x.log()': x.log(), 'relu': ag.relu(x), 'sigmoid': ag.sigmoid(x), 'tanh': ag.tanh(x),
     'x.view(4)': x.view(4), 'x.reshape(4)': x.reshape(4), 'x.t()': x.t(), 'x.T': x.T,
     'x.transpose(0,1)': x.transpose(0, 1), 'x[0]': x[0], 'x[:, 0]': x[:, 0], 'x[0:1]': x[0:1], 'x[0,1]': x[0,1],
     'x.clone()': x.clone(), 'x.double()': x.double(), 'sqrt': x.sqrt(), 'abs': x.abs(), 'unsq': x.unsqueeze(0), 'exp': x[0].expand(2,2)}
    return {k: type(t.grad_fn).__name__ for k, t in cases.items()}
@case
def gfn2(ag):
    x = ag.ones(3, 4, requires_grad=True)
    return (type(ag.nn.Linear(4, 2)(x).grad_fn).__name__, type(ag.nn.Linear(4, 2, bias=False)(x).grad_fn).__name__,
            type(ag.nn.MSELoss()(x, ag.zeros(3, 4)).grad_fn).__name__, type(ag.nn.Linear(4, 2)(x[0]).grad_fn).__name__,
            [type(n).__name__ for n, _ in ag.nn.Linear(4, 2)(x).grad_fn.next_functions])
@case
def gfn3(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True); c = ag.tensor([3.0, 4.0]); z = x * c + x; s = z.sum()
    f = lambda nf: tuple((type(n).__name__ if n is not None else None, i) for n, i in nf)
    return f(s.grad_fn.next_functions), f(z.grad_fn.next_functions), f(z.grad_fn.next_functions[0][0].next_functions), f((x * 2).grad_fn.next_functions)
@case
def gfn4(ag):
    x = ag.tensor(1.0, requires_grad=True); acc = (x*3).grad_fn.next_functions[0][0]
    return x.grad_fn, type(acc).__name__, acc.name(), acc.variable is x, acc.next_functions
@case
def gfn5(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True); y = x * x
    return y.grad_fn._saved_self is x
@case
def gfn6(ag):
    m = ag.tensor([[2.0, 3.0]], requires_grad=True); n = ag.zeros(1, 2); n[0, 0] = m[0, 0] ** 2
    r = (n.is_leaf, n.requires_grad, type(n.grad_fn).__name__)
    n[0, 1] = m[0, 1] ** 3
    return r, [type(a).__name__ for a, _ in n.grad_fn.next_functions]
@case
def gfn8(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    return [repr(x), repr(x*2), repr(x.sum()), repr(x.detach()), repr(ag.nn.Parameter(ag.ones(2)))]
@case
def acc3(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True); (x*x).sum().backward(); g1 = x.grad; (x*x).sum().backward(); return x.grad is g1, g1
@case
def acc4(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True); (x*x).sum().backward(create_graph=True); g1 = x.grad
    (x*x).sum().backward(create_graph=True); return x.grad is g1, g1, x.grad
@case
def acc5(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True); g = ag.tensor([5.0, 6.0]); x.backward(g); return x.grad is g, x.grad
@case
def acc6(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True); (x*3).sum().backward(); g = x.grad; x.grad.zero_(); a = (x.grad, x.grad is g)
    (x*3).sum().backward(); return a, x.grad, x.grad is g
@case
def acc7(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True); (x*3).sum().backward(); x.grad.data.zero_(); return x.grad
@case
def acc9(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True); opt = ag.optim.SGD([x], lr=0.1)
    (x * 3).sum().backward(); opt.zero_grad(); a = x.grad
    (x * 3).sum().backward(); g = x.grad; opt.zero_grad(set_to_none=False); return a, x.grad, x.grad is g
@case
def acc11(ag):
    x = ag.tensor([1.0], requires_grad=True); x.grad.zero_()
@case
def acc12(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True); r = []
    for bad in (ag.zeros(3), ag.zeros(2, dtype=ag.float64)):
        try: x.grad = bad
        except RuntimeError as err: r.append(str(err))
    x.grad = ag.ones(2); (x*1).sum().backward(); return r, x.grad
@case
def retain3(ag):
    def second_backward(f):
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = f(x); y.backward()
        try: y.backward(); return f'no raise, x.grad={x.grad.tolist()}'
        except RuntimeError: return 'RAISES'
    return [second_backward(f) for f in [lambda x: x.sum(), lambda x: (x + 1).sum(), lambda x: (x - 3).sum(), lambda x: (-x).sum(), lambda x: x.mean(), lambda x: (x + x).sum(), lambda x: x.view(2, 1).sum(), lambda x: x[0], lambda x: x.clone().sum(), lambda x: (x * 2).sum(), lambda x: (x / 2).sum(), lambda x: (x * x).sum(), lambda x: (x ** 2).sum(), lambda x: x.exp().sum(), lambda x: x.relu().sum(), lambda x: x @ x]]
@case
def retain5(ag):
    x = ag.tensor(2.0, requires_grad=True); y = x ** 3; g, = ag.autograd.grad(y, x, create_graph=True); g2, = ag.autograd.grad(y, x); return g, g2
@case
def retain6(ag):
    x = ag.tensor(2.0, requires_grad=True); y = x ** 3; g, = ag.autograd.grad(y, x, create_graph=True, retain_graph=False); ag.autograd.grad(y, x)
@case
def retain7(ag):
    x = ag.tensor(2.0, requires_grad=True); y = x * x; y.backward(); y.grad_fn._saved_self
@case
def retain8(ag):
    x = ag.tensor(2.0, requires_grad=True); h = x ** 2; a, b = h * 3, h * 4; a.backward(retain_graph=True); b.backward(); r = x.grad.clone()
    h = x ** 2; h.exp().backward(); return r, raises(lambda: (h * 5).backward())
@case
def retain10(ag):
    x = ag.tensor(2.0, requires_grad=True)
    try: (x ** 2).backward(retain_variables=True)
    except TypeError as err: r = str(err)
    try: ag.autograd.backward(x ** 2, retain_variables=True)
    except TypeError as err: return r, str(err)
@case
def retain11(ag):
    x = ag.tensor(2.0, requires_grad=True); y = x ** 2; y.backward(None, True); y.backward(); return x.grad
@case
def retain12(ag):
    x = ag.tensor([1.0], requires_grad=True); a = x.volatile; x.volatile = True; return a, x.volatile, x.requires_grad
@case
def retain13(ag):
    from_ = ag.autograd.Variable
    v = from_(ag.ones(2), requires_grad=True); w = from_(ag.ones(2), volatile=True)
    r = (type(v).__name__, v.requires_grad, v.is_leaf, w.requires_grad, isinstance(v, from_))
    return r, raises(lambda: from_(ag.ones(2), requires_grad=True, volatile=True))
@case
def jac2(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    try: ag.autograd.grad(x * 2, x)
    except RuntimeError as err: r = str(err)
    return r, raises(lambda: ag.autograd.backward([x * 2, (x ** 2).sum()], [None, None]))
@case
def jac3(ag):
    x = ag.tensor([3.0], requires_grad=True); (x * 2).backward(); m = ag.tensor([[3.0]], requires_grad=True); (m * 2).backward()
    return x.grad, m.grad, raises(lambda: (ag.zeros(0, requires_grad=True) * 2).backward())
@case
def jac5(ag):
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x ** 2).backward(ag.tensor([1.0, 0.1, 0.01]))
    A = ag.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]); w = ag.tensor([1.0, 1.0], requires_grad=True); v = ag.tensor([1.0, 10.0, 100.0])
    (A @ w).backward(v); return x.grad, w.grad, v @ A
@case
def jac6(ag):
    m = ag.tensor([[2.0, 3.0]], requires_grad=True); n = ag.zeros(1, 2); n[0, 0] = m[0, 0] ** 2; n[0, 1] = m[0, 1] ** 3
    j = ag.zeros(2, 2)
    n.backward(ag.tensor([[1.0, 0.0]]), retain_graph=True); j[:, 0] = m.grad
    m.grad.data.zero_()
    n.backward(ag.tensor([[0.0, 1.0]])); j[:, 1] = m.grad
    return j
@case
def jac9(ag):
    jacobian = ag.autograd.functional.jacobian
    J = jacobian(lambda x: x ** 2, ag.ones(2, 3))
    r = (tuple(J.shape), J.requires_grad, type(jacobian(lambda a, b: a * b, (ag.ones(2), ag.ones(2)))).__name__, jacobian(lambda x: ag.ones(2), ag.ones(2)))
    return r, raises(lambda: jacobian(lambda x: ag.ones(2), ag.ones(2), strict=True))
@case
def jac8(ag):
    f = lambda x: (x * x[0]).sum() * x
    return ag.autograd.functional.jacobian(f, ag.tensor([1.5, -0.5]))
@case
def jac11(ag):
    x = ag.tensor([[1.0, 2.0]], requires_grad=True); r = []
    for g in (ag.ones(3), ag.ones(2), ag.tensor(1.0)):
        try: (x * 2).backward(g)
        except RuntimeError as err: r.append(str(err))
    s = ag.tensor(2.0, requires_grad=True)
    try: (s * 3).backward(ag.ones(1))
    except RuntimeError as err: r.append(str(err))
    return r
@case
def jac12(ag):
    r = []
    for g in (ag.ones(2, dtype=ag.float64), ag.tensor([1, 1]), ag.tensor([True, True])):
        x = ag.tensor([1.0, 2.0], requires_grad=True); (x * 2).backward(g); r.append((x.grad, x.grad.dtype))
    return r
@case
def jac14(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    ag.autograd.backward([x * 2, (x ** 2).sum()], [ag.ones(2), None]); r = x.grad
    return r, raises(lambda: ag.autograd.backward([(x * 2).sum(), (x ** 2).sum()], [ag.tensor(1.0)]))
@case
def jac15(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    ag.autograd.backward(x * 2, grad_tensors=ag.ones(2)); r = [x.grad]
    try: (x * 2).backward(grad_tensors=ag.ones(2))
    except TypeError as err: r.append(str(err))
    (x * 2).backward([1.0, 1.0])
@case
def jac16(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True); v = ag.tensor([1.0, 1.0], requires_grad=True)
    (x * x).backward(v); r = (x.grad, x.grad.requires_grad, v.grad); x.grad = None
    g, = ag.autograd.grad(x * x, x, v, create_graph=True); g.sum().backward(); return r, g.requires_grad, v.grad, x.grad
@case
def req1(ag):
    r = []
    for f in (lambda: ag.tensor([1, 2], requires_grad=True), lambda: setattr(ag.tensor([1, 2]), 'requires_grad', True), lambda: ag.tensor([1, 2]).requires_grad_()):
        try: f()
        except RuntimeError as err: r.append(str(err))
    return r
@case
def req3(ag):
    p = ag.nn.Parameter(ag.ones(2, dtype=ag.int64), requires_grad=False); r = (p.requires_grad, p.dtype)
    return r, raises(lambda: ag.nn.Parameter(ag.ones(2, dtype=ag.int64)))
@case
def req4(ag):
    x = ag.tensor([[1.0, 3.0, 2.0], [0.5, 4.0, -1.0]], requires_grad=True)
    results = [x.argmax(), x.argmax(dim=1), x.argmax(0, keepdim=True), x > 1, x == x, x.to(ag.int64), x.to(ag.bool)]
    return [(t, t.requires_grad, t.grad_fn) for t in results]
@case
def req6(ag):
    x = ag.tensor([1.0], requires_grad=True); y = x * 2; r = []
    for f in [lambda: setattr(y, 'requires_grad', False), lambda: setattr(y, 'requires_grad', True), lambda: y.requires_grad_(True), lambda: y.requires_grad_(False)]:
        try: f(); r.append('ok')
        except RuntimeError as err: r.append(str(err))
    return r
@case
def req11(ag):
    x = ag.tensor(1.0, requires_grad=True)
    try: ag.autograd.backward([x * 2, ag.tensor(3.0)])
    except RuntimeError as err: r = str(err)
    return r, raises(lambda: ag.autograd.grad(ag.tensor([1.0]).sum(), x))
@case
def req12(ag):
    x = ag.tensor([1.0], requires_grad=True); a = ag.tensor([1.0]); ag.autograd.grad((x * a).sum(), a)
@case
def req13(ag):
    x = ag.tensor(3.0, requires_grad=True); x.backward(); x.backward(); return x.grad
@case
def mode(ag):
    x = ag.tensor([1.0], requires_grad=True)
    with ag.no_grad():
        with ag.enable_grad():
            y = x * 2
        z = x * 2
        t = ag.ones(2, requires_grad=True)
    @ag.no_grad()
    def f(t): return t * 2
    @ag.no_grad
    def f2(t): return t * 2
    with ag.set_grad_enabled(False):
        a = x * 2
    ag.set_grad_enabled(False); b = x * 2; ag.set_grad_enabled(True)
    return y.requires_grad, z.requires_grad, f(x).requires_grad, f2(x).requires_grad, a.requires_grad, b.requires_grad, ag.is_grad_enabled(), t.requires_grad
@case
def mode6(ag):
    x = ag.tensor([1.0], requires_grad=True)
    with ag.inference_mode():
        y = x * 2
        r = (ag.is_inference_mode_enabled(), ag.is_grad_enabled())
        with ag.inference_mode(False):
            z = x * 2
    return r, y.requires_grad, y.is_leaf, y.is_inference(), x.is_inference(), z.requires_grad
@case
def mode12(ag):
    x = ag.tensor([1.0], requires_grad=True)
    with ag.no_grad():
        with ag.inference_mode(mode=False):
            inside = (ag.is_grad_enabled(), ag.is_inference_mode_enabled(), (x * 2).requires_grad)
        after = ag.is_grad_enabled()
    @ag.inference_mode
    def bare(t): return t * 2
    @ag.inference_mode(False)
    def off(t): return t * 2
    with ag.inference_mode():
        called = (off(x).requires_grad, off(x).is_inference(), ag.is_inference_mode_enabled())
    return inside, after, bare(x).requires_grad, bare(x).is_inference(), bare.__name__, called
@case
def mode7(ag):
    x = ag.tensor([1.0], requires_grad=True)
    with ag.inference_mode():
        y = ag.ones(1)
    r = []
    for f in (lambda: x * y, lambda: y.add_(1), lambda: y.requires_grad_()):
        try: f()
        except RuntimeError as err: r.append(str(err))
    return r
@case
def det(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True); y = x * 2; d = y.detach()
    r = [d.requires_grad, d.is_leaf, d.grad_fn]; d[0] = 100.0; r.append(y)
    x = ag.tensor(3.0, requires_grad=True); y = x ** 2; z = y.detach() * x + y; z.backward(); r.append(x.grad)
    return r
@case
def det3(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True); y = x.exp(); d = y.detach(); d.zero_(); return (y._version, d._version), raises(lambda: y.sum().backward())
@case
def det4(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True); y = x.exp(); y.data.zero_(); r = y._version; y.sum().backward(); return r, x.grad
@case
def det5(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True); y = x * 2; r = y.detach_(); a = (r is y, y.requires_grad, y.is_leaf, y.grad_fn)
    x = ag.tensor([1.0, 2.0], requires_grad=True); y = x * 2; z = y * 3; y.detach_(); z.sum().backward() 
    return a, x.grad, raises(lambda: (x * 2)[0:1].detach_())
@case
def mod(ag):
    net = ag.nn.Sequential(ag.nn.Linear(3, 4), ag.nn.ReLU(), ag.nn.Linear(4, 1))
    for p in net[0].parameters(): p.requires_grad = False
    net(ag.ones(5, 3)).sum().backward()
    r = [(n_, p.grad is None) for n_, p in net.named_parameters()]
    net2 = ag.nn.Sequential(ag.nn.Linear(3, 4), ag.nn.Linear(4, 1))
    rr = net2.requires_grad_(False)
    return r, rr is net2, [p.requires_grad for p in net2.parameters()], len(list(net.modules())), len(list(net.children()))
@case
def mod6(ag):
    net = ag.nn.Linear(3, 1)
    for p in net.parameters(): p.requires_grad = False
    y = net(ag.ones(2, 3)).sum(); y.backward()
@case
def mod12(ag):
    net = ag.nn.Linear(2, 1); net.weight.add_(1.0)
@case
def inp1(ag):
    r = []
    for f in [lambda x: x.add_(1), lambda x: x.__iadd__(1), lambda x: x.zero_(), lambda x: x.copy_(ag.zeros(2)), lambda x: x.fill_(0), lambda x: x.__setitem__(0, 5.0), lambda x: x[0:1].add_(1), lambda x: x.view(2).mul_(2)]:
        try: f(ag.tensor([1.0, 2.0], requires_grad=True))
        except RuntimeError as err: r.append(str(err))
    return r
@case
def inp5(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True); y = x * 2; z = y * y; y.add_(1); z.sum().backward()
@case
def inp6(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x.sigmoid(); y.mul_(2)
    y.sum().backward()
@case
def inp7(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True); y = x + 0; z = (y ** 2).sum(); y.add_(1); y.add_(1); y.mul_(3); z.backward()
@case
def inp8(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True); z = (x * x).sum()
    with ag.no_grad(): x.add_(1)
    z.backward()
@case
def inp9(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True); y = x * 3; y.add_(1); w = x * 1; z = (x + w).sum(); w.mul_(10); y.sum().backward(); z.backward(); return x.grad
@case
def inp10(ag):
    t = ag.zeros(3); r = [t._version]; t.add_(1); t[0] = 5; t.zero_(); r.append(t._version)
    u = t + 1; t += 1; r += [t._version, u._version]; t.data.add_(1); r.append(t._version)
    v = t.view(3); v.add_(1); r += [t._version, v._version]; return r
@case
def inp11(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True); y = x * 2; r = [type(y.grad_fn).__name__]
    y.add_(1); r += [type(y.grad_fn).__name__, y.is_leaf]; y.mul_(3); r.append(type(y.grad_fn).__name__)
    y.sum().backward(); return r, x.grad
@case
def inp12(ag):
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True); y = x * 2; y[0] = 0.0; r = type(y.grad_fn).__name__; y.sum().backward(); return r, x.grad
@case
def inp13(ag):
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True); y = x * 2; v = y[1:]; v.mul_(5)
    r = (type(y.grad_fn).__name__, type(v.grad_fn).__name__); y.sum().backward(); return r, x.grad
@case
def inp15(ag):
    m = ag.tensor([2.0, 3.0, 4.0], requires_grad=True)
    n = ag.zeros(3); n[0] = m[0].detach() ** 2; r = (n.is_leaf, n.requires_grad)
    n = ag.zeros(3); n[0] = m[0] * m[1]; n.sum().backward(); return r, m.grad
@case
def inp16(ag):
    a = ag.zeros(2); x = ag.tensor([1.0, 2.0], requires_grad=True); a.add_(x); return a.is_leaf, a.requires_grad, type(a.grad_fn).__name__
@case
def ho(ag):
    x = ag.tensor(2.0, requires_grad=True)
    d1, = ag.autograd.grad(x ** 4, x, create_graph=True); d2, = ag.autograd.grad(d1, x, create_graph=True); d3, = ag.autograd.grad(d2, x)
    g, = ag.autograd.grad(3 * x, x, create_graph=True)
    return d1, d2, d3, g, g.requires_grad
@case
def ho3(ag):
    x = ag.tensor(2.0, requires_grad=True); (x ** 3).backward(create_graph=True); r = x.grad; gx = x.grad; x.grad = None; gx.backward(); return r, x.grad
@case
def ho_mix(ag):
    x = ag.tensor([0.5, -1.0, 2.0], requires_grad=True)
    w = ag.tensor([[1.0, 2.0, 3.0], [0.5, -0.5, 1.0]], requires_grad=True)
    y = (ag.tanh(w @ x) * ag.sigmoid(x[0:2]) + ag.exp(x[1]) / (x[2] ** 2)).sum() + ag.log(x * x).mean() + (x.reshape(3, 1) * x).sum()
    g, = ag.autograd.grad(y, x, create_graph=True)
    h, = ag.autograd.grad(g.sum(), x, create_graph=True)
    gw, = ag.autograd.grad((g * g).sum(), w)
    return [round(v, 4) for v in g.tolist()], [round(v, 4) for v in h.tolist()], [[round(v, 3) for v in r] for r in gw.tolist()]
@case
def grad(ag):
    x = ag.tensor(1.0, requires_grad=True); u = ag.tensor([2.0, 3.0], requires_grad=True)
    r = [ag.autograd.grad(x * 2, [x, u], allow_unused=True), ag.autograd.grad(x * 2, [x, u], materialize_grads=True)]
    for kw in ({}, {'allow_unused': False, 'materialize_grads': True}):
        try: ag.autograd.grad(x * 2, [x, u], **kw)
        except (RuntimeError, ValueError) as err: r.append(type(err).__name__ + ':' + str(err))
    h = x ** 2; y = h * 3; r.append((ag.autograd.grad(y, h, retain_graph=True), ag.autograd.grad(y, y)))
    try: ag.autograd.grad(x ** 2, [])
    except RuntimeError as err: r.append(str(err))
    r.append(ag.autograd.grad([x * 2, x ** 2], x))
    return r
@case
def hooks(ag):
    r = []
    x = ag.tensor([1.0, 2.0], requires_grad=True); h = x.register_hook(lambda g: g * 10); (x * 3).sum().backward(); r += [x.grad, type(h).__name__]
    x = ag.tensor([1.0, 2.0], requires_grad=True); y = x * 2; y.register_hook(lambda g: g * 100); (y * 3).sum().backward(); r.append(x.grad)
    for order in ('retain first', 'hook first'):
        x = ag.tensor([1.0, 2.0], requires_grad=True); y = x * 2
        if order == 'retain first': y.retain_grad(); y.register_hook(lambda g: g * 100)
        else: y.register_hook(lambda g: g * 100); y.retain_grad()
        (y * 3).sum().backward(); r.append((y.grad, x.grad))
    x = ag.tensor([1.0], requires_grad=True); h = x.register_hook(lambda g: g * 10); h.remove(); (x * 3).sum().backward(); r.append(x.grad)
    x = ag.tensor([1.0], requires_grad=True); x.register_hook(lambda g: g + 1); x.register_hook(lambda g: g * 10); (x * 3).sum().backward(); r.append(x.grad)
    x = ag.tensor([1.0], requires_grad=True); x.register_hook(lambda g: g * 2); (x * 3).sum().backward(); (x * 3).sum().backward(); r.append(x.grad)
    x = ag.tensor(1.0, requires_grad=True); y = x * 2; calls = []; y.register_hook(lambda g: calls.append(g.item())); (y * 3 + y * 4).backward(); r.append((calls, x.grad))
    x = ag.tensor([1.0, 2.0], requires_grad=True); y = x * 1; seen = {}
    y.register_hook(lambda g: seen.__setitem__('before', g.clone())); y.mul_(3); y.register_hook(lambda g: seen.__setitem__('after', g.clone()))
    y.sum().backward(); r.append((seen, x.grad))
    x = ag.tensor([1.0,2.0], requires_grad=True); x.register_hook(lambda g: g*10); r.append(ag.autograd.grad((x*3).sum(), x))
    try: ag.tensor([1.0]).register_hook(lambda g: g)
    except RuntimeError as e: r.append(str(e))
    x = ag.tensor([1.0, 2.0], requires_grad=True); y = x * 2; y.register_hook(lambda g: ag.ones(3)); y.sum().backward()
@case
def post_accumulate_hooks(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True); seen = []
    h = x.register_post_accumulate_grad_hook(lambda t: seen.append((t is x, t.grad.clone(), (t * 1.0).requires_grad)))
    (x * 3).sum().backward(); (x * 3).sum().backward(); h.remove(); (x * 3).sum().backward(); r = [seen, type(h).__name__]
    x = ag.tensor([1.0, 2.0], requires_grad=True); x.register_post_accumulate_grad_hook(lambda t: [t.grad.mul_(0.5)] and None)
    (x * 3).sum().backward(); r.append(x.grad)
    x = ag.tensor([1.0, 2.0], requires_grad=True); x.register_post_accumulate_grad_hook(lambda t: t.grad)
    r.append(raises(lambda: (x * 3).sum().backward()))
    r.append(raises(lambda: (x * 2).register_post_accumulate_grad_hook(lambda t: None)))
    r.append(raises(lambda: ag.tensor([1.0]).register_post_accumulate_grad_hook(lambda t: None)))
    x = ag.tensor([1.0, 2.0], requires_grad=True); seen = []; x.register_post_accumulate_grad_hook(lambda t: seen.append(1))
    ag.autograd.grad((x * 3).sum(), x); r.append(seen)
    return r
@case
def node_hooks(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True); w = ag.tensor([3.0, 4.0], requires_grad=True); y = x * w; seen = []
    y.grad_fn.register_prehook(lambda go: seen.append(('pre', go)))
    h = y.grad_fn.register_hook(lambda gi, go: seen.append(('post', gi, go)) or (gi[0] * 10, None))
    (y * 5).sum().backward(retain_graph=True); r = [seen[:], x.grad, w.grad, type(h).__name__]
    h.remove(); y.grad_fn.register_prehook(lambda go: (go[0] * 2,)); (y * 5).sum().backward(); r += [x.grad, w.grad]
    for hook in (lambda go: [go[0]], lambda go: (go[0], go[0]), lambda go: (ag.ones(3),)):
        y = x * 2; y.grad_fn.register_prehook(hook); r.append(raises(lambda: y.sum().backward()))
    for hook in (lambda gi, go: (gi[0], gi[0], gi[0]), lambda gi, go: (ag.ones(3), None)):
        y = x * w; y.grad_fn.register_hook(hook); r.append(raises(lambda: y.sum().backward()))
    y = x * 2; m = y.grad_fn.metadata; m['k'] = 1; r.append((m, y.grad_fn.metadata is m, (x * 2).grad_fn.metadata))
    return r
@case
def hooks_firing(ag):
    r = []
    for run in ('grad y', 'grad x', 'grad y x', 'backward', 'backward inputs w'):
        x = ag.tensor([1.0, 2.0], requires_grad=True); w = ag.tensor([3.0, 4.0], requires_grad=True); y = x * 2; z = w * 3; fired = []
        y.grad_fn.register_hook(lambda gi, go: fired.append('post')); y.grad_fn.register_prehook(lambda go: fired.append('pre'))
        y.register_hook(lambda g: fired.append('tensor')); z.register_hook(lambda g: fired.append('z')); out = (z + y).sum()
        inputs = {'grad y': [y], 'grad x': [x], 'grad y x': [y, x]}.get(run)
        if inputs: ag.autograd.grad(out, inputs)
        else: out.backward(inputs=[w] if run == 'backward inputs w' else None)
        r.append((run, fired))
    x = ag.tensor([1.0, 2.0], requires_grad=True); y = x * 2; fired = []; y.retain_grad()
    y.grad_fn.register_hook(lambda gi, go: fired.append(('node post', y.grad.clone(), x.grad)))
    y.grad_fn.register_prehook(lambda go: fired.append(('node pre', y.grad.clone())) or (go[0] * 10,))
    y.register_hook(lambda g: fired.append(('tensor', y.grad)) or g * 2)
    acc = y.grad_fn.next_functions[0][0]
    acc.register_hook(lambda gi, go: fired.append(('acc post', x.grad.clone(), gi, go)))
    x.register_post_accumulate_grad_hook(lambda t: fired.append(('post acc', t.grad.clone())))
    acc.register_prehook(lambda go: fired.append(('acc pre', x.grad, go)))
    x.register_hook(lambda g: fired.append(('x tensor', x.grad)))
    (y * 3).sum().backward(); r += [fired, y.grad, x.grad]
    return r
@case
def module_hooks(ag):
    lin = ag.nn.Linear(2, 1); lin.weight = ag.nn.Parameter(ag.tensor([[1.0, -2.0]])); lin.bias = ag.nn.Parameter(ag.tensor([0.5])); seen = []
    lin.register_full_backward_pre_hook(lambda m, go: seen.append(('pre', m is lin, go)) or (go[0] * 10,))
    h = lin.register_full_backward_hook(lambda m, gi, go: seen.append(('hook', gi, go)) or (gi[0] * 2,))
    x = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True); lin(x).sum().backward()
    r = [seen[:], x.grad, lin.weight.grad, lin.bias.grad, type(h).__name__]
    h.remove(); seen.clear(); lin.register_full_backward_hook(lambda m, gi, go: seen.append(('plain input', gi, go)))
    lin(ag.tensor([[1.0, 2.0]])).sum().backward(); r.append(seen)
    lin.register_full_backward_hook(lambda m, gi, go: (ag.ones(1, 2),)); r.append(raises(lambda: lin(ag.tensor([[1.0, 2.0]])).sum().backward()))
    net = ag.nn.Sequential(ag.nn.Linear(2, 2), ag.nn.Tanh(), ag.nn.Linear(2, 1)); order = []
    for i, layer in enumerate(net):
        layer.register_full_backward_hook(lambda m, gi, go, i=i: order.append(i))
    net.register_full_backward_hook(lambda m, gi, go: order.append('net'))
    net(ag.ones(1, 2, requires_grad=True)).sum().backward(); r.append(order)
    return r
@case
def multi_grad_hooks(ag):
    register = ag.autograd.graph.register_multi_grad_hook
    a = ag.tensor([1.0, 2.0], requires_grad=True); b = ag.tensor([3.0], requires_grad=True); c = ag.tensor([5.0], requires_grad=True); fired = []
    h = register((a, b, c), lambda grads: fired.append(('all', list(grads))))
    register((a, b), lambda g: fired.append(('any', g)), mode='any')
    a.register_hook(lambda g: fired.append('a')); b.register_hook(lambda g: fired.append('b'))
    (a.sum() * 2 + b.sum() * 3).backward(); (a.sum() * 2 + b.sum() * 3 + c.sum()).backward(); h.remove(); (b.sum() * 3).backward()
    x = ag.tensor([1.0, 2.0], requires_grad=True); y = x * 2; z = y * 3; seen = []
    register((y, z), lambda grads: seen.append(list(grads))); ag.autograd.grad(z.sum() + y.sum(), [z]); (z.sum() + y.sum()).backward()
    return fired, seen, raises(lambda: register((a,), lambda g: None, mode='xx'))
@case
def bc(ag):
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True); b = ag.tensor([[1.0], [2.0]], requires_grad=True); (x * b).sum().backward()
    s = ag.tensor(2.0, requires_grad=True); (s * ag.ones(2, 3)).sum().backward()
    a = ag.tensor([1.0, 2.0], dtype=ag.float64, requires_grad=True); c = ag.tensor([3.0, 4.0], requires_grad=True); y = a * c; y.sum().backward()
    z = ag.tensor([1.0, 2.0], requires_grad=True); (z * ag.tensor([1, 2])).sum().backward()
    m = ag.ones(2, 3, requires_grad=True); m.mean().backward()
    return x.grad, b.grad, s.grad, y.dtype, a.grad.dtype, c.grad.dtype, z.grad.dtype, z.grad, m.grad
@case
def pow_tensor_exponent(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True); k = ag.tensor([[2.0, 3.0], [0.5, 1.0]], requires_grad=True)
    (x ** k).sum().backward(); g, = ag.autograd.grad((x ** k).sum(), k, create_graph=True)
    return x.grad, k.grad, g
@case
def formulas(ag):
    x = ag.tensor([[1.0, -2.0], [0.0, 4.0]], requires_grad=True)
    ys = [x.abs().sqrt() + x.sgn(), x.relu(), 2 / (x + 3), 2 ** x, x.double(), x[0].expand(3, 2), x.square(),
          x.flatten(), x.contiguous().cpu(), ag.mm(x, x)]
    return [g for y in ys for g in ag.autograd.grad(y.sum(), x, create_graph=True) + ag.autograd.grad(y.sum(), x)]
@case
def inplace_formulas(ag):
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True); y = x * 1; y.sub_(x); y.div_(x + 1)
    z = ag.zeros(3); z[ag.tensor([0, 2])] = x[:2] * 2  # torch names this node IndexPutBackward0: not compared
    return y, z.detach(), ag.autograd.grad((y + z).sum(), x)
@case
def misc(ag):
    x = ag.tensor(3.0, requires_grad=True); (x * 2 + x ** 2).backward(); r = [x.grad.clone()]; x.grad = None
    h = x * 2; (h * h + h).backward(); r.append(x.grad)
    x = ag.tensor(1.0, requires_grad=True); w = ag.tensor(2.0, requires_grad=True); (x * w).backward(inputs=[x]); r.append((x.grad, w.grad))
    h = x * 2; (h * 3).backward(inputs=[h]); r.append((h.grad, x.grad))
    u = ag.tensor(5.0, requires_grad=True); (x * 3).backward(inputs=[u]); r.append(u.grad)
    r.append((x*2).backward())
    x = ag.tensor([1.5], requires_grad=True); r.append((x.item(), x.tolist(), int(x), bool(x)))
    try: (x * 3).backward(inputs=[])
    except RuntimeError as err: r.append(str(err))
    try: (x * ag.tensor(1.0)).backward(inputs=[ag.tensor(1.0)])
    except RuntimeError as err: r.append(str(err))
    x.numpy()
@case
def misc8(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True); y = ag.tensor(x); return y.requires_grad, y.is_leaf
@case
def misc9(ag):
    import copy
    x = ag.tensor([1.0, 2.0], requires_grad=True); (x * 2).sum().backward(); c = copy.deepcopy(x); r = (c.requires_grad, c.is_leaf, c.grad, c.grad is x.grad)
    return r, raises(lambda: copy.deepcopy(x * 2))
@case
def misc12(ag):
    z = ag.tensor([1.0, 2.0], requires_grad=True); ag.autograd.backward(z * 2, grad_variables=ag.ones(2)); return z.grad
@case
def misc13(ag):
    x = ag.ones(2, 2, requires_grad=True); y = x + 2; z = y * y * 3; out = z.mean(); out.backward(); return type(y.grad_fn).__name__, type(z.grad_fn).__name__, type(out.grad_fn).__name__, x.grad
@case
def errors(ag):
    r = []
    for f in [lambda: ag.tensor([1.0, 2.0])[5], lambda: ag.tensor([1.0, 2.0]).mean(dim=3), lambda: ag.tensor([1, 2]).mean(), lambda: ag.ones(2, 3) @ ag.ones(2, 3),
              lambda: ag.ones(2, 3) + ag.ones(2, 2), lambda: ag.tensor([1.0, 2.0]).item(), lambda: ag.tensor([1, 2]).add_(1.5), lambda: ag.tensor([1.0, 2.0]).reshape(3),
              lambda: (ag.tensor([1.0], requires_grad=True)*2).backward(ag.tensor([1.0]), inputs=[]), lambda: ag.ones(2,dtype=ag.float64) @ ag.ones(2, 2)]:
        try: f(); r.append('ok')
        except Exception as e: r.append(f"{type(e).__name__}: {e}")  # noqa: BLE001 - any error, compared
    return r
@case
def dtypes_(ag):
    i = ag.tensor([1, 2]); f = ag.tensor([1.0, 2.0]); d = ag.tensor([1.0], dtype=ag.float64); b = ag.tensor([True, False])
    return [(i * 2.5).dtype, (i + f).dtype, (f + d).dtype, (f + ag.tensor(1.0, dtype=ag.float64)).dtype, (i / i).dtype, (b + b).dtype, (b + 1).dtype, (i + ag.tensor(1.5, dtype=ag.float64)).dtype, i.sum().dtype, b.sum().dtype, (f > 1).dtype, ag.tensor(1).dtype, ag.tensor(2.5).dtype, ag.tensor(True).dtype]
@case
def reprs(ag):
    return [repr(ag.tensor([True, False])), repr(ag.tensor([])), repr(ag.zeros(0, 3)), repr(ag.tensor([1e-5, 1.0])), repr(ag.tensor([1e9, 1.0])), repr(ag.tensor([[1.5, 2], [3, 4]], dtype=ag.float64, requires_grad=True)), repr(ag.tensor([1, 2, 3]) * 2.5), repr(ag.tensor([1, -20, 3])), repr(ag.tensor([2.0, 0.4, 0.06])), repr(ag.tensor([[4., 0.], [0., 27.]])), repr(ag.tensor(float('nan'))), repr(ag.tensor([float('inf'), 1.0]))]

@case
def anomaly_state(ag):
    r = [(ag.is_anomaly_enabled(), ag.is_anomaly_check_nan_enabled())]
    ag.autograd.set_detect_anomaly(True, check_nan=False); r.append((ag.is_anomaly_enabled(), ag.is_anomaly_check_nan_enabled()))
    with ag.autograd.detect_anomaly():
        with ag.autograd.set_detect_anomaly(False): r.append((ag.is_anomaly_enabled(), ag.is_anomaly_check_nan_enabled()))
        r.append((ag.is_anomaly_enabled(), ag.is_anomaly_check_nan_enabled()))
    r.append((ag.is_anomaly_enabled(), ag.is_anomaly_check_nan_enabled()))
    ag.autograd.set_detect_anomaly(False); return r
@case
def anomaly_nan(ag):  # GRAD-7, ANOM-2, ANOM-3, ANOM-4 (the traceback: this file's frames, the same for both)
    x = ag.tensor([0.0, 4.0], requires_grad=True); y = ag.tensor([2.0], requires_grad=True); r = []
    with ag.autograd.detect_anomaly():
        x.sqrt().sum().backward(); r.append(x.grad); x.grad = None
        r.append(raises(lambda: (x.sqrt() * 0).sum().backward()))
        r.append(raises(lambda: (ag.tensor([float('nan')]) * y).sum().backward()))
    z = (x / x).sum()
    with ag.autograd.set_detect_anomaly(True): r.append(raises(z.backward))
    with ag.autograd.set_detect_anomaly(True, check_nan=False): (x.sqrt() * 0).sum().backward()
    return r, x.grad
@case
def anomaly_hint(ag):  # INP-18 and ANOM-4 for a version error and a freed graph
    x = ag.tensor([1.0, 2.0], requires_grad=True); y = x.exp(); y.add_(1); r = []
    with ag.autograd.set_detect_anomaly(True):
        r.append(raises(lambda: y.sum().backward()))
        z = x.tanh().sum(); z.backward(); r.append(raises(z.backward))
    return r
@case
def layout_first_grad(ag):  # BC-4, LAYOUT-1
    leaves = [ag.zeros(3, 2).t(), ag.zeros(2, 3, 4).transpose(0, 2).transpose(1, 2), ag.zeros(3, 1).expand(2, 3, 4), ag.zeros(3, 4).narrow(1, 1, 2), ag.zeros(4, 3).narrow(0, 1, 2)]
    r = []
    for leaf in leaves:
        x = leaf.detach().requires_grad_(); (x * 2).sum().backward(); r.append((x.stride(), x.is_contiguous(), x.grad.stride(), x.grad.is_contiguous()))
    return r
@case
def layout_kept(ag):  # ACC-3, LAYOUT-2, ACC-5
    x = ag.zeros(2, 3, requires_grad=True); x.grad = ag.zeros(3, 2).t(); g = x.grad
    with warnings.catch_warnings():  # torch's performance note on a manual layout, once per process
        warnings.simplefilter("ignore")
        (x * 2).sum().backward()
    x.grad.zero_(); (x * 3).sum().backward(); r = [x.grad is g, x.grad.stride(), x.grad]
    u = ag.zeros(2, requires_grad=True); v = ag.zeros(2, requires_grad=True); w = ag.ones(2)
    (u + v).backward(w); u.backward(w); return r, u.grad, v.grad, w, u.grad is w
@case
def grad_assignment(ag):  # ACC-12
    x = ag.zeros(2, requires_grad=True)
    return [raises(lambda: setattr(x, "grad", t)) for t in (ag.zeros(3), ag.zeros(2, dtype=ag.float64), x)]

@case
def func1_2_3(ag):
    F = ag.autograd.functional; x = ag.tensor([1.0, 2.0, 3.0], dtype=ag.float64); v = ag.tensor([1.0, 0.5, 0.25], dtype=ag.float64)
    f = lambda a: a ** 2 * a.sum(); two = lambda a, b: (a.sum() * b, a * b.sum()); y = ag.tensor([[0.5, -1.0]], dtype=ag.float64)
    s = ag.tensor([[2.0]], dtype=ag.float64)
    return (F.vjp(f, x, v), F.jvp(f, x, v), F.vjp(two, (x, y), (ag.ones(1, 2, dtype=ag.float64), v)), F.jvp(two, (x, y), (v, y)),
            F.vjp(lambda a: (a ** 2).sum().reshape(1, 1), x), F.jvp(lambda a: a * x, s), raises(lambda: F.vjp(f, x)), raises(lambda: F.jvp(f, x)),
            raises(lambda: F.vjp(f, x, v[:2])), raises(lambda: F.jvp(two, (x, y), (v,))))
@case
def func4_5_8(ag):
    F = ag.autograd.functional; x = ag.tensor([1.0, 2.0, 3.0], dtype=ag.float64); y = ag.tensor([[0.5, 1.5]], dtype=ag.float64)
    g = lambda a, b: (a ** 2).sum() * (b ** 3).sum(); w = (ag.ones(3, dtype=ag.float64), -y)
    return (F.hessian(g, (x, y)), F.hessian(g, (x, y), vectorize=True), F.hessian(lambda a: (a ** 3).sum().reshape(1, 1), x),
            F.hvp(g, (x, y), w), F.vhp(g, (x, y), w), F.hvp(lambda a: (a ** 3).sum(), y[0, :1]),
            F.jacobian(lambda a, b: (a.sum() * b, a * b.sum()), (x, y), vectorize=True),
            raises(lambda: F.hessian(lambda a: a ** 3, x)), raises(lambda: F.hvp(lambda a: (a ** 3, a), x, x)))
@case
def func6(ag):
    F = ag.autograd.functional; x = ag.tensor([1.0, 2.0, 3.0], dtype=ag.float64); y = ag.tensor([[0.5, -1.0]], dtype=ag.float64)
    calls = [lambda s: F.jacobian(lambda a, b: a * 2, (x, y), strict=s), lambda s: F.vjp(lambda a: (a * 2).detach(), x, x, strict=s),
             lambda s: F.jvp(lambda a, b: a * 2, (x, y), (x, y), strict=s), lambda s: F.hessian(lambda a: a.sum(), x, strict=s),
             lambda s: F.hvp(lambda a, b: (a ** 3).sum(), (x, y), (x, y), strict=s), lambda s: F.vhp(lambda a: (3 * a).sum(), x, x, strict=s)]
    return [(call(False), raises(lambda: call(True))) for call in calls] + [raises(lambda: F.jacobian(lambda a: a, x, strict=True, vectorize=True))]
@case
def func7(ag):
    F = ag.autograd.functional; x = ag.tensor([1.0, 2.0, 3.0], dtype=ag.float64, requires_grad=True); ones = ag.ones(3, dtype=ag.float64)
    cube = lambda a: (a ** 3).sum(); r = []
    for cg in (False, True):
        results = [F.vjp(lambda a: a ** 2, x, ones, create_graph=cg)[1], F.jvp(lambda a: a ** 3, x, ones, create_graph=cg)[1],
                   F.jacobian(lambda a: a ** 2, x, create_graph=cg), F.hessian(cube, x, create_graph=cg),
                   F.hvp(cube, x, ones, create_graph=cg)[1], F.vhp(cube, x, ones, create_graph=cg)[1]]
        r.append([t.requires_grad for t in results])
    r.append([ag.autograd.grad(t.sum(), x)[0] for t in results])
    return r, x.grad
@case
def jac10(ag):
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True); w = ag.tensor([0.5, 0.25], requires_grad=True)
    J = ag.autograd.grad(x ** 2, x, ag.eye(3), is_grads_batched=True)
    both = ag.autograd.grad(((x.sum() * w), x ** 2), (x, w), (ag.ones(2, 2), ag.ones(2, 3)), is_grads_batched=True)
    return J, both, x.grad

@case
def forward_ad_errors(ag):
    fw, x, v = ag.autograd.forward_ad, ag.tensor([1.0, 2.0]), ag.tensor([0.5, -1.0])
    r = [raises(lambda: fw.make_dual(x, v))]
    with fw.dual_level():
        d = fw.make_dual(x, v)
        r += [raises(lambda: fw.make_dual(x, ag.ones(2, 1))), raises(lambda: fw.make_dual(ag.tensor([1, 2]), v)),
              raises(lambda: fw.make_dual(x, ag.tensor([1, 2]))), raises(lambda: fw.make_dual(d, v)),
              raises(lambda: fw.dual_level().__enter__())]
    return r
@case
def forward_ad_ops(ag):
    fw = ag.autograd.forward_ad
    with fw.dual_level():
        a = fw.make_dual(ag.tensor([[1.0, 2.0], [4.0, 0.5]]), ag.tensor([[0.5, -1.0], [2.0, 1.0]]))
        b = fw.make_dual(ag.tensor([3.0, -2.0]), ag.tensor([1.0, 0.25]))
        results = [3 - a, 2 / a, a * 2 + 1, a ** 0, a @ b, b @ a, a.unsqueeze(0), a[:1].squeeze(0), b.expand(3, 2), a.t(),
                   a.select(1, 0), a.narrow(0, 1, 1), a.flatten(), a.view(4), a.to(ag.float64), a.sgn(), a.T,
                   ag.nn.MSELoss()(a, a * b), ag.nn.MSELoss(reduction="sum")(b * a, a), ag.nn.MSELoss(reduction="none")(a, a * b),
                   a.sum(dim=(0, 1)), a.mean(dim=-1, keepdim=True), a[[1, 1]], (a > 1), a.contiguous()]
        return [fw.unpack_dual(t).tangent for t in results]
@case
def forward_ad_modes(ag):
    fw = ag.autograd.forward_ad
    with fw.dual_level():
        x = fw.make_dual(ag.tensor([1.0, 2.0]), ag.tensor([0.5, -1.0]))
        with ag.no_grad():
            kept = ag.exp(x)
        with ag.inference_mode():
            off, read = x * 2, fw.unpack_dual(x).tangent
        y = x * 3
        y.detach_()
        r = [fw.unpack_dual(t).tangent for t in (kept, off, x.detach(), y, x.detach() * x)] + [read]
    return r + [fw.unpack_dual(x).tangent]

@case
def cplx_promotion(ag):
    f32, f64, i64 = ag.ones(2), ag.ones(2, dtype=ag.float64), ag.ones(2, dtype=ag.int64)
    c64, c128 = ag.tensor(1j), ag.tensor([1j, 2], dtype=ag.complex128)
    return [t.dtype for t in (f32 * 1j, f64 * 1j, i64 * 1j, f32 * c64, f64 * c64, f32 * ag.tensor(1j, dtype=ag.complex128),
                              c128 * ag.tensor(1.0), ag.ones(2, dtype=ag.complex64) * ag.tensor(2.0, dtype=ag.float64),
                              ag.ones(2, dtype=ag.complex64) + f64, i64 * c128, ag.tensor([1 + 2j]), ag.tensor(0.5) * 1j)]
@case
def cplx_grads(ag):
    z = ag.tensor([1 + 2j, 3 - 1j], requires_grad=True); x = ag.tensor([1.0, -2.0], requires_grad=True)
    (z * z).backward(ag.tensor([1 + 1j, 2j])); a = z.grad.tolist(); z.grad = None
    (z.real * 2 + z.imag * 3 + (z.conj() * (1 + 1j)).real).sum().backward()
    u = ag.complex(x, x * 2) * ag.tensor(2 - 1j); u.backward(ag.tensor([1j, 1 + 1j]))
    return a, z.grad.tolist(), z.grad.dtype, x.grad.tolist(), x.grad.dtype, tuple(z.real.shape), tuple(ag.tensor(1j).real.shape)
@case
def cplx_errors(ag):
    z = ag.tensor([1 + 2j], requires_grad=True); x = ag.tensor([1.0], requires_grad=True)
    return (raises(lambda: (z * z).sum().backward()), raises(lambda: (z * z).backward(ag.ones(1))),
            raises(lambda: (x * 2).backward(ag.ones(1, dtype=ag.complex64))), raises(lambda: (z * z).backward()),
            ag.zeros(2, dtype=ag.complex128).requires_grad_().requires_grad)


@pytest.mark.parametrize("name", sorted(cases))
def test_same_outcome_as_torch(name):
    assert outcome(reference, cases[name]) == outcome(torch, cases[name])


def _train(ag, make_optimizer, activation, steps=5):
    w = ag.tensor([[0.5, -0.3], [0.1, 0.2]], requires_grad=True)
    b = ag.tensor([0.1, -0.1], requires_grad=True)
    opt = make_optimizer(ag, [w, b])
    x = ag.tensor([[1.0, 2.0], [3.0, -1.0]])
    for _ in range(steps):
        opt.zero_grad()
        loss = ag.nn.MSELoss()(activation(ag)(x @ w + b), ag.ones(2, 2))
        loss.backward()
        opt.step()
    return np.array(w.tolist()), np.array(b.tolist())


@pytest.mark.parametrize("make_optimizer", [
    lambda ag, p: ag.optim.SGD(p, lr=0.1),
    lambda ag, p: ag.optim.SGD(p, lr=0.1, momentum=0.9),
    lambda ag, p: ag.optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01, nesterov=False),
    lambda ag, p: ag.optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=0.01, nesterov=True),
    lambda ag, p: ag.optim.Adam(p, lr=0.01),
    lambda ag, p: ag.optim.Adam(p, lr=0.05, betas=(0.8, 0.9), eps=1e-6, weight_decay=0.1),
], ids=["sgd", "sgd-momentum", "sgd-dampening-decay", "sgd-nesterov", "adam", "adam-options"])
@pytest.mark.parametrize("activation", [lambda ag: ag.tanh, lambda ag: ag.sigmoid], ids=["tanh", "sigmoid"])
def test_optimizer_steps_match_torch(make_optimizer, activation):
    for ours, theirs in zip(_train(reference, make_optimizer, activation), _train(torch, make_optimizer, activation)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("in_features, out_features", [(1, 3), (10, 4), (256, 64)])
def test_linear_initialisation_range_matches_torch(in_features, out_features):
    """Weight and bias are drawn from U(-1/sqrt(in), 1/sqrt(in)), as torch's kaiming_uniform(a=sqrt(5)) gives."""
    bound = 1 / math.sqrt(in_features)
    ours, theirs = reference.nn.Linear(in_features, out_features), torch.nn.Linear(in_features, out_features)
    for name in ("weight", "bias"):
        mine, reference_values = getattr(ours, name), getattr(theirs, name).detach().numpy()
        assert mine.shape == tuple(reference_values.shape) and mine.dtype == reference.float32
        assert np.all(np.abs(mine.detach().numpy()) <= bound)
        assert np.all(np.abs(reference_values) <= bound)
    big = reference.nn.Linear(in_features, 4096)
    values = big.weight.detach().numpy()
    assert values.min() < -0.9 * bound and values.max() > 0.9 * bound  # the whole range is used


def test_linear_with_float64():
    layer = reference.nn.Linear(3, 2, dtype=reference.float64)
    assert layer.weight.dtype == reference.float64 and layer.bias.dtype == reference.float64
