"""The HTML part of a mail written as text only: the same words, escaped, its links made
links.

    html_of("Confirm: https://pbem.example/c/x\\n") -> "<html>...<a href=...>...</html>"

Every mail we send has a text and an HTML part (docs/mail.md): a client that shows only
the HTML still gets the whole mail, and a spam filter sees the two parts agree. The text's
own line breaks and spaces are kept (`white-space: pre-wrap`), a long line or link breaks
where the screen ends, so a 360 px phone never scrolls sideways.
"""

import re
from html import escape

# a link as the text writes it (one pass, no backtracking: any text takes linear time)...
LINK = re.compile(r"(?:https?://|mailto:)[^\s<>\"]+")
TRAILING = ".,;:!?)]"  # ...less a sentence's last stop or a closing bracket after it
STYLE = "white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-word;margin:0"


def html_of(text: str) -> str:
    """The HTML part showing `text`."""
    parts, at = [], 0
    for m in LINK.finditer(text):
        url = m.group(0).rstrip(TRAILING)
        parts += [escape(text[at:m.start()]), f'<a href="{escape(url)}">{escape(url)}</a>']
        at = m.start() + len(url)
    parts.append(escape(text[at:]))
    return (f'<html><body><div style="{STYLE}">{"".join(parts).rstrip()}</div>'
            "</body></html>\n")
