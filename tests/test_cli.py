"""The ``docsapi`` command: demo, audit against a server, and its one-line errors."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from interrupt import interruptible

from docsapi.cli import main

REPO = Path(__file__).resolve().parents[1]


def expected_findings_line(sandbox) -> str:
    """The findings line of an audit of the sandbox's organization, computed by the library."""
    from docsapi import audit_permissions

    audit = audit_permissions(sandbox.client(), sandbox.org_id, progress=False)
    counts = audit.findings["severity"].value_counts()
    return f"Findings: {counts['high']} high, {counts['medium']} medium, {counts['low']} low."


def test_demo_writes_the_report_and_prints_a_summary(sandbox, tmp_path, capsys):
    out = tmp_path / "report.html"
    status = main(
        [
            "demo",
            "--out",
            str(out),
            "--no-progress",
            "--excel",
            str(tmp_path / "audit.xlsx"),
            "--csv",
            str(tmp_path / "csv"),
        ]
    )
    printed = capsys.readouterr()
    assert status == 0, printed.err
    assert out.stat().st_size > 10_000
    assert "<h2>Findings</h2>" in out.read_text(encoding="utf-8")
    assert (tmp_path / "audit.xlsx").exists() and (tmp_path / "csv" / "findings.csv").exists()
    demo = sandbox.demo  # the demo command uses the same seed, 0 (and `sandbox` is reset)
    assert f"{len(demo['space_ids'])} spaces" in printed.out
    assert expected_findings_line(sandbox) in printed.out
    assert f"Report: {out.resolve()}" in printed.out


def _console_script() -> list[str]:
    """The installed ``docsapi`` script, or the same entry point through ``python -m``."""
    script = Path(sys.executable).parent / "docsapi"
    return [str(script)] if script.exists() else [sys.executable, "-m", "docsapi.cli"]


def test_demo_through_the_console_script_writes_audit_report_html_here(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("GITBOOK_API_TOKEN", None)
    done = subprocess.run(
        [*_console_script(), "demo", "--no-progress"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "audit-report.html").exists()
    assert "Findings:" in done.stdout and "audit-report.html" in done.stdout


def run_audit(capsys, *args: str) -> tuple[int, str]:
    status = main(["audit", "--no-progress", *args])
    printed = capsys.readouterr()
    return status, printed.out + printed.err


def test_audit_without_a_token_says_how_to_set_one(sandbox, capsys, monkeypatch):
    monkeypatch.delenv("GITBOOK_API_TOKEN", raising=False)
    status, output = run_audit(capsys, "--org", sandbox.org_id, "--base-url", sandbox.url)
    assert status == 2
    assert "GITBOOK_API_TOKEN" in output and "docsapi login" in output
    assert sandbox.request_count == 0


def test_audit_uses_the_token_stored_by_login(sandbox, capsys, monkeypatch, tmp_path):
    from docsapi.credentials.logins import login

    monkeypatch.delenv("GITBOOK_API_TOKEN", raising=False)
    login(sandbox.token, base_url=sandbox.url)
    sandbox.reset()
    out = tmp_path / "report.html"
    status, output = run_audit(
        capsys, "--org", sandbox.org_id, "--base-url", sandbox.url, "--out", str(out)
    )
    assert status == 0, output
    assert out.exists() and sandbox.request_count > 0
    assert sandbox.token not in output


def test_audit_with_an_unknown_token_reports_401_without_the_token(
    sandbox, capsys, monkeypatch, canary_token, tmp_path
):
    monkeypatch.setenv("GITBOOK_API_TOKEN", canary_token)
    status, output = run_audit(
        capsys,
        "--org",
        sandbox.org_id,
        "--base-url",
        sandbox.url,
        "--out",
        str(tmp_path / "r.html"),
    )
    assert status == 1
    assert "rejected the token (401)" in output and len(output.strip().splitlines()) == 1
    assert canary_token not in output and "Traceback" not in output
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("own_token", [False, True])
def test_audit_with_a_read_only_token_reports_403(
    sandbox, capsys, monkeypatch, canary_token, own_token
):
    if own_token:
        token = sandbox.tokens["oauth:space:read"]
    else:
        token = canary_token
        sandbox.add_token(canary_token, scheme="oauth", scopes=("space:read",))
    monkeypatch.setenv("GITBOOK_API_TOKEN", token)
    status, output = run_audit(capsys, "--org", sandbox.org_id, "--base-url", sandbox.url)
    assert status == 1
    assert "(403)" in output and "organization admin" in output
    assert token not in output and "Traceback" not in output


def test_a_partial_audit_says_what_it_could_not_see_and_exits_3(
    sandbox, capsys, monkeypatch, canary_token, tmp_path
):
    member = sandbox.demo["other_user_id"]  # an ordinary member: not an organization admin
    sandbox.add_token(canary_token, user_id=member)
    monkeypatch.setenv("GITBOOK_API_TOKEN", canary_token)
    out = tmp_path / "report.html"
    options = ("--org", sandbox.org_id, "--base-url", sandbox.url, "--out", str(out))
    status, output = run_audit(capsys, *options)
    assert status == 3
    partial = [line for line in output.splitlines() if line.startswith("PARTIAL AUDIT")]
    assert len(partial) == 1 and "token role" in partial[0]
    assert "not an organization admin" in partial[0]
    assert "--allow-partial" in output and out.exists()
    assert "PARTIAL AUDIT" in out.read_text(encoding="utf-8")
    status, output = run_audit(capsys, *options, "--allow-partial")
    assert status == 0 and "PARTIAL AUDIT" in output


def test_audit_of_an_unknown_organization_reports_404(sandbox, capsys, monkeypatch, canary_token):
    sandbox.add_token(canary_token, user_id=sandbox.demo["owner_id"])
    monkeypatch.setenv("GITBOOK_API_TOKEN", canary_token)
    status, output = run_audit(capsys, "--org", "no-such-org", "--base-url", sandbox.url)
    assert status == 1
    assert "organization no-such-org was not found (404)" in output
    assert canary_token not in output


def test_audit_with_a_good_token_writes_a_report_free_of_it(
    sandbox, capsys, monkeypatch, canary_token, tmp_path
):
    sandbox.add_token(canary_token, user_id=sandbox.demo["owner_id"])
    monkeypatch.setenv("GITBOOK_API_TOKEN", canary_token)
    out, csv = tmp_path / "report.html", tmp_path / "csv"
    status, output = run_audit(
        capsys,
        "--org",
        sandbox.org_id,
        "--base-url",
        sandbox.url,
        "--out",
        str(out),
        "--csv",
        str(csv),
        "--workers",
        "4",
        "--allow-partial",
    )
    assert status == 0, output
    assert expected_findings_line(sandbox) in output
    written = [out, *csv.iterdir()]
    assert all(canary_token not in path.read_text(encoding="utf-8") for path in written)
    assert canary_token not in output


@pytest.mark.full  # several seconds: `pytest --full` (and CI)
def test_audit_model_chooses_the_rule_set_and_the_summary_names_the_matching_one(
    sandbox, capsys, monkeypatch, canary_token, tmp_path
):
    sandbox.add_token(canary_token, user_id=sandbox.demo["owner_id"])
    monkeypatch.setenv("GITBOOK_API_TOKEN", canary_token)
    common = ["--org", sandbox.org_id, "--base-url", sandbox.url, "--out"]
    status, output = run_audit(capsys, *common, str(tmp_path / "a.html"), "--model", "highest")
    assert status == 0, output
    assert "Rule set: highest. The platform's aggregate matches the precedence rule set" in output
    assert "run it with model='precedence'" in output
    assert "Rule set: highest." in (tmp_path / "a.html").read_text(encoding="utf-8")
    status, output = run_audit(capsys, *common, str(tmp_path / "b.html"))
    assert status == 0 and "Rule set: precedence." in output and "run it with" not in output
    with pytest.raises(SystemExit):
        main(["audit", "--org", sandbox.org_id, "--model", "lowest"])
    assert "--model: 'lowest' is not allowed: choose from precedence, highest" in (
        capsys.readouterr().err
    )


def test_no_command_prints_help_and_fails(capsys):
    assert main([]) == 2
    assert "demo" in capsys.readouterr().err


def test_zero_workers_is_a_usage_error(capsys):
    assert main(["demo", "--workers", "0"]) == 2
    assert "--workers: must be at least 1" in capsys.readouterr().err


def test_sandbox_command_serves_until_interrupted(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1"}
    process = interruptible(
        [
            *_console_script(),
            *("sandbox", "--port", "0", "--seed", "3", "--spaces", "45", "--model", "highest"),
        ],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = process.stdout.readline()
        assert "(seed 3, model highest)" in first
        url = re.search(r"http://127\.0\.0\.1:\d+/v1", first).group(0)
        org = process.stdout.readline().split()[-1]
        token = next(
            line.split()[-1]
            for line in iter(process.stdout.readline, "")
            if line.startswith("token user ")
        )
        headers = {"Authorization": f"Bearer {token}"}
        request = urllib.request.Request(f"{url}/user", headers=headers)
        with urllib.request.urlopen(request, timeout=30) as answer:
            assert answer.status == 200 and json.load(answer)["object"] == "user"
        request = urllib.request.Request(f"{url}/orgs/{org}/spaces?limit=100", headers=headers)
        with urllib.request.urlopen(request, timeout=30) as answer:
            assert len(json.load(answer)["items"]) == 45
    finally:
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=20)
    # Ctrl-C is how the sandbox ends, and it ends like every command's: one line, 130
    assert process.returncode == 130, stderr
    assert stderr.splitlines() == ["docsapi: interrupted (Ctrl-C)."]


def test_sandbox_command_refuses_a_size_below_the_minimum(capsys):
    assert main(["sandbox", "--port", "0", "--spaces", "3"]) == 2
    assert "bad sandbox size" in capsys.readouterr().err


@pytest.mark.full  # several seconds: `pytest --full` (and CI)
def test_audit_save_reads_the_log_from_the_last_snapshot_and_keeps_its_events(
    sandbox, capsys, monkeypatch, tmp_path
):
    from docsapi.audit import load_audit

    monkeypatch.setenv("GITBOOK_API_TOKEN", sandbox.token)
    common = ["--org", sandbox.org_id, "--base-url", sandbox.url, "--save", str(tmp_path / "kept")]
    assert run_audit(capsys, *common, "--out", str(tmp_path / "first.html"))[0] == 0
    before = sandbox.request_count
    assert run_audit(capsys, *common, "--out", str(tmp_path / "second.html"))[0] == 0
    reads = [p for _m, p, _s in sandbox.request_log[before:] if "/audit-events?" in p]
    window = [p for p in reads if "action=" not in p]
    assert len(window) == 1  # only what is new since the first snapshot: one page
    assert not [p for p in reads if "action=" in p]  # the snapshot's creators are kept
    first, second = sorted((tmp_path / "kept" / sandbox.org_id).iterdir())
    earlier, later = load_audit(first), load_audit(second)
    assert later.data.events_since == earlier.data.events_since
    assert set(later.data.events["id"]) == set(earlier.data.events["id"])
    before = sandbox.request_count
    # Without the log, who created the private spaces is unknown: a partial audit (exit 3).
    assert run_audit(capsys, *common, "--no-log", "--out", str(tmp_path / "third.html"))[0] == 3
    assert not [p for _m, p, _s in sandbox.request_log[before:] if "/audit-events" in p]
    assert run_audit(capsys, *common, "--log-days", "0")[0] == 2
