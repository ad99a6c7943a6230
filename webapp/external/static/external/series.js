// The rate plot of an external series page: its data come from the page's JSON block (no inline
// script: the Content Security Policy allows only Cellar's static files). Times are the viewer's
// wall clock in d.zone and a null is a gap, as the server wrote them.
(function () {
  "use strict";
  var el = document.getElementById("external-plot");
  var block = document.getElementById("external-plot-data");
  if (!el || !block || typeof Plotly === "undefined") { return; }
  var d = JSON.parse(block.textContent);
  Plotly.newPlot(el, [{x: d.t, y: d.rate, type: "scatter", mode: "lines", line: {shape: "hv", width: 1.2},
                       name: d.name, connectgaps: false,
                       hovertemplate: "%{x|%Y-%m-%d %H:%M:%S} " + d.zone + "<br>%{y:.4g} " + d.unit + "<extra></extra>"}],
                 {margin: {l: 70, r: 20, t: 10, b: 50}, height: 360,
                  xaxis: {type: "date", title: {text: "interval start (" + d.zone + ")"}},
                  yaxis: {title: {text: d.unit}, rangemode: "tozero"}},
                 {displaylogo: false, responsive: true});
}());
