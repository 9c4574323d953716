"""The admin safety check (docsapi.resources.admins) against the sandbox: a change that would
leave an organization without an enabled admin is refused before sending; one that takes the
admin role from the token's own user comes with a warning."""

from __future__ import annotations

import pytest

from docsapi.errors import AuthenticationError, PermissionDeniedError, ValidationError
from docsapi.resources.admins import check_admin_changes


@pytest.fixture
def admins(sandbox) -> tuple[str, str]:
    """(the token's own user, the other admin) of the demo organization."""
    owner = sandbox.demo["owner_id"]
    other = next(u for u in sandbox.demo["org_admin_ids"] if u != owner)
    return owner, other


def _writes(sandbox) -> list[tuple[str, str, int | None]]:
    return [entry for entry in sandbox.request_log if entry[0] != "GET"]


def test_demoting_yourself_while_another_admin_remains_warns(client, sandbox, admins):
    owner, other = admins
    check = check_admin_changes(client, sandbox.org_id, {owner: "read"})
    assert check.demoted == (owner,) and check.admins_left == (other,)
    assert check.demotes_caller
    name = client.users.me().display_name
    assert check.warning is not None and name in check.warning and "401 or 403" in check.warning
    assert _writes(sandbox) == []
    # the change the warning is about: 200, then the token cannot do admin work any more
    client.orgs.update_member(sandbox.org_id, owner, role="read")
    with pytest.raises((AuthenticationError, PermissionDeniedError)):
        client.orgs.update_member(sandbox.org_id, other, role="edit")


def test_demoting_another_admin_is_no_warning(client, sandbox, admins):
    owner, other = admins
    check = check_admin_changes(client, sandbox.org_id, {other: None})
    assert check.demoted == (other,) and check.admins_left == (owner,)
    assert not check.demotes_caller and check.warning is None


def test_changes_that_take_no_admin_role_read_only_the_members(client, sandbox, admins):
    owner, _ = admins
    plain = sandbox.demo["other_user_id"]
    before = len(sandbox.request_log)
    check = check_admin_changes(client, sandbox.org_id, {plain: "admin", owner: "admin"})
    assert check.demoted == () and check.warning is None and plain in check.admins_left
    paths = [path for _, path, _ in sandbox.request_log[before:]]
    assert all("/members" in path for path in paths) and not any(p == "/v1/user" for p in paths)


@pytest.mark.parametrize("case", ["both demoted", "both removed", "the other one disabled"])
def test_leaving_no_enabled_admin_is_refused_before_sending(client, sandbox, admins, case):
    owner, other = admins
    if case == "both demoted":
        arguments = {"roles": {owner: "edit", other: None}}
    elif case == "both removed":
        arguments = {"removed": [owner, other]}
    else:  # a disabled admin manages nothing: demoting the only enabled one leaves none
        sandbox.set_member(other, disabled=True)
        arguments = {"roles": {owner: "edit"}}
    with pytest.raises(ValidationError, match="without an enabled admin") as refused:
        check_admin_changes(client, sandbox.org_id, **arguments)
    assert "make another member an admin first" in str(refused.value)
    assert _writes(sandbox) == []


def test_a_promotion_in_the_same_changes_keeps_an_admin(client, sandbox, admins):
    owner, other = admins
    plain = sandbox.demo["other_user_id"]
    check = check_admin_changes(
        client, sandbox.org_id, {owner: None, other: "read", plain: "admin"}
    )
    assert set(check.demoted) == {owner, other} and check.admins_left == (plain,)


def test_the_refusal_names_the_argument_asked_for(client, sandbox, admins):
    with pytest.raises(ValidationError) as refused:
        check_admin_changes(client, sandbox.org_id, removed=admins, argument="plan")
    assert refused.value.argument == "plan"


def test_bad_arguments_are_refused_before_anything_is_sent(client, sandbox):
    for arguments in (
        {"org_id": "a/b"},
        {"org_id": sandbox.org_id, "roles": {"u1": "owner"}},
        {"org_id": sandbox.org_id, "removed": ["a/b"]},
    ):
        with pytest.raises(ValidationError):
            check_admin_changes(client, **arguments)
    assert sandbox.request_count == 0
