"""Lines of a mail's text at most 78 columns (RFC 5322 2.1.1 says lines SHOULD be), for
every mail the outbox sends, whoever wrote it."""

import textwrap

WIDTH = 78


def wrap(text: str, width: int = WIDTH) -> str:
    """A longer line breaks at spaces, its continuation indented two more than it; a word
    longer than the width (a link) keeps a line of its own."""
    out = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
            continue
        indent = line[:len(line) - len(line.lstrip(" "))]
        out.extend(textwrap.wrap(line.strip(), width, initial_indent=indent,
                                 subsequent_indent=indent + "  ", break_long_words=False,
                                 break_on_hyphens=False) or [line])
    return "\n".join(out)
