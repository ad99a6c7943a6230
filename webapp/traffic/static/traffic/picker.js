/* The data-set picker: switches -> ports (ATM ports, IP interfaces) -> VPs -> VCs -> their series,
   and a search by switch, port, VP:0, VC:15, 0/15, receive/transmit. One component, mounted by the
   traffic page, the analysis page and the run form, each deciding what a click does.
   Plain JavaScript, no build step.

   var p = window.cellarPicker.mount({
     search: <input>, results: <div>, tree: <div>,
     isSelected: function (id) -> bool,
     toggle: function ({id, label, unit, ...}) { ... },     // a series button was clicked
     portActions: function (port) -> element or null,      // optional: extra buttons under a port
     open: ["switch name", ...]                            // switches to open at once
   });
   p.refresh();     // after the selection changed elsewhere: re-mark the pressed buttons */
(function () {
  "use strict";

  var WORD = {"in": "Receive", "out": "Transmit"};
  var METRIC = {cells: "cells", octets: "octets", ucast_pkts: "packets", discards: "discards", errors: "errors",
                rejected_cells: "rejected", lost_cells: "lost", overflow_cells: "overflow", clp0_cells: "CLP0",
                clp0_discards: "CLP0 discards", tagged_cells: "tagged", unknown_cells: "unknown VC",
                ocd_events: "OCD", crc_errors: "CRC errors", sar_timeouts: "SAR timeouts", oversized_sdus: "oversized"};

  function speed(bps) {
    var steps = [[1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"]];
    for (var i = 0; i < steps.length; i++) {
      if (bps >= steps[i][0]) return (bps / steps[i][0]).toPrecision(4).replace(/\.?0+$/, "") + " " + steps[i][1] + "b/s";
    }
    return bps + " b/s";
  }

  function mount(o) {
    function seriesButton(s, text) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = "series";
      b.dataset.seriesId = s.id;
      b.textContent = text;
      b.title = s.label + (s.gone ? " (gone from the agent; history kept)" : "");
      if (s.gone) b.classList.add("gone");
      b.setAttribute("aria-pressed", o.isSelected(s.id) ? "true" : "false");
      b.addEventListener("click", function () { o.toggle(s); });
      return b;
    }

    function seriesRow(list, isAtm) {
      var row = document.createElement("div");
      row.className = "srow";
      var primary = isAtm ? "cells" : "octets";
      var hasCells = list.some(function (x) { return x.metric === "cells"; });
      var main = list.filter(function (s) { return s.metric === primary || (isAtm && s.metric === "octets" && !hasCells); });
      var other = list.filter(function (s) { return main.indexOf(s) < 0; });
      main.forEach(function (s) { row.appendChild(seriesButton(s, WORD[s.direction] || s.metric)); });
      other.forEach(function (s) {
        var prefix = s.direction === "in" ? "rx " : s.direction === "out" ? "tx " : "";
        var b = seriesButton(s, prefix + (METRIC[s.metric] || s.metric));
        b.classList.add("minor");
        row.appendChild(b);
      });
      return row;
    }

    function renderPort(port) {
      var d = document.createElement("details");
      d.className = "port";
      var sum = document.createElement("summary");
      sum.innerHTML = "<b></b> <span class=\"muted\"></span>";
      sum.firstChild.textContent = port.name;
      sum.lastChild.textContent = [port.label, port.port_type].filter(Boolean).join(" · ") +
        (port.speed_bps ? " · " + speed(port.speed_bps) : "") + (port.gone ? " · gone" : "");
      d.appendChild(sum);
      d.appendChild(seriesRow(port.series, port.is_atm));
      var extra = o.portActions ? o.portActions(port) : null;
      if (extra) d.appendChild(extra);
      port.vps.forEach(function (vp) {
        var vd = document.createElement("details");
        vd.className = "vp";
        var vs = document.createElement("summary");
        vs.textContent = "VP:" + vp.vpi + (vp.vcs.length ? "  (" + vp.vcs.length + " VC" + (vp.vcs.length > 1 ? "s" : "") + ")" : "");
        vd.appendChild(vs);
        if (vp.series.length) vd.appendChild(seriesRow(vp.series, true));
        vp.vcs.forEach(function (vc) {
          var line = document.createElement("div");
          line.className = "vc";
          var name = document.createElement("span");
          name.className = "vcname";
          name.textContent = "VC:" + vc.vci;
          if (vc.service_category) name.title = vc.service_category;
          line.appendChild(name);
          line.appendChild(seriesRow(vc.series, true));
          vd.appendChild(line);
        });
        d.appendChild(vd);
      });
      return d;
    }

    function renderSwitch(container, tree) {
      container.innerHTML = "";
      var atm = tree.ports.filter(function (p) { return p.is_atm; });
      var ip = tree.ports.filter(function (p) { return !p.is_atm; });
      [["ATM ports", atm], ["IP interfaces", ip]].forEach(function (group) {
        if (!group[1].length) return;
        if (atm.length && ip.length) {
          var h = document.createElement("div");
          h.className = "group";
          h.textContent = group[0];
          container.appendChild(h);
        }
        group[1].forEach(function (p) { if (p.series.length || p.vps.length) container.appendChild(renderPort(p)); });
      });
      if (!container.children.length) container.innerHTML = '<p class="muted">No counters polled yet.</p>';
    }

    function loadTree() {
      fetch("/traffic/api/inventory").then(function (r) { return r.json(); }).then(function (body) {
        var tree = o.tree;
        tree.innerHTML = "";
        if (!body.switches.length) { tree.innerHTML = '<p class="muted">No switches yet: add one in the inventory.</p>'; return; }
        var wanted = {};
        (o.open || []).forEach(function (name) { wanted[name] = true; });
        body.switches.forEach(function (sw) {
          var d = document.createElement("details");
          d.className = "switch";
          d.dataset.switchId = sw.id;
          var sum = document.createElement("summary");
          sum.innerHTML = "<b></b> <span class=\"muted\"></span>";
          sum.firstChild.textContent = sw.name;
          sum.lastChild.textContent = sw.ports + (sw.ports === 1 ? " port · " : " ports · ") + sw.profile;
          d.appendChild(sum);
          var inner = document.createElement("div");
          inner.className = "switch-body";
          inner.innerHTML = '<p class="muted">Loading…</p>';
          d.appendChild(inner);
          var loaded = false;
          d.addEventListener("toggle", function () {
            if (!d.open || loaded) return;
            loaded = true;
            fetch("/traffic/api/inventory/" + sw.id).then(function (r) { return r.json(); })
              .then(function (t) { renderSwitch(inner, t); });
          });
          tree.appendChild(d);
          if (wanted[sw.name]) d.open = true;
        });
      });
    }

    var timer = null;
    function search() {
      var q = o.search.value.trim();
      var box = o.results;
      if (!q) { box.hidden = true; box.innerHTML = ""; return; }
      fetch("/traffic/api/series?limit=50&q=" + encodeURIComponent(q)).then(function (r) { return r.json(); }).then(function (body) {
        if (o.search.value.trim() !== q) return;
        box.innerHTML = "";
        box.hidden = false;
        if (!body.series.length) { box.innerHTML = '<p class="muted">Nothing matches.</p>'; return; }
        body.series.forEach(function (s) { box.appendChild(seriesButton(s, s.label)); });
        if (body.total > body.series.length) {
          var more = document.createElement("p");
          more.className = "muted";
          more.textContent = body.more ? "more than " + body.total.toLocaleString("en") + " match: refine the search"
            : (body.total - body.series.length) + " more: refine the search";
          box.appendChild(more);
        }
      });
    }

    o.search.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(search, 200); });
    // Enter in the search box must not submit the form the picker sits in.
    o.search.addEventListener("keydown", function (ev) { if (ev.key === "Enter") ev.preventDefault(); });
    loadTree();

    return {
      refresh: function () {
        [o.tree, o.results].forEach(function (box) {
          box.querySelectorAll("[data-series-id]").forEach(function (b) {
            b.setAttribute("aria-pressed", o.isSelected(Number(b.dataset.seriesId)) ? "true" : "false");
          });
        });
      }
    };
  }

  window.cellarPicker = {mount: mount};
}());
