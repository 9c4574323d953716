"""Argument checks that run before any request is sent, and the API's enumerations.

Every check either returns the value to send (sometimes normalised) or raises
:class:`~docsapi.errors.ValidationError` naming the argument and the rule it broke;
a value of the wrong Python type raises :class:`TypeError`. Only the standard library
is used, so forms and the command line can reuse these helpers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from docsapi.errors import ValidationError

__all__ = [
    "CHANGE_REQUEST_STATUSES",
    "CONTENT_VISIBILITIES",
    "DEFAULT_LEVELS",
    "DOCUMENT_FORMATS",
    "DOCUMENT_SCHEMAS",
    "EDIT_MODES",
    "LANGUAGES",
    "MARKDOWN_REFS_FORMATS",
    "MAX_DISPLAY_NAME",
    "MAX_LIST_LIMIT",
    "MAX_SEARCH_QUERY",
    "MAX_SPACE_TITLE",
    "MEMBER_ROLES",
    "check_bool",
    "check_choice",
    "check_default_level",
    "check_display_name",
    "check_emoji",
    "check_entity_id",
    "check_id",
    "check_id_list",
    "check_limit",
    "check_mapping",
    "check_optional_text",
    "check_role",
    "check_search_query",
    "check_space_title",
    "check_text",
    "check_url",
    "require_any",
]

#: Roles a member can hold on content, strongest first; a guest is ``None``.
MEMBER_ROLES: tuple[str, ...] = ("admin", "create", "edit", "review", "comment", "read")
#: ``SpaceEditMode``.
EDIT_MODES: tuple[str, ...] = ("live", "locked")
#: ``DefaultLevel``: a member role, ``"inherit"``, or ``None`` (guest).
DEFAULT_LEVELS: tuple[str, ...] = (*MEMBER_ROLES, "inherit")
#: ``ContentVisibility``.
CONTENT_VISIBILITIES: tuple[str, ...] = (
    "public",
    "unlisted",
    "share-link",
    "visitor-auth",
    "in-collection",
    "private",
)
#: ``ChangeRequestStatus``.
CHANGE_REQUEST_STATUSES: tuple[str, ...] = ("draft", "open", "archived", "merged")
#: ``documentFormat`` query parameter of the page operations.
#: The kinds of ``MergeRulesSpaceConfiguration``.
MERGE_RULE_KINDS: tuple[str, ...] = ("inherit", "none", "rules")
#: ``MergeRule`` values that take no argument (rules naming reviewers take a list of ids).
SIMPLE_MERGE_RULES: tuple[str, ...] = (
    "require_at_least_one_review",
    "require_at_least_one_approved_review",
    "require_all_reviews_approved",
    "require_agent_review",
    "require_up_to_date_change_request",
    "require_change_request_subject",
    "require_change_request_description",
    "require_author_to_merge",
)
DOCUMENT_FORMATS: tuple[str, ...] = ("document", "markdown")
#: ``format.markdown.refs`` query parameter of the page operations.
MARKDOWN_REFS_FORMATS: tuple[str, ...] = ("relative", "stable")
#: ``documentSchema`` query parameter of the computed document operation.
DOCUMENT_SCHEMAS: tuple[str, ...] = ("current", "next")
#: ``TranslationLanguage``.
# fmt: off
LANGUAGES: tuple[str, ...] = (
    "en", "fr", "de", "es", "it", "pt", "pt-br", "ru", "ja", "zh", "zh-tw", "yue", "ko",
    "ar", "hi", "nl", "pl", "tr", "sv", "no", "da", "fi", "el", "cs", "hu", "ro", "th",
    "vi", "id", "ms", "he", "uk", "sk", "bg", "hr", "lt", "lv", "et", "sl",
)
# fmt: on

MAX_DISPLAY_NAME = 64
MAX_SPACE_TITLE = 50
MAX_EMOJI = 50
MAX_URL = 2048
MAX_SEARCH_QUERY = 512
MAX_LIST_LIMIT = 1000

_ENTITY_ID = re.compile(r"^[A-Za-z0-9_-]+$")


def _require_str(value: Any, argument: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{argument} must be a str, got {type(value).__name__}")
    return value


def check_id(value: Any, argument: str) -> str:
    """Check an identifier: a non-empty string.

    Parameters
    ----------
    value : Any
        The identifier as the caller passed it.
    argument : str
        The argument's name, used in the error message.

    Returns
    -------
    str
        The identifier, unchanged.

    Raises
    ------
    TypeError
        If ``value`` is not a string.
    ValidationError
        If it is empty or only whitespace.

    Examples
    --------
    >>> check_id("u_1", "user_id")
    'u_1'
    """
    _require_str(value, argument)
    if not value.strip():
        raise ValidationError(argument, "must be a non-empty id string")
    return value


def check_entity_id(value: Any, argument: str) -> str:
    """Check an entity id (space, page, file, team, organization): letters, digits, ``_``, ``-``.

    Raises
    ------
    TypeError
        If ``value`` is not a string.
    ValidationError
        If it is empty or holds other characters (a URL or a title instead of an id).

    Examples
    --------
    >>> check_entity_id("sp_Ab-1", "space_id")
    'sp_Ab-1'
    """
    check_id(value, argument)
    if not _ENTITY_ID.match(value):
        raise ValidationError(
            argument,
            f"{value!r} is not an id: ids hold only letters, digits, '_' and '-' "
            "(pass the id, not a URL or a title)",
        )
    return value


def check_id_list(values: Any, argument: str) -> list[str]:
    """Check a collection of user or team ids and return it as a list.

    Raises
    ------
    TypeError
        If ``values`` is a single string or not iterable, or an item is not a string.
    ValidationError
        If an item is empty.
    """
    if isinstance(values, str | bytes):
        raise TypeError(
            f"{argument} must be a list of ids, not a single string; wrap it: [{values!r}]"
        )
    if not isinstance(values, Iterable):
        raise TypeError(f"{argument} must be a list of ids, got {type(values).__name__}")
    return [check_id(item, f"{argument}[{index}]") for index, item in enumerate(values)]


def check_text(
    value: Any, argument: str, *, min_length: int = 0, max_length: int | None = None
) -> str:
    """Check a string's length.

    Raises
    ------
    TypeError
        If ``value`` is not a string.
    ValidationError
        If it is shorter than ``min_length`` or longer than ``max_length`` characters.

    Examples
    --------
    >>> check_text("Docs", "title", max_length=50)
    'Docs'
    """
    _require_str(value, argument)
    if len(value) < min_length:
        if min_length == 1:
            raise ValidationError(argument, "must not be empty")
        raise ValidationError(argument, f"must have at least {min_length} characters")
    if max_length is not None and len(value) > max_length:
        raise ValidationError(
            argument, f"must have at most {max_length} characters, got {len(value)}"
        )
    return value


def check_optional_text(value: Any, argument: str, *, max_length: int) -> str | None:
    """Like :func:`check_text`, with ``None`` allowed (and returned)."""
    return None if value is None else check_text(value, argument, max_length=max_length)


def check_display_name(value: Any, argument: str = "display_name") -> str:
    """Check a user's display name: 1 to 64 characters, not only whitespace.

    Examples
    --------
    >>> check_display_name("Ada Lovelace")
    'Ada Lovelace'
    """
    check_text(value, argument, min_length=1, max_length=MAX_DISPLAY_NAME)
    if not value.strip():
        raise ValidationError(argument, "must contain more than whitespace")
    return value


def check_space_title(value: Any, argument: str = "title") -> str:
    """Check a space title: at most 50 characters."""
    return check_text(value, argument, max_length=MAX_SPACE_TITLE)


def check_url(value: Any, argument: str) -> str:
    """Check an absolute http(s) URL with a host, at most 2048 characters.

    Raises
    ------
    TypeError
        If ``value`` is not a string.
    ValidationError
        If it is not an ``http://`` or ``https://`` URL with a host.

    Examples
    --------
    >>> check_url("https://example.com/a.png", "photo_url")
    'https://example.com/a.png'
    """
    check_text(value, argument, min_length=1, max_length=MAX_URL)
    try:
        parts = urlsplit(value)
        host = parts.hostname
    except ValueError as exc:
        raise ValidationError(argument, f"{value!r} is not a valid URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not host or any(c.isspace() for c in value):
        raise ValidationError(
            argument, f"must be an absolute http:// or https:// URL with a host, got {value!r}"
        )
    return value


def check_emoji(value: Any, argument: str = "emoji") -> str:
    """Check an emoji: a non-empty string of at most 50 characters (as the API stores it)."""
    return check_text(value, argument, min_length=1, max_length=MAX_EMOJI)


def check_choice(value: Any, allowed: tuple[str, ...], argument: str) -> str:
    """Check that ``value`` is one of the ``allowed`` strings.

    Examples
    --------
    >>> check_choice("live", EDIT_MODES, "edit_mode")
    'live'
    """
    if not isinstance(value, str) or value not in allowed:
        raise ValidationError(argument, f"must be one of {', '.join(allowed)}; got {value!r}")
    return value


def check_role(value: Any, argument: str = "role") -> str | None:
    """Check a ``MemberRoleOrGuest``: one of :data:`MEMBER_ROLES`, or ``None`` for guest.

    Examples
    --------
    >>> check_role("edit"), check_role(None)
    ('edit', None)
    """
    if value is None:
        return None
    if value == "guest":
        raise ValidationError(argument, "pass None (not 'guest') for the guest role")
    if not isinstance(value, str) or value not in MEMBER_ROLES:
        raise ValidationError(
            argument, f"must be one of {', '.join(MEMBER_ROLES)} or None (guest); got {value!r}"
        )
    return value


def check_default_level(value: Any, argument: str = "default_level") -> str | None:
    """Check a ``DefaultLevel``: a member role, ``"inherit"``, or ``None`` (guest)."""
    if value is None:
        return None
    if not isinstance(value, str) or value not in DEFAULT_LEVELS:
        raise ValidationError(
            argument, f"must be one of {', '.join(DEFAULT_LEVELS)} or None (guest); got {value!r}"
        )
    return value


def check_search_query(value: Any, argument: str = "query") -> str:
    """Check a search query: not blank, at most 512 characters."""
    check_text(value, argument, max_length=MAX_SEARCH_QUERY)
    if not value.strip():
        raise ValidationError(argument, "must contain words to search for")
    return value


def check_limit(value: Any, argument: str = "limit", *, maximum: int = MAX_LIST_LIMIT) -> int:
    """Check a count of items: an int from 1 to ``maximum``.

    Raises
    ------
    TypeError
        If ``value`` is not an int (``bool`` is refused).
    ValidationError
        If it is outside 1 … ``maximum``.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{argument} must be an int, got {type(value).__name__}")
    if not 1 <= value <= maximum:
        raise ValidationError(argument, f"must be between 1 and {maximum}, got {value}")
    return value


def check_bool(value: Any, argument: str) -> bool:
    """Check a flag: exactly ``True`` or ``False``."""
    if not isinstance(value, bool):
        raise TypeError(f"{argument} must be True or False, got {value!r}")
    return value


def check_mapping(value: Any, argument: str, *, non_empty: bool = False) -> dict[str, Any]:
    """Check a JSON object argument and return it as a ``dict``."""
    if not isinstance(value, Mapping):
        raise TypeError(f"{argument} must be a dict, got {type(value).__name__}")
    if non_empty and not value:
        raise ValidationError(argument, "must not be empty")
    return dict(value)


def require_any(arguments: Mapping[str, Any], message: str, *, missing: Any = None) -> None:
    """Raise unless at least one of ``arguments`` differs from ``missing``.

    Parameters
    ----------
    arguments : Mapping[str, Any]
        Argument name → value.
    message : str
        What the caller should pass, appended to the list of names.
    missing : Any
        The value that means "not given" (``None`` or a sentinel).
    """
    if all(value is missing for value in arguments.values()):
        names = " or ".join(arguments)
        raise ValidationError(names, message)
