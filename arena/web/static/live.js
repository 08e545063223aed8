// Live regions: an element with data-live="/events/..." follows that server-sent event stream and swaps in the
// server-rendered HTML of each update: "html" as a string replaces the whole region, "html" as an object replaces
// each element with data-live-part="NAME" inside it by html[NAME]. An update whose "hash" equals the region's
// data-hash changes nothing and is skipped. Without JavaScript the page is simply static.
(function () {
  "use strict";
  if (!window.EventSource) return;
  document.querySelectorAll("[data-live]").forEach(function (region) {
    var source = new EventSource(region.getAttribute("data-live"));
    var state = document.getElementById("live-state");
    source.addEventListener("update", function (message) {
      var data = JSON.parse(message.data);
      if (data.error) { if (state) state.textContent = "live: " + data.error; return; }
      if (data.hash && data.hash === region.getAttribute("data-hash")) return;
      if (data.hash) region.setAttribute("data-hash", data.hash);
      if (typeof data.html === "string") {
        region.innerHTML = data.html;
      } else if (data.html) {
        Object.keys(data.html).forEach(function (name) {
          var part = region.querySelector('[data-live-part="' + name + '"]');
          if (part) part.innerHTML = data.html[name];
        });
      }
      region.setAttribute("data-updated", String(Date.now()));
      if (state) state.textContent = "live · updated " + new Date().toLocaleTimeString();
    });
    source.addEventListener("end", function () {
      source.close();
      if (state) state.textContent = "final";
    });
    source.onerror = function () { if (state) state.textContent = "live: reconnecting"; };
  });
})();
