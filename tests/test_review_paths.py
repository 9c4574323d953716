"""Every kind of path the audit knows, revoked and lowered: carried out, or refused saying why.

For each kind (direct, team, collection, collection-team, site, site-team, site default,
space default, collection default, the organization's default through inherited levels,
creator of the space, creator of its collection, organization admin) a small organization
in a sandbox gives one member an access by that path; a review decides to revoke it, or to
lower it to read, under each rule set. The plan is applied over HTTP and a fresh audit must
find the access gone or at read, and everything else as the review predicted. The platform
has no call that takes a creator's access away: that decision is refused in words before
any plan exists, and nothing is sent.
"""

from __future__ import annotations

import pytest
from sandbox_orgs import SmallOrg

import docsapi
from docsapi import AccessReview
from docsapi.errors import ValidationError


def direct(org: SmallOrg, user: str) -> str:
    space = org.space(None, None)
    org.grant(space, user, "edit")
    return space


def team(org: SmallOrg, user: str) -> str:
    space = org.space(None, None)
    org.grant(space, org.team(user), "edit")
    return space


def collection(org: SmallOrg, user: str) -> str:
    above = org.collection(None, None)
    org.grant(above, user, "edit")
    return org.space(above, "inherit")


def collection_team(org: SmallOrg, user: str) -> str:
    above = org.collection(None, None)
    org.grant(above, org.team(user), "edit")
    return org.space(above, "inherit")


def site(org: SmallOrg, user: str) -> str:
    space = org.space(None, "inherit")
    org.grant(org.site(space, level=None), user, "edit")
    return space


def site_team(org: SmallOrg, user: str) -> str:
    space = org.space(None, "inherit")
    org.grant(org.site(space, level=None), org.team(user), "edit")
    return space


def site_default(org: SmallOrg, user: str) -> str:
    space = org.space(None, "inherit")
    org.site(space, level="edit")
    return space


def space_default(org: SmallOrg, user: str) -> str:
    return org.space(None, "edit")


def collection_default(org: SmallOrg, user: str) -> str:
    return org.space(org.collection(None, "edit"), "inherit")


def organization_default(org: SmallOrg, user: str) -> str:
    return org.space(None, "inherit")


def creator(org: SmallOrg, user: str) -> str:
    return org.space(None, None, by=user)


def collection_creator(org: SmallOrg, user: str) -> str:
    return org.space(org.collection(None, None, by=user), "inherit")


def org_admin(org: SmallOrg, user: str) -> str:
    return org.space(None, "inherit")  # lowered, the member's new role reaches it


#: kind of path -> (how to build it, the member's organization role, the source it shows)
KINDS = {
    "direct": (direct, "read", "direct"),
    "team": (team, "read", "team:"),
    "collection": (collection, "read", "collection:"),
    "collection-team": (collection_team, "read", "collection-team:"),
    "site": (site, "read", "site:"),
    "site-team": (site_team, "read", "site-team:"),
    "site default": (site_default, "read", "site-default:"),
    "space default": (space_default, "read", "default:edit"),
    "collection default": (collection_default, "read", "default:edit"),
    "organization default": (organization_default, "edit", "default:inherit"),
    "creator": (creator, "create", "creator"),
    "collection creator": (collection_creator, "create", "creator:"),
    "organization role": (org_admin, "admin", "org-admin"),
}


def roles(effective) -> dict[tuple[str, str], str]:
    keys = zip(effective["space_id"].astype(str), effective["user_id"].astype(str), strict=True)
    return dict(zip(keys, effective["role"].astype(str), strict=True))


@pytest.fixture(params=["precedence", "highest"])
def rule_set(request, sandbox_server, highest_sandbox_server):
    sandbox = sandbox_server if request.param == "precedence" else highest_sandbox_server
    sandbox.reset()
    return sandbox, request.param


@pytest.mark.parametrize("decision", ["revoke", "lower"])
@pytest.mark.parametrize("kind", list(KINDS))
def test_each_kind_of_path_is_cut_or_capped_or_refused_with_the_reason(rule_set, kind, decision):
    sandbox, model = rule_set
    make, member_role, source = KINDS[kind]
    org = SmallOrg(sandbox)
    user = org.member(org.users[0], member_role)
    bystander = org.member(org.users[1], "read")
    space = make(org, user)
    client = sandbox.client()
    audit = docsapi.audit_permissions(client, org.org_id, progress=False, model=model)
    review = AccessReview(audit, reviewer="Paths", client=client)
    row = review.select(space=space, user=user)
    assert len(row) == 1 and source in str(row["sources"].iloc[0]), row.T
    if decision == "revoke":
        review.decide(row, "revoke")
    else:
        review.decide(row, "lower", lower_to="read")

    if kind.endswith("creator"):
        with pytest.raises(ValidationError) as refused:
            review.plan()
        name = str(row["display_name"].iloc[0])
        message = str(refused.value)
        what = "the space" if kind == "creator" else "collection Collection"
        assert f"{name} reaches" in message and f"as the creator of {what}" in message
        assert "the platform has no call that" in message
        assert f"give {what}" in message and "a default level other than No access" in message
        assert (", or move" in message) == (kind == "collection creator")
        with pytest.raises(ValidationError):
            review.apply(progress=False)
        again = docsapi.audit_permissions(client, org.org_id, progress=False, model=model)
        assert roles(again.effective) == roles(audit.effective)  # nothing was sent
        return

    predicted = roles(review.after())
    assert set(review.apply(progress=False)["status"]) == {"done"}
    fresh = roles(
        docsapi.audit_permissions(client, org.org_id, progress=False, model=model).effective
    )
    assert fresh == predicted, review.plan()[["operation", "path", "body"]]
    expected = None if decision == "revoke" else "read"
    assert fresh.get((space, user)) == expected
    assert bystander  # a second member, so defaults have someone else to change
