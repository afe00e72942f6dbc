/* Instructor pages: live regrade progress and similarity status. Progressive enhancement: the
   pages show the same data without this file after a reload. No inline scripts (CSP). */
(function () {
  "use strict";

  function poll(url, every, onData) {
    var stopped = false;
    function tick() {
      if (stopped) return;
      fetch(url, { credentials: "same-origin", headers: { "Accept": "application/json" } })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (data) {
          if (data && onData(data) === false) { stopped = true; return; }
          setTimeout(tick, every);
        })
        .catch(function () { setTimeout(tick, every * 2); });
    }
    setTimeout(tick, every);
  }

  function fmt(x) {
    if (x === null || x === undefined) return "—";
    var r = Math.round(x * 100) / 100;
    return String(r);
  }

  /* ---- regrade batch: progress bar, counts and each row's status and new score ---------------- */
  var batch = document.getElementById("batch-live");
  if (batch) {
    var bar = batch.querySelector("progress");
    var labels = JSON.parse(batch.getAttribute("data-labels") || "{}");
    poll(batch.getAttribute("data-url"), 1500, function (d) {
      var done = d.total - d.pending;
      if (bar) { bar.max = d.total || 1; bar.value = done; }
      Object.keys(d.counts).forEach(function (k) {
        var el = batch.querySelector("[data-count=" + k + "]");
        if (el) el.textContent = d.counts[k];
      });
      // nothing left to cancel once every run has been taken by a worker
      var cancel = batch.querySelector("[data-cancel-form]");
      if (cancel && !d.counts.queued) cancel.hidden = true;
      var ahead = batch.querySelector("[data-uploads-ahead]");
      if (ahead) ahead.textContent = d.uploads_ahead;
      var changed = document.querySelector("[data-changed]");
      if (changed) changed.textContent = d.changed.length ? d.changed.join(", ") : (labels.none || "");
      d.runs.forEach(function (r) {
        var row = document.querySelector("tr[data-run='" + r.run + "']");
        if (!row) return;
        var st = row.querySelector("[data-status]");
        if (st) { st.textContent = labels[r.status] || r.status; st.className = "badge " + r.status; }
        var nw = row.querySelector("[data-new]");
        if (nw) nw.textContent = fmt(r["new"]);
        // the grader version is known only once the run is stored: without it the column kept "—" until a reload
        var gv = row.querySelector("[data-grader]");
        if (gv) gv.textContent = r.grader || "—";
        var dl = row.querySelector("[data-delta]");
        if (dl) {
          dl.textContent = r.delta === null ? "—" : (r.delta > 0 ? "+" : "") + fmt(r.delta);
          dl.className = r.delta > 0 ? "diff-up" : (r.delta < 0 ? "diff-down" : "");
        }
      });
      if (d.pending === 0) { batch.setAttribute("data-done", "1"); return false; }
      return true;
    });
  }

  /* ---- similarity: reload once the queued report is done ------------------------------------- */
  var sim = document.getElementById("similarity-live");
  if (sim) {
    poll(sim.getAttribute("data-url"), 2000, function (d) {
      if (d.status === "done" || d.status === "error") { window.location.reload(); return false; }
      return true;
    });
  }

  /* ---- confirmation of destructive forms (drop a student) ------------------------------------ */
  document.querySelectorAll("form[data-confirm]").forEach(function (form) {
    form.addEventListener("submit", function (e) {
      if (!window.confirm(form.getAttribute("data-confirm"))) e.preventDefault();
    });
  });
})();

/* Open the attempt named in the address (#attempt-3): attempts are collapsed by default. */
(function () {
  "use strict";
  function openTarget() {
    var id = (window.location.hash || "").slice(1);
    var el = id && document.getElementById(id);
    if (el && el.tagName === "DETAILS") { el.open = true; el.scrollIntoView(); }
  }
  openTarget();
  window.addEventListener("hashchange", openTarget);
})();
