"""Which profile fits an agent ("auto"): its sysObjectID first, then probing.

Probing walks each profile's characteristic column in the profiles' probing order (the most
specific first: a FORE switch also answers IF-MIB); the first that answers wins.
"""
from __future__ import annotations

from collector.core import profiles
from collector.core.profiles import ProfileError
from collector.core.snmp import SnmpSession


async def detect_profile(session: SnmpSession) -> str:
    sys_oid_name = profiles.object_by_name("sysObjectID").instance_oid
    sys_oid = (await session.get([sys_oid_name])).get(sys_oid_name)
    if isinstance(sys_oid, str):
        match = profiles.profile_for_sys_object_id(sys_oid)
        if match:
            return match.name
    tried = []
    for profile in profiles.probe_order():
        probe = profiles.object_by_name(profile.probe)
        walked = await session.walk([probe.oid])
        if walked.get(probe.oid):
            return profile.name
        tried.append(profile.probe)
    raise ProfileError(f"no profile fits: the agent answers none of {', '.join(tried)}")
