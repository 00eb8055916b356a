// Turn alerts on this device (issue 35): register the site's service worker (/sw.js),
// subscribe with the site's VAPID key when the player presses the button, and post the
// subscription in the page's own form (a plain POST with its CSRF key, answered by a
// redirect). Served from the site itself: the CSP allows no inline script. Where the
// browser cannot push, the box stays hidden and nothing runs.
(function () {
  "use strict";
  var box = document.getElementById("push");
  if (!box || !("serviceWorker" in navigator) || !("PushManager" in window) ||
      !("Notification" in window)) { return; }
  var on = box.querySelector("form.push-on"), off = box.querySelector("form.push-off");
  var note = box.querySelector(".push-note");

  function say(which) { note.textContent = box.getAttribute("data-say-" + which) || ""; }

  function key() {  // base64url to bytes, as PushManager.subscribe takes it
    var text = box.getAttribute("data-key").replace(/-/g, "+").replace(/_/g, "/");
    var raw = window.atob(text + "===".slice((text.length + 3) % 4));
    var out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) { out[i] = raw.charCodeAt(i); }
    return out;
  }

  function send(reg) {
    return reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key() })
      .then(function (sub) {
        var j = sub.toJSON();
        on.elements.endpoint.value = j.endpoint;
        on.elements.p256dh.value = j.keys.p256dh;
        on.elements.auth.value = j.keys.auth;
        on.submit();  // no submit event: this handler does not run again
      });
  }

  function wire(reg, sub) {
    box.hidden = false;
    if (sub) {
      on.hidden = true;
      off.hidden = false;
      off.elements.endpoint.value = sub.endpoint;
    }
    on.addEventListener("submit", function (e) {
      e.preventDefault();
      Notification.requestPermission().then(function (answer) {
        if (answer !== "granted") { say("blocked"); return null; }
        return send(reg);
      }).catch(function () { say("failed"); });
    });
    off.addEventListener("submit", function (e) {
      e.preventDefault();
      reg.pushManager.getSubscription()
        .then(function (s) { return s ? s.unsubscribe() : true; })
        .then(function () { off.submit(); }, function () { off.submit(); });
    });
  }

  navigator.serviceWorker.register(box.getAttribute("data-sw")).then(function (reg) {
    return reg.pushManager.getSubscription().then(function (sub) { wire(reg, sub); });
  }).catch(function () { /* no worker, no alerts: mail still comes */ });
})();
