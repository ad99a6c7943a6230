/* Times in the viewer's zone (their setting at /me/, else the site's CELLAR_TIME_ZONE), for the
   traffic page. The server draws the figure in that zone; here: the status line, the tables, the
   from/to inputs and the zoom window, converted to and from UTC (the URL keeps UTC, ISO 8601 Z).
   Intl.DateTimeFormat knows the zones (the browser's tz database); no library needed. */
(function () {
  "use strict";
  var node = document.getElementById("traffic-state");
  var zone = (node && JSON.parse(node.textContent).zone) || "UTC";
  var utc = zone === "UTC" || zone === "Etc/UTC";
  var parts = new Intl.DateTimeFormat("en-US", {timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit",
    day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short"});

  function fields(ms) {
    var f = {};
    parts.formatToParts(new Date(ms)).forEach(function (p) { f[p.type] = p.value; });
    return f;
  }

  function offsetMs(ms) {   // the zone's offset from UTC at instant ms
    var f = fields(ms);
    var wall = Date.UTC(+f.year, +f.month - 1, +f.day, +f.hour % 24, +f.minute, +f.second);
    return wall - Math.floor(ms / 1000) * 1000;
  }

  function wallText(ms, seconds) {   // "2026-11-22 11:00[:15]" of the zone
    var t = new Date(ms + offsetMs(ms)).toISOString().replace("T", " ");
    return seconds ? t.slice(0, 19) : t.slice(0, 16);
  }

  function abbrev(ms) {
    if (utc) return "UTC";
    var name = fields(ms).timeZoneName || zone;
    return /^GMT[+-]/.test(name) ? zone : name;
  }

  window.cellarZone = {
    zone: zone,
    isUtc: utc,
    // ISO (UTC) -> "2026-11-22 11:00:15 CET"
    local: function (iso, withZone) {
      var ms = Date.parse(iso);
      if (isNaN(ms)) return iso;
      var sec = new Date(ms).getUTCSeconds() !== 0;
      return wallText(ms, sec) + (withZone === false ? "" : " " + abbrev(ms));
    },
    // ISO (UTC) -> the text of a from/to input, in the zone
    toInput: function (iso) { return iso ? wallText(Date.parse(iso), new Date(Date.parse(iso)).getUTCSeconds() !== 0) : ""; },
    // a wall-clock text of the zone ("2026-11-22 10:15[:30[.123]]", an input or Plotly's axis) -> ISO UTC
    toIso: function (text) {
      var t = String(text).trim().replace(" ", "T");
      if (!t) return null;
      if (/[zZ]$|[+-]\d\d:?\d\d$/.test(t.slice(10))) return t;   // has its own offset
      if (t.length === 10) t += "T00:00:00";
      if (t.length === 16) t += ":00";
      var wall = Date.parse(t.replace(/(\.\d{3})\d*$/, "$1") + "Z");
      if (isNaN(wall)) return null;
      var ms = wall - offsetMs(wall);
      ms = wall - offsetMs(ms);
      return new Date(ms).toISOString().replace(".000Z", "Z");
    },
    label: function () { return utc ? "UTC" : zone; }
  };
})();
