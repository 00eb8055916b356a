"""The seat's own part of a mail's table (pbem.compose.table_txt, table_html,
commitment_html) writes what the Jinja macros of mail/table.* wrote, byte for byte, for
every seat's view (and a spectator's) at every move of seeded random games of every preset,
with names to escape and deal commitments with and without their salt."""

import random

import pytest

from pbem import compose
from pbem.engine import PRESETS, new_game, preset, view
from tests.helpers import random_step
from tests.test_mail_bytes import NAMES

# The macros as they were (lead at 0755b9e), verbatim: a line of template a line here.
# ruff: noqa: E501
OLD_TXT = ('{%- macro table(v, names) -%}\n'
    'Game {{ v.game_id }} ({{ v.preset }}), hand {{ v.hand_no }}, move {{ v.seq }}\n'
    '{% if v.hand %}\n'
    'Your hand:\n'
    '{%- for suit, cards in v.hand_by_suit %}\n'
    '  {{ suit }}  {{ cards | join(" ") }}\n'
    '{%- endfor %}\n'
    '{% elif v.seat is not none and not v.looked %}\n'
    'You have not looked at your cards yet (you may bid blind).\n'
    '{% endif %}\n'
    '{%- if v.dummy_pretty %}\n'
    'Dummy (played by {{ names[v.dummy.declarer] }}{% if v.dummy.on_turn %}, its turn{% endif %}): {{ v.dummy_pretty }}\n'
    '{% endif %}\n'
    '{{- shared("txt", v, names) }}\n'
    '{%- if v.deal_commitment %}\n'
    '\n'
    'Deal commitment (SHA-256):\n'
    '  {{ v.deal_commitment.sha256 }}{% if v.deal_commitment.salt %}\n'
    'Salt: {{ v.deal_commitment.salt }}{% endif %}\n'
    '{%- endif %}\n'
    '{%- endmacro %}')
OLD_HTML = ('{% macro table(v, names) -%}\n'
    '<p><strong>Game {{ v.game_id }}</strong> ({{ v.preset }}), hand {{ v.hand_no }}, move {{ v.seq }}</p>\n'
    '{% if v.hand %}<p>Your hand:<br>\n'
    '{% for suit, list in v.hand_by_suit %}<span style="font-size: 1.2em">{{ list | cards }}</span><br>\n'
    '{% endfor %}</p>\n'
    '{% elif v.seat is not none and not v.looked %}<p>You have not looked at your cards yet (you may bid blind).</p>\n'
    '{% endif %}\n'
    '{% if v.dummy_pretty %}<p>Dummy (played by {{ names[v.dummy.declarer] }}{% if v.dummy.on_turn %}, its turn{% endif %}): {{ v.dummy_pretty }}</p>\n'
    '{% endif %}\n'
    '{{ shared("html", v, names) }}\n'
    '{%- endmacro %}')
OLD_COMMITMENT = ('{% macro commitment(v) -%}\n'
    '{% if v.deal_commitment %}<p style="font-size: 0.8em; color: #444; overflow-wrap: anywhere; word-break: break-all">Deal commitment (SHA-256): {{ v.deal_commitment.sha256 }}{% if v.deal_commitment.salt %}, salt {{ v.deal_commitment.salt }}{% endif %}</p>{% endif %}\n'
    '{%- endmacro %}')


def old_renderers():
    env = compose.env()
    text = env.overlay(autoescape=False).from_string(OLD_TXT + "{{ table(v, names) }}")
    html = env.from_string(OLD_HTML + OLD_COMMITMENT
                           + "{{ table(v, names) }}|{{ commitment(v) }}")
    return text, html


def views(name: str, seed: int):
    """Every seat's view and a spectator's, as compose.context gives it, at every move;
    some with the deal's commitment, its salt revealed or not."""
    rng = random.Random(seed)
    st = new_game(preset(name), first_dealer=seed % preset(name).players)
    names = NAMES[:st.n]
    for step in range(400):
        if st.phase == "over":
            break
        random_step(st, rng)
        for seat in [*range(st.n), None]:
            v = compose.context(view(st, seat), 7, names)
            if step % 3 == 1:
                v["deal_commitment"] = {"seq": 1, "sha256": "ab<c>" * 3,
                                        "salt": "s&1" if step % 2 else None}
            yield v, names


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_table_functions_write_what_the_macros_wrote(name):
    text, html = old_renderers()
    seen = set()
    for v, names in views(name, 2):
        assert compose.table_txt(v, names) == text.render(v=v, names=names)
        new = f"{compose.table_html(v, names)}|{compose.commitment_html(v)}"
        assert new == html.render(v=v, names=names)
        seen.add((bool(v["hand"]), v.get("looked"), bool(v.get("dummy_pretty")),
                  bool((v.get("dummy") or {}).get("on_turn"))))
    assert (True, True, False, False) in seen  # a hand shown: the corpus is not empty


def test_the_corpus_reaches_every_branch():
    """Between them, the presets' games show a hand, a seat that has not looked yet, a
    spectator, a dummy (on its turn and not)."""
    seen = set()
    for name in ("standard", "dummy-3"):
        for v, _ in views(name, 2):
            dummy = v.get("dummy") or {}
            seen |= {("hand", bool(v["hand"])), ("blind", v["seat"] is not None
                                                 and not v.get("looked")),
                      ("spectator", v["seat"] is None),
                      ("dummy", bool(v.get("dummy_pretty")), bool(dummy.get("on_turn")))}
    assert {("hand", True), ("blind", True), ("spectator", True), ("dummy", True, True),
            ("dummy", True, False)} <= seen


def test_escaped_in_html_only():
    st = new_game(preset("dummy-3"), first_dealer=0)
    rng = random.Random(1)
    while not (st.phase == "play" and st.trick):
        random_step(st, rng)
    names = ["<a&b>", "c", "d"]
    v = compose.context(view(st, 0), 7, names)
    v["deal_commitment"] = {"seq": 1, "sha256": "<h>", "salt": "<s>"}
    assert "&lt;h&gt;" in compose.commitment_html(v) and "&lt;s&gt;" in compose.commitment_html(v)
    assert "&lt;a&amp;b&gt;" in compose.table_html(v, names)
    assert "<a&b>" not in compose.table_html(v, names)
    assert "<h>" in compose.table_txt(v, names)
