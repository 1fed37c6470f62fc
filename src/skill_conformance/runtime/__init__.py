"""The scenario runtime: the pytest plugin, each scenario's world and context, the blocking
facade over an implementation, and the lookup of the implementation ``--impl`` names."""
