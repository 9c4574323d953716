"""A refused argument never makes a display raise: every public class, built with each invalid
argument, leaves frames whose every local can be shown.

A constructor that raises leaves its half-built ``self`` in the failing frame, where ``pytest
-l``, debuggers and ``traceback.TracebackException(capture_locals=True)`` call ``repr`` on it.
The classes are found by introspection (the ``__all__`` of the public modules), their
parameters by signature; each parameter gets in turn each invalid value its annotation calls
for (:func:`_invalid_values`), the others keeping a valid value. When the constructor raises,
every local of every frame below the test's is shown: ``repr``, and for docsapi objects their
rich displays too; the traceback is also captured with its locals. When it accepts the value,
the object's ``repr`` must work.
"""

from __future__ import annotations

import enum
import importlib
import inspect
import traceback
from types import TracebackType
from typing import Any

import pytest

import docsapi

PUBLIC_MODULES = (
    "docsapi",
    "docsapi.widgets",
    "docsapi.sandbox",
    "docsapi.adnetwork",
    "docsapi.models",
    "docsapi.api",
    "docsapi.resources",
    "docsapi.audit",
    "docsapi.review",
    "docsapi.errors",
)
#: A value of no expected type, refused strings (empty, a line break, 70 KB), numbers out of
#: range, and the missing value: each parameter gets those its annotation makes invalid.
WRONG_TYPE = object()
BAD_STRINGS: tuple[str, ...] = ("", "t\nX", "x" * 70_000)
BAD_NUMBERS: tuple[int, ...] = (10**400, -1)
#: The sandboxes build as many records as a size asks for, without an upper bound (they are
#: test servers, not checked by this suite): a size of 10**400 would run until memory ends.
UNBOUNDED_SIZES = {
    "docsapi.sandbox.Sandbox": {"spaces", "users", "teams", "grants_per_space"},
    "docsapi.sandbox.AdNetworkSandbox": {"affiliates"},
}
RICH_DISPLAYS = ("__repr__", "_repr_html_", "_repr_markdown_")


def _public_classes() -> dict[str, type]:
    """The classes the public modules export (enumerations and warning categories aside: a
    warning is issued, never built by a caller), each once: named by the first module
    exporting it."""
    found: dict[str, type] = {}
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            value = getattr(module, name)
            if (
                inspect.isclass(value)
                and not issubclass(value, enum.Enum | Warning)
                and value not in found.values()
            ):
                found[f"{module_name}.{name}"] = value
    return found


CLASSES = _public_classes()


def _parameters(cls: type) -> list[inspect.Parameter]:
    return [
        p
        for p in inspect.signature(cls).parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]


def _invalid_values(name: str, parameter: inspect.Parameter) -> list[Any]:
    """The invalid values of one parameter, derived from its annotation: a wrong type always,
    None unless it is allowed, bad strings where a string may go (else one string, a wrong
    type too), bad numbers where a number may go."""
    annotation = str(parameter.annotation)
    untyped = parameter.annotation is parameter.empty or "Any" in annotation
    values: list[Any] = [WRONG_TYPE]
    if "None" not in annotation and parameter.default is not None:
        values.append(None)
    values += BAD_STRINGS if untyped or "str" in annotation else BAD_STRINGS[1:2]
    if untyped or "int" in annotation or "float" in annotation:
        unbounded = parameter.name in UNBOUNDED_SIZES.get(name, ())
        values += [n for n in BAD_NUMBERS if not (unbounded and n > 0)]
    return values


#: (class, parameter, value) cases, counted at collection.
CASES = sum(
    len(_invalid_values(name, parameter))
    for name, cls in CLASSES.items()
    for parameter in _parameters(cls)
)


@pytest.fixture(scope="module")
def valid(sandbox_server) -> dict[str, Any]:
    """A valid value for every required parameter of the public classes, by name."""
    from docsapi.api._methods import Caller

    client = sandbox_server.client()
    demo = sandbox_server.demo
    audit = docsapi.audit_permissions(client, demo["org_id"], progress=False)
    return {
        "client": client,
        "transport": client.transport,
        "space_id": demo["space_ids"][0],
        "collection_id": demo["collection_ids"][0],
        "org_id": demo["org_id"],
        "user_id": demo["owner_id"],
        "member_id": demo["owner_id"],
        "team_id": demo["team_ids"][0],
        "site_id": demo["site_ids"][0],
        "kind": "user",
        "name": "Ada",
        "role": "read",
        "network": "demo.example.com",
        "audit": audit,
        "reviewer": "Ada",
        "raw": {},
        "operations": (),
        "caller": Caller(client.transport),
        "groups_of": {},
        "app": lambda environ, start_response: [],
        "message": "refused",
        "argument": "user_id",
        "status": 400,
        "status_code": 400,
        # a ReadBoundError: which bound a read reached, and how far it went
        "bound": "pages",
        "pages": 3,
        "items": 300,
        "seconds": 0.5,
        # A PermissionAudit is made by analyze() from pipeline products: take a real one's.
        **{
            f"audit.{name.lstrip('_')}": value
            for name, value in vars(audit).items()
            if not name.startswith("__")
        },
    }


def _baseline(cls: type, valid: dict[str, Any]) -> dict[str, Any]:
    own = "audit." if cls is docsapi.PermissionAudit else ""
    baseline = {}
    for parameter in _parameters(cls):
        if parameter.default is parameter.empty:
            key = own + parameter.name if own + parameter.name in valid else parameter.name
            baseline[parameter.name] = valid[key]
    return baseline


def _shows(value: Any) -> list[str]:
    """How showing ``value`` failed: its repr, and a docsapi object's rich displays."""
    failures = []
    methods = RICH_DISPLAYS if type(value).__module__.startswith("docsapi") else ("__repr__",)
    for method in methods:
        display = getattr(type(value), method, None)
        if display is None:
            continue
        try:
            display(value)
        except Exception as error:
            failures.append(f"{type(value).__name__}.{method}: {type(error).__name__}")
    return failures


def _frames_below(tb: TracebackType | None) -> list[TracebackType]:
    frames = []
    while tb is not None:
        frames.append(tb)
        tb = tb.tb_next
    return frames


def _unshowable_locals(error: BaseException) -> list[str]:
    """Every local of the frames below the test's that cannot be shown, also as
    ``TracebackException(capture_locals=True)`` shows them (chained exceptions too)."""
    assert error.__traceback__ is not None
    below = error.__traceback__.tb_next
    problems = []
    chained: BaseException | None = error
    while chained is not None:
        for tb in _frames_below(below if chained is error else chained.__traceback__):
            for name, value in list(tb.tb_frame.f_locals.items()):
                for failure in _shows(value):
                    problems.append(f"{tb.tb_frame.f_code.co_name}:{name}: {failure}")
        chained = chained.__context__
    try:
        traceback.TracebackException(type(error), error, below, capture_locals=True)
    except Exception as failure:
        problems.append(f"TracebackException(capture_locals=True): {type(failure).__name__}")
    return problems


def _release(value: Any) -> None:
    """Stop what an accepted construction may hold (a sandbox's server, a client's pool)."""
    for name in ("stop", "close"):
        method = getattr(type(value), name, None)
        if callable(method):
            method(value)
            return


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_no_local_of_a_refused_construction_fails_to_show(name, valid, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an accepted string may be a path: a cache file is made there
    cls = CLASSES[name]
    baseline = _baseline(cls, valid)
    problems = []
    for parameter in _parameters(cls):
        for value in _invalid_values(name, parameter):
            case = f"{name}({parameter.name}={value!r:.20})"
            try:
                built = cls(**{**baseline, parameter.name: value})
            except Exception as error:
                problems += [f"{case}: {problem}" for problem in _unshowable_locals(error)]
            else:
                problems += [f"{case} accepted: {failure}" for failure in _shows(built)[:1]]
                _release(built)
    assert problems == []


def test_the_cases_cover_every_public_class_and_parameter():
    """Every public class is here with its parameters, the count the issue note reports."""
    print(f"{len(CLASSES)} classes, {CASES} (class, argument, invalid value) cases")
    assert {"docsapi.DocsClient", "docsapi.adnetwork.AdNetworkClient"} <= set(CLASSES)
    assert {"docsapi.sandbox.Sandbox", "docsapi.PermissionAudit", "docsapi.AccessReview"} <= set(
        CLASSES
    )
    assert 10 * len(CLASSES) <= CASES


def test_a_half_built_client_shows_as_incomplete():
    """The issue's case: the client refusing a token with a line break."""
    with pytest.raises(docsapi.ValidationError) as caught:
        docsapi.DocsClient(token="t\nX", base_url="https://api.example.com/v1")
    frames = _frames_below(caught.value.__traceback__)
    half_built = next(
        tb.tb_frame.f_locals["self"]
        for tb in frames
        if isinstance(tb.tb_frame.f_locals.get("self"), docsapi.DocsClient)
    )
    assert repr(half_built) == "<DocsClient, incomplete: AttributeError while showing it>"
    assert "&lt;DocsClient, incomplete" in half_built._repr_html_()
    summary = traceback.TracebackException.from_exception(caught.value, capture_locals=True)
    shown = [local for frame in summary.stack for local in (frame.locals or {}).values()]
    assert "<DocsClient, incomplete: AttributeError while showing it>" in shown
    assert not any("t\nX" in local or "'t\\nX'" in local for local in shown)
