"""docsapi's version, read from the installed distribution (``pyproject.toml`` states it, once)."""

from __future__ import annotations

from functools import cache

__all__ = ["version"]


@cache
def version() -> str:
    """The installed distribution's version, or ``"0+unknown"`` when docsapi is not installed.

    Examples
    --------
    >>> version() != ""
    True
    """
    import importlib.metadata as metadata  # on first use: ``import docsapi`` stays cheap

    try:
        return metadata.version("docsapi")
    except metadata.PackageNotFoundError:
        return "0+unknown"
