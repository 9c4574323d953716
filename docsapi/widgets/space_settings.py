"""SpaceSettingsForm: a space's title, emoji or icon, edit mode, default level, language, rules."""

from __future__ import annotations

import json
from typing import Any

import ipywidgets as widgets

from docsapi._validate import (
    DEFAULT_LEVELS,
    EDIT_MODES,
    LANGUAGES,
    MAX_SPACE_TITLE,
    MERGE_RULE_KINDS,
    SIMPLE_MERGE_RULES,
    check_emoji,
    check_entity_id,
    check_space_title,
    check_url,
)
from docsapi.errors import ValidationError
from docsapi.widgets._base import (
    LABEL_STYLE,
    EditForm,
    error_label,
    field_problem,
    role_label,
    role_value,
)

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
    >>> form = SpaceSettingsForm(client, "sp_abc")  # doctest: +SKIP
    >>> form.title_text.value = "Handbook"  # doctest: +SKIP
    >>> form.value  # doctest: +SKIP
    {'title': 'Handbook'}
    >>> form.save().title  # doctest: +SKIP
    'Handbook'
    """

    heading = "Space settings"
    fields = ("title", "icon")

    def __init__(self, client: Any, space_id: str, **kwargs: Any) -> None:
        self.space_id = check_entity_id(space_id, "space_id")
        self._kept_rules: list[Any] = []
        super().__init__(client, **kwargs)

    def _build(self) -> None:
        wide = widgets.Layout(width="420px")
        self.title_text = widgets.Text(
            description="Title",
            style=LABEL_STYLE,
            placeholder=f"at most {MAX_SPACE_TITLE} characters",
            layout=wide,
        )
        self.title_text.add_class("docsapi-title")
        self.title_error = error_label()
        self.icon_kind_toggle = widgets.ToggleButtons(
            options=_ICON_KINDS,
            description="Shows",
            style=LABEL_STYLE,
            tooltips=["an emoji", "an icon from a URL", "neither (remove both)"],
        )
        self.icon_text = widgets.Text(description="Emoji / URL", style=LABEL_STYLE, layout=wide)
        self.icon_error = error_label()
        self.edit_mode_toggle = widgets.ToggleButtons(
            options=EDIT_MODES, description="Edit mode", style=LABEL_STYLE
        )
        self.default_level_dropdown = widgets.Dropdown(
            options=[role_label(level) for level in (*DEFAULT_LEVELS, None)],
            description="Default level",
            style=LABEL_STYLE,
        )
        self.language_dropdown = widgets.Dropdown(
            options=LANGUAGES, description="Language", style=LABEL_STYLE
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
        self.help_html = widgets.HTML(
            value="Only the fields you change are sent. A space shows an emoji or an icon, "
            "never both; choose <i>none</i> to remove them."
        )

    def _wire(self) -> None:
        self._watch(
            self.title_text,
            self.icon_kind_toggle,
            self.icon_text,
            self.edit_mode_toggle,
            self.default_level_dropdown,
            self.language_dropdown,
            self.merge_rules_dropdown,
            self.merge_rules_select,
        )
        self.icon_kind_toggle.observe(self._on_icon_kind, names="value")
        self.merge_rules_dropdown.observe(self._on_merge_kind, names="value")

    def _rows(self) -> tuple[widgets.Widget, ...]:
        return (
            self.help_html,
            self.title_text,
            self.title_error,
            self.icon_kind_toggle,
            self.icon_text,
            self.icon_error,
            self.edit_mode_toggle,
            self.default_level_dropdown,
            self.language_dropdown,
            self.merge_rules_dropdown,
            self.merge_rules_select,
            self._save_row(),
        )

    def _on_icon_kind(self, change: dict[str, Any]) -> None:
        """Offer the space's own emoji or icon (or nothing) for the kind just picked."""
        kind = change["new"]
        self.icon_text.disabled = kind == "none"
        self.icon_text.placeholder = _ICON_PLACEHOLDERS.get(kind, "")
        if not self._showing:
            self.icon_text.value = self._loaded.get(kind) or ""

    def _on_merge_kind(self, change: dict[str, Any]) -> None:
        self.merge_rules_select.layout.display = "" if change["new"] == "rules" else "none"

    # -- EditForm ---------------------------------------------------------------------------
    def _fetch(self) -> Any:
        return self.client.spaces.get(self.space_id)

    def _values_of(self, space: Any) -> dict[str, Any]:
        return {
            "title": space.title or "",
            "emoji": space.emoji or None,
            "icon": None if space.emoji else space.url_icon or None,
            "edit_mode": space.edit_mode,
            "default_level": space.default_level,
            "language": space.language,
            "merge_rules": space.merge_rules,
        }

    def _show(self, values: dict[str, Any]) -> None:
        self.title_text.value = values["title"]
        kind = "emoji" if values["emoji"] else "icon" if values["icon"] else "none"
        self.icon_kind_toggle.value = kind
        self.icon_text.value = values["emoji"] or values["icon"] or ""
        self.edit_mode_toggle.value = values["edit_mode"]
        self.default_level_dropdown.value = role_label(values["default_level"])
        language = values["language"]
        self.language_dropdown.options = LANGUAGES if language else (_NOT_SET, *LANGUAGES)
        self.language_dropdown.value = language or _NOT_SET
        rules = values["merge_rules"] or {}
        listed = list(rules.get("rules") or ())
        self._kept_rules = [rule for rule in listed if not _is_simple(rule)]
        self.merge_rules_select.value = tuple(rule["rule"] for rule in listed if _is_simple(rule))
        self.merge_rules_dropdown.value = rules.get("type")

    def _read(self) -> tuple[dict[str, Any], dict[str, str]]:
        problems: dict[str, str] = {}
        values: dict[str, Any] = {
            "title": self.title_text.value,
            "edit_mode": self.edit_mode_toggle.value,
            "default_level": role_value(self.default_level_dropdown.value),
            "language": self.language_dropdown.value or None,
            "merge_rules": self._merge_rules(),
        }
        try:
            check_space_title(values["title"])
        except ValidationError as exc:
            problems["title"] = field_problem(exc)
        kind, text = self.icon_kind_toggle.value, self.icon_text.value.strip()
        try:
            if kind == "emoji":
                check_emoji(text, "emoji")
            elif kind == "icon":
                check_url(text, "icon")
        except ValidationError as exc:
            problems["icon"] = f"{kind}: {field_problem(exc)}"
        else:
            values["emoji"] = text if kind == "emoji" else None
            values["icon"] = text if kind == "icon" else None
        return values, problems

    def _merge_rules(self) -> dict[str, Any] | None:
        kind = self.merge_rules_dropdown.value
        if kind != "rules":
            return None if kind is None else {"type": kind}
        chosen = [{"rule": rule} for rule in self.merge_rules_select.value]
        return {"type": "rules", "rules": [*self._kept_rules, *chosen]}

    def _changes(self, values: dict[str, Any]) -> dict[str, Any]:
        changes: dict[str, Any] = {}
        for name in ("title", "edit_mode", "default_level", "language"):
            if name not in values or values[name] == self._loaded[name]:
                continue
            # An unset edit mode or language stays unset: only the default level may be None.
            if values[name] is not None or name == "default_level":
                changes[name] = values[name]
        rules = values["merge_rules"]
        if rules is not None and _canonical(rules) != _canonical(self._loaded["merge_rules"]):
            changes["merge_rules"] = rules
        if "icon" in values:
            emoji, icon = values["emoji"], values["icon"]
            if (emoji, icon) != (self._loaded["emoji"], self._loaded["icon"]):
                if emoji is not None:
                    changes["emoji"] = emoji
                elif icon is not None:
                    changes["icon"] = icon
                else:
                    changes.update(emoji=None, icon=None)
        return changes

    def _submit(self, changes: dict[str, Any]) -> Any:
        return self.client.spaces.update(self.space_id, **changes)
