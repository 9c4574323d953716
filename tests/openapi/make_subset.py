"""Derive ``gitbook-openapi-subset.json`` from the full reference description.

The subset holds the operations the sandbox serves (``OPERATIONS`` below, by operationId),
their path-level parameters and every component they reference, directly or not, plus the
security schemes. Prose is stripped: ``description`` texts become empty strings (the key
stays where OpenAPI requires it), ``summary`` texts of operations and ``example(s)`` and
``x-page-*`` / ``x-gitbook-*`` annotations are dropped. Keys are sorted so that a regenerated
file diffs cleanly. Usage (from the repository root)::

    python tests/openapi/make_subset.py [/path/to/gitbook-openapi.json]

reads the vendored full description (``tests/openapi/gitbook-openapi.json``) by default and
writes ``tests/openapi/gitbook-openapi-subset.json`` (what the contract tests validate against)
and the same text to ``docsapi/sandbox/openapi-subset.json`` (what the sandbox checks requests
against); ``--check`` only reports whether both are up to date (exit status 1 when not).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SUBSET = HERE / "gitbook-openapi-subset.json"
PACKAGED = HERE.parents[1] / "docsapi" / "sandbox" / "openapi-subset.json"
DEFAULT_SOURCE = HERE / "gitbook-openapi.json"
_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_DROPPED = ("example", "examples", "x-page-title", "x-page-description", "x-page-icon")

#: The operations in scope, by tag.
OPERATIONS = {
    "api": ["getApiInformation"],
    "users": [
        "getAuthenticatedUser",
        "createUserNotificationsToken",
        "getUserById",
        "updateUserById",
    ],
    "organizations": [
        "listOrganizationsForAuthenticatedUser",
        "createOrganization",
        "getOrganizationById",
        "updateOrganizationById",
    ],
    "organization members": [
        "listMembersInOrganizationById",
        "getMemberInOrganizationById",
        "updateMemberInOrganizationById",
        "removeMemberFromOrganizationById",
        "listSpacesForOrganizationMember",
        "listTeamsForOrganizationMember",
    ],
    "organization teams": [
        "listTeamsInOrganizationById",
        "createOrganizationTeam",
        "getTeamInOrganizationById",
        "updateTeamInOrganizationById",
        "removeTeamFromOrganizationById",
        "listTeamMembersInOrganizationById",
        "updateMembersInOrganizationTeam",
        "addMemberToOrganizationTeamById",
        "deleteMemberFromOrganizationTeamById",
    ],
    "organization invites": [
        "listOrganizationInviteLinks",
        "createOrganizationInvite",
        "getOrganizationInviteLink",
        "updateOrganizationInviteById",
        "deleteOrganizationInviteById",
    ],
    "organization audit events": [
        "listOrganizationAuditEvents",
        "listOrganizationAuditEventActions",
    ],
    "spaces": [
        "listSpacesInOrganizationById",
        "createSpace",
        "getSpaceById",
        "updateSpaceById",
        "deleteSpaceById",
        "duplicateSpace",
        "restoreSpace",
        "moveSpace",
        "getEmbedByUrlInSpace",
        "searchSpaceContent",
    ],
    "space permissions": [
        "listUserPermissionsInSpace",
        "listTeamPermissionsInSpace",
        "listPermissionsAggregateInSpace",
        "inviteToSpace",
        "updateUserPermissionInSpace",
        "updateTeamPermissionInSpace",
        "removeUserFromSpace",
        "removeTeamFromSpace",
    ],
    "collections": [
        "listCollectionsInOrganizationById",
        "createCollection",
        "getCollectionById",
        "updateCollectionById",
        "deleteCollectionById",
        "listSpacesInCollectionById",
        "moveCollection",
    ],
    "collection permissions": [
        "inviteToCollection",
        "listUserPermissionsInCollection",
        "updateUserPermissionInCollection",
        "removeUserFromCollection",
        "listTeamPermissionsInCollection",
        "updateTeamPermissionInCollection",
        "removeTeamFromCollection",
        "listPermissionsAggregateInCollection",
    ],
    "sites": [
        "listSites",
        "getSiteById",
        "updateSiteById",
        "publishSite",
        "unpublishSite",
        "listSiteSpaces",
        "addSpaceToSite",
        "addSectionToSite",
        "listSiteShareLinks",
        "createSiteShareLink",
        "updateSiteShareLinkById",
        "deleteSiteShareLinkById",
        "getSitePublishingAuthById",
    ],
    "site insights": [
        "trackEventsInSiteById",
        "aggregateSiteEvents",
        "listSiteVisitorSegments",
    ],
    "site permissions": [
        "inviteToSite",
        "listUserPermissionsInSite",
        "updateUserPermissionInSite",
        "removeUserFromSite",
        "listTeamPermissionsInSite",
        "updateTeamPermissionInSite",
        "removeTeamFromSite",
        "listPermissionsAggregateInSite",
    ],
    "content": [
        "getCurrentRevision",
        "listPages",
        "getPageById",
        "getPageByPath",
        "listSpacePageMetaLinks",
        "listFiles",
        "getFileById",
        "getReusableContentById",
        "getComputedDocument",
        "getComputedRevision",
        "applyTemplateToSpace",
    ],
    "git": ["importGitRepository", "exportToGitRepository", "getSpaceGitInfo"],
    "change requests": ["listChangeRequestsForSpace", "createChangeRequest"],
}


def operation_ids() -> list[str]:
    """Every operationId of :data:`OPERATIONS`, in order."""
    return [op for ops in OPERATIONS.values() for op in ops]


def _strip(node: Any, *, in_operation: bool = False) -> Any:
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key in _DROPPED or key.startswith("x-gitbook-") or key == "x-parent":
                continue
            if key == "summary" and in_operation and isinstance(value, str):
                continue
            if key == "description" and isinstance(value, str):
                out[key] = ""
                continue
            out[key] = _strip(value)
        return out
    if isinstance(node, list):
        return [_strip(item) for item in node]
    return node


def _refs(node: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            found.add(ref)
        for value in node.values():
            found |= _refs(value)
    elif isinstance(node, list):
        for item in node:
            found |= _refs(item)
    return found


def _resolve(document: dict[str, Any], ref: str) -> Any:
    node: Any = document
    for part in ref.removeprefix("#/").split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def make_subset(full: dict[str, Any], wanted: list[str]) -> dict[str, Any]:
    """The part of ``full`` that ``wanted`` operations need, prose stripped.

    Raises
    ------
    KeyError
        When an operationId of ``wanted`` is not in ``full``.
    """
    paths: dict[str, Any] = {}
    found = set()
    for path, item in full["paths"].items():
        for method in _METHODS:
            operation = item.get(method)
            if operation is not None and operation.get("operationId") in wanted:
                kept = paths.setdefault(path, {})
                kept[method] = _strip(operation, in_operation=True)
                if "parameters" in item:
                    kept["parameters"] = _strip(item["parameters"])
                found.add(operation["operationId"])
    missing = sorted(set(wanted) - found)
    if missing:
        raise KeyError(f"operations missing from the description: {missing}")
    components: dict[str, dict[str, Any]] = {
        "securitySchemes": _strip(full["components"]["securitySchemes"])
    }
    pending = _refs(paths)
    seen: set[str] = set()
    while pending:
        ref = pending.pop()
        if ref in seen:
            continue
        seen.add(ref)
        _, _, section, name = ref.split("/", 3)
        node = _strip(_resolve(full, ref))
        components.setdefault(section, {})[name] = node
        pending |= _refs(node) - seen
    return {
        "openapi": full["openapi"],
        "info": {"title": full["info"]["title"], "version": full["info"]["version"]},
        "servers": full["servers"],
        "security": full["security"],
        "paths": paths,
        "components": components,
    }


def render(subset: dict[str, Any]) -> str:
    """The subset as the file stores it."""
    return json.dumps(subset, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", nargs="?", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--check", action="store_true", help="only compare, do not write")
    args = parser.parse_args(argv)
    text = render(make_subset(json.loads(args.source.read_text()), operation_ids()))
    targets = (SUBSET, PACKAGED)
    if args.check:
        stale = [t.name for t in targets if not t.exists() or t.read_text() != text]
        print(f"out of date: {', '.join(stale)}" if stale else "up to date")
        return 1 if stale else 0
    for target in targets:
        target.write_text(text)
        print(f"wrote {target} ({len(operation_ids())} operations)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
