"""What the ``docsapi`` command checks before its first request, so a mistake costs no crawl.

Each check raises :class:`~docsapi.errors.ValidationError` naming the option and saying
what to do: files the command will write (their folder exists and takes a new file, the
path is not a folder), folders it will fill, and the API token. The server itself is asked
once, with a short timeout and no retry, by :func:`probe_server`.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from docsapi.errors import ValidationError

if TYPE_CHECKING:
    from docsapi.client import DocsClient

__all__ = [
    "PROBE_TIMEOUT",
    "QUOTED_ANSWER",
    "check_output_file",
    "check_output_folder",
    "probe_server",
    "require_token",
]

#: Seconds the server has to answer the first request before the crawl.
PROBE_TIMEOUT = 5.0


def _check_writable_folder(folder: Path, option: str) -> None:
    """Check that ``folder`` exists and takes a new file (tried, then removed at once)."""
    if not folder.is_dir():
        raise ValidationError(
            option, f"the folder {str(folder)!r} does not exist: create it, or choose another"
        )
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError:
        raise ValidationError(
            option, f"cannot create a file in {str(folder)!r}: choose a folder you can write to"
        ) from None


def check_output_file(value: str, option: str) -> Path:
    """Check a file the command will write: not a folder, in a folder that takes a new file.

    Parameters
    ----------
    value : str
        The path as given on the command line.
    option : str
        The option's name, e.g. ``"--out"``, used in the message.

    Returns
    -------
    Path
        The path, ``~`` expanded.

    Raises
    ------
    ValidationError
        The path names a folder, its folder does not exist, or no file can be created there.

    Examples
    --------
    >>> check_output_file("/", "--out")
    Traceback (most recent call last):
    ...
    docsapi.errors.ValidationError: --out: '/' is a folder: name a file in it
    """
    path = Path(value).expanduser()
    if path.is_dir():
        raise ValidationError(option, f"{value!r} is a folder: name a file in it")
    _check_writable_folder(path.parent, option)
    return path


def check_output_folder(value: str, option: str) -> Path:
    """Check a folder the command will fill: a folder, or a new one in a folder that exists.

    Raises
    ------
    ValidationError
        The path names a file, neither it nor its parent exists, or nothing can be written.

    Examples
    --------
    >>> check_output_folder("/nonexistent/deeper", "--csv")
    Traceback (most recent call last):
    ...
    docsapi.errors.ValidationError: --csv: the folder '/nonexistent' does not exist: ...
    """
    path = Path(value).expanduser()
    if path.exists() and not path.is_dir():
        raise ValidationError(option, f"{value!r} is a file: name a folder")
    _check_writable_folder(path if path.is_dir() else path.parent, option)
    return path


def require_token(base_url: str, variable: str) -> None:
    """Check that an API token is at hand for ``base_url`` (argument, variable or keyring).

    Raises
    ------
    ValidationError
        No token found (with what to run), or the one found cannot be a token.
    """
    from docsapi.client import find_token

    if find_token(base_url=base_url) is None:
        raise ValidationError(
            "API token",
            f"none found for {base_url}: run `docsapi login`, or export {variable}=<token>",
        )


#: The longest part of a server's answer quoted when the address is not the API's.
QUOTED_ANSWER = 48


def probe_server(base_url: str, option: str = "--base-url") -> None:
    """Ask the server who the token belongs to, once, waiting at most :data:`PROBE_TIMEOUT`.

    ``GET /user`` is an operation of the API at any address of it: a server that answers it
    with "no such page" (404, 405) or with something other than the API's JSON answers, but
    is not the API, whatever it says about the organization later.

    Raises
    ------
    ValidationError
        The address answers but is not the API: the message names ``option``, what the
        server answered (its start, on one line) and what to do.
    docsapi.errors.DocsAPIError
        The server cannot be reached, or refuses the token (as the client raises them).
    """
    from docsapi.client import DocsClient
    from docsapi.errors import APIStatusError, ResponseFormatError

    probe: DocsClient = DocsClient(base_url=base_url, timeout=PROBE_TIMEOUT, max_retries=0)
    try:
        probe.users.me()
    except APIStatusError as exc:
        if exc.status not in (404, 405):
            raise
        said = _server_text(exc.body) or exc.message
        raise ValidationError(option, _not_the_api(base_url, f"{exc.status} {said}")) from None
    except ResponseFormatError as exc:
        said = str(exc).removeprefix("GET /user: ")
        raise ValidationError(option, _not_the_api(base_url, said)) from None


def _server_text(body: object) -> str | None:
    """The server's own words in an error body (``{"error": {"message": ...}}``), if any."""
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else error
    return message if isinstance(message, str) and message.strip() else None


def _not_the_api(base_url: str, answer: str) -> str:
    """What to say of an address that answers but is not the API's."""
    said = " ".join(answer.split())
    said = said if len(said) <= QUOTED_ANSWER else said[: QUOTED_ANSWER - 3] + "..."
    shown = base_url if len(base_url) <= QUOTED_ANSWER else base_url[: QUOTED_ANSWER - 3] + "..."
    return f"{shown} answers but is not the API (GET /user: {said!r}); give the API's address"
