"""Take the README's picture of the report: the demo's audit report as a headless Chromium shows it.

The demo organization is audited offline (as ``docsapi demo`` does), the report is written to a
temporary folder and opened by Chromium (Debian's ``/usr/bin/chromium``, or one on ``PATH``)
in a 1000 x 760 window; the screenshot is reduced to 64 colours so the picture stays small::

    python tools/report_screenshot.py                 # writes docs/images/audit-report.png
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "docs" / "images" / "audit-report.png"
WINDOW = (1000, 760)
BROWSERS = ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome")


def chromium() -> str:
    """The path of a Chromium or Chrome on this machine."""
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    raise SystemExit("no Chromium found: apt-get install chromium")


def demo_report(folder: Path) -> Path:
    """The demo organization's audit report, written into ``folder``."""
    import docsapi
    from docsapi.sandbox import Sandbox

    with Sandbox(seed=0) as sandbox:
        audit = docsapi.audit_permissions(sandbox.client(), sandbox.org_id, progress=False)
    return audit.to_html(folder / "audit-report.html")


def screenshot(page: Path, target: Path) -> Path:
    """``page`` as Chromium shows it in a :data:`WINDOW`, saved to ``target`` in 64 colours."""
    from PIL import Image

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
    target.parent.mkdir(parents=True, exist_ok=True)
    with Image.open(raw) as image:
        image.convert("RGB").quantize(colors=64).save(target, optimize=True)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=TARGET, help=f"default: {TARGET}")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        written = screenshot(demo_report(Path(folder)), args.out)
    print(f"{written} ({written.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main()
