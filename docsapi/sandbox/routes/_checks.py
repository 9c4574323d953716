"""Checks of request values against the API's types and enums; each failure is a 400."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from docsapi.sandbox.core._errors import bad_request
from docsapi.sandbox.core._roles import MEMBER_ROLES

SPACE_EDIT_MODES = ("live", "locked")
TRANSLATION_LANGUAGES = (
    "en",
    "fr",
    "de",
    "es",
    "it",
    "pt",
    "pt-br",
    "ru",
    "ja",
    "zh",
    "zh-tw",
    "yue",
    "ko",
    "ar",
    "hi",
    "nl",
    "pl",
    "tr",
    "sv",
    "no",
    "da",
    "fi",
    "el",
    "cs",
    "hu",
    "ro",
    "th",
    "vi",
    "id",
    "ms",
    "he",
    "uk",
    "sk",
    "bg",
    "hr",
    "lt",
    "lv",
    "et",
    "sl",
)
TEAM_MEMBER_ROLES = ("owner", "member")
_USER_RULES = ("require_specific_reviewers", "require_one_of_specific_reviewers", "allow_bypass")
_PLAIN_RULES = (
    "require_at_least_one_review",
    "require_at_least_one_approved_review",
    "require_all_reviews_approved",
    "require_agent_review",
    "require_up_to_date_change_request",
    "require_change_request_subject",
    "require_change_request_description",
    "require_author_to_merge",
)


def check_string(
    value: Any, name: str, *, min_length: int = 0, max_length: int | None = None
) -> str:
    """A string of ``min_length`` to ``max_length`` characters."""
    if not isinstance(value, str):
        raise bad_request(f"{name} must be a string.")
    if len(value) < min_length or (max_length is not None and len(value) > max_length):
        bounds = (
            f"{min_length} to {max_length}" if max_length is not None else f"at least {min_length}"
        )
        raise bad_request(f"{name} must have {bounds} characters; it has {len(value)}.")
    return value


def check_enum(value: Any, name: str, allowed: Sequence[Any]) -> Any:
    """One of ``allowed``."""
    if isinstance(value, bool) or value not in allowed:
        shown = ", ".join("null" if a is None else str(a) for a in allowed)
        raise bad_request(f"{name} must be one of {shown}; got {value!r}.")
    return value


def check_bool(value: Any, name: str) -> bool:
    """A JSON boolean."""
    if not isinstance(value, bool):
        raise bad_request(f"{name} must be true or false.")
    return value


def check_url(value: Any, name: str) -> str:
    """An absolute http(s) URL of at most 2048 characters."""
    check_string(value, name, min_length=1, max_length=2048)
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise bad_request(f"{name} must be an absolute http(s) URL; got {value!r}.")
    return value


def check_role(value: Any, name: str = "role") -> str | None:
    """A MemberRoleOrGuest: a member role or null (guest)."""
    return check_enum(value, name, (*MEMBER_ROLES, None))


def role_change(body: dict[str, Any], *, guest: bool = True) -> dict[str, str | None]:
    """The role a permission PATCH body sets: ``{"role": role}``, or ``{}`` when it names no
    role (the description does not require one: such a PATCH changes nothing).

    ``guest`` says whether null (guest) is allowed (``MemberRoleOrGuest``) or not
    (``MemberRole``, on sites).
    """
    if "role" not in body:
        return {}
    if guest:
        return {"role": check_role(body["role"])}
    return {"role": check_enum(body["role"], "role", MEMBER_ROLES)}


def check_default_level(value: Any) -> str | None:
    """A DefaultLevel: a member role, null (guest) or "inherit"."""
    return check_enum(value, "defaultLevel", (*MEMBER_ROLES, None, "inherit"))


def check_string_list(value: Any, name: str, *, min_items: int = 0) -> list[str]:
    """An array of strings with at least ``min_items`` items."""
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise bad_request(f"{name} must be an array of strings.")
    if len(value) < min_items:
        raise bad_request(f"{name} must hold at least {min_items} item(s).")
    return value


def check_merge_rules(value: Any, *, allow_inherit: bool = True) -> dict[str, Any]:
    """A MergeRulesSpaceConfiguration: type inherit, none, or rules (with ``rules``)."""
    kinds = ("inherit", "none", "rules") if allow_inherit else ("none", "rules")
    if not isinstance(value, dict):
        raise bad_request('mergeRules must be an object such as {"type": "inherit"}.')
    check_enum(value.get("type"), "mergeRules.type", kinds)
    if value["type"] != "rules":
        return {"type": value["type"]}
    rules = value.get("rules")
    if not isinstance(rules, list):
        raise bad_request("mergeRules.rules must be an array of rules.")
    checked = []
    for index, rule in enumerate(rules):
        label = f"mergeRules.rules[{index}]"
        if not isinstance(rule, dict):
            raise bad_request(f"{label} must be an object.")
        kind = check_enum(
            rule.get("rule"), f"{label}.rule", (*_USER_RULES, *_PLAIN_RULES, "custom")
        )
        if kind in _USER_RULES:
            checked.append(
                {"rule": kind, "users": check_string_list(rule.get("users"), f"{label}.users")}
            )
        elif kind == "custom":
            if "expression" not in rule:
                raise bad_request(f"{label}.expression is required for a custom rule.")
            checked.append({k: rule[k] for k in ("rule", "expression", "message") if k in rule})
        else:
            checked.append({"rule": kind})
    return {"type": "rules", "rules": checked}


def check_emoji_icon(body: dict[str, Any]) -> tuple[str, Any]:
    """Decide which of the PATCH space alternatives applies: exactly one must.

    Returns
    -------
    (kind, value)
        ``("emoji", "1f4d8")``, ``("icon", url)``, ``("clear", None)`` or ``("keep", None)``.
    """
    emoji, icon = body.get("emoji"), body.get("icon")
    if emoji is not None:
        check_string(emoji, "emoji", min_length=1, max_length=50)
    if icon is not None:
        check_url(icon, "icon")
    sets_emoji, sets_icon = emoji is not None, icon is not None
    if sets_emoji and sets_icon:
        raise bad_request(
            "Send exactly one of {emoji}, {icon} or {emoji: null, icon: null}; not both."
        )
    if sets_emoji:
        return "emoji", emoji
    if sets_icon:
        return "icon", icon
    if "emoji" in body or "icon" in body:
        return "clear", None
    return "keep", None
