"""An adapter whose import fails, as a half-installed engine's would."""

raise ImportError("libfancygrad.so: cannot open shared object file")
