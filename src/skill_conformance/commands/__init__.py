"""The ``skill-conformance`` command line, one module per command (``main`` dispatches)."""
