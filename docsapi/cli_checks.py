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


def probe_server(base_url: str) -> None:
    """Ask the server who the token belongs to, once, waiting at most :data:`PROBE_TIMEOUT`.

    Raises
    ------
    docsapi.errors.DocsAPIError
        The server cannot be reached, or refuses the token (as the client raises them).
    """
    from docsapi.client import DocsClient

    probe: DocsClient = DocsClient(base_url=base_url, timeout=PROBE_TIMEOUT, max_retries=0)
    probe.users.me()
