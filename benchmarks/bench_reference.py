"""Time the reference engine against torch, side by side in one process.

Workloads (the same code runs on both namespaces):
  chain  a 1,000-op chain of scalar-sized ops (mul, add, tanh, sub on a 0-dim tensor), then backward
  mlp    one training step of an MLP: batch 64, 32 -> 256 -> 256 -> 10, ReLU, MSELoss, SGD(momentum)
  matmul a chain of 8 matmuls of 512x512 float32 matrices (with tanh between), then backward

Prints per workload the median time of each engine and the reference/torch ratio. Both engines use
one BLAS/OpenMP thread (set below, before NumPy and torch are imported), so that the comparison is
per-core. Run: python benchmarks/bench_reference.py [--repeat N]
"""
import argparse
import os
import statistics
import time

for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[variable] = "1"

import numpy as np  # noqa: E402
import torch  # noqa: E402

from autograd_conformance import reference  # noqa: E402

torch.set_num_threads(1)


def chain(ag, state):
    x = state["x"]
    y = x
    for _ in range(250):
        y = y * 1.001
        y = y + 0.01
        y = ag.tanh(y)
        y = y - 0.001
    y.backward()


def chain_setup(ag):
    return {"x": ag.tensor(0.5, requires_grad=True)}


def mlp(ag, state):
    net, opt, x, target = state["net"], state["opt"], state["x"], state["target"]
    opt.zero_grad()
    loss = ag.nn.MSELoss()(net(x), target)
    loss.backward()
    opt.step()


def mlp_setup(ag):
    rng = np.random.default_rng(0)
    nn = ag.nn
    net = nn.Sequential(nn.Linear(32, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
    return {"net": net, "opt": ag.optim.SGD(net.parameters(), lr=0.01, momentum=0.9),
            "x": ag.tensor(rng.standard_normal((64, 32)).astype(np.float32)),
            "target": ag.tensor(rng.standard_normal((64, 10)).astype(np.float32))}


def matmul(ag, state):
    h = state["x"]
    for w in state["weights"]:
        h = ag.tanh(h @ w)
    h.sum().backward()


def matmul_setup(ag):
    rng = np.random.default_rng(0)
    scale = 1 / np.sqrt(512)
    return {"x": ag.tensor(rng.standard_normal((512, 512)).astype(np.float32)),
            "weights": [ag.tensor((rng.standard_normal((512, 512)) * scale).astype(np.float32), requires_grad=True)
                        for _ in range(8)]}


WORKLOADS = {"chain": (chain_setup, chain), "mlp": (mlp_setup, mlp), "matmul": (matmul_setup, matmul)}


def timed_runs(setup, run, ag, repeat):
    """Wall times of `repeat` runs after a warm-up; the caller interleaves the two engines."""
    state = setup(ag)
    run(ag, state)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run(ag, state)
        times.append(time.perf_counter() - start)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=30, help="timed runs per engine and workload")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (each runs both engines)")
    args = parser.parse_args()
    print(f"torch {torch.__version__}, numpy {np.__version__}, reference {reference.version}; "
          f"1 thread; median of {args.repeat * args.rounds} runs")
    print(f"{'workload':8s} {'torch ms':>10s} {'reference ms':>13s} {'ratio':>6s}")
    for name, (setup, run) in WORKLOADS.items():
        times = {torch: [], reference: []}
        for _ in range(args.rounds):  # interleave, so that load changes hit both engines alike
            for ag in times:
                times[ag] += timed_runs(setup, run, ag, args.repeat)
        t, r = statistics.median(times[torch]), statistics.median(times[reference])
        print(f"{name:8s} {t * 1e3:10.3f} {r * 1e3:13.3f} {r / t:6.2f}")


if __name__ == "__main__":
    main()
