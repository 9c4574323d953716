"""A griffe extension for the API reference: docstrings completed when their module is imported.

``docsapi.data.frames`` writes its list functions' Parameters and Returns sections (the column
tables) and its module docstring's list of lists from the lists' declarations at import
time. Reading the source alone would show only what is written there, so this extension
takes those docstrings from the imported module.
"""

from __future__ import annotations

import importlib
from typing import Any

import griffe

#: Modules whose docstrings (the module's and its functions') are read after import.
MODULES = ("docsapi.data.frames",)


def _runtime(obj: griffe.Object, doc: str | None) -> None:
    if doc and obj.docstring is not None:
        obj.docstring = griffe.Docstring(
            doc,
            parent=obj,
            parser=obj.docstring.parser,
            parser_options=obj.docstring.parser_options,
        )


class RuntimeDocstrings(griffe.Extension):
    """Replace the source docstrings of :data:`MODULES` by their ``__doc__`` after import."""

    def on_module_instance(self, *, mod: griffe.Module, **kwargs: Any) -> None:
        if mod.path in MODULES:
            _runtime(mod, importlib.import_module(mod.path).__doc__)

    def on_function_instance(self, *, func: griffe.Function, **kwargs: Any) -> None:
        module_path, _, name = func.path.rpartition(".")
        if module_path in MODULES:
            function = getattr(importlib.import_module(module_path), name, None)
            _runtime(func, getattr(function, "__doc__", None))
