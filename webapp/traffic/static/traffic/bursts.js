/* Cellar traffic page: the significant bursts the server found (api/data "bursts"), listed
   under the statistics with the rule that found them; each row zooms the plot to its burst.
   Plain JavaScript, no build step; traffic.js calls render() after each draw. */
(function () {
  "use strict";
  var KEYS = ["bursts", "burst_k", "burst_pct", "burst_min", "burst_samples"];

  function fromUrl(search) {
    var q = new URLSearchParams(search), out = {};
    KEYS.forEach(function (k) { if (q.get(k)) out[k] = q.get(k); });
    return out;
  }

  function duration(s) {
    if (s < 120) return s.toFixed(0) + " s";
    if (s < 7200) return (s / 60).toFixed(1) + " min";
    return (s / 3600).toFixed(1) + " h";
  }

  function when(iso) { return window.cellarZone ? window.cellarZone.local(iso, false) : iso; }

  function zoomLink(b, span) {
    // the burst with twice its length of context on each side: the median of the zoomed window
    // (the rule's "k x median") must still be the series' usual rate, not the burst's own
    var a = Date.parse(b.start), z = Date.parse(b.end), pad = Math.max(2 * (z - a), 4 * span * 1000);
    var q = new URLSearchParams(location.search);
    q.delete("range");
    q.set("start", new Date(a - pad).toISOString().replace(".000Z", "Z"));
    q.set("end", new Date(z + pad).toISOString().replace(".000Z", "Z"));
    return location.pathname + "?" + q.toString().replace(/%2C/g, ",").replace(/%3A/g, ":");
  }

  function render(section, body, f) {
    var tbody = section.querySelector("tbody");
    tbody.innerHTML = "";
    if (!body.burst_rule) { section.hidden = true; return; }
    var n = 0;
    body.series.forEach(function (s, i) {
      (s.bursts ? s.bursts.bursts : []).forEach(function (b) {
        var tr = document.createElement("tr");
        var vol = f.fmtInt(b.volume) + " " + s.stats.total_unit;
        tr.innerHTML = '<td><i class="dot" style="background:' + f.palette[i % f.palette.length] + '"></i></td>' +
          "<td>" + when(b.start) + "</td><td>" + when(b.end) + '</td><td class="num">' + duration(b.duration_s) +
          (b.gap_s > 0 ? ' <span class="muted">(' + duration(b.gap_s) + " unknown)</span>" : "") +
          '</td><td class="num">' + f.fmt(b.peak, body.unit) + '</td><td class="num">' + f.fmt(b.mean, body.unit) +
          '</td><td class="num">' + vol + '</td><td><a href="' + zoomLink(b, body.resolution_seconds) + '">zoom</a></td>';
        tr.firstChild.appendChild(document.createTextNode(s.label));
        tbody.appendChild(tr);
        n++;
      });
    });
    section.querySelector("table").hidden = !n;
    var r = body.burst_rule;
    section.querySelector(".rule").textContent = (n ? n + " found" : "None found") + " at " +
      r.found_at + ": " + r.definition + ". Change with burst_k, burst_pct, burst_min and burst_samples in the URL.";
    section.hidden = false;
  }

  window.cellarBursts = {fromUrl: fromUrl, render: render};
})();
