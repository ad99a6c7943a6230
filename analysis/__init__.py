"""Numerics over archived series: bursts, cell accounting, TCP window advice. Pure: numpy and
collector.core.facts only, no Django (an import-linter contract keeps it so); the pages and the
API read the archive and call these functions with arrays."""
