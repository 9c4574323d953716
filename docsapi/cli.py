"""The ``docsapi`` command: run the offline demo, audit a real organization, serve the sandbox.

Examples
--------
::

    docsapi demo                         # audit the sandbox's demo org -> audit-report.html
    GITBOOK_API_TOKEN=... docsapi audit --org <id> --out report.html
    docsapi sandbox --port 8080          # serve the simulated API until Ctrl-C
    docsapi check-notebook notebooks/    # look for tokens and keys saved in notebooks
    docsapi login                        # check a token, keep it in the keyring
    docsapi logout                       # forget it
    docsapi audit --org <id> --save snapshots   # also keep a dated snapshot of the audit
    docsapi history snapshots            # list the snapshots kept
    docsapi diff OLD NEW --html changes.html    # what changed between two snapshots
    docsapi review apply plan.json --dry-run    # the calls of a review's plan, not sent
    docsapi verify plan.json             # a plan, a snapshot or evidence: unchanged and signed?

Exit status: 0 on success, 1 when the API refuses or fails (or a notebook holds what
looks like a token or key), 2 for a usage or configuration problem (bad argument, missing
token), 3 when ``docsapi audit`` could not see everything (a partial audit: the token is
not an organization admin's, or some reads failed) and ``--allow-partial`` was not given;
the reports are written all the same. A partial audit always prints a ``PARTIAL AUDIT``
line naming what could not be seen. ``docsapi diff`` exits 3 likewise when either snapshot
is partial (unless ``--allow-partial``), and 2 when a snapshot cannot be loaded.
``docsapi review apply PLAN`` exits 0 when every call of the plan is done (or, with
``--dry-run``, was shown), 1 when a call failed (it stops there; the same command again
resumes), 2 when the plan cannot be read, no token is found, or the plan would leave the
organization without an admin or demote the token's own user without
``--allow-self-demotion`` (nothing is sent), 4 when nothing was sent because the plan was
refused (not signed off, changed since, an edited call, not signed with the key at hand,
its snapshot missing, already applied) or another ``apply`` of it is running, 5 when
calls whose target changed since the review were not sent (see docs/access-reviews.md).
``docsapi verify PATH`` exits 0 when what it checks is as it was written (and signed,
when a signing key is at hand; ``--require-signature``: only when it is signed with a key
on this machine), 1 otherwise, one line per problem. Any command exits 130 after Ctrl-C,
``docsapi sandbox`` too (Ctrl-C is how it ends). ``docsapi help COMMAND`` is
``docsapi COMMAND --help``: what the command does, where the token comes from, the exit
statuses. Errors are one line on stderr
that says what to do (at most 200 characters for the mistakes found before the first
request). Before its first request, ``docsapi audit`` checks the organization id, the base
URL, every file and folder it will write, that a token is at hand, and then asks the server
once (5 s at most) who the token belongs to.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from docsapi.cli_checks import (
    check_output_file,
    check_output_folder,
    probe_server,
    require_token,
)
from docsapi.cli_parser import CommandParser, one_line
from docsapi.core.checks import check_base_url, check_entity_id
from docsapi.core.config import DEFAULT_BASE_URL, ReadBounds
from docsapi.core.integrity import UNSIGNED
from docsapi.core.reprs import shown_path
from docsapi.core.rule_sets import DEFAULT_RULE_SET, RULE_SETS
from docsapi.core.safe_text import TerminalStream, print_line, terminal_line
from docsapi.core.version import version
from docsapi.errors import (
    APIConnectionError,
    AuthenticationError,
    DocsAPIError,
    NotFoundError,
    PermissionDeniedError,
    SnapshotError,
    ValidationError,
)

if TYPE_CHECKING:
    from docsapi.audit import PermissionAudit

__all__ = ["main"]

TOKEN_VARIABLE = "GITBOOK_API_TOKEN"
DEFAULT_REPORT = "audit-report.html"
SANDBOX_PORT = 8765
EXIT_OK, EXIT_API, EXIT_USAGE, EXIT_PARTIAL, EXIT_REFUSED = 0, 1, 2, 3, 4
#: The exit status after Ctrl-C (128 + SIGINT), as shells report it.
EXIT_INTERRUPTED = 130
INTERRUPTED_LINE = "docsapi: interrupted (Ctrl-C)."
#: The most concurrent requests ``--workers`` allows: past it a server's rate limit, not the
#: number of threads, sets the pace, and each thread holds a connection.
MAX_WORKERS = 64

#: Where ``audit``, ``login`` and ``review apply`` find the API token, in this order.
TOKEN_SOURCES = (
    f"The API token: the {TOKEN_VARIABLE} environment variable, else the one `docsapi login` "
    "kept in the system keyring for this --base-url. It is never printed."
)
#: The most characters of one name (an organization, a space, a user) in a printed line.
NAME_LIMIT = 80
#: The most characters of one detail (a server's message, a change) in a printed line.
DETAIL_LIMIT = 200


class _Failure(Exception):
    """A problem to report as one line on stderr, with an exit status."""

    def __init__(self, message: str, status: int = EXIT_API) -> None:
        super().__init__(message)
        self.status = status


def _add_output_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out",
        default=DEFAULT_REPORT,
        metavar="FILE",
        help=f"HTML report to write (default: ./{DEFAULT_REPORT})",
    )
    parser.add_argument("--excel", metavar="FILE", help="also write the tables to an .xlsx file")
    parser.add_argument("--csv", metavar="DIR", help="also write one CSV per table into DIR")
    parser.add_argument(
        "--workers",
        type=int,
        default=8,
        metavar="N",
        help=f"concurrent requests, 1 to {MAX_WORKERS} (default: 8)",
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.add_argument(
        "--save",
        metavar="DIR",
        help="also keep a snapshot of the audit in DIR/<org id>/<UTC time>/ (see history, diff); "
        "the audit log is then read from the last snapshot kept there",
    )
    parser.add_argument(
        "--log-days",
        type=int,
        metavar="N",
        help="read the audit log of the last N days (default: since the last snapshot in --save "
        "DIR, else 365)",
    )
    parser.add_argument(
        "--no-log",
        action="store_true",
        help="do not read the audit log (no provenance: who made each grant and when)",
    )
    bounds = ReadBounds()
    for flag, kind, when in (
        ("--max-pages", int, f"after N pages (default: {bounds.pages})"),
        ("--max-items", int, f"after N items (default: {bounds.items})"),
        (
            "--max-read-seconds",
            float,
            f"N seconds after the audit began (default: {bounds.seconds:g})",
        ),
    ):
        parser.add_argument(
            flag,
            type=kind,
            metavar="N",
            help=f"stop a paged read (the audit log, a list) {when}; a read stopped there "
            "makes the audit partial, and its coverage says where it stopped",
        )
    _add_model_option(parser, "how the audit combines the levels of access")


def _add_model_option(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--model",
        choices=RULE_SETS,
        default=DEFAULT_RULE_SET,
        help=f"{what}: precedence (the nearest level decides; default) or highest (the "
        "highest role over every path); see docs/access-model.md",
    )


#: Per command: what it does (the first lines of its ``-h``), whether it reads the API token,
#: and its exit statuses (``-h`` ends with them).
_COMMAND_HELP: dict[str, tuple[str, bool, str]] = {
    "demo": (
        "Start the embedded sandbox (a simulated API with a demo organization, offline), audit "
        "its organization and write the HTML report (and, if asked, Excel, CSV, a snapshot).",
        False,
        "0 the report is written (a partial demo audit says so but is not an error); "
        "2 a usage problem (bad option, a file or folder that cannot be written); "
        "130 Ctrl-C.",
    ),
    "audit": (
        "Audit a real organization: who can reach each space, through which door, since when "
        "and by whom; the findings to fix; the report as one HTML file. Before the first "
        "request it checks every option, that a token is at hand, and asks the server once "
        "(5 s at most) who the token belongs to.",
        True,
        "0 the audit is complete and written; 1 the API refused or failed; 2 a usage or "
        "configuration problem (bad option, no token, an address that is not the API); "
        "3 the audit is partial and --allow-partial was not given (the reports are written "
        "all the same); 130 Ctrl-C.",
    ),
    "sandbox": (
        "Serve the simulated API on 127.0.0.1 until Ctrl-C, printing its address, its "
        "organization and its tokens (fakes: the sandbox accepts only them).",
        False,
        "2 the size or the port cannot be used; 130 Ctrl-C (how it ends).",
    ),
    "check-notebook": (
        "Look for API tokens and keys saved in notebooks' code and outputs.",
        False,
        "0 none found; 1 something that looks like a token or key (one line each); "
        "2 a path that cannot be read; 130 Ctrl-C.",
    ),
    "login": (
        "Ask for an API token (not shown as typed), check it against the server and keep it "
        "in the system keyring for this --base-url; `docsapi audit` then finds it.",
        True,
        "0 kept; 1 the server refused the token; 2 no keyring, or a bad option; 130 Ctrl-C.",
    ),
    "logout": (
        "Forget the token (or ad-network key) kept in the system keyring for an address.",
        False,
        "0 removed, or nothing was kept; 2 a bad option; 130 Ctrl-C.",
    ),
    "history": (
        "List the audit snapshots kept in a folder given to `audit --save`.",
        False,
        "0 listed; 2 the folder cannot be read; 130 Ctrl-C.",
    ),
    "diff": (
        "What changed between two audit snapshots: access granted, revoked, raised, lowered, "
        "new and resolved findings, exposure; the changes to look at first.",
        False,
        "0 compared; 2 a snapshot cannot be loaded; 3 a snapshot is partial and "
        "--allow-partial was not given; 130 Ctrl-C.",
    ),
    "review": (
        "Carry out an access review's plan: `docsapi review apply PLAN`.",
        True,
        "as `docsapi review apply --help` says; 130 Ctrl-C.",
    ),
    "verify": (
        "Check that a snapshot, a review plan or evidence is as it was written, and say who "
        "signed it ('signed with key <fingerprint>') or that it is UNSIGNED (a digest alone "
        "checks accidental damage only).",
        False,
        "0 verified (with --require-signature: and signed); 1 a problem (one line each); "
        "2 the path cannot be read; 130 Ctrl-C.",
    ),
    "help": (
        "Show a command's help: `docsapi help audit` is `docsapi audit --help`.",
        False,
        "0 shown; 2 not a command; 130 Ctrl-C.",
    ),
}


def _describe(name: str, command: argparse.ArgumentParser) -> None:
    """Give a command's ``-h`` its description, where the token comes from, its exit codes."""
    description, reads_token, exits = _COMMAND_HELP[name]
    command.description = description
    command.epilog = (f"{TOKEN_SOURCES}\n\n" if reads_token else "") + f"Exit status: {exits}"
    command.formatter_class = _ParagraphFormatter


class _ParagraphFormatter(argparse.HelpFormatter):
    """argparse's formatter, keeping the paragraphs of a description and an epilog."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n\n".join(
            super(_ParagraphFormatter, self)._fill_text(paragraph, width, indent)
            for paragraph in text.split("\n\n")
        )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``docsapi`` command."""
    parser = CommandParser(
        prog="docsapi",
        description="Permission audits and an offline sandbox for the documentation-platform API.",
    )
    parser.add_argument("--version", action="version", version=f"docsapi {version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = commands.add_parser("demo", help="audit the sandbox's demo organization, offline")
    demo.add_argument("--seed", type=int, default=0, help="sandbox seed (default: 0)")
    demo.add_argument(
        "--latency",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="delay the sandbox adds to every request, as a real server's (default: 0)",
    )
    _add_output_options(demo)
    demo.set_defaults(handler=_run_demo)

    audit = commands.add_parser(
        "audit",
        help=f"audit an organization (token: {TOKEN_VARIABLE} or docsapi login)",
    )
    audit.add_argument("--org", required=True, metavar="ID", help="the organization's id")
    audit.add_argument(
        "--allow-partial",
        action="store_true",
        help="exit 0 even when the audit could not see everything (it still says so)",
    )
    audit.add_argument(
        "--base-url",
        default=DEFAULT_BASE_URL,
        metavar="URL",
        help=f"API address (default: {DEFAULT_BASE_URL})",
    )
    _add_output_options(audit)
    audit.set_defaults(handler=_run_audit)

    sandbox = commands.add_parser("sandbox", help="serve the simulated API until Ctrl-C")
    sandbox.add_argument(
        "--port",
        type=int,
        default=SANDBOX_PORT,
        help=f"port on 127.0.0.1 (default: {SANDBOX_PORT}; 0 picks a free one)",
    )
    sandbox.add_argument("--seed", type=int, default=0, help="sandbox seed (default: 0)")
    for option, what in (
        ("--spaces", "spaces"),
        ("--users", "users"),
        ("--teams", "teams"),
        ("--grants-per-space", "direct user grants per space"),
    ):
        sandbox.add_argument(
            option,
            type=int,
            metavar="N",
            help=f"number of {what} (default: the demo organization's)",
        )
    sandbox.add_argument(
        "--latency",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="delay added to every request (default: 0)",
    )
    _add_model_option(sandbox, "how the simulated platform combines the levels of access")
    sandbox.set_defaults(handler=_run_sandbox)

    check = commands.add_parser(
        "check-notebook", help="look for tokens and keys saved in notebooks (exit 1 if any)"
    )
    check.add_argument(
        "paths", nargs="+", metavar="PATH", help="notebook files, or folders searched for *.ipynb"
    )
    check.add_argument(
        "--allow",
        action="append",
        default=[],
        metavar="VALUE",
        help="a value known to be a harmless fake, not reported (repeatable)",
    )
    check.set_defaults(handler=_run_check_notebook)

    for name, handler, summary in (
        ("login", _run_login, "check an API token (or --adnetwork key) and keep it in the keyring"),
        ("logout", _run_logout, "remove the token (or --adnetwork key) kept in the keyring"),
    ):
        command = commands.add_parser(name, help=summary)
        command.add_argument(
            "--base-url",
            default=DEFAULT_BASE_URL,
            metavar="URL",
            help=f"API address; each address has its own entry (default: {DEFAULT_BASE_URL})",
        )
        command.add_argument(
            "--adnetwork",
            metavar="NETWORK",
            help="an ad network's host[:port] instead: its API key",
        )
        command.add_argument(
            "--scheme",
            choices=("https", "http"),
            default="https",
            help="how the ad network is reached (default: https)",
        )
        command.set_defaults(handler=handler)

    history = commands.add_parser("history", help="list the audit snapshots kept in a folder")
    history.add_argument("folder", metavar="DIR", help="the folder given to audit --save")
    history.add_argument("--org", metavar="ID", help="only this organization's snapshots")
    history.set_defaults(handler=_run_history)

    diff = commands.add_parser("diff", help="what changed between two audit snapshots")
    diff.add_argument("old", metavar="OLD", help="the earlier snapshot's folder")
    diff.add_argument("new", metavar="NEW", help="the later snapshot's folder")
    diff.add_argument("--html", metavar="FILE", help="also write the changes as an HTML page")
    diff.add_argument(
        "--top", type=int, default=10, metavar="N", help="changes to print (default: 10)"
    )
    diff.add_argument(
        "--allow-partial",
        action="store_true",
        help="exit 0 even when a snapshot could not see everything (it still says so)",
    )
    diff.set_defaults(handler=_run_diff)
    _add_review_parser(commands)

    verify = commands.add_parser(
        "verify", help="check a snapshot, a review plan or evidence: unchanged, and signed?"
    )
    verify.add_argument(
        "path", metavar="PATH", help="a snapshot folder, a plan or evidence file, or a manifest"
    )
    verify.add_argument(
        "--require-signature",
        action="store_true",
        help="exit 1 unless it is signed with a key on this machine (a digest alone checks "
        "accidental damage only)",
    )
    _add_snapshot_option(verify)
    verify.set_defaults(handler=_run_verify)

    helper = commands.add_parser("help", help="show a command's help: docsapi help COMMAND")
    helper.add_argument(
        "topic", nargs="?", choices=tuple(_COMMAND_HELP), metavar="COMMAND", help="a command"
    )
    helper.set_defaults(handler=lambda args: _run_help(parser, commands, args.topic))
    for name, command in commands.choices.items():
        _describe(name, command)
    return parser


def _run_help(
    parser: argparse.ArgumentParser, commands: argparse._SubParsersAction, topic: str | None
) -> int:
    """Print a command's help (``docsapi help audit``), or the command's own."""
    (commands.choices[topic] if topic else parser).print_help()
    return EXIT_OK


def _add_snapshot_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--snapshot",
        metavar="DIR",
        help="the snapshot a plan was made from, when it is not where the plan's manifest says",
    )
    parser.add_argument(
        "--without-snapshot",
        action="store_true",
        help="go without the snapshot a plan names when it is missing (its calls are then "
        "not made again from their decisions)",
    )


def _add_review_parser(commands) -> None:
    review = commands.add_parser("review", help="carry out an access review's plan")
    actions = review.add_subparsers(dest="action", metavar="ACTION", required=True)
    apply = actions.add_parser(
        "apply",
        help=f"send the calls of a plan file from review.save_plan (token: {TOKEN_VARIABLE})",
    )
    apply.description = "Send the calls of a review's plan file, in order, with a journal."
    apply.epilog = (
        f"{TOKEN_SOURCES}\n\nExit status: 0 every call done (or shown, with --dry-run); "
        "1 a call failed (the same command again resumes); 2 the plan cannot be read, no "
        "token, or the plan would leave no admin; 4 refused (not signed off, changed) or "
        "being applied by another run; 130 Ctrl-C."
    )
    apply.formatter_class = _ParagraphFormatter
    apply.add_argument("plan", metavar="PLAN", help="the plan file (.csv or .json)")
    apply.add_argument("--dry-run", action="store_true", help="show the calls; send nothing")
    apply.add_argument(
        "--results",
        metavar="FILE",
        help="results kept between runs, to resume (default: <PLAN>.results.json beside it)",
    )
    apply.add_argument(
        "--base-url",
        default=DEFAULT_BASE_URL,
        metavar="URL",
        help=f"API address (default: {DEFAULT_BASE_URL})",
    )
    apply.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    apply.add_argument(
        "--allow-self-demotion",
        action="store_true",
        help="send a call that takes the admin role from the token's own user (sent last); "
        "without it such a plan is refused",
    )
    apply.add_argument(
        "--allow-unsigned",
        action="store_true",
        help="send a plan nobody signed off, or that differs from what was signed off "
        "(the results say so); a plan not signed with the signing key at hand is never sent",
    )
    apply.add_argument(
        "--send-stale",
        action="store_true",
        help="send the calls whose target changed since the review all the same (the results "
        "and the evidence say so); without it they are skipped and the exit status is 5",
    )
    apply.add_argument(
        "--again",
        action="store_true",
        help="apply a plan whose journal says it was applied completely (through any file)",
    )
    _add_snapshot_option(apply)
    apply.set_defaults(handler=_run_review)


def _check_outputs(args: argparse.Namespace) -> None:
    """Check every file and folder the audit will write, before the first request."""
    if not 1 <= args.workers <= MAX_WORKERS:
        raise _Failure(
            f"--workers: must be at least 1 and at most {MAX_WORKERS}, got {args.workers}",
            EXIT_USAGE,
        )
    try:
        check_output_file(args.out, "--out")
        if args.excel:
            check_output_file(args.excel, "--excel")
        for option, folder in (("--csv", args.csv), ("--save", args.save)):
            if folder:
                check_output_folder(folder, option)
    except ValidationError as exc:
        raise _Failure(str(exc), EXIT_USAGE) from None


def _write_outputs(audit: PermissionAudit, args: argparse.Namespace) -> list[Path]:
    # the report says what changed since the last snapshot kept in --save, if any
    previous = audit.previous or _last_snapshot(args.save, audit.org_id)
    try:
        written = [audit.to_html(args.out, previous=previous)]
    except (SnapshotError, ValidationError) as exc:  # a snapshot that cannot be compared
        print_line(one_line(f"NOTE: the report says nothing of what changed: {exc}"))
        written = [audit.to_html(args.out)]
    if args.excel:
        try:
            written.append(audit.to_excel(args.excel))
        except ImportError as exc:
            raise _Failure(str(exc), EXIT_USAGE) from None
    if args.csv:
        written.extend(audit.to_csv(args.csv))
    return written


def _partial_line(audit: PermissionAudit) -> str | None:
    """The ``PARTIAL AUDIT`` line naming what could not be seen; None for a complete audit."""
    if audit.complete:
        return None
    missing = "; ".join(
        f"{terminal_line(item, NAME_LIMIT)} ({terminal_line(detail, DETAIL_LIMIT).rstrip('.')})"
        for item, detail in zip(audit.incomplete["item"], audit.incomplete["detail"], strict=True)
    )
    return f"PARTIAL AUDIT: access may be under-reported. Could not see: {missing}."


def _print_summary(audit: PermissionAudit, written: list[Path]) -> None:
    from docsapi.audit.report.words import state_sentence

    count = audit.count
    partial = _partial_line(audit)
    if partial:
        print_line(partial)
    name = _named(audit.org_name, audit.org_id)
    print_line(
        f"Audited organization {name}: {count('spaces')} spaces, "
        f"{count('users')} users with access, {count('grants')} grants "
        f"({count('user', 'principal_type')} to users, {count('team', 'principal_type')} to teams)."
    )
    print_line(
        f"Findings: {count('high', 'severity')} high, {count('medium', 'severity')} medium, "
        f"{count('low', 'severity')} low."
    )
    print_line(state_sentence(audit))
    print_line(f"Rule set: {audit.model}. {audit.verdict}")
    if count("errors"):
        print_line(f"{count('errors')} reads failed: see the report's last table.")
    print_line(f"Report: {written[0].resolve()}")
    for extra in written[1:]:
        print_line(f"Also written: {extra.resolve()}")


def _named(name: str | None, identifier: str) -> str:
    """``name (id)`` on one line, the name cut to :data:`NAME_LIMIT` characters."""
    shown = terminal_line(identifier, NAME_LIMIT)
    return f"{terminal_line(name, NAME_LIMIT)} ({shown})" if name else shown


def _keep_snapshot(audit: PermissionAudit, args: argparse.Namespace) -> None:
    """With ``--save DIR``: keep a dated snapshot of the audit, and say where."""
    if not args.save:
        return
    from docsapi.audit.snapshot.store import save_dated

    try:
        folder = save_dated(audit, args.save)
    except ValidationError as exc:
        raise _Failure(f"cannot keep the snapshot: {exc}", EXIT_USAGE) from None
    except OSError as exc:
        raise _Failure(f"cannot keep the snapshot in {args.save}: {exc}", EXIT_USAGE) from None
    print_line(f"Snapshot: {folder.resolve()}")


def _audit(client, org_id: str, args: argparse.Namespace) -> PermissionAudit:
    from datetime import timedelta

    from docsapi.audit import audit_permissions

    if args.log_days is not None and args.log_days < 1:
        raise _Failure("--log-days must be at least 1", EXIT_USAGE)
    given = {
        name: value
        for name, value in (
            ("pages", args.max_pages),
            ("items", args.max_items),
            ("seconds", args.max_read_seconds),
        )
        if value is not None
    }
    try:
        bounds = ReadBounds(**given)
    except ValidationError as exc:
        flag = {"pages": "--max-pages", "items": "--max-items"}.get(
            exc.argument, "--max-read-seconds"
        )
        raise _Failure(f"{flag}{str(exc)[len(exc.argument) :]}", EXIT_USAGE) from None
    return audit_permissions(
        client,
        org_id,
        max_workers=args.workers,
        progress=not args.no_progress,
        model=args.model,
        read_log=not args.no_log,
        events_since=(
            None if args.no_log or args.log_days is None else timedelta(days=args.log_days)
        ),
        previous=None if args.no_log or args.log_days else _last_snapshot(args.save, org_id),
        read_bounds=bounds,
    )


def _last_snapshot(root: str | None, org_id: str) -> str | None:
    """The newest readable snapshot of ``org_id`` kept under ``root`` (None: none)."""
    if not root or not Path(root).is_dir():
        return None
    from docsapi.audit.snapshot.store import history

    kept = history(root, org_id=org_id)
    if kept.empty or "problem" not in kept:
        return None
    readable = kept[kept["problem"].isna()]
    return None if readable.empty else str(readable["path"].iloc[-1])


def _run_demo(args: argparse.Namespace) -> int:
    _check_outputs(args)
    from docsapi.sandbox import Sandbox

    try:
        sandbox = Sandbox(seed=args.seed, latency=args.latency, model=args.model)
    except ValueError as exc:
        raise _Failure(f"--latency: {exc}", EXIT_USAGE) from None
    with sandbox:
        audit = _audit(sandbox.client(), sandbox.org_id, args)
    _print_summary(audit, _write_outputs(audit, args))
    _keep_snapshot(audit, args)
    return EXIT_OK  # the demo reports a partial audit but is not an error


def _explain(exc: DocsAPIError, org_id: str, base_url: str) -> str:
    """One line saying what went wrong and what to do."""
    if isinstance(exc, AuthenticationError):
        return (
            f"the API rejected the token (401): set {TOKEN_VARIABLE} to a valid API token "
            "for this server."
        )
    if isinstance(exc, PermissionDeniedError):
        return (
            f"the token may not read organization {org_id}'s members, teams or "
            "permissions (403): use the token of an organization admin."
        )
    if isinstance(exc, NotFoundError):
        return (
            f"organization {org_id} was not found (404): check --org; the token must "
            "belong to a member of it."
        )
    if isinstance(exc, APIConnectionError):
        return f"could not reach {base_url}: {exc}"
    return str(exc)


def _check_org(org_id: str) -> None:
    """Check ``--org`` as the client checks an organization id, and say so in a short line."""
    try:
        check_entity_id(org_id, "--org")
    except ValidationError:
        shown = org_id if len(org_id) <= 40 else org_id[:37] + "..."
        raise _Failure(
            f"--org: {shown!r} is not an organization id: pass the id itself (letters, digits, "
            "'-' and '_'), as in the organization's address",
            EXIT_USAGE,
        ) from None


def _run_audit(args: argparse.Namespace) -> int:
    try:
        # everything that can be checked here is, before the first request
        _check_org(args.org)
        args.base_url = check_base_url(args.base_url, "--base-url")
        _check_outputs(args)
        require_token(args.base_url, TOKEN_VARIABLE)
        from docsapi.client import DocsClient

        probe_server(args.base_url)  # once, with a short timeout: reachable, token accepted
        client = DocsClient(base_url=args.base_url)  # token: GITBOOK_API_TOKEN, then the keyring
        audit = _audit(client, args.org, args)
    except ValidationError as exc:
        raise _Failure(str(exc), EXIT_USAGE) from None
    except DocsAPIError as exc:
        raise _Failure(_explain(exc, args.org, args.base_url)) from None
    _print_summary(audit, _write_outputs(audit, args))
    _keep_snapshot(audit, args)
    if not audit.complete and not args.allow_partial:
        raise _Failure(
            "the audit is partial (see the PARTIAL AUDIT line above); fix what it names, or "
            "pass --allow-partial to accept it.",
            EXIT_PARTIAL,
        )
    return EXIT_OK


def _without(message: str, secret: str) -> str:
    """The message with any copy of the secret masked (the client already redacts)."""
    secret = secret.strip()
    return message.replace(secret, "***") if secret else message


def _run_sandbox(args: argparse.Namespace) -> int:
    from docsapi.sandbox import serve

    try:
        serve(  # until Ctrl-C: it says "sandbox stopped" and returns
            port=args.port,
            seed=args.seed,
            spaces=args.spaces,
            users=args.users,
            teams=args.teams,
            grants_per_space=args.grants_per_space,
            latency=args.latency,
            model=args.model,
        )
    except ValueError as exc:
        raise _Failure(f"bad sandbox size: {exc}", EXIT_USAGE) from None
    except OSError as exc:
        # the sandbox's server says which address it could not listen on, and why
        reason = exc.strerror or str(exc)
        if not reason.startswith("cannot listen"):
            reason = f"cannot listen on 127.0.0.1:{args.port}: {reason}"
        raise _Failure(f"{reason}; choose another with --port.", EXIT_USAGE) from None
    # Ctrl-C is how the sandbox ends; it ends like every other command's
    print_line(INTERRUPTED_LINE, file=sys.stderr)
    return EXIT_INTERRUPTED


def _run_check_notebook(args: argparse.Namespace) -> int:
    from docsapi.notebook_check import check_notebooks, notebook_paths

    try:
        paths = notebook_paths(args.paths)
        findings = check_notebooks(paths, allow=args.allow)
    except (OSError, ValueError) as exc:
        raise _Failure(f"cannot check notebooks: {exc}", EXIT_USAGE) from None
    for finding in findings:
        print_line(finding)
    if findings:
        print_line(
            f"{len(findings)} possible credentials in {len({f.path for f in findings})} of "
            f"{len(paths)} notebooks: remove them (and clear the outputs that show them), "
            "then revoke any that were real.",
            file=sys.stderr,
        )
        return EXIT_API
    print_line(f"No token or key found in {len(paths)} notebooks.")
    return EXIT_OK


def _run_login(args: argparse.Namespace) -> int:
    import getpass

    from docsapi.credentials import logins as credentials

    network = args.adnetwork
    env_var = "ADNETWORK_API_KEY" if network else TOKEN_VARIABLE
    problem = credentials.keyring_problem(env_var)
    if problem is not None:
        raise _Failure(problem, EXIT_USAGE)
    target = f"{args.scheme}://{network}" if network else args.base_url
    what = "API key" if network else "API token"
    secret = getpass.getpass(f"{what} for {target} (not shown): ")
    try:
        if network:
            result = credentials.login_adnetwork(secret, network, scheme=args.scheme)
        else:
            result = credentials.login(secret, base_url=args.base_url)
    except ValidationError as exc:
        raise _Failure(_without(str(exc), secret), EXIT_USAGE) from None
    except DocsAPIError as exc:
        raise _Failure(_without(f"not logged in: {exc}", secret)) from None
    finally:
        secret = ""
    print_line(result)
    return EXIT_OK


def _run_logout(args: argparse.Namespace) -> int:
    from docsapi.credentials import logins as credentials

    network = args.adnetwork
    target = f"{args.scheme}://{network}" if network else args.base_url
    try:
        if network:
            removed = credentials.logout_adnetwork(network, scheme=args.scheme)
        else:
            removed = credentials.logout(base_url=args.base_url)
    except ValidationError as exc:
        raise _Failure(str(exc), EXIT_USAGE) from None
    except DocsAPIError as exc:
        raise _Failure(str(exc)) from None
    if removed:
        print_line(f"Logged out: the credential for {target} was removed from the keyring.")
    else:
        problem = credentials.keyring_problem()
        reason = " (no keyring is available on this system)" if problem else ""
        print_line(f"No credential was stored for {target}{reason}; nothing to remove.")
    return EXIT_OK


def _run_history(args: argparse.Namespace) -> int:
    from docsapi.audit.snapshot.store import history

    try:
        kept = history(args.folder, org_id=args.org)
    except ValidationError as exc:
        raise _Failure(str(exc), EXIT_USAGE) from None
    if kept.empty:
        print_line(f"No snapshots under {Path(args.folder).resolve()}.")
        return EXIT_OK
    shown = kept.assign(
        generated_at=kept["generated_at"].dt.strftime("%Y-%m-%d %H:%M:%S UTC"),
        complete=kept["complete"].map({True: "yes", False: "PARTIAL"}),
    )
    columns = ["org_id", "org_name", "generated_at", "complete", "spaces", "users", "findings"]
    columns += ["high", "path"]
    if kept["problem"].notna().any():
        columns.append("problem")
    table = shown[columns].astype(object).fillna("")
    table = table.map(terminal_line)  # one line per snapshot, whatever the names hold
    table["org_name"] = table["org_name"].map(lambda name: terminal_line(name, NAME_LIMIT))
    for line in table.to_string(index=False).splitlines():
        print_line(line)
    return EXIT_OK


def _load(path: str) -> PermissionAudit:
    from docsapi.audit import load_audit

    try:
        return load_audit(path)
    except (SnapshotError, ValidationError) as exc:
        raise _Failure(str(exc), EXIT_USAGE) from None


def _run_diff(args: argparse.Namespace) -> int:
    import pandas as pd

    previous, current = _load(args.old), _load(args.new)
    try:
        changes = current.diff(previous)
    except ValidationError as exc:
        raise _Failure(f"cannot compare these snapshots: {exc}", EXIT_USAGE) from None
    for note in changes.notes:
        note = terminal_line(note, DETAIL_LIMIT)
        print_line(f"{'PARTIAL AUDIT: ' if 'partial' in note else 'NOTE: '}{note}")
    name = _named(changes.org_name, changes.org_id)
    print_line(
        f"Changes in {name} from {changes.before:%Y-%m-%d %H:%M} UTC "
        f"to {changes.after:%Y-%m-%d %H:%M} UTC:"
    )
    count = changes.count
    print_line(
        f"Access: {count('granted')} granted, {count('revoked')} revoked, "
        f"{count('raised')} raised, {count('lowered')} lowered, "
        f"{count('rerouted')} through other paths."
    )
    print_line(
        f"Findings: {count('new findings')} new, {count('resolved findings')} resolved. "
        f"Exposure: {count('exposure added')} added, {count('exposure removed')} removed."
    )
    top = changes.top_changes(max(0, args.top))
    if not top.empty:
        print_line("Look at these first:")
        for change, space, who, what in top.itertuples(index=False):
            where = ", ".join(
                terminal_line(v, NAME_LIMIT) for v in (change, space, who) if not pd.isna(v)
            )
            print_line(f"  - {where}: {terminal_line(what, DETAIL_LIMIT)}")
    elif changes.empty:
        print_line("Nothing changed.")
    if args.html:
        print_line(f"HTML: {changes.to_html(args.html).resolve()}")
    if not changes.complete and not args.allow_partial:
        raise _Failure(
            "a snapshot is partial (see the PARTIAL AUDIT line above): its changes may be "
            "artefacts of missing data; pass --allow-partial to accept it.",
            EXIT_PARTIAL,
        )
    return EXIT_OK


def _run_review(args: argparse.Namespace) -> int:
    from docsapi.client import DocsClient
    from docsapi.review import PlanBusyError, PlanRefusedError
    from docsapi.review._cli import run_apply, show_dry_run

    options = {
        "allow_unsigned": args.allow_unsigned,
        "snapshot": args.snapshot,
        "without_snapshot": args.without_snapshot,
    }
    try:
        if args.dry_run:
            return show_dry_run(args.plan, args.results, **options)
        args.base_url = check_base_url(args.base_url, "--base-url")
        require_token(args.base_url, TOKEN_VARIABLE)
        client = DocsClient(base_url=args.base_url)  # token: GITBOOK_API_TOKEN, then the keyring
        return run_apply(
            client,
            args.plan,
            args.results,
            progress=not args.no_progress,
            allow_self_demotion=args.allow_self_demotion,
            send_stale=args.send_stale,
            again=args.again,
            **options,
        )
    except (PlanRefusedError, PlanBusyError) as exc:
        raise _Failure(str(exc), EXIT_REFUSED) from None
    except OSError as exc:  # the lock or the journal (the state folder), or the results
        raise _Failure(
            f"cannot keep the journal or the results of the plan {args.plan}: {exc}", EXIT_USAGE
        ) from None
    except ValidationError as exc:
        raise _Failure(str(exc), EXIT_USAGE) from None


def _run_verify(args: argparse.Namespace) -> int:
    from docsapi.review import verify

    try:
        verdict = verify(args.path, snapshot=args.snapshot, without_snapshot=args.without_snapshot)
    except (SnapshotError, ValidationError) as exc:
        raise _Failure(str(exc), EXIT_USAGE) from None
    for fact in verdict.facts:
        print_line(one_line(f"{verdict.kind}: {fact}"))
    for problem in verdict.problems:
        print_line(one_line(f"PROBLEM: {problem}"))
    shown = shown_path(verdict.path)
    if not verdict.ok:
        count = len(verdict.problems)
        print_line(f"NOT VERIFIED: {shown} ({count} problem{'s' if count != 1 else ''}).")
        return EXIT_API
    if verdict.signed_with is not None:
        print_line(
            f"Verified: {shown} is as it was written, signed with key {verdict.signed_with}."
        )
        return EXIT_OK
    if UNSIGNED not in verdict.facts:
        print_line(one_line(UNSIGNED))
    if args.require_signature:
        print_line(
            f"NOT VERIFIED: {shown} is not signed with a key on this machine (--require-signature)."
        )
        return EXIT_API
    print_line(f"Verified: {shown} is as it was written, as far as a digest shows (unsigned).")
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    """Run the ``docsapi`` command.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after the program name; ``sys.argv[1:]`` when omitted.

    Returns
    -------
    int
        The exit status: 0 success, 1 API failure (for ``review apply``: a call failed; for
        ``verify``: a problem found), 2 usage or configuration problem, 3 a partial audit
        without ``--allow-partial``, 4 a review plan refused or being applied by another run,
        5 calls of a review plan not sent because their target changed since the review,
        130 interrupted by Ctrl-C.

    Examples
    --------
    >>> main(["demo", "--out", "report.html", "--no-progress"])  # doctest: +ELLIPSIS
    Audited organization Stark Devices (...): ... spaces, ... users with access, ...
    Findings: ... high, ... medium, ... low.
    The organization follows the platform's current rules: the nearest level decides; ...
    Rule set: precedence. The platform's aggregate matches ...
    Report: ...report.html
    0
    """
    with _terminal_output():
        return _main(argv)


@contextlib.contextmanager
def _terminal_output() -> Iterator[None]:
    """While the command runs, everything it prints goes through the terminal rule.

    Standard output and standard error are wrapped in
    :class:`~docsapi.core.safe_text.TerminalStream` (a name holding ESC or U+202E cannot
    reach the terminal raw, whichever line prints it: a summary, a warning, a traceback),
    and every warning (matplotlib's missing glyphs too) is one ``docsapi: warning:`` line.
    """
    import warnings

    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = TerminalStream(sys.stdout), TerminalStream(sys.stderr)
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        sys.stdout, sys.stderr = streams


def _show_warning(message: Warning | str, *_args: object, **_kwargs: object) -> None:
    print_line(f"docsapi: warning: {message}", file=sys.stderr, limit=DETAIL_LIMIT)


def _main(argv: list[str] | None) -> int:
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        return args.handler(args)
    except _Failure as failure:
        print_line(one_line(f"docsapi: error: {failure}"), file=sys.stderr)
        return failure.status
    except OSError as exc:
        print_line(one_line(f"docsapi: error: cannot write the report: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print_line(INTERRUPTED_LINE, file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception:  # a bug: its traceback, through the terminal rule like every line
        import traceback

        traceback.print_exc()
        print_line(
            "docsapi: error: unexpected failure (a bug): please report it with the lines above.",
            file=sys.stderr,
        )
        return EXIT_API


if __name__ == "__main__":
    raise SystemExit(main())
