"""Cellar's SNMP core: never imports Django or Celery (an import-linter contract keeps it so).

codec and sessions (snmp_codec, snmp_types, snmp, snmp_fast, snmp_pysnmp), the loader of the
device profiles and compiled MIB modules of the top-level mibs/ (profiles; collector/mibc compiles
them), profile detection (detect), inventory parsing
(snapshot), one poll of one switch (poll), counter math (counters) and the facts every layer
shares (facts: flags, cells, uint64 storage, capacity).
"""
