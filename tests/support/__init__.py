"""Code the project's tests and tools share, which only a checkout has: the subprocess runner of
the suites (`run`) and its warm fork server (`warm`), the probe plugin (`probe`), the reproducers'
judge (`reproducers`) and the project's modules read from source (`modules`)."""
