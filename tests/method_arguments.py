"""Valid arguments of the resource groups' methods, for tests that vary one argument at a time.

``VALID`` gives a value by parameter name; ``EXTRA`` the optional arguments a method needs at
least one of (``"group.method"`` keys), so that a call made of them is valid; ``ADS_VALID``
the same for the ad-network client.
"""

from __future__ import annotations

#: Values of an otherwise valid call, by parameter name.
VALID = {
    "space_id": "sp1",
    "user_id": "u1",
    "team_id": "tm1",
    "org_id": "org1",
    "file_id": "f1",
    "page_id": "pg1",
    "reusable_content_id": "rc1",
    "template_id": "tpl1",
    "url": "https://github.com/acme/docs",
    "ref": "refs/heads/main",
    "commit_message": "Sync",
    "query": "install",
    "role": "read",
    "source": {"type": "builtin:openapi"},
    "seed": "s1",
    "path": "guides/install",
    "collection_id": "col1",
    "site_id": "site1",
    "share_link_id": "sl1",
    "invite_id": "inv1",
    "title": "Handbook",
    "name": "Auditors",
}
#: Optional arguments a method needs at least one of, so the baseline call is valid.
EXTRA = {
    "users.update": {"display_name": "Ada"},
    "spaces.update": {"title": "Handbook"},
    "spaces.move": {"parent": None},
    "spaces.list": {"org_id": "org1"},
    "permissions.invite": {"users": ["u1"]},
    "collections.invite": {"users": ["u1"]},
    "collections.update": {"title": "Handbook"},
    "collections.move": {"parent": None},
    "sites.update": {"visibility": "share-link"},
    "sites.update_share_link": {"active": False},
}

#: Values of an otherwise valid call of the ad-network client, by parameter name.
ADS_VALID = {
    "resource": "affiliate",
    "id": 1001,
    "data": {"name": "Ada", "email": "ada@x.example"},
    "changes": {"company": "Acme"},
}
