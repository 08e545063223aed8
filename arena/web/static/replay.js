// The replay viewer's stepping: forward/back, first/last, autoplay with a speed, a timeline, keyboard keys; each
// step swaps in the server-rendered frame (/matches/ID/frame?step=N[&seat=S]) and gets its own address
// (?step=N), so back/forward of the browser and shared links land on the same step. Without JavaScript the
// links of the controls still step through the match one page at a time.
(function () {
  "use strict";
  var root = document.getElementById("replay");
  if (!root || !window.fetch) return;
  var match = root.getAttribute("data-match");
  var seat = root.getAttribute("data-seat");
  var last = parseInt(root.getAttribute("data-last"), 10);
  var step = parseInt(root.getAttribute("data-step"), 10);
  var frame = root.querySelector("[data-frame]");
  var timeline = root.querySelector("[data-timeline]");
  var position = root.querySelector("[data-position]");
  var playButton = root.querySelector('[data-go="play"]');
  var speed = root.querySelector("[data-speed]");
  var timer = null;
  var pending = 0;
  var target = step; // the step asked for last: keys pressed faster than frames arrive add up from it
  [playButton, timeline, speed && speed.parentNode].forEach(function (el) { if (el) el.hidden = false; });

  function query(n) { return "?step=" + n + (seat !== null ? "&seat=" + seat : ""); }

  function go(n, push) {
    n = Math.max(0, Math.min(last, n));
    target = n;
    var ticket = ++pending;
    return fetch("/matches/" + encodeURIComponent(match) + "/frame" + query(n)).then(function (response) {
      if (!response.ok) throw new Error("step " + n + ": HTTP " + response.status);
      return response.text();
    }).then(function (html) {
      if (ticket !== pending) return;
      step = n;
      frame.innerHTML = html;
      root.setAttribute("data-step", String(n));
      timeline.value = String(n);
      position.textContent = "step " + n + " of " + last;
      var url = query(n);
      if (push) history.pushState({step: n}, "", url); else history.replaceState({step: n}, "", url);
      root.querySelectorAll("a[data-go]").forEach(function (a) {
        var to = {first: 0, prev: Math.max(0, n - 1), next: Math.min(last, n + 1), last: last}[a.getAttribute("data-go")];
        a.setAttribute("href", query(to));
      });
    }).catch(function (error) { target = step; stop(); position.textContent = String(error.message || error); });
  }

  function stop() {
    if (timer) { clearInterval(timer); timer = null; }
    playButton.textContent = "▶ play";
  }
  function play() {
    if (timer) { stop(); return; }
    if (step >= last) go(0, false);
    playButton.textContent = "⏸ pause";
    timer = setInterval(function () {
      if (target >= last) { stop(); return; }
      go(target + 1, false);
    }, parseInt(speed.value, 10));
  }

  root.addEventListener("click", function (event) {
    var button = event.target.closest("[data-go]");
    if (!button) return;
    event.preventDefault();
    var where = button.getAttribute("data-go");
    if (where === "play") { play(); return; }
    stop();
    go({first: 0, prev: target - 1, next: target + 1, last: last}[where], true);
  });
  timeline.addEventListener("input", function () { stop(); go(parseInt(timeline.value, 10), false); });
  speed.addEventListener("change", function () { if (timer) { stop(); play(); } });
  document.addEventListener("keydown", function (event) {
    if (event.target && /INPUT|SELECT|TEXTAREA/.test(event.target.tagName) && event.target !== timeline) return;
    var keys = {ArrowRight: target + 1, ArrowLeft: target - 1, Home: 0, End: last};
    if (event.key in keys) { event.preventDefault(); stop(); go(keys[event.key], true); }
    else if (event.key === " ") { event.preventDefault(); play(); }
  });
  window.addEventListener("popstate", function (event) {
    if (event.state && typeof event.state.step === "number") go(event.state.step, false);
  });
})();
