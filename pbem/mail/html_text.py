"""HTML mail to text lines, laid out as a browser would.

Whitespace in the source (spaces, tabs, line breaks) collapses to one space: Word and Outlook
wrap their HTML source anywhere, even between "play" and "AH". Lines break only at block
elements and <br>. What a client marks as quoted (<blockquote>, Gmail's and Yahoo's quote
divs) comes out with "> " before each line, so the plain-text reader skips it and reads on
below it (bottom-posting, interleaved replies).
"""

import re
from html.parser import HTMLParser

BLOCKS = {"address", "article", "aside", "blockquote", "center", "dd", "div", "dl", "dt",
          "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5",
          "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "table",
          "tbody", "thead", "tfoot", "tr", "ul"}
CELLS = {"td", "th"}
HIDDEN = {"head", "style", "script", "title", "template", "xml", "noscript"}
VOID = {"br", "hr", "img", "meta", "link", "input", "col", "area", "base", "wbr", "source"}
QUOTE_CLASSES = ("gmail_quote", "yahoo_quoted", "protonmail_quote")
_SPACE = re.compile(r"[ \t\r\n\f]+")


class _Layout(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.buf: list[str] = []
        self.open: list[tuple[str, bool]] = []  # (tag, is a quote) of the open elements
        self.hidden = self.pre = 0

    @property
    def quoted(self) -> bool:
        return any(q for _, q in self.open)

    def flush(self, force=False):
        text = "".join(self.buf).strip(" ")
        self.buf = []
        if text or force:
            prefix = "> " if self.quoted else ""
            self.lines.extend(prefix + x for x in text.split("\n"))

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in HIDDEN:
            self.hidden += 1
        if tag == "br":
            self.flush(force=True)
        elif tag in BLOCKS:
            self.flush()
        elif tag in CELLS and self.buf:
            self.buf.append(" ")
        if tag == "pre":
            self.pre += 1
        if tag not in VOID:
            classes = a.get("class") or ""
            quote = tag == "blockquote" or any(c in classes for c in QUOTE_CLASSES)
            self.open.append((tag, quote))

    def handle_endtag(self, tag):
        if tag in HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        if tag in BLOCKS:
            self.flush()
        if tag == "pre":
            self.pre = max(0, self.pre - 1)
        # close up to the matching open element: unclosed <p>s and the like end with it
        for i in range(len(self.open) - 1, -1, -1):
            if self.open[i][0] == tag:
                del self.open[i:]
                break

    def handle_data(self, data):
        if self.hidden:
            return
        if not self.pre:
            data = _SPACE.sub(" ", data)
            if not self.buf or self.buf[-1].endswith((" ", "\n")):
                data = data.lstrip(" ")
        self.buf.append(data)

    def close(self):
        super().close()
        self.flush()


def html_text(html: str) -> str:
    p = _Layout()
    p.feed(html)
    p.close()
    return "\n".join(p.lines)
