"""``--impl`` loading: registered names, module paths, and one-line errors."""

from __future__ import annotations

import pytest

from skill_conformance.runtime.loading import AdapterLoadError, load_implementation


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nonsense", "not a registered adapter"),
        ("no_such_package_sc.adapter:Impl", "cannot import no_such_package_sc.adapter"),
        ("json:NoSuchThing", "json has no 'NoSuchThing'"),
        ("json:dumps", "dumps() failed: TypeError"),
        ("json:JSONDecoder", "lacks name, version, unsupported, cannot_drive, open, close of"),
    ],
)
def test_bad_specs_give_one_line(spec: str, message: str) -> None:
    with pytest.raises(AdapterLoadError) as error:
        load_implementation(spec)
    assert message in str(error.value)
    assert "\n" not in str(error.value)
