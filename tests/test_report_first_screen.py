"""The report's first screen: the organization's state in words that follow the rule set,
"Fix first" (each high finding as a sentence linking to its row), "What changed since"."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import docsapi
from docsapi.audit.report.words import RULE_WORDS, rule_words
from docsapi.audit.rules import RULES
from docsapi.core.rule_sets import COMBINING, RULE_SET_WORDS, RULE_SETS

REPO = Path(__file__).resolve().parents[1]


def _audit(sandbox, model: str = "precedence", **options):
    return docsapi.audit_permissions(
        sandbox.client(), sandbox.org_id, progress=False, model=model, **options
    )


def _page(audit, tmp_path: Path, **options) -> str:
    return audit.to_html(tmp_path / "report.html", **options).read_text(encoding="utf-8")


def _words(page: str) -> str:
    """The page's text: tags removed, entities decoded, whitespace runs as one space."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def _before(page: str, marker: str) -> str:
    """The page's text before ``marker`` (the first screen: before the folded counts)."""
    return _words(page[: page.index(marker)])


FIRST_SCREEN_END = '<details class="counts">'


@pytest.mark.parametrize(
    ("platform", "model"),
    [(p, m) for p in RULE_SETS for m in RULE_SETS],
)
def test_the_report_explains_how_roles_combine_under_the_rule_set_it_used(
    request, tmp_path, platform, model
):
    sandbox = request.getfixturevalue("sandbox" if platform == "precedence" else "highest_sandbox")
    page = _words(_page(_audit(sandbox, model), tmp_path))
    other = next(r for r in RULE_SETS if r != model)
    assert COMBINING[model] in page
    assert COMBINING[other] not in page
    assert "highest role over their paths" not in page  # the old, hard-coded sentence
    first = page.split(" Fix first ")[0]
    # the state sentence names the rules the platform follows, in words
    assert (
        f"The organization follows {RULE_SET_WORDS[platform]}; all 30 spaces checked agree."
        in first
    )
    if platform != model:  # and says the audit applied the other one, and what to run
        assert f"This audit applied {RULE_SET_WORDS[model]}: run it again with" in first
        assert f"--model {platform}" in first
    else:
        assert "This audit applied" not in first


def test_fix_first_says_who_what_which_door_since_when_by_whom_and_the_fix(sandbox, tmp_path):
    audit = _audit(sandbox)
    page = _page(audit, tmp_path)
    first = page[: page.index(FIRST_SCREEN_END)]
    items = re.findall(
        r'<li><a href="#(finding-\d+)" title="([^"]+)">([^<]+)</a>: (.*?)</li>', first
    )
    high = audit.findings[audit.findings["severity"] == "high"]
    assert len(items) == min(len(high), 6)
    assert len({code for _, code, _, _ in items}) == min(high["rule"].nunique(), 6)  # one of each
    for anchor, hover, words, sentence in items:
        # the link points at the finding's row, whose rule it names in words, code on hover
        row = re.search(rf'<tr class="sev-high" id="{anchor}">(.*?)</tr>', page).group(1)
        code = html.unescape(hover).split(":")[0]
        assert words == html.escape(rule_words(code), quote=True)
        assert f'title="{hover}">{words}</td>' in row
        finding = audit.findings.iloc[int(anchor.split("-")[1])]
        said = html.unescape(re.sub(r"<[^>]+>", "", sentence))
        assert finding["rule"] == code
        action = re.split(r"(?<=\.)\s+(?=[A-Z])", finding["detail"])[-1]
        assert f"Fix: {action}" in said
        if pd.notna(finding["principal_name"]):
            assert finding["principal_name"] in said
        if pd.notna(finding["granted_by"]):
            assert f"since {finding['granted_at']:%Y-%m-%d}, by {finding['granted_by']}" in said
        if str(finding["principal_type"]) == "user" and pd.notna(finding["space_id"]):
            assert " through " in said
    guest = next(i for i in items if i[1].startswith("guest_write:"))
    finding = audit.findings.iloc[int(guest[0].split("-")[1])]
    paths = audit.paths
    deciding = paths[
        (paths["space_id"] == finding["space_id"])
        & (paths["user_id"] == finding["principal_id"])
        & (paths["status"] == "decides")
    ]
    door = (
        "a direct grant"
        if deciding["kind"].iloc[0] == "direct"
        else deciding["source_name"].iloc[0]
    )
    assert f"through {door}" in html.unescape(guest[3])


def test_the_first_screen_has_no_counts_and_no_thresholds(sandbox, tmp_path):
    page = _page(_audit(sandbox), tmp_path)
    first = _before(page, FIRST_SCREEN_END)
    assert "admin_share=" not in first and "severity" in first  # "12 of high severity"
    counts = page[page.index(FIRST_SCREEN_END) :]
    assert "admin_share=0.5" in _words(counts.split("</details>")[0])


def test_rule_codes_are_words_with_the_code_on_hover(sandbox, tmp_path):
    audit = _audit(sandbox)
    page = _page(audit, tmp_path)
    assert set(RULE_WORDS) == set(RULES)  # every rule has its words
    table = page[page.index("<h2>Findings</h2>") :]
    for code in audit.findings["rule"].unique():
        assert f'title="{code}: {html.escape(RULES[code].description, quote=True)}">' in table
        assert f">{code}<" not in page  # never shown as a code


def test_what_changed_lists_the_new_access_and_finding_first(sandbox, tmp_path):
    before = _audit(sandbox)
    before.save(tmp_path / "before")
    guest = sandbox.demo["guest_ids"][0]
    reached = set(before.effective.loc[before.effective["user_id"] == guest, "space_id"])
    space = next(s for s in sandbox.demo["space_ids"] if s not in reached)
    sandbox.grant(space, guest, "edit")
    title = before.data.spaces.set_index("id").loc[space, "title"]
    after = _audit(sandbox, previous=tmp_path / "before")
    assert after.previous is not None
    page = _page(after, tmp_path)  # the previous audit given to audit_permissions
    since = f"What changed since {pd.Timestamp(before.generated_at):%Y-%m-%d %H:%M} UTC"
    first = _before(page, FIRST_SCREEN_END)
    assert since in first
    changed = first[first.index(since) :]
    assert changed.index("New") < changed.index("Granted") < changed.index("Access: 1 granted")
    assert title in changed and "Findings: 1 new, 0 resolved" in changed
    # the same from to_html(previous=), and none without a previous audit
    fresh = _audit(sandbox)
    assert since in _before(_page(fresh, tmp_path, previous=before), FIRST_SCREEN_END)
    assert "What changed" not in _page(fresh, tmp_path)


@pytest.mark.full  # two demo runs, a minute: the quick run has the same from to_html(previous=)
def test_demo_saved_twice_shows_what_changed_since_the_first(tmp_path):
    command = [sys.executable, "-m", "docsapi.cli", "demo", "--no-progress", "--save", "kept"]
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    for name in ("first.html", "second.html"):
        done = subprocess.run(
            [*command, "--out", name], cwd=tmp_path, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
    assert "What changed" not in (tmp_path / "first.html").read_text(encoding="utf-8")
    first_snapshot = min((tmp_path / "kept").glob("*/*"))
    taken = pd.Timestamp(first_snapshot.name).strftime("%Y-%m-%d %H:%M")
    second = _before((tmp_path / "second.html").read_text(encoding="utf-8"), FIRST_SCREEN_END)
    assert f"What changed since {taken} UTC" in second
