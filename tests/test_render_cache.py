"""What the mail rendering keeps between mails is never stale."""

import random
from urllib.parse import quote

from pbem import compose, notify
from pbem.engine import Rules, new_game, preset, view
from pbem.engine.tricks import table_for
from tests.helpers import random_step


def test_settings_follow_the_environment(monkeypatch):
    monkeypatch.setenv("PBEM_MAIL_DOMAIN", "one.example")
    assert notify.settings().mail_domain == "one.example"
    assert notify.settings() is notify.settings()  # kept while the environment is the same
    monkeypatch.setenv("PBEM_MAIL_DOMAIN", "two.example")
    monkeypatch.setenv("PBEM_SECRET_KEY", "k2")
    cfg = notify.settings()
    assert (cfg.mail_domain, cfg.secret_key) == ("two.example", "k2")


def test_rules_dict_is_new_each_time():
    rules = Rules().with_options(remove=["2C", "2D", "2H", "2S"])
    first = rules.to_dict()
    first["remove"].append("3D")
    first["preset"] = "changed"
    again = rules.to_dict()
    assert again["remove"] == ["2C", "2D", "2H", "2S"] and again["preset"] == rules.preset
    assert Rules.from_dict(again) == rules


def test_table_for_view_by_options_in_any_order():
    rules = Rules().with_options(remove=["2C", "2D", "2H", "2S"])
    data = rules.to_dict()
    backwards = dict(reversed(list(data.items())))
    assert compose.table_for_view({"rules": data}) is table_for(rules)
    assert compose.table_for_view({"rules": backwards}) is table_for(rules)
    assert compose.table_for_view({"rules": Rules().to_dict()}) is table_for(Rules())


# The Jinja macros the HTML filters replaced, as they were: the filters write the same bytes.
_OLD = {
    "cards": '{% for c in list %}{{ c | card }}{% if not loop.last %} {% endif %}{% endfor %}',
    "played": '{% for t in trick %}{{ names[t.seat] }}{% if t.dummy %} (dummy){% endif %} '
              '{{ t.card_pretty | card }}{% if not loop.last %}, {% endif %}{% endfor %}',
    "buttons": '{% for m in moves %}<a href="{{ m.url or m.mailto }}" style="display: '
               'inline-block; padding: 6px 10px; margin: 2px; border: 1px solid #333; '
               'border-radius: 4px; color: #003; text-decoration: none">{{ m.label | card if '
               'm.card else m.label }}</a> {% endfor %}',
}


def test_html_filters_write_what_the_macros_wrote():
    env = compose.env()
    names = ['a<b> & "c"', "d'e", "robot 2", "f"]
    trick = [{"seat": 0, "card": "TH", "card_pretty": "10♥"},
             {"seat": 1, "card": "JH", "card_pretty": "J♥", "dummy": True},
             {"seat": 3, "card": "2S", "card_pretty": "2♠", "dummy": False}]
    moves = [{"label": "Q♦", "card": True, "url": "http://x/m/a?b=1&c=<2>", "mailto": "m"},
             {"label": "pass 3 <cards>", "card": False, "url": None,
              "mailto": "mailto:p@x?subject=pass%20%3Ccard%3E&body=\"x\""}]
    for kind, values, new in (
            ("cards", {"list": ["A♠", "10♦", "J♥", "<x>"]}, "{{ list | cards }}"),
            ("cards", {"list": []}, "{{ list | cards }}"),
            ("played", {"trick": trick, "names": names}, "{{ trick | played(names) }}"),
            ("played", {"trick": [], "names": names}, "{{ trick | played(names) }}"),
            ("buttons", {"moves": moves}, "{{ moves | buttons }}")):
        old = env.from_string(_OLD[kind]).render(**values)
        assert env.from_string(new).render(**values) == old, kind
        assert "<" not in str(values) or "&lt;" in old or not old  # escaped, as a mail is


def test_table_for_view_keeps_its_own_copy_of_the_rules():
    """A kept ruleset is found by comparing options: a caller changing its dict afterwards
    changes neither what is kept nor what that dict finds."""
    rules = Rules().with_options(remove=["2C", "2D", "2H", "2S"])
    data = rules.to_dict()
    assert compose.table_for_view({"rules": data}) is table_for(rules)
    data["remove"] = ["3C", "3D", "3H", "3S"]
    assert compose.table_for_view({"rules": data}) is table_for(Rules.from_dict(data))
    assert compose.table_for_view({"rules": rules.to_dict()}) is table_for(rules)
    assert table_for(rules) is not table_for(Rules.from_dict(data))


def test_shared_fragment_found_by_its_whole_content():
    """Another view with the same public content gets the same fragment; any public field,
    the names or the kind changed gets its own."""
    st = new_game(preset("standard"), first_dealer=0)
    rng = random.Random(3)
    while len(st.trick) < 2:
        random_step(st, rng)
    names = ["ann", "bob", "cy", "di"]
    one, two = (compose.context(view(st, s), 7, names) for s in (0, 1))
    first = compose.shared("txt", one, names)
    assert compose.shared("txt", two, names) == first
    assert compose.shared("html", one, names) != first
    assert "zed" in compose.shared("txt", one, ["zed", *names[1:]])
    two["won"] = [5, 0, 0, 0]
    assert compose.shared("txt", two, names) != first and "took 5" in compose.shared(
        "txt", two, names)
    assert compose.shared("txt", one, names) == first


def test_mail_templates_see_the_environments_globals():
    """A mail template's globals, copied into one dict, are the environment's own."""
    for name in ("turn.txt", "turn.html", "reply.txt", "reply.html"):
        template = compose._template(name)
        assert type(template.globals) is dict
        assert template.globals == compose.env().globals
        assert template.globals["shared"] is compose.shared


def test_mailto_query_quotes_the_words():
    for text in ("play QH", "bid blind nil", "pass <card> <card>", "x&y=z?"):
        assert compose._mail_query(text) == f"?subject={quote(text)}&body={quote(text)}"
    assert "%3Ccard%3E" in compose._mail_query("pass <card>")
