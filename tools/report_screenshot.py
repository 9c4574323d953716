"""Take the README's picture of the report: its first screen as a headless Chromium shows it.

The demo organization is audited offline twice, with a change between (a guest given ``edit``
on a space, as a reviewer would find it between two ``docsapi demo --save`` runs), so the
first screen shows the state sentence, "Fix first" and "What changed since". The report is
opened by Chromium (Debian's ``/usr/bin/chromium``, or one on ``PATH``) in a 1400 x 1000
window; the screenshot is reduced to 64 colours so the picture stays small::

    python tools/report_screenshot.py                 # writes docs/images/audit-report.png

The full test run (``pytest --full``, CI) takes the same picture in
``tests/test_report_browser.py`` and writes it here, so the README's picture follows the
report.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "docs" / "images" / "audit-report.png"
WINDOW = (1400, 1000)
BROWSERS = ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome")


def chromium() -> str:
    """The path of a Chromium or Chrome on this machine."""
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    raise SystemExit("no Chromium found: apt-get install chromium")


def demo_report(folder: Path, sandbox=None) -> Path:
    """The demo organization's audit report, written into ``folder``: audited, saved, changed
    (a guest given ``edit`` on a space they did not reach), audited again with the first as
    ``previous``. ``sandbox``: a running seed-0 sandbox to use (default: one of its own)."""
    from contextlib import nullcontext

    import docsapi
    from docsapi.sandbox import Sandbox

    with nullcontext(sandbox) if sandbox is not None else Sandbox(seed=0) as running:
        client = running.client()
        before = docsapi.audit_permissions(client, running.org_id, progress=False)
        before.save(folder / "before")
        guest = running.demo["guest_ids"][0]
        reached = set(before.effective.loc[before.effective["user_id"] == guest, "space_id"])
        space = next(s for s in running.demo["space_ids"] if s not in reached)
        running.grant(space, guest, "edit")
        after = docsapi.audit_permissions(
            client, running.org_id, progress=False, previous=folder / "before"
        )
    return after.to_html(folder / "audit-report.html")


def small_png(raw: Path, target: Path) -> Path:
    """The PNG ``raw`` reduced to 64 colours, written to ``target``."""
    from PIL import Image

    target.parent.mkdir(parents=True, exist_ok=True)
    with Image.open(raw) as image:
        image.convert("RGB").quantize(colors=64).save(target, optimize=True)
    return target


def screenshot(page: Path, target: Path) -> Path:
    """``page`` as Chromium shows it in a :data:`WINDOW`, saved to ``target`` in 64 colours."""
    raw = page.with_suffix(".png")
    subprocess.run(
        [
            chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--window-size={WINDOW[0]},{WINDOW[1]}",
            f"--screenshot={raw}",
            page.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return small_png(raw, target)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=TARGET, help=f"default: {TARGET}")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        written = screenshot(demo_report(Path(folder)), args.out)
    print(f"{written} ({written.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main()
