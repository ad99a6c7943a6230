// The rate plot of an external series page: its data come from the page's JSON block (no inline
// script: the Content Security Policy allows only Cellar's static files).
(function () {
  "use strict";
  var el = document.getElementById("external-plot");
  var block = document.getElementById("external-plot-data");
  if (!el || !block || typeof Plotly === "undefined") { return; }
  var d = JSON.parse(block.textContent);
  // A gap wider than one bucket is drawn as a gap, not a line across it.
  var xs = [], ys = [], step = d.bucket_s * 1000;
  for (var i = 0; i < d.t.length; i++) {
    if (i > 0 && Date.parse(d.t[i]) - Date.parse(d.t[i - 1]) > step * 1.5) { xs.push(null); ys.push(null); }
    xs.push(d.t[i]); ys.push(d.rate[i]);
  }
  Plotly.newPlot(el, [{x: xs, y: ys, type: "scatter", mode: "lines", line: {shape: "hv", width: 1.2},
                       name: d.name, connectgaps: false,
                       hovertemplate: "%{x|%Y-%m-%d %H:%M:%S} UTC<br>%{y:.4g} " + d.unit + "<extra></extra>"}],
                 {margin: {l: 70, r: 20, t: 10, b: 50}, height: 360,
                  xaxis: {type: "date", title: {text: "interval start (UTC)"}},
                  yaxis: {title: {text: d.unit}, rangemode: "tozero"}},
                 {displaylogo: false, responsive: true});
}());
