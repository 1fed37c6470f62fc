"""The conformance suite as one pytest plugin: its options, its hooks, its step definitions.

``skill-conformance run`` loads it with ``-p``; this repository's ``conftest.py`` lists it.
"""

pytest_plugins = [
    "skill_conformance.runtime.options",
    "skill_conformance.runtime.plugin",
    "skill_conformance.runtime.step_lookup",
    "skill_conformance.steps.shared",
    "skill_conformance.steps.skill_manager_cap",
    "skill_conformance.steps.extension_registry",
    "skill_conformance.steps.agent_factory",
    "skill_conformance.steps.skill_tool_registration",
    "skill_conformance.steps.skill_tools",
    "skill_conformance.steps.skill_loading",
]
