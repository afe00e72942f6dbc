/* Progressive enhancement only: every page works without this file. */
(function () {
  "use strict";

  /* ---- drag and drop onto the upload form ------------------------------------------------ */
  function routeFile(form, file) {
    var name = (file.name || "").toLowerCase();
    if (/\.py$/.test(name)) return form.querySelector("input[name=code]");
    if (/\.(md|markdown|txt|pdf)$/.test(name)) return form.querySelector("input[name=audit]");
    if (/\.(png|jpe?g)$/.test(name)) return form.querySelector("input[name=figure]");
    return null;
  }
  function assign(input, file) {
    try {
      var dt = new DataTransfer();
      dt.items.add(file);
      input.files = dt.files;
      input.dispatchEvent(new Event("change", { bubbles: true }));
      return true;
    } catch (e) { return false; }
  }
  document.querySelectorAll("form[data-dropform]").forEach(function (form) {
    form.querySelectorAll(".drop").forEach(function (zone) {
      var input = zone.querySelector("input[type=file]");
      var label = zone.querySelector(".chosen");
      input.addEventListener("change", function () {
        if (label) label.textContent = input.files.length ? input.files[0].name : "";
      });
      ["dragenter", "dragover"].forEach(function (ev) {
        zone.addEventListener(ev, function (e) { e.preventDefault(); zone.classList.add("over"); });
      });
      ["dragleave", "drop"].forEach(function (ev) {
        zone.addEventListener(ev, function () { zone.classList.remove("over"); });
      });
      zone.addEventListener("drop", function (e) {
        e.preventDefault();
        var files = Array.prototype.slice.call(e.dataTransfer.files || []);
        if (files.length === 1 && !routeFile(form, files[0])) { assign(input, files[0]); return; }
        files.forEach(function (f) { var target = routeFile(form, f) || input; assign(target, f); });
      });
    });
    form.addEventListener("submit", function () {
      var b = form.querySelector("button[type=submit]");
      if (b) { b.disabled = true; b.textContent = b.getAttribute("data-busy") || b.textContent; }
    });
  });

  /* ---- live status of a submission ------------------------------------------------------- */
  var live = document.getElementById("live");
  if (!live) return;
  var statusUrl = live.getAttribute("data-status-url");
  var resultUrl = live.getAttribute("data-result-url");
  var badge = live.querySelector("[data-badge]");
  var detail = live.querySelector("[data-detail]");
  var spinner = live.querySelector(".spinner");
  var labels = JSON.parse(live.getAttribute("data-labels") || "{}");
  var shownGraded = live.getAttribute("data-graded-run") || "";
  var delay = 1000, polls = 0, lastStatus = live.getAttribute("data-status");

  function render(s) {
    badge.className = "badge " + s.status;
    badge.textContent = labels[s.status] || s.status;
    live.setAttribute("data-status", s.status);
    var text = "";
    if (s.status === "queued") {
      text = s.queue_position === 0 ? labels.next : (labels.ahead || "").replace("%n", s.queue_position);
    } else if (s.status === "running") {
      text = labels.running_detail || "";
    } else if (s.status === "error") {
      text = s.reason || "";
    }
    detail.textContent = text;
    if (spinner) spinner.hidden = !(s.status === "queued" || s.status === "running");
  }
  function refreshResult() {
    return fetch(resultUrl, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (html === null) return;
        var box = document.getElementById("result");
        if (box) box.innerHTML = html;
      });
  }
  function tick() {
    fetch(statusUrl, { credentials: "same-origin", headers: { "Accept": "application/json" }, cache: "no-store" })
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); })
      .then(function (s) {
        render(s);
        var graded = s.graded_run_id ? String(s.graded_run_id) : "";
        var finished = s.status === "graded" || s.status === "error";
        if ((graded && graded !== shownGraded) || (finished && s.status !== lastStatus)) {
          shownGraded = graded;
          refreshResult();
        }
        lastStatus = s.status;
        if (finished) return;  // nothing more will change until someone regrades
        schedule();
      })
      .catch(function () { schedule(); });
  }
  function schedule() {
    polls += 1;
    if (polls > 20) delay = Math.min(delay * 1.5, 10000);  // 1 s for ~20 s, then slower
    setTimeout(tick, document.hidden ? Math.max(delay, 5000) : delay);
  }
  if (lastStatus === "queued" || lastStatus === "running") schedule();
})();
