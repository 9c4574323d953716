"""The packaged API description is what tools/build_api_spec.py derives from the vendored one."""

from __future__ import annotations

import gzip
import importlib.util
import json
from pathlib import Path

from docsapi.api._spec import DESCRIPTION_FILE, load_description

ROOT = Path(__file__).resolve().parent.parent
FULL = ROOT / "tests" / "openapi" / "gitbook-openapi.json"


def _build_script():
    spec = importlib.util.spec_from_file_location(
        "build_api_spec", ROOT / "tools" / "build_api_spec.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_packaged_description_is_derived_from_the_vendored_one():
    build = _build_script()
    derived = build.derive(json.loads(FULL.read_text()))
    packaged = (ROOT / "docsapi" / "api" / DESCRIPTION_FILE).read_bytes()
    assert json.loads(gzip.decompress(packaged)) == derived
    assert packaged == build.encode(derived)  # byte for byte: the file is reproducible
    assert load_description() == derived


def test_derivation_keeps_every_operation_and_what_the_client_reads():
    full = json.loads(FULL.read_text())
    derived = _build_script().derive(full)
    methods = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}
    full_ops = {(p, m) for p, item in full["paths"].items() for m in item if m in methods}
    kept_ops = {(p, m) for p, item in derived["paths"].items() for m in item}
    assert kept_ops == full_ops
    sites = derived["paths"]["/orgs/{organizationId}/sites"]["get"]
    assert [p["name"] for p in sites["parameters"]][:3] == ["organizationId", "page", "limit"]
    assert set(sites["responses"]) == {"200"}  # error responses are not kept
    assert "Site" in derived["components"]["schemas"]
    assert len(gzip.compress(json.dumps(derived).encode())) < FULL.stat().st_size / 10
