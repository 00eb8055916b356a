"""Mail read as meant in any language (issue 32): the corpus of tests/lang_corpus.py (18
languages, real client templates and charsets) through the reader and, end to end, over
SMTP to a seat; and the pieces that read by shape: normalisation, charset names,
attributions, greetings, and the quiet end after the commands."""

from collections import Counter

import pytest
from lang_corpus import LANGS, VERDICTS, judge, own_reported, samples
from mail_helpers import running
from real_clients import run

from pbem.mail.charsets import codec, header_text
from pbem.mail.command_like import looks_like_command
from pbem.mail.normal import for_reading, normal
from pbem.mail.reader import command_lines, read

DOMAIN = "pbem.localhost"
CORPUS = samples()
NEW = {"ja", "zh-hans", "zh-hant", "ko", "ru", "uk", "tr", "cs", "el", "hu", "fi", "da", "no",
       "ar", "he", "hi", "vi", "id"}


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as e:
        yield e


def test_the_corpus_is_whole_mails_in_18_languages_and_real_charsets():
    assert len(CORPUS) >= 100 and {s.lang for s in CORPUS} >= NEW
    assert {x.code for x in LANGS} == NEW
    heads = b"\n".join(s.data.lower() for s in CORPUS)
    for label in (b"iso-2022-jp", b"shift_jis", b"x-sjis", b"gbk", b"x-gbk", b"big5",
                  b"euc-kr", b"ks_c_5601-1987", b"koi8-r", b"windows-1251", b"windows-1254",
                  b"iso-8859-7", b"iso-8859-8-i", b"format=flowed", b"base64",
                  b"quoted-printable", b"content-type: text/html", b"gmail_quote",
                  b"multipart/alternative"):
        assert label in heads, label
    assert all(s.lines and s.own for s in CORPUS)


def test_every_sample_is_read_as_meant():
    verdicts, own = Counter(), {}
    for s in CORPUS:
        inc = read(s.data, "ann@example.org", DOMAIN)
        assert inc.ignore is None, s.name
        verdicts[judge(s, inc.lines)] += 1
        if own_reported(s, inc.lines):
            own[s.name] = inc.lines
    print("\n" + ", ".join(f"{verdicts[v]} {v}" for v in VERDICTS) + f" (of {len(CORPUS)})")
    assert verdicts["misread"] == verdicts["missed"] == 0, verdicts
    assert verdicts["refused wrongly"] * 50 <= len(CORPUS), verdicts
    assert not own, own


def test_the_judge_can_fail():
    s = CORPUS[0]
    assert judge(s, s.lines) == "read right"
    assert judge(s, [*s.lines, s.own[0]]) == "refused wrongly" and own_reported(s, [s.own[0]])
    assert judge(s, []) == "missed"
    assert judge(s, ["bid 13" if s.lines != ["bid 13"] else "bid 12"]) == "misread"


@pytest.mark.parametrize("name", ["gmail-ja", "outlook-he", "thunderbird-ru", "iphone-tr",
                                  "seznam-bottom-cs", "qq-x-gbk-zh-hans", "naver-ko",
                                  "android-html-ar", "yahoo-x-sjis-ja", "apple-mail-hi"])
def test_over_smtp_the_move_is_made_and_the_answer_reports_nothing_else(env, name):
    case = next(s for s in CORPUS if s.name == name)
    verdict, what = run(env, case)
    assert verdict == "understood", what


# ---- normalisation -------------------------------------------------------------------------

@pytest.mark.parametrize("typed, read_as", [
    ("ｂｉｄ　４", "bid 4"), ("ＡＣ", "AC"), ("NİL", "NIL"), ("nıl", "nil"), ("bid ٣", "bid 3"),
    ("bid ४", "bid 4"), ("bid ۵", "bid 5"), ("ｐｌａｙ　Ｑ♥", "play Q♥"), ("bid 4", "bid 4"),
])
def test_what_is_parsed_is_normalised(typed, read_as):
    assert normal(typed) == read_as
    assert command_lines(typed) == [read_as] and looks_like_command(typed)


def test_talk_is_kept_as_written():
    assert for_reading("ｓａｙ ｇｏｏｄ ｌｕｃｋ　①") == "say ｇｏｏｄ ｌｕｃｋ　①"
    assert command_lines("ｓａｙ ｇｏｏｄ ｌｕｃｋ\nbid ٣") == ["say ｇｏｏｄ ｌｕｃｋ", "bid 3"]
    assert for_reading("ｍｅｓｓａｇｅ 1: ＭＯＮＤＡＹ") == "message 1: ＭＯＮＤＡＹ"
    # a wrapped say line goes on as written (the runner joins it)
    assert command_lines("say well played\nｐａｒｔｎｅｒ\n\nСпасибо") == [
        "say well played", "ｐａｒｔｎｅｒ"]


def test_a_superscript_or_circled_digit_is_not_a_bid():
    assert normal("①") == "1" and normal("bid ²") == "bid 2"  # NFKC's own reading
    assert normal("bid ༣") == "bid 3"  # Tibetan: a decimal digit


# ---- charsets ----------------------------------------------------------------------------

@pytest.mark.parametrize("label, name", [
    ("iso-8859-8-i", "iso8859-8"), ("ISO-8859-6-I", "iso8859-6"), ("ks_c_5601-1987", "cp949"),
    ("x-sjis", "cp932"), ("x-euc-jp", "euc_jp"), ("windows-874", "cp874"), ("x-gbk", "gbk"),
    ("ms949", "cp949"), ("cp-850", "cp850"), ("x-cp1251", "cp1251"), ("gb2312", "gbk"),
    ('"koi8-r"', "koi8-r"), ("no-such-charset", None), ("", None), ("x-unknown", None),
])
def test_charset_names_as_clients_write_them(label, name):
    assert codec(label) == name


def test_hebrew_in_iso_8859_8_i_is_read_in_body_and_headers():
    hebrew = "נועה כהן"
    word = "=?iso-8859-8-i?B?" + __import__("base64").b64encode(
        hebrew.encode("iso8859_8")).decode() + "?="
    assert header_text(f"{word} <ann@example.org>") == f"{hebrew} <ann@example.org>"
    data = (f"From: {word} <ann@example.org>\r\nTo: play+x@pbem.localhost\r\n"
            f"Subject: {word}\r\nMessage-ID: <h1@example.org>\r\nMIME-Version: 1.0\r\n"
            "Content-Type: text/plain; charset=iso-8859-8-i\r\n"
            "Content-Transfer-Encoding: 8bit\r\n\r\n").encode() + \
        "שלום,\r\nbid 4\r\nתודה,\r\n".encode("iso8859_8")
    inc = read(data, "ann@example.org", DOMAIN)
    assert inc.subject == hebrew and inc.lines == ["bid 4"]


# ---- shape -------------------------------------------------------------------------------

QUOTE = "> Game 1 (standard), hand 1, move 1\n> It is your turn.\n"


@pytest.mark.parametrize("attribution", [
    "2026年11月28日(土) 10:00 Pbem Spades <play+x@pbem.localhost>:",
    "28.11.2026 10:00, Pbem Spades пишет:",
    "Pbem Spades 於 2026/11/28 上午 10:00 寫道:",
    "ב-28/11/2026 בשעה 10:00, Pbem Spades כתב:",
    "Pbem Spades <play+x@pbem.localhost> kirjoitti",  # no colon: its address tells
    "Pbem Spades ने लिखा:",  # no date: its colon tells
])
def test_an_attribution_is_told_by_its_shape_above_a_quote(attribution):
    assert command_lines(f"{attribution}\n{QUOTE}\nbid 4\n") == ["bid 4"]
    assert command_lines(f"bid 4\n\n{attribution}\n\n{QUOTE}") == ["bid 4"]


def test_a_line_that_is_no_attribution_above_a_quote_is_reported():
    # no date, time, address or colon: the player's own words, answered "not done"
    assert command_lines(f"вот мой ход\n{QUOTE}\nbid 4\n") == ["вот мой ход", "bid 4"]


@pytest.mark.parametrize("greeting", ["Привет!", "नमस्ते,", "Chào bạn,", "مرحبا،", "你好！",
                                      "こんにちは！", "Merhaba Ayşe,", "Hi,"])
def test_a_greeting_is_a_short_first_line_ending_in_a_comma_or_bang(greeting):
    assert command_lines(f"{greeting}\nbid 4\n") == ["bid 4"]


@pytest.mark.parametrize("line", ["bid 4!", "Nil!", "play AH,", "Привет, bid 4!",
                                  "a long first line that ends in a comma but greets nobody,"])
def test_a_command_or_a_long_line_is_no_greeting(line):
    assert command_lines(f"{line}\nbid 4\n")[0] == line


@pytest.mark.parametrize("after", ["Отправлено с iPhone", "iPhoneから送信", "Дякую!",
                                   "Teşekkürler,\nAyşe", "ليلى", "发自我的华为手机"])
def test_after_a_command_a_line_that_is_none_ends_the_mail_quietly(after):
    assert command_lines(f"bid 4\n{after}\nbid 13\n") == ["bid 4"]


def test_a_command_written_wrong_after_a_command_is_still_reported():
    for wrong in ("play ZZ", "bid 15", "vacation tomorow", "lead XX next", "ＰＬＡＹ ＺＺ"):
        assert command_lines(f"bid 4\n{wrong}\n") == ["bid 4", normal(wrong)], wrong


def test_before_any_command_a_line_that_fails_is_still_reported():
    assert command_lines("вот мой ход\nbid 4\n") == ["вот мой ход", "bid 4"]


@pytest.mark.parametrize("block", [
    "От: Pbem Spades <play+x@pbem.localhost>\nОтправлено: 28 ноября 2026 г. 10:00",
    "差出人: Pbem Spades <play+x@pbem.localhost>\n送信日時: 2026年11月28日 10:00",
    "보낸 사람: Pbem Spades <play+x@pbem.localhost>\n보낸 날짜: 2026년 11월 28일",
    "---------- Původní e-mail ----------\nOd: Pbem Spades <play+x@pbem.localhost>",
    "------------------ 原始邮件 ------------------\n发件人: Pbem",
])
def test_a_quoted_mails_header_block_in_any_language_ends_the_reading(block):
    assert command_lines(f"bid 4\n\n{block}\nbid 13\nplay AS\n") == ["bid 4"]
    # above a quote (bottom-posting), the reading goes on below it
    assert command_lines(f"{block}\n{QUOTE}\nbid 4\n") == ["bid 4"]


def test_the_bench_prints_the_corpus_counts(capsys):
    from bench import mail_reading

    counts = mail_reading.languages()
    out = capsys.readouterr().out
    assert f"{len(CORPUS)} samples in {len(NEW)} languages" in out, out
    assert f"{counts['read right']} read right, 0 refused wrongly, 0 missed, 0 misread" in out
    assert "0 with own lines reported" in out and counts["read right"] == len(CORPUS)


def test_a_full_width_command_in_the_subject_of_an_empty_mail_is_read(env):
    case = next(s for s in CORPUS if s.name == "iphone-ja")
    ja = case.data.decode("ascii", "replace")
    subject = "=?utf-8?B?" + __import__("base64").b64encode("ｂｉｄ　５".encode()).decode() + "?="
    head = ja.split("\r\n\r\n", 1)[0]
    head = "\r\n".join(f"Subject: {subject}" if x.startswith("Subject:") else x
                       for x in head.split("\r\n"))
    blank = type(case)("subject-ja", "ja", "bid", ["bid 5"],
                       (head + "\r\n\r\n").encode() + b"\r\n")
    verdict, what = run(env, blank)
    assert verdict == "understood", what


def test_reply_prefixes_in_the_corpus_languages_are_taken_off_the_subject():
    for s in CORPUS:
        subject = read(s.data, "ann@example.org", DOMAIN).subject
        assert subject.startswith("Game 1: your turn"), (s.name, subject)


@pytest.mark.parametrize("subject", ["自動返信: Game 1", "Автоответ: Game 1",
                                     "Otomatik yanıt: Game 1", "תשובה אוטומטית: Game 1",
                                     "Automatická odpověď: Game 1", "자동 응답: Game 1"])
def test_automatic_replies_in_the_corpus_languages_are_never_answered(subject):
    head = CORPUS[0].data.split(b"\r\n\r\n", 1)
    word = "=?utf-8?B?" + __import__("base64").b64encode(subject.encode()).decode() + "?="
    rows = [f"Subject: {word}".encode() if r.startswith(b"Subject:") else r
            for r in head[0].split(b"\r\n")]
    data = b"\r\n".join(rows) + b"\r\n\r\n" + head[1]
    assert read(data, "ann@example.org", DOMAIN).ignore == "auto-reply"
    assert read(CORPUS[0].data, "ann@example.org", DOMAIN).ignore is None
