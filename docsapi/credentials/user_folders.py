"""The user's own folders for docsapi: configuration (the signing key) and state (journals).

``DOCSAPI_CONFIG_DIR`` and ``DOCSAPI_STATE_DIR`` name them outright (tests and shared
machines use them); otherwise they are the platform's per-user folders (``platformdirs``):
``$XDG_CONFIG_HOME/docsapi`` (else ``~/.config/docsapi``) and ``$XDG_STATE_HOME/docsapi``
(else ``~/.local/state/docsapi``) on Linux, ``~/Library/Application Support/docsapi`` on
macOS, ``%LOCALAPPDATA%\\docsapi`` on Windows. A folder is created readable by its owner
only.

Examples
--------
>>> import os
>>> os.environ["DOCSAPI_STATE_DIR"] = "state"
>>> state_folder().name
'state'
>>> del os.environ["DOCSAPI_STATE_DIR"]
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["CONFIG_DIR_VARIABLE", "STATE_DIR_VARIABLE", "config_folder", "state_folder"]

#: The environment variables that name the folders outright.
CONFIG_DIR_VARIABLE = "DOCSAPI_CONFIG_DIR"
STATE_DIR_VARIABLE = "DOCSAPI_STATE_DIR"
_APP = "docsapi"


def _folder(variable: str, default: str, create: bool) -> Path:
    named = os.environ.get(variable, "").strip()
    folder = Path(named).expanduser() if named else Path(default)
    if create:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return folder


def config_folder(*, create: bool = False) -> Path:
    """The user's configuration folder of docsapi (created, owner only, with ``create``)."""
    import platformdirs

    return _folder(CONFIG_DIR_VARIABLE, platformdirs.user_config_dir(_APP, appauthor=False), create)


def state_folder(*, create: bool = False) -> Path:
    """The user's state folder of docsapi (created, owner only, with ``create``)."""
    import platformdirs

    return _folder(STATE_DIR_VARIABLE, platformdirs.user_state_dir(_APP, appauthor=False), create)
