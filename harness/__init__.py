"""The harness that runs the conformance suites against any autograd engine.

It loads engines through adapters (`engines`), knows the behaviour catalog (`catalog`), generates
random computation programs (`programs`) and runs them on engines and in NumPy (`interpret`), and
compares gradients against engine-independent oracles (`oracles`). It never implements autograd.
"""
