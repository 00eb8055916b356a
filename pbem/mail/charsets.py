"""Charset names as mail clients write them, to Python's codecs.

Clients name charsets the `email` package and `codecs` do not know (`iso-8859-8-i`, Hebrew
from Outlook and Thunderbird; `ks_c_5601-1987`, Korean from Outlook; `x-sjis`, `x-gbk`,
`windows-874`, `cp-850`...), and label text with a charset whose Windows superset they
really wrote (`gb2312` mail holding GBK characters, `shift_jis` holding Windows' ①, `euc-kr`
holding UHC): each is read by the codec that decodes what is really sent, as browsers do
(the WHATWG Encoding Standard's labels).
"""

import codecs
import re
from email.header import decode_header

ALIASES = {
    # bidirectional text in logical order (-i) or explicit (-e): the same bytes
    "iso-8859-8-i": "iso8859_8", "iso-8859-8-e": "iso8859_8", "iso_8859-8-i": "iso8859_8",
    "iso-8859-6-i": "iso8859_6", "iso-8859-6-e": "iso8859_6", "logical": "iso8859_8",
    "visual": "iso8859_8",
    # Korean: Outlook's name, and EUC-KR mail that holds UHC syllables
    "ks_c_5601-1987": "cp949", "ks_c_5601": "cp949", "ks_c_5601-1989": "cp949",
    "euc-kr": "cp949", "ms949": "cp949", "windows-949": "cp949", "x-windows-949": "cp949",
    "korean": "cp949", "csksc56011987": "cp949",
    # Japanese: Shift_JIS as Windows writes it
    "shift_jis": "cp932", "shift-jis": "cp932", "x-sjis": "cp932", "sjis": "cp932",
    "ms_kanji": "cp932", "csshiftjis": "cp932", "windows-31j": "cp932", "x-ms-cp932": "cp932",
    "x-euc-jp": "euc_jp", "x-euc": "euc_jp", "cseucpkdfmtjapanese": "euc_jp",
    # Chinese: GB2312 labels hold GBK; Big5 as Windows writes it
    "gb2312": "gbk", "gb_2312": "gbk", "gb_2312-80": "gbk", "x-gbk": "gbk", "chinese": "gbk",
    "csgb2312": "gbk", "x-gb2312": "gbk", "euc-cn": "gbk", "x-euc-cn": "gbk",
    "big5": "cp950", "x-x-big5": "cp950", "x-big5": "cp950", "csbig5": "cp950",
    "cn-big5": "cp950",
    # Thai
    "windows-874": "cp874", "tis-620": "cp874", "iso-8859-11": "cp874", "x-windows-874": "cp874",
    # Latin-1 and Turkish labels hold Windows' superset
    "iso-8859-1": "cp1252", "latin1": "cp1252", "iso_8859-1": "cp1252",
    "iso-8859-9": "cp1254", "latin5": "cp1254",
    # Mac and DOS names
    "x-mac-cyrillic": "mac_cyrillic", "x-mac-roman": "mac_roman", "x-mac-greek": "mac_greek",
    "x-mac-turkish": "mac_turkish", "x-mac-ce": "mac_latin2", "x-mac-icelandic": "mac_iceland",
    "ibm866": "cp866", "ibm-866": "cp866", "866": "cp866",
    # ASCII labels on 8-bit text most often hold UTF-8; names of no charset: read as UTF-8
    "us-ascii": "", "ascii": "", "x-unknown": "", "unknown-8bit": "", "x-user-defined": "",
    "unknown": "",
}
_NUMBERED = re.compile(r"^(?:x-)?(?:cp|ibm|windows|ms)[-_]?(\d{3,4})$")  # cp-850, x-cp1251


def codec(name: str | None) -> str | None:
    """The Python codec that reads text labelled `name`, or None if none does."""
    label = (name or "").strip().strip("\"'").lower()
    if label in ALIASES:
        label = ALIASES[label]
        if not label:
            return None
    numbered = _NUMBERED.match(label)
    if numbered:
        label = "cp" + numbered.group(1)
    try:
        return codecs.lookup(label).name
    except (LookupError, ValueError):  # ValueError: a NUL or the like in the name
        return None


def decode(data: bytes, name: str | None) -> str:
    """Bytes labelled `name` as text: by its codec, else as UTF-8; what will not decode is
    replaced, never raised."""
    try:
        return data.decode(codec(name) or "utf-8", errors="replace")
    except (LookupError, UnicodeError):  # a codec that fails whatever `errors` says
        return data.decode("utf-8", errors="replace")


def header_text(value: str) -> str:
    """A header's value with its encoded-words (RFC 2047) decoded by their charsets' codecs;
    as written where it will not decode."""
    if "=?" not in value:
        return value
    try:
        parts = decode_header(value)
    except Exception:  # the decoder raises many kinds
        return value
    out = []
    for part, charset in parts:
        if isinstance(part, str):
            out.append(part)
        elif charset is None:  # text outside encoded-words, as decode_header encoded it
            out.append(part.decode("raw-unicode-escape", errors="replace"))
        else:
            out.append(decode(part, charset))
    return "".join(out)
