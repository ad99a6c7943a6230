// Progress of a background export: poll the job's JSON until it is done, failed or expired.
// A static file (no inline script): the pages are served under a Content Security Policy.
(function () {
  "use strict";
  var box = document.getElementById("export-job");
  if (!box) { return; }
  var url = box.getAttribute("data-json-url");
  var bar = document.getElementById("export-progress");
  var text = document.getElementById("export-text");
  var dl = document.getElementById("export-download");
  var link = document.getElementById("export-link");
  var delay = 1000;

  function show(job) {
    box.setAttribute("data-status", job.status);
    bar.value = job.percent;
    bar.textContent = job.percent + " %";
    text.textContent = job.text;
    if (job.download_url) {
      link.href = job.download_url;
      dl.hidden = false;
    }
    return job.status === "queued" || job.status === "running";
  }

  function poll() {
    fetch(url, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (r) { return r.json(); })
      .then(function (job) {
        if (show(job)) { window.setTimeout(poll, delay); }
      })
      .catch(function () {
        delay = Math.min(delay * 2, 15000);   // the server is away: back off, keep trying
        window.setTimeout(poll, delay);
      });
  }

  var st = box.getAttribute("data-status");
  if (st === "queued" || st === "running") { window.setTimeout(poll, delay); }
}());
