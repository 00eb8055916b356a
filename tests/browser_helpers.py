"""What the browser tests share: Debian's Chromium, the app served on a free port, the
screenshots, and axe-core (the accessibility checker, from the npm registry)."""

import contextlib
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import threading
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
OUTPUT = Path(__file__).parent / "output"  # screenshots for a reviewer (.gitignore'd)
AXE_VERSION = "4.14.1"  # pinned: a new release may add rules, never silently
AXE_DIR = Path(os.environ.get("PBEM_AXE_DIR", Path.home() / ".cache" / "pbem-axe"))


@contextlib.contextmanager
def launch():
    """Debian's headless Chromium (never `playwright install`), or the test skips."""
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed: apt-get install chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                    args=["--no-sandbox", "--disable-background-networking"])
        yield browser
        browser.close()


@contextlib.contextmanager
def serve(var_dir: Path):
    """The app on a fresh SQLite database in `var_dir`, served on a free port: (its base URL,
    the app)."""
    from werkzeug.serving import make_server

    from pbem.config import Settings
    from pbem.store.db import upgrade
    from pbem.store.states import Store
    from pbem.web.app import create_app

    url = f"sqlite:///{var_dir / 'pbem.db'}"
    upgrade(url)
    cfg = Settings(var_dir=var_dir, database_url=url, secret_key="browser-test-key",
                   base_url="http://127.0.0.1")
    app = create_app(cfg, Store(url))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.port}", app
    finally:
        server.shutdown()
        thread.join(5)


def mailed_link(store, to: str, kind: str) -> str:
    """The path of the last `kind` link mailed to `to` (the site's own mails, from its
    outbox: a person would open it in their mail client)."""
    from sqlmodel import select

    from pbem.store.models import Outbox

    with store.session() as s:
        bodies = s.exec(select(Outbox.body_text).where(Outbox.to_addr == to)
                        .order_by(Outbox.id)).all()
    found = [m for b in bodies for m in re.findall(re.escape(kind) + r"[A-Za-z0-9_.\-]+", b)]
    assert found, bodies
    return found[-1]


def axe_script() -> str:
    """axe-core's source, from the npm registry once (`npm pack`) and then from the cache."""
    path = AXE_DIR / f"axe-{AXE_VERSION}.min.js"
    if path.exists():
        return path.read_text()
    if shutil.which("npm") is None:
        raise RuntimeError("npm is missing: axe-core comes from the npm registry")
    AXE_DIR.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["npm", "pack", f"axe-core@{AXE_VERSION}", "--pack-destination", tmp],
                       check=True, capture_output=True, timeout=300)
        with tarfile.open(next(Path(tmp).glob("axe-core-*.tgz"))) as tar:
            source = tar.extractfile("package/axe.min.js").read().decode()
    part = path.with_suffix(".part")
    part.write_text(source)
    part.replace(path)  # whole or not at all
    return source


def axe_or_skip() -> str:
    """axe-core, or a skip that says why; where PBEM_REQUIRE_AXE is set (.ci/run), a
    failure instead: CI must not pass a check it never ran."""
    try:
        return axe_script()
    except (RuntimeError, OSError, subprocess.SubprocessError) as e:
        if os.environ.get("PBEM_REQUIRE_AXE"):
            pytest.fail(f"axe-core is required here and could not be had: {e}")
        pytest.skip(f"no axe-core ({e}): install node and npm to run the accessibility check")


if __name__ == "__main__":  # .ci/run: fetch it before the tests
    print(len(axe_script()), "bytes of axe-core", AXE_VERSION, "in", AXE_DIR)
