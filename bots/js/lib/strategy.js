'use strict';
/**
 * The decision logic of the Node.js example bot: pure functions, no I/O.
 *
 * Input: a DecisionRequest's `observation` and `legal_actions` as plain objects, as
 * @grpc/proto-loader decodes them with `keepCase: true, enums: String, defaults: true`
 * (snake_case fields, enum values as their names, unset message fields as null).
 * Output: an index into `legal_actions`.
 *
 * The strategy, in order:
 *   - catch a seat that missed its UNO call whenever the arena offers it;
 *   - respond to a wild draw: challenge only an attacker who kept many cards (likely bluffing);
 *   - name the colour it holds most (weighted by the points those cards are worth);
 *   - otherwise play the highest-value card, keep wilds for when nothing else fits (or the hand is
 *     nearly empty), never bluff a wild draw while holding the colour in force unless forced, attack
 *     a next player close to going out with draw/skip cards, call UNO when offered, and draw rather
 *     than spend a wild while the hand is large and nobody threatens to go out.
 */

/** Card values per RULES.md E3 (light, dark) and C5 (classic); numbers count at face value. */
const VALUES = {
  light: { draw1: 10, reverse: 20, skip: 20, flip: 20, wild: 40, 'wild-draw2': 50 },
  dark: { draw5: 20, reverse: 20, 'skip-all': 30, flip: 20, wild: 40, 'wild-draw-color': 60 },
  classic: { skip: 20, reverse: 20, draw2: 20, wild: 50, 'wild-draw4': 50 },
};

const ATTACKS = new Set(['draw1', 'draw2', 'draw5', 'skip', 'skip-all', 'wild-draw2', 'wild-draw4', 'wild-draw-color']);
const WILD_DRAWS = new Set(['wild-draw2', 'wild-draw4', 'wild-draw-color']);

/** Strips an enum prefix: `DECISION_KIND_AFTER_DRAW` -> `after_draw`; numbers pass through as strings. */
function enumName(value, prefix) {
  const text = String(value == null ? '' : value);
  return (text.startsWith(prefix) ? text.slice(prefix.length) : text).toLowerCase();
}

/** `light`, `dark` or `classic`: which value table applies to the active faces. */
function sideOf(observation) {
  if (enumName(observation.variant, 'VARIANT_') === 'classic') return 'classic';
  return enumName(observation.side, 'SIDE_') === 'dark' ? 'dark' : 'light';
}

/** The face of `card` that counts on the active side (a classic card has only its light face). */
function activeFace(card, side) {
  if (!card) return null;
  if (side === 'dark' && card.dark) return card.dark;
  return card.light || null;
}

function isWild(face) {
  return Boolean(face) && !face.color;
}

/** The points a face is worth (RULES.md E3, C5). */
function faceValue(face, side) {
  if (!face) return 0;
  if (/^[0-9]$/.test(face.kind)) return Number(face.kind);
  const table = VALUES[side] || VALUES.light;
  return table[face.kind] !== undefined ? table[face.kind] : 20;
}

function sameCard(a, b) {
  if (!a || !b) return false;
  if (a.text && b.text) return a.text === b.text;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The hand without one copy of `card`. */
function handWithout(hand, card) {
  const rest = hand.slice();
  const at = rest.findIndex((c) => sameCard(c, card));
  if (at >= 0) rest.splice(at, 1);
  return rest;
}

/** {colour: weight} of the coloured active faces in `hand`: 100 per card plus its points. */
function colourWeights(hand, side) {
  const weights = new Map();
  for (const card of hand) {
    const face = activeFace(card, side);
    if (!face || !face.color) continue;
    weights.set(face.color, (weights.get(face.color) || 0) + 100 + faceValue(face, side));
  }
  return weights;
}

/** The seat that plays after this one, following the direction of play. */
function nextSeat(observation) {
  const players = observation.players || (observation.opponents || []).length + 1;
  const step = enumName(observation.direction, 'DIRECTION_') === 'ccw' ? -1 : 1;
  return (((observation.seat + step) % players) + players) % players;
}

function countOf(observation, seat) {
  const view = (observation.opponents || []).find((o) => o.seat === seat);
  return view ? view.count : 7;
}

function indexOfKind(legal, kind) {
  return legal.findIndex((a) => enumName(a.kind, 'ACTION_KIND_') === kind);
}

/** The seat of the most recent play in the observation's events (the wild draw being answered). */
function lastPlayer(observation) {
  const events = observation.events || [];
  for (let i = events.length - 1; i >= 0; i -= 1) {
    const event = events[i];
    if (event.type === 'play' && event.seat !== undefined && event.seat !== null) return event.seat;
  }
  return null;
}

function respond(observation, legal) {
  const accept = indexOfKind(legal, 'accept');
  const challenge = indexOfKind(legal, 'challenge');
  if (challenge < 0) return accept >= 0 ? accept : 0;
  if (accept < 0) return challenge;
  const attacker = lastPlayer(observation);
  // A wild draw is legal only without a card of the colour in force; the more cards the attacker
  // kept, the likelier it held one.
  const count = attacker === null ? 0 : countOf(observation, attacker);
  return count >= 6 ? challenge : accept;
}

function chooseColour(observation, legal, side) {
  const weights = colourWeights(observation.hand || [], side);
  let best = 0;
  let bestWeight = -1;
  legal.forEach((action, index) => {
    const weight = weights.get(action.color) || 0;
    if (weight > bestWeight) {
      best = index;
      bestWeight = weight;
    }
  });
  return best;
}

/** A score for one action of a play / after-draw decision; the highest wins, ties go to the lower index. */
function scoreAction(observation, action, side, context) {
  const kind = enumName(action.kind, 'ACTION_KIND_');
  const hand = observation.hand || [];
  if (kind === 'draw' || kind === 'pass') {
    // Drawing (or keeping the drawn card) beats spending a wild while the hand is large and calm.
    return context.calm ? -50 : -1000;
  }
  if (kind !== 'play' || !action.card) return -2000;
  const face = activeFace(action.card, side);
  const rest = handWithout(hand, action.card);
  let score = faceValue(face, side);
  if (ATTACKS.has(face.kind) && context.nextCount <= 2) score += 60;
  if (isWild(face)) {
    if (rest.length > 1) score -= 120; // keep wilds: they always fit later
    const holdsColour = rest.some((c) => {
      const f = activeFace(c, side);
      return f && f.color && f.color === observation.color;
    });
    if (WILD_DRAWS.has(face.kind) && holdsColour) score -= 400; // a bluff a challenge would catch
    // Among the colour choices of one wild, name the colour held most.
    const weights = colourWeights(rest, side);
    score += (weights.get(action.color) || 0) / 1000;
  } else {
    // Among coloured cards of equal value, keep playing the colour held most.
    const weights = colourWeights(rest, side);
    score += (weights.get(face.color) || 0) / 10000;
  }
  if (action.uno) score += 5; // always call UNO when the play leaves one card
  return score;
}

/**
 * Picks an action for a DecisionRequest: returns an index into `legal`.
 * @param {object} observation the request's Observation
 * @param {object[]} legal the request's legal_actions (never empty)
 * @returns {number}
 */
function chooseAction(observation, legal) {
  if (!Array.isArray(legal) || legal.length === 0) return 0;
  const obs = observation || {};
  const side = sideOf(obs);
  const decision = enumName(obs.decision, 'DECISION_KIND_');
  const caught = indexOfKind(legal, 'catch');
  if (caught >= 0) return caught;
  if (decision === 'respond') return respond(obs, legal);
  if (decision === 'choose_color') return chooseColour(obs, legal, side);
  const nextCount = countOf(obs, nextSeat(obs));
  const threatened = (obs.opponents || []).some((o) => o.count <= 2);
  const context = { nextCount, calm: (obs.hand || []).length >= 4 && !threatened };
  let best = 0;
  let bestScore = -Infinity;
  legal.forEach((action, index) => {
    const score = scoreAction(obs, action, side, context);
    if (score > bestScore) {
      best = index;
      bestScore = score;
    }
  });
  return best;
}

/** The fallback preference per action kind, as the arena's own (arena.runner.fallback_action): the least
 * committal legal action, never a challenge or a catch when anything else is legal. */
const SAFE_ORDER = { pass: 0, draw: 1, accept: 2, choose_color: 3, play: 4, challenge: 5, catch: 6 };

/** The index of the safe legal action: what the arena itself would play for a bot that gave no answer. */
function safeAction(legal) {
  let best = 0;
  let bestRank = Infinity;
  (legal || []).forEach((action, index) => {
    const rank = SAFE_ORDER[enumName(action && action.kind, 'ACTION_KIND_')];
    const value = rank === undefined ? 9 : rank;
    if (value < bestRank) {
      best = index;
      bestRank = value;
    }
  });
  return best;
}

module.exports = { chooseAction, faceValue, activeFace, sideOf, nextSeat, enumName, safeAction };
