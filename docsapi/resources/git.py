"""Git synchronisation of a space: import, export, state."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from docsapi.core.checks import check_bool, check_entity_id, check_text, check_url
from docsapi.errors import ValidationError
from docsapi.models import GitSyncState
from docsapi.resources._base import ResourceGroup, api_path

__all__ = ["GIT_OPTIONS", "Git"]

#: Optional keyword arguments of import and export → the API's body fields.
GIT_OPTIONS: dict[str, str] = {
    "force": "force",
    "standalone": "standalone",
    "repo_project_directory": "repoProjectDirectory",
    "repo_tree_url": "repoTreeURL",
    "repo_commit_url": "repoCommitURL",
    "timestamp": "timestamp",
}


def _git_body(url: Any, ref: Any, options: dict[str, Any]) -> dict[str, Any]:
    """The common body of import and export, options mapped to the API's names."""
    unknown = sorted(set(options) - set(GIT_OPTIONS))
    if unknown:
        raise ValidationError(
            ", ".join(unknown), f"unknown option; accepted: {', '.join(GIT_OPTIONS)}"
        )
    body: dict[str, Any] = {
        "url": check_url(url, "url"),
        "ref": check_text(ref, "ref", min_length=1),
    }
    for name, value in options.items():
        if name in ("force", "standalone"):
            value = check_bool(value, name)
        elif name == "timestamp":
            if not isinstance(value, datetime):
                raise ValidationError(name, f"must be a datetime, got {type(value).__name__}")
            value = value.isoformat()
        elif name in ("repo_tree_url", "repo_commit_url"):
            value = check_url(value, name)
        else:
            value = check_text(value, name)
        body[GIT_OPTIONS[name]] = value
    return body


class Git(ResourceGroup):
    """Git sync of spaces: ``client.git``."""

    _name = "git"

    def import_repo(self, space_id: str, *, url: str, ref: str, **options: Any) -> None:
        """Queue an import of a Git repository into a space (it runs asynchronously).

        Unless ``standalone=True``, the space's content is updated to match the repository.

        Parameters
        ----------
        space_id : str
            The space's id.
        url : str
            The repository's http(s) URL.
        ref : str
            The Git ref to import, e.g. ``"refs/heads/main"``.
        **options
            ``force`` (bool), ``standalone`` (bool), ``repo_project_directory`` (str),
            ``repo_tree_url`` (str), ``repo_commit_url`` (str), ``timestamp`` (datetime).

        Raises
        ------
        ValidationError
            An unknown option, an option of the wrong type, a bad URL or an empty ref.
        NotFoundError
            No such space.

        Examples
        --------
        >>> client.git.import_repo(space_id, url="https://github.com/o/r", ref="refs/heads/main")
        >>> client.git.info(space_id).repo_name
        'o/r'
        """
        check_entity_id(space_id, "space_id")
        body = _git_body(url, ref, options)
        self._transport.request("POST", api_path("spaces", space_id, "git", "import"), json=body)

    def export_repo(
        self, space_id: str, *, url: str, ref: str, commit_message: str, **options: Any
    ) -> None:
        """Queue an export of a space to a Git repository (it runs asynchronously).

        Parameters
        ----------
        space_id : str
            The space's id.
        url : str
            The repository's http(s) URL.
        ref : str
            The Git ref to push to, e.g. ``"refs/heads/main"``.
        commit_message : str
            The message of the commit.
        **options
            As for :meth:`import_repo`.

        Raises
        ------
        ValidationError
            An unknown option, an option of the wrong type, a bad URL, or an empty ref
            or commit message.
        NotFoundError
            No such space.

        Examples
        --------
        >>> client.git.export_repo(git_space_id, url="https://github.com/o/r",
        ...                        ref="refs/heads/main", commit_message="Sync")
        >>> client.git.info(git_space_id).operation_state  # queued: it runs in the background
        'running'
        """
        check_entity_id(space_id, "space_id")
        body = _git_body(url, ref, options)
        body["commitMessage"] = check_text(
            commit_message, "commit_message", min_length=1, multiline=True
        )
        self._transport.request("POST", api_path("spaces", space_id, "git", "export"), json=body)

    def info(self, space_id: str) -> GitSyncState:
        """Return the Git sync state of a space.

        Parameters
        ----------
        space_id : str
            The space's id.

        Returns
        -------
        GitSyncState

        Raises
        ------
        NotFoundError
            No such space, or no Git provider is configured for it.

        Examples
        --------
        >>> client.git.info(git_space_id).installation_status
        'active'
        """
        check_entity_id(space_id, "space_id")
        return GitSyncState.from_api(self._get(api_path("spaces", space_id, "git", "info")))
