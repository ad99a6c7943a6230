"""CPU time of processes from /proc (other processes: the PostgreSQL backend, worker, beat)."""
from __future__ import annotations

import os
import platform
import resource
import subprocess
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float | None:
    """utime + stime of a process (all its threads), None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def self_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


class Sampler:
    """CPU of a changing set of processes (e.g. PostgreSQL backends that come and go).

    poll() records the CPU of every pid given now; a pid that disappears keeps the last value
    seen (at most one sampling period of its CPU is lost).
    """

    def __init__(self) -> None:
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}

    def poll(self, pids) -> None:
        for pid in pids:
            cpu = cpu_seconds(pid)
            if cpu is None:
                continue
            self.first.setdefault(pid, cpu if pid not in self.last else self.last[pid])
            self.last[pid] = cpu

    def baseline_zero(self, pids) -> None:
        """pids that start during the measurement: count their CPU from 0."""
        for pid in pids:
            self.first.setdefault(pid, 0.0)

    def total(self) -> float:
        return sum(self.last[p] - self.first.get(p, 0.0) for p in self.last)


def machine() -> dict[str, str]:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    try:
        distro = next((line.split("=", 1)[1].strip('"') for line in Path("/etc/os-release").read_text().splitlines()
                       if line.startswith("PRETTY_NAME=")), "?")
    except OSError:
        distro = "?"
    try:
        snmp = subprocess.run(["snmpbulkwalk", "-V"], capture_output=True, text=True, timeout=10)
        net_snmp = (snmp.stdout + snmp.stderr).strip().split(":")[-1].strip()
    except (OSError, subprocess.SubprocessError):
        net_snmp = "?"
    return {"cpu": cpu, "cores": str(os.cpu_count()), "ram": mem, "kernel": platform.release(),
            "os": distro, "python": platform.python_version(), "net-snmp": net_snmp}


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def _uptime_ticks() -> float:
    return float(Path("/proc/uptime").read_text().split()[0]) * TICK


def _stat_fields(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()


def parent_of(pid: int) -> int | None:
    """The parent process id (of a PostgreSQL backend: its cluster's postmaster)."""
    f = _stat_fields(pid)
    return int(f[1]) if f is not None else None


class TitleSampler:
    """CPU of the processes whose command line (process title) contains `marker`, e.g. the
    PostgreSQL backends of one database ("postgres: cellar cellar_bench 127.0.0.1(...) idle").

    A thread scans /proc every `period` seconds; a process started after start() counts from 0,
    one already running from its CPU at start(). Backends that live shorter than a period can be
    missed and the CPU of a backend after its last scan is lost: the total is a lower bound
    (`exits` counts the processes that ended during the measurement).
    """

    def __init__(self, marker: str, period: float = 0.05, exclude: tuple[int, ...] = (), parent: int | None = None):
        import threading

        self.marker = marker.encode()
        # Only children of this process (a cluster's postmaster): another cluster on the machine may
        # have a database of the same name (two checkouts benchmarking at once).
        self.parent = parent
        self.period = period
        self.exclude = set(exclude)
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self.checked: dict[int, bool] = {}
        self.ended: set[int] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True, name="title-sampler")
        self._t0 = 0.0

    def start(self) -> TitleSampler:
        self._t0 = _uptime_ticks()
        self._scan(initial=True)
        self._thread.start()
        return self

    def stop(self) -> float:
        self._stop.set()
        self._thread.join(5)
        self._scan()
        return self.total()

    def total(self) -> float:
        return sum(self.last[p] - self.first[p] for p in self.last)

    @property
    def seen(self) -> int:
        return len(self.last)

    def _loop(self) -> None:
        while not self._stop.wait(self.period):
            self._scan()

    def _scan(self, initial: bool = False) -> None:
        import os as _os

        live = set()
        for name in _os.listdir("/proc"):
            if not name.isdigit():
                continue
            pid = int(name)
            live.add(pid)
            ours = self.checked.get(pid)
            if ours is None:
                try:
                    ours = self.marker in Path(f"/proc/{pid}/cmdline").read_bytes() and pid not in self.exclude
                    if ours and self.parent is not None:
                        stat = _stat_fields(pid)
                        ours = stat is not None and int(stat[1]) == self.parent
                except OSError:
                    continue
                self.checked[pid] = ours
            if not ours:
                continue
            f = _stat_fields(pid)
            if f is None:
                continue
            cpu = (int(f[11]) + int(f[12])) / TICK
            if pid not in self.first:
                started_after = int(f[19]) >= self._t0
                self.first[pid] = 0.0 if (started_after and not initial) else cpu
            self.last[pid] = cpu
        for pid in list(self.last):
            if pid not in live:
                self.ended.add(pid)
        for pid in [p for p in self.checked if p not in live]:
            del self.checked[pid]
