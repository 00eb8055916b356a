"""A move's mails (the turn mail and the answer, text and HTML) are written in Python
(pbem.compose.turn_txt, turn_html, reply_txt, reply_html); the templates templates/mail/
turn.* and reply.* are their reference. Both ways must give the same bytes: for every
seat's view at every move of seeded games of every preset, and for any mix of what a
mail may carry or leave out (talk, orders, bank, deadline, done lines, an error, text),
with words that need escaping."""

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from markupsafe import escape

from pbem import compose
from pbem.engine import PRESETS
from tests.test_render_table import views

NAMES = ("turn.txt", "turn.html", "reply.txt", "reply.html")
WORDS = ["", "ok", "a <b> & 'c' \"d\"", "two\nlines", "zoë ♥"]


def jinja(name: str, values: dict) -> str:
    """What the template writes (the path render took before)."""
    return compose._template(name).render(**values)


def link(action) -> str:
    return f"https://x.example/m/{json.dumps(action, sort_keys=True)}?a=1&b=<2>"


def extras(rng: random.Random, v: dict, names) -> dict:
    """What a mail may carry besides the table; each left out at times (not even a key)."""
    seat = v["seat"] if v["seat"] is not None else 0
    pick = {
        "moves": compose.moves(v, "play+tok@x.example", rng.choice([link, None])),
        "table_url": rng.choice([None, "https://x.example/t/tok?a=1&b=2"]),
        "due": rng.choice([None, "Mon 02 Mar 2026, 09:30 UTC (Mon 10:30 Europe/Paris)"]),
        "bank": rng.choice([None, "", "2 days 4 h"]),
        "orders": rng.choice([None, [], ["bid 4"], ["play QH", "say <hi> & bye"]]),
        "talk": rng.choice([None, [], [{"seat": seat, "text": rng.choice(WORDS), "seq": 1},
                                       {"seat": 0, "text": "gg & <3", "seq": 2}]]),
        "done": rng.choice([None, [], ["bid 4"], ["look", "play <QH> & more"]]),
        "error": rng.choice([None, {"line": "play <ZZ>", "reason": "no such card & so on",
                                    "after": rng.random() < 0.5}]),
        "text": rng.choice(WORDS),
    }
    return {k: x for k, x in pick.items() if rng.random() < 0.85}


def same(values: dict) -> None:
    for name in NAMES:
        if name.startswith("turn") and "v" not in values:
            continue  # a turn mail always has a table
        assert compose.render(name, **values) == jinja(name, values), name


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_python_mails_write_what_the_templates_wrote(preset):
    rng = random.Random(preset)
    shown = set()
    for i, (v, names) in enumerate(views(preset, 5)):
        if i % 3:
            continue  # a third of the views: every kind of move still comes by
        values = dict(extras(rng, v, names), v=v, names=names)
        same(values)
        shown.add(bool(values.get("moves")))
    assert shown == {True, False}


@settings(max_examples=150, deadline=None)
@given(seed=hs.integers(0, 10**6), with_table=hs.booleans(),
       misdeal=hs.booleans(), text=hs.text(max_size=30))
def test_any_mix_of_parts_gives_the_same_bytes(seed, with_table, misdeal, text):
    table = VIEWS[seed % len(VIEWS)]
    v, names = dict(table[0], rules=dict(table[0]["rules"], misdeal=misdeal)), table[1]
    values = extras(random.Random(seed), v, names)
    values["text"] = text
    if with_table:
        values.update(v=v, names=names)
    same(values)


VIEWS = [x for i, x in enumerate(views("standard", 1)) if i % 7 == 0][:60] \
    + [x for i, x in enumerate(views("dummy-3", 1)) if i % 11 == 0][:30]


@given(value=hs.text() | hs.integers())
def test_plain_escape_is_markupsafes(value):
    """compose._esc (the table's rows) writes what markupsafe.escape writes."""
    assert compose._esc(value) == str(escape(value))


def test_plain_escape_covers_every_character_escape_changes():
    assert compose._esc("<a href='x'>\"&\"</a>") == str(escape("<a href='x'>\"&\"</a>"))
