"""Shared by the management commands (of every app): a switch by NAME, and secrets read without
ever being on the command line."""
from __future__ import annotations

import getpass
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from django.core.management.base import CommandError, CommandParser

from collector.inventory.models import Switch


def switch_named(name: str) -> Switch:
    switch = Switch.objects.filter(name=name).first()
    if switch is None:
        known = ", ".join(Switch.objects.values_list("name", flat=True)[:20]) or "none yet: use add_switch"
        raise CommandError(f"unknown switch {name!r} (known: {known})")
    return switch


# Secrets (communities, v3 keys, passwords) never come from the command line, where `ps` and the
# shell's history show them: from a file, standard input, or a prompt. The old flags still work,
# with a warning.
SECRET_FLAGS = {"community": "--community", "auth-key": "--auth-key", "priv-key": "--priv-key",
                "password": "--password"}


def parse_secrets(text: str, needed: list[str]) -> dict[str, str]:
    """`name=value` lines (community=..., auth-key=..., priv-key=..., password=...); a single line
    without a name is the first secret needed. Blank lines and # comments are skipped."""
    lines = [ln.rstrip("\r") for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if len(lines) == 1 and "=" not in lines[0] and needed:
        return {needed[0]: lines[0]}
    out: dict[str, str] = {}
    for ln in lines:
        key, sep, value = ln.partition("=")
        key = key.strip().lower().replace("_", "-")
        if not sep or key not in SECRET_FLAGS:
            raise CommandError(f"secrets: a line must be name=value with a name among {', '.join(SECRET_FLAGS)} "
                               f"(got {key!r})")
        out[key] = value
    return out


def read_secrets(needed: list[str], *, flags: dict[str, str], file: str | None, use_stdin: bool,
                 stdin: TextIO, warn: Callable[[str], None], options: tuple[str, str] = ("--secrets-stdin",
                                                                                          "--secrets-file")
                 ) -> dict[str, str]:
    """The secrets `needed`, from (in this order) the deprecated flags, --secrets-file, --secrets-stdin,
    then a prompt when standard input is a terminal. CommandError naming the ways when one is missing."""
    got = {k: v for k, v in flags.items() if v}
    for key in got:
        warn(f"{SECRET_FLAGS[key]} on the command line is deprecated: `ps` and the shell's history show it. "
             f"Use --secrets-file FILE, --secrets-stdin or the prompt")
    if file:
        try:
            got.update(parse_secrets(Path(file).read_text(), [n for n in needed if n not in got]))
        except OSError as exc:
            raise CommandError(f"cannot read --secrets-file {file}: {exc.strerror or exc}") from None
    if use_stdin:
        got.update(parse_secrets(stdin.read(), [n for n in needed if n not in got]))
    for name in needed:
        if got.get(name):
            continue
        if not stdin.isatty():
            raise CommandError(f"no {name} given, and standard input is not a terminal to ask: give it with "
                               f"{options[0]} (e.g. printf '{name}=...\\n' | manage.py ... {options[0]}) or "
                               f"{options[1]} FILE (lines name=value)")
        got[name] = getpass.getpass(f"{name}: ")
        if not got[name]:
            raise CommandError(f"an empty {name} is refused")
    return got


def add_secret_arguments(parser: CommandParser, deprecated: tuple[str, ...]) -> None:
    parser.add_argument("--secrets-file", metavar="FILE",
                        help="read secrets from FILE: lines name=value (" + ", ".join(deprecated) + ")")
    parser.add_argument("--secrets-stdin", action="store_true",
                        help="read secrets from standard input, lines name=value (a single value alone is allowed)")
    for key in deprecated:
        parser.add_argument(SECRET_FLAGS[key], default="", help="DEPRECATED: visible in ps; use the options above")
