"""The reference as a host of MCP's Skills Extension, beyond the host profile's scenarios: which
URIs it takes for a skill's ``SKILL.md``, and what of a served ``SKILL.md`` its model is given."""

from __future__ import annotations

import pytest

from skill_conformance.reference.served_skills import _body, _root


@pytest.mark.parametrize(
    ("uri", "root"),
    [
        ("skill://git-workflow/SKILL.md", "git-workflow"),
        ("skill://acme/billing/refunds/SKILL.md", "acme/billing/refunds"),
        ("repo://x/SKILL.md", "x"),
        ("skill://SKILL.md", None),
        ("skill:///SKILL.md", None),
        ("skill://a//b/SKILL.md", None),
        ("skill://git-workflow/README.md", None),
        ("skill://git-workflow", None),
        ("git-workflow/SKILL.md", None),
    ],
)
def test_a_skill_is_named_by_its_skill_md_uri_alone(uri: str, root: str | None) -> None:
    assert _root(uri) == root


def test_the_model_is_given_the_instructions_after_the_frontmatter() -> None:
    assert _body("---\nname: a\ndescription: d\n---\nDo this.\n") == "Do this.\n"
    assert _body("No frontmatter.\n") == "No frontmatter.\n"
    assert _body("---\nname: a\nunclosed\n") == "---\nname: a\nunclosed\n"
