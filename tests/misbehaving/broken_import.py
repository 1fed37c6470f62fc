"""An adapter module that fails to import."""

import no_such_module_for_misbehaving_sc  # noqa: F401

Impl = None
