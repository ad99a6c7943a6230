// A network job's steps as they happen: poll the job's JSON until it is done or failed.
// A static file (no inline script): the pages are served under a Content Security Policy.
(function () {
  "use strict";
  var box = document.getElementById("network-job");
  if (!box) { return; }
  var url = box.getAttribute("data-json-url");
  var steps = document.getElementById("job-steps");
  var status = document.getElementById("job-status");
  var wait = document.getElementById("job-wait");
  var error = document.getElementById("job-error");
  var links = document.getElementById("job-links");
  var delay = 500;

  function show(job) {
    box.setAttribute("data-status", job.status);
    status.textContent = job.status;
    status.className = "badge " + (job.status === "done" ? "ok" : job.status === "failed" ? "bad" : "muted");
    wait.hidden = job.status !== "queued";
    steps.textContent = "";
    job.steps.forEach(function (s) {
      var li = document.createElement("li");
      li.className = s.state;
      var at = document.createElement("span");
      at.className = "muted small";
      at.textContent = s.at.slice(11, 23) + " ";
      li.appendChild(at);
      li.appendChild(document.createTextNode(s.text));
      steps.appendChild(li);
    });
    error.textContent = job.error;
    error.hidden = !job.error;
    links.textContent = "";
    job.links.forEach(function (l, i) {
      if (i) { links.appendChild(document.createTextNode(" · ")); }
      var a = document.createElement("a");
      a.href = l.url;
      a.textContent = l.text;
      links.appendChild(a);
    });
    return job.status === "queued" || job.status === "running";
  }

  function poll() {
    fetch(url, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (r) { return r.json(); })
      .then(function (job) { if (show(job)) { window.setTimeout(poll, delay); } })
      .catch(function () {
        delay = Math.min(delay * 2, 15000);   // the server is away: back off, keep trying
        window.setTimeout(poll, delay);
      });
  }

  var st = box.getAttribute("data-status");
  if (st === "queued" || st === "running") { window.setTimeout(poll, delay); }
}());
