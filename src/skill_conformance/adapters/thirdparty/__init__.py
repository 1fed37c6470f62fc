"""Adapters of third-party Agent Skills implementations, each run in a venv of its own.

Each adapter imports its implementation at module level, so it loads only where that
implementation is installed (``make matrix`` builds one venv per implementation from
``thirdparty/<name>.txt``). What they share needs no third-party package: :mod:`.listing` reads
the skill catalogue each framework shows its model, :mod:`.common` holds the rest.
"""
