"""How well mail is read: the real-client corpus (tests/clients) over SMTP, our reader
beside the reply-parsing libraries on the same mails, and the corpus of replies in 18 more
languages (tests/lang_corpus.py, issue 32).

    .venv/bin/python bench/mail_reading.py [--no-smtp] [--languages]

- languages: every mail of tests/lang_corpus.py read by the reader; its counts (samples,
  languages, read right, refused wrongly, missed, misread, own lines reported: an
  attribution, greeting, sign-off or footer the answer would show as "not done"), the
  languages where any was not read right, and the reading's time per mail. With SMTP,
  every one is also sent to a seat and judged as tests/test_mail_clients.py judges.

- over SMTP: every corpus mail goes to the running handler (a SQLite file under /tmp), to a
  seat in a fresh game, and is judged as tests/test_mail_clients.py judges it; the tally
  (understood / refused for the right reason / not understood / misread) is printed.
- readers: the reading step alone, on every corpus mail that is answered. Each reader gets
  the mail's text (the text/plain part, else its HTML as text) and returns what the player
  wrote; its lines are read as commands until the first that is not one. A reader is right
  on a mail when that gives exactly the meant move and no line it could not read (which
  would make the answer "not done"), or no lines at all where the player wrote none.
  Compared, where installed: mail-parser-reply, talon (quotations), email_reply_parser,
  each alone and with our line rules (sign-offs, footers, names: "+") on what it kept.
  They are not dependencies of pbem; install them beside it to compare.
"""

import argparse
import statistics
import sys
import tempfile
import time
from collections import Counter
from email import policy
from email.parser import BytesParser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import lang_corpus  # noqa: E402
from real_clients import cases, run, tally  # noqa: E402

from pbem.engine import parse_action, preset  # noqa: E402
from pbem.mail.quotes import clean  # noqa: E402
from pbem.mail.reader import body_text, command_lines  # noqa: E402
from pbem.mail.reader import read as read_mail  # noqa: E402

RULES = preset("standard")
LANGUAGES = ["en", "de", "fr", "es", "it", "nl", "pl", "sv"]  # mail-parser-reply has no pt


def readers() -> dict:
    out = {"pbem": command_lines}
    try:
        from mailparser_reply import EmailReplyParser as MPR

        parser = MPR(languages=LANGUAGES)
        out["mail-parser-reply"] = lambda t: _lines(parser.read(t).replies[0].body)
        # the library's cut, then our line rules (sign-offs, footers, names) on what it kept
        out["mail-parser-reply+"] = lambda t: command_lines(parser.read(t).replies[0].body)
    except ImportError:
        print("mail-parser-reply: not installed")
    try:
        from talon import quotations

        out["talon"] = lambda t: _lines(quotations.extract_from_plain(t))
        out["talon+"] = lambda t: command_lines(quotations.extract_from_plain(t))
    except ImportError:
        print("talon: not installed")
    try:
        from email_reply_parser import EmailReplyParser as ERP

        out["email_reply_parser"] = lambda t: _lines(ERP.parse_reply(t))
        out["email_reply_parser+"] = lambda t: command_lines(ERP.parse_reply(t))
    except ImportError:
        print("email_reply_parser: not installed")
    return out


def _lines(text: str) -> list[str]:
    return [x for x in (clean(r) for r in (text or "").splitlines()) if x]


def judge(lines: list[str], meaning: str) -> bool:
    if meaning == "nothing":
        return not lines
    actions = []
    for line in lines:
        try:
            actions.append(parse_action(line, RULES))
        except ValueError:
            return False  # the answer would say "not done"
    return actions == [parse_action(meaning, RULES)]


def compare():
    found = readers()
    corpus = [c for c in cases() if c.meaning != "ignore"]
    right = {name: [] for name in found}
    for case in corpus:
        msg = BytesParser(policy=policy.default).parsebytes(case.raw())
        text = body_text(msg)
        for name, read in found.items():
            try:
                ok = judge(read(text), case.meaning)
            except Exception as e:  # a library that fails on a mail gets it wrong
                print(f"  {name} failed on {case.client}: {type(e).__name__}: {e}")
                ok = False
            right[name].append((case.client, ok))
    print(f"\nreaders, on {len(corpus)} answered corpus mails (read as meant):")
    for name, got in right.items():
        wrong = [c for c, ok in got if not ok]
        print(f"  {name:20} {len(got) - len(wrong):3} of {len(got)}")
        if wrong and name != "pbem":
            print(f"  {'':20} wrong: {', '.join(wrong)}")
        elif wrong:
            print(f"  {'':20} WRONG: {', '.join(wrong)}")


def languages() -> Counter:
    """The language corpus through the reader: its counts, printed and returned."""
    corpus = lang_corpus.samples()
    counts: Counter = Counter()
    wrong: dict[str, list[str]] = {}
    times = []
    read_mail(corpus[0].raw(), "ann@example.org", "pbem.localhost")  # imports, compiles
    for s in corpus:
        start = time.perf_counter()
        lines = read_mail(s.raw(), "ann@example.org", "pbem.localhost").lines
        times.append(time.perf_counter() - start)
        verdict = lang_corpus.judge(s, lines)
        counts[verdict] += 1
        if lang_corpus.own_reported(s, lines):
            counts["own lines reported"] += 1
        if verdict != "read right":
            wrong.setdefault(s.lang, []).append(f"{s.name} {lines}")
    langs = sorted({s.lang for s in corpus})
    print(f"languages: {len(corpus)} samples in {len(langs)} languages ({' '.join(langs)})")
    print("  " + ", ".join(f"{counts[v]} {v}" for v in lang_corpus.VERDICTS)
          + f", {counts['own lines reported']} with own lines reported")
    for lang, names in sorted(wrong.items()):
        print(f"  {lang}: " + "; ".join(names))
    print(f"  reading: median {statistics.median(times) * 1000:.2f} ms a mail, "
          f"max {max(times) * 1000:.2f} ms")
    return counts


def over_smtp(corpus=None):
    import pytest
    from mail_helpers import running

    from pbem.store.db import upgrade
    from pbem.store.states import Store

    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
        url = f"sqlite:///{tmp}/pbem.db"
        upgrade(url)
        with running(Store(url), mp, Path(tmp)) as env:
            results = {c.client: run(env, c) for c in corpus or cases()}
    print("over SMTP:\n" + tally(results))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-smtp", action="store_true", help="only compare the readers")
    ap.add_argument("--languages", action="store_true", help="only the language corpus")
    args = ap.parse_args()
    if args.languages:
        languages()
        if not args.no_smtp:
            over_smtp(lang_corpus.samples())
        return
    if not args.no_smtp:
        over_smtp()
    compare()
    languages()


if __name__ == "__main__":
    main()
