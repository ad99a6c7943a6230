"""Records of a FORE ASX switch (FORE enterprise MIB: switchGroup, portTable, hwPortTable,
pathTable, pathRouteTable, channelTable, channelRouteTable) plus its system group."""

from __future__ import annotations

from typing import Any

from .model import FORE_PORT_KINDS, ForeSwitch, ForeVC, ForeVP
from .records import (
    TAG_COUNTER32,
    TAG_GAUGE32,
    TAG_IPADDRESS,
    TAG_OCTETS,
    Builder,
    Record,
    static_int,
    static_text,
    system_group,
)

# --------------------------------------------------------------------------- FORE

FORE_SW = "1.3.6.1.4.1.326.2.2.2.1"
FORE_SCALAR = FORE_SW + ".1"              # switchGroup .N.0
FORE_NPORTS = FORE_SW + ".2.1"            # numberOfPorts .0
FORE_PORT = FORE_SW + ".2.2.1"            # portTable .N.portNumber
FORE_HWPORT = "1.3.6.1.4.1.326.2.2.1.1.2.3.1"   # hwPortTable .N.board.module.port
FORE_PATH = FORE_SW + ".3.1.1"            # pathTable .N.port.vpi
FORE_PATHR = FORE_SW + ".3.2.1"           # pathRouteTable .N.inport.invpi.outport.outvpi
FORE_CHAN = FORE_SW + ".4.1.1"            # channelTable .N.port.vpi.vci
FORE_CHANR = FORE_SW + ".4.2.1"           # channelRouteTable .N.in(port,vpi,vci).out(...)
FORE_LINKS = FORE_SW + ".5"               # topologyGroup: numberOfLinks .1.0, linkTable .2.1.N.src(8).dest(8)
FORE_SIGPATH = FORE_SW + ".6.1.1.1"       # sigPathTable .N.port.vpi
FORE_VC_SHMEM2 = "1.3.6.1.4.1.326.2.2.1.5.5.1.1"     # channelShmem2Table .N.outport.vpi.vci (shared memory)
FORE_PATH_SHMEM2 = "1.3.6.1.4.1.326.2.2.1.5.5.2.1"   # pathShmem2Table .N.outport.vpi
FORE_PORT_SHMEM3 = "1.3.6.1.4.1.326.2.2.1.5.7.2.1"   # portShmem3Table .N.port


def _topology(b: Builder, sw: ForeSwitch) -> None:
    """SPANS signalling paths (what each port's signalling peer is) and the SPANS topology database."""
    i: tuple[int, ...]                  # a row's index
    for sig in sw.signalling:
        i = (sw.port(sig.port).number, sig.vpi)
        static_int(b, FORE_SIGPATH + ".6", i, 1 if sig.up else 2, "sigPathOperStatus")
        if sig.remote_atm:
            b.static(FORE_SIGPATH + ".11", i, TAG_OCTETS, sig.remote_atm, "sigPathRemoteAtmAddress")
        b.static(FORE_SIGPATH + ".12", i, TAG_IPADDRESS, sig.remote_ip, "sigPathRemoteIpAddress")
        static_int(b, FORE_SIGPATH + ".13", i, 2 if sig.nni else 1, "sigPathType")
    if sw.spans_links:
        static_int(b, FORE_LINKS + ".1", (0,), len(sw.spans_links), "numberOfLinks")
    for src, dst in sw.spans_links:
        i = tuple(src) + tuple(dst)
        static_int(b, FORE_LINKS + ".2.1.3", i, 353207, "linkCapacity")
        static_int(b, FORE_LINKS + ".2.1.4", i, 0, "linkAge")


def fore_records(sw: ForeSwitch, fresh: bool = False) -> list[Record]:
    i: tuple[int, ...]                  # a row's index
    lab: dict[str, Any]                 # its counter's labels
    b = Builder(fresh)
    system_group(b, sw)
    up = sw.uptime_ticks
    static_int(b, FORE_SCALAR + ".1", (0,), sw.hardware_version, "hardwareVersion")
    static_int(b, FORE_SCALAR + ".2", (0,), sw.software_version, "softwareVersion")
    static_int(b, FORE_SCALAR + ".3", (0,), sw.max_paths, "maxPaths")
    static_int(b, FORE_SCALAR + ".4", (0,), sw.max_channels, "maxChannels")
    b.uptime(FORE_SCALAR + ".6", (0,), up, "uptime")
    static_text(b, FORE_SCALAR + ".9", (0,), sw.software_text, "softwareVersionText")
    static_int(b, FORE_SCALAR + ".10", (0,), sw.switch_type, "switchType")
    b.stamp(FORE_SCALAR + ".32", (0,), 0, "switchCounterResetTime")
    static_int(b, FORE_NPORTS, (0,), len(sw.ports), "numberOfPorts")
    if sw.atm_address:
        b.static(FORE_SCALAR + ".5", (0,), TAG_OCTETS, sw.atm_address, "atmAddress")
    _topology(b, sw)

    for p in sw.ports:
        i = (p.number,)
        lab = dict(port=p.name)
        static_int(b, FORE_PORT + ".2", i, 3 if p.admin_up else 2, "portAdminStatus")
        static_int(b, FORE_PORT + ".3", i, 1 if p.oper_up else 2, "portOperStatus")
        b.uptime(FORE_PORT + ".4", i, min(p.state_ticks, up), "portTime", **lab)
        static_int(b, FORE_PORT + ".9", i, p.max_cells, "portMaxBandwidthIn")
        b.static(FORE_PORT + ".10", i, TAG_GAUGE32, sw.alloc_in(p.name), "portAllocBandwidthIn")
        b.grow(FORE_PORT + ".12", i, TAG_COUNTER32, sw.rx_initial(p.name), sw.rx_rate(p.name),
               "portReceivedCells", "in", **lab)
        static_int(b, FORE_PORT + ".15", i, p.max_cells, "portMaxBandwidthOut")
        b.static(FORE_PORT + ".16", i, TAG_GAUGE32, sw.alloc_out(p.name), "portAllocBandwidthOut")
        b.grow(FORE_PORT + ".18", i, TAG_COUNTER32, sw.tx_initial(p.name), sw.tx_rate(p.name),
               "portTransmittedCells", "out", **lab)
        static_int(b, FORE_PORT + ".19", i, p.board - 1, "portHwBoard")
        static_int(b, FORE_PORT + ".20", i, p.module, "portHwModule")
        static_text(b, FORE_PORT + ".62", i, p.label, "portName")

        h = (p.board - 1, p.module, p.hw_port)
        model_no, _, kbps = FORE_PORT_KINDS[p.kind]
        static_int(b, FORE_HWPORT + ".5", h, model_no, "hwPortModel")
        static_int(b, FORE_HWPORT + ".6", h, 1 if p.oper_up else 2, "hwPortOperStatus")
        b.grow(FORE_HWPORT + ".9", h, TAG_COUNTER32, p.overflow_initial, sw.overflow_rate(p.name),
               "hwPortOverflows", "out", **lab)
        static_text(b, FORE_HWPORT + ".13", h, p.bnp, "hwPortName")
        static_int(b, FORE_HWPORT + ".19", h, p.number + 1, "hwPortIfIndex")
        static_int(b, FORE_HWPORT + ".23", h, kbps, "hwPortSpeed")

    for path in sw.paths():
        p = sw.port(path.port)
        i = (p.number, path.vpi)
        lab = dict(port=path.port, vpi=path.vpi)
        static_int(b, FORE_PATH + ".7", i, p.max_cells, "pathMaxBandwidth")
        static_int(b, FORE_PATH + ".8", i, path.alloc, "pathAllocBandwidth")
        b.grow(FORE_PATH + ".10", i, TAG_COUNTER32, path.initial, path.rate, "pathCells", "in", **lab)
        b.uptime(FORE_PATH + ".11", i, path.uptime_ticks, "pathUptime", **lab)
        b.grow(FORE_PATH + ".13", i, TAG_COUNTER32, path.reject_initial, path.reject_rate,
               "pathRejectedCells", "in", **lab)

    for vp in sw.vps:
        i = (sw.port(vp.in_port).number, vp.in_vpi, sw.port(vp.out_port).number, vp.out_vpi)
        lab = dict(port=vp.in_port, vpi=vp.in_vpi, out_port=vp.out_port, out_vpi=vp.out_vpi)
        b.grow(FORE_PATHR + ".8", i, TAG_COUNTER32, vp.initial, vp.rate, "pathrCells", "in", **lab)
        b.uptime(FORE_PATHR + ".9", i, sw.vc_uptime(vp), "pathrUptime", **lab)
        b.grow(FORE_PATHR + ".11", i, TAG_COUNTER32, vp.reject_initial, vp.reject_rate + vp.drop_in,
               "pathrRejectedCells", "in", **lab)
        static_text(b, FORE_PATHR + ".14", i, vp.name, "pathrName")

    for vc in sw.vcs:
        pin, pout = sw.port(vc.in_port), sw.port(vc.out_port)
        i = (pin.number, vc.in_vpi, vc.in_vci)
        lab = dict(port=vc.in_port, vpi=vc.in_vpi, vci=vc.in_vci)
        static_int(b, FORE_CHAN + ".6", i, vc.alloc, "chanAllocBandwidth")
        b.grow(FORE_CHAN + ".8", i, TAG_COUNTER32, vc.initial, vc.rate, "chanCells", "in", **lab)
        b.uptime(FORE_CHAN + ".9", i, sw.vc_uptime(vc), "chanUptime", **lab)
        b.grow(FORE_CHAN + ".11", i, TAG_COUNTER32, vc.reject_initial, vc.reject_rate + vc.drop_in,
               "chanRejectedCells", "in", **lab)
        static_int(b, FORE_CHAN + ".15", i, vc.servcat, "chanServCat")
        static_int(b, FORE_CHAN + ".17", i, vc.alloc, "chanQosPCR")
        static_int(b, FORE_CHAN + ".18", i, 0, "chanQosSCR")
        static_int(b, FORE_CHAN + ".19", i, 0, "chanQosMBS")
        static_int(b, FORE_CHAN + ".20", i, 0, "chanQosCDVT")
        r = i + (pout.number, vc.out_vpi, vc.out_vci)
        static_int(b, FORE_CHANR + ".7", r, 1 if (pin.oper_up and pout.oper_up) else 2, "chanrStatus")
        static_text(b, FORE_CHANR + ".9", r, vc.name, "chanrName")
        static_int(b, FORE_CHANR + ".10", r, 1, "chanrConnectionType")
    _shared_memory(b, sw)
    return b.records


def _shared_memory(b: Builder, sw: ForeSwitch) -> None:
    """The output-side tables a shared-memory network module answers (ports with `shmem`): cells
    transmitted and lost per output VC, transmitted per output VP, transmitted and lost per port."""
    for vc in sw.vcs:
        out = sw.port(vc.out_port)
        if out.shmem:
            i = (out.number, vc.out_vpi, vc.out_vci)
            lab = dict(port=vc.out_port, vpi=vc.out_vpi, vci=vc.out_vci)
            b.grow(FORE_VC_SHMEM2 + ".4", i, TAG_COUNTER32, 0, vc.drop_out, "vcShmem2TotalLostCells", "out", **lab)
            b.grow(FORE_VC_SHMEM2 + ".7", i, TAG_COUNTER32, vc.initial, vc.sent, "vcShmem2TransmittedCells", "out",
                   **lab)
    paths: dict[tuple[str, int], list[int]] = {}
    conns: list[ForeVC | ForeVP] = [*sw.vcs, *sw.vps]
    for v in conns:
        if sw.port(v.out_port).shmem:
            r = paths.setdefault((v.out_port, v.out_vpi), [0, 0])
            r[0] += v.initial
            r[1] += v.sent
    for (port, vpi), (initial, rate) in sorted(paths.items(), key=lambda kv: (sw.port(kv[0][0]).number, kv[0][1])):
        b.grow(FORE_PATH_SHMEM2 + ".6", (sw.port(port).number, vpi), TAG_COUNTER32, initial, rate,
               "pathShmem2TxCells", "out", port=port, vpi=vpi)
    for p in sw.ports:
        if p.shmem:
            lab = dict(port=p.name)
            b.grow(FORE_PORT_SHMEM3 + ".6", (p.number,), TAG_COUNTER32, sw.tx_initial(p.name), sw.tx_rate(p.name),
                   "portShmem3TxCells", "out", **lab)
            b.grow(FORE_PORT_SHMEM3 + ".11", (p.number,), TAG_COUNTER32, 0, sw.lost_out(p.name),
                   "portShmem3OverflowLostCells", "out", **lab)
