"""Signed links are a contract: a link mailed before signing got cheaper (made by itsdangerous
itself, compressed or not) or by the hand-made signer before issue 30 (tests/data/
links_v1.json) still works, a new one is the very token itsdangerous would make,
and expiry, tampering, the purpose and key rotation still say no. The key file is read
again when it is replaced or rewritten, and not while it is unchanged."""

import json
import os
import time
from pathlib import Path

import pytest
from itsdangerous import URLSafeTimedSerializer

from pbem import signing
from pbem.config import Settings
from pbem.signing import CARE, MAX_AGE, MOVE, UNSUBSCRIBE, Signer, secret_keys

KEYS = ["old-key", "new-key"]
MOVE_LINK = {"g": 7, "s": 2, "a": {"type": "play", "card": "QH"}, "q": 41}


def itsdangerous_token(keys, purpose, data):
    """A link as mailed before: itsdangerous's own dumps."""
    return URLSafeTimedSerializer(keys, salt=purpose).dumps(data)


@pytest.mark.parametrize("data", [MOVE_LINK, {"e": "zoë@example.org", "k": "turns"},
                                  {"g": 1, "s": 0, "a": {"type": "bid", "bid": "blind nil"},
                                   "q": 1}])
def test_a_new_link_is_the_token_itsdangerous_makes(monkeypatch, data):
    monkeypatch.setattr(signing._secrets, "token_hex", lambda n: "0123456789ab")
    now = time.time()
    monkeypatch.setattr("itsdangerous.timed.time.time", lambda: now)
    ours = Signer(KEYS, UNSUBSCRIBE).dumps(data)
    assert ours == itsdangerous_token(KEYS, UNSUBSCRIBE, dict(data, n="0123456789ab"))
    assert not ours.startswith(".")  # short: not compressed


LINKS_V1 = json.loads((Path(__file__).parent / "data" / "links_v1.json").read_text())["links"]


@pytest.mark.parametrize("case", LINKS_V1, ids=lambda c: c["purpose"])
def test_links_signed_before_issue_30_still_verify(case, monkeypatch):
    """Made by the hand-made HMAC signer of before (with its own key derivation), read by
    itsdangerous's serializer: every purpose, move links, a compressed one, a rotated key."""
    got = Signer(case["keys"], case["purpose"]).loads(case["token"], max_age=10**10)
    assert got == case["data"]
    with pytest.raises(ValueError, match="not valid"):
        Signer(case["keys"], "pbem.other").loads(case["token"], max_age=10**10)
    with pytest.raises(ValueError, match="not valid"):
        Signer(["key-2027"], case["purpose"]).loads(case["token"], max_age=10**10)
    later = time.time() + 10**10
    monkeypatch.setattr("itsdangerous.timed.time.time", lambda: later)
    with pytest.raises(ValueError, match="expired"):
        Signer(case["keys"], case["purpose"]).loads(case["token"])


def test_the_stored_links_cover_rotation_and_compression():
    newest = {tuple(c["keys"]) for c in LINKS_V1}
    assert newest == {("key-2025",), ("key-2025", "key-2026")}
    assert any(c["token"].startswith(".") for c in LINKS_V1)  # compressed
    by_old = next(c for c in LINKS_V1 if c["keys"] == ["key-2025"])
    assert Signer(["key-2025", "key-2026"]).loads(by_old["token"], max_age=10**10)


def test_old_links_still_verify_compressed_or_not():
    long = {"x": ["AS"] * 80, "n": "a1"}  # itsdangerous compresses this one
    for data in (dict(MOVE_LINK, n="b2"), long):
        token = itsdangerous_token(KEYS, MOVE, data)
        assert Signer(KEYS).loads(token) == data
    assert itsdangerous_token(KEYS, MOVE, long).startswith(".")


def test_a_long_payload_is_compressed_and_reads_back():
    data = {"x": ["AS"] * 80}
    token = Signer(KEYS).dumps(data)
    assert token.startswith(".") and len(token) < 200
    assert {k: v for k, v in Signer(KEYS).loads(token).items() if k != "n"} == data
    assert URLSafeTimedSerializer(KEYS, salt=MOVE).loads(token)["x"] == data["x"]


def test_each_link_has_its_own_id():
    a, b = (Signer(KEYS).loads(Signer(KEYS).dumps(MOVE_LINK)) for _ in range(2))
    assert a["n"] != b["n"] and dict(a, n=0) == dict(b, n=0) == dict(MOVE_LINK, n=0)


def test_expired_tampered_other_purpose_and_retired_keys_are_refused(monkeypatch):
    token = Signer(KEYS).dumps(MOVE_LINK)
    with pytest.raises(ValueError, match="not valid"):
        Signer(KEYS, CARE).loads(token)  # signed for another purpose
    with pytest.raises(ValueError, match="not valid"):
        Signer(["other-key"]).loads(token)
    payload, stamp, sig = token.split(".")
    forged = itsdangerous_token(KEYS, MOVE, dict(MOVE_LINK, q=99)).split(".")[0]
    with pytest.raises(ValueError, match="not valid"):
        Signer(KEYS).loads(".".join([forged, stamp, sig]))
    later = time.time() + MAX_AGE + 60
    monkeypatch.setattr("itsdangerous.timed.time.time", lambda: later)
    with pytest.raises(ValueError, match="expired"):
        Signer(KEYS).loads(token)


def test_the_newest_key_signs_and_every_key_verifies():
    token = Signer(KEYS).dumps(MOVE_LINK)
    assert Signer(["new-key"]).loads(token)["q"] == 41  # the newest signed it
    with pytest.raises(ValueError):
        Signer(["old-key"]).loads(token)
    by_old = Signer(["old-key"]).dumps(MOVE_LINK)
    assert Signer(KEYS).loads(by_old)["q"] == 41  # rotated: the old key still verifies


def test_the_key_file_is_read_again_when_replaced_not_while_unchanged(tmp_path):
    cfg = Settings(var_dir=tmp_path, secret_key="")
    first = secret_keys(cfg)
    path = tmp_path / "secret_key"
    assert first == [path.read_text().strip()] and len(first[0]) > 30
    link = Signer(first).dumps(MOVE_LINK)

    new = tmp_path / "new_key"
    new.write_text("replaced-by-rename-" + "x" * 30)
    os.replace(new, path)  # a new inode, as an editor or a deploy writes it
    assert secret_keys(cfg) == ["replaced-by-rename-" + "x" * 30]
    with pytest.raises(ValueError):
        Signer(secret_keys(cfg)).loads(link)  # the old key is gone: its links with it

    path.write_text("rewritten-in-place")  # same inode, another size and mtime
    assert secret_keys(cfg) == ["rewritten-in-place"]

    st = os.stat(path)
    path.write_text("SNEAKILY-same-size")  # the same inode, size and (restored) mtime...
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert secret_keys(cfg) == ["rewritten-in-place"]  # ...so it was not read again


def test_keys_from_the_environment_need_no_file(tmp_path):
    cfg = Settings(var_dir=tmp_path, secret_key=" a , b ,")
    assert secret_keys(cfg) == ["a", "b"]
    assert not (tmp_path / "secret_key").exists()
