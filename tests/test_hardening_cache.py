"""The response cache's settings: every bad value a ValidationError naming ``path`` or
``expire_after`` (as tests/test_cache.py does), never a raw ValueError or OverflowError."""

from __future__ import annotations

import pytest

from docsapi import DocsClient, ValidationError


@pytest.mark.parametrize(
    ("value", "argument"),
    [
        ("a\x00b", "path"),
        ("t\nX", "path"),
        ("cache\tdir/x.sqlite", "path"),
        ("   ", "path"),
        (1e308, "expire_after"),
        (10**30, "expire_after"),
        (float("nan"), "expire_after"),
        (-1, "expire_after"),
    ],
    ids=repr,
)
def test_bad_cache_settings_are_validation_errors(value, argument, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValidationError) as caught:
        DocsClient(token="gb_api_ok", base_url="http://127.0.0.1:9/v1", cache=value)
    assert caught.value.argument == argument
    assert list(tmp_path.iterdir()) == []  # nothing was created


def test_a_cache_file_that_is_not_a_database_is_refused_clearly(tmp_path):
    path = tmp_path / "garbage.sqlite"
    path.write_bytes(b"\x00\xff" * 2000)
    with pytest.raises(ValidationError, match="cannot open the cache file"):
        _ = DocsClient(token="gb_api_ok", base_url="http://127.0.0.1:9/v1", cache=path).cache
