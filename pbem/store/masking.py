"""Keys kept out of log lines: a seat's token, a signed link, an organiser's key and the
key in a mail address's "+" part, written as "..." (access logs, error logs, the mail
path's lines)."""

import logging
import re

# paths whose next segment is a key: a seat, a move link, an invitation, an organiser,
# a league's join link, a mailed confirmation (of an entry, a new game or a new league), a
# sign-in link or a mail's commands' link (pbem.web.account_link)
SECRET_PATH = re.compile(r"(/(?:api/)?(?:t|m|c|u|i|o|a|j/confirm|j/partner|j|new/confirm"
                         r"|l/new/confirm|signin|cal)/)([^/\s?#\"]+)")
SECRET_QUERY = re.compile(r"([?&]token=)([^&\s#\"]+)")
# a mail address whose local part carries a key after its "+" (play+TOKEN@, pbem+KEY@,
# organiser+KEY@, bounce+ROW-MAC@)
SECRET_ADDRESS = re.compile(r"([A-Za-z0-9._-]\+)([^@\s\"'<>()\[\],;]+)(@)")


def mask(text: str) -> str:
    """`text` with every key in a path, a ?token= or an address's "+" part replaced by
    "..."."""
    text = SECRET_ADDRESS.sub(r"\1...\3", text)
    return SECRET_QUERY.sub(r"\1...", SECRET_PATH.sub(r"\1...", text))


class MaskKeys(logging.Filter):
    """The line as written, and its traceback, with the keys masked."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = mask(record.getMessage()), ()
        if record.exc_info and not record.exc_text:  # a Formatter uses exc_text when set
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = mask(record.exc_text)
        return True
