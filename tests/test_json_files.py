"""The bounded JSON reader: the same values as ``json.loads`` within the limits, and one
line naming the file and the limit beyond them, whatever hides in strings and escapes."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docsapi.core.json_files import MAX_DEPTH, JSONFileError, parse_json, read_json_file

#: Texts full of what could fool a bracket count: quotes, escapes, brackets.
_TRICKY = st.text(alphabet='[]{}"\\/ né\n\t\x00', max_size=12)
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | _TRICKY,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TRICKY, inner, max_size=3),
    max_leaves=30,
)


def _depth(value) -> int:
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    return 0


@settings(max_examples=300, deadline=None)
@given(_VALUES, st.integers(min_value=0, max_value=6), st.booleans())
def test_within_the_limit_it_reads_what_json_reads_and_beyond_it_refuses(value, wrap, ascii_):
    for _ in range(wrap):
        value = [value]
    text = json.dumps(value, ensure_ascii=ascii_)
    limit = 4
    if _depth(value) <= limit:
        assert parse_json(text, name="x.json", max_depth=limit) == value
    else:
        with pytest.raises(JSONFileError, match=rf"x\.json: nests deeper than {limit} levels"):
            parse_json(text, name="x.json", max_depth=limit)


@pytest.mark.parametrize(
    "text",
    [
        "[" * 200_000,
        "[" * 200_000 + "]" * 200_000,
        '{"a":' * 100_000 + "1" + "}" * 100_000,
        '"\\"' + "[" * 100_000,  # an escaped quote does not end the string early
        '["\\\\"' + ",[" * 100_000,  # an escaped backslash does end it
    ],
)
def test_deep_or_hostile_texts_are_refused_naming_the_limit(text):
    with pytest.raises(JSONFileError) as refused:
        parse_json(text, name="plan.json")
    message = str(refused.value)
    assert message.startswith("plan.json: ") and "\n" not in message
    assert f"{MAX_DEPTH} levels" in message or "is not valid JSON" in message


def test_a_file_over_its_size_limit_is_refused_without_being_read_whole(tmp_path):
    path = tmp_path / "results.json"
    path.write_text("[" + "1," * 1000 + "1]")
    with pytest.raises(JSONFileError, match=r"results\.json: is larger than 1 KiB"):
        read_json_file(path, max_bytes=1024)
    assert read_json_file(path, max_bytes=4096)[:3] == [1, 1, 1]
    path.write_bytes(b"\xff[]")
    with pytest.raises(JSONFileError, match="is not UTF-8 text"):
        read_json_file(path)
