// A bill's plot: the figure is built on the server (webapp/bills/figures.py) and handed over in the
// page's JSON block (no inline script: the Content Security Policy allows only static files).
(function () {
  "use strict";
  var el = document.getElementById("bill-plot");
  var block = document.getElementById("bill-figure");
  if (!el || !block || typeof Plotly === "undefined") { return; }
  var fig = JSON.parse(block.textContent);
  if (!fig || !fig.data) { return; }
  Plotly.newPlot(el, fig.data, fig.layout, {displaylogo: false, responsive: true});
}());
