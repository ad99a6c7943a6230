"""Port names that stay unique, and port references as operators give them.

Agents name interfaces as they like: two interfaces called "lo0", ifDescr repeated on every
line card. A port's `name` is its agent name when no other port of the switch (present or gone)
has that name, else the agent name with its ifIndex ("lo0 (ifIndex 16)"; "A1 (port 32)" for a
FORE port without one). The rule depends only on the set of names, so rediscovery gives every
port the same name again; series and history follow the port, not its name.

FORE switches name ports by BNP (board, network module, port: "1A1"). On a single-board switch the
name drops the board digit ("A1", as the seed's tables), on a switch with several boards it keeps
it ("1A1", "2A1"): discovery decides (collector/core/snapshot.py fore_port_name).

`find_port` accepts what a user types in the CLI, the API or a URL: the unique name, the agent
name when only one port has it, "ifindex:N" (or "ifIndex N"), the agent's index (key), or another
form of the name (`other_forms`: "1A1" for "A1" on a single-board switch, "A1" for "2A1" where only
one board has an A1, "Gi1/0/1" for "GigabitEthernet1/0/1"); an ambiguous or unknown reference
raises PortLookupError listing the candidates.
"""
from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Iterable

from collector.core.names import has_board, interface_key, strip_board
from collector.inventory.models import Port, Switch

IF_INDEX_REF = re.compile(r"(?i)^if-?index[:= ]?\s*(\d+)$")


class PortLookupError(LookupError):
    def __init__(self, message: str, candidates: list[str], ambiguous: bool = False):
        super().__init__(message)
        self.candidates = candidates
        self.ambiguous = ambiguous      # several ports answer to the reference (candidates: all of them)


def qualified(agent_name: str, key: str, if_index: int | None) -> str:
    return f"{agent_name} (ifIndex {if_index})" if if_index is not None else f"{agent_name} (port {key})"


def unique_names(ports: Iterable[tuple[str, str, int | None]]) -> dict[str, str]:
    """key -> unique name, for (key, agent name, ifIndex) of every port of one switch."""
    ports = list(ports)
    count = Counter(agent for _, agent, _ in ports)
    names = {key: (qualified(agent, key, if_index) if count[agent] > 1 else agent) for key, agent, if_index in ports}
    # A qualified name could equal another port's plain agent name ("x (ifIndex 1)" both ways):
    # then that one is qualified by its key as well.
    taken = Counter(names.values())
    return {key: (name if taken[name] == 1 else f"{name} [{key}]") for key, name in names.items()}


def find_port(switch: Switch, ref: str, include_gone: bool = True) -> Port:
    """The port of `switch` that `ref` names; PortLookupError with candidates otherwise."""
    ports = Port.objects.filter(switch=switch)
    if not include_gone:
        ports = ports.filter(gone_at__isnull=True)
    text = (ref or "").strip()
    m = IF_INDEX_REF.match(text)
    if m:
        found = list(ports.filter(if_index=int(m.group(1))))
    else:
        found = list(ports.filter(name=text)) or list(ports.filter(agent_name=text)) or list(
            ports.filter(key=text)) or list(ports.filter(name__iexact=text)) or other_forms(list(ports), text)
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        present = [p for p in found if p.gone_at is None]
        if len(present) == 1:
            return present[0]
        names = sorted(p.name for p in found)
        raise PortLookupError(f"port {text!r} of {switch.name} is ambiguous: it names {', '.join(names)}; "
                              "give one of these names or ifindex:N", names, ambiguous=True)
    known = list(ports.values_list("name", flat=True))
    close = difflib.get_close_matches(text, known, n=6, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else f" ({len(known)} ports)"
    raise PortLookupError(f"no port {text!r} on {switch.name}{hint}", close)


def other_forms(ports: list[Port], text: str) -> list[Port]:
    """Ports a reference names in another form than their name: the agent's description (a FORE
    BNP "1A1", an ifDescr), the FORE name without its board digit ("A1" for "2A1": ambiguous on a
    switch with several boards), or another spelling of an interface name ("Gi1/0/1")."""
    found = [p for p in ports if p.description and p.description == text]
    if found:
        return found
    if not has_board(text):
        found = [p for p in ports if has_board(p.agent_name or p.name)
                 and strip_board(p.agent_name or p.name).upper() == text.upper()]
        if found:
            return found
    key = interface_key(text)
    return [p for p in ports if key and key in {interface_key(p.name), interface_key(p.agent_name),
                                                  interface_key(p.description)}]
