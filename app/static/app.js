/* Progressive enhancement only: every page works without this file. */
(function () {
  "use strict";

  /* ---- drag and drop onto the upload form ------------------------------------------------ */
  /* A file name as the server's type check reads it (grading/inputs._plain_name): the full-width
     "．ｐｙ" and the "。" an input method types are "." and "py", invisible format characters are
     dropped, and so are trailing dots and spaces (Windows opens "attention.py." as attention.py). */
  function plainName(name) {
    var s = String(name || "");
    if (s.normalize) s = s.normalize("NFKC");
    /* built at run time: a /\p{..}/u literal is a syntax error, for the whole file, in an old browser */
    try { s = s.replace(new RegExp("\\p{Cf}", "gu"), ""); } catch (e) { s = s.replace(/[\u200b-\u200f\u2060\ufeff]/g, ""); }
    return s.replace(/[\u3002\uff61]/g, ".").trim().replace(/[. ]+$/, "").toLowerCase();
  }
  function routeFile(form, file) {
    var name = plainName(file.name);
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
  /* Sentences said one after the other: a space after an English one, none after a Chinese full stop
     ("请先解压。 你选择的文件仍然保留着" had a stray space between two Chinese sentences). */
  var CJK_END = /[\u3000-\u303f\uff01-\uff1f]$/;   // a sentence ended by Chinese punctuation: no space after it
  function sentences(parts) {
    return parts.filter(Boolean).reduce(function (out, part) {
      return out && !CJK_END.test(out) ? out + " " + part : out + part;
    }, "");
  }
  function labelsOf(el) {
    try { return JSON.parse(el.getAttribute("data-labels") || "{}"); } catch (e) { return {}; }
  }
  function fill(text, values) {
    return String(text || "").replace(/%(\w+)/g, function (m, k) { return k in values ? values[k] : m; });
  }

  /* What the server would refuse, checked before anything is uploaded: an empty file, a wrong
     extension, files over the size limit, and no audit without a confirmation. The server checks
     all of it again; this only saves the student a wasted upload and keeps the chosen files. */
  function problems(form, labels) {
    var out = [], total = 0;
    form.querySelectorAll("input[type=file]").forEach(function (input) {
      var f = input.files && input.files[0];
      if (!f) return;
      total += f.size;
      var exts = (input.getAttribute("data-ext") || "").split(/\s+/).filter(Boolean);
      var name = plainName(f.name);
      if (exts.length && !exts.some(function (x) { return name.slice(-x.length) === x; })) {
        /* the server's own refusal of such a file when it has one (export a notebook, save Word as PDF) */
        var ext = (name.match(/\.[^.]+$/) || [""])[0];
        var advice = ((labels.advice || {})[input.name] || {})[ext];
        out.push(advice ? fill(labels.named || "%name: %text", { name: f.name, text: advice })
                        : fill(labels.ext, { name: f.name, allowed: exts.join(" ") }));
      } else if (f.size === 0) {
        out.push(fill(labels.empty, { name: f.name }));
      }
    });
    var max = parseInt(form.getAttribute("data-max-bytes") || "0", 10);
    if (max && total > max) {
      /* Round 37: 8 MiB and 12 bytes said "8.0 MiB; the limit is 8 MiB", as if within it. The size is rounded
         up and the limit down (to a tenth of a MiB), so a refused size always reads as over the limit. */
      var mib = function (n, round) { return String(round(n / 1048576 * 10) / 10); };
      var size = mib(total, Math.ceil);
      out.push(fill(labels.big, { size: size.indexOf(".") < 0 ? size + ".0" : size, limit: mib(max, Math.floor) }));
    }
    return out;
  }
  function needsAuditConfirmation(form) {
    var audit = form.querySelector("input[name=audit]");
    if (!audit) return false;  // an assignment without a written audit has no audit field
    if (audit.files && audit.files.length) return false;
    var remove = form.querySelector("input[name=remove_audit]");
    var kept = form.getAttribute("data-has-audit") && !(remove && remove.checked);
    if (kept) return false;
    var confirmBox = form.querySelector("input[name=confirm_no_audit]");
    return !(confirmBox && confirmBox.checked);
  }
  function showError(form, text) {
    var box = document.getElementById("upload-error");
    if (!box) return;
    box.textContent = text;
    box.hidden = !text;
    if (text) { box.setAttribute("tabindex", "-1"); box.focus(); }
  }

  /* Switching the language reloads the page: the files chosen on the upload form (and its boxes ticked) were
     gone, silently, in the other language. They are kept for that one switch in the browser's own storage
     (IndexedDB holds File objects; nothing is sent), put back into the form of the page in the new language,
     and the page says so; without IndexedDB the switch happens as before.
     Round 36b: a switch that landed on the sign-in page (the session had ended, or was signed out in another
     tab) left the entry behind, and the next user of that browser found the files in their own form. The
     entry now names the sign-in it was made in (the page's carry-key, a random value of that session, never
     the email) and the page; every page that loads takes it out of the store, and only the same form of the
     same sign-in puts it back. The sign-in page, and the page after signing in or out, drop it. */
  var CARRY_MS = 120000;
  function carryStore(done) {
    try {
      var req = window.indexedDB.open("autograder-upload-carry", 1);
      req.onupgradeneeded = function () { req.result.createObjectStore("carry"); };
      req.onsuccess = function () { done(req.result); };
      req.onerror = function () { done(null); };
    } catch (e) { done(null); }
  }
  function carryKey() {
    var meta = document.querySelector("meta[name=carry-key]");
    return meta ? meta.getAttribute("content") || "" : "";
  }
  function carryAcrossLanguage(form, index) {
    if (!window.indexedDB || !carryKey()) return;
    var inputs = form.querySelectorAll("input[type=file], input[type=checkbox]");
    document.querySelectorAll(".lang a[href]").forEach(function (link) {
      link.addEventListener("click", function (e) {
        var kept = { user: carryKey(), path: window.location.pathname, form: index, at: Date.now(), files: {}, checked: {} }, any = false;
        inputs.forEach(function (input) {
          if (input.type === "file" && input.files && input.files.length) { kept.files[input.name] = input.files[0]; any = true; }
          if (input.type === "checkbox" && input.checked) { kept.checked[input.name] = true; any = true; }
        });
        if (!any) return;
        e.preventDefault();
        var go = function () { window.location.assign(link.href); };
        carryStore(function (db) {
          if (!db) { go(); return; }
          try {
            var tx = db.transaction("carry", "readwrite");
            tx.objectStore("carry").put(kept, "form");
            tx.oncomplete = go;
            tx.onerror = go;
          } catch (err) { go(); }
        });
      });
    });
  }
  function restoreCarried(form) {
    var labels = labelsOf(form);
    return function (kept) {
      var names = [];
      Object.keys(kept.files || {}).forEach(function (name) {
        var input = form.querySelector("input[type=file][name=" + name + "]");
        if (input && assign(input, kept.files[name])) names.push(kept.files[name].name);
      });
      Object.keys(kept.checked || {}).forEach(function (name) {
        var box = form.querySelector("input[type=checkbox][name=" + name + "]");
        if (box) box.checked = true;
      });
      var confirmBox = form.querySelector("input[name=confirm_no_audit]:checked");
      var confirmBlock = document.getElementById("confirm-no-audit");
      if (confirmBox && confirmBlock) confirmBlock.hidden = false;
      var note = document.getElementById("carried-over");
      if (note && names.length) { note.textContent = fill(labels.carried_over, { names: names.join(labels.list_sep || ", ") }); note.hidden = false; }
    };
  }
  /* Every page: whatever was kept is taken out (one switch only); it goes back only into the form it came
     from, in the same sign-in, within CARRY_MS. */
  function takeCarried() {
    if (!window.indexedDB) return;
    var forms = document.querySelectorAll("form[data-dropform]");
    carryStore(function (db) {
      if (!db) return;
      try {
        var tx = db.transaction("carry", "readwrite"), store = tx.objectStore("carry"), req = store.get("form");
        req.onsuccess = function () {
          var kept = req.result;
          if (!kept) return;
          store.delete("form");
          var key = carryKey(), form = forms[kept.form];
          if (!key || kept.user !== key || kept.path !== window.location.pathname || !form) return;
          if (!(Date.now() - kept.at < CARRY_MS)) return;
          restoreCarried(form)(kept);
        };
      } catch (err) { /* the page as rendered */ }
    });
  }

  takeCarried();
  document.querySelectorAll("form[data-dropform]").forEach(function (form, formIndex) {
    var labels = labelsOf(form);
    var button = form.querySelector("button[type=submit]");
    var buttonText = button ? button.textContent : "";
    var syncs = [];
    form.querySelectorAll(".drop").forEach(function (zone) {
      var input = zone.querySelector("input[type=file]");
      var label = zone.querySelector(".chosen");
      function sync() {
        if (label) label.textContent = input.files.length ? input.files[0].name : "";
        var carried = zone.querySelector("[data-carried]");
        if (carried) carried.hidden = input.files.length > 0;
      }
      syncs.push(sync);
      input.addEventListener("change", sync);
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
        /* Each field takes one file: two dropped for one field (attention.py and test_attention.py)
           kept the last silently, so the other would have been graded. Say so and take neither. */
        var targets = [], groups = [];
        files.forEach(function (f) {
          var target = routeFile(form, f) || input, at = targets.indexOf(target);
          if (at < 0) { targets.push(target); groups.push([f]); } else { groups[at].push(f); }
        });
        var several = [];
        targets.forEach(function (target, i) {
          if (groups[i].length === 1) { assign(target, groups[i][0]); return; }
          several.push(groups[i].map(function (f) { return f.name; }).join(labels.list_sep || ", "));
        });
        /* the names listed with the page language's separators (zh: 、 and ；) */
        if (several.length) showError(form, fill(labels.several, { names: several.join(labels.group_sep || "; ") }));
      });
    });
    function busy(on) {
      if (!button) return;
      button.disabled = on;
      button.textContent = on ? (button.getAttribute("data-busy") || buttonText) : buttonText;
    }
    /* Back to this page: Chrome puts the files chosen before back into the inputs without a change
       event (the names beside them stayed empty, the "kept from attempt 1" line stayed up), and a page
       restored from the back/forward cache kept its button on "Uploading…" and its attempts list from
       before the upload. Labels follow the inputs as they are; a page whose upload went through is
       fetched again, with the new attempt listed and a fresh form. */
    var sent = false;
    syncs.forEach(function (sync) { sync(); });
    carryAcrossLanguage(form, formIndex);
    window.addEventListener("pageshow", function (e) {
      if (e.persisted && sent) { window.location.reload(); return; }
      busy(false);
      syncs.forEach(function (sync) { sync(); });
    });
    form.addEventListener("submit", function (e) {
      var found = problems(form, labels);
      if (found.length) { e.preventDefault(); showError(form, sentences(found)); return; }
      if (needsAuditConfirmation(form)) {
        e.preventDefault();
        var confirmBlock = document.getElementById("confirm-no-audit");
        if (confirmBlock) confirmBlock.hidden = false;
        showError(form, labels.confirm);
        return;
      }
      if (!window.fetch || !window.FormData) { busy(true); return; }  // plain form post
      /* Submit in the background: after a refusal the page stays as it is, files still chosen. */
      e.preventDefault();
      busy(true);
      showError(form, "");
      fetch(form.action, { method: "POST", body: new FormData(form), credentials: "same-origin",
                           headers: { "Accept": "text/html", "X-Upload": "fetch" } })
        .then(function (r) {
          if (r.status === 201) {
            return r.json().then(function (body) {
              /* the files are in attempt N now: Back must not offer them again, chosen, for attempt N+1 */
              sent = true;
              form.reset();
              window.location.assign(body.url);
            });
          }
          return r.text().then(function (html) {
            var doc = new DOMParser().parseFromString(html, "text/html");
            var msg = doc.getElementById("upload-error") || doc.getElementById("error-message");
            if (!(msg && msg.textContent.trim())) {
              /* A reply that is none of our pages (a proxy's 502 while the app restarts): it showed "502"
                 and "fix the problem", which is not the student's. The retry is safe: the form's token
                 makes an upload that did arrive count once (app/idempotency). */
              showError(form, fill(labels.unanswered, { status: r.status }));
              busy(false);
              return;
            }
            var text = msg.textContent.trim();
            var retry = doc.querySelector("[data-retry-after]");
            if (retry) text = sentences([text, retry.textContent.trim()]);
            if (doc.getElementById("confirm-no-audit") && !doc.getElementById("confirm-no-audit").hidden) {
              var confirmBlock = document.getElementById("confirm-no-audit");
              if (confirmBlock) confirmBlock.hidden = false;
            }
            /* a wait (the pause between attempts, too many pending, a rate limit) is no problem to fix */
            var wait = r.status === 429 || r.status === 503 || r.headers.get("Retry-After");
            showError(form, sentences([text, wait && labels.kept_wait ? labels.kept_wait : labels.kept]));
            busy(false);
          });
        })
        .catch(function () { showError(form, labels.failed); busy(false); });
    });
  });

  /* ---- times in the viewer's own time zone ------------------------------------------------- */
  var lang = document.documentElement.lang || undefined;
  function localTimes(root) {
    (root || document).querySelectorAll("time[data-local]").forEach(function (el) {
      var d = new Date(el.getAttribute("datetime"));
      if (isNaN(d)) return;
      var opts = el.getAttribute("data-local") === "short"
        ? { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" }
        : { weekday: "short", year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit",
            timeZoneName: "short" };
      try {
        el.title = el.textContent;  // the UTC time stays one hover away
        el.textContent = new Intl.DateTimeFormat(lang, opts).format(d);
      } catch (e) { /* keep the UTC text */ }
    });
  }
  localTimes();

  /* Deadline inputs take the course's zone (data-tz, labelled so; UTC without it) while every page
     shows times in the reader's zone: say what the typed time is there, as it is typed. */
  function zoneOffset(tz, ms) {  // ms since the epoch -> that instant's offset in tz, in ms
    var o = {};
    new Intl.DateTimeFormat("en-US", { timeZone: tz, hourCycle: "h23", year: "numeric", month: "2-digit",
      day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" }).formatToParts(new Date(ms))
      .forEach(function (p) { o[p.type] = p.value; });
    return Date.UTC(+o.year, o.month - 1, +o.day, +o.hour % 24, +o.minute, +o.second) - Math.floor(ms / 1000) * 1000;
  }
  function wallTime(v, tz) {  // "2026-12-10T23:59" typed in tz -> Date
    var m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?/.exec(v);
    if (!m) return null;
    var wall = Date.UTC(+m[1], m[2] - 1, +m[3], +m[4], +m[5], +(m[6] || 0));
    if (!tz) return new Date(wall);
    var t = wall - zoneOffset(tz, wall);
    return new Date(wall - zoneOffset(tz, t));
  }
  document.querySelectorAll("input[type=datetime-local][data-utc]").forEach(function (input) {
    var out = document.createElement("span");
    out.className = "small muted utc-local";
    out.setAttribute("data-utc-local", "");
    input.insertAdjacentElement("afterend", out);
    function update() {
      var v = input.value, d = null;
      try { d = v ? wallTime(v, input.getAttribute("data-tz")) : null; } catch (e) { d = null; }
      if (!d || isNaN(d)) { out.textContent = ""; return; }
      try {
        out.textContent = fill(input.getAttribute("data-utc"), { t: new Intl.DateTimeFormat(lang, {
          weekday: "short", year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit",
          timeZoneName: "short" }).format(d) });
      } catch (e) { out.textContent = ""; }
    }
    input.addEventListener("input", update);
    input.addEventListener("change", update);
    update();
  });
  document.querySelectorAll("[data-countdown]").forEach(function (el) {
    var end = new Date(el.getAttribute("data-countdown"));
    var labels = labelsOf(el);
    function update() {
      var left = (end - new Date()) / 1000;
      if (left > 0) {
        el.textContent = fill(labels.left, { d: Math.floor(left / 86400), h: Math.floor(left % 86400 / 3600),
                                             m: Math.floor(left % 3600 / 60) });
      } else {
        el.textContent = fill(labels.late, { n: Math.ceil(-left / 86400) });  // per started day
      }
    }
    if (!isNaN(end)) { update(); setInterval(update, 30000); }
  });
  /* The deadline passing while the upload form is open: the countdown turned to "late by 1 day" but
     the form said nothing of the penalty, or that no attempt is taken any more, until a reload or a
     refused upload. Say on the form what the server will apply (per started day, as app/scores). */
  document.querySelectorAll("[data-late-after]").forEach(function (el) {
    var end = new Date(el.getAttribute("data-late-after"));
    var allowed = parseInt(el.getAttribute("data-allowed") || "0", 10);
    var penalty = parseFloat(el.getAttribute("data-penalty") || "0");
    var labels = labelsOf(el);
    function update() {
      var late = (new Date() - end) / 1000;
      if (!(late > 0)) return;
      var days = Math.ceil(late / 86400);
      var text = days > allowed ? labels.closed
        : fill(labels.late, { d: days, p: Math.round(100 * days * penalty) });
      el.classList.toggle("error", days > allowed);
      if (el.textContent !== text) el.textContent = text;
      el.hidden = false;
    }
    if (!isNaN(end)) { update(); setInterval(update, 30000); }
  });

  /* ---- scrolling regions reachable by keyboard ----------------------------------------------
     A wide table or code block scrolls inside its card (phones); without a focusable element in
     it, keyboard users could not scroll it. Give such regions a tab stop and a name. */
  function focusableScrollers(root) {
    (root || document).querySelectorAll("main div, main pre, main table, main section, main ul").forEach(function (el) {
      var style = getComputedStyle(el);
      var scrolls = (/(auto|scroll)/.test(style.overflowX) && el.scrollWidth > el.clientWidth + 1) ||
                    (/(auto|scroll)/.test(style.overflowY) && el.scrollHeight > el.clientHeight + 1);
      if (!scrolls || el.hasAttribute("tabindex")) return;
      if (el.querySelector("a[href], button, input, select, textarea, [tabindex]")) return;
      el.setAttribute("tabindex", "0");
      if (!el.getAttribute("aria-label") && !el.getAttribute("role")) {
        var card = el.closest("section, .card");
        var heading = card && card.querySelector("h1, h2, h3, summary");
        el.setAttribute("role", "region");
        el.setAttribute("aria-label", heading ? heading.textContent.trim() : el.tagName.toLowerCase());
      }
    });
  }
  focusableScrollers();

  /* A load error's marked column can lie past a phone's width in its scrolling excerpt: the student saw
     the line's start and not the mark. Scroll the excerpt (never the page) so that the mark is in view. */
  function showMarkedColumns(root) {
    (root || document).querySelectorAll(".excerpt pre").forEach(function (pre) {
      var mark = pre.querySelector("mark.column");
      if (!mark || pre.scrollWidth <= pre.clientWidth + 1) return;
      var m = mark.getBoundingClientRect(), p = pre.getBoundingClientRect();
      if (m.left >= p.left && m.right <= p.right) return;
      pre.scrollLeft += m.left - p.left - p.width / 2;
    });
  }
  showMarkedColumns();
  var resizeTimer = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () { focusableScrollers(); showMarkedColumns(); }, 200);
  });

  /* ---- the assignment page's attempts, live ----------------------------------------------------------
     A new attempt's status changed only on a reload: the student who uploaded and went back to the list saw
     "queued" for good. Each attempt still queued or running is asked for its status (1 s, slower after 20
     polls, none while the tab is hidden); a change is shown in its badge and said once, and when one ends the
     card is fetched again (score, "counts", the comparison's choices kept as picked). */
  /* What the page fetches, in this page's language: another tab of the same session that switched the
     language made it come in the other one (English feedback under Chinese labels). */
  var pageLang = /^zh/i.test(document.documentElement.lang || "") ? "zh" : "en";
  function inPageLang(url) { return url + (url.indexOf("?") < 0 ? "?" : "&") + "lang=" + pageLang; }
  /* "Sign in again", back to this page: said where a live part of a page stopped because the session ended. */
  function signInLink(el, labels) {
    var link = document.createElement("a");
    link.href = (el.getAttribute("data-login-url") || "/login") + "?next=" + encodeURIComponent(window.location.pathname);
    link.textContent = labels.sign_in || "";
    return link;
  }
  /* What was seen when the server did not answer: an HTTP status (a proxy's page: a server restarting answers 502/503),
     offline, or no answer; said by the submission page and by the attempts list. */
  function whyDown(labels, status) {
    return status || (navigator.onLine === false ? labels.no_network : labels.no_answer);
  }
  /* Round 37: a request that never got an answer (a connection that died without a word, a proxy holding it)
     kept `checking` set, and every later poll was skipped: the badge said "queued" for good. Each request of
     the list gives up after LIMIT_MS (as the submission page's polls do), its body read included; round 43: the
     submission page's own question of who is signed in (refusedHere) too. */
  var LIMIT_MS = 15000;
  function fetchLimited(url, options, extraMs) {
    var ctrl = window.AbortController ? new AbortController() : null;
    if (ctrl) {
      options.signal = ctrl.signal;
      setTimeout(function () { ctrl.abort(); }, LIMIT_MS + (extraMs || 0));   // a no-op once the answer is read
    }
    return fetch(url, options);
  }
  /* Round 43: what an answer that failed says, read alike by the attempts card (round 42) and the submission page
     (which said a 403/404 as the server unreachable, and the app's 500 page as an outage). Resolves to
     { refused: 403 or 404 }: the app's own refusal, told by its JSON `code` (forbidden, not_found) or its error page
     (error.html: #error-message), final (round 42 mend); { erred: status, after: seconds or 0 }: the app's own 5xx
     (its JSON, e.g. its 503 database_unavailable, or its error page), an answer with an error, asked again on a
     back-off or its Retry-After; { down: "HTTP n" }: any other page (a proxy's: a deploy's, a misrouted request's, a
     server restarting), a failure to reach the app, asked again.
     Round 43 mend: a JSON 5xx is the app's only with a string `code` (error_response, api_error always send one): a
     gateway's {"message": "Internal server error"} is an outage. A 429 (the app's too_many_connections, a proxy's
     limit) is { busy: 429, after }: the service busy, asked again no sooner than its Retry-After. A Retry-After is
     held to RETRY_AFTER_MAX_S (a misconfigured day's wait would silence the page). */
  var RETRY_AFTER_MAX_S = 300;
  function retryAfterOf(r) {
    var after = parseInt(r.headers.get("Retry-After") || "", 10);
    return after > 0 ? Math.min(after, RETRY_AFTER_MAX_S) : 0;
  }
  function answerOf(r) {
    var status = r.status, json = (r.headers.get("Content-Type") || "").indexOf("json") >= 0;
    var after = retryAfterOf(r);
    var down = { down: "HTTP " + status };
    if (status === 429) return r.text().then(function () { return { busy: 429, after: after }; },
                                             function () { return { busy: 429, after: after }; });
    return r.text().then(function (body) {
      var own;
      if (!json) {
        own = !!new DOMParser().parseFromString(body, "text/html").getElementById("error-message");
      } else if (status >= 500) {
        try { own = typeof JSON.parse(body).code === "string"; } catch (e) { own = false; }
      } else {
        try { own = JSON.parse(body).code === (status === 404 ? "not_found" : "forbidden"); } catch (e) { own = false; }
      }
      if (!own) return down;
      return status >= 500 ? { erred: status, after: after } : { refused: status };
    }, function () { return down; });
  }
  /* Round 42 mend: the pages carry their sign-in's carry-key (base.html, new at each sign-in, its error page too):
     a page fetched under another sign-in (another account signed in in another tab of this browser) is told apart. */
  function signInOf(doc) {
    var meta = doc.querySelector('meta[name="carry-key"]');
    return meta ? meta.getAttribute("content") || "" : "";
  }
  var attemptsCard = document.querySelector("[data-attempts-live]");
  if (attemptsCard) watchAttempts(attemptsCard);
  function watchAttempts(card) {
    var labels = labelsOf(card), delay = 1000, polls = 0, timer = null, checking = false, stale = false, stopped = false;
    var attemptsUrl = card.getAttribute("data-attempts-url"), listTimer = null, listing = false;
    var listTag = card.getAttribute("data-attempts-tag") || null;   // the list as rendered (round 38)
    /* following: the server holds this tab's list request until the list changes (round 38), so the rows are not
       polled one by one meanwhile: one request at a time per tab. */
    var following = false;
    var said = document.createElement("p");
    said.className = "sr-only";
    said.setAttribute("aria-live", "polite");
    card.insertAdjacentElement("afterend", said);
    /* Round 36b: signed out in another tab, the status polls were sent to the sign-in page and asked again,
       forever, the badges still "queued". A poll answered with the sign-in page or a 401 (or, round 42, the app's
       403: this sign-in refused, asking again will not change it) stops the list, and the card says so. */
    function stop(text, signIn) {
      stopped = true;
      reachable();
      dropAppError();
      clearTimeout(timer);
      clearTimeout(listTimer);
      clearTimeout(cardTimer);
      var old = card.querySelector("[data-attempts-stopped]");
      if (old) old.remove();
      var note = sayOnCard("data-attempts-stopped", text + (signIn && !CJK_END.test(text) ? " " : ""));
      if (signIn) note.appendChild(signInLink(card, labels));
    }
    /* A note of the card's (attr names it), under its title: made once, its words set only when they change (each
       change is said again by assistive technology). */
    function sayOnCard(attr, text) {
      var note = card.querySelector("[" + attr + "]");
      if (!note) {
        note = document.createElement("p");
        note.className = "flash info";
        note.setAttribute("role", "status");
        note.setAttribute(attr, "");
        var title = card.querySelector("h2");
        if (title) title.insertAdjacentElement("afterend", note); else card.insertBefore(note, card.firstChild);
      }
      if (note.textContent !== text) note.textContent = text;
      return note;
    }
    /* Round 42: the app's own error page (a 500 it rendered, error.html) for the card was said as the server
       unreachable; the app answered, with an error: said as such (appErred), not as an outage, the card asked again
       on its back-off; the note goes when the card comes, or the page stops. */
    function appErred(status) {
      dropNote("data-attempts-busy");   // the latest answer only (a note kept as it is is not said again)
      sayOnCard("data-attempts-error", fill(labels.app_error, { status: status }));
    }
    /* Round 44: a 429 for the card (the service busy) waited its Retry-After unsaid, where the submission page says
       it (busy_result): said as the service busy, in place of the app's error, gone as that one goes. */
    function appBusy() {
      dropNote("data-attempts-error");
      sayOnCard("data-attempts-busy", labels.busy);
    }
    function dropNote(attr) {
      var note = card.querySelector("[" + attr + "]");
      if (note) note.remove();
    }
    function dropAppError() {
      dropNote("data-attempts-error");
      dropNote("data-attempts-busy");
    }
    /* Round 42 mend: any 403 or 404 stopped the list (or an attempt's following) for good, a proxy's page too (a
       deploy's, a misrouted request's): only the app's own refusal is final (answerOf); a proxy's is a failure to
       reach the server, asked again on the back-off. */
    /* The app refused the card or the list: a 403 says this sign-in was refused (the app answers a student's GET it
       may not see with a 404, so no cause is guessed, no "sign in again"), a 404 that the assignment is not found. */
    function refused(status) {
      stop(status === 403 ? fill(labels.forbidden, { status: status }) : labels.page_gone, false);
    }
    /* Round 42 mend: another account signed in in another tab of this browser (or this one signed in again) made the
       card fetched again show that sign-in's attempts, unsaid: a card of another sign-in (signInOf) is not shown, the
       page stops and says so. */
    /* Round 40: the server unreachable (no connection, no answer, a 5xx). The card says so, with what was seen (as
       the submission page does): its badges may be out of date, and the page keeps trying. The note goes when the
       server answers again.
       Round 40 mend: "down" is only what the app did not answer: a refused or dropped connection, no answer in time,
       a 5xx that is not the app's JSON (a proxy's page: the app answers a JSON request's errors in JSON, e.g. its 503
       database_unavailable, which is an answer, "not held" as in round 39). And one endpoint down is not the server
       down: the list's endpoint alone erring froze rows whose /status answered, a row's /status alone erring made
       the note come and go at each poll. The outage is said when the list and the rows are both down (or the one
       there is to ask); whichever answers ends it. listDownAt/listUpAt: when the list's last try was down/answered;
       rowsDownSince: since when every row asked was down (0: a row answered). */
    var outage = false, listDownAt = 0, listUpAt = 0, rowsDownSince = 0, downKind = "", probing = false;
    var listWaitDown = false;   // the list's last try down was a wait's 5xx page (see cardFailed)
    var rowsNotBefore = 0, rowsBusyTries = 0;   // a row's 429: its Retry-After, and the back-off's tries (rowsBusy)
    /* Round 41: a proxy answering 5xx to the waits alone, the plain tries answering: each plain try ended the outage
       its wait's 5xx began and the next wait began it again, the note coming and going at each try. Such a plain
       answer ends the outage (the next try is a wait, the rows are polled) and keeps the note (noteKept): it goes
       when a wait is answered (held, or answered at once by the app). */
    var noteKept = false;
    function unreachable(status) {   // status: "HTTP 502" when one came; else offline or no answer
      outage = true;
      clearTimeout(timer);
      dropAppError();   // one note says where things stand: the app's error seen before is not the latest news
      sayOnCard("data-attempts-down", fill(labels.unreachable, { why: whyDown(labels, status) }));
    }
    function reachable(keep) {
      outage = false;
      noteKept = !!keep;
      var note = card.querySelector("[data-attempts-down]");
      if (note && !keep) note.remove();
      /* the card not fetched meanwhile; its back-off kept (round 41 mend: reset here, a card failing alone while the
         waits failed was asked again each ~30 s for good) */
      if (stale && !stopped && !document.hidden) refreshCard();
    }
    /* Round 42: a row's /status answered 404 (the attempt deleted, or not this sign-in's: asking again will not
       change it) stopped the whole list; before round 36b it was asked again for good. Only that attempt stops being
       followed, said on the card, and the card is fetched again; the other rows go on. `goneIds`: such attempts, not
       polled again even when the card fetched again still lists them. */
    var goneIds = {};
    function forget(tr) {
      var n = tr.getAttribute("data-attempt");
      goneIds[tr.getAttribute("data-id")] = n;
      var ns = Object.keys(goneIds).map(function (id) { return goneIds[id]; });
      sayOnCard("data-attempts-gone", fill(ns.length > 1 ? labels.attempts_gone : labels.attempt_gone, {
        n: ns.join(labels.list_sep || ", ") }));
    }
    function pending() {
      return Array.prototype.filter.call(card.querySelectorAll("tr[data-status-url]"), function (tr) {
        if (goneIds.hasOwnProperty(tr.getAttribute("data-id"))) return false;
        var s = tr.getAttribute("data-status");
        return s === "queued" || s === "running";
      });
    }
    function schedule() {
      clearTimeout(timer);
      if (stopped || following || !pending().length || document.hidden) return;  // a stale card: its own back-off
      /* Round 40: during an outage the rows are not polled on their own (N rows were N requests at each try, beside
         the list's backed-off tries): the list's try is the page's one probe, and its answer polls them at once. A
         page without the list's URL probes with its rows, at the same backed-off pace. */
      if (outage) { if (!attemptsUrl) timer = setTimeout(check, retryDelay()); return; }
      polls += 1;
      if (polls > 20) delay = Math.min(delay * 1.5, 10000);
      timer = setTimeout(check, Math.max(delay, rowsNotBefore - Date.now()));
    }
    /* Mend round 44 (review RD, MED 3): a row's /status answered 429 (the service busy) was no answer, asked again at
       the next poll (26 times in the 30 s its Retry-After asked to wait), and nothing said. The rows now wait its
       Retry-After (held to RETRY_AFTER_MAX_S, as the card's), or their back-off when none came, and the card says the
       service is busy (appBusy) until a row or the card is answered. */
    function rowsBusy(answers) {
      var busy = answers.filter(function (s) { return s && s.busy; });
      if (!busy.length) {
        if (rowsBusyTries && !(cardNotBefore > Date.now())) dropNote("data-attempts-busy");
        rowsBusyTries = 0;
        return false;
      }
      var after = Math.max.apply(null, busy.map(function (s) { return s.after || 0; }));
      rowsNotBefore = Date.now() + Math.max(after * 1000, backoff(rowsBusyTries));
      rowsBusyTries = Math.min(rowsBusyTries + 1, 10);
      appBusy();
      return true;
    }
    function statusOf(tr) {
      return fetchLimited(inPageLang(tr.getAttribute("data-status-url")), {
        credentials: "same-origin", headers: { "Accept": "application/json" }, cache: "no-store" })
        .then(function (r) {
          var json = (r.headers.get("Content-Type") || "").indexOf("json") >= 0;
          if (r.status === 401 || (r.redirected && !json)) return { signedOut: true };
          if (r.status === 429) return answerOf(r);     // { busy: 429, after }: rowsBusy
          if (r.status === 403 || r.status === 404 || r.status >= 500) {
            /* a proxy's page: asked again (down); the app's 5xx (e.g. its 503 database_unavailable) is an answer,
               "not held" as in round 39, asked again at the next poll */
            return answerOf(r).then(function (a) {
              if (a.refused) return a.refused === 403 ? { forbidden: 403 } : { gone: tr };
              return a.down ? a : null;
            });
          }
          return r.ok && json ? r.json() : null;
        }, function () { return { down: true }; })
        .catch(function () { return null; });    // a body not read in time: asked again at the next poll
    }
    /* Round 41: the card fetched again (an attempt ended, a new score) that failed was asked again at each of the
       rows' polls, for good (each second, then each 10 s), and never counted toward the outage; one that failed
       when the list's answer asked for it was never asked again (the list's next answers were 304s: the badge said
       "graded", the score never came). A card not fetched stays `stale`, asked on its own back-off (cardTries, as
       the list's tries: 1-2 s, 2-4 s, ... then 60-70 s). Down as a row's /status can be (no answer in time, a 5xx
       page), it counts with the rows: the server is down when the list is too, and the list is asked to tell when
       it has not answered since (cardDownSince); the list answering, only the card's address errs, no note. During
       an outage it is not asked on its own: the server answering again asks it at once (reachable). */
    /* Round 41 mend: a card asked for while its fetch is under way (cardAgain) was dropped, yet that fetch may have
       been answered before the change that asked (a rescore): the score stayed as it was. It is fetched again once
       the one under way has brought the card (one that fails is asked again on its back-off, the change with it). */
    var cardTimer = null, cardTries = 0, carding = null, cardAgain = false, cardDownSince = 0, cardNotBefore = 0;
    function refreshCard() {
      if (stopped) return Promise.resolve(null);
      if (carding) { cardAgain = true; return carding; }
      clearTimeout(cardTimer);
      /* the app's Retry-After (cardFailed) holds for every asker (the list's news, the tab shown again) */
      var wait = cardNotBefore - Date.now();
      if (wait > 0) {
        stale = true;
        cardTimer = setTimeout(function () { if (!outage && !document.hidden) refreshCard(); }, wait);
        return Promise.resolve(null);
      }
      cardAgain = false;
      stale = true;
      carding = fetchLimited(inPageLang(window.location.pathname), { credentials: "same-origin",
                                                                headers: { "Accept": "text/html" }, cache: "no-store" })
        .then(function (r) {
          if (r.status === 401 || r.redirected) { stop(labels.signed_out, true); return null; }
          /* Round 42: a 403 or 404 (the app answers 404 to an assignment deleted, hidden, or not this sign-in's) was
             asked again about once a minute for good, the student told nothing: asking again will not change it.
             Round 42 mend: the app's (answerOf); a proxy's is a failure to reach it */
          if (r.status === 403 || r.status === 404 || r.status >= 500) {
            /* the app's own error page for a 5xx is an answer (erred, said by appErred); any other 5xx page is a
               proxy's. Round 42 mend: its Retry-After (a 503's) is the next try's wait */
            return answerOf(r).then(function (a) {
              if (a.refused) { refused(a.refused); return null; }
              return a;
            });
          }
          /* round 43 mend: a 429 (busy) is no outage; its Retry-After holds the next try (cardFailed) */
          if (r.status === 429) return answerOf(r);
          return r.ok ? r.text().catch(function () { return { down: true }; }) : null;   // a body not read in time
        }, function () { return { down: true }; })
        .then(function (html) {
          var doc = typeof html === "string" && new DOMParser().parseFromString(html, "text/html");
          var fresh = doc && doc.getElementById(card.id);
          if (html && html.erred) appErred(html.erred);
          if (html && html.busy) appBusy();
          if (!fresh) { cardFailed(html && html.down, html && html.after); return; }
          var mine = signInOf(document);
          if (mine && signInOf(doc) !== mine) {
            var goneNote = card.querySelector("[data-attempts-gone]");   // its 404s were the other sign-in's
            if (goneNote) goneNote.remove();
            stop(labels.other_sign_in, false);
            return;
          }
          stale = false;
          cardTries = 0;
          cardDownSince = 0;
          var chosen = {}, focus = focusKey(card), kept = card.querySelector("[data-attempts-gone]");
          card.querySelectorAll("select[name]").forEach(function (el) { chosen[el.name] = el.value; });
          card.innerHTML = fresh.innerHTML;
          /* the attempts no longer followed stay said (the card's new content has no note of the page's) */
          if (kept) sayOnCard("data-attempts-gone", kept.textContent);
          card.querySelectorAll("select[name]").forEach(function (el) {
            var keep = chosen[el.name];
            if (keep && Array.prototype.some.call(el.options, function (o) { return o.value === keep; })) el.value = keep;
          });
          localTimes(card);
          focusableScrollers(card);
          refocus(card, focus);
        })
        .catch(function () { /* the card in the page, a local time or the focus not set: not the server's doing */ })
        .then(function () {
          carding = null;
          if (cardAgain && !stale) return refreshCard();
        });
      return carding;
    }
    /* down: what was seen (true: no answer), as statusOf says it; else an answer without the card (a 4xx); after:
       the seconds the app's error page asked to wait (Retry-After), the next try not sooner */
    function cardFailed(down, after) {
      if (stopped) return;
      if (down) {
        if (!cardDownSince) cardDownSince = Date.now();
        /* Round 41 mend: counted with the list only when its last try down was not a wait's 5xx page (a proxy's
           limit on long requests, the plain tries answering): it made each card failure an outage, which the next
           plain answer ended with the wait's back-off reset, the note coming and going, the list asked each second.
           An outage on already keeps its kind and its reason. */
        if (outage) return;
        if (listDownAt > listUpAt && !listWaitDown) {
          downKind = "";
          unreachable(down === true ? undefined : down);
          return;
        }
        if (listUpAt < cardDownSince && !listing) {
          checkList(true);
        }
      }
      if (after) cardNotBefore = Date.now() + after * 1000;
      cardTimer = setTimeout(function () { if (!outage && !document.hidden) refreshCard(); },
                             Math.max(backoff(cardTries), (after || 0) * 1000));
      cardTries = Math.min(cardTries + 1, 10);
    }
    function check() {
      var rows = pending();
      if (checking || following || !rows.length) return;
      if (rowsNotBefore > Date.now()) { schedule(); return; }    // a 429's Retry-After holds every asker
      /* while the rows are down, or to tell whether the list's endpoint alone is, one row asks for all */
      if (outage || rowsDownSince || probing) rows = rows.slice(0, 1);
      probing = false;
      checking = true;
      Promise.all(rows.map(statusOf))
        .then(function (answers) {
          if (stopped) return null;    // answered after the page stopped (another sign-in): not this page's news
          var ended = false, news = [];
          var out = answers.filter(function (s) { return s && s.signedOut; })[0];
          var forbidden = answers.filter(function (s) { return s && s.forbidden; })[0];
          if (out) { stop(labels.signed_out, true); return null; }
          if (forbidden) { refused(forbidden.forbidden); return null; }
          /* every row asked down: the server is down when the list is too (its last try down, or asked now when it
             has not answered since the rows went down); the list answering, only these rows' statuses err, polled
             at their pace as before round 40 */
          var downs = answers.filter(function (s) { return s && s.down; });
          if (answers.length && downs.length === answers.length) {
            if (!rowsDownSince) rowsDownSince = Date.now();
            var why = downs.map(function (s) { return s.down; }).filter(function (w) { return w !== true; })[0];
            if (outage || !attemptsUrl || listDownAt > listUpAt) {
              if (!outage) downKind = "";
              unreachable(why);
            } else if (listUpAt < rowsDownSince && !listing) {
              checkList(true);
            }
            return null;
          }
          if (answers.length) {
            rowsDownSince = 0;
            if (outage) { reachable(); polls = 0; delay = 1000; }   // the server answers: the rows resume at once
          }
          rowsBusy(answers);   // the other rows' news still said
          /* the list as it is now is fetched (below): a deleted attempt's row goes. Round 42 mend: the other rows'
             news of the same poll are said first (an attempt graded was not said when another's row was gone) */
          var gone = answers.filter(function (s) { return s && s.gone; });
          gone.forEach(function (s) { forget(s.gone); });
          answers.forEach(function (s, i) {
            var tr = rows[i];
            if (!s || !s.status || s.status === tr.getAttribute("data-status")) return;
            var sentence = showStatus(tr, s.status);
            if (!backAsBefore(tr, s)) news.push(sentence);
            if (s.status === "graded" || s.status === "error") ended = true;
          });
          if (news.length) said.textContent = sentences(news);
          return ended || gone.length ? refreshCard() : null;
        })
        .catch(function () { /* asked again at the next poll */ })
        .then(function () { checking = false; schedule(); });
    }
    /* Whether an answer changes the row's graded run or score (its total, or null when it has none). */
    function rescoredOf(tr, s) {
      var shown = tr.getAttribute("data-total"), was = shown ? parseFloat(shown) : null;
      var total = typeof s.total === "number" ? s.total : null;
      return (total === null) !== (was === null) || (total !== null && Math.abs(total - was) > 0.005);
    }
    function regradedOf(tr, s) {
      return String(s.graded_run_id || "") !== (tr.getAttribute("data-graded-run") || "");
    }
    /* Round 37: a cancelled regrade run is deleted, and its attempt shows "graded" again, with the same graded
       run and score; said "Attempt n: graded." though nothing was graded again. A grading that ends graded
       always brings a new graded run, so "graded" with the row's graded run and score is said by nobody.
       Round 38: an attempt that ended in error and was regraded went back to "error" on a cancel, said "Attempt
       n: error."; a grading that ends always brings a new run, so a final status whose newest run is the row's
       last final run (data-final-run) is the regrade cancelled: said only when the score changed meanwhile. */
    function backAsBefore(tr, s) {
      if ((s.status === "graded" || s.status === "error") && s.run_id &&
          String(s.run_id) === (tr.getAttribute("data-final-run") || "")) return !rescoredOf(tr, s);
      return s.status === "graded" && !regradedOf(tr, s) && !rescoredOf(tr, s);
    }
    /* The new status in a row's badge, and the sentence that says it. */
    function showStatus(tr, status) {
      tr.setAttribute("data-status", status);
      var badge = tr.querySelector("[data-status-cell] .badge");
      if (badge) { badge.className = "badge " + status; badge.textContent = labels[status] || status; }
      return fill(labels.said, { n: tr.getAttribute("data-attempt"), status: labels[status] || status });
    }
    /* Round 37: the rows polled above are only those queued or running, so an instructor's regrade (or an
       override, an audit review) of a graded attempt showed its new score only after a reload. The whole list
       is checked once a minute while the tab is shown, one request for all rows (If-None-Match: a 304 when
       nothing changed), and at once when the tab is looked at again; a regrade queued makes its row polled as
       above, a new result or score fetches the card again. The list's answer never waits on the server: it
       takes none of the long-poll slots. */
    /* Round 38: a minute was how late a regrade's score showed. Once the list's tag is known, the list is asked
       with ?wait=LIST_WAIT_S: the server answers as soon as the list changes (or a 304 after the wait), and the
       next request goes at once. When it did not hold the request (X-Long-Poll other than "held": every slot
       taken, the server stopping, this user's other tabs already waiting, an error), the page goes back to one
       check a minute and to the rows' own polls, and tries to wait again at the next check. */
    var LIST_CHECK_MS = 60000, LIST_WAIT_S = 20, listSent = 0;
    /* Round 39: a wait the server did not hold (`now`: no slot free, another user's turn, the server stopping; an
       error, the server restarting or unreachable) was asked again only at the next minute's check, so a slot freed
       a second later went unused for a minute. The next try comes after LIST_RETRY_MS, doubled at each try not held
       up to LIST_CHECK_MS, each a random time between half of it and all of it (pages answered `now` together do not
       come back together): 1-2 s, 2-4 s, ... 16-32 s. A held wait starts it over. A 429 (this user's other tabs hold
       their waits) and any other 4xx keep the minute; round 42: the app's 403 or 404 (the assignment deleted or
       hidden) stop the list, a proxy's is tried again as its 5xx pages are.
       Round 39 mend: once backed off, each try comes 60-70 s after the last (LIST_CHECK_MS plus up to
       LIST_JITTER_MS): 30-60 s asked a page told `now` for good about 1.33 times as often as the minute before
       round 39. 70 s stays below longpoll.TURN_S (75 s), for which a user refused is still waiting for a turn. */
    var LIST_RETRY_MS = 2000, LIST_JITTER_MS = 10000, retries = 0;
    function backoff(tries) {
      var d = LIST_RETRY_MS * Math.pow(2, tries);
      if (d >= LIST_CHECK_MS) return LIST_CHECK_MS + Math.random() * LIST_JITTER_MS;
      return d / 2 + Math.random() * d / 2;
    }
    function retryDelay() {
      var d = backoff(retries);
      retries = Math.min(retries + 1, 10);
      return d;
    }
    /* This tab's id, the same on each of its pages (sessionStorage): the server ends the wait of a page the tab left
       (a link, the back button, a language switch), which it cannot see is gone, when the tab's next page waits.
       Round 39: a duplicated tab (or one opened by window.open) starts with a copy of the sessionStorage, so two live
       pages shared the id and each one's wait ended the other's, by turns. A page told its wait was superseded
       while it is still shown is such a twin: it takes an id of its own (and keeps it for its tab's next pages); a
       page being left (pagehide) reads no answer, so the tab keeps its id across its pages. */
    var TAB_KEY = "attempts-tab", tabId = "";
    function newTabId() {
      tabId = Math.random().toString(36).slice(2, 12) + Date.now().toString(36);
      try { window.sessionStorage.setItem(TAB_KEY, tabId); } catch (e) { /* kept for this page only */ }
    }
    try {
      tabId = window.sessionStorage.getItem(TAB_KEY) || "";
      if (!tabId) newTabId();
    } catch (e) { tabId = ""; }   // no storage: waits are not superseded (a left page's wait ends by itself)
    /* Round 40: a page put in the back/forward cache gets, once restored, the answer of the wait it had sent before it
       was left: `superseded`, ended by its tab's next page with the same id. Read after 'pageshow', it gave the tab a
       new id. Only a wait sent since the page was last shown can tell of a twin (`shown` counts the pagehides), and a
       restored page takes the tab's id as it is now (its next page may have taken one of its own). */
    var shown = 0;
    window.addEventListener("pagehide", function () { shown += 1; });
    window.addEventListener("pageshow", function (e) {
      if (!e.persisted) return;
      try { tabId = window.sessionStorage.getItem(TAB_KEY) || tabId; } catch (err) { /* the id this page had */ }
    });
    /* later: when the next check goes when no wait is held (LIST_CHECK_MS when not given) */
    function watchList(later) {
      clearTimeout(listTimer);
      if (stopped || !attemptsUrl || document.hidden) return;
      /* Round 39 mend: offline (navigator.onLine false) is asked too, at the backed-off pace its failures set: it
         is false on machines with no route but the loopback (Wi-Fi off, some VMs) while this server answers, and
         the list, which waited for an `online` event that never came, was not asked again. */
      /* following: the next wait at once, yet at most one request a second (a list that changes at each answer) */
      listTimer = setTimeout(checkList, following ? Math.max(0, listSent + 1000 - Date.now())
                                                  : (later === undefined ? LIST_CHECK_MS : later));
    }
    function follow(held) {
      if (following === held) return;
      following = held;
      if (!held) { polls = 0; delay = 1000; schedule(); }   // the rows queued or running polled again
    }
    function rounded(x) { return String(Math.round(x * 100) / 100); }
    function compareList(list) {
      var rows = {}, news = [], refresh = false, brisk = false;
      card.querySelectorAll("tr[data-id]").forEach(function (tr) { rows[tr.getAttribute("data-id")] = tr; });
      if (list.length !== Object.keys(rows).length) refresh = true;   // an attempt made in another tab
      list.forEach(function (s) {
        var tr = rows[String(s.id)];
        if (!tr) { refresh = true; return; }
        var total = typeof s.total === "number" ? s.total : null;
        var rescored = rescoredOf(tr, s), regraded = regradedOf(tr, s);
        if (s.status !== tr.getAttribute("data-status")) {
          var sentence = showStatus(tr, s.status);
          if (!backAsBefore(tr, s)) news.push(sentence);
          if (s.status === "queued" || s.status === "running") brisk = true; else refresh = true;
        }
        if (rescored || regraded) refresh = true;
        /* a first score comes with "graded", said above: "the score is now" only for a score that replaces one
           (round 38: the long poll brought a new attempt's end here, said twice) */
        if (rescored && total !== null && tr.getAttribute("data-total")) {
          news.push(fill(labels.rescored, { n: tr.getAttribute("data-attempt"), total: rounded(total),
                                            max: rounded(s.max_total) }));
        }
      });
      if (news.length) said.textContent = sentences(news);
      if (brisk) { polls = 0; delay = 1000; schedule(); }
      if (!refresh) return null;
      /* the card again, and its rows queued or running polled briskly (an attempt sent from another tab) */
      return refreshCard().then(function () { polls = 0; delay = 1000; schedule(); });
    }
    /* The list's try down (see `outage`): with rows to ask that have not been found down, they tell (polled again by
       follow(false)); during an outage one row is asked beside it (the list's endpoint alone may be the one down). */
    function listDown(waits, status) {
      listDownAt = Date.now();
      listWaitDown = !!(waits && status);
      if (outage) {
        /* a 5xx page: the list's endpoint may be down alone, the rows' answering; refused or no answer: the server */
        if (status && pending().length && !checking) check();
        return;
      }
      if (pending().length && !rowsDownSince) { probing = true; schedule(); return; }
      downKind = waits && status ? "wait" : "";   // a wait's 5xx (a proxy's limit on long requests?), not a refusal
      unreachable(status);
    }
    /* plain: a try that is not a wait (the rows down: does the list answer?) */
    function checkList(plain) {
      clearTimeout(listTimer);
      if (stopped || !attemptsUrl || listing) return;     // the request under way sets the next one
      if (checking) { listTimer = setTimeout(function () { checkList(plain); }, 1000); return; }
      listing = true;
      listSent = Date.now();
      var headers = { "Accept": "application/json" }, url = inPageLang(attemptsUrl), waits = false;
      if (listTag) {
        headers["If-None-Match"] = listTag;
        /* during an outage the try is not a wait: the server's answer comes at once (a held wait answered only when
           the list changed, or after LIST_WAIT_S, the card saying meanwhile that the server could not be reached) */
        if (!document.hidden && !outage && plain !== true) {
          url += "&wait=" + LIST_WAIT_S + (tabId ? "&tab=" + encodeURIComponent(tabId) : "");
          waits = true;
          following = true;          // no row polled beside the wait; its answer says whether it was held
          clearTimeout(timer);
        }
      }
      var later, sentShown = shown, wasDown = outage;   // later: the next check if no wait is held (undefined: a minute)
      fetchLimited(url, { credentials: "same-origin", headers: headers, cache: "no-store" },
                   waits ? LIST_WAIT_S * 1000 : 0)
        .then(function (r) {
          var json = (r.headers.get("Content-Type") || "").indexOf("json") >= 0;
          if (r.status === 401 || (r.redirected && !json)) { stop(labels.signed_out, true); return null; }
          /* Round 42: a 403 or 404 (the assignment deleted or hidden, or not this sign-in's) was asked again each
             minute for good, the student told nothing. Round 42 mend: the app's (answerOf); a proxy's is tried
             again as a proxy's 5xx page is */
          if (r.status === 403 || r.status === 404) {
            return answerOf(r).then(function (a) {
              if (a.refused) { refused(a.refused); return null; }
              return answered(r, json, true);
            });
          }
          return answered(r, json, false);
        }, function () {                            // no answer: refused, dropped, or none in time
          follow(false);
          later = retryDelay();
          listDown(waits);
          return null;
        })
        .then(function (body) { return body && !stopped ? compareList(body.attempts || []) : null; })
        .catch(function () { if (later === undefined) later = retryDelay(); })   // a body not read in time, a bad one
        .then(function () { listing = false; watchList(later); });
      /* proxys: a page not the app's (a 403 or 404 answerOf did not find the app's) */
      function answered(r, json, proxys) {
        var verdict = r.headers.get("X-Long-Poll");
        /* a twin tab's wait ended this one's; not a wait sent before a pagehide (the tab's next page ended it) */
        if (waits && verdict === "superseded" && sentShown === shown) newTabId();
        follow(waits && verdict === "held");
        if (proxys || (r.status >= 500 && !json)) {   // not the app's answer: a proxy's page
          later = retryDelay();
          listDown(waits, "HTTP " + r.status);
          return null;
        }
        listUpAt = Date.now();
        /* a plain try answering an outage a wait's 5xx page began keeps the note; a wait answered clears it */
        if (outage) reachable(downKind === "wait" && !waits);
        else if (noteKept && waits) reachable();
        if (following) retries = 0;
        else if (wasDown && !outage) {
          /* the server answers again (this answer brings the list as it is): the wait at once, whose answer says
             whether the rows are followed by it or polled. Round 40 mend: not when it was a wait's 5xx page that
             began the outage (a proxy's limit on long requests?): asked at once, waits and tries alternated each
             second, the note coming and going; the rows are asked at once, the wait on the back-off (not reset:
             only a held wait resets it) */
          rowsDownSince = 0;
          if (downKind !== "wait") retries = 0;
          if (listTag && downKind !== "wait") later = 0;
          else { polls = 0; delay = 1000; check(); if (listTag) later = retryDelay(); }
        } else if (r.status < 400 || r.status >= 500) later = retryDelay();   // other 4xx: the minute
        if (!r.ok || !json) return null;        // a 304: nothing changed; else asked again as set above
        listTag = r.headers.get("ETag");
        return r.json();
      }
    }
    /* Round 39: back online, the list is asked at once (it was at the next minute's check, or the backed-off try).
       Round 40: during an outage only the list is asked (its answer asks the rows), as on the tab shown again. */
    function askNow() {
      retries = 0;
      polls = 0;
      delay = 1000;
      cardTries = 0;
      if (stale && !outage) refreshCard();
      if (!outage || !attemptsUrl) check();
      checkList();
    }
    window.addEventListener("online", function () {
      if (stopped || document.hidden) return;
      askNow();
    });
    document.addEventListener("visibilitychange", function () {
      if (document.hidden) { clearTimeout(timer); clearTimeout(listTimer); clearTimeout(cardTimer); return; }
      if (stopped) return;
      askNow();
    });
    schedule();
    checkList();     // the long poll from the start: the page carries the list's tag
  }
  /* The control that had the keyboard focus in a block whose content is replaced, and the same control in the
     new content: the same id, the same named field, the same link target, else the same place among the
     block's controls (the live attempts list put the focus back on the page's body at every refresh). */
  var FOCUSABLE = "a[href], button, input, select, textarea, summary, [tabindex]";
  function focusKey(box) {
    var el = document.activeElement;
    if (!el || el === box || !box.contains(el)) return null;
    var all = Array.prototype.slice.call(box.querySelectorAll(FOCUSABLE));
    return { id: el.id, name: el.getAttribute("name"), href: el.getAttribute("href"), tag: el.tagName,
             index: all.indexOf(el) };
  }
  function refocus(box, key) {
    if (!key) return;
    var all = Array.prototype.slice.call(box.querySelectorAll(FOCUSABLE));
    var same = function (attr, value) {
      return value ? all.filter(function (el) { return el.tagName === key.tag && el.getAttribute(attr) === value; })[0] : null;
    };
    var el = (key.id && document.getElementById(key.id)) || same("name", key.name) || same("href", key.href) ||
      all[key.index];
    if (el && box.contains(el)) { try { el.focus({ preventScroll: true }); } catch (e) { el.focus(); } }
  }

  /* ---- live status of a submission ------------------------------------------------------- */
  var live = document.getElementById("live");
  if (!live) return;
  var statusUrl = live.getAttribute("data-status-url");
  var resultUrl = live.getAttribute("data-result-url");
  var badge = live.querySelector("[data-badge]");
  var detail = live.querySelector("[data-detail]");
  var spinner = live.querySelector(".spinner");
  var noWorkers = live.querySelector("[data-no-workers]");
  var labels = JSON.parse(live.getAttribute("data-labels") || "{}");
  var shownGraded = live.getAttribute("data-graded-run") || "";
  /* A result already on the page is watched after grading ends: an instructor's regrade (or an override,
     an audit review, an extension) changes it later, and the page kept the old score until a reload. The
     check is one status request a minute while the tab is shown, and one when it is looked at again. */
  var newer = live.querySelector("[data-newer]");
  var shownTotal = live.getAttribute("data-shown-total") ? parseFloat(live.getAttribute("data-shown-total")) : null;
  var FINAL_CHECK_MS = 60000, told = "";
  function tell(kind, text) {
    told = kind;
    if (!newer) return;
    newer.hidden = !text;
    if (newer.textContent !== text) newer.textContent = text;
  }
  var delay = 1000, polls = 0, lastStatus = live.getAttribute("data-status");
  function dropSubmittedBanner() {
    document.querySelectorAll("[data-until-final]").forEach(function (el) { el.remove(); });
  }
  if (lastStatus === "graded" || lastStatus === "error") dropSubmittedBanner();

  function points(x) { return typeof x === "number" ? String(Math.round(x * 100) / 100) : "—"; }
  /* The detail is the live region: rewritten on every poll (each second) with the same words, it was one
     DOM change per poll for assistive technology to pick up. Only a change of words is a change. */
  function say(text) {
    if (detail.textContent !== text) detail.textContent = text;
  }
  function render(s) {
    badge.className = "badge " + s.status;
    badge.textContent = labels[s.status] || s.status;
    live.setAttribute("data-status", s.status);
    var text = "";
    if (s.status === "queued") {
      text = s.queue_position === 0 ? labels.next : (labels.ahead || "").replace("%n", s.queue_position);
    } else if (s.status === "running" && s.stalled) {
      /* Mend round 48: no worker is known to grade this run (its worker is silent, or it outlived any task);
         "a worker is running the tests" was false. The server words what it checked. */
      text = s.stalled;
    } else if (s.status === "running") {
      text = labels.running_detail || "";
    } else if (s.status === "error") {
      text = s.reason || "";
    } else if (s.status === "graded" && typeof s.total === "number" && labels.done) {
      /* The detail is the page's live region: it said nothing when grading ended (the badge is not
         announced), so a screen-reader user waiting on the page never heard that the score was in. */
      text = fill(labels.done, { total: points(s.total), max: points(s.max_total) });
    }
    say(text);
    /* No grading worker alive while this attempt waits (round 48): said under the status, not in the live
       region, which keeps the queue position's words. */
    if (noWorkers) noWorkers.hidden = !(s.status === "queued" && s.workers_live === false);
    if (spinner) spinner.hidden = !(s.status === "queued" || s.status === "running");
  }
  /* The result block, fetched when grading ends. A fetch that failed (the connection dropped just then, a
     500) was dropped: the page said "Grading finished: 92 of 100" above the old block for good, since
     polling stops at the end. Say it, and fetch again until the block comes. */
  /* Retries back off (5 s doubling to 60 s) and wait while the tab is hidden ('visibilitychange' fetches
     again); a 4xx other than 408 (429: busy, answerOf) will not change by asking again, and a redirect is the sign-in page. */
  var pendingResult = null, resultTimer = null, latest = null, resultDelay = 5000;
  function refreshResult(s) {
    pendingResult = s;
    clearTimeout(resultTimer);
    var ctrl = window.AbortController ? new AbortController() : null;
    var guard = ctrl ? setTimeout(function () { ctrl.abort(); }, POLL_LIMIT_MS) : null;
    fetch(inPageLang(resultUrl), { credentials: "same-origin", headers: { "Accept": "text/html" },
                                   signal: ctrl ? ctrl.signal : undefined })
      .then(function (r) {
        clearTimeout(guard);
        if (r.status === 401 || (r.ok && r.redirected)) { pendingResult = null; signedOut(); return null; }
        /* Round 43: a 403 or 404 was said as the server unreachable and not asked again, a proxy's too; the app's
           500 page as an outage. The app's refusal is final (refusedHere), its error said as such (appErred) and
           asked again on the back-off or its Retry-After, a proxy's page asked again as an outage. */
        if (r.status === 403 || r.status === 404 || r.status === 429 || r.status >= 500) {
          return answerOf(r).then(function (a) {
            if (pendingResult !== s) return null;
            if (a.refused) { refusedHere(a.refused, function () { refreshResult(s); }); return null; }
            throw a;
          });
        }
        if (r.status >= 400 && r.status !== 408) {
          pendingResult = null;
          unreachable("HTTP " + r.status);
          return null;
        }
        if (!r.ok) throw { down: "HTTP " + r.status };
        return r.text();
      })
      .then(function (html) {
        if (html === null || pendingResult !== s) return;
        /* The result block and the grading history (app/templates/student/_result_parts.html): the history
           named the new run only after a reload. Round 43 mend: a 200 page without the result part (a captive
           portal's, a proxy's) was swapped in for good: it is not the app's answer, asked again as an outage. */
        var doc = new DOMParser().parseFromString(html, "text/html");
        var part = doc.querySelector("[data-part=result]"), history = doc.querySelector("[data-part=history]");
        if (!part) throw null;
        pendingResult = null;
        resultDelay = 5000;
        swapIn(document.getElementById("result"), part.innerHTML);
        if (history) swapIn(document.getElementById("history"), history.innerHTML);
        if (latest === s) render(s);  // the status again, where a failed fetch said the server could not be reached
      })
      .catch(function (e) {
        if (pendingResult !== s || stopped) return;
        clearTimeout(guard);
        /* e: what answerOf read ({ erred, after } or { down: "HTTP n" }), else no answer */
        var after = e && (e.erred || e.busy) ? e.after : 0;
        if (e && e.busy) say(labels.busy_result);
        else if (e && e.erred) say(fill(labels.app_error, { status: e.erred })); else unreachable(e && e.down);
        if (document.hidden) return;     // fetched again when the tab is looked at ('visibilitychange')
        resultTimer = setTimeout(function () { refreshResult(s); }, Math.max(resultDelay, after * 1000));
        resultDelay = Math.min(resultDelay * 2, 60000);
      });
  }
  /* New content in a block the student may be reading: the <details> they opened (the grader log, the tests
     not run) closed on every swap, and a focused summary lost its focus to the page. Both are carried over,
     matched by data-keep, else by the summary's words without its numbers. */
  function detailsKey(d) {
    var summary = d.querySelector("summary");
    return d.getAttribute("data-keep") || (summary ? summary.textContent.replace(/[\d\s]+/g, " ").trim() : "");
  }
  function swapIn(box, html) {
    if (!box) return;
    var open = {}, focused = null, active = document.activeElement;
    box.querySelectorAll("details").forEach(function (d) {
      if (d.open) open[detailsKey(d)] = true;
      if (active && d.contains(active)) focused = detailsKey(d);
    });
    box.innerHTML = html;
    box.querySelectorAll("details").forEach(function (d) {
      var key = detailsKey(d);
      if (open[key]) d.open = true;
      var summary = d.querySelector("summary");
      if (key === focused && summary) summary.focus();
    });
    localTimes(box);
    focusableScrollers(box);
    showMarkedColumns(box);
  }
  var timer = null, inflight = false, stopped = false, POLL_LIMIT_MS = 15000;
  /* What was seen when a poll fails, said in the live region instead of the last status as if it
     were current: offline, an HTTP status (a server restarting answers 502/503), or no answer. */
  function unreachable(status) {  // status: "HTTP 502" when one came; else offline or no answer
    say(fill(labels.unreachable, { why: whyDown(labels, status) }));
  }
  /* The page stops following the attempt and says why (signIn: with the way to sign in again). */
  function stopHere(text, signIn) {
    stopped = true;
    pendingResult = null;
    clearTimeout(timer);
    clearTimeout(resultTimer);
    if (spinner) spinner.hidden = true;
    detail.textContent = text + (signIn && !CJK_END.test(text) ? " " : "");
    if (signIn) detail.appendChild(signInLink(live, labels));
  }
  function signedOut() {
    /* the poll was sent to the sign-in page: nothing will update until the student signs in again */
    stopHere(labels.signed_out || "", true);
  }
  /* Round 43: the app refused this attempt's status or result (answerOf): a 404 when staff deleted it, or when this
     browser is now signed in as someone else (another tab), a 403 when this sign-in may not see it. Asking again will
     not change it: the page stops. Which it is, is asked of the app once: this page fetched again answers under the
     sign-in now in this browser (its carry-key, signInOf), or sends to the sign-in page when the session ended. */
  /* Round 43 mend: again (the refused request's next try): a 404 whose check finds this very attempt's page under the
     same sign-in was passing (the app answering again), not a deletion: the page goes on, up to TRANSIENT_404S times
     in a row. The spinner stops while the check waits (the old status stays, no longer followed). */
  var transient404s = 0, TRANSIENT_404S = 3;
  function refusedHere(status, again) {
    if (stopped) return;
    stopped = true;
    pendingResult = null;
    clearTimeout(timer);
    clearTimeout(resultTimer);
    if (spinner) spinner.hidden = true;
    var said = function () {
      stopHere(status === 403 ? fill(labels.forbidden, { status: status }) : labels.gone, false);
    };
    fetchLimited(inPageLang(window.location.pathname), { credentials: "same-origin", headers: { "Accept": "text/html" },
                                                         cache: "no-store" })
      .then(function (r) {
        if (r.status === 401 || r.redirected) { signedOut(); return; }
        return r.text().then(function (html) {
          var doc = new DOMParser().parseFromString(html, "text/html");
          var mine = signInOf(document), now = signInOf(doc);
          /* a page without a carry-key (a proxy's) tells nothing: the refusal is said as seen */
          if (mine && now && now !== mine) { stopHere(labels.other_sign_in, false); return; }
          if (status === 404 && r.ok && mine && now === mine && doc.getElementById("live") && again &&
              transient404s < TRANSIENT_404S) {
            transient404s += 1;
            stopped = false;
            if (spinner) spinner.hidden = !(lastStatus === "queued" || lastStatus === "running");
            again();
            return;
          }
          said();
        });
      })
      .catch(said);      // not told: the refusal, as seen
  }
  /* Round 43: the app's own 5xx for the status (its JSON, e.g. a 503 database_unavailable) was said as the server
     unreachable, asked again each second: said as the service's error, asked again on a back-off (5 s doubling to
     60 s, as the result's) or the Retry-After it sent. */
  var errDelay = 5000;
  function appErred(status, after, busy) {
    say(busy ? labels.busy_status : fill(labels.status_error, { status: status }));
    clearTimeout(timer);
    var final = lastStatus === "graded" || lastStatus === "error";     // a final page's check: no faster
    /* round 43 mend: a final page checks only while shown (watchFinal); the tab hidden meanwhile asked once a
       minute in the background. Showing it again checks at once ('visibilitychange'). */
    if (final && document.hidden) return;
    timer = setTimeout(tick, Math.max(errDelay, after * 1000, final ? FINAL_CHECK_MS : 0));
    errDelay = Math.min(errDelay * 2, 60000);
  }
  function tick() {
    clearTimeout(timer);
    if (inflight || stopped) return;
    inflight = true;
    /* A poll that never gets an answer (a connection that died without a word, as after a laptop's sleep,
       or a proxy holding it) kept `inflight` set: the page froze on its last status for good, and the
       'online' and visibility polls were skipped as already running. Give each poll POLL_LIMIT_MS. */
    var ctrl = window.AbortController ? new AbortController() : null;
    var guard = ctrl ? setTimeout(function () { ctrl.abort(); }, POLL_LIMIT_MS) : null;
    function done() { clearTimeout(guard); inflight = false; }
    fetch(inPageLang(statusUrl), { credentials: "same-origin", headers: { "Accept": "application/json" },
                                   cache: "no-store", signal: ctrl ? ctrl.signal : undefined })
      .then(function (r) {
        var type = r.headers.get("Content-Type") || "";
        if (r.status === 401 || (r.ok && type.indexOf("json") < 0 && r.redirected)) { signedOut(); return null; }
        if (r.status === 403 || r.status === 404 || r.status === 429 || r.status >= 500) {
          return answerOf(r).then(function (a) {
            if (a.refused) refusedHere(a.refused, schedule);
            else if (a.erred || a.busy) return a;
            else unreachable(a.down);     // a proxy's page: asked again
            return null;
          });
        }
        if (!r.ok) { unreachable("HTTP " + r.status); return null; }
        return r.json();
      }, function () {
        unreachable();
        return null;
      })
      .then(function (s) {
        done();
        if (stopped) return;
        if (s && (s.erred || s.busy)) { appErred(s.erred, s.after, s.busy); return; }
        if (s === null) { schedule(); return; }
        errDelay = 5000;
        transient404s = 0;
        latest = s;
        render(s);
        var graded = s.graded_run_id ? String(s.graded_run_id) : "";
        var total = typeof s.total === "number" ? s.total : null;
        var finished = s.status === "graded" || s.status === "error";
        var scores = { total: points(s.total), max: points(s.max_total), was: points(shownTotal) };
        if (shownGraded && !finished) {
          tell("regrading", labels.regrading);  // graded before, graded again now: the old result stays until then
        } else if (shownGraded && graded && graded !== shownGraded) {
          tell("newer", fill(labels.newer_grade, scores));
        } else if (shownGraded && graded === shownGraded && total !== shownTotal) {
          tell("changed", fill(labels.score_changed, scores));
        } else if (told === "regrading") {
          tell("", "");                         // that grading ended without a new result (the status says why)
        }
        if ((graded && graded !== shownGraded) || (finished && s.status !== lastStatus) ||
            (graded && total !== shownTotal)) {
          shownGraded = graded;
          shownTotal = total;
          refreshResult(s);
        }
        lastStatus = s.status;
        if (finished) { dropSubmittedBanner(); watchFinal(); return; }
        schedule();
      })
      .catch(function () {
        done();
        unreachable();
        schedule();
      });
  }
  /* Once final: one status request a minute while the tab is shown; none while it is hidden (looking at it
     again checks at once, 'visibilitychange'). A status back to queued or running polls briskly again. */
  function watchFinal() {
    clearTimeout(timer);
    polls = 0;
    delay = 1000;
    if (!document.hidden) timer = setTimeout(tick, FINAL_CHECK_MS);
  }
  function schedule() {
    if (lastStatus === "graded" || lastStatus === "error") { watchFinal(); return; }  // a failed check: no faster
    polls += 1;
    if (polls > 20) delay = Math.min(delay * 1.5, 10000);  // 1 s for ~20 s, then slower
    clearTimeout(timer);
    timer = setTimeout(tick, document.hidden ? Math.max(delay, 5000) : delay);
  }
  /* The connection back, or the tab looked at again after minutes in the background: the next poll
     could be 10 s away, with a stale status on the page meanwhile. Poll now, and briskly again. */
  function now() {
    if (document.hidden) {
      // Hidden while a final page waits for its minute's check: no check until it is shown again (review of
      // round 35: the check scheduled while shown still fired once in the background).
      if (lastStatus === "graded" || lastStatus === "error") clearTimeout(timer);
      return;
    }
    if (pendingResult) { refreshResult(pendingResult); return; }
    if (stopped) return;
    polls = 0;
    delay = 1000;
    tick();
  }
  window.addEventListener("online", now);
  document.addEventListener("visibilitychange", now);
  if (lastStatus === "queued" || lastStatus === "running") schedule();
  else if (lastStatus === "graded" || lastStatus === "error") watchFinal();
})();
