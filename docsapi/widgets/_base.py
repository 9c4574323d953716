"""What every form shares: a heading, a status output, field error labels, API error handling.

:class:`FormBase` is an ``ipywidgets.VBox`` that runs API calls through :meth:`FormBase._attempt`,
so an API error lands in the form's ``status_output`` (and in ``.status`` and ``.error``)
instead of escaping from a button's click handler. :class:`EditForm` adds the load → edit →
validate → save cycle of the forms that edit one resource and send only the changed fields.

Status lines and results are written with ``Output.append_stdout`` /
``Output.append_display_data``, which work with or without a running kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import Any, ClassVar, TypeVar

import ipywidgets as widgets

from docsapi.errors import APIStatusError, DocsAPIError, ValidationError

__all__ = [
    "GUEST",
    "LABEL_STYLE",
    "EditForm",
    "FormBase",
    "StatusMessage",
    "clean",
    "coloured",
    "describe_error",
    "error_label",
    "field_problem",
    "role_label",
    "role_value",
    "set_error",
]

#: How the guest role (``None`` in the API) is shown in role pickers.
GUEST = "guest"

_LEVEL_COLOURS = {"info": "#333333", "success": "#1b5e20", "error": "#b00020"}

_MAX_MESSAGES = 100

#: Room for the field labels, so that "Default level" is not cut short.
LABEL_STYLE = {"description_width": "110px"}

T = TypeVar("T")


class StatusMessage:
    """One status line: plain text for text front ends, coloured HTML in a notebook.

    Parameters
    ----------
    text : str
        The message.
    level : {"info", "success", "error"}
        Picks the colour.

    Examples
    --------
    >>> StatusMessage("Saved title.", "success")
    Saved title.
    """

    def __init__(self, text: str, level: str = "info") -> None:
        self.text = text
        self.level = level

    def __repr__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        return coloured(self.text, self.level)


def coloured(text: str, level: str = "info") -> str:
    """``text``, HTML-escaped, in the colour of ``level`` ("info", "success" or "error").

    Examples
    --------
    >>> coloured("removed", "success")
    '<span style="color: #1b5e20">removed</span>'
    """
    colour = _LEVEL_COLOURS.get(level, _LEVEL_COLOURS["info"])
    return f'<span style="color: {colour}">{escape(text)}</span>'


def describe_error(exc: DocsAPIError) -> str:
    """Say what went wrong in one line: the HTTP status and the API's message when there is one.

    Examples
    --------
    >>> from docsapi.errors import ConflictError
    >>> describe_error(ConflictError(409, "Nothing would change."))
    '409 ConflictError: Nothing would change.'
    """
    if isinstance(exc, APIStatusError):
        return f"{exc.status} {type(exc).__name__}: {exc.message}"
    return f"{type(exc).__name__}: {exc}"


def field_problem(exc: ValidationError) -> str:
    """The rule a field broke, without the argument name the message starts with.

    Examples
    --------
    >>> field_problem(ValidationError("title", "must have at most 50 characters, got 51"))
    'must have at most 50 characters, got 51'
    """
    return str(exc).removeprefix(f"{exc.argument}: ")


def error_label() -> widgets.HTML:
    """An empty HTML label that shows a field's problem, in red, under the field."""
    return widgets.HTML(value="", layout=widgets.Layout(margin="0 0 4px 0"))


def set_error(label: widgets.HTML, message: str) -> None:
    """Show ``message`` in a field's error label, or clear it when ``message`` is empty."""
    label.value = coloured(message, "error") if message else ""


def clean(value: Any) -> Any:
    """Turn a DataFrame cell's missing value (``<NA>``, ``NaN``, ``NaT``) into ``None``.

    Examples
    --------
    >>> clean(float("nan")) is None, clean("edit")
    (True, 'edit')
    """
    if value is None or isinstance(value, str):
        return value
    import pandas as pd

    return None if pd.api.types.is_scalar(value) and pd.isna(value) else value


def role_label(role: str | None) -> str:
    """The role as a picker shows it: the API's string, or ``"guest"`` for ``None``."""
    return GUEST if role is None else role


def role_value(label: str) -> str | None:
    """The role to send for a picker's label: ``None`` for ``"guest"``."""
    return None if label == GUEST else label


class FormBase(widgets.VBox):
    """Base of every form: a heading, the form's own children, then a status output.

    Subclasses create their widgets in :meth:`_build` (children named ``<role>_<kind>``)
    and connect them in :meth:`_wire`; :meth:`_rows` lists what goes between the heading
    and the status output.

    Parameters
    ----------
    client : DocsClient
        The client the form calls.
    **kwargs
        Passed to ``ipywidgets.VBox`` (``layout=...``).

    Attributes
    ----------
    heading_html : ipywidgets.HTML
        The form's title.
    status_output : ipywidgets.Output
        Status lines and results.
    status : str
        The last status line, as plain text.
    messages : list of str
        Every status line since the form was built, oldest first (the last 100).
    error : DocsAPIError or None
        The error of the last API call, ``None`` when it succeeded.
    """

    #: The heading shown at the top of the form.
    heading: ClassVar[str] = ""

    def __init__(self, client: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.client = client
        self.status = ""
        self.messages: list[str] = []
        self.error: DocsAPIError | None = None
        self.heading_html = widgets.HTML(value=f"<h3>{escape(self.heading)}</h3>")
        self.status_output = widgets.Output(layout=widgets.Layout(margin="8px 0 0 0"))
        self._build()
        self._wire()
        self.children = (self.heading_html, *self._rows(), self.status_output)

    def _build(self) -> None:
        raise NotImplementedError

    def _wire(self) -> None:
        raise NotImplementedError

    def _rows(self) -> tuple[widgets.Widget, ...]:
        raise NotImplementedError

    def _report(self, message: str, level: str = "info", *, details: Any = None) -> None:
        """Replace the status output with ``message`` (and ``details``, displayed richly)."""
        self.status = message
        self.messages = [*self.messages[-(_MAX_MESSAGES - 1) :], message]
        self.status_output.outputs = ()
        self.status_output.append_display_data(StatusMessage(message, level))
        if details is not None:
            self.status_output.append_display_data(details)

    def _attempt(
        self, action: Callable[[], T], *, doing: str, raise_errors: bool
    ) -> tuple[bool, T | None]:
        """Run one API call: ``(True, result)``, or ``(False, None)`` after reporting the error.

        With ``raise_errors`` the error is reported and then raised again.
        """
        self.error = None
        try:
            return True, action()
        except DocsAPIError as exc:
            self.error = exc
            self._report(*self._failure(exc, doing))
            if raise_errors:
                raise
            return False, None

    def _failure(self, exc: DocsAPIError, doing: str) -> tuple[str, str]:
        """The status line and its level for an API error (forms may explain some better)."""
        return f"{doing} failed: {describe_error(exc)}", "error"


class EditForm(FormBase):
    """A form over one resource: shows its values, validates edits, sends only the changes.

    Subclasses implement :meth:`_fetch` (read the resource), :meth:`_values_of` (the
    resource's editable values, keyed like the client method's keyword arguments),
    :meth:`_show` (put those values in the widgets), :meth:`_read` (the widgets' values
    and the problems found, keyed the same way; a problem for ``name`` is shown in the
    ``<name>_error`` label) and :meth:`_submit` (call the client with the changes).

    Attributes
    ----------
    save_button, reload_button : ipywidgets.Button
        Save sends the pending edits; Reload reads the resource again, dropping them.
    resource : object or None
        The resource as last read or saved (``None`` until it loads).
    """

    #: The fields whose problems have an ``<name>_error`` label.
    fields: ClassVar[tuple[str, ...]] = ()

    def __init__(self, client: Any, **kwargs: Any) -> None:
        self.resource: Any = None
        self._loaded: dict[str, Any] = {}
        self._showing = False
        self.save_button = widgets.Button(
            description="Save", button_style="primary", icon="check", disabled=True
        )
        self.save_button.add_class("docsapi-save")
        self.reload_button = widgets.Button(description="Reload", icon="refresh")
        super().__init__(client, **kwargs)
        self.save_button.on_click(lambda _button: self.save())
        self.reload_button.on_click(lambda _button: self.load())
        self.load()

    # -- to implement -------------------------------------------------------------------
    def _fetch(self) -> Any:
        raise NotImplementedError

    def _values_of(self, resource: Any) -> dict[str, Any]:
        raise NotImplementedError

    def _show(self, values: dict[str, Any]) -> None:
        raise NotImplementedError

    def _read(self) -> tuple[dict[str, Any], dict[str, str]]:
        raise NotImplementedError

    def _submit(self, changes: dict[str, Any]) -> Any:
        raise NotImplementedError

    # -- shared behaviour ---------------------------------------------------------------
    def _save_row(self) -> widgets.HBox:
        return widgets.HBox([self.save_button, self.reload_button])

    def _watch(self, *watched: widgets.Widget) -> None:
        """Re-validate whenever one of ``watched`` changes value."""
        for widget in watched:
            widget.observe(self._refresh, names="value")

    def _changes(self, values: dict[str, Any]) -> dict[str, Any]:
        """The values that differ from the loaded ones (subclasses may reshape them)."""
        return {name: value for name, value in values.items() if value != self._loaded.get(name)}

    def _pending(self) -> tuple[dict[str, Any], dict[str, str]]:
        values, problems = self._read()
        if self.resource is None:
            return {}, problems
        valid = {name: value for name, value in values.items() if name not in problems}
        return self._changes(valid), problems

    @property
    def value(self) -> dict[str, Any]:
        """The pending edits: the valid fields that differ from the loaded values.

        Keys and values are the keyword arguments the client method receives.
        """
        return self._pending()[0]

    @property
    def errors(self) -> dict[str, str]:
        """The problems of the current entries: field name → the rule it breaks."""
        return self._read()[1]

    def _refresh(self, _change: Any = None) -> None:
        """Show each field's problem under it; Save is enabled only for valid, pending edits."""
        if self._showing:
            return
        changes, problems = self._pending()
        for name in self.fields:
            set_error(getattr(self, f"{name}_error"), problems.get(name, ""))
        self.save_button.disabled = bool(problems) or not changes

    def load(self, *, raise_errors: bool = False) -> Any:
        """Read the resource again and show its current values, dropping unsaved edits.

        Parameters
        ----------
        raise_errors : bool
            Raise an API error after showing it, instead of only showing it.

        Returns
        -------
        object or None
            The resource, or ``None`` if it could not be read (the error is in ``.status``).

        Examples
        --------
        >>> form.load()  # doctest: +SKIP
        >>> form.value  # doctest: +SKIP
        {}
        """
        ok, resource = self._attempt(self._fetch, doing="Loading", raise_errors=raise_errors)
        if not ok:
            self._refresh()
            return None
        self._remember(resource)
        self._report("Loaded the current values.")
        return resource

    def _remember(self, resource: Any) -> None:
        self.resource = resource
        self._loaded = self._values_of(resource)
        self._showing = True
        try:
            self._show(self._loaded)
        finally:
            self._showing = False
        self._refresh()

    def save(self, *, raise_errors: bool = False) -> Any:
        """Validate the entries and send the changed fields; what the Save button does.

        Parameters
        ----------
        raise_errors : bool
            After showing a problem in the form, raise it too: a
            :class:`~docsapi.errors.ValidationError` for an invalid field, the API's
            :class:`~docsapi.errors.DocsAPIError` for a refused request. By default
            problems are only shown (``.status``, ``.error``, the error labels).

        Returns
        -------
        object or None
            The updated resource as the API returned it; ``None`` when nothing was sent
            (invalid entries, nothing changed) or the API refused the change.

        Examples
        --------
        >>> form.title_text.value = "Handbook"  # doctest: +SKIP
        >>> form.save().title  # doctest: +SKIP
        'Handbook'
        >>> form.save()  # nothing changed since  # doctest: +SKIP
        >>> form.status  # doctest: +SKIP
        'Nothing to save: no field was changed.'
        """
        changes, problems = self._pending()
        self._refresh()
        if problems:
            listed = "; ".join(f"{name} {problem}" for name, problem in problems.items())
            self._report(f"Not saved: fix the marked fields ({listed}).", "error")
            if raise_errors:
                name, problem = next(iter(problems.items()))
                raise ValidationError(name, problem)
            return None
        if self.resource is None or not changes:
            what = "nothing is loaded" if self.resource is None else "no field was changed"
            self._report(f"Nothing to save: {what}.")
            return None
        ok, result = self._attempt(
            lambda: self._submit(changes), doing="Saving", raise_errors=raise_errors
        )
        if not ok:
            return None
        self._remember(result)
        self._report(self._saved(changes), "success", details=result)
        return result

    def _saved(self, changes: dict[str, Any]) -> str:
        """The status line after a successful save."""
        return f"Saved {', '.join(changes)}."
