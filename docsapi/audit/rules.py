"""The permission audit's rules: one registry of name → severity, description and check.

Each check is a function of a :class:`RuleContext` (the coded resolution plus the public
tables it needs) and the :class:`AuditThresholds`; it returns one row per finding with a
sentence saying what is wrong and what to do. Checks work on whole arrays (no loop over
rows), and none produces a finding from data that could not be read: each states below
how it treats a partial audit.

Adding a rule is one decorated function: ``@rule(name, severity, description)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from docsapi.audit.coverage import Gaps
from docsapi.audit.data import ROLE_DTYPE, ROLES, SEVERITY_DTYPE, STRING, AuditData
from docsapi.audit.provenance import PROVENANCE_COLUMNS, Provenance, grant_key, path_doors
from docsapi.audit.resolve import (
    COLLECTION,
    COLLECTION_TEAM,
    DIRECT,
    ORG_ADMIN,
    SITE,
    SITE_TEAM,
    TEAM,
    Effective,
    Resolution,
    argsort_ints,
    distinct,
    plain_text,
    unique_inverse,
)
from docsapi.audit.tables import target_titles
from docsapi.errors import ValidationError

__all__ = [
    "FINDING_COLUMNS",
    "ROLES",
    "ROLE_DTYPE",
    "RULES",
    "SEVERITY_DTYPE",
    "WRITE_ROLES",
    "AuditThresholds",
    "Rule",
    "RuleContext",
    "evaluate_rules",
    "role_rank",
    "rule",
]

#: Roles that can change content: ``edit`` and every role above it.
WRITE_ROLES = frozenset(ROLES[ROLES.index("edit") :])
_EDIT = ROLES.index("edit")
_ADMIN = ROLES.index("admin")
_OWN_KINDS = (DIRECT, TEAM, COLLECTION, COLLECTION_TEAM, SITE, SITE_TEAM)

FINDING_COLUMNS = [
    "severity",
    "rule",
    "target_type",
    "target_id",
    "target_title",
    "space_id",
    "space_title",
    "principal_type",
    "principal_id",
    "principal_name",
    "detail",
    *PROVENANCE_COLUMNS,
]
_ROLE_NAMES = np.array(ROLES, dtype=object)


def role_rank(role: str | None) -> int:
    """Return the position of ``role`` in :data:`ROLES` (``None`` counts as guest).

    Examples
    --------
    >>> role_rank("admin") > role_rank("review") > role_rank("edit")
    True
    """
    if role is None or (isinstance(role, float) and role != role):
        return 0
    try:
        return ROLES.index(role)
    except ValueError:
        raise ValidationError("role", f"unknown role {role!r}; expected one of {ROLES}") from None


def _check_number(name: str, value: object, *, low: float, high: float | None, integer: bool):
    kind = int if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kind):
        what = "an integer" if integer else "a number"
        raise ValidationError(name, f"must be {what}, got {value!r}")
    if value < low or (high is not None and value > high):
        bounds = f"from {low:g} to {high:g}" if high is not None else f"of at least {low:g}"
        raise ValidationError(name, f"must be {bounds}, got {value!r}")


@dataclass(frozen=True)
class AuditThresholds:
    """The tunable limits of the audit's rules.

    Parameters
    ----------
    admin_share : float
        ``admin_sprawl`` fires for a user who is not an organization admin and is admin on
        more than this share of the spaces (0 to 1, default 0.5).
    max_admins : int
        ``too_many_admins`` fires for a space with more admins of its own than this
        (at least 1, default 5).
    inactive_days : int
        ``inactive_writer`` fires for a member not seen for this many days who can still
        write (at least 1, default 90).
    share_link_max_age_days : int
        ``stale_share_link`` fires for an active share link older than this (at least 1,
        default 90).
    guest_collection_spaces : int
        ``guest_collection_write`` fires when one collection permission gives a guest write
        access to this many spaces or more (at least 1, default 5).

    Raises
    ------
    ValidationError
        For a value of the wrong type or out of range.

    Examples
    --------
    >>> AuditThresholds.from_kwargs(max_admins=3).max_admins
    3
    """

    admin_share: float = 0.5
    max_admins: int = 5
    inactive_days: int = 90
    share_link_max_age_days: int = 90
    guest_collection_spaces: int = 5

    def __post_init__(self) -> None:
        _check_number("admin_share", self.admin_share, low=0, high=1, integer=False)
        for name in (
            "max_admins",
            "inactive_days",
            "share_link_max_age_days",
            "guest_collection_spaces",
        ):
            _check_number(name, getattr(self, name), low=1, high=None, integer=True)

    @classmethod
    def from_kwargs(cls, **thresholds: object) -> AuditThresholds:
        """Build thresholds from keyword arguments, checking names and ranges.

        Raises
        ------
        ValidationError
            For an unknown name or a value out of range.
        """
        known = {f.name for f in fields(cls)}
        for name in thresholds:
            if name not in known:
                raise ValidationError(
                    name, f"unknown audit threshold; accepted: {', '.join(sorted(known))}"
                )
        return cls(**thresholds)  # type: ignore[arg-type]


@dataclass
class RuleContext:
    """What the rules look at.

    Attributes
    ----------
    data : AuditData
        The raw tables.
    resolution : Resolution
        The coded organization and its paths.
    effective : Effective
        Coded effective access over every path under the audit's rule set, with the sorted
        paths of each pair and what each path does (``status``).
    exposure, mismatches : DataFrame
        The public ``exposure`` and ``aggregate_mismatches`` tables.
    gaps : Gaps
        What could not be read.
    listing_complete : bool
        Whether every space of the organization was listed (shares of spaces are only
        meaningful then).
    provenance : Provenance, optional
        The audit log joined to the settings: findings say who made what they are about,
        and when (missing columns without it).
    """

    data: AuditData
    resolution: Resolution
    effective: Effective
    exposure: pd.DataFrame
    mismatches: pd.DataFrame
    gaps: Gaps
    listing_complete: bool
    provenance: Provenance | None = None

    @cached_property
    def user_ids(self) -> np.ndarray:
        return self.resolution.users["user_id"].to_numpy(dtype=object)

    @cached_property
    def user_names(self) -> np.ndarray:
        users = self.resolution.users
        return users["display_name"].fillna(users["user_id"]).to_numpy(dtype=object)

    @cached_property
    def space_ids(self) -> np.ndarray:
        return self.resolution.spaces["id"].to_numpy(dtype=object)

    @cached_property
    def space_titles(self) -> np.ndarray:
        spaces = self.resolution.spaces
        return spaces["title"].fillna(spaces["id"]).to_numpy(dtype=object)

    @property
    def pairs(self) -> pd.DataFrame:
        """The effective access: one row per (space, user) with the highest role."""
        return self.effective.frame

    @cached_property
    def own_admins(self) -> np.ndarray:
        """Distinct admins of each space through its own grants (not the organization admin
        role or default levels) that count under the rule set: for an organization admin,
        those that would decide without that role."""
        paths = self.resolution.paths
        effective = self.effective
        order, first, counts = effective.order, effective.first, effective.counts
        kind = paths["kind"].to_numpy()
        # The first path of a group that is not the organization admin's (it sorts first).
        after_admin = first + ((kind[order[first]] == ORG_ADMIN) & (counts > 1))
        deciding_key = effective.keys[order][after_admin]
        group_key = np.empty(len(order), dtype=np.int64)
        group_key[order] = np.repeat(deciding_key, counts)
        own = np.isin(kind, _OWN_KINDS) & (paths["role"].to_numpy() == _ADMIN)
        own &= (effective.keys == group_key) & effective.reachable
        users = max(len(self.resolution.users), 1)
        pairs = distinct(
            paths["space"].to_numpy()[own].astype(np.int64) * users + paths["user"].to_numpy()[own]
        )
        return np.bincount(pairs // users, minlength=len(self.resolution.spaces))


Finding = pd.DataFrame
Check = Callable[[RuleContext, AuditThresholds], Finding]


@dataclass(frozen=True)
class Rule:
    """One audit rule: its name, severity, what it looks for, and its check."""

    name: str
    severity: str
    description: str
    check: Check
    ordered: bool = False


#: Every rule by name, in report order (most severe first).
RULES: dict[str, Rule] = {}


def rule(
    name: str, severity: str, description: str, *, ordered: bool = False
) -> Callable[[Check], Check]:
    """Register ``check`` as the rule ``name``.

    ``ordered`` says the check already returns its rows sorted by space title, target
    title and principal name (large outputs built in code order), so they are not sorted
    again.
    """

    def register(check: Check) -> Check:
        RULES[name] = Rule(name, severity, description, check, ordered)
        return check

    return register


def _rows(count: int, **columns: object) -> Finding:
    """A findings body of ``count`` rows; scalars are repeated, missing columns are NA."""
    body = {}
    for column in FINDING_COLUMNS[2:]:
        value = columns.get(column)
        if value is None or isinstance(value, str):
            body[column] = np.full(count, value, dtype=object)
        else:
            body[column] = np.asarray(value, dtype=object)
    return pd.DataFrame(body, dtype=object)


def _user_space_rows(
    ctx: RuleContext,
    space: np.ndarray,
    user: np.ndarray,
    detail: np.ndarray,
    *,
    titles: np.ndarray | None = None,
    names: np.ndarray | None = None,
) -> Finding:
    """Findings about users (positions ``user``) on spaces (positions ``space``)."""
    titles = ctx.space_titles[space] if titles is None else titles
    return _rows(
        len(space),
        target_type="space",
        target_id=ctx.space_ids[space],
        target_title=titles,
        space_id=ctx.space_ids[space],
        space_title=titles,
        principal_type="user",
        principal_id=ctx.user_ids[user],
        principal_name=ctx.user_names[user] if names is None else names,
        detail=detail,
    )


def _grant_rows(
    grants: pd.DataFrame,
    titles: np.ndarray,
    principal_type: str,
    names: np.ndarray,
    detail: np.ndarray,
) -> Finding:
    """Findings about grants (rows of ``user_permissions``/``team_permissions``) on spaces
    and collections; ``titles`` name their targets, ``names`` their holders."""
    is_space = (grants["target_type"] == "space").to_numpy(dtype=bool)
    return _rows(
        len(grants),
        target_type=grants["target_type"].to_numpy(dtype=object),
        target_id=grants["target_id"].to_numpy(dtype=object),
        target_title=titles,
        space_id=_where(is_space, grants["target_id"].to_numpy(dtype=object)),
        space_title=_where(is_space, titles),
        principal_type=principal_type,
        principal_id=grants[f"{principal_type}_id"].to_numpy(dtype=object),
        principal_name=names,
        detail=detail,
    )


def _where(mask: np.ndarray, values: object) -> np.ndarray:
    """``values`` where ``mask`` holds, missing elsewhere (an object array)."""
    result = np.full(len(mask), None, dtype=object)
    result[mask] = np.asarray(values, dtype=object)[mask]
    return result


def _text(*parts: object) -> np.ndarray:
    """Join string parts elementwise: arrays of one length (of any values) and plain strings.

    The joining happens in numpy's variable-width strings (``StringDType``), so each row
    becomes one Python string at the end instead of one per part.
    """
    text = np.dtypes.StringDType()
    lengths = {len(part) for part in parts if not isinstance(part, str)}  # type: ignore[arg-type]
    result: Any = np.full(lengths.pop() if lengths else 1, "", dtype=text)
    for part in parts:
        piece = part if isinstance(part, str) else np.asarray(part, dtype=object).astype(text)
        result = np.strings.add(result, piece)
    return np.asarray(result, dtype=object)


# -- high -----------------------------------------------------------------------------------


@rule(
    "guest_write", "high", "a guest or non-member can admin, create or edit a space", ordered=True
)
def _guest_write(ctx: RuleContext, _: AuditThresholds) -> Finding:
    # From paths that were read: a missing read can only hide access, never invent it.
    effective = ctx.pairs
    user = effective["user"].to_numpy()
    org_role = ctx.resolution.users["org_role"].to_numpy()[user]
    hit = (effective["role"].to_numpy() >= _EDIT) & (org_role <= 0)
    space, user, role = (
        effective["space"].to_numpy()[hit],
        user[hit],
        effective["role"].to_numpy()[hit],
    )
    who = np.where(org_role[hit] == 0, "a guest of the organization", "not a member of it")
    return _user_space_rows(
        ctx,
        space,
        user,
        _text(
            ctx.user_names[user],
            " is ",
            who,
            " but has ",
            _ROLE_NAMES[role],
            " access to '",
            ctx.space_titles[space],
            "'. Lower the role to read or comment, or give them an organization role first.",
        ),
    )


@rule("former_member", "high", "a non-member still holds a permission")
def _former_member(ctx: RuleContext, _: AuditThresholds) -> Finding:
    # Needs the whole member list: without it nobody can be called a non-member.
    if not ctx.gaps.has("members"):
        return _rows(0)
    grants = ctx.data.user_permissions
    outside = ~grants["user_id"].isin(ctx.data.members["user_id"].dropna()).to_numpy(dtype=bool)
    grants = plain_text(grants[outside]).reset_index(drop=True)
    found = target_titles(ctx.data, grants["target_type"], grants["target_id"])
    titles = found.fillna(grants["target_id"].reset_index(drop=True)).to_numpy(dtype=object)
    names = grants["display_name"].fillna(grants["user_id"]).to_numpy(dtype=object)
    return _grant_rows(
        grants,
        titles,
        "user",
        names,
        _text(
            names,
            " is no longer a member of the organization but still holds ",
            grants["role"].fillna("guest").to_numpy(dtype=object),
            " access to ",
            grants["target_type"].to_numpy(dtype=object),
            " '",
            titles,
            "'. Remove the permission.",
        ),
    )


@rule(
    "public_exposure",
    "high",
    "a space private inside the organization is readable by anyone through a public or "
    "unlisted site (or its own visibility)",
)
def _public_exposure(ctx: RuleContext, _: AuditThresholds) -> Finding:
    # internal_default is missing when a collection on the way could not be read: skipped.
    rows = ctx.exposure[
        ctx.exposure["visibility"].isin(["public", "unlisted"]).to_numpy(dtype=bool)
        & (ctx.exposure["internal_default"] == "private").fillna(False).to_numpy(dtype=bool)
    ]
    on_site = rows["site_id"].notna().to_numpy(dtype=bool)
    space_titles = rows["space_title"].fillna(rows["space_id"]).to_numpy(dtype=object)
    site_titles = rows["site_title"].fillna(rows["site_id"]).to_numpy(dtype=object)
    where = np.where(
        on_site,
        _text("site '", site_titles, "' (", rows["visibility"].to_numpy(dtype=object), ")"),
        _text("its own ", rows["visibility"].to_numpy(dtype=object), " visibility"),
    )
    remedy = np.where(
        on_site,
        "Remove the space from the site, or restrict the site's audience (share link or "
        "visitor authentication).",
        "Set the space's visibility to private or in-collection.",
    )
    return _rows(
        len(rows),
        target_type=np.where(on_site, "site", "space"),
        target_id=np.where(
            on_site, rows["site_id"].to_numpy(dtype=object), rows["space_id"].to_numpy(dtype=object)
        ),
        target_title=np.where(on_site, site_titles, space_titles),
        space_id=rows["space_id"].to_numpy(dtype=object),
        space_title=space_titles,
        detail=_text(
            "'",
            space_titles,
            "' is private inside the organization but anyone on the internet can read it through ",
            where,
            ". ",
            remedy,
        ),
    )


@rule("risky_invite_link", "high", "an active invite link grants admin or create")
def _risky_invite_link(ctx: RuleContext, _: AuditThresholds) -> Finding:
    # A link is active while it exists and the organization's invite links are on.
    if ctx.data.invite_links_enabled is False:
        return _rows(0)
    links = plain_text(ctx.data.invite_links)
    links = links[links["role"].isin(["admin", "create"]).to_numpy(dtype=bool)]
    kinds = links["target_type"].fillna("organization").to_numpy(dtype=object)
    ids = np.where(
        kinds == "organization", ctx.data.org_id, links["target_id"].to_numpy(dtype=object)
    )
    found = target_titles(ctx.data, pd.Series(kinds, dtype=object), pd.Series(ids, dtype=object))
    titles = found.fillna(pd.Series(ids, dtype=object)).to_numpy(dtype=object)
    is_space = kinds == "space"
    return _rows(
        len(links),
        target_type=kinds,
        target_id=ids,
        target_title=titles,
        space_id=_where(is_space, ids),
        space_title=_where(is_space, titles),
        principal_type="invite-link",
        principal_id=links["id"].to_numpy(dtype=object),
        detail=_text(
            "Invite link ",
            links["id"].to_numpy(dtype=object),
            " lets anyone who holds it join ",
            kinds,
            " '",
            titles,
            "' as ",
            links["role"].to_numpy(dtype=object),
            ". Delete it, or replace it with a link granting a lower role.",
        ),
    )


@rule(
    "aggregate_mismatch",
    "high",
    "the audit's effective access and the platform's aggregate disagree on a space",
)
def _aggregate_mismatch(ctx: RuleContext, _: AuditThresholds) -> Finding:
    # Only spaces whose aggregate was read and whose own access is complete are compared.
    mismatches = ctx.mismatches
    if mismatches.empty:
        return _rows(0)
    per_space = mismatches.groupby("space_id", sort=False).agg(
        space_title=("space_title", "first"),
        users=("user_id", "size"),
        example=("display_name", "first"),
        audit_role=("audit_role", "first"),
        platform_role=("platform_role", "first"),
    )
    titles = per_space["space_title"].fillna(pd.Series(per_space.index, index=per_space.index))
    return _rows(
        len(per_space),
        target_type="space",
        target_id=per_space.index.to_numpy(dtype=object),
        target_title=titles.to_numpy(dtype=object),
        space_id=per_space.index.to_numpy(dtype=object),
        space_title=titles.to_numpy(dtype=object),
        detail=_text(
            "The audit and the platform disagree on the access of ",
            per_space["users"].to_numpy(),
            " users to '",
            titles.to_numpy(dtype=object),
            "' (e.g. ",
            per_space["example"].fillna("a user").to_numpy(dtype=object),
            ": audit ",
            per_space["audit_role"].astype(object).fillna("none").to_numpy(dtype=object),
            ", platform ",
            per_space["platform_role"].astype(object).fillna("none").to_numpy(dtype=object),
            "). Check these users in audit.aggregate_mismatches before relying on this space's "
            "rows.",
        ),
    )


@rule(
    "guest_collection_write",
    "high",
    "a collection permission gives a guest write access to guest_collection_spaces or more spaces",
)
def _guest_collection_write(ctx: RuleContext, limits: AuditThresholds) -> Finding:
    # Counts spaces reached through paths that were read: a failed read can only lower it.
    paths = ctx.resolution.paths
    kind = paths["kind"].to_numpy()
    user = paths["user"].to_numpy()
    org_role = ctx.resolution.users["org_role"].to_numpy()
    hit = (
        ((kind == COLLECTION) | (kind == COLLECTION_TEAM))
        & (paths["role"].to_numpy() >= _EDIT)
        & (org_role[user] <= 0)
    )
    positions = np.flatnonzero(hit)
    pairs = paths["space"].to_numpy()[positions].astype(np.int64) * max(len(org_role), 1)
    hit[positions] = ctx.effective.counted(positions, pairs + user[positions])  # they count
    collections = paths["collection"].to_numpy()[hit].astype(np.int64)
    users = user[hit].astype(np.int64)
    spaces = paths["space"].to_numpy()[hit].astype(np.int64)
    user_count = max(len(ctx.resolution.users), 1)
    space_count = max(len(ctx.resolution.spaces), 1)
    triples = distinct((collections * user_count + users) * space_count + spaces)
    holders, inverse = unique_inverse(triples // space_count)
    counts = np.bincount(inverse, minlength=len(holders))
    holders = holders[counts >= limits.guest_collection_spaces]
    counts = counts[counts >= limits.guest_collection_spaces]
    collection, user = holders // user_count, holders % user_count
    table = ctx.resolution.collections
    ids = table["id"].to_numpy(dtype=object)[collection]
    titles = table["title"].fillna(table["id"]).to_numpy(dtype=object)[collection]
    who = np.where(org_role[user] == 0, "a guest", "not a member")
    return _rows(
        len(holders),
        target_type="collection",
        target_id=ids,
        target_title=titles,
        principal_type="user",
        principal_id=ctx.user_ids[user],
        principal_name=ctx.user_names[user],
        detail=_text(
            "A permission on collection '",
            titles,
            "' gives ",
            ctx.user_names[user],
            " (",
            who,
            ") write access to ",
            counts,
            " spaces. Grant the spaces they need one by one, or lower the collection role "
            "to read or comment.",
        ),
    )


# -- medium ---------------------------------------------------------------------------------


@rule(
    "inactive_writer",
    "medium",
    "a disabled member holds write permissions, or a member not seen for inactive_days can "
    "still write",
    ordered=True,
)
def _inactive_writer(ctx: RuleContext, limits: AuditThresholds) -> Finding:
    # One row per (space, person). Members with no last_seen_at are not called inactive:
    # the platform did not say.
    users = ctx.resolution.users
    user_count = max(len(users), 1)
    blocked = ctx.resolution.blocked
    held = blocked[blocked["role"].to_numpy() >= _EDIT]
    # the highest write role each disabled member holds on each space
    key = held["space"].to_numpy().astype(np.int64) * user_count + held["user"].to_numpy()
    order = argsort_ints(key * 8 + (7 - held["role"].to_numpy()))
    key, role = key[order], held["role"].to_numpy()[order]
    first = np.r_[True, key[1:] != key[:-1]] if len(key) else np.zeros(0, bool)
    disabled_key, disabled_role = key[first], role[first]

    cutoff = ctx.data.generated_at - pd.Timedelta(days=limits.inactive_days)
    seen = users["last_seen_at"]
    idle = (seen < cutoff).fillna(False).to_numpy(dtype=bool) & ~users["disabled"].to_numpy()
    pairs = ctx.pairs
    writes = (pairs["role"].to_numpy() >= _EDIT) & idle[pairs["user"].to_numpy()]
    idle_key = pairs["space"].to_numpy()[writes].astype(np.int64) * user_count
    idle_key += pairs["user"].to_numpy()[writes]

    keys = np.concatenate([disabled_key, idle_key])
    roles = np.concatenate([disabled_role, pairs["role"].to_numpy()[writes]])
    is_disabled = np.r_[np.ones(len(disabled_key), bool), np.zeros(len(idle_key), bool)]
    order = argsort_ints(keys)  # by space title, then name
    keys, roles, is_disabled = keys[order], roles[order], is_disabled[order]
    space, user = keys // user_count, keys % user_count
    days = (ctx.data.generated_at - seen.iloc[user]).dt.days.fillna(0).astype(int).to_numpy()
    names, titles = ctx.user_names[user], ctx.space_titles[space]
    detail = np.where(
        is_disabled,
        _text(
            names,
            " is disabled but still holds ",
            _ROLE_NAMES[roles],
            " access to '",
            titles,
            "'. Remove the permission, or remove them from the organization.",
        ),
        _text(
            names,
            " was last seen ",
            days,
            " days ago but still has ",
            _ROLE_NAMES[roles],
            " access to '",
            titles,
            "'. Lower their access, or disable them if they have left.",
        ),
    )
    return _user_space_rows(ctx, space, user, detail, titles=titles, names=names)


@rule("stale_share_link", "medium", "an active share link is older than share_link_max_age_days")
def _stale_share_link(ctx: RuleContext, limits: AuditThresholds) -> Finding:
    links = plain_text(ctx.data.share_links)
    age = (ctx.data.generated_at - links["created_at"]).dt.days
    stale = (links["active"].fillna(True) & (age > limits.share_link_max_age_days)).fillna(False)
    links, age = links[stale.to_numpy(dtype=bool)], age[stale.to_numpy(dtype=bool)]
    sites = plain_text(ctx.data.sites).set_index("id")["title"]
    site_titles = (
        sites.reindex(links["site_id"].astype(object))
        .fillna(
            pd.Series(
                links["site_id"].to_numpy(dtype=object),
                index=links["site_id"].astype(object),
                dtype=object,
            )
        )
        .to_numpy(dtype=object)
    )
    names = links["name"].fillna(links["id"]).to_numpy(dtype=object)
    return _rows(
        len(links),
        target_type="site",
        target_id=links["site_id"].to_numpy(dtype=object),
        target_title=site_titles,
        principal_type="share-link",
        principal_id=links["id"].to_numpy(dtype=object),
        principal_name=names,
        detail=_text(
            "Share link '",
            names,
            "' of site '",
            site_titles,
            "' has been active for ",
            age.astype(int).to_numpy(),
            f" days (more than {limits.share_link_max_age_days}). Deactivate it, or replace "
            "it with a new link for the people who still need it.",
        ),
    )


@rule(
    "admin_sprawl",
    "medium",
    "a user who is not an organization admin is admin on more than admin_share of the spaces",
)
def _admin_sprawl(ctx: RuleContext, limits: AuditThresholds) -> Finding:
    # A share of spaces needs every space listed: skipped when the listing is partial.
    total = len(ctx.resolution.spaces)
    if total == 0 or not ctx.listing_complete:
        return _rows(0)
    effective = ctx.pairs
    admins = effective[effective["role"].to_numpy() == _ADMIN]
    counts = np.bincount(admins["user"].to_numpy(), minlength=len(ctx.resolution.users))
    org_role = ctx.resolution.users["org_role"].to_numpy()
    user = np.flatnonzero((counts / total > limits.admin_share) & (org_role != _ADMIN))
    count = counts[user]
    return _rows(
        len(user),
        target_type="user",
        target_id=ctx.user_ids[user],
        target_title=ctx.user_names[user],
        principal_type="user",
        principal_id=ctx.user_ids[user],
        principal_name=ctx.user_names[user],
        detail=_text(
            ctx.user_names[user],
            " is admin on ",
            count,
            f" of {total} spaces (",
            np.char.mod("%d%%", np.round(count / total * 100).astype(int)).astype(object),
            f", above {limits.admin_share:.0%}). Keep admin where they manage the space and "
            "lower the others to create or edit.",
        ),
    )


@rule(
    "no_admin",
    "medium",
    "a space has no admin of its own (direct, team or collection paths; organization admins "
    "do not count)",
)
def _no_admin(ctx: RuleContext, _: AuditThresholds) -> Finding:
    # Spaces whose access is incomplete are skipped: the admin may be in what was not read.
    complete = ctx.resolution.spaces["complete"].to_numpy(dtype=bool)
    space = np.flatnonzero((ctx.own_admins == 0) & complete)
    return _rows(
        len(space),
        target_type="space",
        target_id=ctx.space_ids[space],
        target_title=ctx.space_titles[space],
        space_id=ctx.space_ids[space],
        space_title=ctx.space_titles[space],
        detail=_text(
            "'",
            ctx.space_titles[space],
            "' has no admin of its own (organization admins aside). Make one responsible "
            "person or team admin so someone owns its access.",
        ),
    )


# -- low ------------------------------------------------------------------------------------


@rule(
    "too_many_admins",
    "low",
    "a space has more than max_admins admins of its own (organization admins do not count)",
)
def _too_many_admins(ctx: RuleContext, limits: AuditThresholds) -> Finding:
    # Fires on incomplete spaces too: reads that failed can only hide more admins.
    counts = ctx.own_admins
    space = np.flatnonzero(counts > limits.max_admins)
    return _rows(
        len(space),
        target_type="space",
        target_id=ctx.space_ids[space],
        target_title=ctx.space_titles[space],
        space_id=ctx.space_ids[space],
        space_title=ctx.space_titles[space],
        detail=_text(
            "'",
            ctx.space_titles[space],
            "' has ",
            counts[space],
            f" admins of its own (more than {limits.max_admins}). Lower the role of those who "
            "only write content.",
        ),
    )


@rule(
    "redundant_grant",
    "low",
    "a direct grant gives nothing another path does not already give",
    ordered=True,
)
def _redundant_grant(ctx: RuleContext, _: AuditThresholds) -> Finding:
    # Compares paths that were read: a missing path can hide a redundancy, never invent one.
    # Each pair's paths are sorted as the rule set weighs them (the deciding ones first,
    # highest role first, direct first among equals). Without a direct path the pair gets
    # the role of its first other path that counts: the one before it (a direct path that
    # is not first changes nothing), else the one after it, if it counts. The grant is
    # redundant when that role is the pair's role.
    effective = ctx.effective
    order, first, counts = effective.order, effective.first, effective.counts
    kind = ctx.resolution.paths["kind"].to_numpy()[order]
    role = ctx.resolution.paths["role"].to_numpy()[order]
    source = ctx.resolution.paths["source"].to_numpy()[order]
    counted = effective.reachable[order]
    group = np.repeat(np.arange(len(first)), counts)
    position = np.flatnonzero((kind == DIRECT) & counted)
    leader = first[group[position]]
    end = leader + counts[group[position]]
    following = np.where(position + 1 < end, position + 1, 0)
    has_next = (position + 1 < end) & counted[following]
    other = np.where(position != leader, leader, np.where(has_next, position + 1, -1))
    found = other >= 0
    position, other = position[found], other[found]
    redundant = role[other] == role[leader[found]]
    position, other = position[redundant], other[redundant]
    granted_row = np.cumsum(effective.granted) - 1
    pairs = effective.frame.iloc[granted_row[group[position]]]
    space, user = pairs["space"].to_numpy(), pairs["user"].to_numpy()
    source_names = ctx.resolution.sources["source_name"].to_numpy(dtype=object)
    return _user_space_rows(
        ctx,
        space,
        user,
        _text(
            ctx.user_names[user],
            " has a direct ",
            _ROLE_NAMES[role[position]],
            " grant on '",
            ctx.space_titles[space],
            "' but already gets ",
            _ROLE_NAMES[role[other]],
            " there through ",
            source_names[source[other]],
            ". Remove the direct grant.",
        ),
    )


@rule("empty_team", "low", "a team without members holds a permission")
def _empty_team(ctx: RuleContext, _: AuditThresholds) -> Finding:
    # Teams whose members could not be read are skipped: they are not known to be empty.
    teams = ctx.resolution.teams
    empty = teams.loc[
        teams["members_read"].to_numpy(dtype=bool) & (teams["size"] == 0).to_numpy(), "id"
    ]
    grants = ctx.data.team_permissions
    grants = plain_text(grants[grants["team_id"].isin(empty).to_numpy(dtype=bool)])
    grants = grants.reset_index(drop=True)
    found = target_titles(ctx.data, grants["target_type"], grants["target_id"])
    titles = found.fillna(grants["target_id"].reset_index(drop=True)).to_numpy(dtype=object)
    known = teams.set_index("id")["title"].reindex(grants["team_id"].astype(object))
    ids = pd.Series(grants["team_id"].to_numpy(dtype=object), index=known.index)
    names = known.fillna(ids).to_numpy(dtype=object)
    return _grant_rows(
        grants,
        titles,
        "team",
        names,
        _text(
            "Team '",
            names,
            "' has ",
            grants["role"].fillna("guest").to_numpy(dtype=object),
            " access to ",
            grants["target_type"].to_numpy(dtype=object),
            " '",
            titles,
            "' but no members. Add members or remove the team's permission.",
        ),
    )


_SEVERITY_ORDER = {"high": 0, "medium": 1, "low": 2}
_SORT_KEYS = ["space_title", "target_title", "principal_name"]


def evaluate_rules(ctx: RuleContext, thresholds: AuditThresholds) -> pd.DataFrame:
    """Run every rule and return the findings, most severe first.

    Parameters
    ----------
    ctx : RuleContext
        The coded organization and the tables the rules look at.
    thresholds : AuditThresholds
        The rules' limits.

    Returns
    -------
    DataFrame
        Columns :data:`FINDING_COLUMNS`; ``severity`` is an ordered categorical; rows sorted
        by severity (high first), then rule in :data:`RULES` order, then space title,
        target title and principal name.
    """
    parts = []
    for entry in sorted(RULES.values(), key=lambda r: _SEVERITY_ORDER[r.severity]):
        rows = entry.check(ctx, thresholds)
        if not len(rows):
            continue
        if not entry.ordered:
            rows = rows.sort_values(
                _SORT_KEYS,
                na_position="first",
                kind="stable",
                key=lambda column: column.astype(STRING),
            )
        parts.append(rows.assign(severity=entry.severity, rule=entry.name))
    findings = pd.concat(parts, ignore_index=True) if parts else _rows(0)
    findings = findings.reindex(columns=FINDING_COLUMNS).reset_index(drop=True)
    findings["severity"] = pd.Categorical(findings["severity"], dtype=SEVERITY_DTYPE)
    for column in FINDING_COLUMNS[1:]:
        if column not in PROVENANCE_COLUMNS:
            findings[column] = findings[column].astype(STRING)
    made: dict[str, Any]
    if ctx.provenance is None:
        made = {c: pd.array([None] * len(findings), dtype=STRING) for c in PROVENANCE_COLUMNS}
        made["granted_at"] = pd.array([pd.NaT] * len(findings), dtype="datetime64[ns, UTC]")
    else:
        made = ctx.provenance.columns(ctx.provenance.positions(_finding_doors(ctx, findings)))
    return findings.assign(**made)[FINDING_COLUMNS]


def _finding_doors(ctx: RuleContext, findings: pd.DataFrame) -> list[str | None]:
    """The setting each finding is about: the permission it names, the invite or share link,
    the published site; for a person reaching a space by no permission of their own there,
    the setting that opens the path that decides their role."""
    columns = ("target_type", "target_id", "principal_type", "principal_id", "space_id")
    kinds, targets, whos, who_ids, spaces = (_objects(findings[c]) for c in columns)
    held = _held_grants(ctx.data, set(targets), set(who_ids))
    doors: list[str | None] = []
    reached: dict[int, tuple[str, str]] = {}
    for row, (kind, target, who, who_id, space) in enumerate(
        zip(kinds, targets, whos, who_ids, spaces, strict=True)
    ):  # one per finding
        door = None
        if who in ("user", "team") and kind in ("space", "collection", "site"):
            door = grant_key(kind, str(target), who, str(who_id))
            if door not in held and who == "user" and isinstance(space, str):
                reached[row] = (space, str(who_id))
                door = None
        elif who == "invite-link":
            door = f"invite-link|{who_id}"
        elif who == "share-link":
            door = f"share-link|{who_id}"
        elif kind == "site":
            door = f"published|{target}"
        doors.append(door)
    for row, door in _best_path_doors(ctx, reached).items():
        doors[row] = door
    return doors


def _held_grants(data: AuditData, targets: set[object], principals: set[object]) -> set[str]:
    """The keys of the explicit permissions of ``principals`` on ``targets`` (the findings'
    only)."""
    held: set[str] = set()
    for frame, principal, column in (
        (data.user_permissions, "user", "user_id"),
        (data.team_permissions, "team", "team_id"),
    ):
        wanted = frame["target_id"].isin(targets) & frame[column].isin(principals)
        frame = frame[wanted.to_numpy(dtype=bool)]
        held.update(
            grant_key(kind, target, principal, who)
            for kind, target, who in zip(
                frame["target_type"].astype(object),
                frame["target_id"].astype(object),
                frame[column].astype(object),
                strict=True,
            )
        )
    return held


def _objects(column: pd.Series) -> list[object]:
    """The values of a column as Python objects, missing ones as None."""
    values = column.astype(object)
    return values.where(values.notna(), None).tolist()


def _best_path_doors(ctx: RuleContext, pairs: dict[int, tuple[str, str]]) -> dict[int, str]:
    """For each finding row naming (space id, user id): the door of the path that decides
    the user's role there (the first of its pair in the effective access's order: under
    ``highest``, a path of the highest role)."""
    if not pairs:
        return {}
    resolution, effective = ctx.resolution, ctx.effective
    rows = np.fromiter(pairs, dtype=np.int64, count=len(pairs))
    wanted_spaces, wanted_users = zip(*pairs.values(), strict=True)
    space = pd.Index(resolution.spaces["id"].astype(object)).get_indexer(list(wanted_spaces))
    user = pd.Index(resolution.users["user_id"].astype(object)).get_indexer(list(wanted_users))
    known = (space >= 0) & (user >= 0)
    keys = space[known].astype(np.int64) * max(len(resolution.users), 1) + user[known]
    group = np.minimum(np.searchsorted(effective.pairs, keys), max(len(effective.pairs) - 1, 0))
    found = effective.pairs[group] == keys if len(effective.pairs) else np.zeros(len(keys), bool)
    positions = effective.order[effective.first[group[found]]]
    doors = path_doors(ctx.data, resolution, resolution.paths.iloc[positions])
    return dict(zip(rows[known][found].tolist(), doors, strict=True))
