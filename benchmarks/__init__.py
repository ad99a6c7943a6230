"""Cellar's benchmarks: `python -m benchmarks.run` (see benchmarks/run.py and docs/benchmarks.md)."""
