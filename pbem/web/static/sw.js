// The site's service worker (issue 35): shows a turn's push ("Game 12: your bid") and opens
// the table when it is clicked. A push names the game and what is asked, never a card. It
// fetches nothing and keeps nothing: the pages are never served from here.
"use strict";

self.addEventListener("push", function (event) {
  var d = {};
  try { d = event.data ? event.data.json() : {}; } catch (e) { d = {}; }
  var home = self.location.origin + "/home";
  var url = typeof d.url === "string" && d.url.indexOf(self.location.origin + "/") === 0 ?
    d.url : home;  // only a page of this site
  event.waitUntil(self.registration.showNotification(String(d.title || "Spades"), {
    body: String(d.body || ""), tag: String(d.tag || "pbem"), renotify: true,
    data: { url: url }
  }));
});

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var url = (event.notification.data && event.notification.data.url) ||
    self.location.origin + "/home";
  event.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true })
    .then(function (open) {
      for (var i = 0; i < open.length; i++) {
        if (open[i].url === url && "focus" in open[i]) { return open[i].focus(); }
      }
      return self.clients.openWindow(url);
    }));
});
