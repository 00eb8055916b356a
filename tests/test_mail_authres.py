"""Mail senders (issue 12): where a trusted MTA in front of us writes Authentication-Results
(PBEM_AUTHSERV_ID names it), a DMARC or DKIM failure for the player's domain refuses the
mail with a reply saying why; the same words from anyone else change nothing. Over SMTP."""

import pytest
from mail_helpers import ANN, crafted, headline, running, snapshot, text, wire
from sqlmodel import select

from pbem.store.models import Move

MTA = "mx.pbem.test"


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    monkeypatch.setenv("PBEM_AUTHSERV_ID", MTA)
    with running(store, monkeypatch, tmp_path) as e:
        yield e


def bids(store, gid) -> list:
    with store.session() as s:
        return [p["bid"] for p in s.exec(select(Move.payload).where(
            Move.game_id == gid, Move.type == "bid", Move.source == "mail")).all()]


@pytest.mark.parametrize("results", [
    f"{MTA}; spf=pass smtp.mailfrom=example.org; dmarc=fail (p=reject) header.from=example.org",
    f"{MTA}; dkim=fail (signature did not verify) header.d=example.org",
])
def test_a_mail_its_domain_disowns_is_refused_with_the_reason(env, results):
    gid, _ = crafted(env.store)
    env.replies()
    before = snapshot(env.store, gid)
    msg = env.mail(env.address(gid), "bid 4", mid="<spoof@example.org>",
                   Authentication_Results=results)
    assert env.send(msg)[0] == 250
    after = snapshot(env.store, gid)
    assert after["log"] == before["log"] and bids(env.store, gid) == []
    assert after["outbox"] == before["outbox"] + 1  # only the answer that says why
    [answer] = env.replies()
    assert answer["To"] == ANN and "was not obeyed" in headline(answer)
    assert "example.org" in text(answer) and "Nothing was done" in text(answer)


@pytest.mark.parametrize("results", [
    "evil.example; dmarc=fail header.from=example.org",  # not our MTA: anyone's words
    f"{MTA}; dkim=pass header.d=example.org; dmarc=pass header.from=example.org",
    None,
])
def test_anything_else_is_read_as_before(env, results):
    gid, _ = crafted(env.store)
    headers = {"Authentication_Results": results} if results else {}
    msg = env.mail(env.address(gid), "bid 4", mid=f"<ok-{hash(results)}@example.org>",
                   **headers)
    assert env.send(msg)[0] == 250
    assert bids(env.store, gid) == [4]


def test_a_senders_own_header_in_our_name_cannot_cancel_our_mtas_fail(env):
    """RFC 8601 §5: our MTA writes its header on top of the mail it received; a header the
    sender wrote below it in our MTA's name ("dkim=pass") is ignored."""
    gid, _ = crafted(env.store)
    env.replies()
    before = snapshot(env.store, gid)
    forged = env.mail(env.address(gid), "bid 4", mid="<pass-below@example.org>",
                      Authentication_Results=f"{MTA}; dkim=pass header.d=example.org; "
                                             "dmarc=pass header.from=example.org")
    ours = f"Authentication-Results: {MTA}; dkim=fail header.d=example.org\r\n".encode()
    assert env.send(ours + wire(forged), mail_from=ANN, rcpt=env.address(gid))[0] == 250
    after = snapshot(env.store, gid)
    assert after["log"] == before["log"] and bids(env.store, gid) == []
    [answer] = env.replies()
    assert answer["To"] == ANN and "was not obeyed" in headline(answer)
    assert "DKIM signature for example.org did not verify" in " ".join(text(answer).split())
