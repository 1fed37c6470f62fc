"""Load the conformance suite (options, hooks, step definitions) for runs in this checkout."""

pytest_plugins = ["skill_conformance.runtime.suite"]
