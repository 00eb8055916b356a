import smtplib
from test_mail_corpus import *  # noqa

def test_dbg(env, playing):
    gid, turn = playing
    msg = env.mail(env.address(gid), "\n" + _quote(turn, "gmail"), In_Reply_To=turn["Message-ID"])
    raw = msg.as_bytes()
    print(max(len(l) for l in raw.split(b"\n")))
    for l in raw.split(b"\n"):
        if len(l) > 900: print(l[:300])
    print(max(len(l) for l in turn.as_bytes().split(b"\n")))
