// An analysis job's page: follow its progress, then draw its figures from the job's JSON.
// A static file (no inline script): the pages are served under a Content Security Policy.
(function () {
  "use strict";
  var box = document.getElementById("analysis-job");
  if (!box) { return; }
  var url = box.getAttribute("data-json-url");
  var delay = 1000;

  function get(cb) {
    fetch(url, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (r) { return r.json(); })
      .then(cb)
      .catch(function () {
        delay = Math.min(delay * 2, 15000);    // the server is away: back off, keep trying
        window.setTimeout(function () { get(cb); }, delay);
      });
  }

  function progress(job) {
    var bar = document.getElementById("analysis-progress");
    var step = document.getElementById("analysis-step");
    if (bar) { bar.value = job.percent; bar.textContent = job.percent + " %"; }
    if (step) { step.textContent = job.status + (job.step ? ": " + job.step : ""); }
    if (job.status === "queued" || job.status === "running") {
      window.setTimeout(function () { get(progress); }, delay);
    } else {
      window.location.reload();      // the server renders the numbers (or the error)
    }
  }

  function draw(job) {
    var host = document.getElementById("figures");
    if (!host || !job.figures) { return; }
    host.textContent = "";
    job.figures.forEach(function (f) {
      var div = document.createElement("div");
      div.className = "figure" + (f.wide ? " wide" : "");
      div.id = "figure-" + f.id;
      div.setAttribute("data-figure", f.id);
      host.appendChild(div);
      var layout = Object.assign({autosize: true, height: f.wide ? 340 : 360,
                                  margin: {l: 70, r: 30, t: 50, b: 55}}, f.figure.layout);
      Plotly.newPlot(div, f.figure.data, layout, {responsive: true, displaylogo: false});
    });
    host.setAttribute("data-drawn", String(job.figures.length));
  }

  var st = box.getAttribute("data-status");
  if (st === "queued" || st === "running") {
    window.setTimeout(function () { get(progress); }, delay);
  } else if (st === "done") {
    get(draw);
  }
}());
