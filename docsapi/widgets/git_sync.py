"""GitSyncForm: import a space from a Git repository or export it, then follow the operation."""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from html import escape
from typing import Any

import ipywidgets as widgets

from docsapi.core.checks import check_entity_id, check_text, check_url
from docsapi.errors import NotFoundError, ValidationError
from docsapi.widgets._base import LABEL_STYLE, FieldForm, text_input

__all__ = ["FINISHED_STATES", "GitSyncForm"]

#: Operation states after which there is nothing more to wait for.
FINISHED_STATES: tuple[str, ...] = ("success", "failure", "timeout")
DIRECTIONS: tuple[str, ...] = ("import", "export")


class GitSyncForm(FieldForm):
    """Import a space's content from a Git repository, or export it, and follow the operation.

    Starting an operation says "queued", then polls ``client.git.info`` with a progress
    bar until the operation ends or ``timeout`` seconds pass. The polling runs in a
    background thread, so the kernel stays free; ``save(wait=True)`` (or :meth:`wait`)
    waits for it and returns the final state.

    Parameters
    ----------
    client : DocsClient
        The client to call (``client.git``).
    space_id : str
        The space to synchronise.
    timeout : float
        The longest time, in seconds, to follow an operation before giving up polling
        (the operation itself goes on at the server).
    interval : float
        Seconds between two polls.
    **kwargs
        Passed to ``ipywidgets.VBox``.

    Attributes
    ----------
    state_html : ipywidgets.HTML
        The space's Git provider and last operation.
    direction_toggle : ipywidgets.ToggleButtons
        ``"import"`` or ``"export"``.
    url_text, ref_text, commit_message_text : ipywidgets.Text
        The repository URL, the Git ref, and the commit message (export only); problems
        in ``url_error``, ``ref_error``, ``commit_message_error``.
    standalone_checkbox : ipywidgets.Checkbox
        Import without updating the space's content / export as a standalone repository.
    save_button : ipywidgets.Button
        Starts the operation ("Start import" / "Start export").
    progress_bar : ipywidgets.IntProgress
        Time spent following the operation, out of ``timeout``.
    progress_html : ipywidgets.HTML
        What the operation is doing.
    reload_button, status_output, heading_html
        As in every form; Reload reads the Git state again.
    state : GitSyncState or None
        The last state read.

    Notes
    -----
    ``.value`` holds the valid entries as keyword arguments of ``client.git.import_repo``
    or ``client.git.export_repo`` (chosen by ``direction_toggle``): ``url``, ``ref``,
    ``commit_message`` (export only) and ``standalone`` (only when ticked). Nothing is
    sent before the form has loaded the Git state (see :meth:`load`).

    Examples
    --------
    >>> from docsapi.widgets import GitSyncForm
    >>> form = GitSyncForm(client, git_space_id, timeout=30)
    >>> form.load().installation_status  # or display(form): it loads when shown
    'active'
    >>> form.url_text.value = "https://github.com/acme/docs"
    >>> form.save(wait=True).operation_state
    'success'
    """

    heading = "Git sync"
    not_done = "Not started"

    def __init__(
        self,
        client: Any,
        space_id: str,
        *,
        timeout: float = 60.0,
        interval: float = 0.5,
        **kwargs: Any,
    ) -> None:
        self.space_id = check_entity_id(space_id, "space_id")
        if timeout <= 0 or interval <= 0:
            raise ValidationError("timeout, interval", "must both be positive numbers of seconds")
        self.timeout = float(timeout)
        self.interval = float(interval)
        self.state: Any = None
        self._poller: threading.Thread | None = None
        super().__init__(client, **kwargs)

    def _build(self) -> None:
        self.state_html = widgets.HTML()
        self.direction_toggle = widgets.ToggleButtons(
            options=DIRECTIONS, description="Direction", style=LABEL_STYLE
        )
        self.url_text = text_input("Repository", placeholder="https://github.com/owner/repo")
        self.url_error = self._field(
            "url", self.url_text, to_api=str.strip, check=lambda url: check_url(url, "url")
        ).error
        self.ref_text = text_input("Ref", value="refs/heads/main")
        self.ref_error = self._field(
            "ref", self.ref_text, to_api=str.strip, check=lambda ref: _required(ref, "ref")
        ).error
        self.commit_message_text = text_input(
            "Commit msg", placeholder="the message of the export commit"
        )
        self.commit_message_error = self._field(
            "commit_message",
            self.commit_message_text,
            to_api=str.strip,
            check=lambda message: _required(message, "commit_message"),
            when=lambda: self.direction_toggle.value == "export",
        ).error
        self.standalone_checkbox = widgets.Checkbox(
            value=False, description="Standalone", style=LABEL_STYLE
        )
        self._field(
            "standalone", self.standalone_checkbox, when=lambda: self.standalone_checkbox.value
        )
        self.save_button.description = "Start import"
        self.save_button.icon = "play"
        self.progress_bar = widgets.IntProgress(
            value=0, min=0, max=100, layout=widgets.Layout(visibility="hidden")
        )
        self.progress_html = widgets.HTML()

    def _wire(self) -> None:
        self.direction_toggle.observe(self._on_direction, names="value")
        self._on_direction({"new": self.direction_toggle.value})

    def _rows(self) -> tuple[widgets.Widget, ...]:
        return (
            self.state_html,
            self.direction_toggle,
            *super()._rows(),
            widgets.HBox([self.progress_bar, self.progress_html]),
        )

    def _on_direction(self, change: dict[str, Any]) -> None:
        exporting = change["new"] == "export"
        self.commit_message_text.layout.display = "" if exporting else "none"
        self.commit_message_error.layout.display = "" if exporting else "none"
        self.save_button.description = f"Start {change['new']}"
        self._refresh()

    # -- state ----------------------------------------------------------------------------------
    def _fetch(self) -> Any:
        try:
            return self.client.git.info(self.space_id)
        except NotFoundError:
            return None  # no Git provider yet

    def _show_loaded(self, state: Any) -> str:
        if state is None:
            self.state = None
            self.state_html.value = (
                "No Git provider is configured for this space yet: an import or an export "
                "sets one up."
            )
            return "Ready."
        self._show_state(state)
        if state.url and not self.url_text.value:
            with self._showing_values():
                self.url_text.value = state.url
        return "Loaded the Git state."

    def _show_state(self, state: Any) -> None:
        self.state = state
        parts = [
            f"Provider: {state.installation_provider or 'unknown'}",
            f"status: {state.installation_status or 'unknown'}",
        ]
        if state.repo_name or state.url:
            parts.append(f"repository: {state.repo_name or state.url}")
        if state.operation_state:
            parts.append(
                f"last {state.operation_direction or 'operation'}: {state.operation_state}"
            )
        self.state_html.value = escape(", ".join(parts))

    @property
    def running(self) -> bool:
        """Whether a background thread is following an operation."""
        poller = self._poller
        # The thread itself, about to end, no longer counts as following.
        return poller is not None and poller.is_alive() and poller is not threading.current_thread()

    # -- the operation --------------------------------------------------------------------------
    def _blocked(self, pending: dict[str, Any]) -> str | None:
        if not self.loaded:
            return "Nothing to start: the Git state is not loaded (press Reload)."
        if self.running:
            return "An operation is already being followed; wait for it to end."
        return None

    def _doing(self) -> str:
        return f"Starting the {self.direction_toggle.value}"

    def _submit(self, values: dict[str, Any]) -> Any:
        git = self.client.git
        send = git.export_repo if self.direction_toggle.value == "export" else git.import_repo
        return send(self.space_id, **values)

    def _submitted(self, values: dict[str, Any], result: Any) -> Any:
        direction = self.direction_toggle.value
        self._report(f"{direction.capitalize()} queued.")
        self._progress(0, f"{direction} queued…", "info")
        previous = self.state.operation_started_at if self.state is not None else None
        poll = functools.partial(self._poll, direction, previous, time.monotonic())
        if not poll():
            self._poller = threading.Thread(
                target=self._keep_polling, args=(poll,), name="docsapi-git-poll", daemon=True
            )
            self._poller.start()
        self._refresh()
        return self.state

    def save(self, *, wait: bool = False, raise_errors: bool = False) -> Any:
        """Queue the import or export and follow it; what the Start button does.

        Parameters
        ----------
        wait : bool
            Wait until the operation ends (or ``timeout`` passes) and return its final
            state. Otherwise a background thread goes on following it (see :meth:`wait`).
        raise_errors : bool
            Raise a :class:`~docsapi.errors.ValidationError` for an invalid field, or the
            API's error, after showing it in the form.

        Returns
        -------
        GitSyncState or None
            The last state read: with ``wait``, its ``operation_state`` says how the
            operation ended (still ``"running"`` if ``timeout`` passed first); without,
            it is the state right after queuing while a background thread goes on
            polling. ``None`` when nothing was sent or the API refused.

        Examples
        --------
        >>> form = GitSyncForm(client, git_space_id, timeout=30)
        >>> form.load().installation_status
        'active'
        >>> form.url_text.value = "https://github.com/acme/docs"
        >>> form.save_button.click()  # follows in a background thread
        >>> form.wait(timeout=30).operation_state
        'success'
        """
        state = super().save(raise_errors=raise_errors)
        return self.wait() if wait and state is not None else state

    def wait(self, timeout: float | None = None) -> Any:
        """Wait for the background polling to end; return the last state read.

        Parameters
        ----------
        timeout : float, optional
            Seconds to wait at most; by default as long as the polling lasts (itself
            bounded by the form's ``timeout``).

        Examples
        --------
        >>> form = GitSyncForm(client, git_space_id, timeout=30)
        >>> form.load().installation_status
        'active'
        >>> form.url_text.value = "https://github.com/acme/docs"
        >>> form.save().operation_state  # queued, followed in a background thread
        'running'
        >>> form.wait(10).operation_state
        'success'
        """
        if self._poller is not None:
            self._poller.join(timeout)
        return self.state

    def _keep_polling(self, poll: Callable[[], bool]) -> None:
        """The background thread: poll every ``interval`` seconds until ``poll`` says done."""
        while True:
            time.sleep(self.interval)
            if poll():
                break
        self._refresh()

    def _poll(self, direction: str, previous: Any, started: float) -> bool:
        """Read the Git state once and show it; True once there is nothing more to wait for.

        The operation is ours once its start time differs from ``previous`` (the start of
        the operation known before queuing); polling ends when it has finished, when the
        state cannot be read, or when ``timeout`` seconds have passed since ``started``.
        """
        ok, state = self._run(
            lambda: self.client.git.info(self.space_id),
            doing=f"Following the {direction}",
            foreground=False,
        )
        if not ok or state is None:
            self._progress(100, "could not follow the operation", "danger")
            return True
        elapsed = time.monotonic() - started
        self._show_state(state)
        ours = state.operation_started_at is not None and state.operation_started_at != previous
        if ours and state.operation_state in FINISHED_STATES:
            self._finish(direction, state)
            return True
        if elapsed >= self.timeout:
            self._progress(100, f"still running after {elapsed:.0f} s", "warning")
            self._report(
                f"The {direction} is still running after {self.timeout:g} s; "
                "polling stopped. Press Reload later to see how it ended.",
                "info",
            )
            return True
        label = state.operation_state if ours else "queued"
        self._progress(int(100 * elapsed / self.timeout), f"{direction} {label}…", "info")
        return False

    def _finish(self, direction: str, state: Any) -> None:
        outcome = state.operation_state
        if outcome == "success":
            self._progress(100, f"{direction} finished", "success")
            self._report(f"The {direction} finished successfully.", "success", details=state)
            return
        reason = f": {state.operation_error.rstrip('.')}" if state.operation_error else ""
        self._progress(100, f"{direction} ended: {outcome}", "danger")
        self._report(f"The {direction} ended with {outcome}{reason}.", "error", details=state)

    def _progress(self, percent: int, text: str, style: str) -> None:
        self.progress_bar.layout.visibility = "visible"
        self.progress_bar.value = max(0, min(100, percent))
        self.progress_bar.bar_style = style
        self.progress_html.value = escape(text)


def _required(text: str, argument: str) -> str:
    return check_text(text, argument, min_length=1)
