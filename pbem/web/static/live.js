// The table follows its game: ask the server for the game's move number (a 304 while it
// is the page's own), and load the table again once it moved. Served from the site itself
// (the CSP allows no inline script). Bounded: every 3 s while the page is seen, every 30 s
// while it is hidden, slower after errors, and it stops after 30 minutes with no move and
// nobody at the page (the Refresh link still works).
(function () {
  "use strict";
  var box = document.getElementById("live");
  if (!box || !window.fetch) { return; }
  var FAST = 3000, HIDDEN = 30000, MAX_WAIT = 60000, IDLE = 30 * 60 * 1000;
  var tag = box.getAttribute("data-etag"), url = box.getAttribute("data-seq-url");
  var table = box.getAttribute("data-table-url");
  var wait = FAST, last = Date.now(), timer = null, asking = false;

  function busy() {  // a form half filled in must not be lost to a reload
    var a = document.activeElement;
    if (a && /^(INPUT|SELECT|TEXTAREA)$/.test(a.tagName) && a.type !== "hidden") { return true; }
    return Array.prototype.some.call(document.querySelectorAll("input[type=checkbox], input[name=order], input[name=text]"),
      function (i) { return i.checked || (i.type !== "checkbox" && i.value !== ""); });
  }

  // its words come with the page, in the page's language: data-say-following and the like
  function say(which) {
    var note = box.querySelector(".live-note");
    if (note) { note.textContent = box.getAttribute("data-say-" + which) || ""; }
  }

  function moved() {
    if (busy()) { say("moved"); schedule(FAST * 5); return; }
    window.location.replace(table);
  }

  function poll() {
    timer = null;
    if (asking) { return; }  // one question at a time
    if (Date.now() - last > IDLE) { say("stopped"); return; }
    asking = true;
    fetch(url, {headers: {"If-None-Match": tag}, cache: "no-store", credentials: "same-origin"})
      .then(function (r) {
        asking = false;
        if (r.status === 304) { wait = FAST; schedule(); return; }
        if (!r.ok) { throw new Error(String(r.status)); }
        if (r.headers.get("ETag") && r.headers.get("ETag") !== tag) { moved(); return; }
        wait = FAST; schedule();
      })
      .catch(function () { asking = false; wait = Math.min(MAX_WAIT, wait * 2); schedule(); });
  }

  function schedule(ms) {
    if (timer) { clearTimeout(timer); }
    timer = setTimeout(poll, ms || (document.hidden ? Math.max(HIDDEN, wait) : wait));
  }

  function awake() { last = Date.now(); if (!timer && !asking) { poll(); } }
  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) { last = Date.now(); schedule(100); }
  });
  ["click", "keydown", "scroll"].forEach(function (e) { document.addEventListener(e, awake); });
  say("following");
  schedule();
}());
