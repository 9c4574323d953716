"""The notebook scanner: no credential in the worked notebooks; planted ones found anywhere."""

from __future__ import annotations

import base64
import json
import random
import string
from pathlib import Path

import nbformat
import pytest

from docsapi.cli import main
from docsapi.notebook_check import ALLOW_MARKER, Finding, check_notebooks, scan_notebook
from docsapi.sandbox.adnetwork._data import make_keys
from docsapi.sandbox.core._auth import TokenRegistry

REPO_ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO_ROOT / "notebooks"
RNG = random.Random(16)


def _random(length: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(length))


def _b64(data: dict | bytes) -> str:
    raw = json.dumps(data).encode() if isinstance(data, dict) else data
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _jwt() -> str:
    header, payload = {"alg": "HS256", "typ": "JWT"}, {"sub": "u_1", "exp": 1893456000}
    return f"{_b64(header)}.{_b64(payload)}.{_b64(_random(32).encode())}"


def _planted() -> list[tuple[str, str, str]]:
    """(kind, line to plant, the secret in it) for every kind the scanner knows."""
    sandbox_tokens = TokenRegistry(seed=7, owner_id="u_owner", other_user_id="u_other").named
    ad_keys = make_keys(7)
    bearer, header_key, password = _random(40), _random(32), _random(20)
    rsa_body, jwt = _random(64), _jwt()
    cases = [
        ("platform token", 'client = docsapi.DocsClient(token="{}")', "gb_api_" + _random(40)),
        *(("sandbox token", "TOKEN = {!r}", token) for token in sandbox_tokens.values()),
        *(
            ("ad-network key", "ads = AdNetworkClient('n', api_key='{}')", key)
            for key in ad_keys.values()
        ),
        ("bearer credential", "curl -H 'Authorization: Bearer {}' https://api", bearer),
        ("api key header", 'headers = {{"X-Api-Key": "{}"}}', header_key),
        ("JSON web token", "APITemporaryToken(token='{}')", jwt),
        ("secret assigned to a name", 'password = "{}"', password),
        ("secret assigned to a name", 'os.environ["MY_SERVICE_TOKEN"] = "{}"', _random(24)),
        ("secret assigned to a name", "export CLIENT_SECRET={}", _random(30)),
        ("secret assigned to a name", '{{"refresh_token": "{}"}}', _random(36)),
    ]
    planted = [(kind, line.format(value), value) for kind, line, value in cases]
    for label in ("RSA ", "EC ", "OPENSSH ", ""):
        marker = f"-----BEGIN {label}PRIVATE KEY-----"
        planted.append(("private key", f"{marker}{rsa_body}", marker))
    return planted


PLANTED = _planted()
ORDINARY = [
    "token = sb.token",
    'api_key = os.environ["ADNETWORK_API_KEY"]',
    'TOKEN_ENV_VAR = "GITBOOK_API_TOKEN"',
    "DocsClient(base_url='http://127.0.0.1:8765/v1', token=set)",
    'curl -H "Authorization: Bearer <token>" http://127.0.0.1:8765/v1/orgs/<org>/spaces',
    "Secret('***')",
    'password = "<your password>"',
    'client = docsapi.DocsClient(token="gb_api_...")',
    'tokenizer = "bert-base-uncased-v2"',
    "token = getTokenFromVault(name)",
    "TOKEN = fetchPersonalAccessToken",
    'token_url = "https://auth.example.com/oauth2/v2/token"',
    "request_id = '94df39a6-7c55-43c8-b8ab-616c3edfd133'",
    "checksum = 'a3f1c9e07b2d48f6a3f1c9e07b2d48f6a3f1c9e07b2d48f6'",
    "secret_santa_rounds = 12",
    "The X-Api-Key header carries the key generated in /admin/settings.html.",
    "cursor: eyJvIjoxMDB9 (the next page)",
    "Keys and tokens never appear in a repr, a log line or a saved notebook.",
]


def _notebook(*, source: str = "", output: dict | None = None, cell_meta=None, nb_meta=None):
    cell = nbformat.v4.new_code_cell(source)
    if output is not None:
        cell.outputs.append(output)
    if cell_meta:
        cell.metadata.update(cell_meta)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Title"), cell])
    notebook.metadata.update(nb_meta or {})
    return notebook


PLACES = {
    "source": lambda line: _notebook(source=f"x = 1\n{line}\n"),
    "stream output": lambda line: _notebook(
        output=nbformat.v4.new_output("stream", name="stdout", text=f"ok\n{line}\n")
    ),
    "result output": lambda line: _notebook(
        output=nbformat.v4.new_output(
            "execute_result", data={"text/plain": f"ok\n{line}"}, execution_count=1
        )
    ),
    "html output": lambda line: _notebook(
        output=nbformat.v4.new_output(
            "display_data", data={"text/html": f"<p>ok</p>\n<pre>{line}</pre>"}
        )
    ),
    "error output": lambda line: _notebook(
        output=nbformat.v4.new_output(
            "error", ename="ValueError", evalue="bad", traceback=["Traceback", line]
        )
    ),
    "cell metadata": lambda line: _notebook(cell_meta={"note": ["ok", line]}),
    "widget state": lambda line: _notebook(
        nb_meta={"widgets": {"state": {"m1": {"state": {"value": line}}}}}
    ),
}
EXPECTED_PLACE = {
    "source": (2, "source", 2),
    "stream output": (2, "output 1", 2),
    "result output": (2, "output 1", 2),
    "html output": (2, "output 1", 2),
    "error output": (2, "output 1", 2),
}


def test_no_worked_notebook_holds_a_credential():
    notebooks = sorted(NOTEBOOKS.glob("*.ipynb"))
    assert notebooks
    assert check_notebooks(notebooks) == []


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize(("kind", "line", "secret"), PLANTED, ids=[p[0] for p in PLANTED])
def test_a_planted_credential_is_found_wherever_it_is_saved(kind, line, secret, place):
    findings = scan_notebook(PLACES[place](line), path="planted.ipynb")

    assert [finding.kind for finding in findings] == [kind]
    finding = findings[0]
    if place in EXPECTED_PLACE:
        assert (finding.cell, finding.part, finding.line) == EXPECTED_PLACE[place]
    elif place == "cell metadata":
        assert (finding.cell, finding.part) == (2, "metadata note")
    else:
        assert (finding.cell, finding.part) == (None, "metadata widgets/state/m1/state/value")
    if kind != "private key":
        assert secret not in str(finding) and secret not in repr(finding)
        assert finding.masked.endswith(f"({len(secret)} chars)")


@pytest.mark.parametrize("line", ORDINARY)
def test_ordinary_text_is_not_flagged(line):
    assert scan_notebook(PLACES["source"](line)) == []
    assert scan_notebook(PLACES["stream output"](line)) == []


def test_the_projects_own_prose_is_not_flagged():
    prose = "\n".join(
        path.read_text(encoding="utf-8")
        for path in [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
    )
    assert scan_notebook(_notebook(source=prose)) == []


def test_images_in_outputs_are_not_read():
    png = base64.b64encode(b"-----BEGIN PRIVATE KEY-----" + bytes(range(256))).decode()
    notebook = _notebook(output=nbformat.v4.new_output("display_data", data={"image/png": png}))
    assert scan_notebook(notebook) == []


def test_the_allow_marker_covers_its_own_line_only():
    fake = "gb_api_" + _random(30)
    notebook = _notebook(source=f'token = "{fake}"  # {ALLOW_MARKER}\nother = "{fake}"\n')
    findings = scan_notebook(notebook)
    assert [(finding.kind, finding.line) for finding in findings] == [("platform token", 2)]


def test_allowed_values_are_skipped_everywhere_and_others_are_not():
    fake, real = "gb_api_" + _random(30), "gb_api_" + _random(30)
    notebook = _notebook(
        source=f'DocsClient(token="{fake}")',
        output=nbformat.v4.new_output("stream", name="stdout", text=f"{fake}\n{real}\n"),
    )
    findings = scan_notebook(notebook, allow=[fake])
    assert [(finding.part, finding.line) for finding in findings] == [("output 1", 2)]


def test_cli_reports_findings_masked_and_exits_1(tmp_path, capsys, canary_token):
    clean = tmp_path / "clean.ipynb"
    leaky = tmp_path / "nested" / "leaky.ipynb"
    leaky.parent.mkdir()
    nbformat.write(_notebook(source="print('hello')"), clean)
    nbformat.write(_notebook(source=f'client = DocsClient(token="{canary_token}")'), leaky)

    status = main(["check-notebook", str(tmp_path)])

    out, err = capsys.readouterr()
    assert status == 1
    masked = f"gb_api… ({len(canary_token)} chars)"
    assert out.splitlines() == [f"{leaky}: cell 2 source, line 1: platform token {masked}"]
    assert "1 possible credentials in 1 of 2 notebooks" in err
    assert canary_token not in out + err


def test_cli_exits_0_when_clean_and_skips_checkpoints(tmp_path, capsys, canary_token):
    nbformat.write(_notebook(source="print('hello')"), tmp_path / "clean.ipynb")
    checkpoints = tmp_path / ".ipynb_checkpoints"
    checkpoints.mkdir()
    nbformat.write(
        _notebook(source=f'token = "{canary_token}"'), checkpoints / "clean-checkpoint.ipynb"
    )

    assert main(["check-notebook", str(tmp_path / "clean.ipynb"), str(tmp_path)]) == 0
    assert "No token or key found in 2 notebooks." in capsys.readouterr().out


def test_cli_allow_option(tmp_path, capsys, canary_token):
    path = tmp_path / "demo.ipynb"
    nbformat.write(_notebook(source=f'token = "{canary_token}"'), path)
    assert main(["check-notebook", str(path), "--allow", canary_token]) == 0


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("missing.ipynb", None, "no such file or folder"),
        ("broken.ipynb", "{not json", "is not a notebook"),
        ("list.ipynb", "[1, 2]", "has no list of cells"),
    ],
)
def test_cli_refuses_what_is_not_a_notebook(tmp_path, capsys, name, content, message):
    path = tmp_path / name
    if content is not None:
        path.write_text(content)
    assert main(["check-notebook", str(path)]) == 2
    assert message in capsys.readouterr().err


def test_findings_read_as_one_line():
    finding = Finding("a.ipynb", None, "metadata", 4, "sandbox token", "sbx_us… (37 chars)")
    assert str(finding) == "a.ipynb: metadata, line 4: sandbox token sbx_us… (37 chars)"
