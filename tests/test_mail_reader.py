"""pbem.mail.reader on crafted raw mail: transfer encodings, charsets, HTML, the quoted reply
and signature that end the commands, and the mail that is never answered (RFC 3834)."""

import base64
from email import message_from_bytes, policy
from email.parser import BytesParser
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as hs

from pbem.mail.reader import (
    MAX_LINES,
    ForgedSender,
    Unreadable,
    _Parsed,
    _text,
    body_text,
    command_lines,
    header,
    html_text,
    read,
    unflow,
)

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
    body = "nïl\r\nbid 3\r\n".encode("iso-8859-1")  # labelled utf-8, but it is not
    got = lines(raw(body, cte="8bit"))
    assert got[1] == "bid 3" and got[0].startswith("n") and got[0].endswith("l")


def test_headers_are_decoded_where_read():
    """Headers are kept as written and decoded only where read: encoded-words, 8-bit UTF-8
    (as some clients send it raw), a folded References, a charset written RFC 2231's way."""
    data = raw("bïd 4\r\n".encode("iso-8859-1"), cte="8bit",
               ctype="text/plain; charset*=iso-8859-1''iso-8859-1",
               headers="X-Note: grüße\r\nReferences: <a@x>\r\n\t<b@pbem.localhost>\r\n")
    data = data.replace(b"Subject: Re: your turn",
                        b"Subject: =?utf-8?q?Gr=C3=BC=C3=9Fe_=E2=99=A5?=")
    inc = read(data, "ann@example.org", DOMAIN)
    assert inc.subject == "Grüße ♥" and inc.in_reply_to == ["<a@x>", "<b@pbem.localhost>"]
    assert inc.lines == ["bïd 4"]
    assert header(message_from_bytes(data), "X-Note") == "grüße"


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


def test_our_own_from_and_no_from():
    own = raw("bid 3").replace(b"Ann <Ann@Example.org>", b"play@pbem.localhost")
    assert read(own, "x@example.org", DOMAIN).ignore == "our own mail"
    nobody = raw("bid 3").replace(b"From: Ann <Ann@Example.org>\r\n", b"")
    with pytest.raises(ForgedSender, match="no From"):  # refused: it names no one
        read(nobody, "x@example.org", DOMAIN)


def test_auto_submitted_no_is_answered():
    inc = read(raw("bid 3", headers="Auto-Submitted: no\r\n"), "ann@example.org", DOMAIN)
    assert inc.ignore is None and inc.lines == ["bid 3"]


# ---- issue 13: HTML as a browser lays it out ----------------------------------------------

def test_word_wraps_its_html_source_inside_a_line():
    html = ("<html><head><style>p.MsoNormal {margin:0cm}</style><!--[if gte mso 9]><xml>\n"
            "<o:shapedefaults v:ext=\"edit\" />\n</xml><![endif]--></head><body><div "
            "class=WordSection1><p class=MsoNormal><span style='font-size:11.0pt'>play\nAH"
            "<o:p></o:p></span></p><p class=MsoNormal><o:p>&nbsp;</o:p></p>\n<p class=MsoNormal>"
            "<span\nlang=EN-US>bid\n   4</span><o:p></o:p></p></div></body></html>")
    assert lines(raw(html, ctype="text/html; charset=utf-8")) == ["play AH", "bid 4"]


def test_html_lines_break_only_at_blocks_and_br():
    html = "<div>play <b>Q</b><i>H</i></div>\n\n<span>bid</span>\n<span>4</span><br>help<p>x</p>"
    assert html_text(html).splitlines() == ["play QH", "bid 4", "help", "x"]


def test_html_pre_keeps_its_lines_and_cells_keep_apart():
    assert html_text("<pre>bid 4\nplay QH</pre><table><tr><td>a</td><td>b</td></tr></table>"
                     ).splitlines() == ["bid 4", "play QH", "a b"]


def test_html_quoted_lines_are_marked_and_reading_goes_on_below():
    html = ('<div class="moz-cite-prefix">On 02/11/2020 10:00, Pbem wrote:<br></div>'
            '<blockquote type="cite"><pre>Legal now:\n  reply: play JH</pre></blockquote>'
            "<p>play\n      8h<br></p><pre class=moz-signature>-- \nAnn</pre>")
    assert html_text(html).splitlines()[1:3] == ["> Legal now:", ">   reply: play JH"]
    assert command_lines(html_text(html)) == ["play 8h"]


# ---- issue 13: read around the quote, in nine languages ----------------------------------

QUOTE = ("> Game 1 (standard), hand 1, move 5\n>\n"
         "> It is your turn. Reply to this mail with one of:\n>   J♥     reply: play JH")

ATTRIBUTIONS = [
    "On Mon, 2 Nov 2020 at 10:00, Pbem <play+abc@pbem.localhost> wrote:",
    "Am Mo., 2. Nov. 2020 um 10:00 Uhr schrieb Pbem <play+abc@pbem.localhost>:",
    "Le lun. 2 nov. 2020 à 10:00, Pbem <play+abc@pbem.localhost> a écrit :",
    "El lun, 2 nov 2020 a las 10:00, Pbem (<play+abc@pbem.localhost>) escribió:",
    "Il giorno lun 2 nov 2020 alle ore 10:00 Pbem <play+abc@pbem.localhost> ha scritto:",
    "Op ma 2 nov. 2020 om 10:00 schreef Pbem <play+abc@pbem.localhost>:",
    "Em seg., 2 de nov. de 2020 às 10:00, Pbem <play+abc@pbem.localhost> escreveu:",
    "pon., 2 lis 2020 o 10:00 Pbem <play+abc@pbem.localhost> napisał(a):",
    "W dniu 2.11.2020 o 10:00, Pbem pisze:",
    "Den mån 2 nov. 2020 kl 10:00 skrev Pbem <play+abc@pbem.localhost>:",
    "2 nov. 2020 kl. 10:00 skrev Pbem <play+abc@pbem.localhost>:",
    "Op 2 nov. 2020 om 10:00 heeft Pbem <play+abc@pbem.localhost> het volgende geschreven:",
    "* Pbem <play+abc@pbem.localhost> [2020-11-02 10:00 +0000]:",
    "Pbem <play+abc@pbem.localhost> writes:",
]


@pytest.mark.parametrize("attribution", ATTRIBUTIONS)
def test_bottom_posted_under_an_attribution_in_any_language(attribution):
    text = f"{attribution}\n{QUOTE}\n\nplay 7H\n\n-- \nAnn\n"
    assert command_lines(text) == ["play 7H"]


@pytest.mark.parametrize("attribution", ATTRIBUTIONS[:-2])  # mutt's and Usenet's: never wrapped
def test_top_posted_above_an_attribution_wrapped_by_gmail(attribution):
    head, _, tail = attribution.rpartition(" ")
    assert command_lines(f"bid 4\n\n{head}\n{tail}\n\n{QUOTE}\n") == ["bid 4"]


@pytest.mark.parametrize("attribution", ATTRIBUTIONS[:4])
def test_an_attribution_followed_by_an_unquoted_mail_ends_the_reading(attribution):
    assert command_lines(f"bid 4\n{attribution}\nbid 13\nplay AS\n") == ["bid 4"]


def test_interleaved_replies_are_read_between_the_quotes():
    text = f"> Your hand:\n>   ♥  J♥ 7♥\nbid 3\n> Legal now:\n{QUOTE}\nplay 7H\n> web link\n"
    assert command_lines(text) == ["bid 3", "play 7H"]


@pytest.mark.parametrize("block", [
    "From: Pbem <play+abc@pbem.localhost>\nSent: Monday",
    "Von: Pbem <play+abc@pbem.localhost>\nGesendet: Montag",
    "De : Pbem <play+abc@pbem.localhost>\nEnvoyé : lundi",
    "De: Pbem <play+abc@pbem.localhost>\nEnviado el: lunes",
    "Da: Pbem <play+abc@pbem.localhost>\nInviato: lunedì",
    "Van: Pbem <play+abc@pbem.localhost>\nVerzonden: maandag",
    "De: Pbem <play+abc@pbem.localhost>\nEnviada em: segunda-feira",
    "Od: Pbem <play+abc@pbem.localhost>\nWysłano: poniedziałek",
    "Från: Pbem <play+abc@pbem.localhost>\nSkickat: den 2 november",
    "*From:* Pbem <play+abc@pbem.localhost>",
    "-----Ursprüngliche Nachricht-----",
    "-------- Message d'origine --------",
    "----- Mensaje original -----",
    "-------- Original-Nachricht --------",
    "Begin forwarded message:",
])
def test_outlook_header_blocks_end_the_reading(block):
    assert command_lines(f"bid 4\n\n{block}\nbid 13\n> play AS\nplay 2S") == ["bid 4"]


@pytest.mark.parametrize("signoff", [
    "Thanks,", "Thanks!", "thanks a lot", "Cheers – Ann's move", "Cheers - Ann", "Best,",
    "Kind regards,", "Thanks Bob", "Viele Grüße", "LG Ann", "Cordialement,", "Bises",
    "Saludos,", "Un saludo", "Grazie!", "Ciao,", "Met vriendelijke groet,", "Groetjes",
    "Abraços,", "Obrigado!", "Pozdrawiam", "Dzięki!", "Mvh", "Vänliga hälsningar,",
    "Get Outlook for Android<https://aka.ms/ghei36>", "Get Outlook for iOS",
    "Sent from my iPhone", "Sent from Mail for Windows", "Von meinem iPhone gesendet",
    "Envoyé de mon iPhone", "Enviado desde mi iPhone", "Inviato da iPhone",
    "Verstuurd vanaf mijn iPhone", "Enviado do meu iPhone", "Wysłane z iPhone'a",
    "Skickat från min iPhone",
])
def test_sign_offs_and_footers_end_the_reading_quietly(signoff):
    assert command_lines(f"play 8♥\n{signoff}\nAnn Example\n+44 20 7946 0000\nbid 13") == [
        "play 8♥"]


def test_greetings_before_the_first_command_are_skipped():
    assert command_lines("Hi,\nHallo zusammen!\nbid 4\n") == ["bid 4"]
    # after a command, a line that is no command ends the mail quietly
    assert command_lines("bid 4\nHi,\n") == ["bid 4"]
    assert command_lines("Hi all, bid 4\n") == ["Hi all, bid 4"]  # not skipped: refused


def test_a_name_after_the_commands_is_a_signature_but_a_card_is_not():
    assert command_lines("play QH\nAnn\n") == ["play QH"]
    assert command_lines("bid 3\nJean-Luc B.\n") == ["bid 3"]
    assert command_lines("bid 3\nQueen Hearts\n") == ["bid 3", "Queen Hearts"]
    # after a command, words that are no command end the mail quietly: a sign-off, a footer
    assert command_lines("bid 3\nplease deal again\n") == ["bid 3"]
    assert command_lines("bid 3\nplay ZZ\n") == ["bid 3", "play ZZ"]  # a command written wrong
    assert command_lines("Ann\n") == ["Ann"]  # alone it is what the player wrote


def test_our_own_mail_quoted_without_marks_ends_the_reading():
    text = "play JH\n\nGame 1 (standard), hand 1, move 5\n\nYour hand:\n  ♥  J♥ 7♥\n"
    assert command_lines(text) == ["play JH"]
    text = "play JH\nIt is your turn. Reply to this mail with one of:\n  J♥ reply: play JH"
    assert command_lines(text) == ["play JH"]
    # a mail's first line says what it is ("Game 3: your turn (move 5)")
    for first in ("Game 12: your turn (move 5)", "Game 1: you bid 3; not done: QS",
                  "Game 7 is over", "Game 2 waits for Ann"):
        assert command_lines(f"play JH\n\n{first}\n\nbid 3\n") == ["play JH"], first


def test_emoji_selectors_and_invisible_characters_are_removed():
    assert command_lines("8♥\ufe0f\n\u200bplay 5♣\ufe0f\u00a0\n") == ["8♥", "play 5♣"]


# ---- issue 13: headers the parser refuses, automatic replies, unreadable mail -------------

def test_cr_lf_in_a_display_name_is_read_from_the_raw_header():
    data = raw("bid 3").replace(b"Ann <Ann@Example.org>",
                                b"=?utf-8?q?Ann=0D=0ABcc=3A_x?= <ann@example.org>")
    inc = read(data, "ann@example.org", DOMAIN)
    assert (inc.sender, inc.lines) == ("ann@example.org", ["bid 3"])


def test_a_long_message_id_is_kept_as_a_hash():
    long = "<" + "x" * 500 + "@example.org>"
    inc = read(raw("bid 3").replace(b"<m1@example.org>", long.encode()), "a@b", DOMAIN)
    other = read(raw("bid 3").replace(b"<m1@example.org>", long.replace("x@", "y@").encode()),
                 "a@b", DOMAIN)
    assert inc.message_id.startswith("sha256:") and len(inc.message_id) < 100
    assert inc.message_id != other.message_id


def test_mime_nested_too_deep_is_unreadable():
    parts = "".join(f'Content-Type: multipart/mixed; boundary="b{i}"\r\n\r\n--b{i}\r\n'
                    for i in range(3000))
    data = f"From: ann@example.org\r\nMIME-Version: 1.0\r\n{parts}\r\n\r\nbid 3\r\n".encode()
    with pytest.raises(Unreadable, match="nested too deeply"):
        read(data, "ann@example.org", DOMAIN)


@pytest.mark.parametrize("headers,why", [
    ("Subject: Out of Office: Game 1\r\n", "auto-reply"),
    ("Subject: Automatic reply: Game 1\r\n", "auto-reply"),
    ("Subject: AUTO: Ann is away\r\n", "auto-reply"),
    ("Subject: Abwesenheitsnotiz: Game 1\r\n", "auto-reply"),
    ("Subject: Réponse automatique : Game 1\r\n", "auto-reply"),
    ("Subject: Autosvar: Game 1\r\n", "auto-reply"),
    ("Subject: Undeliverable: Game 1\r\n", "auto-reply"),
    ("Precedence: auto_reply\r\n", "auto-reply"),
    ("X-Precedence: auto_reply\r\n", "auto-reply"),
    ("X-Autorespond: yes\r\n", "auto-reply"),
    ("X-Failed-Recipients: bob@example.org\r\n", "bounce"),
])
def test_automatic_replies_without_auto_submitted(headers, why):
    data = raw("bid 3", headers=headers)
    if headers.startswith("Subject:"):
        data = data.replace(b"Subject: Re: your turn\r\n", b"")
    assert read(data, "ann@example.org", DOMAIN).ignore == why


def test_exchange_asking_others_not_to_auto_reply_is_still_a_players_mail():
    data = raw("bid 3", headers="X-Auto-Response-Suppress: All\r\n")
    assert read(data, "ann@example.org", DOMAIN).ignore is None


def test_a_subject_that_merely_mentions_an_absence_is_answered():
    data = raw("bid 3").replace(b"Re: your turn", b"Re: Game 1: out of office next week, bid 3")
    assert read(data, "ann@example.org", DOMAIN).ignore is None


def test_our_answer_quoted_without_marks_ends_the_reading():
    assert command_lines("bid 4\n\nDone:\n  bid 3: done\n") == ["bid 4"]
    assert command_lines("bid 4\nNot done: your line\n  > play KS\n") == ["bid 4"]


def test_an_address_longer_than_any_is_no_sender():
    data = raw("bid 3").replace(b"Ann@Example.org", b"a" * 250 + b"@example.org")
    assert read(data, "ann@example.org", DOMAIN).ignore == "no sender"


def test_format_flowed_lines_are_joined_within_their_quote_depth():
    body = ("On 02/11/2020 10:00, Pbem Spades <play+abcdefghijklmnop@pbem.localhost> \r\n"
            "wrote:\r\n> It is your turn. Reply to this \r\n> mail with one of:\r\n"
            ">   J\u2665 reply: play JH\r\n\r\nplay \r\n 7H\r\n-- \r\nAnn\r\n")
    data = raw(body, ctype="text/plain; charset=utf-8; format=flowed", cte="8bit")
    assert lines(data) == ["play 7H"]
    assert unflow("a \r\nb\r\n>> c \r\n>> d\r\n> e") == "a b\n>> c d\n> e"
    assert unflow("pl \r\nay", delsp=True) == "play"


# ---- property: however a reply is laid out around a command, only the command is read -----

COMMANDS = ["bid 4", "I bid 4", "bid four", "nil", "play QH", "Q♥\ufe0f", "ten d", "10h",
            "play the queen of hearts", "status"]
GREETINGS = ["", "Hi,", "Hello all!", "Hallo zusammen,", "Bonjour,", "Hola,", "Ciao,", "Hej,"]
CLOSINGS = ["", "Thanks,\nAnn", "Cheers – Ann's move", "Viele Grüße\nAnn", "Cordialement,",
            "Saludos,\nAnn", "Met vriendelijke groet,\nAnn B.", "Abraços,", "Pozdrawiam",
            "Mvh\nAnn", "-- \nAnn Example\n+44 20 7946 0000", "Sent from my iPhone",
            "Get Outlook for Android", "Ann"]


@given(cmd=hs.sampled_from(COMMANDS), greeting=hs.sampled_from(GREETINGS),
       closing=hs.sampled_from(CLOSINGS), attribution=hs.sampled_from(ATTRIBUTIONS),
       bottom=hs.booleans(), wrap=hs.booleans(), crlf=hs.booleans(), html=hs.booleans())
def test_only_the_command_is_read_however_the_reply_is_laid_out(
        cmd, greeting, closing, attribution, bottom, wrap, crlf, html):
    head = attribution
    if wrap and not bottom and attribution[0] not in "*P":
        head = attribution.replace(" <", "\n<", 1) if " <" in attribution else attribution
    parts = [greeting, cmd, closing]
    mine = "\n\n".join(p for p in parts if p)
    text = (f"{head}\n{QUOTE}\n\n{mine}\n" if bottom else f"{mine}\n\n{head}\n\n{QUOTE}\n")
    if html:  # as a browser-laid-out HTML mail: the quote in a blockquote, the rest in divs
        quote = "<br>".join(x[2:] for x in QUOTE.splitlines())
        ours = "".join(f"<div>{x or '<br>'}</div>" for x in mine.splitlines())
        text = html_text(f"<div>{head}</div><blockquote type=cite>{quote}</blockquote>{ours}"
                         if bottom else f"{ours}<div>{head}</div><blockquote>{quote}</blockquote>")
    if crlf:
        text = text.replace("\n", "\r\n")
    assert command_lines(text) == [cmd.replace("\ufe0f", "")]


@pytest.mark.parametrize("attribution", [
    "Le mar. 3 févr. 2026 à 09:12, Bob Brown <bob@example.net>\na écrit:",
    "El mar, 3 feb 2026 a las 09:12, Bob Brown <bob@example.net>\nescribió:",
    "Il mar 3 feb 2026 alle 09:12, Bob Brown <bob@example.net>\nha scritto:",
    "Am Di., 3. Feb. 2026 um 09:12 Uhr schrieb Bob Brown <\nbob@example.net>:",
    "Am Di., 3. Feb. 2026 um 09:12 Uhr\nschrieb Bob Brown <\nbob@example.net>:",
    "Den tis 3 feb. 2026 09:12Bob Brown <bob@example.net> skrev:",
    "On Tue, Feb 3, 2026 at 9:12 AM\nBob Brown <bob@example.net> wrote:",
    "Op di 3 feb. 2026 om 09:12 schreef Bob Brown <bob@example.net\n>:",
    "W dniu wt., 3.02.2026 o 09:12 Bob Brown <bob@example.net>\nnapisał(a):",
    "Em ter., 3 de fev. de 2026 às 09:12, Bob Brown <\nbob@example.net> escreveu:",
])
def test_attributions_wrapped_anywhere_over_two_or_three_lines(attribution):
    quote = "\n\n> bid 13\n> play AS\n"
    assert command_lines(f"play QH\n\n{attribution}{quote}") == ["play QH"]
    assert command_lines(f"{attribution}{quote}\nplay QH\n") == ["play QH"]


def test_a_long_move_above_an_attribution_is_not_taken_for_its_first_half():
    text = "so I'll play the queen of hearts\nOn Mon, 2 Nov 2020 at 10:00, Pbem <p@x> wrote:\n> x"
    assert command_lines(text) == ["so I'll play the queen of hearts"]


def test_a_card_on_the_last_line_is_a_command_not_a_signature():
    assert command_lines("bid 3\nQH\n") == ["bid 3", "QH"]
    assert command_lines("bid 3\nAS") == ["bid 3", "AS"]


@pytest.mark.parametrize("line, signoff", [
    ("Thanks partner!", True), ("cheers mate", True), ("thank you so much partner", True),
    ("Thanks Bob", True), ("best play QH", False), ("later play QH", False),
])
def test_what_a_sign_off_is(line, signoff):
    assert command_lines(f"bid 4\n{line}\nstatus") == (["bid 4"] if signoff else
                                                        ["bid 4", line, "status"])


@pytest.mark.parametrize("line", ["-" * 990 + "x", "thanks you all " * 66 + "§",
                                  "wrote : " * 120 + "x", "On " + "10:00 " * 160 + "x"])
def test_long_hostile_lines_are_read_in_linear_time(line):
    import time

    start = time.perf_counter()
    command_lines((line + "\n") * 40)
    assert time.perf_counter() - start < 2  # a backtracking pattern took 20 s here


# The body is found on the cheap parse (compat32 headers, EmailMessage.get_body): it must be
# the body the full parse (policy.default) finds, on every mail of the corpus and on MIME
# trees of any shape: alternatives, mixed, related (with or without a start), attachments.
_PART_TYPES = ["text/plain", "text/html", "text/plain; format=flowed", "image/png",
               "text/plain; charset=iso-8859-1", "text/html; charset=utf-8"]
_DISPOSITIONS = ["", "Content-Disposition: attachment; filename=a.txt\r\n",
                 "Content-Disposition: inline\r\n", "Content-Disposition: ATTACHMENT\r\n"]


@hs.composite
def _mime_part(draw, depth=0):
    disposition = draw(hs.sampled_from(_DISPOSITIONS))
    cid = draw(hs.sampled_from(["", "Content-ID: <p1@x>\r\n"]))
    if depth < 3 and draw(hs.booleans()):
        kind = draw(hs.sampled_from(["alternative", "mixed", "related",
                                     'related; start="<p1@x>"']))
        subs = draw(hs.lists(_mime_part(depth + 1), min_size=0, max_size=3))
        b = f"b{depth}{draw(hs.integers(0, 99))}"
        body = "".join(f"--{b}\r\n{s}\r\n" for s in subs) + f"--{b}--\r\n"
        return f'Content-Type: multipart/{kind}; boundary="{b}"\r\n{disposition}{cid}\r\n{body}'
    ctype = draw(hs.sampled_from(_PART_TYPES))
    text = draw(hs.sampled_from(["bid 4", "<p>play QH</p>", "bid \r\n 3", "caf\xe9 nil"]))
    return f"Content-Type: {ctype}\r\n{disposition}{cid}\r\n{text}\r\n"


def _both_bodies(data: bytes) -> tuple[str, str]:
    cheap = _text(BytesParser(_Parsed, policy=policy.compat32).parsebytes(data))
    return cheap, body_text(BytesParser(policy=policy.default).parsebytes(data))


@given(_mime_part())
def test_the_body_found_is_the_full_parsers(part):
    data = f"From: ann@example.org\r\nMIME-Version: 1.0\r\n{part}".encode()
    cheap, full = _both_bodies(data)
    assert cheap == full


def test_the_corpus_bodies_are_the_full_parsers():
    mails = sorted((Path(__file__).parent / "clients").glob("*.eml"))
    assert len(mails) > 50
    for path in mails:
        cheap, full = _both_bodies(path.read_bytes())
        assert cheap == full, path.name
