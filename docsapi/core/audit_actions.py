"""The platform's audit-log vocabulary: every action ID the sandbox logs and the audit reads.

One list, shared by the sandbox (it logs every change with these IDs and serves them at
``GET /orgs/{organizationId}/audit-event-actions``) and by the audit's provenance (it maps
these IDs to the access settings they change). Standard library only: both may import it.

Where the IDs come from
-----------------------
GitBook's page "Audit log actions" (:data:`SOURCE_URL`, read on :data:`READ_ON`) lists every
action its audit log records as ``<resource>.<sub-resource>.<past-tense verb>``, each with the
label the app shows (``site.redirect.created``, "Created site redirect"). The part of the page
that could be read gave the IDs whose ``source`` is ``"documented"``, word for word. The rest
of the page (the actions on spaces, collections, sites' permissions, members) could not be
read here: those IDs follow the documented pattern and are marked ``"derived"``; a real
organization's own list (``client.api`` ``listOrganizationAuditEventActions``, which the audit
reads) is the authority, and ``audit_permissions(log_actions=...)`` maps any ID this list
lacks. ``docs/provenance.md`` lists them all.

Examples
--------
>>> ACTIONS["organization.team.member-added"].label
'Added organization team member'
>>> ACTIONS["organization.team.member-added"].source
'documented'
>>> ACTIONS["space.permission.added"].changes
'grant'
>>> LEGACY_ACTIONS["team.member.add"]
'organization.team.member-added'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import NamedTuple

__all__ = [
    "ACTIONS",
    "ACTION_LIST",
    "LEGACY_ACTIONS",
    "READ_ON",
    "RECORDED_URL",
    "REMOVAL_VERBS",
    "SETTINGS",
    "SOURCE_URL",
    "AuditAction",
    "action_id",
    "action_settings",
    "removes",
]

#: The platform's page listing every action ID of its audit log.
SOURCE_URL = "https://gitbook.com/docs/account-and-billing/audit-logs/actions"
#: The platform's page on what its audit log records and does not record.
RECORDED_URL = "https://gitbook.com/docs/account-and-billing/audit-logs#what-audit-logs-record"
#: When :data:`SOURCE_URL` was read.
READ_ON = "2026-11-28"

#: The access settings an action can change (see ``docsapi.audit.provenance``): an explicit
#: permission, a member's organization role, a default level, a site's publication or
#: audience, a share link, an invite link, a team membership, where content sits.
SETTINGS: tuple[str, ...] = (
    "grant",
    "org-role",
    "default-level",
    "published",
    "visibility",
    "share-link",
    "invite-link",
    "team-member",
    "parent",
)

#: Past-tense verbs (an action ID's last part) that take a setting away.
REMOVAL_VERBS = frozenset(
    {"removed", "deleted", "revoked", "unpublished", "deactivated", "member-removed"}
)


class AuditAction(NamedTuple):
    """One action of the platform's audit log.

    Attributes
    ----------
    id : str
        The action ID (``organization.team.member-added``).
    label : str
        The label the platform's app shows ("Added organization team member").
    source : str
        ``"documented"``: read word for word on :data:`SOURCE_URL`; ``"derived"``: built from
        the documented pattern where the page could not be read.
    changes : str or None
        The access setting (one of :data:`SETTINGS`) an event of this action changes, or None.
    """

    id: str
    label: str
    source: str
    changes: str | None = None


def _documented(action: str, label: str, changes: str | None = None) -> AuditAction:
    return AuditAction(action, label, "documented", changes)


def _derived(action: str, label: str, changes: str | None = None) -> AuditAction:
    return AuditAction(action, label, "derived", changes)


def _crud(resource: str, noun: str, changes: str | None = None) -> list[AuditAction]:
    return [
        _derived(f"{resource}.created", f"Created {noun}", changes),
        _derived(f"{resource}.updated", f"Updated {noun}", changes),
        _derived(f"{resource}.deleted", f"Deleted {noun}", changes),
    ]


def _permissions(resource: str) -> list[AuditAction]:
    return [
        _derived(f"{resource}.permission.added", f"Added {resource} permission", "grant"),
        _derived(f"{resource}.permission.updated", f"Updated {resource} permission", "grant"),
        _derived(f"{resource}.permission.removed", f"Removed {resource} permission", "grant"),
    ]


#: Every action, in the page's order where it was read (organization, then content, sites).
ACTION_LIST: tuple[AuditAction, ...] = (
    _documented(
        "organization.agent-instructions.updated", "Updated organization agent instructions"
    ),
    _documented("organization.custom-font.created", "Created custom font"),
    _documented("organization.custom-font.deleted", "Deleted custom font"),
    _documented("organization.custom-font.updated", "Updated custom font"),
    _documented(
        "organization.link-invite.created", "Created organization invite link", "invite-link"
    ),
    _documented(
        "organization.link-invite.deleted", "Deleted organization invite link", "invite-link"
    ),
    _documented(
        "organization.link-invite.updated", "Updated organization invite link", "invite-link"
    ),
    _documented("organization.settings.updated", "Updated organization settings"),
    _documented("organization.team.created", "Created organization team"),
    _documented("organization.team.deleted", "Deleted organization team"),
    _documented("organization.team.member-added", "Added organization team member", "team-member"),
    _documented(
        "organization.team.member-removed", "Removed organization team member", "team-member"
    ),
    _documented(
        "organization.team.member-updated", "Updated organization team member", "team-member"
    ),
    _derived("organization.team.updated", "Updated organization team"),
    _derived("organization.created", "Created organization"),
    _derived("organization.member.updated", "Updated organization member", "org-role"),
    _derived("organization.member.disabled", "Disabled organization member", "org-role"),
    _derived("organization.member.enabled", "Enabled organization member", "org-role"),
    _derived("organization.member.removed", "Removed organization member", "org-role"),
    *_crud("space", "space"),
    _derived("space.restored", "Restored space"),
    _derived("space.moved", "Moved space", "parent"),
    _derived("space.default-level.updated", "Updated space default access", "default-level"),
    *_permissions("space"),
    _derived("space.change-request.created", "Created change request"),
    _derived("space.content.updated", "Updated space content"),
    _derived("space.git-sync.imported", "Imported space content from Git"),
    _derived("space.git-sync.exported", "Exported space content to Git"),
    *_crud("collection", "collection"),
    _derived("collection.moved", "Moved collection", "parent"),
    _derived(
        "collection.default-level.updated", "Updated collection default access", "default-level"
    ),
    *_permissions("collection"),
    _derived("site.updated", "Updated site"),
    _derived("site.published", "Published site", "published"),
    _derived("site.unpublished", "Unpublished site", "published"),
    _derived("site.visibility.updated", "Updated site visibility", "visibility"),
    _derived("site.default-level.updated", "Updated site default access", "default-level"),
    *_permissions("site"),
    _derived("site.share-link.created", "Created site share link", "share-link"),
    _derived("site.share-link.updated", "Updated site share link", "share-link"),
    _derived("site.share-link.deleted", "Deleted site share link", "share-link"),
    _derived("site.space.added", "Added site space"),
    _derived("site.section.created", "Created site section"),
    _documented("site.redirect.created", "Created site redirect"),
)

#: The actions by ID.
ACTIONS: dict[str, AuditAction] = {action.id: action for action in ACTION_LIST}

#: The sandbox's own action names before it spoke the platform's vocabulary (snapshots made
#: then hold them), each with the action ID that replaced it.
LEGACY_ACTIONS: dict[str, str] = {
    "organization.create": "organization.created",
    "organization.update": "organization.settings.updated",
    "member.role.update": "organization.member.updated",
    "member.disable": "organization.member.disabled",
    "member.enable": "organization.member.enabled",
    "member.remove": "organization.member.removed",
    "team.create": "organization.team.created",
    "team.update": "organization.team.updated",
    "team.delete": "organization.team.deleted",
    "team.member.add": "organization.team.member-added",
    "team.member.remove": "organization.team.member-removed",
    "invite.create": "organization.link-invite.created",
    "invite.update": "organization.link-invite.updated",
    "invite.delete": "organization.link-invite.deleted",
    "change-request.create": "space.change-request.created",
    "space.content.template": "space.content.updated",
    "space.git.import": "space.git-sync.imported",
    "space.git.export": "space.git-sync.exported",
    "site.publish": "site.published",
    "site.unpublish": "site.unpublished",
    "site.update": "site.updated",
    "site.visibility.update": "site.visibility.updated",
    "site.share-link.create": "site.share-link.created",
    "site.share-link.activate": "site.share-link.updated",
    "site.share-link.deactivate": "site.share-link.updated",
    "site.share-link.delete": "site.share-link.deleted",
    **{
        f"{kind}.{old}": f"{kind}.{new}"
        for kind in ("space", "collection", "site")
        for old, new in (
            ("create", "created"),
            ("update", "updated"),
            ("delete", "deleted"),
            ("restore", "restored"),
            ("move", "moved"),
            ("default-level.update", "default-level.updated"),
            ("permission.grant", "permission.added"),
            ("permission.change", "permission.updated"),
            ("permission.revoke", "permission.removed"),
        )
        if f"{kind}.{new}" in ACTIONS
    },
}


def action_id(name: str) -> str:
    """The platform's action ID for ``name`` (an older sandbox name is translated).

    Examples
    --------
    >>> action_id("space.permission.grant"), action_id("site.redirect.created")
    ('space.permission.added', 'site.redirect.created')
    """
    return LEGACY_ACTIONS.get(name, name)


def removes(action: str) -> bool:
    """Whether an event of ``action`` takes its setting away (its verb is a removal).

    Examples
    --------
    >>> removes("organization.team.member-removed"), removes("space.permission.updated")
    (True, False)
    """
    return action.rsplit(".", 1)[-1] in REMOVAL_VERBS


#: The longest action ID ``log_actions`` accepts.
_MAX_ACTION_ID = 200
#: An action ID: dotted lowercase words (``organization.team.member-added``).
_ACTION_ID = re.compile(r"[a-z0-9][a-z0-9_-]*(?:\.[a-z0-9][a-z0-9_-]*)+")


def action_settings(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """Action ID → the access setting its events change: the list's actions that change one,
    the sandbox's older names (:data:`LEGACY_ACTIONS`), then ``extra`` (which wins).

    Parameters
    ----------
    extra : mapping of str to str, optional
        More action IDs (a real organization's, from its ``audit-event-actions``), each with
        the setting it changes, one of :data:`SETTINGS`.

    Returns
    -------
    dict of str to str

    Raises
    ------
    ValueError
        When an action ID is not a non-empty string, or a setting is not one of
        :data:`SETTINGS`.

    Examples
    --------
    >>> action_settings({"space.member.invited": "grant"})["space.member.invited"]
    'grant'
    >>> action_settings()["team.member.add"]
    'team-member'
    """
    mapping = {action.id: action.changes for action in ACTION_LIST if action.changes}
    mapping.update({old: mapping[new] for old, new in LEGACY_ACTIONS.items() if new in mapping})
    if extra is None:
        return mapping
    if not isinstance(extra, Mapping):
        raise ValueError(
            "log_actions must be a mapping of action ID to setting, such as "
            f"{{'space.member.invited': 'grant'}}; got {type(extra).__name__}"
        )
    for action, setting in extra.items():
        if (
            not isinstance(action, str)
            or len(action) > _MAX_ACTION_ID
            or not _ACTION_ID.fullmatch(action)
        ):
            shown = repr(action)[:60] if isinstance(action, str) else type(action).__name__
            raise ValueError(
                "log_actions: each key must be an action ID such as 'space.permission.added' "
                f"(dotted lowercase words, at most {_MAX_ACTION_ID} characters); got {shown}"
            )
        if setting not in SETTINGS:
            shown = repr(setting)[:60]
            raise ValueError(
                f"log_actions[{action!r}] must be one of {', '.join(SETTINGS)}; got {shown}"
            )
    mapping.update(extra)
    return mapping
