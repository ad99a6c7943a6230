"""Serve Plotly's JavaScript from the installed plotly wheel as static/traffic/vendor/plotly.min.js.

Nothing large is committed: `collectstatic` copies the file from the wheel into STATIC_ROOT
(whitenoise serves it with DEBUG off), and the development/live test server finds it here.
"""
from __future__ import annotations

from pathlib import Path

import plotly
from django.contrib.staticfiles.finders import BaseFinder
from django.core.files.storage import FileSystemStorage

PACKAGE_DATA = Path(plotly.__file__).resolve().parent / "package_data"
PREFIX = "traffic/vendor"
FILES = ("plotly.min.js",)


class PlotlyFinder(BaseFinder):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.storage = FileSystemStorage(location=str(PACKAGE_DATA))
        # collectstatic reads a storage's prefix (as AppDirectoriesFinder sets it); the stubs do not declare it.
        self.storage.prefix = PREFIX  # type: ignore[attr-defined]

    def check(self, **kwargs) -> list:
        from django.core.checks import Error

        missing = [f for f in FILES if not (PACKAGE_DATA / f).is_file()]
        return [Error(f"plotly wheel lacks package_data/{f}", id="traffic.E001") for f in missing]

    def find(self, path: str, find_all: bool = False, **kwargs):
        for name in FILES:
            if path == f"{PREFIX}/{name}":
                full = str(PACKAGE_DATA / name)
                return [full] if find_all else full
        return [] if find_all else None

    def list(self, ignore_patterns):
        for name in FILES:
            yield name, self.storage
