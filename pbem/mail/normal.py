"""A command line as the parsers read it, whatever keyboard typed it.

Unicode NFKC makes full-width text from CJK keyboards plain (`ｂｉｄ　４` is `bid 4`, `ＡＣ` is
`AC`); every decimal digit becomes its ASCII digit (Arabic-Indic `٣`, Devanagari `३`: 3);
Turkish `İ` and `ı` become `I` and `i`, so `NİL` and `nıl` read as nil (`"İ".lower()` is two
characters, which the parsers would not expect). Table talk is said as written: only the
command word of a `say` line, or the head of a `message` line up to its colon, is normalised.
"""

import unicodedata

# talk commands: how much of their line is the command (the rest is said as written)
_TALK = {"say": " ", "message": ":"}
_TURKISH = str.maketrans({"İ": "I", "ı": "i"})


def normal(text: str) -> str:
    """`text` as the parsers read it: NFKC, ASCII digits, Turkish I's made plain."""
    text = unicodedata.normalize("NFKC", text).translate(_TURKISH)
    if text.isascii():
        return text
    return "".join(_digit(c) for c in text)


def _digit(c: str) -> str:
    if c.isdigit() and not c.isascii():
        d = unicodedata.decimal(c, None)  # ² and ① are digits but not decimal: kept
        return c if d is None else str(d)
    return c


def for_reading(line: str) -> str:
    """The line given to the commands: normalised, but a talk line's words as written."""
    norm = normal(line)
    sep = _TALK.get(norm.split(" ", 1)[0].casefold().rstrip(":"))
    if sep is None:
        return norm
    head, cut, rest = line.partition(sep)  # the raw line's own separator ("：" is not one)
    return normal(head) + cut + rest if cut else norm
