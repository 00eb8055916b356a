"""Every mail of the real-client corpus (tests/real_clients.py) over real SMTP: each is
understood as meant or refused for the right reason; none is misread. The tally is printed
(pytest -s shows it; bench/mail_reading.py prints it too)."""

import pytest
from mail_helpers import running
from real_clients import VERDICTS, cases, run, tally


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as e:
        yield e


def test_the_corpus_covers_every_client_and_language():
    names = {c.client for c in cases()}
    for client in ("gmail", "outlook-desktop", "outlook-android", "apple-mail-mac", "iphone",
                   "thunderbird-bottom"):
        for lang in ("en", "de", "fr", "es", "it", "nl", "pt", "pl", "sv"):
            assert f"{client}-{lang}" in names
    assert {"mutt-interleaved-en", "thunderbird-html-bottom-en", "outlook-web-de"} <= names
    kinds = {c.meaning.split()[0] for c in cases()}
    assert kinds == {"bid", "play", "nothing", "ignore"}
    assert any(c.refusal for c in cases())


def test_every_real_client_reply_is_read_as_meant(env):
    results = {c.client: run(env, c) for c in cases()}
    print("\n" + tally(results))
    bad = {n: r for n, r in results.items() if r[0] not in VERDICTS[:2]}
    assert not bad, "\n\n".join(f"{n}: {v}\n{w}" for n, (v, w) in bad.items())
