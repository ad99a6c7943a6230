// The analysis form: series are chosen with the traffic page's picker (traffic/picker.js) and shown
// by name; the form sends their ids (s=, with=s:ID or with=x:ID), which nobody has to type.
// A static file (no inline script): the pages are served under a Content Security Policy.
(function () {
  "use strict";
  var form = document.getElementById("analysis-form");
  if (!form || !window.cellarPicker) { return; }
  var el = function (id) { return document.getElementById(id); };
  var MAX_SERIES = 12;          // webapp/analysis/params.py MAX_SERIES: a sum of at most 12
  var picked = JSON.parse(el("analysis-picked").textContent);
  var chosen = picked.s;        // [{id, label}]
  var second = picked["with"];  // {kind: "s"|"x", id, label} or null
  var forWith = false;          // what a click in the picker chooses

  function chip(label, remove) {
    var c = document.createElement("span");
    c.className = "chip";
    c.appendChild(document.createTextNode(label));
    var x = document.createElement("button");
    x.type = "button";
    x.title = "remove";
    x.setAttribute("aria-label", "remove " + label);
    x.textContent = "×";
    x.addEventListener("click", remove);
    c.appendChild(x);
    return c;
  }

  function render() {
    var box = el("picked-s");
    box.textContent = "";
    chosen.forEach(function (s) {
      box.appendChild(chip(s.label, function () {
        chosen = chosen.filter(function (x) { return x.id !== s.id; });
        render();
      }));
    });
    if (!chosen.length) {
      box.innerHTML = '<span class="muted">No series chosen: pick them below (several are analysed as their sum).</span>';
    } else if (chosen.length > 1) {
      box.appendChild(document.createTextNode(" summed"));
    }
    var w = el("picked-with");
    w.textContent = "";
    if (second) {
      w.appendChild(chip(second.label, function () { second = null; el("with-external").value = ""; render(); }));
    } else {
      w.innerHTML = '<span class="muted">No second series: choose “the series to correlate with” and pick one, or an imported one.</span>';
    }
    el("analysis-s").value = chosen.map(function (s) { return s.id; }).join(",");
    el("analysis-with").value = second ? second.kind + ":" + second.id : "";
    picker.refresh();
  }

  function isSelected(id) {
    return forWith ? !!(second && second.kind === "s" && second.id === id)
      : chosen.some(function (s) { return s.id === id; });
  }

  function toggle(s) {
    if (forWith) {
      second = isSelected(s.id) ? null : {kind: "s", id: s.id, label: s.label};
      el("with-external").value = "";
    } else if (isSelected(s.id)) {
      chosen = chosen.filter(function (x) { return x.id !== s.id; });
    } else if (chosen.length < MAX_SERIES) {
      chosen.push({id: s.id, label: s.label});
    }
    render();
  }

  function mode(toWith) {
    forWith = toWith;
    el("pick-s").checked = !toWith;
    el("pick-with").checked = toWith;
    picker.refresh();
  }

  var picker = window.cellarPicker.mount({
    search: el("picker-search"), results: el("picker-results"), tree: el("picker-tree"),
    isSelected: isSelected, toggle: toggle,
    open: chosen.concat(second && second.kind === "s" ? [second] : []).map(function (s) { return s.label.split(" ")[0]; })
  });
  el("pick-s").addEventListener("change", function () { mode(false); });
  el("pick-with").addEventListener("change", function () { mode(true); });
  el("with-external").addEventListener("change", function () {
    var opt = el("with-external").selectedOptions[0];
    second = opt && opt.value ? {kind: "x", id: Number(opt.value), label: opt.textContent + " (external)"} : null;
    render();
  });
  render();
}());
