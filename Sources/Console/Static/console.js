// PushLedger console: small progressive enhancements. Every page works without this file.
(function () {
  "use strict";

  // Times: the server writes UTC; show them in the browser's zone, with UTC on hover.
  function localTimes() {
    document.querySelectorAll("time[datetime]").forEach(function (el) {
      var d = new Date(el.getAttribute("datetime"));
      if (isNaN(d.getTime())) return;
      el.title = "UTC: " + el.getAttribute("datetime");
      el.textContent = d.toLocaleString(undefined, {
        year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit",
        timeZoneName: "short"
      });
    });
  }

  // Auto-refresh while a push is sending, unless the user is typing in a field.
  function autoRefresh() {
    var seconds = parseInt(document.body.getAttribute("data-autorefresh") || "0", 10);
    if (!seconds) return;
    setInterval(function () {
      var a = document.activeElement;
      if (a && (a.tagName === "INPUT" || a.tagName === "TEXTAREA" || a.tagName === "SELECT")) return;
      window.location.reload();
    }, seconds * 1000);
  }

  // Per-platform tabs on the send form: without the script every panel is simply shown.
  function tabs() {
    document.querySelectorAll("[data-tabs]").forEach(function (box) {
      var panels = Array.prototype.slice.call(box.querySelectorAll(".tabpanel"));
      var list = document.createElement("div");
      list.setAttribute("role", "tablist");
      list.className = "tablist";
      var buttons = panels.map(function (panel, i) {
        var b = document.createElement("button");
        b.type = "button";
        b.setAttribute("role", "tab");
        b.id = "tab-" + i;
        b.textContent = panel.getAttribute("data-tab");
        panel.setAttribute("role", "tabpanel");
        panel.setAttribute("aria-labelledby", b.id);
        b.addEventListener("click", function () { select(i); });
        b.addEventListener("keydown", function (e) {
          if (e.key === "ArrowRight") { select((i + 1) % panels.length); buttons[(i + 1) % panels.length].focus(); }
          if (e.key === "ArrowLeft") {
            var j = (i + panels.length - 1) % panels.length; select(j); buttons[j].focus();
          }
        });
        list.appendChild(b);
        return b;
      });
      function select(n) {
        panels.forEach(function (p, i) { p.hidden = i !== n; });
        buttons.forEach(function (b, i) {
          b.setAttribute("aria-selected", i === n ? "true" : "false");
          b.tabIndex = i === n ? 0 : -1;
        });
      }
      box.insertBefore(list, box.firstChild);
      select(0);
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    localTimes();
    autoRefresh();
    tabs();
  });
})();
