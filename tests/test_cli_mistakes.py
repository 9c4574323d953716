"""The ``docsapi`` command's first ten minutes: mistakes end at once in one line, Ctrl-C in 130.

Each command runs as a real process (the installed script, or ``python -m docsapi.cli``),
as a user would start it. What can be checked before the first request is: a mistake
there sends nothing to the server (the sandbox counts what it receives).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from interrupt import interruptible

import docsapi
from docsapi.cli_parser import MAX_LINE

REPO = Path(__file__).resolve().parents[1]


def _command() -> list[str]:
    """The installed ``docsapi`` script, or the same entry point through ``python -m``."""
    script = Path(sys.executable).parent / "docsapi"
    return [str(script)] if script.exists() else [sys.executable, "-m", "docsapi.cli"]


def _environment(token: str | None) -> dict[str, str]:
    """This environment with ``token`` as the only token: no keyring, no variable otherwise."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.null.Keyring"
    env.pop("GITBOOK_API_TOKEN", None)
    if token is not None:
        env["GITBOOK_API_TOKEN"] = token
    return env


def _run(arguments: list[str], cwd: Path, token: str | None) -> subprocess.CompletedProcess:
    """``docsapi ARGUMENTS`` run to its end in ``cwd``, with ``token`` as the only token."""
    return subprocess.run(
        [*_command(), *arguments],
        cwd=cwd,
        env=_environment(token),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


#: The token a mistake is made with: the sandbox's, one it does not know, or none.
GOOD, UNKNOWN, NONE = "good", "gb_api_not_a_known_token", None


def _mistakes(sandbox, tmp_path: Path) -> dict[str, tuple[list[str], str | None, str]]:
    """name -> (arguments, token, what the line must say to do)."""
    org, url = sandbox.org_id, sandbox.url
    audit = ["audit", "--org", org, "--base-url", url, "--no-progress"]
    (tmp_path / "a-file").write_text("x", encoding="utf-8")
    return {
        "bad org id": (
            ["audit", "--org", "a/b", "--base-url", url],
            GOOD,
            "is not an organization id: pass the id itself",
        ),
        "bad --out parent": (
            [*audit, "--out", str(tmp_path / "missing" / "report.html")],
            GOOD,
            "does not exist: create it, or choose another",
        ),
        "--out naming a folder": (
            ["demo", "--out", str(tmp_path)],
            NONE,
            "is a folder: name a file in it",
        ),
        "--csv naming a file": (
            [*audit, "--csv", str(tmp_path / "a-file")],
            GOOD,
            "is a file: name a folder",
        ),
        "no token": (audit, NONE, "run `docsapi login`, or export GITBOOK_API_TOKEN"),
        "unreachable server": (
            ["audit", "--org", org, "--base-url", f"http://127.0.0.1:{_closed_port()}/v1"],
            GOOD,
            "could not connect; check the network",
        ),
        "token refused": (
            audit,
            UNKNOWN,
            "set GITBOOK_API_TOKEN to a valid API token",
        ),
        "wrong flag": (["demo", "--output", "x.html"], NONE, "did you mean --out?"),
        "bad base URL": (
            ["audit", "--org", org, "--base-url", "ftp://example.com/v1"],
            GOOD,
            "must be an absolute http:// or https:// URL",
        ),
        "unknown subcommand": (["demoo"], NONE, "did you mean demo?"),
        "missing --org": (["audit"], GOOD, "Usage: docsapi audit --org ID [options]"),
        "zero workers": ([*audit, "--workers", "0"], GOOD, "must be at least 1"),
        "too many workers": ([*audit, "--workers", "1000"], GOOD, "at most 64, got 1000"),
        "address that is not the API": (
            ["audit", "--org", org, "--base-url", f"{url}/extra/path"],
            GOOD,
            "/extra/path answers but is not the API (GET /user: '404 No API operation at",
        ),
        "misspelt required option": (
            ["audit", "--orgg", org],
            GOOD,
            "unknown option --orgg: did you mean --org?",
        ),
        "help on a misspelt command": (["help", "audt"], NONE, "did you mean audit?"),
    }


#: The mistakes found by the one request sent before the crawl (the server's answer shows them).
_PROBED = {"token refused", "address that is not the API"}


def test_every_mistake_ends_in_one_line_that_says_what_to_do(sandbox, tmp_path):
    shown = []
    for name, (arguments, token, advice) in _mistakes(sandbox, tmp_path).items():
        sandbox.reset()
        secret = sandbox.token if token == GOOD else token
        started = time.perf_counter()
        done = _run(arguments, tmp_path, secret)
        seconds = time.perf_counter() - started
        lines = done.stderr.splitlines()
        assert done.returncode != 0, name
        assert len(lines) == 1, (name, done.stderr)
        assert len(lines[0]) <= MAX_LINE, (name, lines[0])
        assert advice in lines[0], (name, lines[0])
        assert done.stdout == "" and "Traceback" not in done.stderr, name
        if name not in _PROBED:
            assert sandbox.request_count == 0, name
        else:  # found by the one request before the crawl
            assert sandbox.request_count == 1, name
        shown.append(f"{name:22} exit {done.returncode}  {seconds:4.2f} s  {lines[0]}")
    print("\n".join(shown))  # the list the issue asks for: pytest -s shows it


def test_a_refused_token_is_found_by_one_request_before_the_crawl(sandbox, tmp_path):
    done = _run(["audit", "--org", sandbox.org_id, "--base-url", sandbox.url], tmp_path, UNKNOWN)
    assert done.returncode == 1
    assert [(method, path) for method, path, _ in sandbox.request_log] == [("GET", "/v1/user")]
    assert not (tmp_path / "audit-report.html").exists()


def test_help_command_shows_the_commands_help(tmp_path):
    done = _run(["help", "audit"], tmp_path, None)
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout == _run(["audit", "--help"], tmp_path, None).stdout
    assert done.stdout.startswith("usage: docsapi audit")


@pytest.mark.parametrize(
    "command",
    ["demo", "audit", "sandbox", "check-notebook", "login", "logout", "history", "diff",
     "verify", "review apply", "help"],
)  # fmt: skip
def test_each_commands_help_says_what_it_does_the_token_and_the_exit_codes(tmp_path, command):
    done = _run([*command.split(), "-h"], tmp_path, None)
    assert done.returncode == 0, done.stderr
    usage, description, *rest = done.stdout.split("\n\n")
    assert usage.startswith(f"usage: docsapi {command}")
    assert len(description.split()) >= 6 and not description.startswith(("options", "positional"))
    epilog = " ".join(" ".join(rest).split())
    assert "Exit status: 0 " in epilog or command == "sandbox"
    assert "130 Ctrl-C" in epilog
    reads_token = command in ("audit", "login", "review apply")
    assert ("GITBOOK_API_TOKEN environment variable, else the one `docsapi login`" in epilog) == (
        reads_token
    )


def test_the_version(tmp_path):
    done = _run(["--version"], tmp_path, None)
    assert done.returncode == 0
    assert done.stdout.strip() == f"docsapi {docsapi.__version__}"


def _interrupt_mid_crawl(command: list[str], env: dict[str, str], cwd: Path):
    """Start the command, wait for its progress bar to move, send SIGINT; (status, stderr)."""
    process = interruptible(
        command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    seen = b""
    try:
        while b"space/s" not in seen:  # the first bar has counted a space: mid-crawl
            chunk = os.read(process.stderr.fileno(), 4096)
            assert chunk, seen.decode(errors="replace")
            seen += chunk
        process.send_signal(signal.SIGINT)
        _, rest = process.communicate(timeout=60)
    finally:
        process.kill()
    return process.returncode, (seen + rest).decode(errors="replace")


@pytest.mark.parametrize("command", ["demo", "audit"])
def test_ctrl_c_mid_crawl_prints_one_line_and_exits_130(sandbox, tmp_path, command):
    out = tmp_path / "report.html"
    if command == "demo":
        arguments = ["demo", "--latency", "0.2", "--out", str(out)]
        env = _environment(None)
    else:
        sandbox.set_latency(0.2)
        arguments = ["audit", "--org", sandbox.org_id, "--base-url", sandbox.url]
        arguments += ["--out", str(out)]
        env = _environment(sandbox.token)
    status, stderr = _interrupt_mid_crawl([*_command(), *arguments], env, tmp_path)
    assert status == 130, stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr
    assert stderr.rstrip().splitlines()[-1].endswith("docsapi: interrupted (Ctrl-C).")
    assert not out.exists()
    if command == "audit":  # nothing more is sent once the command has ended
        sent = sandbox.request_count
        time.sleep(0.5)
        assert sandbox.request_count == sent
