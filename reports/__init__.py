"""Pages made from the JSON results of conformance runs (installed as
`autograd_conformance.reports`). The run's output (reports/*.html, *.json) is not committed."""
