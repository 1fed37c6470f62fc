"""skill-conformance: a spec-driven conformance suite for the AgentPool skill system."""

__version__ = "0.1.0"
