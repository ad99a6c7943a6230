"""Bad input is refused with its reason, and nothing is saved."""
from __future__ import annotations

import pytest

from collector.alerts import actions, rules
from collector.alerts.models import Destination, Override, Rule, State
from collector.groups.models import Group

pytestmark = pytest.mark.django_db


def base(net, **kw) -> dict:
    return {"name": "r", "kind": "rate", "scope": "switch", "switch": net["sw"].name, "threshold": "80", **kw}


@pytest.mark.parametrize("change, message", [
    ({"threshold": "120"}, "120 % is above 100 % of capacity"),
    ({"recovery": "101", "threshold": "90"}, "recovery value of 101 % is above 100 %"),
    ({"threshold": ""}, "a threshold is required"),
    ({"threshold": "abc"}, "threshold 'abc' is not a number"),
    ({"threshold": "nan"}, "is not a finite number"),
    ({"threshold": "-5"}, "is negative"),
    ({"recovery": "90"}, "recovery value 90 is above the threshold 80"),
    ({"comparison": "below", "recovery": "50"}, "recovery value 50 is below the threshold 80"),
    ({"switch": ""}, "no switch is given"),
    ({"switch": "nope"}, "no switch 'nope'"),
    ({"scope": "pattern", "pattern": "  "}, "the pattern is empty"),
    ({"scope": "pattern", "pattern": "colour=red"}, "unknown key 'colour'"),
    ({"scope": "group", "group": ""}, "no group is given"),
    ({"scope": "group", "group": "missing"}, "no group 'missing'"),
    ({"scope": "poller_group", "poller_group": ""}, "none is given"),
    ({"scope": "poller_group", "poller_group": "mars"}, "no switch is in poller group 'mars'"),
    ({"scope": "object", "object": ""}, "the rule's object is empty"),
    ({"scope": "object", "object": "host:1"}, "a rate rule watches port or vp or vc objects"),
    ({"scope": "everywhere"}, "scope 'everywhere' is not one of"),
    ({"kind": "unreachable", "scope": "switch"}, "a unreachable rule's scope is one of object, pattern, all"),
    ({"window_minutes": "5000"}, "window_minutes '5000' must be a whole number from 0 to 1440"),
    ({"name": ""}, "a rule needs a name"),
    ({"metric": "lost cells"}, "metric 'lost cells': traffic, or a counter's name"),
    ({"metric": "errors"}, "% of capacity is a share of the traffic a port can carry; errors is not traffic"),
])
def test_bad_rules_are_refused_with_the_reason(atm, change, message):
    with pytest.raises(rules.AlertError) as info:
        rules.save(base(atm, **change), [])
    assert message in str(info.value)
    assert not Rule.objects.exists()


def test_a_good_rule_and_its_override(atm):
    rule = rules.save(base(atm, recovery="70"), [])
    with pytest.raises(rules.AlertError, match="above 100 %"):
        rules.set_override(rule, f"port:{atm['port'].id}", "150")
    with pytest.raises(rules.AlertError, match="give series:ID, port:ID"):
        rules.set_override(rule, "switch:1", "50")
    rules.set_override(rule, f"port:{atm['port'].id}", "50", "40")
    assert Override.objects.get().threshold == 50
    Group.objects.create(name="g")
    assert rules.save(base(atm, name="g", scope="group", group="g"), []).group.name == "g"


@pytest.mark.parametrize("url, message", [
    ("", "a destination needs a URL"),
    ("not a url", "does not parse"),
    ("mailto://127.0.0.1:25?from=bad&to=ops@cellar.test", "does not parse"),
    ("json://", "does not parse"),
])
def test_bad_destination_urls_are_refused(url, message):
    with pytest.raises(rules.AlertError) as info:
        rules.save_destination("d", url)
    assert message in str(info.value)
    assert not Destination.objects.exists()


def test_destination_url_is_kept_secret_on_pages():
    from collector.alerts import notify

    d = rules.save_destination("mail", "mailtos://noc:s3cret-pw@smtp.example.org?to=noc@example.org")
    assert "s3cret" not in notify.redacted(str(d.url)) and "****" in notify.redacted(str(d.url))
    d = rules.save_destination("mail", "", d)          # an empty URL on edit keeps the stored one
    assert "s3cret-pw" in str(Destination.objects.get().url)


def test_ack_and_mute_bounds(atm):
    from django.utils import timezone

    rule = rules.save(base(atm), [])
    state = State.objects.create(rule=rule, object_kind="series", object_id=1, label="x", state="ok",
                                 since=timezone.now(), evaluated_at=timezone.now())
    with pytest.raises(rules.AlertError, match="only a firing or pending alert"):
        actions.acknowledge(state, None, "1")
    state.state = "firing"
    for bad in ("0", "abc", "1000"):
        with pytest.raises(rules.AlertError, match="0.1 to 720 hours"):
            actions.acknowledge(state, None, bad)
    actions.acknowledge(state, None, "2", "looking")
    assert state.ack_until > timezone.now()
    actions.mute(state, "1")
    assert state.muted_until is not None
    actions.mute(state, "0")
    assert state.muted_until is None


def test_key_rotation_covers_destination_urls(settings):
    """rotate_secrets re-encrypts alert destinations' URLs with the switches' secrets: once rotated,
    the old key can go and the URL still opens."""
    from cryptography.fernet import Fernet

    from collector.inventory import secrets

    key_a, key_b = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    settings.CELLAR_SECRETS_KEY, settings.CELLAR_SECRETS_OLD_KEYS = key_a, []
    url = "mailtos://noc:pw-9@smtp.example.org?to=noc@example.org"
    rules.save_destination("mail", url)
    settings.CELLAR_SECRETS_KEY, settings.CELLAR_SECRETS_OLD_KEYS = key_b, [key_a]
    assert secrets.rotate().rotated == 1
    settings.CELLAR_SECRETS_OLD_KEYS = []
    assert str(Destination.objects.get().url) == url
