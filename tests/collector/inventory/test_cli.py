"""collector/inventory/cli.py and the commands that read secrets: never from the command line unless
asked the deprecated way (with a warning), from a file, standard input or a prompt; without a terminal
and without them, one clear error that names the ways."""
from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

from collector.inventory.cli import parse_secrets, read_secrets
from collector.inventory.models import CredentialSet


class Stdin(io.StringIO):
    def __init__(self, text: str = "", tty: bool = False):
        super().__init__(text)
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


PARSE = {
    "one value alone is the first needed": ("s3cret\n", ["community"], {"community": "s3cret"}),
    "named lines": ("auth-key=aaaaaaaa\npriv_key=pppppppp\n", ["auth-key", "priv-key"],
                    {"auth-key": "aaaaaaaa", "priv-key": "pppppppp"}),
    "comments and blank lines": ("# site\n\ncommunity=a=b\n", ["community"], {"community": "a=b"}),
}


@pytest.mark.parametrize("text, needed, want", list(PARSE.values()), ids=list(PARSE))
def test_parse_secrets(text, needed, want):
    assert parse_secrets(text, needed) == want


def test_an_unknown_name_is_refused():
    with pytest.raises(CommandError, match="name=value with a name among"):
        parse_secrets("communty=x\nfoo=y\n", ["community"])


READ = {
    "stdin": (dict(use_stdin=True, stdin=Stdin("public\n")), {"community": "public"}, []),
    "file": (dict(file="FILE", stdin=Stdin()), {"community": "from-file"}, []),
    "deprecated flag warns": (dict(flags={"community": "flag"}, stdin=Stdin()), {"community": "flag"},
                              ["--community on the command line is deprecated"]),
}


@pytest.mark.parametrize("kw, want, warnings", list(READ.values()), ids=list(READ))
def test_read_secrets(tmp_path, kw, want, warnings):
    f = tmp_path / "secrets"
    f.write_text("community=from-file\n")
    said: list[str] = []
    args = {"flags": {}, "file": None, "use_stdin": False, **kw}
    if args["file"] == "FILE":
        args["file"] = str(f)
    assert read_secrets(["community"], warn=said.append, **args) == want
    assert all(any(w in s for s in said) for w in warnings) and len(said) == len(warnings)


def test_without_a_terminal_and_without_a_source_the_error_names_the_ways():
    with pytest.raises(CommandError, match=r"no community given, and standard input is not a terminal to ask: "
                                           r"give it with --secrets-stdin .* or --secrets-file FILE"):
        read_secrets(["community"], flags={}, file=None, use_stdin=False, stdin=Stdin(), warn=print)


@pytest.mark.django_db
def test_credentials_add_reads_the_secret_from_stdin_and_never_prints_it(monkeypatch):
    monkeypatch.setattr("sys.stdin", Stdin("auth-key=an-auth-key\npriv-key=a-priv-key\n"))
    out = io.StringIO()
    call_command("credentials", "add", "ops", "--snmp-version", "3", "--v3-user", "ops", "--auth-proto", "SHA",
                 "--priv-proto", "AES", "--secrets-stdin", stdout=out)
    call_command("credentials", "list", stdout=out)
    cs = CredentialSet.objects.get(name="ops")
    assert (str(cs.auth_key), str(cs.priv_key), cs.v3_user) == ("an-auth-key", "a-priv-key", "ops")
    assert "an-auth-key" not in out.getvalue() and "ops  SNMPv3  user ops (SHA/AES)" in out.getvalue()
    monkeypatch.setattr("sys.stdin", Stdin("short\n"))
    with pytest.raises(CommandError, match="auth-key must be at least 8 characters"):
        call_command("credentials", "add", "weak", "--snmp-version", "3", "--v3-user", "u", "--auth-proto", "SHA",
                     "--secrets-stdin")


ROLE = {
    "no terminal, nothing piped": ("", [], "no password given, and standard input is not a terminal to ask: "
                                          "give it with --password-stdin"),
    "piped with --password-stdin": ("a-long-Password-9\n", ["--password-stdin"], None),
    "a weak password": ("abc\n", ["--password-stdin"], "password refused"),
}


@pytest.mark.django_db
@pytest.mark.parametrize("stdin, args, error", list(ROLE.values()), ids=list(ROLE))
def test_role_create_without_a_terminal(monkeypatch, stdin, args, error):
    monkeypatch.setattr("sys.stdin", Stdin(stdin))
    if error:
        with pytest.raises(CommandError, match=error):
            call_command("role", "dave", "viewer", "--create", *args, stdout=io.StringIO())
        assert not get_user_model().objects.filter(username="dave").exists()
    else:
        call_command("role", "dave", "viewer", "--create", *args, stdout=io.StringIO())
        assert get_user_model().objects.get(username="dave").check_password(stdin.strip())
