"""What every form shares: loading when shown, running actions, status lines, declared fields.

:class:`FormBase` is an ``ipywidgets.VBox`` with a heading, a Reload button and a status
output. It sends nothing when it is built: it loads the first time it is displayed, or when
:meth:`FormBase.load` is called (or Reload pressed). Every API call goes through
:meth:`FormBase._run`, which shows what is going on ("Loading…"), disables the form's buttons
meanwhile, and turns an API error into a status line (also ``.status`` and ``.error``) instead of
letting it escape from a click handler. Panels of actions (duplicate, delete, invite…) subclass
it directly.

:class:`FieldForm` adds :class:`Field` records (an input, its check, its error label, the
client's name for the value) and a Save button that sends the valid values; :class:`EditForm`
is a field form over one resource that sends only the fields that differ from the loaded ones.

Status lines and results are written with ``Output.append_stdout`` /
``Output.append_display_data``, which work with or without a running kernel.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from html import escape
from typing import Any, ClassVar, TypeVar

import ipywidgets as widgets

from docsapi.core.checks import MEMBER_ROLES
from docsapi.errors import APIStatusError, DocsAPIError, ValidationError

__all__ = [
    "GUEST",
    "LABEL_STYLE",
    "NOT_LOADED",
    "ROLE_CHOICES",
    "ConfirmStep",
    "EditForm",
    "Field",
    "FieldForm",
    "FormBase",
    "StatusMessage",
    "clean",
    "coloured",
    "describe_error",
    "error_label",
    "field_problem",
    "person_label",
    "role_label",
    "role_value",
    "set_error",
    "text_input",
]

#: How the guest role (``None`` in the API) is shown in role pickers.
GUEST = "guest"

#: A role picker's choices, strongest first; ``"guest"`` stands for ``None``.
ROLE_CHOICES: tuple[str, ...] = (*MEMBER_ROLES, GUEST)

#: The status of a form that has not loaded yet.
NOT_LOADED = "Not loaded yet: the form loads when it is displayed (or press Reload)."

_LEVEL_COLOURS = {
    "info": "#333333",
    "success": "#1b5e20",
    "warning": "#8a4b00",
    "error": "#b00020",
}

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
    level : {"info", "success", "warning", "error"}
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
    """``text``, HTML-escaped, in the colour of ``level`` ("info", "success", "warning" or
    "error").

    Examples
    --------
    >>> coloured("removed", "success")
    '<span style="color: #1b5e20">removed</span>'
    """
    colour = _LEVEL_COLOURS.get(level, _LEVEL_COLOURS["info"])
    return f'<span style="color: {colour}">{escape(text)}</span>'


def describe_error(exc: DocsAPIError) -> str:
    """Say what went wrong in one line: the HTTP status and the API's message when there is one.

    An error raised before anything was sent (no HTTP status, e.g. no token found) is
    described by its own message alone.

    Examples
    --------
    >>> from docsapi.errors import ConflictError, MissingCredentialError
    >>> describe_error(ConflictError(409, "Nothing would change."))
    '409 ConflictError: Nothing would change.'
    >>> describe_error(MissingCredentialError("No API token found.", method="GET", path="/user"))
    'No API token found. Nothing was sent (GET /user).'
    """
    if isinstance(exc, APIStatusError):
        if exc.status is None:
            return str(exc)
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


def text_input(description: str, **options: Any) -> widgets.Text:
    """A labelled text box as wide as the form's others, with a layout of its own.

    Each box needs its own ``Layout``: hiding one that shares it would hide them all.

    Examples
    --------
    >>> text_input("Title", placeholder="at most 50 characters").layout.width
    '420px'
    """
    return widgets.Text(
        description=description,
        style=LABEL_STYLE,
        layout=widgets.Layout(width="420px"),
        **options,
    )


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


def person_label(row: Any) -> str:
    """A user as a list shows them: ``"Name <email>"`` from a row with ``user_id``,
    ``display_name`` and ``email`` (the id stands in for a missing name).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> person_label(SimpleNamespace(user_id="u1", display_name="Ada", email="ada@x.example"))
    'Ada <ada@x.example>'
    """
    name = clean(row.display_name) or row.user_id
    email = clean(row.email)
    return f"{name} <{email}>" if email else name


def role_label(role: str | None) -> str:
    """The role as a picker shows it: the API's string, or ``"guest"`` for ``None``."""
    return GUEST if role is None else role


def role_value(label: str) -> str | None:
    """The role to send for a picker's label: ``None`` for ``"guest"``."""
    return None if label == GUEST else label


class ConfirmStep:
    """A Confirm and a Cancel button, hidden until an irreversible action is asked for.

    The form's first button (e.g. "Remove…") calls :meth:`arm`, which shows the two; only
    Confirm runs the action. Lay out :attr:`buttons` next to the first button.

    Parameters
    ----------
    confirm_label : str
        What the Confirm button says, e.g. ``"Confirm removal"``.
    on_confirm, on_cancel : callable
        What Confirm and Cancel do (called without arguments).
    icon : str
        The Confirm button's icon (a Font Awesome name).

    Attributes
    ----------
    confirm_button, cancel_button : ipywidgets.Button
    armed : bool
        Whether the buttons are shown, waiting for Confirm.

    Examples
    --------
    >>> step = ConfirmStep("Confirm removal", on_confirm=print, on_cancel=print)
    >>> step.arm(); step.armed, step.confirm_button.layout.display
    (True, '')
    >>> step.disarm(); step.armed, step.confirm_button.layout.display
    (False, 'none')
    """

    def __init__(
        self,
        confirm_label: str,
        *,
        on_confirm: Callable[[], Any],
        on_cancel: Callable[[], Any],
        icon: str = "trash",
    ) -> None:
        self.armed = False
        self.confirm_button = widgets.Button(
            description=confirm_label,
            icon=icon,
            button_style="danger",
            layout=widgets.Layout(display="none"),
        )
        self.cancel_button = widgets.Button(
            description="Cancel", layout=widgets.Layout(display="none")
        )
        self.confirm_button.on_click(lambda _button: on_confirm())
        self.cancel_button.on_click(lambda _button: on_cancel())

    @property
    def buttons(self) -> tuple[widgets.Button, widgets.Button]:
        """Confirm and Cancel, to lay out."""
        return self.confirm_button, self.cancel_button

    def arm(self) -> None:
        """Show Confirm and Cancel."""
        self._shown(True)

    def disarm(self) -> None:
        """Hide Confirm and Cancel."""
        self._shown(False)

    def _shown(self, armed: bool) -> None:
        self.armed = armed
        for button in self.buttons:
            button.layout.display = "" if armed else "none"


def _same(value: Any) -> Any:
    return value


class Field:
    """One value a form sends: the widgets it is entered in, its rule, its error label.

    Parameters
    ----------
    name : str
        The keyword argument of the client method the value is sent as.
    *inputs : ipywidgets.Widget
        The widgets the value is entered in, laid out in this order; a change to any of them
        checks the form again.
    check : callable, optional
        Takes the value read and returns it as it is sent, or raises
        :class:`~docsapi.errors.ValidationError` naming the rule it breaks. Only a field
        with a check has an error label.
    to_api, to_widget : callable, optional
        Convert the first input's ``value`` to the value sent, and back (for example the
        role picker's ``"guest"`` and the API's ``None``).
    read, show : callable, optional
        For a value entered in several widgets: read it from them, put it into them. They
        replace ``to_api`` and ``to_widget``.
    when : callable, optional
        Whether the field is sent at all just now (for example only for an export).

    Attributes
    ----------
    error : ipywidgets.HTML
        Shows the field's problem in red once the field was edited or a save was tried
        (laid out only for a field with a check).
    touched : bool
        Whether the field was edited since its value was last shown.

    Examples
    --------
    >>> from docsapi.core.checks import check_space_title
    >>> title = Field("title", widgets.Text(value="Handbook"), check=check_space_title)
    >>> title.parse()
    'Handbook'
    """

    def __init__(
        self,
        name: str,
        *inputs: widgets.Widget,
        check: Callable[[Any], Any] | None = None,
        to_api: Callable[[Any], Any] | None = None,
        to_widget: Callable[[Any], Any] | None = None,
        read: Callable[[], Any] | None = None,
        show: Callable[[Any], None] | None = None,
        when: Callable[[], bool] | None = None,
    ) -> None:
        self.name = name
        self.inputs = inputs
        self.check = check
        self._to_api = to_api or _same
        self._to_widget = to_widget or _same
        self._read = read
        self._show = show
        self.when = when
        self.error = error_label()
        self.touched = False

    @property
    def active(self) -> bool:
        """Whether the field takes part in the form's value now."""
        return self.when is None or self.when()

    def parse(self) -> Any:
        """The value to send, or :class:`~docsapi.errors.ValidationError` if it breaks the rule."""
        value = self._read() if self._read is not None else self._to_api(self.inputs[0].value)
        return value if self.check is None else self.check(value)

    def show(self, value: Any) -> None:
        """Put ``value`` into the widgets."""
        if self._show is not None:
            self._show(value)
        else:
            self.inputs[0].value = self._to_widget(value)

    def problem(self, exc: ValidationError) -> str:
        """The problem as shown under the field (the field's own name is not repeated)."""
        return field_problem(exc) if exc.argument == self.name else str(exc)

    def laid_out(self) -> tuple[widgets.Widget, ...]:
        """The inputs, then the error label if there is one."""
        return (*self.inputs, self.error) if self.check is not None else self.inputs


class FormBase(widgets.VBox):
    """Base of every form and panel: heading, rows, Reload, status; loads when first shown.

    Subclasses create their widgets in :meth:`_build` (children named ``<role>_<kind>``),
    connect them in :meth:`_wire`, list what goes between the heading and the status output
    in :meth:`_rows`, read what they show in :meth:`_fetch` and show it in :meth:`_show_loaded`.
    Actions call the client through :meth:`_run`.

    Nothing is sent while the form is built: it loads when it is first displayed in a
    notebook, or when :meth:`load` is called (or Reload pressed).

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
    reload_button : ipywidgets.Button
        Reads what the form shows again.
    status_output : ipywidgets.Output
        Status lines and results.
    status : str
        The last status line, as plain text.
    messages : list of str
        Every status line since the form was built, oldest first (the last 100).
    error : DocsAPIError or None
        The error of the last API call, ``None`` when it succeeded.
    loaded : bool
        Whether the form has loaded (until then it shows :data:`NOT_LOADED`).
    """

    #: The heading shown at the top of the form.
    heading: ClassVar[str] = ""

    def __init__(self, client: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.client = client
        self.status = ""
        self.messages: list[str] = []
        self.error: DocsAPIError | None = None
        self.loaded = False
        self.heading_html = widgets.HTML(value=f"<h3>{escape(self.heading)}</h3>")
        self.reload_button = widgets.Button(description="Reload", icon="refresh")
        self.status_output = widgets.Output(layout=widgets.Layout(margin="8px 0 0 0"))
        self._build()
        self._wire()
        self.reload_button.on_click(lambda _button: self.load())
        self.children = (self.heading_html, *self._rows(), self.status_output)
        self._report(NOT_LOADED)

    # -- to implement -------------------------------------------------------------------
    def _build(self) -> None:
        raise NotImplementedError

    def _wire(self) -> None:
        """Connect the widgets built by :meth:`_build` (nothing by default)."""

    def _rows(self) -> tuple[widgets.Widget, ...]:
        raise NotImplementedError

    def _fetch(self) -> Any:
        """Read what the form shows (nothing by default)."""
        return None

    def _show_loaded(self, loaded: Any) -> str:
        """Show what :meth:`_fetch` read; return the status line to show."""
        return "Ready."

    def _refresh(self, _change: Any = None) -> None:
        """Bring buttons and error labels up to date with the widgets (nothing by default)."""

    # -- shared behaviour ---------------------------------------------------------------
    def _ipython_display_(self) -> None:
        """Show the form, then load it unless it has loaded: "Loading…" shows meanwhile."""
        from IPython.display import display

        display(self._repr_mimebundle_(), raw=True)
        if not self.loaded:
            self.load()

    def load(self, *, raise_errors: bool = False) -> Any:
        """Read what the form shows again, dropping unsaved edits; what Reload does.

        A form loads by itself the first time it is displayed; call this to load it
        without displaying it (a script, a test) or to read it again.

        Parameters
        ----------
        raise_errors : bool
            Raise an API error after showing it, instead of only showing it.

        Returns
        -------
        object or None
            What was read, or ``None`` if it could not be read (the error is in ``.status``).

        Examples
        --------
        >>> from docsapi.widgets import SpaceSettingsForm
        >>> form = SpaceSettingsForm(client, space_id)
        >>> form.load().id == space_id  # the space, as read
        True
        >>> form.status
        'Loaded the current values.'
        """
        ok, loaded = self._run(self._fetch, doing="Loading", raise_errors=raise_errors)
        if ok:
            self.loaded = True
            self._report(self._show_loaded(loaded))
        self._refresh()
        return loaded

    def _report(self, message: str, level: str = "info", *, details: Any = None) -> None:
        """Replace the status output with ``message`` (and ``details``, displayed richly)."""
        self.status = message
        self.messages = [*self.messages[-(_MAX_MESSAGES - 1) :], message]
        self.status_output.outputs = ()
        self.status_output.append_display_data(StatusMessage(message, level))
        if details is not None:
            self.status_output.append_display_data(details)

    def _run(
        self,
        action: Callable[[], T],
        *,
        doing: str,
        raise_errors: bool = False,
        foreground: bool = True,
    ) -> tuple[bool, T | None]:
        """Run one API call: ``(True, result)``, or ``(False, None)`` after reporting the error.

        In the foreground the status says ``"<doing>…"`` and the form's buttons are disabled
        until the call returns (then put back as they were). With ``raise_errors`` an API
        error is reported and then raised again.
        """
        self.error = None
        buttons: list[tuple[widgets.Button, bool]] = []
        if foreground:
            self._report(f"{doing}…")
            buttons = [(button, button.disabled) for button in self._buttons()]
            for button, _disabled in buttons:
                button.disabled = True
        try:
            return True, action()
        except DocsAPIError as exc:
            self.error = exc
            self._report(*self._failure(exc, doing))
            if raise_errors:
                raise
            return False, None
        finally:
            for button, disabled in buttons:
                button.disabled = disabled

    def _invalid(
        self,
        exc: ValidationError,
        *,
        not_done: str,
        label: widgets.HTML | None = None,
        raise_errors: bool = False,
    ) -> None:
        """Show a problem found before anything was sent: under its input (``label``) and
        in the status line (``"<not_done>: <problem>."``); then raise it if asked."""
        if label is not None:
            set_error(label, field_problem(exc))
        self._report(f"{not_done}: {exc}.", "error")
        if raise_errors:
            raise exc

    def _buttons(self) -> Iterator[widgets.Button]:
        """Every button in the form, rows of rows included."""
        pending = list(self.children)
        while pending:
            widget = pending.pop()
            if isinstance(widget, widgets.Button):
                yield widget
            if isinstance(widget, widgets.Box):
                pending.extend(widget.children)

    def _failure(self, exc: DocsAPIError, doing: str) -> tuple[str, str]:
        """The status line and its level for an API error (forms may explain some better)."""
        return f"{doing} failed: {describe_error(exc)}", "error"


class FieldForm(FormBase):
    """A form of declared :class:`Field` s whose Save button sends their values.

    Subclasses declare their fields in :meth:`_build` with :meth:`_field`, and implement
    :meth:`_submit` (call the client with the values). The fields are laid out in the order
    declared, each with its error label, then Save and Reload; Save is enabled only when
    every field is valid and there is something to send.

    Attributes
    ----------
    save_button : ipywidgets.Button
        Sends the values (see :meth:`save`).
    """

    #: How the status starts when invalid fields stop a save.
    not_done: ClassVar[str] = "Not saved"

    def __init__(self, client: Any, **kwargs: Any) -> None:
        self._fields: list[Field] = []
        self._showing = False
        self.save_button = widgets.Button(
            description="Save", button_style="primary", icon="check", disabled=True
        )
        self.save_button.add_class("docsapi-save")
        super().__init__(client, **kwargs)
        for field in self._fields:
            for widget in field.inputs:
                widget.observe(lambda _change, field=field: self._edited(field), names="value")
        self.save_button.on_click(lambda _button: self.save())

    # -- to implement -------------------------------------------------------------------
    def _submit(self, values: dict[str, Any]) -> Any:
        raise NotImplementedError

    def _submitted(self, values: dict[str, Any], result: Any) -> Any:
        """Show the outcome of a successful :meth:`_submit`; return what :meth:`save` returns."""
        raise NotImplementedError

    def _blocked(self, pending: dict[str, Any]) -> str | None:
        """Why nothing can be sent now (the status line to show), or ``None``."""
        return None

    # -- fields ---------------------------------------------------------------------------
    def _field(self, name: str, *inputs: widgets.Widget, **options: Any) -> Field:
        """Declare a field (see :class:`Field` for ``options``); returns it."""
        field = Field(name, *inputs, **options)
        self._fields.append(field)
        return field

    def _rows(self) -> tuple[widgets.Widget, ...]:
        rows = [widget for field in self._fields for widget in field.laid_out()]
        return (*rows, widgets.HBox([self.save_button, self.reload_button]))

    @contextmanager
    def _showing_values(self) -> Iterator[None]:
        """Set widgets from code: nothing counts as edited, the form is checked once after."""
        self._showing = True
        try:
            yield
        finally:
            self._showing = False
        for field in self._fields:
            field.touched = False
        self._refresh()

    def _edited(self, field: Field) -> None:
        if not self._showing:
            field.touched = True
            self._refresh()

    def _read(self) -> tuple[dict[str, Any], dict[str, str]]:
        """The valid values of the active fields, and the problems of the others."""
        values: dict[str, Any] = {}
        problems: dict[str, str] = {}
        for field in self._fields:
            if not field.active:
                continue
            try:
                values[field.name] = field.parse()
            except ValidationError as exc:
                problems[field.name] = field.problem(exc)
        return values, problems

    def _pending(self) -> tuple[dict[str, Any], dict[str, str]]:
        """What Save would send, and the problems of the fields (subclasses narrow the first)."""
        return self._read()

    @property
    def value(self) -> dict[str, Any]:
        """What Save would send: the keyword arguments of the client method."""
        return self._pending()[0]

    @property
    def errors(self) -> dict[str, str]:
        """The problems of the current entries: field name → the rule it breaks."""
        return self._read()[1]

    def _refresh(self, _change: Any = None) -> None:
        """Show the problems of edited fields; Save is enabled only when there is a valid send."""
        if self._showing:
            return
        pending, problems = self._pending()
        for field in self._fields:
            shown = field.touched and field.active
            set_error(field.error, problems.get(field.name, "") if shown else "")
        self.save_button.disabled = bool(problems) or self._blocked(pending) is not None

    def _doing(self) -> str:
        """What sending is called in the status line."""
        return "Saving"

    def save(self, *, raise_errors: bool = False) -> Any:
        """Check the fields and send their values; what the Save button does.

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
            What the API returned; ``None`` when nothing was sent (invalid entries,
            nothing to send) or the API refused.

        Examples
        --------
        >>> from docsapi.widgets import SpaceSettingsForm
        >>> form = SpaceSettingsForm(client, space_id)
        >>> form.load().title
        'Onboarding handbook'
        >>> form.title_text.value = "Handbook"
        >>> form.save().title
        'Handbook'
        >>> form.save()  # nothing changed since
        >>> form.status
        'Nothing to save: no field was changed.'
        """
        for field in self._fields:
            field.touched = True
        self._refresh()
        pending, problems = self._pending()
        if problems:
            listed = "; ".join(f"{name} {problem}" for name, problem in problems.items())
            self._report(f"{self.not_done}: fix the marked fields ({listed}).", "error")
            if raise_errors:
                name, problem = next(iter(problems.items()))
                raise ValidationError(name, problem)
            return None
        blocked = self._blocked(pending)
        if blocked is not None:
            self._report(blocked)
            return None
        ok, result = self._run(
            lambda: self._submit(pending), doing=self._doing(), raise_errors=raise_errors
        )
        if not ok:
            return None
        return self._submitted(pending, result)


class EditForm(FieldForm):
    """A field form over one resource: shows its values, sends only the changed fields.

    Subclasses declare their fields (named like the keyword arguments of the client's
    update method) and implement :meth:`_fetch` (read the resource), :meth:`_values_of`
    (the resource's values by field name) and :meth:`_submit` (call the client with the
    changes). They may reshape the changes in :meth:`_changes`.

    Attributes
    ----------
    save_button, reload_button : ipywidgets.Button
        Save sends the pending edits; Reload reads the resource again, dropping them.
    resource : object or None
        The resource as last read or saved (``None`` until it loads).
    """

    def __init__(self, client: Any, **kwargs: Any) -> None:
        self.resource: Any = None
        self._original: dict[str, Any] = {}
        super().__init__(client, **kwargs)

    # -- to implement -------------------------------------------------------------------
    def _values_of(self, resource: Any) -> dict[str, Any]:
        raise NotImplementedError

    # -- shared behaviour ---------------------------------------------------------------
    def _show_loaded(self, resource: Any) -> str:
        self._remember(resource)
        return "Loaded the current values."

    def _remember(self, resource: Any) -> None:
        self.resource = resource
        self._original = self._values_of(resource)
        with self._showing_values():
            self._show(self._original)

    def _show(self, values: dict[str, Any]) -> None:
        """Put the loaded values into the fields (subclasses may show more)."""
        for field in self._fields:
            if field.name in values:
                field.show(values[field.name])

    def _changes(self, values: dict[str, Any]) -> dict[str, Any]:
        """The values that differ from the loaded ones (subclasses may reshape them)."""
        return {name: value for name, value in values.items() if value != self._original.get(name)}

    def _pending(self) -> tuple[dict[str, Any], dict[str, str]]:
        values, problems = self._read()
        return (self._changes(values) if self.resource is not None else {}), problems

    def _blocked(self, pending: dict[str, Any]) -> str | None:
        if self.resource is None:
            return "Nothing to save: nothing is loaded."
        return None if pending else "Nothing to save: no field was changed."

    def _submitted(self, changes: dict[str, Any], result: Any) -> Any:
        self._remember(result)
        self._report(self._saved(changes), "success", details=result)
        return result

    def _saved(self, changes: dict[str, Any]) -> str:
        """The status line after a successful save."""
        return f"Saved {', '.join(changes)}."
