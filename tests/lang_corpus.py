"""Replies in 18 languages beyond the nine the reader once knew by their words (issue 32):
each a whole raw mail as its client sends it (headers, charset, transfer encoding, HTML-only
where the client does that), written from the clients' own templates (Gmail, Outlook, Apple
Mail, iPhone, Thunderbird and local webmails: Seznam, Yandex, mail.ru, Naver, QQ, Yahoo
Japan), top- and bottom-posted, with greetings, sign-offs and phone footers. Written for
this corpus, not captured from real accounts; TOKEN stands for the seat's token.

Each Sample knows the command lines the reader must find (`lines`), the move they mean
(`meaning`, for the game of tests/real_clients.py: ann to bid, or bid 3 and to lead), and
the player's own lines (`own`: attribution, greeting, sign-off, footer) no answer may show.
"""
# ruff: noqa: E501  (the mails' own lines are long)

import base64
import html as H
import quopri
import zlib
from dataclasses import dataclass, field

ADDR = "play+TOKEN@pbem.localhost"
ANN = "ann@example.org"

TURN = {
    "bid": """Game 1 (standard), hand 1, move 1

Your hand:
  ♠  A♠ K♠ 2♠
  ♥  A♥ Q♥ 10♥ 8♥ 3♥
  ♦  10♦ 4♦
  ♣  K♣ 5♣ 2♣

It is your turn. Reply to this mail with one of:
  bid nil
  bid 1
  bid 13

Commands: status, help, games, claim. Write one a line, above or below the quoted text.""",
    "play": """Game 1 (standard), hand 1, move 5

Your hand:
  ♠  A♠ K♠ 2♠
  ♥  A♥ Q♥ 10♥ 8♥ 3♥
  ♦  10♦ 4♦
  ♣  K♣ 5♣ 2♣

It is your turn. Reply to this mail with one of:
  A♥     reply: play AH
  K♣     reply: play KC

Commands: status, help, games, claim. Write one a line, above or below the quoted text.""",
}
SUBJECT = {"bid": "Game 1: your turn (move 1)", "play": "Game 1: your turn (move 5)"}


@dataclass
class Lang:
    code: str
    charset: str  # the legacy charset its clients still send
    name: str  # the player's name as their client shows it
    greeting: str
    signoff: list[str]
    iphone: str  # "Sent from my iPhone"
    re: str  # the reply prefix of the subject
    gmail: str  # Gmail's attribution ({a}: our address)
    apple: str  # Apple Mail's and the iPhone's
    thunderbird: str
    outlook: tuple[str, str, str, str]  # From, Sent, To, Subject labels
    sent: str  # Outlook's date line value
    android: str = ""  # another phone footer


LANGS = [
    Lang("ja", "iso-2022-jp", "山田 花子", "こんにちは！", ["よろしくお願いします。", "山田"],
         "iPhoneから送信", "Re:", "2026年11月28日(土) 10:00 Pbem Spades <{a}>:",
         "2026/11/28 10:00、Pbem Spades <{a}>のメール:",
         "2026/11/28 10:00 に Pbem Spades さんは書きました:",
         ("差出人", "送信日時", "宛先", "件名"), "2026年11月28日 10:00", "Android の Gmail から送信"),
    Lang("zh-hans", "gbk", "王小明", "你好！", ["谢谢", "小明"], "发自我的iPhone", "回复：",
         "Pbem Spades <{a}> 于2026年11月28日周六 10:00写道：",
         "在 2026年11月28日，10:00，Pbem Spades <{a}> 写道：",
         "在 2026/11/28 10:00, Pbem Spades 写道:",
         ("发件人", "发送时间", "收件人", "主题"), "2026年11月28日 10:00", "发自我的华为手机"),
    Lang("zh-hant", "big5", "陳美玲", "你好，", ["謝謝！", "美玲"], "從我的 iPhone 傳送", "回覆：",
         "Pbem Spades <{a}> 於 2026年11月28日 週六 上午10:00寫道：",
         "Pbem Spades <{a}> 於 2026年11月28日 上午10:00 寫道：",
         "Pbem Spades 於 2026/11/28 上午 10:00 寫道:",
         ("寄件者", "寄件日期", "收件者", "主旨"), "2026年11月28日 上午 10:00"),
    Lang("ko", "ks_c_5601-1987", "김민지", "안녕하세요!", ["감사합니다.", "민지 드림"], "iPhone에서 보냄", "RE:",
         "2026년 11월 28일 (토) 오전 10:00, Pbem Spades <{a}>님이 작성:",
         "2026. 11. 28. 오전 10:00, Pbem Spades <{a}> 작성:",
         "2026-11-28 오전 10:00에 Pbem Spades 이(가) 쓴 글:",
         ("보낸 사람", "보낸 날짜", "받는 사람", "제목"), "2026년 11월 28일 토요일 오전 10:00", "Galaxy에서 보냄"),
    Lang("ru", "koi8-r", "Анна Иванова", "Привет!", ["Спасибо,", "Аня"], "Отправлено с iPhone", "Re:",
         "сб, 28 нояб. 2026 г. в 10:00, Pbem Spades <{a}>:",
         "28 нояб. 2026 г., в 10:00, Pbem Spades <{a}> написал(а):",
         "28.11.2026 10:00, Pbem Spades пишет:",
         ("От", "Отправлено", "Кому", "Тема"), "28 ноября 2026 г. 10:00", "Отправлено из мобильной Почты Mail.ru"),
    Lang("uk", "windows-1251", "Оксана Коваль", "Привіт,", ["Дякую!", "Оксана"], "Надіслано з iPhone", "Re:",
         "сб, 28 лист. 2026 р. о 10:00 Pbem Spades <{a}> пише:",
         "28 лист. 2026 р. о 10:00 Pbem Spades <{a}> написав(ла):",
         "28.11.2026 10:00, Pbem Spades пише:",
         ("Від", "Надіслано", "Кому", "Тема"), "28 листопада 2026 р. 10:00"),
    Lang("tr", "windows-1254", "Ayşe Yılmaz", "Merhaba,", ["Teşekkürler,", "Ayşe"], "iPhone'umdan gönderildi", "YNT:",
         "Pbem Spades <{a}>, 28 Kas 2026 Cmt, 10:00 tarihinde şunu yazdı:",
         "28 Kas 2026 tarihinde 10:00 saatinde, Pbem Spades <{a}> şunları yazdı:",
         "28.11.2026 10:00 tarihinde Pbem Spades yazdı:",
         ("Kimden", "Gönderildi", "Kime", "Konu"), "28 Kasım 2026 Cumartesi 10:00"),
    Lang("cs", "iso-8859-2", "Jana Nováková", "Ahoj,", ["Díky,", "Jana"], "Odesláno z iPhonu", "Re:",
         "so 28. 11. 2026 v 10:00 odesílatel Pbem Spades <{a}> napsal:",
         "28. 11. 2026 v 10:00, Pbem Spades <{a}>:",
         "Dne 28. 11. 26 v 10:00 Pbem Spades napsal(a):",
         ("Od", "Odesláno", "Komu", "Předmět"), "sobota 28. listopadu 2026 10:00"),
    Lang("el", "iso-8859-7", "Μαρία Παπαδοπούλου", "Γεια σου!", ["Ευχαριστώ,", "Μαρία"],
         "Στάλθηκε από το iPhone μου", "ΑΠ:",
         "Στις Σάβ 28 Νοε 2026 στις 10:00, ο/η Pbem Spades <{a}> έγραψε:",
         "Στις 28 Νοε 2026, 10:00, ο χρήστης Pbem Spades <{a}> έγραψε:",
         "Στις 28/11/2026 10:00, ο/η Pbem Spades έγραψε:",
         ("Από", "Στάλθηκε", "Προς", "Θέμα"), "Σάββατο, 28 Νοεμβρίου 2026 10:00 πμ"),
    Lang("hu", "iso-8859-2", "Kovács Eszter", "Szia!", ["Üdv,", "Eszter"], "iPhone-ról küldve", "Re:",
         "Pbem Spades <{a}> ezt írta (időpont: 2026. nov. 28., Szo, 10:00):",
         "2026. nov. 28. dátummal, 10:00 időpontban Pbem Spades <{a}> írta:",
         "2026. 11. 28. 10:00 keltezéssel, Pbem Spades írta:",
         ("Feladó", "Elküldve", "Címzett", "Tárgy"), "2026. november 28., szombat 10:00"),
    Lang("fi", "iso-8859-15", "Anni Virtanen", "Moi!", ["Kiitos,", "Anni"], "Lähetetty iPhonesta", "VS:",
         "la 28.11.2026 klo 10.00 Pbem Spades <{a}> kirjoitti:",
         "Pbem Spades <{a}> kirjoitti 28.11.2026 kello 10.00:",
         "28.11.2026 klo 10.00 Pbem Spades kirjoitti:",
         ("Lähettäjä", "Lähetetty", "Vastaanottaja", "Aihe"), "lauantai 28. marraskuuta 2026 10.00"),
    Lang("da", "iso-8859-1", "Anne Jensen", "Hej,", ["Mvh", "Anne"], "Sendt fra min iPhone", "SV:",
         "lør. 28. nov. 2026 kl. 10.00 skrev Pbem Spades <{a}>:",
         "Den 28. nov. 2026 kl. 10.00 skrev Pbem Spades <{a}>:",
         "Den 28.11.2026 kl. 10.00 skrev Pbem Spades:",
         ("Fra", "Sendt", "Til", "Emne"), "28. november 2026 10:00"),
    Lang("no", "iso-8859-1", "Kari Nordmann", "Hei!", ["Hilsen", "Kari"], "Sendt fra min iPhone", "SV:",
         "lør. 28. nov. 2026 kl. 10:00 skrev Pbem Spades <{a}>:",
         "28. nov. 2026 kl. 10:00 skrev Pbem Spades <{a}>:",
         "Den 28.11.2026 10:00, skrev Pbem Spades:",
         ("Fra", "Sendt", "Til", "Emne"), "lørdag 28. november 2026 10:00"),
    Lang("ar", "windows-1256", "ليلى حسن", "مرحبا،", ["شكراً،", "ليلى"], "أُرسلت من الـ iPhone", "رد:",
         "\u202bفي السبت، 28 نوفمبر 2026 في 10:00 ص تمت كتابة ما يلي بواسطة \u202aPbem Spades\u202c\u200f <\u202a{a}\u202c\u200f>:\u202c",
         "في ٢٨ نوفمبر ٢٠٢٦، الساعة ١٠:٠٠ ص، كتب Pbem Spades <{a}>:",
         "في 28/11/2026 10:00 ص، كتب Pbem Spades:",
         ("من", "تاريخ الإرسال", "إلى", "الموضوع"), "السبت، 28 نوفمبر، 2026 10:00 ص"),
    Lang("he", "iso-8859-8-i", "נועה כהן", "שלום,", ["תודה,", "נועה"], "נשלח מה-iPhone שלי", "השב:",
         "\u202bבתאריך שבת, 28 בנוב׳ 2026 ב-10:00 מאת \u202aPbem Spades\u202c\u200f <\u202a{a}\u202c\u200f>:\u202c",
         "ב-28 בנוב׳ 2026, בשעה 10:00, Pbem Spades <{a}> כתב/ה:",
         "ב-28/11/2026 בשעה 10:00, Pbem Spades כתב:",
         ("מאת", "נשלח", "אל", "נושא"), "שבת 28 נובמבר 2026 10:00"),
    Lang("hi", "utf-8", "प्रिया शर्मा", "नमस्ते,", ["धन्यवाद,", "प्रिया"], "मेरे iPhone से भेजा गया", "Re:",
         "शनि, 28 नव॰ 2026 को 10:00 am बजे को Pbem Spades <{a}> ने लिखा:",
         "२८ नव॰ २०२६ को १०:०० am पर, Pbem Spades <{a}> ने लिखा:",
         "28/11/26 10:00 am पर, Pbem Spades ने लिखा:",
         ("प्रेषक", "भेजा गया", "प्रति", "विषय"), "शनिवार, 28 नवंबर 2026 10:00 am"),
    Lang("vi", "utf-8", "Nguyễn Thị Lan", "Chào bạn,", ["Cảm ơn,", "Lan"], "Được gửi từ iPhone của tôi", "Re:",
         "Vào Th 7, 28 thg 11, 2026 vào lúc 10:00 Pbem Spades <{a}> đã viết:",
         "Vào 10:00, 28 thg 11, 2026, Pbem Spades <{a}> đã viết:",
         "Vào 10:00 28/11/2026, Pbem Spades đã viết:",
         ("Từ", "Đã gửi", "Đến", "Chủ đề"), "Thứ Bảy, ngày 28 tháng 11 năm 2026 10:00"),
    Lang("id", "utf-8", "Siti Rahayu", "Halo,", ["Terima kasih,", "Siti"], "Dikirim dari iPhone saya", "Balas:",
         "Pada tanggal Sab, 28 Nov 2026 pukul 10.00 Pbem Spades <{a}> menulis:",
         "Pada 28 Nov 2026, pukul 10.00, Pbem Spades <{a}> menulis:",
         "Pada 28/11/26 10.00, Pbem Spades menulis:",
         ("Dari", "Dikirim", "Kepada", "Subjek"), "Sabtu, 28 November 2026 10.00"),
]


@dataclass
class Sample:
    name: str  # client-language-variant
    lang: str
    phase: str  # bid: ann is to bid; play: ann bid 3 and is to lead
    lines: list[str]  # the command lines the reader must find, as it gives them
    data: bytes
    own: list[str] = field(default_factory=list)  # the player's own lines, never commands
    refusal: str = ""  # (real_clients.run's Case field: none of these is refused)

    @property
    def meaning(self) -> str:
        return self.lines[0]

    @property
    def client(self) -> str:
        return self.name

    def raw(self) -> bytes:
        return self.data


# ---- building the bytes ------------------------------------------------------------------

def _word(text: str, charset: str) -> str:
    """An RFC 2047 encoded-word (B) in the client's charset; plain ASCII as is."""
    if text.isascii():
        return text
    return f"=?{charset}?B?{base64.b64encode(text.encode(_codec(charset))).decode()}?="


def _codec(charset: str) -> str:
    return {"iso-8859-8-i": "iso8859_8", "ks_c_5601-1987": "cp949", "x-sjis": "cp932",
            "x-gbk": "gbk", "windows-874": "cp874"}.get(charset, charset)


def _head(name, lang: Lang, phase, charset, ctype, extra="") -> str:
    seq = SUBJECT[phase].rstrip(")").rsplit(" ", 1)[1]  # the move our turn mail was for
    subject = _word(f"{lang.re} {SUBJECT[phase]}" if lang.re.endswith(":") else
                    f"{lang.re}{SUBJECT[phase]}", charset)
    return (f"From: {_word(lang.name, charset)} <{ANN}>\r\nTo: Pbem Spades <{ADDR}>\r\n"
            f"Subject: {subject}\r\nDate: Sat, 28 Nov 2026 10:05:00 +0100\r\n"
            f"Message-ID: <{name}.{zlib.crc32(name.encode()):08x}@mail.example.net>\r\n"
            f"In-Reply-To: <turn.1.0.{seq}.0a1b2c3d@pbem.localhost>\r\n"
            f"References: <game.1@pbem.localhost> <turn.1.0.{seq}.0a1b2c3d@pbem.localhost>\r\n"
            f"MIME-Version: 1.0\r\n{extra}Content-Type: {ctype}\r\n")


def _body(text: str, charset: str, cte: str) -> bytes:
    # the quoted suit symbols are in no legacy charset: the client writes "?" for them
    data = text.replace("\r\n", "\n").replace("\n", "\r\n").encode(_codec(charset), "replace")
    if cte == "base64":
        return base64.encodebytes(data).replace(b"\n", b"\r\n")
    if cte == "quoted-printable":
        return quopri.encodestring(data).replace(b"\r\r\n", b"\r\n")
    return data


def _part(text: str, charset: str, cte: str, sub="plain", params="") -> bytes:
    head = (f"Content-Type: text/{sub}; charset=\"{charset}\"{params}\r\n"
            f"Content-Transfer-Encoding: {cte}\r\n\r\n")
    return head.encode() + _body(text, charset, cte)


def _single(name, lang, phase, text, charset, cte, sub="plain", params="", extra="") -> bytes:
    head = _head(name, lang, phase, charset, f"text/{sub}; charset=\"{charset}\"{params}", extra)
    return (head + f"Content-Transfer-Encoding: {cte}\r\n\r\n").encode() + _body(text, charset, cte)


def _alternative(name, lang, phase, plain, html, charset, cte, extra="") -> bytes:
    b = f"000000000000{zlib.crc32(name.encode()):08x}"
    head = _head(name, lang, phase, charset, f"multipart/alternative; boundary=\"{b}\"", extra)
    return (head.encode() + b"\r\n" + f"--{b}\r\n".encode() + _part(plain, charset, cte)
            + f"\r\n--{b}\r\n".encode() + _part(html, charset, cte, "html")
            + f"\r\n--{b}--\r\n".encode())


def _fits(charset: str, *texts: str) -> str:
    """The client's charset if it holds what the player wrote, else UTF-8 (as Outlook and
    Thunderbird choose)."""
    try:
        "".join(texts).encode(_codec(charset))
        return charset
    except UnicodeEncodeError:
        return "utf-8"


def _quoted(text: str) -> str:
    return "\n".join(f"> {x}".rstrip() for x in text.split("\n"))


def _html_lines(text: str) -> str:
    return "<br>\n".join(H.escape(x).replace("  ", "&nbsp; ") for x in text.split("\n"))


# ---- the clients -------------------------------------------------------------------------

def gmail(lang: Lang, phase: str, cmd: str, name: str) -> tuple[bytes, list[str]]:
    """Gmail (web, Android): top-posted, multipart/alternative, UTF-8 base64 or QP, the
    attribution wrapped in the text part, the quote in a gmail_quote div."""
    attr = lang.gmail.format(a=ADDR)
    plain = f"{lang.greeting}\n\n{cmd}\n\n{lang.signoff[0]}\n{lang.signoff[1]}\n\n{attr}\n\n{_quoted(TURN[phase])}\n"
    html = (f'<div dir="ltr"><div>{H.escape(lang.greeting)}</div><div><br></div><div>{H.escape(cmd)}</div>'
            f'<div><br></div><div>{H.escape(lang.signoff[0])}</div><div>{H.escape(lang.signoff[1])}</div></div>'
            f'<br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">{H.escape(attr)}<br></div>'
            f'<blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex">{_html_lines(TURN[phase])}</blockquote></div>\n')
    cte = "base64" if lang.code in ("ja", "zh-hans", "zh-hant", "ko", "ar", "he", "hi", "el") else "quoted-printable"
    return _alternative(name, lang, phase, plain, html, "utf-8", cte), [lang.greeting, *lang.signoff, attr]


def gmail_bottom(lang: Lang, phase: str, cmd: str, name: str) -> tuple[bytes, list[str]]:
    """Gmail, bottom-posted: the attribution and quote above, the move below."""
    attr = lang.gmail.format(a=ADDR)
    plain = f"{attr}\n\n{_quoted(TURN[phase])}\n\n{cmd}\n\n{lang.signoff[0]}\n"
    html = (f'<div dir="ltr"><br></div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">'
            f'{H.escape(attr)}<br></div><blockquote class="gmail_quote">{_html_lines(TURN[phase])}'
            f'</blockquote></div><div><br></div><div>{H.escape(cmd)}</div><div><br></div>'
            f'<div>{H.escape(lang.signoff[0])}</div>\n')
    return _alternative(name, lang, phase, plain, html, "utf-8", "base64"), [attr, lang.signoff[0]]


def iphone(lang: Lang, phase: str, cmd: str, name: str) -> tuple[bytes, list[str]]:
    """iPhone Mail: top-posted, plain UTF-8 QP, its footer, the attribution quoted."""
    attr = lang.apple.format(a=ADDR)
    text = f"{cmd}\n\n{lang.iphone}\n\n> {attr}\n>\n{_quoted(TURN[phase])}\n"
    return (_single(name, lang, phase, text, "utf-8", "quoted-printable",
                    extra="X-Mailer: iPhone Mail (22B91)\r\n"), [lang.iphone, attr])


def apple_mail(lang: Lang, phase: str, cmd: str, name: str) -> tuple[bytes, list[str]]:
    """Apple Mail on a Mac, bottom-posted: the attribution unquoted above the quote, the
    move and a sign-off below; plain, UTF-8, 8bit."""
    attr = lang.apple.format(a=ADDR)
    text = f"{lang.greeting}\n\n{attr}\n\n{_quoted(TURN[phase])}\n\n{cmd}\n\n{lang.signoff[0]}\n{lang.signoff[1]}\n"
    return (_single(name, lang, phase, text, "utf-8", "8bit",
                    extra="X-Mailer: Apple Mail (2.3826.200.121)\r\n"),
            [lang.greeting, attr, *lang.signoff])


def thunderbird(lang: Lang, phase: str, cmd: str, name: str) -> tuple[bytes, list[str]]:
    """Thunderbird, bottom-posted, format=flowed in the language's legacy charset: the
    attribution names no address."""
    attr = lang.thunderbird
    text = f"{attr}\n{_quoted(TURN[phase])}\n\n{cmd}\n\n{lang.signoff[0]}\n{lang.signoff[1]}\n"
    cte = "7bit" if lang.charset.startswith("iso-2022") else "8bit"
    charset = _fits({"ks_c_5601-1987": "euc-kr"}.get(lang.charset, lang.charset),
                    attr, cmd, *lang.signoff)
    return (_single(name, lang, phase, text, charset, cte, params="; format=flowed",
                    extra="User-Agent: Mozilla Thunderbird\r\n"), [attr, *lang.signoff])


def outlook(lang: Lang, phase: str, cmd: str, name: str) -> tuple[bytes, list[str]]:
    """Outlook for Windows: top-posted, its header block in the language (under a rule of
    underscores, or without one as Outlook for Mac writes it), no quote marks; the legacy
    charset, quoted-printable; a sign-off."""
    f, s, t, u = lang.outlook
    rule = "________________________________\n" if len(lang.code) % 2 else ""
    block = (f"{rule}{f}: Pbem Spades <{ADDR}>\n{s}: {lang.sent}\n{t}: {lang.name} <{ANN}>\n"
             f"{u}: {SUBJECT[phase]}\n\n{TURN[phase]}\n")
    text = f"{cmd}\n\n{lang.signoff[0]}\n{lang.signoff[1]}\n\n{block}"
    charset = _fits(lang.charset, cmd, block.replace(TURN[phase], ""), *lang.signoff)
    cte = "7bit" if charset.startswith("iso-2022") else "quoted-printable"
    return (_single(name, lang, phase, text, charset, cte,
                    extra="X-Mailer: Microsoft Outlook 16.0\r\nThread-Index: AdtBq3u\r\n"),
            [*lang.signoff, f"{f}: Pbem Spades <{ADDR}>"])


def android_html(lang: Lang, phase: str, cmd: str, name: str) -> tuple[bytes, list[str]]:
    """A phone's mail app that sends HTML only: the move, its footer, the quote in a
    blockquote under the attribution."""
    footer = lang.android or lang.iphone
    attr = lang.gmail.format(a=ADDR)
    html = (f"<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=UTF-8\"></head>"
            f"<body><div dir=\"auto\">{H.escape(cmd)}<br><br><div>{H.escape(footer)}</div></div>"
            f"<div><br></div><div>{H.escape(attr)}</div><blockquote style=\"margin:0 0 0 .8ex\">"
            f"{_html_lines(TURN[phase])}</blockquote></body></html>\n")
    return _single(name, lang, phase, html, "utf-8", "base64", "html"), [footer, attr]


CLIENTS = {"gmail": gmail, "gmail-bottom": gmail_bottom, "iphone": iphone,
           "apple-mail": apple_mail, "thunderbird": thunderbird, "outlook": outlook,
           "android-html": android_html}


# ---- local webmails ----------------------------------------------------------------------

def _by_code(code: str) -> Lang:
    return next(x for x in LANGS if x.code == code)


def seznam(phase: str, cmd: str, name: str, bottom: bool) -> tuple[bytes, list[str]]:
    """Seznam (Czech webmail): its "Původní e-mail" banner and header rows; bottom-posted
    under the quote, or top-posted above the unquoted old mail. ISO-8859-2, QP."""
    cs = _by_code("cs")
    banner = "---------- Původní e-mail ----------"
    head = (f"{banner}\nOd: Pbem Spades <{ADDR}>\nKomu: {ANN}\nDatum: 28. 11. 2026 10:00:00\n"
            f"Předmět: {SUBJECT[phase]}")
    if bottom:
        text = f"{head}\n{_quoted(TURN[phase])}\n\n{cmd}\n\nJana\n"
    else:
        text = f"{cmd}\n\nJana\n\n{head}\n\n{TURN[phase]}\n"
    return _single(name, cs, phase, text, "iso-8859-2", "quoted-printable"), [banner, "Jana"]


def yandex(phase: str, cmd: str, name: str) -> tuple[bytes, list[str]]:
    """Yandex Mail: HTML only, UTF-8 base64; its attribution ("28.11.2026, 10:00, "Pbem
    Spades" <...>:") above a blockquote; its phone app's footer."""
    ru = _by_code("ru")
    attr = f'28.11.2026, 10:00, "Pbem Spades" <{ADDR}>:'
    footer = "Отправлено из мобильной Яндекс Почты"
    html = (f"<div>{H.escape(cmd)}</div><div> </div><div>-- <br />{footer}</div><div> </div>"
            f"<div>{H.escape(attr)}<br /><blockquote>{_html_lines(TURN[phase])}</blockquote></div>\n")
    return (_single(name, ru, phase, html, "utf-8", "base64", "html",
                    extra="X-Mailer: Yamail [ http://yandex.ru ] 5.0\r\n"), [attr, footer])


def mailru(phase: str, cmd: str, name: str) -> tuple[bytes, list[str]]:
    """mail.ru: HTML only, its attribution ("Суббота, 28 ноября 2026, 10:00 +03:00 от
    ...:"), a greeting, bottom-posted below the blockquote, a signature."""
    ru = _by_code("ru")
    attr = f"Суббота, 28 ноября 2026, 10:00 +03:00 от Pbem Spades <{ADDR}>:"
    html = (f"<html><body><div>Привет!</div><div>&nbsp;</div><div class=\"mail-quote-collapse\">"
            f"{H.escape(attr)}<br><blockquote style=\"border-left:1px solid #0857A6\">"
            f"<div id=\"\"><div class=\"js-helper js-readmsg-msg\">{_html_lines(TURN[phase])}"
            f"</div></div></blockquote></div><div>{H.escape(cmd)}</div><div>&nbsp;</div>"
            f"<div>--<br>Анна Иванова</div></body></html>\n")
    return _single(name, ru, phase, html, "utf-8", "base64", "html"), ["Привет!", attr, "--",
                                                                      "Анна Иванова"]


def naver(phase: str, cmd: str, name: str) -> tuple[bytes, list[str]]:
    """Naver Mail (Korean): top-posted, HTML only in ks_c_5601-1987, its
    "-----Original Message-----" block with English labels."""
    ko = _by_code("ko")
    block = (f"-----Original Message-----<br>\nFrom: \"Pbem Spades\"&lt;{ADDR}&gt;<br>\n"
             f"To: \"김민지\"&lt;{ANN}&gt;;<br>\nCc: <br>\nSent: 2026-11-28 (토) 10:00:00 (GMT+09:00)<br>\n"
             f"Subject: {SUBJECT[phase]}<br>\n")
    html = (f"<div style=\"font-size:10pt\"><p>{H.escape(cmd)}</p><p>&nbsp;</p><p>감사합니다.</p>"
            f"<p>&nbsp;</p><p>{block}</p><p>{_html_lines(TURN[phase])}</p></div>\n")
    return (_single(name, ko, phase, html, "ks_c_5601-1987", "base64", "html",
                    extra="X-Mailer: NAVER Mail\r\n"), ["감사합니다.", "-----Original Message-----"])


def qq(phase: str, cmd: str, name: str, label: str) -> tuple[bytes, list[str]]:
    """QQ Mail (Chinese): top-posted, GBK (labelled gb18030, gbk or x-gbk), its
    "原始邮件" banner and header rows with full-width colons, the old mail unquoted."""
    zh = _by_code("zh-hans")
    banner = "------------------ 原始邮件 ------------------"
    text = (f"{cmd}\n\n谢谢\n\n\n{banner}\n发件人: \"Pbem Spades\"<{ADDR}>;\n"
            f"发送时间: 2026年11月28日(星期六) 上午10:00\n收件人: \"王小明\"<{ANN}>;\n"
            f"主题: {SUBJECT[phase]}\n\n{TURN[phase]}\n")
    return (_single(name, zh, phase, text, label, "base64", extra="X-QQ-MIME: TCMime 1.0 by Tencent\r\n"),
            ["谢谢", banner])


def yahoo_jp(phase: str, cmd: str, name: str, label: str) -> tuple[bytes, list[str]]:
    """Yahoo! Japan mail: Shift_JIS (as `shift_jis` or `x-sjis`), top-posted, its
    attribution and the quote marked with ">"; full-width text from the IME."""
    ja = _by_code("ja")
    attr = "--- Pbem Spades <play+TOKEN@pbem.localhost> さんは書きました："
    text = f"{cmd}\n\nよろしくお願いします。\n\n{attr}\n{_quoted(TURN[phase])}\n"
    return _single(name, ja, phase, text, label, "8bit"), ["よろしくお願いします。", attr]


# ---- the corpus --------------------------------------------------------------------------

# what players type in each language (as the keyboard writes it) and what the reader gives
TYPED = {
    "ja": [("ｂｉｄ　４", "bid 4"), ("ＡＨ", "AH"), ("bid 5", "bid 5")],
    "zh-hans": [("ｂｉｄ　３", "bid 3"), ("play KC", "play KC"), ("bid 2", "bid 2")],
    "zh-hant": [("bid 4", "bid 4"), ("ＫＣ", "KC"), ("ｐｌａｙ　ＴＤ", "play TD")],
    "ko": [("bid 4", "bid 4"), ("play AH", "play AH"), ("ｂｉｄ　６", "bid 6")],
    "ru": [("bid 4", "bid 4"), ("play QH", "play QH"), ("nil", "nil")],
    "uk": [("bid 3", "bid 3"), ("play AH", "play AH"), ("bid 5", "bid 5")],
    "tr": [("NİL", "NIL"), ("play KC", "play KC"), ("bıd 4", "bid 4")],
    "cs": [("bid 4", "bid 4"), ("play TD", "play TD"), ("bid 2", "bid 2")],
    "el": [("bid 3", "bid 3"), ("play AH", "play AH"), ("bid 4", "bid 4")],
    "hu": [("bid 5", "bid 5"), ("play 8H", "play 8H"), ("bid 3", "bid 3")],
    "fi": [("bid 4", "bid 4"), ("play KC", "play KC"), ("bid 2", "bid 2")],
    "da": [("bid 3", "bid 3"), ("play AH", "play AH"), ("bid 4", "bid 4")],
    "no": [("bid 4", "bid 4"), ("play QH", "play QH"), ("bid 5", "bid 5")],
    "ar": [("bid ٣", "bid 3"), ("play AH", "play AH"), ("bid ٤", "bid 4")],
    "he": [("bid 4", "bid 4"), ("play KC", "play KC"), ("bid 3", "bid 3")],
    "hi": [("bid ४", "bid 4"), ("play AH", "play AH"), ("bid 3", "bid 3")],
    "vi": [("bid 4", "bid 4"), ("play TD", "play TD"), ("bid 2", "bid 2")],
    "id": [("bid 3", "bid 3"), ("play AH", "play AH"), ("bid 4", "bid 4")],
}


def _phase(expect: str) -> str:
    word = expect.split()[0].lower()
    return "bid" if word in ("bid", "nil") else "play"


def samples() -> list[Sample]:
    out = []
    for lang in LANGS:
        for n, (client, build) in enumerate(CLIENTS.items()):
            typed, expect = TYPED[lang.code][n % len(TYPED[lang.code])]
            name = f"{client}-{lang.code}"
            data, own = build(lang, _phase(expect), typed, name)
            out.append(Sample(name, lang.code, _phase(expect), [expect], data, own))
    out += _webmails()
    return out


def _webmails() -> list[Sample]:
    made = [
        ("seznam-bottom-cs", "cs", "bid 4", lambda n: seznam("bid", "bid 4", n, True)),
        ("seznam-top-cs", "cs", "play KC", lambda n: seznam("play", "play KC", n, False)),
        ("yandex-ru", "ru", "bid 3", lambda n: yandex("bid", "bid 3", n)),
        ("yandex-play-ru", "ru", "play AH", lambda n: yandex("play", "play AH", n)),
        ("mailru-ru", "ru", "bid 5", lambda n: mailru("bid", "bid 5", n)),
        ("naver-ko", "ko", "bid 4", lambda n: naver("bid", "bid 4", n)),
        ("qq-gb18030-zh-hans", "zh-hans", "bid 3", lambda n: qq("bid", "bid 3", n, "gb18030")),
        ("qq-x-gbk-zh-hans", "zh-hans", "play AH", lambda n: qq("play", "play AH", n, "x-gbk")),
        ("yahoo-sjis-ja", "ja", "bid 4", lambda n: yahoo_jp("bid", "ｂｉｄ　４", n, "shift_jis")),
        ("yahoo-x-sjis-ja", "ja", "QH", lambda n: yahoo_jp("play", "ＱＨ", n, "x-sjis")),
    ]
    out = []
    for name, code, expect, build in made:
        data, own = build(name)
        out.append(Sample(name, code, _phase(expect), [expect], data, own))
    return out


# ---- judging what the reader found ---------------------------------------------------------

VERDICTS = ("read right", "refused wrongly", "missed", "misread")


def judge(sample: Sample, lines: list[str]) -> str:
    """misread: a line that is not a meant command read as a move or an order; missed: a
    meant command not found (the move is not made); refused wrongly: the commands found,
    but a line beside them the answer would call "not done"; read right: the meant lines
    and nothing else."""
    from pbem.engine import parse_action
    from pbem.engine.orders import read as read_orders

    def a_move(line: str) -> bool:
        try:
            parse_action(line)
            return True
        except ValueError:
            try:
                return read_orders(line) is not None
            except ValueError:
                return False

    def same(line: str, meant: str) -> bool:  # "ＡＨ" is "AH" where the parser says so
        return line == meant or a_move(line) and parse_action(line) == parse_action(meant)

    meant = [x for x in lines if any(same(x, m) for m in sample.lines)]
    if any(a_move(x) for x in lines if x not in meant):
        return "misread"
    if len(meant) < len(sample.lines):
        return "missed"
    return "read right" if meant == lines else "refused wrongly"


def own_reported(sample: Sample, lines: list[str]) -> list[str]:
    """The player's own lines (attribution, greeting, sign-off, footer) among the lines the
    answer would show."""
    from pbem.mail.quotes import clean

    own = {clean(x) for x in sample.own}
    return [x for x in lines if clean(x) in own or any(x and x in o for o in own)]
