"""One verdict per id, whoever sends it, and what is sent holds the id as exactly one segment.

The targets are found by introspection: every id argument (``*_id``) of every method of the
resource groups and of the ad-network client, every path parameter of every ``client.api``
operation, and ``client.request`` and ``client.paginate`` with the id in each parameter
position of each path template of the description. Each target is called with generated ids
(encoded dots and slashes, NFKC look-alikes of ``.`` and ``/``, ``..;``, control characters,
10,000 characters, non-Latin text, arbitrary text, ordinary ids) over real HTTP, against one
small recording server shared by every call, which answers 404 and keeps each request line.

For each id:

- a request that is sent has the path of its target's template, with the id as exactly one
  segment: decoded once it is the id, and however often it is decoded and NFKC-normalised it
  holds no ``/`` or ``\\`` and is no dot segment;
- otherwise the call raised a ValidationError naming the argument, and nothing was sent;
- the verdict is the same for every target whose parameter's declared schema (in the API
  description; none for ``request``, ``paginate``, the ad network and the one method whose
  endpoint the description lacks, ``GET /users/{id}/spaces``) accepts the id, and a target
  whose schema refuses it refuses it;
- hostile ids and non-Latin text are refused by every target taking an id; ordinary ids
  (letters, digits, ``_``, ``-``) are accepted by every target whose schema accepts them.

Page path parameters (``pagePath``: slugs with ``/`` between them, not an id) are held to the
first two rules only.
"""

from __future__ import annotations

import inspect
import unicodedata
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from method_arguments import ADS_VALID, EXTRA, VALID
from recording_server import RecordingServer
from suite_scope import examples

import docsapi
from docsapi.adnetwork import AdNetworkClient
from docsapi.api import catalog
from docsapi.api._methods import _answer
from docsapi.api._operation import Operation, Parameter
from docsapi.api._validate_args import schema_validator
from docsapi.client import _resource_groups
from docsapi.core.reprs import method_listing

#: Marks the id's place in a path template (a list of segments).
ID = object()
#: The id every target is first called with, to find where it goes.
PROBE = "Probe7q"


# -- the recording server ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[RecordingServer]:
    with RecordingServer(tmp_path_factory.mktemp("ids") / "requests.log") as recorder:
        yield recorder


# -- targets ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """One way an id reaches a request."""

    name: str
    #: What a ValidationError refusing the id names.
    argument: str
    call: Callable[[str], Any]
    #: The sent path's segments (after the base URL's path), ID where the id goes; None when
    #: the id goes elsewhere (query or body): the path is then ``fixed``.
    template: tuple[Any, ...] | None
    fixed: str = ""
    #: Whether the parameter's declared schema accepts a value (True when none is declared).
    accepts: Callable[[str], bool] = lambda value: True
    page_path: bool = False
    #: True when the operation needs other arguments this test does not give: an accepted id
    #: is then refused for another argument, and nothing is sent.
    needs_more: bool = False


def _segments(path: str) -> list[str]:
    return path.partition("?")[0].split("/")[1:]


def _match(operations: list[Operation], method: str, segments: list[str]) -> Operation | None:
    """The operation of the description a request was for (most static segments win)."""
    best, best_static = None, -1
    for operation in operations:
        template = operation.path.split("/")[1:]
        if operation.method != method or len(template) != len(segments):
            continue
        if all(t.startswith("{") or t == s for t, s in zip(template, segments, strict=True)):
            static = sum(not t.startswith("{") for t in template)
            if static > best_static:
                best, best_static = operation, static
    return best


def _schema_check(parameter: Parameter) -> Callable[[str], bool]:
    validator = schema_validator(parameter.pointer)
    return lambda value: validator.is_valid(value)


def _valid_segment(parameter: Parameter) -> Any:
    """A value the parameter's schema accepts, for the positions the id is not in."""
    check = _schema_check(parameter)
    candidates = ("x1a", "abc", "00000000-0000-4000-8000-000000000000", 1)
    return next(value for value in candidates if check(value))


OPERATIONS = [
    operation
    for operation in {op.operation_id: op for ops in catalog().values() for op in ops}.values()
    if operation.path_parameters and not operation.streaming
]


def _quiet(call: Callable[[], Any]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return call()


def _typed_targets(client: Any, ads: AdNetworkClient, server: RecordingServer) -> list[Target]:
    """The id arguments of the resource groups' methods and of the ad-network client, each
    located by a probe call: where the probe id shows in the request sent."""
    targets = []
    methods: list[tuple[str, Any, dict[str, Any]]] = []
    for group, _ in _resource_groups(type(client)):
        for name, _, _ in method_listing(getattr(client, group)):
            methods.append((f"{group}.{name}", getattr(getattr(client, group), name), VALID))
    for name, _, _ in method_listing(ads):
        methods.append((f"adnetwork.{name}", getattr(ads, name), ADS_VALID))
    for name, method, valid in methods:
        signature = inspect.signature(method)
        for argument in signature.parameters:
            if argument.endswith("_id") or (name.startswith("adnetwork.") and argument == "id"):
                targets.append(_located(name, method, signature, argument, valid, server))
    return targets


def _located(name, method, signature, argument, valid, server) -> Target:
    # The extra arguments a baseline call needs, but no other id (spaces.list takes one of
    # org_id and user_id).
    kwargs = {
        other: value
        for other, value in EXTRA.get(name, {}).items()
        if not other.endswith("_id") or other == argument
    }
    for other, spec in signature.parameters.items():
        if spec.default is spec.empty and spec.kind in (
            spec.POSITIONAL_OR_KEYWORD,
            spec.KEYWORD_ONLY,
        ):
            kwargs.setdefault(other, valid[other])

    def call(value: str) -> Any:
        return method(**{**kwargs, argument: value})

    server.take()
    try:
        call(PROBE)
    except docsapi.DocsAPIError as error:
        assert not isinstance(error, docsapi.ValidationError), f"{name}: probe refused: {error}"
    verb, path = server.take()[0]
    segments = _segments(path)
    where = f"{name}({argument})"
    if quote(PROBE) not in segments:
        return Target(where, argument, call, None, fixed=path.partition("?")[0])
    template = tuple(ID if s == quote(PROBE) else s for s in segments)
    operation = None if name.startswith("adnetwork.") else _match(OPERATIONS, verb, segments[1:])
    if operation is None:  # the ad network, or an endpoint the description lacks: no schema
        return Target(where, argument, call, template)
    part = operation.path.split("/")[segments.index(quote(PROBE))]
    parameter = next(p for p in operation.path_parameters if "{" + p.name + "}" == part)
    return Target(where, argument, call, template, accepts=_schema_check(parameter))


def _api_targets(client: Any) -> list[Target]:
    targets = []
    for operation in OPERATIONS:
        group = next(g for g, ops in catalog().items() if operation in ops)
        method = getattr(getattr(client.api, group), operation.python_name)
        valid = [_valid_segment(p) for p in operation.path_parameters]
        needs_more = any(p.required and p.location != "path" for p in operation.parameters) or (
            operation.body is not None and operation.body.required
        )
        for index, parameter in enumerate(operation.path_parameters):

            def call(value: str, method=method, index=index, valid=valid) -> Any:
                arguments = list(valid)
                arguments[index] = value
                return _quiet(lambda: method(*arguments))

            targets.append(
                Target(
                    f"api.{group}.{operation.python_name}({parameter.python_name})",
                    parameter.python_name,
                    call,
                    _api_template(operation, index, valid),
                    accepts=_schema_check(parameter),
                    page_path=parameter.page_path,
                    needs_more=needs_more,
                )
            )
    return targets


def _api_template(operation: Operation, index: int, valid: list[Any]) -> tuple[Any, ...]:
    template: list[Any] = ["v1"]
    position = 0
    for part in operation.path.split("/")[1:]:
        if part.startswith("{"):
            template.append(ID if position == index else quote(str(valid[position]), safe=""))
            position += 1
        else:
            template.append(part)
    return tuple(template)


def _raw_path_targets(client: Any) -> list[Target]:
    """``request``, and ``paginate`` for lists, with the id in a path parameter's place: for
    each parameter name, its first template (and its first list), and every page path
    parameter (where an encoded ``/`` is allowed)."""
    paginated = {op.path for op in OPERATIONS if _answer(op).paginated}
    chosen: dict[tuple[str, bool], tuple[Operation, int]] = {}
    for operation in OPERATIONS:
        for index, parameter in enumerate(operation.path_parameters):
            for listed in {False, operation.path in paginated}:
                key = (operation.path if parameter.page_path else parameter.name, listed)
                chosen.setdefault(key, (operation, index))
    targets = []
    for (_, listed), (operation, index) in chosen.items():
        parameter = operation.path_parameters[index]
        valid = [_valid_segment(p) for p in operation.path_parameters]
        template = _api_template(operation, index, valid)

        def raw(value: str, template: tuple[Any, ...] = template) -> str:
            return "/" + "/".join(
                quote(value, safe="") if part is ID else part for part in template[1:]
            )

        if listed:
            kind, call = "paginate", lambda v, raw=raw: list(client.paginate(raw(v)))
        else:
            kind, call = "request", lambda v, raw=raw: client.request("GET", raw(v))
        name = f"{kind} {operation.path} [{parameter.name}]"
        targets.append(Target(name, "path", call, template, page_path=parameter.page_path))
    return targets


@pytest.fixture(scope="module")
def targets(server) -> list[Target]:
    client = docsapi.DocsClient(
        token="gb_api_trust_ids", base_url=server.url + "/v1", max_retries=0
    )
    ads = AdNetworkClient(
        f"127.0.0.1:{server.port}", api_key="an_trust_ids", scheme="http", max_retries=0
    )
    return _typed_targets(client, ads, server) + _api_targets(client) + _raw_path_targets(client)


# -- what was sent ------------------------------------------------------------------------------


def _reads_as_one_segment(segment: str, *, page_path: bool) -> bool:
    """True when ``segment``, decoded as often as a lenient server might and NFKC-normalised,
    is one segment (a page path: slugs), never a dot segment."""
    text, previous = segment, None
    while text != previous:
        previous, text = text, unquote(text)
    text = unicodedata.normalize("NFKC", text)
    pieces = text.split("/") if page_path else [text]
    if not page_path and "/" in text:
        return False
    return "\\" not in text and all(piece.strip().strip(".") for piece in pieces)


def _path_problem(target: Target, value: str, path: str) -> str | None:
    """What is wrong with a path sent for ``value``; None when it is the template's."""
    if target.template is None:
        return None if path.partition("?")[0] == target.fixed else f"sent {path!r}"
    segments = _segments(path)
    if len(segments) != len(target.template):
        return f"sent {path!r}: {len(segments)} segments, not {len(target.template)}"
    for segment, part in zip(segments, target.template, strict=True):
        if part is ID:
            sent = unquote(segment)
            if sent != value and not (target.page_path and sent == value.strip("/")):
                return f"sent {path!r}: the segment {segment!r} is not the id"
            if not _reads_as_one_segment(segment, page_path=target.page_path):
                return f"sent {path!r}: {segment!r} reads as more than one segment"
        elif segment != part:
            return f"sent {path!r}: {segment!r} where {part!r} belongs"
    return None


def _outcome(target: Target, value: str, server: RecordingServer) -> tuple[str, str | None]:
    """``("refused" | "accepted" | "sent", problem)`` of one call."""
    server.take()
    refused: docsapi.ValidationError | None = None
    try:
        target.call(value)
    except docsapi.ValidationError as error:
        refused = error
    except docsapi.DocsAPIError:
        pass
    sent = server.take()
    if refused is not None:
        if sent:
            return "refused", f"refused after sending {sent}"
        if refused.argument == target.argument:
            return "refused", None
        if target.needs_more:
            return "accepted", None
        return "refused", f"refused naming {refused.argument!r}: {refused}"
    if len(sent) != 1:
        return "sent", f"{len(sent)} requests"
    return "sent", _path_problem(target, value, sent[0][1])


# -- generated ids ------------------------------------------------------------------------------

#: Ids of the alphabet of the description's EntityId: every schema taking a string accepts them.
ORDINARY = st.from_regex(r"[A-Za-z0-9_-]{1,40}", fullmatch=True)
#: Ids by the rule (unreserved characters, not only dots): accepted where the schema agrees.
ID_LIKE = st.from_regex(r"[A-Za-z0-9._~-]{0,20}[A-Za-z0-9_~-][A-Za-z0-9._~-]{0,20}", fullmatch=True)
#: Cores no id may hold, wherever they are in it.
POISON = (
    *("%2e", "%2E%2e", "..%2f", "..%2F..%2Fy", "%2f", "%252e%252e", "%5c", "%3B", "%00", "%"),
    *("\u2025", "\ufe52", "\uff0e", "\u2024", "\u2026", "\uff0f", "\uff3c", "\ufe68"),
    *("\uff1b", "\ufe54", "\uff05"),
    *("/", "\\", ";", "..;", "?", "#", "\x00", "\n", "\r\n", "\t", " ", "\u2028", "\u202e"),
)
#: Whole ids that are dot segments or too long.
WHOLE = (".", "..", "...", "", "x" * 10_000, "x" * 257)
NON_LATIN = ("用户", "пользователь", "Zoë", "χρήστης", "مستخدم", "\uff55\uff53\uff45\uff52")


@st.composite
def _hostile(draw: st.DrawFn) -> str:
    core = draw(st.sampled_from(POISON))
    prefix = draw(st.one_of(st.just(""), ORDINARY))
    suffix = draw(st.one_of(st.just(""), st.just(".."), ORDINARY))
    return prefix + core + suffix


def _not_an_id_by_its_characters(value: str) -> bool:
    return any(not (char.isascii() and (char.isalnum() or char in "-._~")) for char in value)


#: Ids refused by every target taking an id (hostile, non-Latin), and arbitrary text holding
#: a character no id has (whose verdicts must agree, page paths aside). An accepted id is sent
#: by hundreds of targets (seconds): those are drawn by the other test, fewer.
REFUSED_IDS = st.one_of(
    st.tuples(st.just("hostile"), _hostile()),
    st.tuples(st.just("hostile"), st.sampled_from(WHOLE)),
    st.tuples(st.just("non-Latin"), st.sampled_from(NON_LATIN)),
    st.tuples(st.just("arbitrary"), st.text(max_size=30).filter(_not_an_id_by_its_characters)),
)
ACCEPTED_IDS = st.one_of(
    st.tuples(st.just("ordinary"), ORDINARY), st.tuples(st.just("id-like"), ID_LIKE)
)
SETTINGS = settings(
    deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck)
)
#: Ids of each kind drawn (beyond the explicit examples).
REFUSED_EXAMPLES, ACCEPTED_EXAMPLES = examples(40), examples(4)


def _verdict_problems(label: str, value: str, outcomes: list[tuple[Target, str]]) -> list[str]:
    """Where the verdicts on one id disagree with each other or with its label."""
    problems = []
    ids = [(t, o) for t, o in outcomes if not t.page_path]
    open_to_it = {o != "refused" for t, o in ids if t.template is not None and t.accepts(value)}
    if len(open_to_it) > 1:
        sample = sorted(f"{t.name}: {o}" for t, o in ids if t.accepts(value))[:6]
        problems.append(f"{value!r:.40}: verdicts differ: {sample}")
    for target, outcome in ids:
        if not target.accepts(value) and outcome != "refused":
            problems.append(f"{target.name}: {value!r:.40} breaks its schema, yet {outcome}")
        elif label in ("hostile", "non-Latin") and outcome != "refused":
            problems.append(f"{target.name}: {label} {value!r:.40} {outcome}")
        elif label == "ordinary" and target.accepts(value) and outcome == "refused":
            problems.append(f"{target.name}: ordinary {value!r:.40} refused")
    return problems


def _problems(label: str, value: str, targets: list[Target], server: RecordingServer) -> list[str]:
    """Every problem of one id across every target (what was sent, then the verdicts)."""
    outcomes, problems = [], []
    for target in targets:
        outcome, problem = _outcome(target, value, server)
        outcomes.append((target, outcome))
        if problem is not None:
            problems.append(f"{target.name}: {value!r:.40}: {problem}")
    return problems + _verdict_problems(label, value, outcomes)


@pytest.fixture(scope="module")
def generated() -> Iterator[Counter[str]]:
    """The ids each test generated, by label (the issue note reports them)."""
    counts: Counter[str] = Counter()
    yield counts
    print(f"ids generated: {sum(counts.values())} ({dict(counts)})")


def test_refused_ids_are_refused_by_every_target_before_sending(
    targets, server, generated, record_property
):
    assert len(targets) > 900

    @example(("hostile", "..%2f..%2fy"))
    @example(("hostile", "%2e%2e"))
    @example(("hostile", "\u2025"))
    @example(("hostile", "\ufe52\ufe52"))
    @example(("hostile", "..;"))
    @example(("hostile", "\x00"))
    @example(("hostile", "x" * 10_000))
    @example(("non-Latin", "用户"))
    @given(REFUSED_IDS)
    @settings(SETTINGS, max_examples=REFUSED_EXAMPLES)
    def check(labelled: tuple[str, str]) -> None:
        generated[labelled[0]] += 1
        assert _problems(*labelled, targets, server)[:20] == []

    check()
    record_property("ids_generated", sum(generated.values()))
    assert {"hostile", "non-Latin", "arbitrary"} <= set(generated)


def test_accepted_ids_are_sent_as_one_segment_with_one_verdict(
    targets, server, generated, record_property
):
    @example(("ordinary", "sp_Ab-1"))
    @example(("id-like", "v1.2~rc"))
    @given(ACCEPTED_IDS)
    @settings(SETTINGS, max_examples=ACCEPTED_EXAMPLES)
    def check(labelled: tuple[str, str]) -> None:
        generated[labelled[0]] += 1
        assert _problems(*labelled, targets, server)[:20] == []

    check()
    record_property("ids_generated", sum(generated.values()))
    assert {"ordinary", "id-like"} <= set(generated)
