"""SpaceSettingsForm: a space's title, emoji or icon, edit mode, default level, language, rules."""

from __future__ import annotations

import json
from typing import Any

import ipywidgets as widgets

from docsapi.core.checks import (
    DEFAULT_LEVELS,
    EDIT_MODES,
    LANGUAGES,
    MAX_SPACE_TITLE,
    MERGE_RULE_KINDS,
    SIMPLE_MERGE_RULES,
    check_entity_id,
    check_space_title,
)
from docsapi.resources.spaces import emoji_or_icon_update
from docsapi.widgets._base import LABEL_STYLE, EditForm, role_label, role_value, text_input

__all__ = ["SpaceSettingsForm"]

_ICON_KINDS = ("emoji", "icon", "none")
_ICON_PLACEHOLDERS = {"emoji": "an emoji code point, e.g. 1f4d8", "icon": "https://…"}
_NOT_SET = ""


def _canonical(merge_rules: dict[str, Any] | None) -> str | None:
    """Merge rules as comparable text: the order of the rules does not matter."""
    if merge_rules is None:
        return None
    rules = sorted(json.dumps(rule, sort_keys=True) for rule in merge_rules.get("rules") or ())
    return json.dumps({**merge_rules, "rules": rules}, sort_keys=True)


def _is_simple(rule: Any) -> bool:
    return isinstance(rule, dict) and set(rule) == {"rule"} and rule["rule"] in SIMPLE_MERGE_RULES


def _icon_update(choice: tuple[str, str]) -> dict[str, Any]:
    """The change for the kind picked and the text entered: an emoji, an icon, or neither."""
    kind, text = choice
    if kind == "none":
        return emoji_or_icon_update(None, None)
    return emoji_or_icon_update(**{kind: text})


class SpaceSettingsForm(EditForm):
    """Edit a space's settings; Save sends only the fields that changed.

    Parameters
    ----------
    client : DocsClient
        The client to call (``client.spaces.get`` and ``client.spaces.update``).
    space_id : str
        The space to edit.
    **kwargs
        Passed to ``ipywidgets.VBox``.

    Attributes
    ----------
    title_text : ipywidgets.Text
        The title (at most 50 characters); problems in ``title_error``.
    icon_kind_toggle : ipywidgets.ToggleButtons
        ``"emoji"``, ``"icon"`` (a URL) or ``"none"`` (remove both).
    icon_text : ipywidgets.Text
        The emoji or the icon URL; problems in ``icon_error``.
    edit_mode_toggle : ipywidgets.ToggleButtons
        ``"live"`` or ``"locked"``.
    default_level_dropdown : ipywidgets.Dropdown
        ``"inherit"``, a member role, or ``"guest"`` (sent as ``None``).
    language_dropdown : ipywidgets.Dropdown
        A ``TranslationLanguage`` code.
    merge_rules_dropdown : ipywidgets.Dropdown
        ``"inherit"``, ``"none"`` or ``"rules"``.
    merge_rules_select : ipywidgets.SelectMultiple
        The rules to apply when the kind is ``"rules"`` (rules naming reviewers are kept).
    save_button, reload_button, status_output, heading_html
        As in every form.

    Notes
    -----
    ``.value`` holds the pending edits as keyword arguments of ``client.spaces.update``:
    ``{"title": "New"}``, ``{"emoji": "📘"}``, ``{"icon": "https://…"}``,
    ``{"emoji": None, "icon": None}`` (remove both), ``{"default_level": None}`` (guest),
    ``{"merge_rules": {"type": "none"}}``. ``.save()`` returns the updated
    :class:`~docsapi.models.Space`, or ``None`` if nothing was sent or the API refused.

    Examples
    --------
    >>> from docsapi.widgets import SpaceSettingsForm
    >>> form = SpaceSettingsForm(client, space_id)
    >>> form.load().title  # or display(form): it loads when shown
    'Onboarding handbook'
    >>> form.title_text.value = "Handbook"
    >>> form.value
    {'title': 'Handbook'}
    >>> form.save().title
    'Handbook'
    """

    heading = "Space settings"

    def __init__(self, client: Any, space_id: str, **kwargs: Any) -> None:
        self.space_id = check_entity_id(space_id, "space_id")
        self._kept_rules: list[Any] = []
        super().__init__(client, **kwargs)

    def _build(self) -> None:
        self.help_html = widgets.HTML(
            value="Only the fields you change are sent. A space shows an emoji or an icon, "
            "never both; choose <i>none</i> to remove them."
        )
        self.title_text = text_input("Title", placeholder=f"at most {MAX_SPACE_TITLE} characters")
        self.title_text.add_class("docsapi-title")
        self.title_error = self._field("title", self.title_text, check=check_space_title).error
        self.icon_kind_toggle = widgets.ToggleButtons(
            options=_ICON_KINDS,
            description="Shows",
            style=LABEL_STYLE,
            tooltips=["an emoji", "an icon from a URL", "neither (remove both)"],
        )
        self.icon_text = text_input("Emoji / URL")
        self.icon_error = self._field(
            "icon",
            self.icon_kind_toggle,
            self.icon_text,
            read=lambda: (self.icon_kind_toggle.value, self.icon_text.value.strip()),
            show=self._show_icon,
            check=_icon_update,
        ).error
        self.edit_mode_toggle = widgets.ToggleButtons(
            options=EDIT_MODES, description="Edit mode", style=LABEL_STYLE
        )
        self._field("edit_mode", self.edit_mode_toggle)
        self.default_level_dropdown = widgets.Dropdown(
            options=[role_label(level) for level in (*DEFAULT_LEVELS, None)],
            description="Default level",
            style=LABEL_STYLE,
        )
        self._field(
            "default_level", self.default_level_dropdown, to_api=role_value, to_widget=role_label
        )
        self.language_dropdown = widgets.Dropdown(
            options=LANGUAGES, description="Language", style=LABEL_STYLE
        )
        self._field(
            "language",
            self.language_dropdown,
            to_api=lambda code: code or None,
            to_widget=lambda code: code or _NOT_SET,
        )
        self.merge_rules_dropdown = widgets.Dropdown(
            options=MERGE_RULE_KINDS, description="Merge rules", style=LABEL_STYLE
        )
        self.merge_rules_select = widgets.SelectMultiple(
            options=SIMPLE_MERGE_RULES,
            rows=4,
            description="Rules",
            style=LABEL_STYLE,
            layout=widgets.Layout(width="420px", display="none"),
        )
        self._field(
            "merge_rules",
            self.merge_rules_dropdown,
            self.merge_rules_select,
            read=self._read_merge_rules,
            show=self._show_merge_rules,
        )

    def _wire(self) -> None:
        self.icon_kind_toggle.observe(self._on_icon_kind, names="value")
        self.merge_rules_dropdown.observe(self._on_merge_kind, names="value")

    def _rows(self) -> tuple[widgets.Widget, ...]:
        return (self.help_html, *super()._rows())

    def _on_icon_kind(self, change: dict[str, Any]) -> None:
        """Offer the space's own emoji or icon (or nothing) for the kind just picked."""
        kind = change["new"]
        self.icon_text.disabled = kind == "none"
        self.icon_text.placeholder = _ICON_PLACEHOLDERS.get(kind, "")
        if not self._showing:
            self.icon_text.value = self._original.get("icon", {}).get(kind) or ""

    def _on_merge_kind(self, change: dict[str, Any]) -> None:
        self.merge_rules_select.layout.display = "" if change["new"] == "rules" else "none"

    def _show_icon(self, update: dict[str, Any]) -> None:
        kind = "emoji" if update.get("emoji") else "icon" if update.get("icon") else "none"
        self.icon_kind_toggle.value = kind
        self.icon_text.value = update.get(kind) or ""

    def _read_merge_rules(self) -> dict[str, Any] | None:
        kind = self.merge_rules_dropdown.value
        if kind != "rules":
            return None if kind is None else {"type": kind}
        chosen = [{"rule": rule} for rule in self.merge_rules_select.value]
        return {"type": "rules", "rules": [*self._kept_rules, *chosen]}

    def _show_merge_rules(self, merge_rules: dict[str, Any] | None) -> None:
        rules = merge_rules or {}
        listed = list(rules.get("rules") or ())
        self._kept_rules = [rule for rule in listed if not _is_simple(rule)]
        self.merge_rules_select.value = tuple(rule["rule"] for rule in listed if _is_simple(rule))
        self.merge_rules_dropdown.value = rules.get("type")

    # -- EditForm ---------------------------------------------------------------------------
    def _fetch(self) -> Any:
        return self.client.spaces.get(self.space_id)

    def _values_of(self, space: Any) -> dict[str, Any]:
        icon = (
            {"emoji": space.emoji}
            if space.emoji
            else {"icon": space.url_icon}
            if space.url_icon
            else {"emoji": None, "icon": None}
        )
        return {
            "title": space.title or "",
            "icon": icon,
            "edit_mode": space.edit_mode,
            "default_level": space.default_level,
            "language": space.language,
            "merge_rules": space.merge_rules,
        }

    def _show(self, values: dict[str, Any]) -> None:
        # A space without a language offers "not set" until one is chosen.
        self.language_dropdown.options = LANGUAGES if values["language"] else (_NOT_SET, *LANGUAGES)
        super()._show(values)

    def _changes(self, values: dict[str, Any]) -> dict[str, Any]:
        changes = super()._changes(values)
        # An unset edit mode, language or merge rules stays unset: only the default level
        # may be sent as None; merge rules listed in another order are the same rules.
        changes = {
            name: value
            for name, value in changes.items()
            if value is not None or name == "default_level"
        }
        rules = changes.get("merge_rules")
        if rules is not None and _canonical(rules) == _canonical(self._original["merge_rules"]):
            del changes["merge_rules"]
        changes.update(changes.pop("icon", {}))
        return changes

    def _submit(self, changes: dict[str, Any]) -> Any:
        return self.client.spaces.update(self.space_id, **changes)
