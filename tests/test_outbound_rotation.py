"""`pbem serve`'s outbound path (the relay, and the Maildir) signs each mail's bounce address
and unsubscribe link with the key file as it is when the mail goes: a key rotated while the
server runs signs the next mail, without a restart (as on the mail and web paths). Real
SMTP relay (aiosmtpd), a real database (SQLite, PostgreSQL with PBEM_TEST_DATABASE_URL)."""

import mailbox
import os
import re

import pytest
from aiosmtpd.controller import Controller
from mail_helpers import free_port

from pbem.config import Settings
from pbem.serve import delivery
from pbem.store import bounces, unsubscribe
from pbem.store.models import Outbox
from pbem.store.outbox import drain

DOMAIN = "pbem.test"


class Sink:
    def __init__(self):
        self.got = []

    async def handle_DATA(self, server, session, envelope):
        self.got.append((envelope.mail_from, envelope.content))
        return "250 OK"


def one_mail(store, deliver, i: int) -> None:
    with store.session() as s:
        s.add(Outbox(to_addr=f"p{i}@example.org", subject="news", body_text="Hi.\n",
                     dedupe_key=f"news:{i}"))
        s.commit()
    assert drain(store, deliver) == 1


def sent_maildir(cfg) -> list[tuple[str, bytes]]:
    """(Return-Path's address, message) of each mail in the Maildir, oldest first."""
    box = mailbox.Maildir(str(cfg.maildir), factory=None, create=False)
    mails = sorted(box, key=lambda m: m["To"])  # p1@, then p2@
    return [(m["Return-Path"].strip("<>"), m.as_bytes()) for m in mails]


@pytest.mark.parametrize("way", ["maildir", "relay"])
def test_a_rotated_key_file_signs_the_next_outbound_mail(store, tmp_path, monkeypatch, way):
    for name in ("PBEM_MAILDIR", "PBEM_DKIM_KEY", "PBEM_SECRET_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PBEM_VAR_DIR", str(tmp_path / "var"))  # the settings load() reads too
    sink, port = Sink(), free_port()
    cfg = Settings(var_dir=tmp_path / "var", secret_key="", mail_domain=DOMAIN,
                   base_url="https://spades.example.org",
                   smtp_url=f"smtp://127.0.0.1:{port}" if way == "relay" else "")
    key = cfg.var_dir / "secret_key"
    key.parent.mkdir(parents=True)
    key.write_text("old-" + "o" * 40)
    relay = Controller(sink, hostname="127.0.0.1", port=port)
    relay.start()
    try:
        deliver = delivery(cfg)  # as `pbem serve` makes it, once at startup
        one_mail(store, deliver, 1)
        fresh = tmp_path / "new_key"
        fresh.write_text("new-" + "n" * 40)
        os.replace(fresh, key)  # rotated while the server runs
        one_mail(store, deliver, 2)
    finally:
        relay.stop()
    [(path1, raw1), (path2, raw2)] = sink.got if way == "relay" else sent_maildir(cfg)
    old, new = ["old-" + "o" * 40], ["new-" + "n" * 40]
    assert bounces.row_for(store, old, path1, DOMAIN) is not None
    assert bounces.row_for(store, new, path2, DOMAIN) is not None  # the new key signed it
    assert bounces.row_for(store, old, path2, DOMAIN) is None
    tokens = [re.search(rb"/u/([^>]+)>", raw).group(1).decode() for raw in (raw1, raw2)]
    assert unsubscribe.read(cfg, tokens[1])  # the key file now: the new key
    with pytest.raises(ValueError):
        unsubscribe.read(cfg, tokens[0])  # the old key is gone, and its links with it
