"""client.users over real HTTP against the sandbox."""

from __future__ import annotations

import pytest

from docsapi import DocsClient
from docsapi.errors import NotFoundError, PermissionDeniedError
from docsapi.models import APITemporaryToken, User


def test_me_is_the_token_owner(client, sandbox):
    me = client.users.me()
    assert isinstance(me, User)
    assert me.id == sandbox.demo["owner_id"]
    assert me.display_name and me.email
    assert me.raw["object"] == "user"


def test_get_a_user_by_id(client, sandbox):
    other = sandbox.demo["other_user_id"]
    user = client.users.get(other)
    assert user.id == other
    assert user.url_location.endswith(f"/users/{other}")


def test_get_unknown_user_is_404(client):
    with pytest.raises(NotFoundError) as info:
        client.users.get("u_does_not_exist")
    assert info.value.status == 404


def test_update_display_name_and_photo(client, sandbox):
    owner = sandbox.demo["owner_id"]
    updated = client.users.update(owner, display_name="Ada L.")
    assert updated.display_name == "Ada L."
    photo = "https://images.example/ada.png"
    updated = client.users.update(owner, photo_url=photo)
    assert updated.photo_url == photo
    assert updated.display_name == "Ada L."  # left as it was
    assert client.users.get(owner).display_name == "Ada L."


def test_update_sends_only_the_fields_given(client, sandbox):
    owner = sandbox.demo["owner_id"]
    before = client.users.me()
    client.users.update(owner, photo_url="https://images.example/new.png")
    assert client.users.me().display_name == before.display_name


def test_update_unknown_user_is_404(client):
    with pytest.raises(NotFoundError):
        client.users.update("u_does_not_exist", display_name="Nobody")


def test_a_member_cannot_update_someone_else(sandbox):
    client = DocsClient(token=sandbox.tokens["other-user"], base_url=sandbox.url)
    with pytest.raises(PermissionDeniedError):
        client.users.update(sandbox.demo["owner_id"], display_name="Hijacked")


def test_read_only_token_cannot_read_the_profile_endpoint(sandbox):
    client = DocsClient(token=sandbox.tokens["oauth:space:read"], base_url=sandbox.url)
    with pytest.raises(PermissionDeniedError):
        client.users.me()


def test_notifications_token_needs_a_user_internal_token(client, sandbox):
    with pytest.raises(PermissionDeniedError, match="user-internal"):
        client.users.notifications_token()
    internal = DocsClient(token=sandbox.tokens["user-internal"], base_url=sandbox.url)
    token = internal.users.notifications_token()
    assert isinstance(token, APITemporaryToken)
    assert token.token.count(".") == 2
    assert token.token not in repr(token)
