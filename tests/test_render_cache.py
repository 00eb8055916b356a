"""What the mail rendering keeps between mails is never stale."""

from pbem import compose, notify
from pbem.engine import Rules
from pbem.engine.tricks import table_for


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
