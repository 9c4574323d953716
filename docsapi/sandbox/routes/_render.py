"""API-shaped JSON for every resource, built from the store's records."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from msgspec import Raw

from docsapi.sandbox.core import _permission_model as model
from docsapi.sandbox.core._auth import Credential
from docsapi.sandbox.core._content import Content, File, Page, ReusableContent
from docsapi.sandbox.core._document import to_json_document, to_markdown
from docsapi.sandbox.core._permission_model import Kind
from docsapi.sandbox.core._roles import at_least
from docsapi.sandbox.core._state import Record
from docsapi.sandbox.core._store import Store
from docsapi.sandbox.core._web import encoded

APP_URL = "https://app.sandbox.invalid"
_LAYOUT = {
    "width": "default",
    "cover": False,
    "coverSize": "hero",
    "coverMask": "none",
    "title": True,
    "description": True,
    "tableOfContents": True,
    "outline": True,
    "pagination": True,
    "metadata": True,
    "tags": True,
    "actions": True,
    "anchors": True,
}


def user_role(
    store: Store, user_id: str, org_id: str, target_id: str | None = None, kind: Kind = "space"
) -> str | None:
    """The role a user has in an organization, or on one of its spaces or collections.

    Inside the organization it is the member's role (None for guests, disabled members and
    non-members); on content it is the access model's effective role.
    """
    if target_id is None:
        member = store.member(org_id, user_id)
        return None if member is None or member["disabled"] else member["role"]
    return model.role_of(store.state, user_id, kind, target_id)


def viewer_role(
    store: Store,
    credential: Credential,
    org_id: str,
    target_id: str | None = None,
    kind: Kind = "space",
) -> str | None:
    """The role the caller acts with: integrations act as admin."""
    if credential.user_id is None:
        return "admin"
    return user_role(store, credential.user_id, org_id, target_id, kind)


def user(record: Record, api_base: str) -> dict[str, Any]:
    """A User."""
    body = {
        "object": "user",
        "id": record["id"],
        "displayName": record["displayName"],
        "email": record["email"],
        "urls": {"location": f"{api_base}/users/{record['id']}"},
    }
    if record.get("photoURL"):
        body["photoURL"] = record["photoURL"]
    return body


def user_json(store: Store, user_id: str, api_base: str) -> Raw:
    """A User, encoded once until the state next changes (lists repeat the same users: every
    aggregate of an organization lists its admins)."""
    return store.memo(
        ("user json", user_id, api_base),
        lambda: encoded(user(store.state.users[user_id], api_base)),
    )


def member_json(store: Store, org_id: str, user_id: str, api_base: str) -> Raw:
    """An OrganizationMember, encoded once until the state next changes."""
    return store.memo(
        ("member json", org_id, user_id, api_base),
        lambda: encoded(member(store, org_id, user_id, api_base)),
    )


def space(store: Store, credential: Credential, record: Record, api_base: str) -> dict[str, Any]:
    """A Space, with the caller's permissions on it."""
    space_id, org_id = record["id"], record["organization"]
    role = viewer_role(store, credential, org_id, space_id)
    requests = store.state.change_requests.get(space_id, [])
    urls = {
        "app": f"{APP_URL}/o/{org_id}/s/{space_id}/",
        "location": f"{api_base}/spaces/{space_id}",
    }
    if record["visibility"] in ("public", "unlisted", "share-link"):
        urls["published"] = (
            f"https://{store.state.orgs[org_id]['hostname']}.sandbox.invalid/{space_id}/"
        )
    if record.get("icon"):
        urls["icon"] = record["icon"]
    body: dict[str, Any] = {
        "object": "space",
        "id": space_id,
        "title": record["title"],
        "emoji": record["emoji"] or "",
        "organization": org_id,
        "visibility": record["visibility"],
        "revision": record["revision"],
        "createdAt": record["createdAt"],
        "updatedAt": record["updatedAt"],
        "comments": record["comments"],
        "changeRequests": len(requests),
        "changeRequestsOpen": sum(1 for r in requests if r["status"] == "open"),
        "changeRequestsDraft": sum(1 for r in requests if r["status"] == "draft"),
        "mergeRules": record["mergeRules"],
        "urls": urls,
        "defaultLevel": record["defaultLevel"],
        "editMode": record["editMode"],
        "language": record["language"],
        "permissions": {
            "view": role is not None,
            "access": role is not None,
            "admin": role == "admin",
            "viewInviteLinks": role == "admin",
            "edit": at_least(role, "edit"),
            "triggerGitSync": at_least(role, "edit"),
            "comment": at_least(role, "comment"),
            "merge": at_least(role, "review"),
            "review": at_least(role, "review"),
            "installIntegration": role == "admin",
        },
    }
    if record.get("parent"):
        body["parent"] = record["parent"]
    if record.get("deletedAt"):
        body["deletedAt"] = record["deletedAt"]
    if record.get("type"):
        body["type"] = record["type"]
    git = store.state.git.get(space_id)
    if git is not None:
        body["gitSync"] = git_sync(git)
    return body


def organization(
    store: Store, credential: Credential, record: Record, api_base: str
) -> dict[str, Any]:
    """An Organization, with the caller's permissions in it."""
    org_id = record["id"]
    role = viewer_role(store, credential, org_id)
    is_member = credential.user_id is None or store.member(org_id, credential.user_id) is not None
    admin = role == "admin"
    return {
        "object": "organization",
        "id": org_id,
        "title": record["title"],
        "type": record["type"],
        "plan": record["plan"],
        "createdAt": record["createdAt"],
        "inviteLinks": record["inviteLinks"],
        "emailDomains": list(record["emailDomains"]),
        "mergeRules": record["mergeRules"],
        "defaultRole": record["defaultRole"],
        "hostname": record["hostname"],
        "urls": {"app": f"{APP_URL}/o/{org_id}/", "location": f"{api_base}/orgs/{org_id}"},
        "trial": {"status": "notapplicable", "count": 0},
        "permissions": {
            "view": is_member,
            "access": is_member,
            "admin": admin,
            "ownTeam": is_member,
            "createContent": at_least(role, "create"),
            "createOpenAPISpec": at_least(role, "create"),
            "viewBilling": admin,
            "listMembers": is_member,
            "listTeams": is_member,
            "listIntegrations": admin,
            "listInstallations": admin,
            "installIntegration": admin,
        },
    }


def member(store: Store, org_id: str, user_id: str, api_base: str) -> dict[str, Any]:
    """An OrganizationMember; its counts come from the grant and membership indexes."""
    record = store.state.members[org_id][user_id]
    body = {
        "object": "member",
        "id": user_id,
        "role": record["role"],
        "user": user(store.state.users[user_id], api_base),
        "disabled": record["disabled"],
        "joinedAt": record["joinedAt"],
        "sso": False,
        "spaces": store.state.space_users.count(org_id, user_id),
        "teams": store.team_count(org_id, user_id),
        "sites": store.state.site_users.count(org_id, user_id),
    }
    if record.get("lastSeenAt"):
        body["lastSeenAt"] = record["lastSeenAt"]
    return body


def team(store: Store, credential: Credential, record: Record) -> dict[str, Any]:
    """An OrganizationTeam."""
    org_id = record["organization"]
    admin = viewer_role(store, credential, org_id) == "admin"
    return {
        "object": "team",
        "id": record["id"],
        "title": record["title"],
        "members": len(record["members"]),
        "spaces": store.state.space_teams.count(org_id, record["id"]),
        "createdAt": record["createdAt"],
        "permissions": {"admin": admin, "view": True},
    }


def change_request(store: Store, space_id: str, record: Record, api_base: str) -> dict[str, Any]:
    """A ChangeRequest."""
    space_record = store.state.spaces[space_id]
    author = store.state.users[record["createdBy"]]
    return {
        "object": "change-request",
        "id": record["id"],
        "number": record["number"],
        "status": record["status"],
        "subject": record["subject"],
        "createdBy": user(author, api_base),
        "createdAt": record["createdAt"],
        "updatedAt": record["updatedAt"],
        "space": space_id,
        "revision": space_record["revision"],
        "revisionInitial": space_record["revision"],
        "comments": record["comments"],
        "outdated": False,
        "urls": {
            "app": f"{APP_URL}/o/{space_record['organization']}/s/{space_id}"
            f"/~/changes/{record['number']}/",
            "location": f"{api_base}/spaces/{space_id}/change-requests/{record['id']}",
        },
    }


def git_sync(record: Record) -> dict[str, Any]:
    """A GitSyncState (internal bookkeeping removed)."""
    return {key: value for key, value in record.items() if not key.startswith("_")}


def page(
    content: Content, page_: Page, space_id: str, org_id: str, *, markdown: bool = True
) -> dict[str, Any]:
    """A RevisionPage (document, group or link) with its child pages.

    A document carries its ``markdown`` (in listings and with ``format=markdown``) or its JSON
    ``document`` (a single page by default); child pages always carry markdown.
    """
    base = {"id": page_.id, "title": page_.title}
    if page_.kind == "link":
        return {
            **base,
            "kind": "link",
            "type": "link",
            "href": page_.href,
            "target": {"kind": "url", "url": page_.href},
        }
    children = [page(content, child, space_id, org_id) for child in page_.children]
    if page_.kind == "group":
        return {
            **base,
            "kind": "group",
            "type": "group",
            "slug": page_.slug,
            "path": page_.path,
            "pages": children,
        }
    body = {
        **base,
        "kind": "sheet",
        "type": "document",
        "slug": page_.slug,
        "path": page_.path,
        "description": page_.description,
        "documentId": page_.document_id,
        "urls": {"app": f"{APP_URL}/o/{org_id}/s/{space_id}/{page_.path}"},
        "pages": children,
        "layout": dict(_LAYOUT),
        "tags": [],
        "hidden": False,
    }
    if page_.emoji:
        body["emoji"] = page_.emoji
    if markdown:
        body["markdown"] = to_markdown(page_.blocks, {f.id: f.name for f in content.files})
    else:
        body["document"] = to_json_document(page_.blocks)
    return body


def file(record: File, space_id: str, api_base: str) -> dict[str, Any]:
    """A RevisionFile; images carry their dimensions."""
    root = urlsplit(api_base)._replace(path="").geturl()  # the controls sit at the host's root
    body: dict[str, Any] = {
        "id": record.id,
        "name": record.name,
        "contentType": record.content_type,
        "size": record.size,
        "downloadURL": f"{root}/_sandbox/files/{space_id}/{record.id}/{record.name}",
    }
    if record.width is not None:
        body["dimensions"] = {"width": record.width, "height": record.height}
    return body


def reusable(record: ReusableContent) -> dict[str, Any]:
    """A RevisionReusableContent."""
    return {"id": record.id, "title": record.title, "document": record.document_id}


def revision(content: Content, space_id: str, org_id: str, api_base: str) -> dict[str, Any]:
    """A Revision (type "edits") with every page, file and reusable content."""
    body = {
        "object": "revision",
        "id": content.revision,
        "type": "edits",
        "parents": [],
        "pages": [page(content, p, space_id, org_id) for p in content.pages],
        "files": [file(f, space_id, api_base) for f in content.files],
        "reusableContents": [reusable(r) for r in content.reusables],
        "tags": [],
        "urls": {"app": f"{APP_URL}/o/{org_id}/s/{space_id}/"},
        "createdAt": content.created_at,
    }
    if content.git_commit:
        body["git"] = dict(content.git_commit)
    return body
