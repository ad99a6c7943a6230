/* Cellar traffic page: data-set picker, time scales, zoom that fetches finer data, CSV links.
   Plain JavaScript, no build step. The URL always holds the selection, range, units and
   resolution, so any view can be bookmarked or shared; the server does all the arithmetic. */
(function () {
  "use strict";

  var initial = JSON.parse(document.getElementById("traffic-state").textContent);
  var PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"];
  var state = {
    series: initial.series.map(function (s) { return {id: s.id, label: s.label}; }),
    range: initial.range, start: initial.start, end: initial.end,
    unit: initial.unit, res: initial.res, stack: initial.stack, compare: initial.compare || "",
    group: initial.group,    // {id, name}: the plot is of a group's members (g=), with their total line
    burst: window.cellarBursts.fromUrl(location.search)   // bursts=0, burst_k, burst_pct, burst_min, burst_samples
  };
  var picker = null;       // picker.js: the switch tree and the search
  var zoomStack = [];      // ranges to return to on double-click
  var drawing = false;     // true while Plotly.react runs (its relayout is not a user zoom)
  var requestSeq = 0;
  var EMPTY_LAYOUT = {xaxis: {visible: false}, yaxis: {visible: false}, margin: {t: 10, b: 10}, height: 110,
                      annotations: [{text: "no series selected", showarrow: false, font: {color: "#667085"}}]};
  var el = function (id) { return document.getElementById(id); };
  var Z = window.cellarZone;   // zone.js: times in the viewer's zone

  // ---------------------------------------------------------------- URL <-> state
  function query(extra) {
    var q = new URLSearchParams();
    if (state.group) q.set("g", state.group.id);
    else if (state.series.length) q.set("s", state.series.map(function (s) { return s.id; }).join(","));
    if (state.range === "custom") {
      if (state.start) q.set("start", state.start);
      if (state.end) q.set("end", state.end);
    } else {
      q.set("range", state.range);
    }
    if (state.unit && state.unit !== "auto") q.set("unit", state.unit);
    if (state.res && state.res !== "auto") q.set("res", state.res);
    if (state.stack) q.set("stack", "1");
    if (state.compare) q.set("compare", state.compare);
    Object.keys(state.burst).forEach(function (k) { q.set(k, state.burst[k]); });
    Object.keys(extra || {}).forEach(function (k) { q.set(k, extra[k]); });
    return q.toString().replace(/%2C/g, ",").replace(/%3A/g, ":");
  }

  function pushUrl() {
    var url = location.pathname + "?" + query();
    if (url !== location.pathname + location.search) history.pushState(null, "", url);
  }

  window.addEventListener("popstate", function () { location.reload(); });

  // ---------------------------------------------------------------- formatting
  function fmt(v, unit) {
    if (v === null || v === undefined) return "–";
    if (unit === "pct") return v.toPrecision(3) + " %";
    if (unit === "mbps_cells" || unit === "mbps_payload") return v.toPrecision(4) + " Mb/s";
    var short = {cells: "cells/s", bps: "b/s", pps: "pkt/s", eps: "events/s"}[unit] || "";
    var steps = [[1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"]];
    for (var i = 0; i < steps.length; i++) {
      if (Math.abs(v) >= steps[i][0]) return (v / steps[i][0]).toPrecision(4) + " " + steps[i][1] + short;
    }
    return v.toPrecision(4) + " " + short;
  }

  function fmtInt(n) { return n.toLocaleString("en-US"); }

  function fmtBytes(n) {
    var steps = [[1e15, "PB"], [1e12, "TB"], [1e9, "GB"], [1e6, "MB"], [1e3, "kB"]];
    for (var i = 0; i < steps.length; i++) if (n >= steps[i][0]) return (n / steps[i][0]).toPrecision(4) + " " + steps[i][1];
    return n + " B";
  }

  // The figure's axis is drawn in the viewer's zone (server side): its times, the inputs' and the
  // zoom window's, are wall-clock times of that zone; the URL keeps UTC.
  function plotlyToIso(text) { return Z.toIso(text); }

  function isoToInput(iso) { return Z.toInput(iso); }

  function inputToIso(text) { return Z.toIso(text); }

  // ---------------------------------------------------------------- selection
  function isSelected(id) { return state.series.some(function (s) { return s.id === id; }); }

  function toggleSeries(id, label, on) {
    var has = isSelected(id);
    if (on === undefined) on = !has;
    state.group = null;      // a changed selection is a plain list of series
    if (on && !has) state.series.push({id: id, label: label});
    if (!on && has) state.series = state.series.filter(function (s) { return s.id !== id; });
    changed();
  }

  // compare= holds entries "1d" (every series) and "ID:1d" (one series): the chip's menu edits
  // the entries of its own series only.
  function compareEntries() { return state.compare ? state.compare.split(",").filter(Boolean) : []; }

  function ownCompare(id) {
    var mine = compareEntries().filter(function (e) { return e.indexOf(id + ":") === 0; });
    return mine.length === 1 ? mine[0].slice(String(id).length + 1) : (mine.length ? "several" : "");
  }

  function setOwnCompare(id, offset) {
    var rest = compareEntries().filter(function (e) { return e.indexOf(id + ":") !== 0; });
    if (offset) rest.push(id + ":" + offset);
    state.compare = rest.join(",");
    changed(true);
  }

  function compareMenu(id) {
    var menu = document.createElement("select");
    menu.className = "chip-compare";
    menu.title = "compare this series alone with an earlier period (dashed)";
    menu.setAttribute("aria-label", "compare this series with");
    var own = ownCompare(id);
    [["", "⇆"], ["1d", "1 day earlier"], ["1w", "1 week earlier"], ["30d", "30 days earlier"]].forEach(function (o) {
      var opt = document.createElement("option");
      opt.value = o[0];
      opt.textContent = o[1];
      menu.appendChild(opt);
    });
    if (own && !Array.prototype.some.call(menu.options, function (o) { return o.value === own; })) {
      var extra = document.createElement("option");
      extra.value = own;
      extra.textContent = own === "several" ? "several offsets" : own + " earlier";
      menu.appendChild(extra);
    }
    menu.value = own;
    menu.classList.toggle("off", !own);     // closed to its symbol while the series has no comparison
    menu.addEventListener("change", function () {
      if (menu.value !== "several") setOwnCompare(id, menu.value);
    });
    return menu;
  }

  function renderSelection() {
    var box = el("selection");
    box.innerHTML = "";
    if (state.group) {
      var g = document.createElement("a");
      g.className = "chip group";
      g.href = "/groups/" + state.group.id + "/";
      g.textContent = "group " + state.group.name + ": " + state.series.length + " series stacked, with their total";
      box.appendChild(g);
    }
    state.series.forEach(function (s, i) {
      var chip = document.createElement("span");
      chip.className = "chip";
      chip.dataset.series = s.id;
      chip.innerHTML = '<i style="background:' + PALETTE[i % PALETTE.length] + '"></i>';
      chip.appendChild(document.createTextNode(s.label));
      chip.appendChild(compareMenu(s.id));
      var x = document.createElement("button");
      x.type = "button";
      x.title = "remove from the plot";
      x.textContent = "×";
      x.addEventListener("click", function () { toggleSeries(s.id, s.label, false); });
      chip.appendChild(x);
      box.appendChild(chip);
    });
    if (state.series.length > 1) {
      var clear = document.createElement("button");
      clear.type = "button";
      clear.className = "linkish";
      clear.textContent = "clear all";
      clear.addEventListener("click", function () { state.series = []; state.group = null; changed(); });
      box.appendChild(clear);
    }
    if (picker) picker.refresh();
  }

  function renderControls() {
    document.querySelectorAll("button.range").forEach(function (b) {
      b.classList.toggle("active", state.range === b.dataset.range);
    });
    el("start").value = state.range === "custom" ? isoToInput(state.start) : "";
    el("end").value = state.range === "custom" ? isoToInput(state.end) : "";
    el("unit").value = state.unit || "auto";
    el("res").value = state.res || "auto";
    el("stack").checked = !!state.stack;
    var q = query();
    // the CSV's times in the viewer's zone (ISO 8601 with its offset); tz=UTC or none: Z as before
    var tz = Z.isUtc ? {} : {tz: Z.zone};
    el("csv").href = "/traffic/plot.csv?" + query(tz);
    el("csv-raw").href = "/traffic/plot.csv?" + query(Object.assign({raw: "1"}, tz));
    el("json").href = "/traffic/plot.json?" + q;
    el("png").href = "/traffic/plot.png?" + q;
    el("svg").href = "/traffic/plot.svg?" + q;
    el("compare").value = ["", "1d", "1w"].indexOf(state.compare) >= 0 ? state.compare : "other";
    el("compare-other").hidden = el("compare").value !== "other";
    if (el("compare").value === "other") el("compare-other").value = state.compare;
    // The analysis page sums the series (no stack) and looks for bursts in its own way.
    var a = new URLSearchParams(q);
    ["stack", "burst_k", "burst_pct", "burst_min", "burst_samples"].forEach(function (k) { a.delete(k); });
    if (state.group) {        // the analysis takes series: a group's members, summed
      a.delete("g");
      a.set("s", state.series.map(function (x) { return x.id; }).join(","));
    }
    el("analyse").href = "/analysis/?" + a.toString().replace(/%2C/g, ",").replace(/%3A/g, ":");
    ["csv", "csv-raw", "json", "analyse", "png", "svg"].forEach(function (id) {
      el(id).classList.toggle("disabled", !state.series.length);
    });
  }

  function changed(keepZoom) {
    if (!keepZoom) zoomStack = [];
    pushUrl();
    renderSelection();
    renderControls();
    load();
  }

  // ---------------------------------------------------------------- plot
  function setStatus(text, bad) {
    var s = el("status");
    s.textContent = text;
    s.classList.toggle("bad", !!bad);
    s.classList.toggle("muted", !bad);
  }

  function load() {
    var seq = ++requestSeq;
    if (!state.series.length) {
      drawing = true;
      Plotly.react(el("plot"), [], EMPTY_LAYOUT).then(function () { drawing = false; });
      el("plot").classList.add("empty");
      el("stats").hidden = true;
      el("bursts").hidden = true;
      setStatus("Pick a switch, a port and a direction on the left (or search).");
      return;
    }
    el("plot").classList.remove("empty");
    setStatus("Loading…");
    // The figure first (points=0: the figure carries them; p95=0: it reads a finer resolution),
    // then the 95th percentile into the statistics table when it comes.
    getJson("/traffic/api/data?" + query({figure: "1", points: "0", p95: "0"}))
      .then(function (res) {
        if (seq !== requestSeq) return;   // a newer request superseded this one
        if (!res.ok) { setStatus(res.body.error || "request failed", true); return; }
        draw(res.body);
        // over exactly the range just drawn (a relative range would move with the clock)
        var same = {range: "custom", start: res.body.start, end: res.body.end};
        return getJson("/traffic/api/p95?" + query(same)).then(function (p) {
          if (seq === requestSeq) fillP95(p.ok ? p.body : null, res.body.unit);
        });
      })
      .catch(function (err) { if (seq === requestSeq) setStatus("Could not load the data: " + err, true); });
  }

  function getJson(url) {
    return fetch(url, {headers: {Accept: "application/json"}})
      .then(function (r) { return r.json().then(function (body) { return {ok: r.ok, body: body}; }); });
  }

  function fillP95(body, unit) {
    var cells = el("stats").querySelectorAll("td.p95");
    Array.prototype.forEach.call(cells, function (td, i) {
      var s = body && body.series[i];
      td.innerHTML = s ? fmt(s.p95, unit) + ' <span class="muted">of ' + body.p95_basis + "</span>" : "–";
      td.removeAttribute("aria-busy");
    });
  }

  function draw(body) {
    drawing = true;
    var fig = body.figure;
    var config = {responsive: true, displaylogo: false, modeBarButtonsToRemove: ["lasso2d", "select2d", "autoScale2d"],
                  toImageButtonOptions: {filename: "cellar-traffic"}};
    Plotly.react(el("plot"), fig.data, fig.layout, config).then(function () { drawing = false; });
    var n = body.series.reduce(function (m, s) { return Math.max(m, s.n_points); }, 0);
    var when = function (iso) { return Z.local(iso); };
    var text = body.resolution_label + " · " + fmtInt(n) + " points per series · " + when(body.start) +
      " – " + when(body.end) + " · " + body.unit_label + " · " + body.server_ms + " ms on the server";
    if (body.notes && body.notes.length) text += " · " + body.notes.join(" · ");
    setStatus(text);
    renderStats(body);
    if (state.range === "auto") markRange(body);
    window.cellarBursts.render(el("bursts"), body, {fmt: fmt, fmtInt: fmtInt, palette: PALETTE});
  }

  function markRange(body) {   // range=auto: say what it chose
    var span = (Date.parse(body.end) - Date.parse(body.start)) / 1000;
    document.querySelectorAll("button.range").forEach(function (b) {
      b.classList.toggle("active", b.dataset.range === "24h" && span >= 86400);
    });
  }

  function renderStats(body) {
    var tbody = el("stats").querySelector("tbody");
    tbody.innerHTML = "";
    body.series.forEach(function (s, i) {
      var st = s.stats;
      var total = fmtInt(st.total) + " " + st.total_unit;
      if (st.total_bytes !== undefined) total += " (" + fmtBytes(st.total_bytes) + ")";
      var cov = st.coverage === null ? "–" : (st.coverage * 100).toFixed(1) + " %";
      var tr = document.createElement("tr");
      tr.innerHTML = '<td><i class="dot" style="background:' + PALETTE[i % PALETTE.length] + '"></i></td>' +
        '<td class="num">' + fmt(st.average, body.unit) + '</td><td class="num">' + fmt(st.peak, body.unit) +
        '</td><td class="num p95" aria-busy="true">…</td><td class="num">' + total + '</td><td class="num">' + cov +
        '</td><td class="num">' + fmtInt(st.flagged) + " of " + fmtInt(st.samples) + "</td>";
      tr.firstChild.appendChild(document.createTextNode(s.label));
      tbody.appendChild(tr);
    });
    var tot = body.group && body.group.total;
    if (tot) {
      var row = document.createElement("tr");
      row.className = "total";
      row.innerHTML = '<td><i class="dot total"></i></td><td class="num">' + fmt(tot.average, body.unit) +
        '</td><td class="num">' + fmt(tot.peak, body.unit) + '</td><td class="num">–</td><td class="num">' +
        (tot.total === null ? "–" : fmtInt(tot.total) + " " + tot.total_unit) + '</td><td class="num"></td><td class="num"></td>';
      row.firstChild.appendChild(document.createTextNode("total of " + body.group.name + " (" + tot.members + " series)"));
      tbody.appendChild(row);
    }
    el("stats").hidden = false;
  }

  function onRelayout(ev) {
    if (drawing) return;
    var r0 = ev["xaxis.range[0]"], r1 = ev["xaxis.range[1]"];
    if (r0 === undefined && ev["xaxis.range"]) { r0 = ev["xaxis.range"][0]; r1 = ev["xaxis.range"][1]; }
    if (r0 !== undefined && r1 !== undefined) {
      zoomStack.push({range: state.range, start: state.start, end: state.end});
      state.range = "custom";
      state.start = plotlyToIso(r0);
      state.end = plotlyToIso(r1);
      changed(true);
    } else if (ev["xaxis.autorange"]) {
      var back = zoomStack.pop();
      if (back) { state.range = back.range; state.start = back.start; state.end = back.end; changed(true); }
    }
  }

  // ---------------------------------------------------------------- picker (picker.js)
  function stackVcs(port, direction) {
    var added = 0;
    port.vps.forEach(function (vp) {
      vp.vcs.forEach(function (vc) {
        vc.series.forEach(function (s) {
          if (s.direction === direction && (s.metric === "cells" || s.metric === "octets") && !isSelected(s.id) && state.series.length < 50) {
            state.series.push({id: s.id, label: s.label});
            added++;
          }
        });
      });
    });
    if (added) { state.stack = true; state.group = null; changed(); }
  }

  function stackButtons(port) {    // "stack the 12 VCs (receive)" under a port with several VCs
    var vcCount = port.vps.reduce(function (n, vp) { return n + vp.vcs.length; }, 0);
    if (vcCount <= 1) return null;
    var actions = document.createElement("div");
    actions.className = "srow";
    ["in", "out"].forEach(function (dir) {
      var has = port.vps.some(function (vp) { return vp.vcs.some(function (vc) { return vc.series.some(function (s) { return s.direction === dir; }); }); });
      if (!has) return;
      var b = document.createElement("button");
      b.type = "button";
      b.className = "linkish";
      b.textContent = "stack the " + vcCount + " VCs (" + (dir === "in" ? "receive" : "transmit") + ")";
      b.addEventListener("click", function () { stackVcs(port, dir); });
      actions.appendChild(b);
    });
    return actions;
  }

  // ---------------------------------------------------------------- wiring
  document.querySelectorAll("button.range").forEach(function (b) {
    b.addEventListener("click", function () {
      state.range = b.dataset.range; state.start = null; state.end = null; changed();
    });
  });
  el("custom").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var start = inputToIso(el("start").value);
    if (!start) { setStatus("Give a start time (" + Z.label() + "), e.g. 2026-11-22 10:00", true); return; }
    state.range = "custom"; state.start = start; state.end = inputToIso(el("end").value); changed();
  });
  el("unit").addEventListener("change", function () { state.unit = el("unit").value; changed(true); });
  el("res").addEventListener("change", function () { state.res = el("res").value; changed(true); });
  el("stack").addEventListener("change", function () { state.stack = el("stack").checked; changed(true); });
  el("compare").addEventListener("change", function () {
    var v = el("compare").value;
    el("compare-other").hidden = v !== "other";
    if (v === "other") { el("compare-other").focus(); return; }
    state.compare = v; changed(true);
  });
  el("compare-other").addEventListener("change", function () {
    state.compare = el("compare-other").value.trim().replace(/\s+/g, ""); changed(true);
  });
  function postLink(url, show) {   // a saved view or an image link of this plot (operators)
    var body = new URLSearchParams({query: query()});
    var token = (document.cookie.match(/(?:^|; )csrftoken=([^;]+)/) || [])[1] || "";
    fetch(url, {method: "POST", body: body, headers: {"X-CSRFToken": decodeURIComponent(token),
                                                     Accept: "application/json"}})
      .then(function (r) { return r.json().then(function (b) { return {ok: r.ok, body: b}; }); })
      .then(function (res) {
        var out = el("link-out");
        out.hidden = false;
        out.textContent = "";
        if (!res.ok) { out.textContent = res.body.error || "failed"; out.classList.add("bad"); return; }
        out.classList.remove("bad");
        show(out, res.body);
      });
  }
  function linkLine(out, text, href) {
    var p = document.createElement("div");
    p.appendChild(document.createTextNode(text + " "));
    var a = document.createElement("a");
    a.href = href; a.textContent = href;
    p.appendChild(a);
    out.appendChild(p);
  }
  if (el("short-link")) el("short-link").addEventListener("click", function () {
    postLink("/traffic/api/views", function (out, b) {
      linkLine(out, "Short link:", b.url);
      linkLine(out, "Image:", b.forms.png);
    });
  });
  if (el("image-link")) el("image-link").addEventListener("click", function () {
    postLink("/traffic/api/image-links", function (out, b) {
      linkLine(out, "Image link (no login; copy it now, it is shown once; expires " + Z.local(b.expires) + "):", b.png);
    });
  });
  ["csv", "csv-raw", "json", "analyse", "png", "svg"].forEach(function (id) {
    el(id).addEventListener("click", function (ev) { if (!state.series.length) ev.preventDefault(); });
  });

  picker = window.cellarPicker.mount({
    search: el("search"), results: el("search-results"), tree: el("tree"), isSelected: isSelected,
    toggle: function (s) { toggleSeries(s.id, s.label); }, portActions: stackButtons,
    open: state.series.map(function (s) { return s.label.split(" ")[0]; })
  });
  renderSelection();
  renderControls();
  Plotly.newPlot(el("plot"), [], EMPTY_LAYOUT, {displaylogo: false, responsive: true}).then(function () {
    el("plot").on("plotly_relayout", onRelayout);
    load();
  });
})();
