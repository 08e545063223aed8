/* "Play against the bots": the form's seat count (page "choose") and the game table (page "game").
 *
 * The table is drawn only from the seat's messages (server-sent events from /api/play/{id}/stream): each holds
 * what the seat's observation holds and nothing else. Every message received is kept, in order, in
 * window.__received (the browser tests read it to prove that no hidden card ever reached the page).
 * The opponents' moves are shown one by one (?step=MS sets the pause between two, 0 for none); a round's end
 * pauses on the revealed hands and the scores until "Next round"; the match's end links to its replay.
 * Cards are drawn as templates/cards.html draws them (the same classes, symbols and text labels), from the faces
 * ({color, kind, text}) and cards ({light, dark, text}) of the observation (arena/web/seat_view.py).
 */
(function () {
  "use strict";

  // A face's kind in words on the card's label (as templates/cards.html writes it): the label wraps inside the card.
  var KIND_WORDS = {"draw1": "draw 1", "draw2": "draw 2", "draw5": "draw 5", "skip-all": "skip all",
                    "wild-draw2": "wild draw 2", "wild-draw4": "wild draw 4", "wild-draw-color": "wild draw colour"};
  var SYMBOLS = {"draw1": "+1", "draw2": "+2", "draw5": "+5", "skip": "\u2298", "skip-all": "\u2298\u2298",
    "reverse": "\u21c4", "flip": "\u21bb", "wild": "\u2605", "wild-draw2": "\u2605+2", "wild-draw4": "\u2605+4",
    "wild-draw-color": "\u2605+C"};
  var MARKS = {"red": "\u2665", "yellow": "\u2600", "green": "\u2663", "blue": "\u2666", "pink": "\u273f",
    "teal": "\u2248", "orange": "\u25b2", "purple": "\u265b"};
  // The points of every face kind per variant, as the engine counts them (arena/engine/cards.py, E3 and C5): the
  // page carries them (play.html, #card-values), so no rule is copied here.
  var cardValues = null;

  var script = document.currentScript;
  var page = script ? script.getAttribute("data-page") : "";
  if (page === "choose") {
    initChoose();
  } else if (page === "game") {
    initGame();
  }

  // -- the form ------------------------------------------------------------------------------------------------
  function initChoose() {
    var seats = document.getElementById("seats");
    if (!seats) { return; }
    function update() {
      var n = Number(seats.value);
      var rows = document.querySelectorAll(".opponent");
      for (var i = 0; i < rows.length; i++) {
        var on = Number(rows[i].getAttribute("data-seat")) < n;
        rows[i].hidden = !on;
        rows[i].querySelector("select").disabled = !on;
      }
    }
    seats.addEventListener("change", update);
    update();
  }

  // -- drawing cards -------------------------------------------------------------------------------------------
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  function other(side) { return side === "dark" ? "light" : "dark"; }

  function backEl(side, size) {
    var node = el("span", "card card-back side-" + side + (size ? " " + size : ""));
    node.setAttribute("role", "img");
    node.setAttribute("aria-label", "a card's back");
    node.title = "card back";
    node.appendChild(el("span", "card-center", "UNO"));
    return node;
  }

  function faceEl(face, side, size, title) {
    if (!face) { return backEl(side, size); }
    var color = face.color || "wild";
    var symbol = SYMBOLS[face.kind] || face.kind;
    var words = (face.color ? face.color + " " : "") + (KIND_WORDS[face.kind] || face.kind);
    var node = el("span", "card card-" + color + " side-" + side + (size ? " " + size : ""));
    node.setAttribute("role", "img");
    node.setAttribute("aria-label", words);
    node.title = title || face.text;
    node.setAttribute("data-card", face.text);
    node.appendChild(el("span", "card-corner", (MARKS[color] || "") + symbol));
    node.appendChild(el("span", "card-center", symbol));
    node.appendChild(el("span", "card-label", words));
    return node;
  }

  function cardFace(card, side) {
    return side === "dark" && card.dark ? card.dark : card.light;
  }

  function cardEl(card, side, size) {
    return faceEl(cardFace(card, side), side, size, card.text);
  }

  function faceValue(face, variant) {
    if (cardValues === null) {
      var data = document.getElementById("card-values");
      cardValues = data ? JSON.parse(data.textContent) : {};
    }
    return (cardValues[variant === "classic" ? "classic" : "flip"] || {})[face.kind] || 0;
  }

  // -- the game ------------------------------------------------------------------------------------------------
  function initGame() {
    var root = document.getElementById("game");
    var sessionId = root.getAttribute("data-session");
    var params = new URLSearchParams(window.location.search);
    var stepMs = params.has("step") ? Math.max(0, Number(params.get("step")) || 0) : 400;
    var received = window.__received = [];
    var arrivedAt = {};  // message number -> when it arrived (a decision's clock runs from then)
    var queue = [];
    var busy = false;
    var state = {names: [], seat: 0, side: "light", variant: "flip", deadline: 300, obs: null, waiting: null,
      timer: null, over: false, catchingUp: false, shown: null};
    var $ = function (id) { return document.getElementById(id); };

    function sleep(ms) { return new Promise(function (resolve) { window.setTimeout(resolve, ms); }); }
    function who(seat) {
      if (seat === null || seat === undefined) { return "nobody"; }
      if (seat === state.seat) { return "you"; }
      return "seat " + seat + " (" + (state.names[seat] || "?") + ")";
    }
    function status(text, isError) {
      var node = $("status");
      node.textContent = text;
      node.className = "status" + (isError ? " error" : "");
    }
    function log(parts) {
      var item = el("li");
      for (var i = 0; i < parts.length; i++) {
        item.appendChild(typeof parts[i] === "string" ? document.createTextNode(parts[i]) : parts[i]);
      }
      var list = $("log");
      list.insertBefore(item, list.firstChild);
    }

    // What one event says, in words and small cards (the side is followed through flips).
    function tell(event) {
      var s = state.side;
      var t = event.type;
      if (t === "play") {
        var face = cardFace(event.card, s);
        var parts = [who(event.seat) + (event.seat === state.seat ? " play " : " plays "),
          faceEl(face, s, "small", event.card.text)];
        if (!face.color && event.color) { parts.push(", naming " + event.color); }
        if (event.detail === "uno") { parts.push(" \u2014 UNO!"); }
        $("discard-top").replaceChildren(faceEl(face, s, "", event.card.text));
        return parts;
      }
      if (t === "draw") {
        var n = event.count;
        var text = who(event.seat) + (event.seat === state.seat ? " draw " : " draws ") +
          (n === 0 ? "nothing (no card left)" : n === 1 ? "a card" : n + " cards") +
          (event.detail && event.detail !== "T1" ? " (" + event.detail + ")" : "");
        var out = [text];
        if (event.cards.length) {
          out.push(": ");
          event.cards.forEach(function (c) { out.push(cardEl(c, s, "small")); });
        } else if (event.faces.length) {
          out.push(", the table sees: ");
          event.faces.forEach(function (f) { out.push(faceEl(f, other(s), "small")); });
        }
        return out;
      }
      if (t === "flip") {
        state.side = event.detail === "dark" ? "dark" : "light";
        if (event.faces.length) {
          $("discard-top").replaceChildren(faceEl(event.faces[0], state.side, ""));
        }
        return ["FLIP! the " + event.detail + " side is up"];
      }
      if (t === "round_started") { state.side = "light"; return ["round " + event.count + ", dealer " + who(event.seat)]; }
      if (t === "start_card" || t === "start_card_replaced") {
        var start = event.faces[0];
        if (t === "start_card") { $("discard-top").replaceChildren(faceEl(start, s, "")); }
        return [t === "start_card" ? "start card " : "the start card goes back (S4): ", faceEl(start, s, "small")];
      }
      if (t === "pass") { return [who(event.seat) + (event.seat === state.seat ? " pass" : " passes")]; }
      if (t === "skip") {
        return [event.detail === "all" ? "everyone else is skipped" : who(event.seat) + " skipped"];
      }
      if (t === "reverse") { return ["the direction reverses"]; }
      if (t === "color") { return [who(event.seat) + " named " + event.color]; }
      if (t === "accept") { return [who(event.seat) + " accepted the wild draw"]; }
      if (t === "challenge") {
        return [who(event.seat) + " challenged " + who(event.target) + ": the play was " + event.detail];
      }
      if (t === "reveal") {
        var shown = [who(event.seat) + " showed you the hand: "];
        event.faces.forEach(function (f) { shown.push(faceEl(f, s, "small")); });
        return shown;
      }
      if (t === "catch") { return [who(event.target) + " caught without UNO"]; }
      if (t === "reshuffle") { return ["the discard pile is shuffled into a new draw pile"]; }
      if (t === "round_over") { return ["round over: " + who(event.seat) + " won the round, " + event.count + " points"]; }
      if (t === "match_over") { return ["match over: " + who(event.seat) + " won the match"]; }
      if (t === "dealer") { return [who(event.seat) + " deals first"]; }
      return [t + (event.seat !== null ? " " + who(event.seat) : "")];
    }

    async function showEvents(events) {
      for (var i = 0; i < events.length; i++) {
        var event = events[i];
        log(tell(event));
        if (stepMs && !state.catchingUp && event.seat !== state.seat && event.type !== "dealer") {
          await sleep(stepMs);
        }
      }
    }

    function render(obs) {
      state.obs = obs;
      state.side = obs.side;
      state.variant = obs.variant;
      var side = obs.side;
      var over = obs.decision === "round_over" || obs.decision === "match_over";
      // The other players: their backs show the faces facing the table (V2), all cards once the round is over.
      var opponents = $("opponents");
      opponents.replaceChildren();
      obs.opponents.forEach(function (opp) {
        var box = el("div", "seat" + (obs.current === opp.seat ? " current" : ""));
        box.setAttribute("data-seat", opp.seat);
        box.appendChild(el("h3", "", "Seat " + opp.seat + " \u00b7 " + (state.names[opp.seat] || "?") + " \u00b7 " +
          opp.count + (opp.count === 1 ? " card" : " cards") + " \u00b7 " + obs.scores[opp.seat] + " pts"));
        var row = el("div", "hand");
        if (over && opp.revealed.length) {
          opp.revealed.forEach(function (c) { row.appendChild(cardEl(c, side, "small")); });
        } else if (opp.visible.length) {
          opp.visible.forEach(function (f) { row.appendChild(faceEl(f, other(side), "small")); });
        } else {
          for (var i = 0; i < Math.min(opp.count, 30); i++) { row.appendChild(backEl(side, "small")); }
        }
        box.appendChild(row);
        opponents.appendChild(box);
      });
      // The piles: the draw pile's top shows its other face (V3), the discard pile its active faces.
      $("draw-pile").replaceChildren(obs.draw_top ? faceEl(obs.draw_top, other(side), "", "the draw pile's top, other side") :
        backEl(side, ""));
      $("draw-info").textContent = "draw pile: " + obs.draw_size;
      $("discard-top").replaceChildren(faceEl(obs.top, side, ""));
      $("discard-info").textContent = "discard pile: " + obs.discard.length;
      var facts = $("table-facts");
      facts.replaceChildren();
      [["side up", obs.variant === "classic" ? "classic" : obs.side],
        ["colour in force", obs.color || "\u2014"],
        ["direction", obs.direction === "cw" ? "\u21bb clockwise" : "\u21ba counter-clockwise"],
        ["round", obs.round],
        ["your score", obs.scores[obs.seat]]].forEach(function (pair) {
        var line = el("div", "fact-line");
        line.appendChild(el("span", "", pair[0] + ": "));
        line.appendChild(el("b", "", pair[1]));
        facts.appendChild(line);
      });
      $("my-seat").className = "seat me" + (obs.current === obs.seat && !over ? " current" : "");
      $("my-title").textContent = "You \u00b7 seat " + obs.seat + " \u00b7 " + obs.hand.length +
        (obs.hand.length === 1 ? " card" : " cards") + " \u00b7 " + obs.scores[obs.seat] + " pts";
      // Your hand: both faces (V1): the face up, and the other face under it.
      var hand = $("hand");
      hand.replaceChildren();
      obs.hand.forEach(function (card) {
        var holder = el("span", "hand-card");
        holder.setAttribute("data-card", card.text);
        holder.appendChild(cardEl(card, side, ""));
        if (card.dark) {
          var back = side === "dark" ? card.light : card.dark;
          holder.appendChild(el("span", "other-face", "back: " + back.text));
        }
        if (obs.drawn && obs.drawn.text === card.text) { holder.classList.add("drawn"); }
        hand.appendChild(holder);
      });
    }

    function actionLabel(action) {
      switch (action.kind) {
        case "draw": return "Draw a card";
        case "pass": return state.obs && state.obs.decision === "catch" ? "Let it go" : "Pass (keep the card)";
        case "accept": return "Accept the draw";
        case "challenge": return "Challenge!";
        case "choose_color": return "Name " + action.color;
        case "catch": return "Catch " + who(action.target) + ": no UNO call";
        case "play":
          return "Play " + cardFace(action.card, state.side).text +
            (action.color ? ", naming " + action.color : "") + (action.uno ? ", calling UNO!" : "");
        default: return action.text;
      }
    }

    function actionButton(action, decision) {
      var button = el("button", "action action-" + action.kind, actionLabel(action));
      button.type = "button";
      button.setAttribute("data-action-index", action.index);
      if (action.color) { button.classList.add("swatch-" + action.color); }
      if (action.uno) { button.classList.add("uno-call"); }
      button.addEventListener("click", function () { answer(action.index, decision); });
      return button;
    }

    function clearActions() {
      $("actions").replaceChildren();
      $("chooser").replaceChildren();
      $("chooser").hidden = true;
      var cards = document.querySelectorAll("#hand .hand-card");
      for (var i = 0; i < cards.length; i++) {
        cards[i].classList.remove("playable");
        cards[i].removeAttribute("data-action-index");
        cards[i].removeAttribute("tabindex");
        cards[i].onclick = null;
        cards[i].onkeydown = null;
      }
      if (state.timer) { window.clearInterval(state.timer); state.timer = null; }
    }

    function showLegal(message) {
      clearActions();
      var decision = message.decision_number;
      state.waiting = decision;
      state.shown = decision;
      var plays = {};
      var buttons = $("actions");
      message.legal.forEach(function (action) {
        if (action.kind === "play") {
          (plays[action.card.text] = plays[action.card.text] || []).push(action);
        } else {
          buttons.appendChild(actionButton(action, decision));
        }
      });
      var cards = document.querySelectorAll("#hand .hand-card");
      for (var i = 0; i < cards.length; i++) {
        (function (holder) {
          var options = plays[holder.getAttribute("data-card")];
          if (!options) { return; }
          holder.classList.add("playable");
          holder.setAttribute("tabindex", "0");
          holder.setAttribute("role", "button");
          if (options.length === 1) { holder.setAttribute("data-action-index", options[0].index); }
          var choose = function () {
            if (options.length === 1) { answer(options[0].index, decision); return; }
            var chooser = $("chooser");
            chooser.replaceChildren(el("span", "chooser-title", "Play this card:"));
            options.forEach(function (action) { chooser.appendChild(actionButton(action, decision)); });
            chooser.hidden = false;
          };
          holder.onclick = choose;
          holder.onkeydown = function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); choose(); } };
        })(cards[i]);
      }
      var title = {"play": "Your turn: click a card to play it, or draw.",
        "after_draw": "You drew a card you can play: play it or keep it.",
        "respond": "A wild draw is played at you: accept it or challenge it.",
        "choose_color": "Name a colour.",
        "catch": "Someone did not call UNO: catch them or let it go."}[state.obs.decision] || "Your decision.";
      var arrived = arrivedAt[message.n] || Date.now();
      var tick = function () {
        var left = Math.max(0, Math.round(message.deadline_s - (Date.now() - arrived) / 1000));
        status(title + " (" + left + " s left)");
      };
      tick();
      state.timer = window.setInterval(tick, 1000);
    }

    async function answer(index, decision) {
      if (state.waiting !== decision) { return; }
      state.waiting = null;
      clearActions();
      status("Sent; the others are playing\u2026");
      try {
        var response = await fetch("/api/play/" + encodeURIComponent(sessionId) + "/action", {
          method: "POST", headers: {"Content-Type": "application/json"}, credentials: "same-origin",
          body: JSON.stringify({index: index, decision: decision})});
        if (!response.ok) {
          var body = await response.json().catch(function () { return {}; });
          status("Refused: " + (body.detail || response.status), true);
        }
      } catch (error) {
        status("Could not send your move: " + error, true);
      }
    }

    function handsTable(obs) {
      var table = el("table", "data hands");
      var head = el("tr");
      ["Seat", "Hand", "Points in hand", "Score"].forEach(function (h, i) {
        head.appendChild(el("th", i < 2 ? "name" : "", h));
      });
      table.appendChild(head);
      var rows = [{seat: obs.seat, cards: obs.hand}].concat(obs.opponents.map(function (o) {
        return {seat: o.seat, cards: o.revealed};
      })).sort(function (a, b) { return a.seat - b.seat; });
      rows.forEach(function (row) {
        var tr = el("tr");
        tr.appendChild(el("td", "name", who(row.seat)));
        var cell = el("td", "name hand");
        var points = 0;
        row.cards.forEach(function (c) {
          cell.appendChild(cardEl(c, obs.side, "small"));
          points += faceValue(cardFace(c, obs.side), obs.variant);
        });
        if (!row.cards.length) { cell.textContent = "no cards"; }
        tr.appendChild(cell);
        tr.appendChild(el("td", "", points));
        tr.appendChild(el("td", "", obs.scores[row.seat]));
        table.appendChild(tr);
      });
      var wrap = el("div", "scroll");
      wrap.appendChild(table);
      return wrap;
    }

    function overlay(title, body, final) {
      $("overlay-title").textContent = title;
      $("overlay-body").replaceChildren.apply($("overlay-body"), body);
      $("overlay").hidden = false;
      $("continue").hidden = !!final;
      $("again-link").hidden = !final;
      return new Promise(function (resolve) {
        if (final) { resolve(); return; }
        $("continue").textContent = "Next round";
        $("continue").onclick = function () { $("overlay").hidden = true; resolve(); };
        $("continue").focus();
      });
    }

    function roundWinner(obs) {
      var events = obs.events.filter(function (e) { return e.type === "round_over"; });
      return events.length ? events[events.length - 1] : null;
    }

    async function handle(message) {
      switch (message.type) {
        case "start":
          state.names = message.seats;
          state.seat = message.seat;
          state.deadline = message.deadline_s;
          state.variant = message.rules.variant;
          status("The match starts: you are seat " + message.seat + " against " +
            message.seats.filter(function (_, i) { return i !== message.seat; }).join(", ") + ".");
          break;
        case "decide":
          await showEvents(message.observation.events);
          render(message.observation);
          showLegal(message);
          break;
        case "answered":
          if (state.shown === message.decision_number) {  // answered here, in another tab, or by the arena
            clearActions();
            state.waiting = null;
          }
          if (message.timeout) {
            log(["you ran out of time: the arena played the safest move for you (a strike)"]);
          }
          break;
        case "events": {
          await showEvents(message.observation.events);
          render(message.observation);
          var won = roundWinner(message.observation);
          var head = won ? "Round " + message.observation.round + ": " + who(won.seat) +
            (won.seat === state.seat ? " win " : " wins ") + won.count + " points" : "Round over";
          status(head);
          if (!state.catchingUp) { await overlay(head, [handsTable(message.observation)], false); }
          break;
        }
        case "end": {
          state.over = true;
          clearActions();
          var body = [];
          if (message.observation) {
            await showEvents(message.observation.events);
            render(message.observation);
            body.push(el("h3", "", "The last round's hands"));
            body.push(handsTable(message.observation));
          }
          var scores = el("p", "final-scores", "Final scores: " + message.scores.map(function (score, seat) {
            return who(seat) + " " + score;
          }).join(", ") + ".");
          body.push(scores);
          if (message.detail) { body.push(el("p", "note", message.detail)); }
          var title = message.winner === null ? "The match is over (" + message.end_reason + ")" :
            message.winner === state.seat ? "You win the match!" : who(message.winner) + " wins the match";
          if (message.replay) {
            var link = $("replay-link");
            link.href = root.getAttribute("data-replay-page") + encodeURIComponent(message.replay);
            link.hidden = false;
          } else {
            body.push(el("p", "note", "This match has no replay page: the web front keeps no record without the " +
              "arena's Redis ($REDIS_URL)."));
          }
          status(title);
          await overlay(title, body, true);
          break;
        }
        case "notice":
          log([message.text]);
          break;
        default:
          break;
      }
    }

    async function pump() {
      if (busy) { return; }
      busy = true;
      try {
        while (queue.length) {
          var message = queue.shift();
          try {
            await handle(message);
          } catch (error) {
            status("Could not show a message: " + error, true);
          }
        }
      } finally {
        busy = false;
      }
    }

    function take(message) {
      received.push(message);
      arrivedAt[message.n] = Date.now();
      if (message.type === "closed") { window.__closed = true; return false; }
      queue.push(message);
      return true;
    }

    // What came before the page was opened (a reload): shown at once, without pauses or round-end dialogs;
    // then the stream from the next message on.
    async function begin() {
      var base = "/api/play/" + encodeURIComponent(sessionId);
      var after = 0;
      var open = true;
      try {
        var response = await fetch(base + "/messages", {credentials: "same-origin"});
        var body = await response.json();
        if (!response.ok) { status(body.detail || "This game cannot be shown.", true); return; }
        body.messages.forEach(function (message) { after = message.n + 1; open = take(message) && open; });
        state.catchingUp = true;
        await pump();
      } catch (error) {
        status("Could not reach the arena: " + error, true);
        return;
      } finally {
        state.catchingUp = false;
      }
      if (!open) { return; }
      var source = new EventSource(base + "/stream?after=" + after);
      source.onmessage = function (event) {
        if (!take(JSON.parse(event.data))) { source.close(); return; }
        pump();
      };
      source.onerror = function () {
        if (!state.over && source.readyState === EventSource.CLOSED) {
          status("The connection to the arena is lost; reload the page to go on.", true);
        }
      };
    }
    begin();
  }
})();
