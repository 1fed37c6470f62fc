"""Step definitions: they describe the world and ask the port, never one implementation."""
