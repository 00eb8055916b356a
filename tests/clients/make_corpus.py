"""Writes tests/clients/*.eml and index.tsv: replies modelled on what each client sends
(MIME structure, headers, quoting, localised attribution lines, footers and sign-offs).

    python tests/clients/make_corpus.py      # rewrites the corpus beside this file
"""
# ruff: noqa: E501  (the mails' own lines are long)

import base64
import html as H
import quopri
import textwrap
import zlib
from pathlib import Path

OUT = Path(__file__).resolve().parent
ADDR = "play+TOKEN@pbem.localhost"
TURN_SUBJ = "Game 1: your turn (move 5)"
BID_SUBJ = "Game 1: your turn (move 1)"

PLAY_TURN = """Game 1 (standard), hand 1, move 5

Your hand:
  ♠  A♠ K♠ 2♠
  ♥  A♥ Q♥ 10♥ 8♥ 3♥
  ♦  10♦ 4♦
  ♣  K♣ 5♣ 2♣

Bids and tricks:
  Ann                      bid 3, took 0
  Robot 1                  bid 4, took 0
  Robot 2                  bid 2, took 0
  Robot 3                  bid 3, took 0

Score:
  Ann & Robot 2: 0 (0 bags)
  Robot 1 & Robot 3: 0 (0 bags)

Your move is due by 2020-11-04 10:00 UTC.
It is your turn. Reply to this mail with one of:
  A♥     reply: play AH
  Q♥     reply: play QH
  10♥    reply: play TH
  8♥     reply: play 8H
  3♥     reply: play 3H
  10♦    reply: play TD
  4♦     reply: play 4D
  K♣     reply: play KC
  5♣     reply: play 5C
  2♣     reply: play 2C

Your table on the web: http://127.0.0.1:5000/t/q7x2m4

Commands: status, help, games, claim. Write one a line, above or below the quoted text."""

BID_TURN = """Game 1 (standard), hand 1, move 1

Your hand:
  ♠  A♠ K♠ 2♠
  ♥  A♥ Q♥ 10♥ 8♥ 3♥
  ♦  10♦ 4♦
  ♣  K♣ 5♣ 2♣

Bids and tricks:
  Ann                      bid -, took 0
  Robot 1                  bid -, took 0
  Robot 2                  bid -, took 0
  Robot 3                  bid -, took 0

Your move is due by 2020-11-04 10:00 UTC.
It is your turn. Reply to this mail with one of:
  bid nil
  bid 1
  bid 2
  bid 3
  bid 4
  bid 5
  bid 13

Your table on the web: http://127.0.0.1:5000/t/q7x2m4

Commands: status, help, games, claim. Write one a line, above or below the quoted text."""

files = {}  # name -> (bytes, phase, meaning)


def head(name, subject, extra="", frm="Ann <ann@example.org>", date="Mon, 02 Nov 2020 10:05:00 +0100"):
    return (f"From: {frm}\r\nTo: Pbem Spades <{ADDR}>\r\nSubject: {subject}\r\n"
            f"Date: {date}\r\nMessage-ID: <{name}.{zlib.crc32(name.encode()):08x}@mail.example.org>\r\n"
            f"In-Reply-To: <turn.1.0.5.0a1b2c3d@pbem.localhost>\r\n"
            f"References: <game.1@pbem.localhost> <turn.1.0.5.0a1b2c3d@pbem.localhost>\r\n"
            f"MIME-Version: 1.0\r\n{extra}")


def qp(text: str, charset="utf-8") -> str:
    return quopri.encodestring(text.replace("\n", "\r\n").encode(charset)).decode("ascii")


def crlf(s):
    return s.replace("\r\n", "\n").replace("\n", "\r\n")


def quoted(text, mark="> "):
    return "\n".join((mark + x).rstrip() if x else mark.rstrip() for x in text.split("\n"))


def html_quote(text):
    return "<br>\n".join(H.escape(x).replace("  ", "&nbsp; ") for x in text.split("\n"))


def put(name, data, phase, meaning):
    files[name] = (data.encode() if isinstance(data, str) else data, phase, meaning)


# ---- Gmail (web and Android): multipart/alternative, wrapped attribution, gmail_quote ----
GMAIL_ATTR = {
    "en": "On Mon, 2 Nov 2020 at 10:00, Pbem Spades <{a}> wrote:",
    "de": "Am Mo., 2. Nov. 2020 um 10:00 Uhr schrieb Pbem Spades <{a}>:",
    "fr": "Le lun. 2 nov. 2020 à 10:00, Pbem Spades <{a}> a écrit :",
    "es": "El lun, 2 nov 2020 a las 10:00, Pbem Spades (<{a}>) escribió:",
    "it": "Il giorno lun 2 nov 2020 alle ore 10:00 Pbem Spades <{a}> ha scritto:",
    "nl": "Op ma 2 nov. 2020 om 10:00 schreef Pbem Spades <{a}>:",
    "pt": "Em seg., 2 de nov. de 2020 às 10:00, Pbem Spades <{a}> escreveu:",
    "pl": "pon., 2 lis 2020 o 10:00 Pbem Spades <{a}> napisał(a):",
    "sv": "Den mån 2 nov. 2020 kl 10:00 skrev Pbem Spades <{a}>:",
}
GMAIL_CMD = {  # (phase, what the player typed, meaning)
    "en": ("bid", "I bid 4", "bid 4"),
    "de": ("play", "8♥️", "play 8H"),
    "fr": ("bid", "bid four", "bid 4"),
    "es": ("play", "play 5♣️", "play 5C"),
    "it": ("bid", "bid: 4", "bid 4"),
    "nl": ("play", "ten d", "play TD"),
    "pt": ("play", "ten h", "play TH"),
    "pl": ("play", "play the queen of hearts", "play QH"),
    "sv": ("bid", "Bid 5.", "bid 5"),
}
for lang, tmpl in GMAIL_ATTR.items():
    phase, cmd, meaning = GMAIL_CMD[lang]
    turn = PLAY_TURN if phase == "play" else BID_TURN
    attr = tmpl.format(a=ADDR)
    wrapped = "\n".join(textwrap.wrap(attr, 76, break_on_hyphens=False))
    plain = f"{cmd}\n\n{wrapped}\n\n{quoted(turn)}\n"
    htm = (f'<div dir="ltr">{H.escape(cmd)}</div><br><div class="gmail_quote">'
           f'<div dir="ltr" class="gmail_attr">{H.escape(attr)}<br></div>'
           f'<blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px '
           f'solid rgb(204,204,204);padding-left:1ex">{html_quote(turn)}</blockquote></div>\n')
    b = "000000000000a1b2c3d4e5f6" + lang
    body = (f'Content-Type: multipart/alternative; boundary="{b}"\r\n\r\n--{b}\r\n'
            f'Content-Type: text/plain; charset="UTF-8"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n'
            f"{qp(plain)}\r\n--{b}\r\n"
            f'Content-Type: text/html; charset="UTF-8"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n'
            f"{qp(htm)}\r\n--{b}--\r\n")
    put(f"gmail-{lang}", head(f"gmail-{lang}", "Re: " + (TURN_SUBJ if phase == "play" else BID_SUBJ)) + body, phase, meaning)

# ---- Outlook desktop (Word), HTML only: the source wrapped inside a run, localised headers ----
OUTLOOK_HDR = {
    "en": ("From:", "Sent:", "To:", "Subject:", "Monday, 2 November 2020 10:00", "EN-GB"),
    "de": ("Von:", "Gesendet:", "An:", "Betreff:", "Montag, 2. November 2020 10:00", "DE"),
    "fr": ("De&nbsp;:", "Envoyé&nbsp;:", "À&nbsp;:", "Objet&nbsp;:", "lundi 2 novembre 2020 10:00", "FR"),
    "es": ("De:", "Enviado el:", "Para:", "Asunto:", "lunes, 2 de noviembre de 2020 10:00", "ES"),
    "it": ("Da:", "Inviato:", "A:", "Oggetto:", "lunedì 2 novembre 2020 10:00", "IT"),
    "nl": ("Van:", "Verzonden:", "Aan:", "Onderwerp:", "maandag 2 november 2020 10:00", "NL"),
    "pt": ("De:", "Enviada em:", "Para:", "Assunto:", "segunda-feira, 2 de novembro de 2020 10:00", "PT-BR"),
    "pl": ("Od:", "Wysłano:", "Do:", "Temat:", "poniedziałek, 2 listopada 2020 10:00", "PL"),
    "sv": ("Från:", "Skickat:", "Till:", "Ämne:", "den 2 november 2020 10:00", "SV"),
}
OUTLOOK_CMD = {
    "en": ("play", "play\nAH", "play AH"),
    "de": ("bid", "bid\n4", "bid 4"),
    "fr": ("play", "Q♥", "play QH"),
    "es": ("play", "play\nthe ten of hearts", "play TH"),
    "it": ("bid", "4", "bid 4"),
    "nl": ("play", "play\n8h", "play 8H"),
    "pt": ("bid", "bid\nthree", "bid 3"),
    "pl": ("play", "play the jack of\nhearts", "play JH\tJ♥ is not in your hand"),
    "sv": ("play", "play KS", "play KS\tyou may not play K♠ now"),
}
for lang, (frm, sent, to, subj, date, lc) in OUTLOOK_HDR.items():
    phase, cmd, meaning = OUTLOOK_CMD[lang]
    turn = PLAY_TURN if phase == "play" else BID_TURN
    paras = "\n".join(f"<p class=MsoNormal>{H.escape(x) if x else '<o:p>&nbsp;</o:p>'}<o:p></o:p></p>"
                      for x in turn.split("\n"))
    htm = f"""<html xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office" xmlns:w="urn:schemas-microsoft-com:office:word" xmlns:m="http://schemas.microsoft.com/office/2004/12/omml" xmlns="http://www.w3.org/TR/REC-html40"><head><meta http-equiv=Content-Type content="text/html; charset=utf-8"><meta name=Generator content="Microsoft Word 15 (filtered medium)"><style><!--
/* Font Definitions */
@font-face
	{{font-family:"Cambria Math";
	panose-1:2 4 5 3 5 4 6 3 2 4;}}
p.MsoNormal, li.MsoNormal, div.MsoNormal
	{{margin:0cm;
	font-size:11.0pt;
	font-family:"Calibri",sans-serif;}}
span.EmailStyle18
	{{mso-style-type:personal-reply;}}
--></style><!--[if gte mso 9]><xml>
<o:shapedefaults v:ext="edit" spidmax="1026" />
</xml><![endif]--></head><body lang={lc} link="#0563C1" vlink="#954F72" style='word-wrap:break-word'><div class=WordSection1><p class=MsoNormal><span style='font-size:11.0pt;mso-fareast-language:EN-US'>{cmd}<o:p></o:p></span></p><p class=MsoNormal><span style='mso-fareast-language:EN-US'><o:p>&nbsp;</o:p></span></p><div><div style='border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm'><p class=MsoNormal><b><span lang=EN-US>{frm}</span></b><span lang=EN-US> Pbem Spades &lt;{ADDR}&gt; <br><b>{sent}</b> {date}<br><b>{to}</b> Ann &lt;ann@example.org&gt;<br><b>{subj}</b> {TURN_SUBJ if phase == "play" else BID_SUBJ}<o:p></o:p></span></p></div></div><p class=MsoNormal><o:p>&nbsp;</o:p></p>
{paras}
</div></body></html>
"""
    body = ('Content-Type: text/html; charset="utf-8"\r\nContent-Transfer-Encoding: quoted-printable\r\n'
            f"Content-Language: {lc.lower()}\r\nX-Mailer: Microsoft Outlook 16.0\r\nThread-Index: AQHWsQ2+abcdEFGH\r\n\r\n{qp(htm)}\r\n")
    put(f"outlook-desktop-{lang}", head(f"outlook-desktop-{lang}", "RE: " + (TURN_SUBJ if phase == "play" else BID_SUBJ)) + body, phase, meaning)

# ---- iPhone Mail: top-posted, footer, then the quoted attribution; emoji suits ----
IPHONE = {
    "en": ("Sent from my iPhone", "On 2 Nov 2020, at 10:00, Pbem Spades <{a}> wrote:", "play", "8♥️", "play 8H"),
    "de": ("Von meinem iPhone gesendet", "Am 02.11.2020 um 10:00 schrieb Pbem Spades <{a}>:", "play", "A♥️", "play AH"),
    "fr": ("Envoyé de mon iPhone", "Le 2 nov. 2020 à 10:00, Pbem Spades <{a}> a écrit :", "bid", "Nil", "bid nil"),
    "es": ("Enviado desde mi iPhone", "El 2 nov 2020, a las 10:00, Pbem Spades <{a}> escribió:", "play", "5♣️", "play 5C"),
    "it": ("Inviato da iPhone", "Il giorno 2 nov 2020, alle ore 10:00, Pbem Spades <{a}> ha scritto:", "play", "10♥️", "play TH"),
    "nl": ("Verstuurd vanaf mijn iPhone", "Op 2 nov. 2020 om 10:00 heeft Pbem Spades <{a}> het volgende geschreven:", "bid", "Bid 2", "bid 2"),
    "pt": ("Enviado do meu iPhone", "Em 2 de nov. de 2020, à(s) 10:00, Pbem Spades <{a}> escreveu:", "play", "K♣️", "play KC"),
    "pl": ("Wysłane z iPhone'a", "Wiadomość napisana przez Pbem Spades <{a}> w dniu 02.11.2020, o godz. 10:00:", "play", "Q♥️", "play QH"),
    "sv": ("Skickat från min iPhone", "2 nov. 2020 kl. 10:00 skrev Pbem Spades <{a}>:", "play", "2♣️", "play 2C"),
}
for lang, (footer, attr, phase, cmd, meaning) in IPHONE.items():
    turn = PLAY_TURN if phase == "play" else BID_TURN
    plain = f"{cmd}\n\n{footer}\n\n{quoted(attr.format(a=ADDR))}\n> \n{quoted(turn)}\n"
    body = ("Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n"
            "X-Mailer: iPhone Mail (18A393)\r\n\r\n" + qp(plain) + "\r\n")
    put(f"iphone-{lang}", head(f"iphone-{lang}", "Re: " + (TURN_SUBJ if phase == "play" else BID_SUBJ)) + body, phase, meaning)

# ---- Thunderbird: bottom-posted, format=flowed, signature after "-- " ----
TB = {
    "en": ("On 02/11/2020 10:00, Pbem Spades wrote:", "bid", "bid 4\n\nThanks,\nAnn", "bid 4"),
    "de": ("Am 02.11.20 um 10:00 schrieb Pbem Spades:", "play", "play AH\n\nViele Grüße\nAnn", "play AH"),
    "fr": ("Le 02/11/2020 à 10:00, Pbem Spades a écrit :", "play", "play 3h\n\nCordialement,\nAnn", "play 3H"),
    "es": ("El 2/11/20 a las 10:00, Pbem Spades escribió:", "bid", "bid 3\n\nSaludos,\nAnn", "bid 3"),
    "it": ("Il 02/11/2020 10:00, Pbem Spades ha scritto:", "play", "4d\n\nCiao,\nAnn", "play 4D"),
    "nl": ("Op 02-11-2020 om 10:00 schreef Pbem Spades:", "play", "play KC\n\nMet vriendelijke groet,\nAnn", "play KC"),
    "pt": ("Em 02/11/2020 10:00, Pbem Spades escreveu:", "bid", "bid 6\n\nAbraços,\nAnn", "bid 6"),
    "pl": ("W dniu 2.11.2020 o 10:00, Pbem Spades pisze:", "play", "play TD\n\nPozdrawiam\nAnn", "play TD"),
    "sv": ("Den 2020-11-02 kl. 10:00, skrev Pbem Spades:", "bid", "bid 2\n\nMvh\nAnn", "bid 2"),
}
for lang, (attr, phase, cmd, meaning) in TB.items():
    turn = PLAY_TURN if phase == "play" else BID_TURN
    plain = f"{attr}\n{quoted(turn)}\n\n{cmd}\n\n-- \nAnn Example, Bristol\n"
    body = ("Content-Type: text/plain; charset=UTF-8; format=flowed\r\nContent-Transfer-Encoding: 8bit\r\n"
            f"Content-Language: {lang}\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:78.0) Gecko/20100101 Thunderbird/78.4.0\r\n\r\n"
            + crlf(plain))
    put(f"thunderbird-bottom-{lang}", head(f"thunderbird-bottom-{lang}", "Re: " + (TURN_SUBJ if phase == "play" else BID_SUBJ)) + body, phase, meaning)

# ---- Thunderbird HTML, bottom-posted under a blockquote ----
tb_html = (f'<html><head><meta http-equiv="Content-Type" content="text/html; charset=UTF-8"></head><body>\n'
           f'<div class="moz-cite-prefix">On 02/11/2020 10:00, Pbem Spades wrote:<br>\n</div>\n'
           f'<blockquote type="cite" cite="mid:turn.1.0.5.0a1b2c3d@pbem.localhost">\n<pre class="moz-quote-pre" wrap="">'
           f"{H.escape(PLAY_TURN)}</pre>\n</blockquote>\n<p>play\n      8h<br>\n</p>\n"
           f'<pre class="moz-signature" cols="72">-- \nAnn</pre>\n</body>\n</html>\n')
put("thunderbird-html-bottom-en", head("thunderbird-html-bottom-en", "Re: " + TURN_SUBJ) +
    'Content-Type: text/html; charset=UTF-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n' + crlf(tb_html), "play", "play 8H")

# ---- mutt: interleaved, under the part of the quote it answers ----
parts = PLAY_TURN.split("\nYour table on the web")
mutt = (f"* Pbem Spades <{ADDR}> [2020-11-02 10:00 +0000]:\n{quoted(parts[0])}\n\nten d\n\n"
        f"{quoted('Your table on the web' + parts[1])}\n\nCheers \u2013 Ann's move\n\n-- \nAnn\n")
put("mutt-interleaved-en", head("mutt-interleaved-en", "Re: " + TURN_SUBJ, frm="Ann Example <ann@example.org>") +
    "Content-Type: text/plain; charset=utf-8\r\nContent-Disposition: inline\r\nContent-Transfer-Encoding: 8bit\r\nUser-Agent: Mutt/1.10.1 (2018-07-13)\r\n\r\n" + crlf(mutt), "play", "play TD")

# ---- Outlook for Android: plain, footer with a link, Outlook's rule and header block ----
ola = (f"play the queen of hearts\n\nGet Outlook for Android<https://aka.ms/ghei36>\n"
       f"________________________________\nFrom: Pbem Spades <{ADDR}>\nSent: Monday, November 2, 2020 10:00:00 AM\n"
       f"To: ann@example.org <ann@example.org>\nSubject: {TURN_SUBJ}\n\n{PLAY_TURN}\n")
put("outlook-android-en", head("outlook-android-en", "Re: " + TURN_SUBJ) +
    "Content-Type: text/plain; charset=\"utf-8\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n" + qp(ola) + "\r\n", "play", "play QH")

# ---- Apple Mail on a Mac: plain and HTML, blockquote type=cite ----
am_plain = f"play AH\nThanks,\nAnn\n\n> On 2 Nov 2020, at 10:00, Pbem Spades <{ADDR}> wrote:\n> \n{quoted(PLAY_TURN)}\n\n"
am_html = (f'<html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8"></head><body style="word-wrap: break-word;">'
           f'play AH<div>Thanks,</div><div>Ann<br><div><br><blockquote type="cite"><div>On 2 Nov 2020, at 10:00, Pbem Spades &lt;'
           f'<a href="mailto:{ADDR}">{ADDR}</a>&gt; wrote:</div><br class="Apple-interchange-newline"><div><div>{html_quote(PLAY_TURN)}'
           f"</div></div></blockquote></div><br></div></body></html>")
b = "Apple-Mail=_5F2C0B11-3E8C-4B0E-9A6C-1C2D3E4F5A6B"
put("apple-mail-mac-en", head("apple-mail-mac-en", "Re: " + TURN_SUBJ) +
    f'Content-Type: multipart/alternative; boundary="{b}"\r\nX-Mailer: Apple Mail (2.3608.120.23.2.4)\r\n\r\n'
    f"--{b}\r\nContent-Transfer-Encoding: quoted-printable\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{qp(am_plain)}\r\n"
    f"--{b}\r\nContent-Transfer-Encoding: quoted-printable\r\nContent-Type: text/html; charset=utf-8\r\n\r\n{qp(am_html)}\r\n--{b}--\r\n",
    "play", "play AH")

# ---- Outlook on the web, HTML only (divRplyFwdMsg), German ----
owa = (f'<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"><style type="text/css" style="display:none;"> P {{margin-top:0;margin-bottom:0;}} </style></head>'
       f'<body dir="ltr"><div style="font-family: Calibri, Arial, Helvetica, sans-serif; font-size: 12pt; color: rgb(0, 0, 0);">bid\n 4</div>'
       f'<div style="font-family: Calibri; font-size: 12pt;">Gr\xfc\xdfe, Ann</div><div id="appendonsend"></div><hr style="display:inline-block;width:98%" tabindex="-1">'
       f'<div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif" style="font-size:11pt" color="#000000"><b>Von:</b> Pbem Spades &lt;{ADDR}&gt;<br>'
       f'<b>Gesendet:</b> Montag, 2. November 2020 10:00<br><b>An:</b> ann@example.org<br><b>Betreff:</b> {BID_SUBJ}</font><div>&nbsp;</div></div>'
       f'<div><pre>{H.escape(BID_TURN).replace("♠", "&#9824;").replace("♥", "&#9829;").replace("♦", "&#9830;").replace("♣", "&#9827;")}</pre></div></body></html>')
put("outlook-web-de", head("outlook-web-de", "AW: " + BID_SUBJ) +
    "Content-Type: text/html; charset=\"iso-8859-1\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n" + qp(owa, "iso-8859-1") + "\r\n",
    "bid", "bid 4")

# ---- a reply with nothing but the quote (sent by mistake), and an out-of-office ----
empty = f"\n\nSent from my iPad\n\n> On 2 Nov 2020, at 10:00, Pbem Spades <{ADDR}> wrote:\n> \n{quoted(PLAY_TURN)}\n"
put("ipad-empty-en", head("ipad-empty-en", "Re: " + TURN_SUBJ) +
    "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n" + qp(empty) + "\r\n", "play", "nothing")
oof = "I am out of the office until 9 November with no access to e-mail.\n\nplay AH\n"
put("outlook-out-of-office-en", head("outlook-out-of-office-en", "Automatic reply: " + TURN_SUBJ,
                                     extra="X-Auto-Response-Suppress: All\r\nX-MS-Exchange-Inbox-Rules-Loop: ann@example.org\r\n") +
    "Content-Type: text/plain; charset=\"us-ascii\"\r\nContent-Transfer-Encoding: 7bit\r\n\r\n" + crlf(oof), "play", "ignore")
oof_de = "Vielen Dank für Ihre Nachricht. Ich bin bis zum 9. November nicht im Büro.\n\nbid 4\n"
put("gmail-vacation-de", head("gmail-vacation-de", "Abwesenheitsnotiz: " + BID_SUBJ, extra="Precedence: auto_reply\r\n") +
    "Content-Type: text/plain; charset=\"UTF-8\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n" + qp(oof_de) + "\r\n", "bid", "ignore")


# ---- Apple Mail on a Mac, in every language: plain part with the attribution quoted ----
APPLE = {
    "de": ("Am 02.11.2020 um 10:00 schrieb Pbem Spades <{a}>:", "play", "ten h\nViele Grüße\nAnn", "play TH"),
    "fr": ("Le 2 nov. 2020 à 10:00, Pbem Spades <{a}> a écrit :", "bid", "bid 4\n\nBonne journée !\nAnn", "bid 4"),
    "es": ("El 2 nov 2020, a las 10:00, Pbem Spades <{a}> escribió:", "play", "play the ace of hearts\nGracias,\nAnn", "play AH"),
    "it": ("Il giorno 2 nov 2020, alle ore 10:00, Pbem Spades <{a}> ha scritto:", "bid", "bid: 3\nCiao\nAnn", "bid 3"),
    "nl": ("Op 2 nov. 2020 om 10:00 heeft Pbem Spades <{a}> het volgende geschreven:", "play", "Hoi,\n\nplay 8♥\n\nGroetjes,\nAnn", "play 8H"),
    "pt": ("No dia 2 de nov. de 2020, às 10:00, Pbem Spades <{a}> escreveu:", "play", "play 10♦\nObrigada!\nAnn", "play TD"),
    "pl": ("Wiadomość napisana przez Pbem Spades <{a}> w dniu 02.11.2020, o godz. 10:00:", "bid", "bid five\nPozdrawiam\nAnn", "bid 5"),
    "sv": ("2 nov. 2020 kl. 10:00 skrev Pbem Spades <{a}>:", "play", "Hej!\nplay KC\nTack,\nAnn", "play KC"),
}
for lang, (attr, phase, cmd, meaning) in APPLE.items():
    turn = PLAY_TURN if phase == "play" else BID_TURN
    plain = f"{cmd}\n\n{quoted(attr.format(a=ADDR))}\n> \n{quoted(turn)}\n\n"
    b = f"Apple-Mail=_0A1B2C3D-{lang.upper()}"
    put(f"apple-mail-mac-{lang}", head(f"apple-mail-mac-{lang}", "Re: " + (TURN_SUBJ if phase == "play" else BID_SUBJ)) +
        f'Content-Type: multipart/alternative; boundary="{b}"\r\nX-Mailer: Apple Mail (2.3608.120.23.2.4)\r\n\r\n'
        f"--{b}\r\nContent-Transfer-Encoding: quoted-printable\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{qp(plain)}\r\n"
        f"--{b}\r\nContent-Transfer-Encoding: quoted-printable\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
        f"{qp('<html><body>' + html_quote(cmd) + '<blockquote type=cite>' + html_quote(turn) + '</blockquote></body></html>')}\r\n--{b}--\r\n",
        phase, meaning)

# ---- Outlook for Android/iOS in every language: footer, rule, localised header block ----
OLA = {
    "de": ("Holen Sie sich Outlook für Android", "Von", "Gesendet", "An", "Betreff", "bid 4", "bid", "bid 4"),
    "fr": ("Obtenir Outlook pour Android", "De", "Envoyé", "À", "Objet", "play QH", "play", "play QH"),
    "es": ("Obtener Outlook para iOS", "De", "Enviado", "Para", "Asunto", "play 3♥️", "play", "play 3H"),
    "it": ("Ottieni Outlook per Android", "Da", "Inviato", "A", "Oggetto", "bid two", "bid", "bid 2"),
    "nl": ("Outlook voor Android downloaden", "Van", "Verzonden", "Aan", "Onderwerp", "2c", "play", "play 2C"),
    "pt": ("Obter o Outlook para Android", "De", "Enviado", "Para", "Assunto", "nil", "bid", "bid nil"),
    "pl": ("Pobierz aplikację Outlook dla systemu Android", "Od", "Wysłane", "Do", "Temat", "play 4♦️", "play", "play 4D"),
    "sv": ("Skaffa Outlook för Android", "Från", "Skickat", "Till", "Ämne", "bid 1", "bid", "bid 1"),
}
for lang, (footer, f, s_, t, subj, cmd, phase, meaning) in OLA.items():
    turn = PLAY_TURN if phase == "play" else BID_TURN
    sep = " :" if lang == "fr" else ":"
    body_ = (f"{cmd}\n\n{footer}<https://aka.ms/ghei36>\n________________________________\n"
             f"{f}{sep} Pbem Spades <{ADDR}>\n{s_}{sep} Monday, November 2, 2020 10:00:00 AM\n"
             f"{t}{sep} ann@example.org <ann@example.org>\n{subj}{sep} {TURN_SUBJ if phase == 'play' else BID_SUBJ}\n\n{turn}\n")
    put(f"outlook-android-{lang}", head(f"outlook-android-{lang}", "Re: " + (TURN_SUBJ if phase == "play" else BID_SUBJ)) +
        "Content-Type: text/plain; charset=\"utf-8\"\r\nContent-Transfer-Encoding: base64\r\n\r\n" +
        base64.encodebytes(body_.replace("\n", "\r\n").encode()).decode().replace("\n", "\r\n"), phase, meaning)

index = ["# Replies modelled on what each client sends (MIME structure, headers, quoting, its localised lines);",
         "# written for this corpus, not captured from real accounts. TOKEN stands for the seat's token.",
         "# file\tphase (bid: ann to bid; play: ann to lead)\tmeaning (a move; nothing: no command; ignore: never answered)\twhy the game refuses the move, if it does"]
for name, (data, phase, meaning) in sorted(files.items()):
    (OUT / f"{name}.eml").write_bytes(data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    index.append(f"{name}.eml\t{phase}\t{meaning}" + ("" if "\t" in meaning else "\t"))
(OUT / "index.tsv").write_text("\n".join(index) + "\n")
print(len(files), "files")
