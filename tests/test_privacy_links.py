"""The site's privacy notice and terms (PBEM_PRIVACY_URL, PBEM_TERMS_URL, issue 31): linked
in every page's footer and every player's mail's footer when set, nowhere when not; a value
that is no http(s) address stops the program with a message naming the setting."""

import pytest
from mail_helpers import ANN, game, running, text
from web_helpers import make_app

from pbem.config import SettingError, load

PRIVACY, TERMS = "https://club.example/privacy", "https://club.example/terms"


def test_pages_link_them_when_set(store, tmp_path, monkeypatch):
    client = make_app(store, tmp_path, monkeypatch).test_client()
    assert PRIVACY not in client.get("/").text
    monkeypatch.setenv("PBEM_PRIVACY_URL", PRIVACY)
    monkeypatch.setenv("PBEM_TERMS_URL", TERMS)
    client = make_app(store, tmp_path, monkeypatch).test_client()
    for path in ("/", "/signin", "/l"):
        page = client.get(path).text
        assert f'<a href="{PRIVACY}">Privacy</a>' in page and f'<a href="{TERMS}">' in page


def test_player_mails_link_them_when_set(store, tmp_path, monkeypatch):
    with running(store, monkeypatch, tmp_path) as env:
        game(store)
        [turn] = env.replies()
        assert PRIVACY not in text(turn)
        monkeypatch.setenv("PBEM_PRIVACY_URL", PRIVACY)
        game(store)
        mails = env.replies()
        assert mails and all(m["To"] == ANN for m in mails)
        for m in mails:
            assert f"Privacy: {PRIVACY}" in text(m) and TERMS not in text(m)
            html = m.get_body(preferencelist=("html",))
            assert html is None or f'href="{PRIVACY}"' in html.get_content()


@pytest.mark.parametrize("value", ["javascript:alert(1)", "club.example/privacy",
                                   'https://x.example/"><script>'])
def test_a_link_that_is_no_web_address_is_refused_by_name(monkeypatch, value):
    monkeypatch.setenv("PBEM_TERMS_URL", value)
    with pytest.raises(SettingError, match="PBEM_TERMS_URL"):
        load()
