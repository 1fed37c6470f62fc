"""Adapters: each plugs one implementation of the skill system into the port."""
