"""pbem.store.mime's mails read back as they were written: the same headers in order and
parts, each part decoding to the same text, for plain mails and for every awkward case; no
header line break gets through."""

import email
import email.policy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.store import mime
from pbem.store.text_html import html_of

HEADERS = [("From", "Spades by email <play@pbem.localhost>"), ("To", "ann@example.org"),
           ("Subject", "Spades game 3"), ("Date", "Mon, 23 Nov 2026 23:35:37 +0000"),
           ("Message-ID", "<turn.1.0.4.41d64abe@pbem.localhost>"),
           ("List-Unsubscribe", "<https://example.org/u/" + "x" * 300 + ">, "
                                "<mailto:pbem@pbem.localhost?subject=turns%20daily>"),
           ("Reply-To", "play+m2zpzjesj5uwvtpx@pbem.localhost")]
TEXT = "Game 3: you played 10♥\n\nYour hand:\n  S  Q♠ 5♠ 2♠\n"
HTML = "<!doctype html><html><body><p>" + "Q♠ <b>x</b> " * 40 + "</p></body></html>\n"


def lf(text: str) -> str:  # the parser keeps a CRLF file's CR in some parts, not others
    return text.replace("\r\n", "\n")


def parsed(data: bytes):
    return email.message_from_bytes(data, policy=email.policy.default)


def same(data: bytes, headers, text, html):
    """`data` parses back to `headers` in order (each as the email package reads it: an
    encoded-word decoded), then the MIME ones, and the parts' text."""
    msg = parsed(data)
    ours = [(k, str(v)) for k, v in msg.items()
            if not k.lower().startswith(("content-", "mime-"))]
    read = email.policy.default.header_factory
    assert ours == [(k, str(read(k, v))) for k, v in headers]
    assert msg["MIME-Version"] == "1.0"
    parts = [p for p in msg.walk() if not p.is_multipart()]
    assert [p.get_content_type() for p in parts] == ["text/plain", "text/html"]
    for part, sent in zip(parts, [text, html or html_of(text)], strict=True):
        assert lf(part.get_content()) == sent
        assert part.get_content_charset() == "utf-8"


@pytest.mark.parametrize("html", [HTML, None])
def test_a_turn_mail_reads_back_as_it_was_written(html):
    new = mime.write(HEADERS, TEXT, html)
    same(new, HEADERS, TEXT, html)
    assert b"\r\n" in new and b"\n" not in new.replace(b"\r\n", b"")  # CRLF only
    assert max(len(line) for line in new.split(b"\r\n")) <= 998
    head = new.split(b"\r\n\r\n", 1)[0].decode()
    assert "List-Unsubscribe: <https://example.org/u/" + "x" * 300 in head  # never folded
    assert new.isascii() and "Content-Transfer-Encoding: quoted-printable" in new.decode()


def test_a_maildir_copy_has_lf_lines():
    data = mime.write(HEADERS, TEXT, HTML, linesep="\n")
    assert b"\r" not in data
    same(data, HEADERS, TEXT, HTML)


def test_awkward_headers_are_folded_by_the_email_package():
    headers = [("From", "Åsa Öberg <play@pbem.localhost>"), ("To", '"Ann, B." <ann@example.org>'),
               ("Subject", "Game 3: you played 10♥ " + "long " * 250),
               ("X-Odd", "=?utf-8?q?not_an_encoded_word?="), ("X-Space", "two  spaces")]
    new = mime.write(headers, TEXT, None)
    same(new, headers, TEXT, None)
    assert new.split(b"\r\n\r\n", 1)[0].isascii()  # every header in ASCII on the wire


@pytest.mark.parametrize("value", ["x\r\nBcc: eve@example.org", "x\nBcc: eve@example.org",
                                   "x\rBcc: eve@example.org", "x\n", "x\r\n", "x\r"])
def test_no_header_is_injected(value):
    with pytest.raises(ValueError):
        mime.write([("Subject", value)], TEXT)
    with pytest.raises(ValueError):
        mime.write([("To", "ann@example.org" + value[1:])], TEXT)


def test_control_characters_and_long_lines_are_encoded():
    text = "a\x00b\x1bc\n" + "é" * 100 + "\nend\r\nlone\rcr\n"
    data = mime.write(HEADERS, text, HTML)
    part = list(parsed(data).walk())[1]
    assert part["Content-Transfer-Encoding"] in ("quoted-printable", "base64")
    assert lf(part.get_content()) == "a\x00b\x1bc\n" + "é" * 100 + "\nend\nlone\ncr\n"
    assert b"\x00" not in data and b"\x1b" not in data


def test_a_body_holding_a_boundary_like_line_stays_one_part():
    text = "--=_" + "0" * 32 + "\n--=_" + "0" * 32 + "--\n"
    msg = parsed(mime.write(HEADERS, text, HTML))
    assert [p.get_content_type() for p in msg.walk()] == [
        "multipart/alternative", "text/plain", "text/html"]
    assert lf(list(msg.walk())[1].get_content()) == text


@settings(max_examples=150, deadline=None)
@given(text=st.text(st.characters(blacklist_categories=("Cs",)), max_size=400),
       html=st.one_of(st.none(), st.text(max_size=300).filter(lambda s: s.strip())))
def test_any_text_comes_back_as_it_went(text, html):
    data = mime.write(HEADERS, text, html)
    assert data.isascii()  # 7-bit: no relay has anything to convert
    parts = [p for p in parsed(data).walk() if not p.is_multipart()]
    want = [text, html or html_of(text)]
    for part, sent in zip(parts, want, strict=True):
        lines = sent.encode("utf-8", "replace").splitlines()
        got = lf(part.get_content()).encode("utf-8", "replace")
        assert got == b"".join(line + b"\n" for line in lines) or (not lines and got == b"\n")


def test_bodies_are_quoted_printable_and_read_back_the_same():
    data = mime.write(HEADERS, TEXT, HTML)
    assert data.isascii() and b"8bit" not in data
    same(data, HEADERS, TEXT, HTML)
    parts = [p for p in parsed(data).walk() if not p.is_multipart()]
    assert {p["Content-Transfer-Encoding"] for p in parts} == {"quoted-printable"}
    ascii_only = mime.write(HEADERS, "Your move.\n", None)
    assert b"Content-Transfer-Encoding: 7bit" in ascii_only  # plain ASCII stays as it is


def test_a_text_only_mail_gets_an_html_part_with_its_words_and_links():
    text = "Confirm <yours> & go: https://pbem.example/c/abc.\n\n  indented (mailto:x@y.example)\n"
    html = html_of(text)
    assert '<a href="https://pbem.example/c/abc">https://pbem.example/c/abc</a>.' in html
    assert '<a href="mailto:x@y.example">mailto:x@y.example</a>)' in html
    assert "Confirm &lt;yours&gt; &amp; go" in html and "<yours>" not in html
    assert "\n\n  indented" in html and "pre-wrap" in html  # the text's own lines kept
    assert html_of('x https://a.example/"><script>').count("<script>") == 0


def test_making_the_html_part_takes_linear_time():
    """A stranger's words end up in some mails: no text makes the link pattern backtrack."""
    import time

    text = "https://" + "." * 200_000 + " mailto:" + "x" * 200_000
    started = time.perf_counter()
    html = html_of(text)
    assert time.perf_counter() - started < 1.0  # linear: milliseconds
    assert html.count("<a href=") == 2
