"""The suite's own test doubles that run as real processes."""
