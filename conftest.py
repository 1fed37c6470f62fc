"""Load the suite's pytest plugin and its step definitions for every run in this checkout."""

pytest_plugins = [
    "skill_conformance.runtime.plugin",
    "steps.shared",
    "steps.skill_manager_cap",
    "steps.extension_registry",
    "steps.agent_factory",
    "steps.skill_tool_registration",
    "steps.skill_tools",
    "steps.skill_loading",
]
