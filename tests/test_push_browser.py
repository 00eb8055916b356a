"""Web push in a real browser (issue 35): Debian's headless Chromium loads a table page, the
site's script registers its service worker `/sw.js` and shows the alerts box, under the
site's strict CSP, with nothing blocked and nothing axe-core finds serious. Subscribing
needs a push service Chromium headless has none of: that part is tests/test_push.py's."""

import pytest

from pbem.store import push
from tests.browser_helpers import axe_or_skip, launch, serve

pytestmark = pytest.mark.xdist_group("test_push_browser")
DEMO = "Play a demo game against three robots"


def test_the_worker_registers_and_the_box_shows_under_the_strict_csp(tmp_path):
    axe = axe_or_skip()
    push.keygen(tmp_path / "vapid.key")
    with launch() as browser, serve(tmp_path) as (url, _app):
        page = browser.new_page()
        blocked = []
        page.on("console", lambda m: blocked.append(m.text)
                if "Content Security Policy" in m.text else None)
        page.goto(url + "/")
        with page.expect_navigation():
            page.get_by_role("button", name=DEMO).click()
        box = page.locator("#push")
        box.wait_for(state="visible", timeout=10_000)
        scope = page.evaluate("navigator.serviceWorker.ready.then(r => r.scope)")
        assert scope == url + "/"
        assert page.locator("#push form.push-on button").is_visible()
        assert page.locator("#push form.push-off").is_hidden()
        page.evaluate(axe)
        found = page.evaluate("""() => axe.run(document, {resultTypes: ["violations"]}).then(
            r => r.violations.filter(v => ["serious", "critical"].includes(v.impact))
            .map(v => v.id))""")
        assert found == [] and blocked == []
