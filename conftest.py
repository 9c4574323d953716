"""The names every docstring example of ``docsapi/`` can use (pytest's ``doctest_namespace``).

pytest runs the examples of ``docsapi/`` (``--doctest-modules``); this file sits at the
repository root, outside the package, so nothing here ships. An example uses these names
without importing or creating them; each is made only when an example of the docstring
names it (an example that needs no sandbox starts none).

============================  ===================================================================
name                          what
============================  ===================================================================
``docsapi``, ``pd``           the package and pandas
``sandbox``                   a running ``Sandbox(seed=0)``, one per test process, back in its
                              seeded state at the start of each module's examples
``client``                    a ``DocsClient`` for ``sandbox`` (the owner's token: an organization
                              admin), one per module
``demo``                      ``sandbox.demo``: the demo's named facts (``docs/sandbox-demo.md``),
                              e.g. ``demo["sites"]["visitor-auth"]``
``org_id``                    the demo organization (*Stark Devices*)
``space_id``                  the space *Onboarding handbook*: pages, files, change requests, and
                              a guest who edits it
``git_space_id``              the first space synced with Git
``page_id``, ``page_path``    the first page of ``space_id`` (parents come first), its path
``file_id``                   the first file of ``space_id``
``change_request_id``         the first change request of ``space_id`` (lowest number)
``user_id``                   a member with the ``read`` role (``sandbox.tokens["other-user"]``)
``guest_id``                  the guest who edits ``space_id`` by a direct grant
``admin_id``                  the owner: an organization admin, the user behind ``client``
``team_id``                   the team *Design*
``collection_id``             the collection *Product documentation* (top level, ``inherit``)
``site_id``                   the site *Partner preview*, published for share links
``share_link_id``             its stale share link (old and still active)
``invite_id``                 the organization's invite link offering the ``read`` role
``audit``                     ``audit_permissions`` of the seeded demo (same ids), made once per
                              process; each docstring gets a copy (``audit.save`` marks only it)
``previous``                  an earlier audit of the demo: before the guest was given ``edit`` on
                              ``space_id``, so ``audit.diff(previous)`` has a change
``review``                    a fresh ``AccessReview(audit, reviewer="Ada Cerf", client=client)``
``ad_sandbox``, ``ads``       a running ``AdNetworkSandbox(seed=0)`` (seeded per module) and an
                              ``AdNetworkClient`` for it
============================  ===================================================================

Each docstring's examples run in a new temporary working directory, so files they write
(reports, snapshots) land there. A module's docstrings run one after the other on one worker
(``--dist loadfile``), the module's own first, then the others in the order of their names; an
example that changes the demo (delete, move, invite, remove...) works on something it created
first, or puts back what it changed, so that every other example finds the demo as described.

To add a name: an entry of :data:`NAMES` (a value made once goes in a cached property of
:class:`Session`, one per module in :class:`Module`), then a row in the table above.
"""

from __future__ import annotations

import copy
import importlib
import io
import re
import tokenize
from collections.abc import Callable, Iterator
from functools import cached_property
from typing import Any

import pytest


class Session:
    """The values that live as long as the test process, made on first use.

    The names are looked up and the audits made on a *reference* sandbox of the same seed
    that no example changes, so they hold whatever an example did to ``sandbox``.
    """

    def __init__(self) -> None:
        self._stops: list[Callable[[], None]] = []

    def close(self) -> None:
        """Stop every sandbox started."""
        for stop in reversed(self._stops):
            stop()

    def _started(self, sandbox: Any) -> Any:
        self._stops.append(sandbox.stop)
        return sandbox.start()

    @cached_property
    def sandbox(self) -> Any:
        from docsapi.sandbox import Sandbox

        return self._started(Sandbox(seed=0))

    @cached_property
    def reference(self) -> Any:
        from docsapi.sandbox import Sandbox

        return self._started(Sandbox(seed=0))

    @cached_property
    def lookup(self) -> Any:
        return self.reference.client()

    @cached_property
    def ad_sandbox(self) -> Any:
        from docsapi.sandbox.adnetwork import AdNetworkSandbox

        return self._started(AdNetworkSandbox(seed=0))

    @cached_property
    def demo(self) -> dict[str, Any]:
        return self.reference.demo

    @cached_property
    def space_id(self) -> str:
        spaces = self.lookup.spaces.list(org_id=self.demo["org_id"])
        return str(spaces.loc[spaces["title"] == "Onboarding handbook", "id"].item())

    @cached_property
    def first_page(self) -> Any:
        pages = self.lookup.content.pages(self.space_id)
        return pages[pages["kind"] == "document"].iloc[0]

    @cached_property
    def file_id(self) -> str:
        return str(self.lookup.content.files(self.space_id)["id"].iloc[0])

    @cached_property
    def change_request_id(self) -> str:
        requests = self.lookup.change_requests.list(self.space_id)
        return str(requests.sort_values("number")["id"].iloc[0])

    @cached_property
    def team_id(self) -> str:
        teams = self.lookup.orgs.teams(self.demo["org_id"])
        return str(teams.loc[teams["title"] == "Design", "id"].item())

    def _audit(self) -> Any:
        from docsapi import audit_permissions

        return audit_permissions(self.lookup, self.reference.org_id, progress=False)

    @cached_property
    def audit(self) -> Any:
        return self._audit()

    @cached_property
    def previous(self) -> Any:
        guest = self.demo["path_examples"]["direct"]["user_id"]
        self.reference.revoke(self.space_id, guest)
        try:
            return self._audit()
        finally:
            self.reference.reset()


class Module:
    """What one module's examples share: a client, and the sandboxes seeded for them."""

    def __init__(self, session: Session) -> None:
        self.session = session

    @cached_property
    def client(self) -> Any:
        sandbox = self.session.sandbox
        sandbox.reset()  # each module's examples start from the seeded demo
        return sandbox.client()

    @cached_property
    def ads(self) -> Any:
        sandbox = self.session.ad_sandbox
        sandbox.reset()
        return sandbox.client()


def _review(module: Module) -> Any:
    from docsapi import AccessReview

    audit = copy.copy(module.session.audit)
    return AccessReview(audit, reviewer="Ada Cerf", client=module.client)


def _sandbox(module: Module) -> Any:
    module.client  # noqa: B018  (seeds the sandbox for this module)
    return module.session.sandbox


def _ad_sandbox(module: Module) -> Any:
    module.ads  # noqa: B018  (seeds the ad network for this module)
    return module.session.ad_sandbox


def _package(name: str) -> Callable[[Module], Any]:
    return lambda module: importlib.import_module(name)


#: Every name of the table above and how to make its value for a module's example.
NAMES: dict[str, Callable[[Module], Any]] = {
    "docsapi": _package("docsapi"),
    "pd": _package("pandas"),
    "sandbox": _sandbox,
    "client": lambda m: m.client,
    "demo": lambda m: m.session.demo,
    "org_id": lambda m: m.session.demo["org_id"],
    "space_id": lambda m: m.session.space_id,
    "git_space_id": lambda m: m.session.demo["git_space_ids"][0],
    "page_id": lambda m: str(m.session.first_page["id"]),
    "page_path": lambda m: str(m.session.first_page["path"]),
    "file_id": lambda m: m.session.file_id,
    "change_request_id": lambda m: m.session.change_request_id,
    "user_id": lambda m: m.session.demo["other_user_id"],
    "guest_id": lambda m: m.session.demo["path_examples"]["direct"]["user_id"],
    "admin_id": lambda m: m.session.demo["owner_id"],
    "team_id": lambda m: m.session.team_id,
    "collection_id": lambda m: m.session.demo["collections"]["product"],
    "site_id": lambda m: m.session.demo["sites"]["share-link"],
    "share_link_id": lambda m: m.session.demo["share_link_ids"]["stale"],
    "invite_id": lambda m: m.session.demo["invite_ids"]["read"],
    "audit": lambda m: copy.copy(m.session.audit),  # its own, to save or annotate
    "previous": lambda m: copy.copy(m.session.previous),
    "review": _review,
    "ad_sandbox": _ad_sandbox,
    "ads": lambda m: m.ads,
}


_WORD = re.compile(r"[A-Za-z_]\w*")
_F_STRING = re.compile(r"[rRbB]?[fF]")


def _names_in(source: str) -> set[str]:
    """The names a piece of example code uses (not the words of its strings and comments)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return set(_WORD.findall(source))
    names = set()
    for token in tokens:
        if token.type == tokenize.NAME:
            names.add(token.string)
        elif token.type == tokenize.STRING and _F_STRING.match(token.string):
            names.update(_WORD.findall(token.string))  # an f-string is one token before 3.12
    return names


#: Where the session's docsapi folders (configuration: the signing key; state: journals) are,
#: and the keyring every process of the session uses outside a test (none: keyring's null).
_USER_FOLDERS = ("DOCSAPI_CONFIG_DIR", "DOCSAPI_STATE_DIR")
_NULL_KEYRING = "keyring.backends.null.Keyring"


def pytest_configure(config: pytest.Config) -> None:
    """Keep the session away from the user's own folders and keyring: docsapi's folders in a
    temporary folder, and keyring's null backend, set in the environment, so the test
    processes, notebook kernels and commands run as subprocesses inherit them (a signing key
    made by default lands there, never in the user's configuration or keyring)."""
    import os
    import tempfile

    if not all(os.environ.get(name) for name in _USER_FOLDERS):
        home = tempfile.mkdtemp(prefix="docsapi-test-user-")
        config.docsapi_user_home = home  # type: ignore[attr-defined]
        for name in _USER_FOLDERS:
            os.environ[name] = os.path.join(home, name.split("_")[1].lower())
    os.environ["PYTHON_KEYRING_BACKEND"] = _NULL_KEYRING
    import keyring
    from keyring.backends import null

    keyring.set_keyring(null.Keyring())


def pytest_unconfigure(config: pytest.Config) -> None:
    import shutil

    home = getattr(config, "docsapi_user_home", None)
    if home is not None:
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(autouse=True)
def own_state_folder(tmp_path_factory: pytest.TempPathFactory, monkeypatch) -> Any:
    """A state folder of its own for every test and example: journals and locks of plans
    (keyed by the plan's content) never carry over from one test to the next."""
    folder = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("DOCSAPI_STATE_DIR", str(folder))
    return folder


@pytest.fixture(autouse=True)
def memory_keyring() -> Iterator[Any]:
    """An empty in-memory keyring for every test and example: none reads or writes the system's."""
    import keyring

    from tests.memory_keyring import MemoryKeyring

    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture(scope="session")
def _doctest_session() -> Iterator[Session]:
    session = Session()
    yield session
    session.close()


@pytest.fixture(scope="module")
def _doctest_module(_doctest_session: Session) -> Module:
    return Module(_doctest_session)


@pytest.fixture(autouse=True)
def _doctest_names(request: pytest.FixtureRequest, doctest_namespace: dict[str, Any]) -> None:
    """Give a docstring's examples the names they use, in a working directory of their own."""
    examples = getattr(getattr(request.node, "dtest", None), "examples", None)
    if examples is None:  # not a doctest
        return
    module: Module = request.getfixturevalue("_doctest_module")
    request.getfixturevalue("monkeypatch").chdir(request.getfixturevalue("tmp_path"))
    used = set().union(*(_names_in(example.source) for example in examples))
    for name, make in NAMES.items():
        doctest_namespace.pop(name, None)
        if name in used:
            doctest_namespace[name] = make(module)


#: ``pytest`` runs the quick suite, ``pytest --full`` everything (tests/suite_scope.py).
pytest_plugins = ["tests.suite_scope"]
