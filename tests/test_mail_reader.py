"""pbem.mail.reader on crafted raw mail: transfer encodings, charsets, HTML, the quoted reply
and signature that end the commands, and the mail that is never answered (RFC 3834)."""

import base64

import pytest

from pbem.mail.reader import MAX_LINES, command_lines, html_text, read

DOMAIN = "pbem.localhost"


def raw(body: bytes | str, headers: str = "", ctype: str = "text/plain; charset=utf-8",
        cte: str = "7bit") -> bytes:
    head = (f"From: Ann <Ann@Example.org>\r\nTo: play+abc@{DOMAIN}\r\nSubject: Re: your turn\r\n"
            f"Message-ID: <m1@example.org>\r\nMIME-Version: 1.0\r\n{headers}"
            f"Content-Type: {ctype}\r\nContent-Transfer-Encoding: {cte}\r\n\r\n")
    return head.encode() + (body.encode() if isinstance(body, str) else body)


def lines(data: bytes, envelope_from: str = "ann@example.org") -> list[str]:
    inc = read(data, envelope_from, DOMAIN)
    assert inc.ignore is None
    return inc.lines


def test_plain():
    inc = read(raw("bid 4\r\n\r\nplay QH\r\n"), "ann@example.org", DOMAIN)
    assert (inc.sender, inc.lines, inc.message_id) == ("ann@example.org", ["bid 4", "play QH"],
                                                      "<m1@example.org>")
    assert inc.subject == "your turn"  # Re: stripped


def test_quoted_printable():
    body = b"play 10=E2=99=A5\r\nbid=\r\n 3\r\n"  # 10♥, and a soft line break
    assert lines(raw(body, cte="quoted-printable")) == ["play 10♥", "bid 3"]


def test_base64():
    body = base64.encodebytes("Q♥\r\nstatus\r\n".encode())
    assert lines(raw(body, cte="base64")) == ["Q♥", "status"]


def test_iso_8859_1():
    body = "bïd drëi\r\n".encode("iso-8859-1")
    assert lines(raw(body, ctype="text/plain; charset=iso-8859-1", cte="8bit")) == ["bïd drëi"]


def test_windows_1252():
    body = "s’il vous plaît – 5 €\r\n".encode("windows-1252")
    assert b"\x92" in body and b"\x80" in body
    got = lines(raw(body, ctype="text/plain; charset=windows-1252", cte="8bit"))
    assert got == ["s’il vous plaît – 5 €"]


def test_unknown_charset_keeps_what_decodes():
    body = "bid 3\r\nQ♥\r\n".encode()
    assert lines(raw(body, ctype="text/plain; charset=x-no-such-charset", cte="8bit")) == [
        "bid 3", "Q♥"]


def test_wrong_charset_does_not_fail():
    body = "bid 3\r\nnïl\r\n".encode("iso-8859-1")  # labelled utf-8, but it is not
    got = lines(raw(body, cte="8bit"))
    assert got[0] == "bid 3" and got[1].startswith("n") and got[1].endswith("l")


def test_html_only_skips_the_blockquote_and_reads_below_it():
    html = ("<html><head><style>p {color: red}</style></head><body><div>bid&nbsp;4</div>"
            "<div>play <b>QH</b><br>status</div><blockquote type=cite>bid 13<br>play AS"
            "</blockquote><div>help</div></body></html>")
    assert lines(raw(html, ctype="text/html; charset=utf-8")) == ["bid 4", "play QH", "status",
                                                                   "help"]


def test_html_gmail_quote_and_attributes_without_values():
    html = ('<div dir="ltr"><div class>bid 2</div></div><br><div class="gmail_quote '
            'gmail_quote_container"><div class="gmail_attr">On Mon wrote:</div>bid 9</div>')
    assert lines(raw(html, ctype="text/html; charset=utf-8")) == ["bid 2"]


def test_plain_is_preferred_to_html():
    data = raw("--b\r\nContent-Type: text/html\r\n\r\n<p>bid 9</p>\r\n"
               "--b\r\nContent-Type: text/plain\r\n\r\nbid 2\r\n--b--\r\n",
               ctype='multipart/alternative; boundary="b"')
    assert lines(data) == ["bid 2"]


def test_attachment_only_has_no_lines():
    data = raw("--b\r\nContent-Type: text/plain\r\nContent-Disposition: attachment; "
               "filename=m.txt\r\n\r\nbid 2\r\n--b--\r\n", ctype='multipart/mixed; boundary="b"')
    assert lines(data) == []


@pytest.mark.parametrize("quote", [
    "> bid 13\n> play AS",
    "On Mon, 2 Nov 2020 at 10:00, Pbem <play+abc@pbem.localhost> wrote:\n\n> bid 13",
    "On 02/11/2020 10:00, play@pbem.localhost wrote:\nbid 13",
    "-----Original Message-----\nFrom: play@pbem.localhost\nbid 13",
    "From: play@pbem.localhost <play@pbem.localhost>\nSent: Monday\nSubject: x\n\nbid 13",
    "________________________________\nFrom: play@pbem.localhost\nbid 13",
    "---------- Forwarded message ---------\nbid 13",
    "-- \nAnn\nbid 13",
    "--\nAnn\nbid 13",
    "Sent from my iPhone\n\nbid 13",
])
def test_reading_stops_at_the_quote_or_signature(quote):
    assert command_lines("bid 4\n  play QH  \n\n" + quote) == ["bid 4", "play QH"]


def test_gmail_attribution_wrapped_over_two_lines():
    text = ("play QH\n\nOn Mon, 2 Nov 2020 at 10:00, Pbem Spades <\n"
            "play+abcdefghijklmnop@pbem.localhost> wrote:\n\n> bid 13\n")
    assert command_lines(text) == ["play QH"]


def test_windows_line_ends_and_non_breaking_spaces():
    assert command_lines("bid\u00a04\r\n\r\n> x\r\n") == ["bid 4"]


def test_at_most_max_lines():
    assert len(command_lines("\n".join(f"bid {i}" for i in range(50)))) == MAX_LINES


def test_html_text():
    assert html_text("<p>a</p><p>b<br>c</p><script>x</script>d").split() == ["a", "b", "c",
                                                                             "d"]


def test_in_reply_to_and_references():
    data = raw("bid 3", headers="In-Reply-To: <turn.1.0.4.ab@pbem.localhost>\r\n"
                                "References: <game.1@pbem.localhost> <x@y>\r\n")
    inc = read(data, "ann@example.org", DOMAIN)
    assert inc.in_reply_to == ["<turn.1.0.4.ab@pbem.localhost>", "<game.1@pbem.localhost>",
                               "<x@y>"]


def test_subject_prefixes():
    data = raw("", headers="").replace(b"Subject: Re: your turn", b"Subject: RE: Fwd: AW: bid 4")
    assert read(data, "ann@example.org", DOMAIN).subject == "bid 4"


@pytest.mark.parametrize("headers,envelope,why", [
    ("Auto-Submitted: auto-replied\r\n", "ann@example.org", "auto-submitted"),
    ("Auto-Submitted: Auto-Generated\r\n", "ann@example.org", "auto-submitted"),
    ("", "", "bounce"),
    ("", "<>", "bounce"),
    ("List-Id: <l.example.org>\r\n", "ann@example.org", "list mail"),
    ("List-Post: <mailto:l@example.org>\r\n", "ann@example.org", "list mail"),
    ("Precedence: bulk\r\n", "ann@example.org", "bulk mail"),
    ("Precedence: list\r\n", "ann@example.org", "bulk mail"),
    ("X-Autoreply: yes\r\n", "ann@example.org", "auto-reply"),
    ("Sender: play@PBEM.localhost\r\n", "ann@example.org", "our own mail"),
])
def test_never_answered(headers, envelope, why):
    inc = read(raw("bid 3", headers=headers), envelope, DOMAIN)
    assert inc.ignore == why and inc.lines == []


def test_our_own_from_and_no_sender():
    own = raw("bid 3").replace(b"Ann <Ann@Example.org>", b"play@pbem.localhost")
    assert read(own, "x@example.org", DOMAIN).ignore == "our own mail"
    nobody = raw("bid 3").replace(b"From: Ann <Ann@Example.org>\r\n", b"")
    assert read(nobody, "x@example.org", DOMAIN).ignore == "no sender"


def test_auto_submitted_no_is_answered():
    inc = read(raw("bid 3", headers="Auto-Submitted: no\r\n"), "ann@example.org", DOMAIN)
    assert inc.ignore is None and inc.lines == ["bid 3"]
