"""collector/inventory/secrets.py key rotation and `manage.py rotate_secrets`.

Secrets are written under key A; B becomes current with A listed in CELLAR_SECRETS_OLD_KEYS;
rotation re-encrypts everything under B, which then opens every value alone; a real agent
(snmpsim serving a recording under the community) is polled with the rotated community before
and after. With A removed before rotating, the command fails naming the switch, changing nothing.
"""
from __future__ import annotations

import io
import shutil
import time

import pytest
from cryptography.fernet import Fernet
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from collector.inventory import secrets
from collector.inventory.models import Switch

pytestmark = pytest.mark.django_db(transaction=True)
KEY_A, KEY_B = Fernet.generate_key().decode(), Fernet.generate_key().decode()
COMMUNITY = "rot-c0mmunity-7"          # the snmpsim recording's name is its community
V3 = {"auth_key": "auth-pass-0123", "priv_key": "priv-pass-4567"}


def _stored(name: str) -> dict[str, str]:
    """The ciphertext as the table holds it."""
    with connection.cursor() as cur:
        cur.execute("SELECT community, auth_key, priv_key FROM inventory_switch WHERE name = %s", [name])
        return dict(zip(("community", "auth_key", "priv_key"), cur.fetchone()))


def _rotate() -> str:
    out = io.StringIO()
    call_command("rotate_secrets", stdout=out)
    return out.getvalue()


@pytest.fixture
def agent():
    """One snmpsim agent serving a router recording under COMMUNITY (simnet/quirks.py, built by code)."""
    from simnet import quirks
    from simnet.serve import RecordingServer
    from tests.support.simnet_lab import make_state_dir

    base = make_state_dir("rotate")
    dev = quirks.wanrouter(int(time.time()))
    dev.name = COMMUNITY
    dev.write(base / "data")
    with RecordingServer(base / "data", base / "cache", log_path=base / "snmpsim.log") as server:
        yield server
    shutil.rmtree(base, ignore_errors=True)


def test_rotation_moves_every_secret_to_the_new_key_and_polls_still_work(settings, agent):
    from collector.archive.models import Sample
    from collector.poller import runner

    settings.CELLAR_SECRETS_KEY, settings.CELLAR_SECRETS_OLD_KEYS = KEY_A, []
    sw = Switch.objects.create(name="edge-rot", address="127.0.0.1", snmp_port=agent.port, community=COMMUNITY,
                               profile="if-mib", timeout_s=5)
    Switch.objects.create(name="v3-rot", address="127.0.0.1", snmp_version="3", v3_user="u", auth_proto="SHA",
                          priv_proto="AES", **V3)
    Switch.objects.create(name="no-secret", address="127.0.0.1", community="")
    before = {name: _stored(name) for name in ("edge-rot", "v3-rot")}
    assert Fernet(KEY_A).decrypt(before["edge-rot"]["community"].encode()).decode() == COMMUNITY
    assert runner.poll_once(sw.id).status == "ok"

    settings.CELLAR_SECRETS_KEY, settings.CELLAR_SECRETS_OLD_KEYS = KEY_B, [KEY_A]
    assert Switch.objects.get(name="edge-rot").community == COMMUNITY      # read through the old key
    said = _rotate()
    assert "3 secrets re-encrypted under the current key, 0 already under it" in said
    assert COMMUNITY not in said and V3["auth_key"] not in said
    for name, fields in before.items():
        after = _stored(name)
        for field, token in fields.items():
            if token:
                assert after[field] != token
                assert Fernet(KEY_B).decrypt(after[field].encode()).decode() == (
                    COMMUNITY if field == "community" else V3[field])
    # Idempotent: nothing left to rotate.
    assert "0 secrets re-encrypted under the current key, 3 already under it" in _rotate()

    settings.CELLAR_SECRETS_OLD_KEYS = []          # A is gone: B alone reads everything, polls go on
    runner.forget_switches()
    v3 = Switch.objects.get(name="v3-rot")
    assert (v3.auth_key, v3.priv_key) == (V3["auth_key"], V3["priv_key"])
    assert runner.poll_once(sw.id).status == "ok"
    assert Sample.objects.filter(switch_id=sw.id).count() == 2


def test_rotation_without_the_old_key_fails_naming_the_switch_and_changes_nothing(settings):
    settings.CELLAR_SECRETS_KEY, settings.CELLAR_SECRETS_OLD_KEYS = KEY_A, []
    Switch.objects.create(name="lost-key", address="127.0.0.1", community=COMMUNITY)
    Switch.objects.create(name="fine", address="127.0.0.1", community="other")
    settings.CELLAR_SECRETS_KEY = KEY_B
    with connection.cursor() as cur:     # "fine" was re-entered under B meanwhile
        cur.execute("UPDATE inventory_switch SET community = %s WHERE name = 'fine'", [secrets.encrypt("other")])
    before = {n: _stored(n) for n in ("lost-key", "fine")}
    with pytest.raises(CommandError) as failed:
        _rotate()
    message = str(failed.value)
    assert "lost-key" in message and "fine" not in message.split(":")[1] and COMMUNITY not in message
    assert "CELLAR_SECRETS_OLD_KEYS" in message and "Nothing was changed" in message
    assert {n: _stored(n) for n in ("lost-key", "fine")} == before


def test_a_malformed_old_key_is_named_by_its_setting(settings):
    settings.CELLAR_SECRETS_KEY, settings.CELLAR_SECRETS_OLD_KEYS = KEY_B, [KEY_A, "not-a-key"]
    from django.core.exceptions import ImproperlyConfigured

    with pytest.raises(ImproperlyConfigured, match=r"CELLAR_SECRETS_OLD_KEYS \(entry 2\)"):
        secrets.encrypt("x")
