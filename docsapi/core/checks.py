"""Argument checks that run before any request is sent, and the API's enumerations.

Every check either returns the value to send (sometimes normalised) or raises
:class:`~docsapi.errors.ValidationError` naming the argument and the rule it broke (a
value of the wrong Python type too: ``ValidationError`` is also a ``TypeError``). Only the
standard library is used, so forms and the command line can reuse these helpers.

Anything that ends up in a URL path is checked to be what it claims, by one rule
(:func:`check_id`): a segment is read as a server could read it (percent-decoded, NFKC
normalised, so ``%2e%2e`` and ``‥`` are ``..``) before the dot-segment and separator checks.
An id is exactly one path segment, the same verdict for every method, ``client.api`` and
:meth:`~docsapi.DocsClient.request`; a page path is a relative path of such segments; a raw
API path never leaves the base URL. Patterns are matched whole (``fullmatch``), so a
trailing newline cannot slip through.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Container, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any
from urllib.parse import unquote, urlencode, urlsplit

from docsapi.errors import ValidationError

__all__ = [
    "CHANGE_REQUEST_STATUSES",
    "CONTENT_VISIBILITIES",
    "DEFAULT_LEVELS",
    "DOCUMENT_FORMATS",
    "DOCUMENT_SCHEMAS",
    "EDIT_MODES",
    "HTTP_METHODS",
    "LANGUAGES",
    "MARKDOWN_REFS_FORMATS",
    "MAX_DISPLAY_NAME",
    "MAX_ID_LENGTH",
    "MAX_LIST_LIMIT",
    "MAX_SEARCH_QUERY",
    "MAX_SPACE_TITLE",
    "MEMBER_ROLES",
    "check_api_path",
    "check_base_url",
    "check_bool",
    "check_choice",
    "check_default_level",
    "check_display_name",
    "check_emoji",
    "check_entity_id",
    "check_headers",
    "check_http_method",
    "check_id",
    "check_id_list",
    "check_json_body",
    "check_limit",
    "check_mapping",
    "check_moment",
    "check_optional_text",
    "check_page_path",
    "check_params",
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
#: The longest id accepted (the API's ids are about 20 to 30 characters).
MAX_ID_LENGTH = 256
MAX_PAGE_PATH = 1024
MAX_API_PATH = 4096
#: The longest query string sent: servers refuse request lines much beyond 8 KB (414).
MAX_QUERY = 6144
#: Methods :meth:`DocsClient.request` accepts.
HTTP_METHODS: tuple[str, ...] = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")

#: What an id is made of: the characters RFC 3986 leaves unencoded everywhere in a URL
#: ("unreserved"). No ``%`` (an id is never percent-encoded by its caller) and none of the
#: sub-delimiters (``;`` starts path parameters: some servers read ``..;x`` as ``..``).
_ID = re.compile(r"[A-Za-z0-9._~-]+")
ID_RULE = (
    "an id is one path segment of ASCII letters, digits, '-', '.', '_' and '~' (not only "
    f"dots), at most {MAX_ID_LENGTH} characters, passed unencoded"
)
_ENTITY_ID = re.compile(r"[A-Za-z0-9_-]+")
_SEPARATOR = re.compile(r"[/\\;%?#]")
#: Characters that end a path segment or change how a server reads it, once the segment
#: is decoded and normalised: what each does, for messages.
_SEPARATORS = {
    "/": "separates path segments",
    "\\": "separates path segments on some servers",
    ";": "starts path parameters ('..;x' reads as '..' on some servers)",
    "%": "starts a percent-escape (pass the value unencoded; docsapi encodes it)",
    "?": "starts the query string",
    "#": "starts the fragment",
}
#: Control characters, line and paragraph separators, and the bidirectional overrides and
#: isolates that make text display in another order than it is stored (a title or name that
#: reads differently in a report than in the data).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_CONTROL_BUT_LINES = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_HEADER_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def _show(value: Any, limit: int = 60) -> str:
    """A value's repr for a message, cut so a huge argument does not flood it."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _require_str(value: Any, argument: str) -> str:
    if not isinstance(value, str):
        raise ValidationError(argument, f"must be a str, got {type(value).__name__}")
    return value


def _no_controls(value: str, argument: str, *, lines: bool = False) -> str:
    if _SURROGATE.search(value):
        raise ValidationError(
            argument, "must be valid Unicode: it holds a lone surrogate (\\ud800-\\udfff)"
        )
    pattern = _CONTROL_BUT_LINES if lines else _CONTROL
    if pattern.search(value):
        allowed = " (line breaks and tabs are allowed)" if lines else ""
        raise ValidationError(
            argument, f"must not contain control characters{allowed}; got {_show(value)}"
        )
    return value


def _segment_problem(text: str) -> str | None:
    """Why ``text``, one path segment as a server receives it (percent-decoded), could be
    read as something else than one segment; None when it cannot.

    The segment is NFKC-normalised first, as some servers and proxies do: ``‥`` (U+2025)
    is ``..``, ``﹒`` (U+FE52) is ``.``, the fullwidth solidus (U+FF0F) is ``/``.
    """
    if _SURROGATE.search(text):
        return "it holds a lone surrogate (not valid Unicode)"
    normal = unicodedata.normalize("NFKC", text)
    read = "" if normal == text else f" (read as {_show(normal)} once normalised, NFKC)"
    control = _CONTROL.search(text) or _CONTROL.search(normal)
    if control is not None:
        return f"it holds the control character U+{ord(control.group()):04X}"
    separator = _SEPARATOR.search(normal)
    if separator is not None:
        char = separator.group()
        return f"it holds {char!r}{read}, which {_SEPARATORS[char]}"
    if not normal.strip():
        return "it is empty"
    if not normal.replace(".", "").strip():
        return f"it is a dot segment{read}: '.' and '..' address this resource or its parent"
    return None


def _id_problem(value: str) -> str | None:
    """Why ``value`` is not an id (see :func:`check_id`), or None when it is one."""
    if len(value) > MAX_ID_LENGTH:
        return f"it has {len(value)} characters"
    problem = _segment_problem(value)
    if problem is None and not _ID.fullmatch(value):
        odd = next(char for char in value if not _ID.fullmatch(char))
        problem = f"it holds {odd!r}"
    return problem


def check_id(value: Any, argument: str) -> str:
    """Check an identifier: exactly one URL path segment, the same verdict everywhere.

    This is the one rule for every id that goes into a request: each method's id
    arguments, each path parameter of ``client.api``, and each segment of a path given to
    :meth:`DocsClient.request <docsapi.DocsClient.request>` or ``paginate`` (read once
    percent-decoded, as the server reads it). The id is read as a server or proxy could
    read it, NFKC-normalised (``‥`` is ``..``, U+FF0F is ``/``), before the dot-segment and
    separator checks. A ``%`` is refused rather than decoded: an id is never
    percent-encoded by its caller (docsapi encodes it), so a ``%`` can only smuggle an
    encoded ``.``, ``/`` or ``;`` past a server that decodes twice; refusing it gives one
    verdict however many times a server decodes.

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
    ValidationError
        If ``value`` is not a string, is empty, longer than :data:`MAX_ID_LENGTH`, made
        only of dots (also once normalised: ``‥``), or holds anything but ASCII letters,
        digits, ``-``, ``.``, ``_`` and ``~`` (a ``/``, ``%``, ``;``, whitespace, a control
        character, non-ASCII text).

    Examples
    --------
    >>> check_id("u_1", "user_id")
    'u_1'
    >>> check_id("..", "user_id")
    Traceback (most recent call last):
    ...
    docsapi.errors.ValidationError: user_id: '..' is not an id: it is a dot segment...
    >>> check_id("\u2025", "user_id")
    Traceback (most recent call last):
    ...
    docsapi.errors.ValidationError: user_id: '‥' is not an id: it is a dot segment (read as '..'...
    """
    _require_str(value, argument)
    problem = _id_problem(value)
    if problem is not None:
        raise ValidationError(argument, f"{_show(value)} is not an id: {problem}; {ID_RULE}")
    return value


def check_entity_id(value: Any, argument: str) -> str:
    """Check an entity id (space, page, file, team, organization): letters, digits, ``_``, ``-``.

    Raises
    ------
    ValidationError
        If ``value`` is not a string, is empty or holds other characters (a URL or a
        title instead of an id).

    Examples
    --------
    >>> check_entity_id("sp_Ab-1", "space_id")
    'sp_Ab-1'
    """
    check_id(value, argument)
    if not _ENTITY_ID.fullmatch(value):
        raise ValidationError(
            argument,
            f"{_show(value)} is not an id: ids hold only letters, digits, '_' and '-' "
            "(pass the id, not a URL or a title)",
        )
    return value


def check_id_list(values: Any, argument: str) -> list[str]:
    """Check a collection of user or team ids and return it as a list.

    Raises
    ------
    ValidationError
        If ``values`` is a single string or not iterable, or an item is not an id.

    Examples
    --------
    >>> check_id_list(("u1", "u2"), "users")
    ['u1', 'u2']
    """
    if isinstance(values, str | bytes):
        raise ValidationError(
            argument, f"must be a list of ids, not a single string; wrap it: [{_show(values)}]"
        )
    if isinstance(values, Mapping) or not isinstance(values, Iterable):
        raise ValidationError(argument, f"must be a list of ids, got {type(values).__name__}")
    return [check_id(item, f"{argument}[{index}]") for index, item in enumerate(values)]


def check_text(
    value: Any,
    argument: str,
    *,
    min_length: int = 0,
    max_length: int | None = None,
    multiline: bool = False,
) -> str:
    """Check a string's length and that it holds no control characters.

    Parameters
    ----------
    value : Any
        The text.
    argument : str
        The argument's name, used in the error message.
    min_length, max_length : int
        Bounds on the number of characters.
    multiline : bool
        Allow line breaks and tabs (a commit message); other control characters are
        always refused.

    Raises
    ------
    ValidationError
        If ``value`` is not a string, is out of bounds, or holds a control character.

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
    return _no_controls(value, argument, lines=multiline)


def check_optional_text(value: Any, argument: str, *, max_length: int) -> str | None:
    """Like :func:`check_text`, with ``None`` allowed (and returned)."""
    return None if value is None else check_text(value, argument, max_length=max_length)


def check_page_path(value: Any, argument: str = "path") -> str:
    """Check a page path: a relative path of page slugs, without ``.`` or ``..`` segments.

    Leading and trailing slashes are dropped. Each slug is read as :func:`check_id` reads
    an id (NFKC-normalised, so ``‥`` is a dot segment and U+FF0F a slash); unlike an id, a
    slug may hold spaces and non-ASCII letters.

    Raises
    ------
    ValidationError
        If it is not a string, names no page, has an empty, ``.`` or ``..`` segment, or
        holds ``%``, ``\\``, ``;``, ``?``, ``#`` or a control character.

    Examples
    --------
    >>> check_page_path("/guides/install/")
    'guides/install'
    """
    check_text(value, argument, max_length=MAX_PAGE_PATH)
    page_path = value.strip("/")
    if not page_path.strip():
        raise ValidationError(argument, "must name a page, e.g. 'guides/install'")
    for slug in page_path.split("/"):
        problem = _segment_problem(slug)
        if problem is not None:
            raise ValidationError(
                argument,
                f"{_show(value)} is not a page path: its segment {_show(slug)} is not one "
                f"slug: {problem}; a page path is slugs separated by '/', like "
                "'guides/install', passed unencoded",
            )
    return page_path


def check_api_path(
    value: Any, argument: str = "path", *, page_paths: Container[int] | None = None
) -> str:
    """Check a path under the API's base URL, as :meth:`DocsClient.request` takes it.

    The path must start with ``/`` and stay under the base URL: no full URL, no query
    string or fragment (pass ``params=``), no whitespace or control characters, no empty
    segment (also not last: ``/members/`` is what ``/members/{id}`` becomes with an empty
    id, and addresses the whole list). Segments are the caller's to percent-encode, once:
    each is read decoded, as the server reads it, and must then be one id by
    :func:`check_id`'s rule, so ``..%2F..%2Fy``, ``%2e%2e``, ``%252e%252e``, ``..%3B`` and
    ``‥`` are refused. A segment named in ``page_paths`` may instead hold a page path (slugs
    with encoded ``/`` between them, see :func:`check_page_path`).

    Parameters
    ----------
    value : Any
        The path.
    argument : str
        The argument's name, used in the error message.
    page_paths : container of int, optional
        The (0-based) indexes of the segments where a page path is expected. None: any
        segment may hold one and only the dot-segment and separator checks apply (the
        transport's last check of paths the client has already built).

    Raises
    ------
    ValidationError
        A path breaking one of these rules.

    Examples
    --------
    >>> check_api_path("/orgs/org_1/members")
    '/orgs/org_1/members'
    >>> check_api_path("/../_sandbox/")
    Traceback (most recent call last):
    ...
    docsapi.errors.ValidationError: path: must stay under base_url: the segment '..' is ...
    """
    check_text(value, argument, min_length=1, max_length=MAX_API_PATH)
    if "://" in value or value.startswith("//"):
        raise ValidationError(
            argument, "must be a path under base_url such as '/orgs/org_1', not a full URL"
        )
    if not value.startswith("/"):
        raise ValidationError(argument, f"must start with '/', got {_show(value)}")
    if "?" in value or "#" in value:
        raise ValidationError(argument, "must not hold a query string or fragment; use params=")
    if any(char.isspace() for char in value) or "\\" in value:
        raise ValidationError(
            argument, f"must not hold whitespace or '\\' (URL-encode segments); got {_show(value)}"
        )
    segments = value[1:].split("/") if value != "/" else []
    trailing = bool(segments) and segments[-1] == ""
    for index, segment in enumerate(segments[:-1] if trailing else segments):
        text = unquote(segment)
        if page_paths is None or index in page_paths:
            slugs = text.split("/")
            problem = next((p for p in map(_segment_problem, slugs) if p is not None), None)
        else:
            problem = _id_problem(text)
        if problem is not None:
            decoded = "" if text == segment else f" ({_show(text)} once decoded)"
            raise ValidationError(
                argument,
                f"must stay under base_url: the segment {_show(segment)}{decoded} is not "
                f"one id: {problem}; each segment is one id (or, where the API takes one, "
                "a page path), percent-encoded once",
            )
    if trailing:
        raise ValidationError(
            argument,
            f"must not end with '/' (an empty last segment: is an id empty?); got {_show(value)}",
        )
    return value


def check_base_url(value: Any, argument: str = "base_url") -> str:
    """Check an API's base URL: http(s), a host, no credentials, query or fragment.

    Any path is accepted: the API may sit at the root (a mock server), under ``/v1`` (the
    platform) or under a gateway's prefix (``https://gw.example.com/gitbook``).

    Parameters
    ----------
    value : Any
        The URL.
    argument : str
        The argument's name, used in the error message.

    Returns
    -------
    str
        The URL without a trailing slash.

    Raises
    ------
    ValidationError
        A URL breaking one of these rules.

    Examples
    --------
    >>> check_base_url("https://api.gitbook.com/v1/")
    'https://api.gitbook.com/v1'
    >>> check_base_url("http://127.0.0.1:4010")
    'http://127.0.0.1:4010'
    >>> check_base_url("https://token@api.gitbook.com/v1")
    Traceback (most recent call last):
    ...
    docsapi.errors.ValidationError: base_url: must not hold a user name or password; ...
    """
    url = check_url(value, argument).rstrip("/")
    parts = urlsplit(url)
    port_ok = True
    try:
        parts.port  # noqa: B018 - reading it validates it
    except ValueError:
        port_ok = False
    if not port_ok:
        raise ValidationError(argument, f"has an invalid port: {_show(url)}")
    if parts.username is not None or parts.password is not None:
        raise ValidationError(
            argument, "must not hold a user name or password; pass the token separately"
        )
    if parts.query or parts.fragment or "?" in url or "#" in url:
        raise ValidationError(argument, f"must not hold a query string or fragment: {_show(url)}")
    return url


def check_http_method(value: Any, argument: str = "method") -> str:
    """Check an HTTP method and return it in capitals.

    Examples
    --------
    >>> check_http_method("get")
    'GET'
    """
    verb = check_text(value, argument, min_length=1).upper()
    if verb not in HTTP_METHODS:
        raise ValidationError(argument, f"must be one of {', '.join(HTTP_METHODS)}")
    return verb


def _query_value(value: Any, argument: str) -> str | int | float:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValidationError(argument, f"must be a finite number, got {value!r}")
        return value
    if isinstance(value, str):
        return check_text(value, argument)
    raise ValidationError(
        argument, f"must be a str, a number, a bool or a list of them, got {type(value).__name__}"
    )


def check_params(value: Any, argument: str = "params") -> dict[str, Any] | None:
    """Check query parameters: names are strings, values scalars (or lists of them).

    ``None`` values are left out; booleans are sent as ``true``/``false``.

    Raises
    ------
    ValidationError
        Not a mapping, a name that is not a non-empty string, a value of another type,
        a control character, or a non-finite number.

    Examples
    --------
    >>> check_params({"limit": 10, "page": None, "flag": True})
    {'limit': 10, 'flag': 'true'}
    """
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ValidationError(argument, f"must be a dict, got {type(value).__name__}")
    query: dict[str, Any] = {}
    for name, item in value.items():
        if not isinstance(name, str) or not name:
            raise ValidationError(argument, f"names must be non-empty strings, got {_show(name)}")
        _no_controls(name, f"{argument} name")
        where = f"{argument}[{name!r}]"
        if item is None:
            continue
        if isinstance(item, list | tuple):
            query[name] = [_query_value(one, where) for one in item]
        else:
            query[name] = _query_value(item, where)
    check_query_length(query, argument)
    return query


def check_query_length(query: Mapping[str, Any], argument: str = "params") -> None:
    """Refuse a query string longer than :data:`MAX_QUERY` characters once encoded.

    The error names the longest parameter (``argument[name]``, or ``name`` alone when
    ``argument`` is empty).

    Examples
    --------
    >>> check_query_length({"q": "x" * 7000})
    Traceback (most recent call last):
    ...
    docsapi.errors.ValidationError: params['q']: makes the query string 7002 characters long...
    """
    sizes = {name: len(urlencode({name: value}, doseq=True)) for name, value in query.items()}
    total = sum(sizes.values()) + max(len(sizes) - 1, 0)
    if total <= MAX_QUERY:
        return
    longest = max(sizes, key=sizes.__getitem__)
    raise ValidationError(
        f"{argument}[{longest!r}]" if argument else longest,
        f"makes the query string {total} characters long; at most {MAX_QUERY} are sent "
        "(servers refuse longer request lines): send fewer or shorter values",
    )


def check_json_body(value: Any, argument: str = "json") -> bytes | None:
    """Encode a JSON body, refusing what is not JSON (NaN, infinities, sets, objects…).

    Examples
    --------
    >>> check_json_body({"title": "T"})
    b'{"title": "T"}'
    """
    if value is None:
        return None
    problem = None
    try:
        encoded = json.dumps(value, allow_nan=False).encode()
        json.dumps(value, ensure_ascii=False).encode("utf-8")  # no lone surrogate
    except UnicodeEncodeError:
        problem = "must be valid Unicode: a string holds a lone surrogate (\\ud800-\\udfff)"
    except (TypeError, ValueError, RecursionError) as exc:
        problem = f"must be JSON (dicts, lists, str, finite numbers, bool, None): {exc}"
    if problem is not None:
        raise ValidationError(argument, problem)
    return encoded


def check_headers(
    value: Any, argument: str = "headers", *, reserved: Iterable[str] = ()
) -> dict[str, str]:
    """Check extra HTTP headers: token names, one-line Latin-1 values.

    Parameters
    ----------
    value : Any
        ``None`` or a mapping of header names to values.
    argument : str
        The argument's name, used in the error message.
    reserved : iterable of str
        Header names the caller may not set (the one carrying the credential).

    Returns
    -------
    dict
        A copy of the headers.

    Raises
    ------
    ValidationError
        A bad name, a value with a line break or control character, a value outside
        Latin-1, or a reserved name. Values are never repeated in the message.

    Examples
    --------
    >>> check_headers({"X-Trace": "1"})
    {'X-Trace': '1'}
    """
    problem = _headers_problem(value, reserved)
    if problem is not None:
        value = None  # refused headers may hold a credential: keep them out of this frame
        raise ValidationError(argument, problem)
    return dict(value or {})


def _headers_problem(value: Any, reserved: Iterable[str]) -> str | None:
    """What is wrong with ``value`` as extra headers, or None (never repeats a value)."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        return f"must be a dict, got {type(value).__name__}"
    blocked = {name.lower() for name in reserved}
    for name, item in value.items():
        if not isinstance(name, str) or not _HEADER_NAME.fullmatch(name):
            return f"{_show(name)} is not a valid header name"
        if name.lower() in blocked:
            return f"{name} carries the credential: pass it as the token or key argument instead"
        if not isinstance(item, str):
            return f"the value of {name} must be a str, got {type(item).__name__}"
        if any(ord(char) > 0xFF for char in item) or _HEADER_CONTROL.search(item):
            return (
                f"the value of {name} must be one line of Latin-1 text without control "
                "characters (the value is not shown)"
            )
    return None


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


def check_name(value: Any, argument: str, *, max_length: int, min_length: int = 1) -> str:
    """Check a title or name: ``min_length`` to ``max_length`` characters, some visible.

    Raises
    ------
    ValidationError
        As :func:`check_text`, and when nothing in it is visible (only spaces or
        zero-width characters).

    Examples
    --------
    >>> check_name("Auditors", "title", max_length=64)
    'Auditors'
    """
    check_text(value, argument, min_length=min_length, max_length=max_length)
    if not any(char.isprintable() and not char.isspace() for char in value):
        raise ValidationError(
            argument, f"must contain a visible character, not only spaces; got {_show(value)}"
        )
    return value


def check_space_title(value: Any, argument: str = "title") -> str:
    """Check a space title: at most 50 characters."""
    return check_text(value, argument, max_length=MAX_SPACE_TITLE)


def check_url(value: Any, argument: str) -> str:
    """Check an absolute http(s) URL with a host, at most 2048 characters.

    Raises
    ------
    ValidationError
        If it is not a string, or not an ``http://`` or ``https://`` URL with a host.

    Examples
    --------
    >>> check_url("https://example.com/a.png", "photo_url")
    'https://example.com/a.png'
    """
    check_text(value, argument, min_length=1, max_length=MAX_URL)
    parts, host = None, None
    try:
        parts = urlsplit(value)
        host = parts.hostname
    except ValueError:
        host = None
    if (
        parts is None
        or parts.scheme not in ("http", "https")
        or not host
        or any(c.isspace() for c in value)
    ):
        raise ValidationError(
            argument,
            f"must be an absolute http:// or https:// URL with a host, got {_show(value)}",
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
        raise ValidationError(argument, f"must be one of {', '.join(allowed)}; got {_show(value)}")
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
            argument,
            f"must be one of {', '.join(MEMBER_ROLES)} or None (guest); got {_show(value)}",
        )
    return value


def check_default_level(value: Any, argument: str = "default_level") -> str | None:
    """Check a ``DefaultLevel``: a member role, ``"inherit"``, or ``None`` (guest)."""
    if value is None:
        return None
    if not isinstance(value, str) or value not in DEFAULT_LEVELS:
        raise ValidationError(
            argument,
            f"must be one of {', '.join(DEFAULT_LEVELS)} or None (guest); got {_show(value)}",
        )
    return value


def check_search_query(value: Any, argument: str = "query") -> str:
    """Check a search query: not blank, at most 512 characters, no control characters.

    Examples
    --------
    >>> check_search_query("install guide")
    'install guide'
    """
    check_text(value, argument, max_length=MAX_SEARCH_QUERY)
    if not value.strip():
        raise ValidationError(argument, "must contain words to search for")
    return value


def check_limit(value: Any, argument: str = "limit", *, maximum: int = MAX_LIST_LIMIT) -> int:
    """Check a count of items: an int from 1 to ``maximum``.

    Raises
    ------
    ValidationError
        If ``value`` is not an int (``bool`` is refused) or is outside 1 … ``maximum``.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationError(argument, f"must be an int, got {type(value).__name__}")
    if not 1 <= value <= maximum:
        raise ValidationError(argument, f"must be between 1 and {maximum}, got {value}")
    return value


def check_bool(value: Any, argument: str) -> bool:
    """Check a flag: exactly ``True`` or ``False``."""
    if not isinstance(value, bool):
        raise ValidationError(argument, f"must be True or False, got {_show(value)}")
    return value


def check_mapping(value: Any, argument: str, *, non_empty: bool = False) -> dict[str, Any]:
    """Check a JSON object argument and return it as a ``dict``."""
    if not isinstance(value, Mapping):
        raise ValidationError(argument, f"must be a dict, got {type(value).__name__}")
    if not all(isinstance(key, str) for key in value):
        raise ValidationError(argument, "keys must be strings (it is sent as a JSON object)")
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


def check_moment(value: Any, argument: str) -> datetime:
    """A moment as an aware datetime in UTC: a datetime with a time zone, or ISO 8601 text
    with its offset.

    Raises
    ------
    ValidationError
        For another type, text that is no date-time, a moment without a time zone (it
        would mean another moment on another machine), or one out of range.

    Examples
    --------
    >>> check_moment("2025-01-31T13:00:00+01:00", "since").isoformat()
    '2025-01-31T12:00:00+00:00'
    """
    if isinstance(value, str):
        check_text(value, argument, min_length=1)
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            raise ValidationError(
                argument,
                f"must be an ISO 8601 date-time such as '2025-01-31T12:00:00Z', got {value!r}",
            ) from None
    elif isinstance(value, datetime):
        moment = value
    else:
        raise ValidationError(
            argument,
            "must be a datetime with a time zone or an ISO 8601 string, got "
            + type(value).__name__,
        )
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValidationError(
            argument,
            "has no time zone, so the moment it means depends on where the code runs: pass "
            "an aware datetime such as datetime(2025, 1, 31, tzinfo=UTC) or a string with an "
            "offset such as '2025-01-31T12:00:00Z'",
        )
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        raise ValidationError(
            argument,
            f"is out of range: {moment.isoformat()} is not a moment of years 1 to 9999 in UTC",
        ) from None
