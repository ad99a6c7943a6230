// The network map (webapp/topology): an SVG of switches, hosts and links. Each link is drawn as two
// halves, weathermap style: the half next to a node shows the traffic that node sends over the
// link, coloured (and labelled) by its share of the link's capacity; the width says the capacity.
// Refreshed in place every 15 s; a time slider replays any retained time from the rollups; a
// traced path is highlighted; operators drag nodes (positions stored for everyone).
"use strict";

(function () {
  const app = document.getElementById("map-app");
  if (!app) { return; }
  const svg = document.getElementById("map");
  const panel = document.getElementById("panel");
  const status = document.getElementById("map-status");
  const slider = document.getElementById("time-slider");
  const timeLabel = document.getElementById("time-label");
  const liveButton = document.getElementById("time-live");
  const canMove = app.dataset.canMove === "1";
  const csrf = (app.querySelector("input[name=csrfmiddlewaretoken]") || {}).value || "";
  const NS = "http://www.w3.org/2000/svg";
  const REFRESH_MS = 15000;
  // Utilisation bands (share of capacity) and their colours; the same table draws the legend.
  const BANDS = [
    [0.01, "#4a90d9", "< 1 %"], [0.10, "#2eb82e", "1-10 %"], [0.25, "#9acd32", "10-25 %"],
    [0.50, "#f5c400", "25-50 %"], [0.75, "#ff8c00", "50-75 %"], [1.0001, "#e0301e", "75-100 %"],
    [Infinity, "#8b008b", "over capacity"],
  ];
  const UNKNOWN = "#b8bec8";

  let graph = null;
  let at = null;                   // null: live
  let onPath = null;               // {edges: Set, nodes: Set}
  let drag = null;
  let timer = null;

  function colour(util) {
    if (util === null || util === undefined) { return UNKNOWN; }
    for (const [limit, c] of BANDS) { if (util < limit) { return c; } }
    return BANDS[BANDS.length - 1][1];
  }

  function widthOf(e) {
    const d = e.ab.capacity ? e.ab : e.ba;
    if (!d || !d.capacity) { return 2; }
    const bps = d.capacity * (d.unit === "cells" ? 424 : 8);
    return Math.max(1.5, Math.min(9, (Math.log10(bps) - 6) * 1.6));
  }

  function el(name, attrs, parent) {
    const node = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs || {})) { node.setAttribute(k, v); }
    if (parent) { parent.appendChild(node); }
    return node;
  }

  function html(tag, text, cls) {
    const node = document.createElement(tag);
    if (text !== undefined) { node.textContent = text; }
    if (cls) { node.className = cls; }
    return node;
  }

  function pct(d) {
    return d && d.util !== null && d.util !== undefined ? (d.util * 100).toFixed(d.util < 0.1 ? 1 : 0) + "%" : "–";
  }

  function nodeById() {
    const m = new Map();
    for (const n of graph.nodes) { m.set(n.id, n); }
    return m;
  }

  // Geometry of an edge: its ends moved off the nodes, parallel links offset side by side.
  function geometry(e, nodes, slot) {
    const a = nodes.get(e.a), b = nodes.get(e.b);
    const dx = b.x - a.x, dy = b.y - a.y, len = Math.hypot(dx, dy) || 1;
    const ux = dx / len, uy = dy / len, off = slot * 9;
    const ra = 16, rb = e.kind === "host" ? 9 : 16;
    const x1 = a.x + ux * ra - uy * off, y1 = a.y + uy * ra + ux * off;
    const x2 = b.x - ux * rb - uy * off, y2 = b.y - uy * rb + ux * off;
    return {x1, y1, x2, y2, mx: (x1 + x2) / 2, my: (y1 + y2) / 2};
  }

  function slots() {
    const count = new Map(), out = new Map();
    for (const e of graph.edges) {
      const key = [e.a, e.b].sort().join("|");
      const i = count.get(key) || 0;
      count.set(key, i + 1);
      out.set(e.id, i);
    }
    for (const e of graph.edges) {
      const n = count.get([e.a, e.b].sort().join("|"));
      out.set(e.id, out.get(e.id) - (n - 1) / 2);
    }
    return out;
  }

  function draw() {
    while (svg.firstChild) { svg.removeChild(svg.firstChild); }
    const edgeLayer = el("g", {id: "edges"}, svg);
    const nodeLayer = el("g", {id: "nodes"}, svg);
    const nodes = nodeById();
    const slot = slots();
    for (const e of graph.edges) {
      const g = el("g", {"class": "edge " + e.kind, "data-id": e.id}, edgeLayer);
      const w = widthOf(e);
      el("line", {"class": "outline", "stroke-width": w + 2}, g);
      el("line", {"class": "half ab", "data-dir": "ab", "stroke-width": w}, g);
      el("line", {"class": "half ba", "data-dir": "ba", "stroke-width": w}, g);
      el("line", {"class": "hit"}, g);
      el("text", {"class": "util ab", "text-anchor": "middle"}, g);
      el("text", {"class": "util ba", "text-anchor": "middle"}, g);
      el("text", {"class": "warn", "text-anchor": "middle"}, g);
      el("title", {}, g);
      g.addEventListener("click", () => showLink(e.id));
      place(g, e, geometry(e, nodes, slot.get(e.id)));
    }
    for (const n of graph.nodes) {
      const g = el("g", {"class": "node " + n.kind + (n.enabled === false ? " disabled" : ""), "data-id": n.id,
                         transform: `translate(${n.x},${n.y})`}, nodeLayer);
      if (n.kind === "switch") { el("rect", {x: -15, y: -10, width: 30, height: 20, rx: 3}, g); }
      else { el("circle", {r: 8}, g); }
      const label = el("text", {y: n.kind === "switch" ? 22 : 19, "text-anchor": "middle"}, g);
      label.textContent = n.name;
      el("title", {}, g).textContent = n.kind === "switch" ? `${n.name} (${n.type || "switch"})` : `${n.name} ${n.address}`;
      g.addEventListener("pointerdown", (ev) => startDrag(ev, n, g));
      g.addEventListener("click", () => { if (!g.dataset.moved) { window.location.href = n.url; } });
    }
    update();
  }

  function place(g, e, p) {
    const [outline, ab, ba, hit] = g.querySelectorAll("line");
    for (const l of [outline, hit]) {
      l.setAttribute("x1", p.x1); l.setAttribute("y1", p.y1); l.setAttribute("x2", p.x2); l.setAttribute("y2", p.y2);
    }
    ab.setAttribute("x1", p.x1); ab.setAttribute("y1", p.y1); ab.setAttribute("x2", p.mx); ab.setAttribute("y2", p.my);
    ba.setAttribute("x1", p.mx); ba.setAttribute("y1", p.my); ba.setAttribute("x2", p.x2); ba.setAttribute("y2", p.y2);
    const [tab, tba, warn] = g.querySelectorAll("text");
    tab.setAttribute("x", (p.x1 * 3 + p.x2) / 4); tab.setAttribute("y", (p.y1 * 3 + p.y2) / 4 - 5);
    tba.setAttribute("x", (p.x1 + p.x2 * 3) / 4); tba.setAttribute("y", (p.y1 + p.y2 * 3) / 4 - 5);
    warn.setAttribute("x", p.mx); warn.setAttribute("y", p.my - 6);
  }

  // Colours, labels and classes from the graph: called after every refresh, nothing is redrawn.
  function update() {
    for (const e of graph.edges) {
      const g = svg.querySelector(`g.edge[data-id="${e.id}"]`);
      if (!g) { continue; }
      g.classList.toggle("conflict", !!e.conflict);
      g.classList.toggle("inferred", e.known === "inferred");
      g.classList.toggle("on-path", !!onPath && onPath.edges.has(e.id));
      const [, ab, ba] = g.querySelectorAll("line");
      ab.setAttribute("stroke", colour(e.ab.util));
      ba.setAttribute("stroke", colour(e.ba.util));
      const [tab, tba, warn] = g.querySelectorAll("text");
      tab.textContent = e.kind === "switch" ? pct(e.ab) : "";
      tba.textContent = e.kind === "switch" ? pct(e.ba) : "";
      warn.textContent = e.conflict ? "!" : "";
      const how = e.known + (e.confidence !== null ? ` (confidence ${e.confidence.toFixed(2)})` : "");
      g.querySelector("title").textContent = `${e.a_port} → ${e.b_port || "host"}: ${pct(e.ab)} / ${pct(e.ba)}; ` +
        `${how}${e.conflict ? "; CONFLICT: " + e.conflict : ""}`;
    }
    for (const g of svg.querySelectorAll("g.node")) {
      g.classList.toggle("on-path", !!onPath && onPath.nodes.has(g.dataset.id));
    }
    svg.classList.toggle("dim", !!onPath);
    describe();
  }

  function describe() {
    const s = graph.source;
    const links = graph.edges.filter((e) => e.kind === "switch");
    const inferred = links.filter((e) => e.known === "inferred").length;
    let when = "latest poll of each switch";
    if (s.kind === "now" && s.measured) { when += ` (the oldest at ${s.measured.replace("T", " ").slice(0, 19)} UTC)`; }
    if (s.kind === "rollup") {
      when = s.tier ? `the ${s.tier} rollup bucket from ${s.bucket.replace("T", " ").slice(0, 16)} UTC`
        : "no rollup holds this time";
    }
    status.textContent = `${graph.nodes.filter((n) => n.kind === "switch").length} switches, ` +
      `${links.length} links between switches (${inferred} inferred, ${graph.conflicts.length} in conflict). ` +
      `Traffic from the ${when}.` + viewNote(graph.view);
    const box = document.getElementById("conflicts");
    box.replaceChildren();
    for (const c of graph.conflicts) {
      const p = html("p", "", "note bad");
      p.append(html("strong", "Conflict: "), document.createTextNode(c.text + " "));
      const a = html("a", "details");
      a.href = "#";
      a.addEventListener("click", (ev) => { ev.preventDefault(); showLink("l" + c.link); });
      p.append(a);
      box.append(p);
    }
  }

  function legend() {
    const box = document.getElementById("legend");
    box.append(html("span", "Utilisation:"));
    for (const [, c, label] of [...BANDS, [0, UNKNOWN, "not measured"]]) {
      const item = html("span");
      const sw = html("span", "", "sw");
      sw.style.background = c;
      item.append(sw, document.createTextNode(label));
      box.append(item);
    }
    box.append(html("span", "· dotted: inferred · red dashes: conflict · width: capacity", "muted"));
  }

  function showLink(id) {
    const e = graph.edges.find((x) => x.id === id);
    if (!e) { return; }
    panel.replaceChildren(html("h3", `${nameOf(e.a)} ${e.a_port} – ${nameOf(e.b)} ${e.b_port}`));
    const t = html("table");
    for (const [dir, d, from] of [["ab", e.ab, nameOf(e.a)], ["ba", e.ba, nameOf(e.b)]]) {
      const tr = html("tr");
      const rate = d.rate === null || d.rate === undefined ? "–" : `${Math.round(d.rate).toLocaleString("en")} ${d.unit}/s`;
      tr.append(html("td", `from ${from}`), html("td", rate), html("td", pct(d)));
      tr.dataset.dir = dir;
      t.append(tr);
    }
    panel.append(t);
    const plot = html("a", "plot of this port");
    plot.href = e.plot;
    panel.append(html("p"));
    panel.lastChild.append(plot);
    if (e.kind === "host" || !e.link) {
      panel.append(html("p", `host attachment, known by ${e.known}`, "muted"));
      return;
    }
    const url = app.dataset.link.replace(/0$/, String(e.link));
    fetch(url, {credentials: "same-origin"}).then((r) => r.json()).then((d) => {
      if (d.error) { panel.append(html("p", d.error, "bad")); return; }
      const how = d.state + (d.confidence !== null ? `, confidence ${d.confidence.toFixed(2)}` : "");
      panel.append(html("p", `Link ${how}${d.decided_by ? " (decided by " + d.decided_by + ")" : ""}`));
      if (d.conflict) { panel.append(html("p", "Conflict: " + d.conflict, "bad")); }
      if (d.admin) { const a = html("a", "confirm or reject in the inventory"); a.href = d.admin; panel.append(a); }
      panel.append(html("h3", "Evidence"));
      const ul = html("ul", "", "plain small");
      for (const ev of d.evidence) { ul.append(html("li", `${ev.kind} (${ev.side}, ${ev.weight}): ${ev.says}`)); }
      if (!d.evidence.length) { ul.append(html("li", "entered by hand", "muted")); }
      panel.append(ul);
      panel.append(html("h3", `VCs crossing it (${d.vcs.length})`));
      const vt = html("table", "", "vcs");
      const head = html("tr");
      for (const h of ["direction", "in", "out", "cells/s"]) { head.append(html("th", h)); }
      vt.append(head);
      for (const v of d.vcs) {
        const tr = html("tr");
        const link = html("a", v.in);
        link.href = v.trace;
        const td = html("td");
        td.append(link);
        tr.append(html("td", v.direction), td, html("td", v.out),
          html("td", v.cells_per_s === null ? "–" : Math.round(v.cells_per_s).toLocaleString("en")));
        vt.append(tr);
      }
      panel.append(vt);
    }).catch(() => panel.append(html("p", "could not load the link", "bad")));
  }

  function viewNote(v) {
    if (!v || v.whole) { return ""; }
    return ` Drawn: ${v.shown.toLocaleString("en")} of ${v.nodes_total.toLocaleString("en")} nodes, those within ` +
      `${v.hops} link(s) of ${v.around}${v.cut ? ", cut at the map's limit of " + v.limit.toLocaleString("en") + " nodes" : ""}` +
      ` (a network of more than ${v.limit.toLocaleString("en")} nodes is drawn around one switch: choose it above).`;
  }

  function nameOf(id) {
    const n = graph.nodes.find((x) => x.id === id);
    return n ? n.name : id;
  }

  function load(first) {
    const args = new URLSearchParams();
    if (at) { args.set("at", at); }
    if (app.dataset.around) { args.set("around", app.dataset.around); }
    if (app.dataset.hops) { args.set("hops", app.dataset.hops); }
    const url = app.dataset.graph + (args.toString() ? "?" + args.toString() : "");
    return fetch(url, {credentials: "same-origin"}).then((r) => r.json().then((d) => ({ok: r.ok, d}))).then(({ok, d}) => {
      if (!ok) { status.textContent = d.error || "the map could not be loaded"; return; }
      const same = graph && graph.nodes.length === d.nodes.length && graph.edges.length === d.edges.length &&
        d.edges.every((e, i) => graph.edges[i].id === e.id) && d.nodes.every((n, i) => graph.nodes[i].id === n.id &&
          graph.nodes[i].x === n.x && graph.nodes[i].y === n.y);
      graph = d;
      if (first || !same) { draw(); } else { update(); }
      if (first) { setupSlider(); }
    }).catch(() => { status.textContent = "the map could not be loaded (network error); retrying"; });
  }

  function setupSlider() {
    const oldest = graph.retained.oldest ? Date.parse(graph.retained.oldest) : null;
    if (!oldest) { slider.disabled = true; timeLabel.textContent = "now (no rollup yet to replay)"; return; }
    const toTime = (v) => oldest + (Date.now() - oldest) * (v / 1000);
    slider.addEventListener("input", () => { timeLabel.textContent = new Date(toTime(slider.value)).toISOString().slice(0, 16).replace("T", " ") + " UTC"; });
    slider.addEventListener("change", () => {
      if (Number(slider.value) >= 1000) { goLive(); return; }
      at = new Date(toTime(slider.value)).toISOString();
      liveButton.disabled = false;
      load(false);
    });
    liveButton.addEventListener("click", goLive);
  }

  function goLive() {
    at = null;
    slider.value = 1000;
    timeLabel.textContent = "now";
    liveButton.disabled = true;
    load(false);
  }

  function post(positions) {
    return fetch(app.dataset.positions, {method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-CSRFToken": csrf}, body: JSON.stringify({positions})})
      .then((r) => r.json()).then((d) => { status.textContent = d.error ? "not stored: " + d.error : `stored ${d.saved} position(s)`; });
  }

  function svgPoint(ev) {
    const pt = svg.createSVGPoint();
    pt.x = ev.clientX; pt.y = ev.clientY;
    return pt.matrixTransform(svg.getScreenCTM().inverse());
  }

  function startDrag(ev, n, g) {
    delete g.dataset.moved;
    if (!canMove) { return; }
    drag = {n, g, moved: false};
    g.setPointerCapture(ev.pointerId);
    g.addEventListener("pointermove", moveDrag);
    g.addEventListener("pointerup", endDrag, {once: true});
  }

  function moveDrag(ev) {
    if (!drag) { return; }
    const p = svgPoint(ev);
    drag.n.x = Math.max(0, Math.min(1000, Math.round(p.x)));
    drag.n.y = Math.max(0, Math.min(700, Math.round(p.y)));
    drag.moved = true;
    drag.g.setAttribute("transform", `translate(${drag.n.x},${drag.n.y})`);
    const nodes = nodeById(), slot = slots();
    for (const e of graph.edges) {
      if (e.a === drag.n.id || e.b === drag.n.id) {
        place(svg.querySelector(`g.edge[data-id="${e.id}"]`), e, geometry(e, nodes, slot.get(e.id)));
      }
    }
  }

  function endDrag() {
    if (!drag) { return; }
    drag.g.removeEventListener("pointermove", moveDrag);
    if (drag.moved) {
      drag.g.dataset.moved = "1";
      post({[drag.n.id]: [drag.n.x, drag.n.y]});
    }
    drag = null;
  }

  function showPath(src, dst) {
    const url = `${app.dataset.path}?src=${encodeURIComponent(src)}&dst=${encodeURIComponent(dst)}`;
    fetch(url, {credentials: "same-origin"}).then((r) => r.json()).then((d) => {
      if (d.error) { status.textContent = d.error; return; }
      onPath = {edges: new Set(d.edges), nodes: new Set(d.nodes)};
      update();
      panel.replaceChildren(html("h3", "Path"), html("p", d.summary));
      for (const t of d.traces) { panel.append(html("p", `${t.status}: ${t.hops.join(" → ")}. ${t.links}`, "small")); }
      const a = html("a", "the path page");
      a.href = d.page;
      panel.append(a);
    });
  }

  document.getElementById("path-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const f = ev.target;
    showPath(f.src.value, f.dst.value);
  });
  document.getElementById("path-clear").addEventListener("click", () => { onPath = null; update(); });
  const save = document.getElementById("save-layout");
  if (save) {
    save.addEventListener("click", () => {
      const all = {};
      for (const n of graph.nodes) { all[n.id] = [n.x, n.y]; }
      post(all);
    });
  }
  legend();
  load(true).then(() => {
    if (app.dataset.src && app.dataset.dst) { showPath(app.dataset.src, app.dataset.dst); }
    timer = setInterval(() => { if (!at && !drag) { load(false); } }, REFRESH_MS);
  });
  window.addEventListener("beforeunload", () => clearInterval(timer));
})();
