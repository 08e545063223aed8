'use strict';
// Unit tests of the pure strategy (node --test): hand-built observations in the decoded shape.

const test = require('node:test');
const assert = require('node:assert/strict');
const { chooseAction, faceValue, nextSeat } = require('../lib/strategy');
const { parseArgs } = require('../bot');

const face = (text) => {
  const at = text.lastIndexOf('-');
  const colours = ['red', 'yellow', 'green', 'blue', 'pink', 'teal', 'orange', 'purple'];
  const colour = colours.find((c) => text.startsWith(`${c}-`));
  return colour ? { color: colour, kind: text.slice(colour.length + 1), text } : { color: '', kind: text, text, at };
};
const card = (light, dark) => ({ light: face(light), dark: dark ? face(dark) : null, text: dark ? `${light}/${dark}` : light });
const play = (c, extra = {}) => ({ kind: 'ACTION_KIND_PLAY', card: c, color: '', uno: false, text: `play ${c.text}`, ...extra });
const simple = (kind) => ({ kind: `ACTION_KIND_${kind.toUpperCase()}`, card: null, color: '', uno: false, text: kind });

function observation(hand, extra = {}) {
  return {
    seat: 0,
    players: 3,
    variant: 'VARIANT_CLASSIC',
    side: 'SIDE_LIGHT',
    direction: 'DIRECTION_CW',
    decision: 'DECISION_KIND_PLAY',
    color: 'red',
    hand,
    opponents: [
      { seat: 1, count: 5, visible: [], revealed: [] },
      { seat: 2, count: 5, visible: [], revealed: [] },
    ],
    events: [],
    ...extra,
  };
}

test('card values follow RULES.md E3 and C5', () => {
  assert.equal(faceValue(face('red-7'), 'classic'), 7);
  assert.equal(faceValue(face('wild-draw4'), 'classic'), 50);
  assert.equal(faceValue(face('draw1'), 'light'), 10);
  assert.equal(faceValue(face('teal-skip-all'), 'dark'), 30);
  assert.equal(faceValue(face('wild-draw-color'), 'dark'), 60);
});

test('plays the highest-value coloured card', () => {
  const hand = [card('red-3'), card('red-skip'), card('red-9'), card('blue-1')];
  const legal = [play(hand[0]), play(hand[1]), play(hand[2]), simple('draw')];
  assert.equal(chooseAction(observation(hand), legal), 1);
});

test('keeps a wild while a coloured card fits', () => {
  const hand = [card('red-2'), card('wild'), card('blue-5'), card('green-1')];
  const legal = [
    play(hand[1], { color: 'red' }),
    play(hand[1], { color: 'blue' }),
    play(hand[0]),
    simple('draw'),
  ];
  assert.equal(chooseAction(observation(hand), legal), 2);
});

test('with only a wild in a small hand, plays it naming the colour held most', () => {
  const hand = [card('wild'), card('blue-5'), card('blue-7')];
  const legal = ['red', 'yellow', 'green', 'blue'].map((c) => play(hand[0], { color: c }));
  legal.push(simple('draw'));
  assert.equal(chooseAction(observation(hand), legal), 3);
});

test('draws rather than spending a wild while the hand is large and nobody threatens', () => {
  const hand = [card('wild'), card('blue-5'), card('blue-7'), card('green-1'), card('yellow-2')];
  const legal = ['red', 'yellow', 'green', 'blue'].map((c) => play(hand[0], { color: c }));
  legal.push(simple('draw'));
  assert.equal(chooseAction(observation(hand), legal), 4);
});

test('calls UNO when offered', () => {
  const hand = [card('red-4'), card('blue-1')];
  const legal = [play(hand[0]), play(hand[0], { uno: true })];
  assert.equal(chooseAction(observation(hand), legal), 1);
});

test('catches a missed UNO call', () => {
  const hand = [card('red-4'), card('blue-1')];
  const legal = [play(hand[0]), simple('draw'), { ...simple('catch'), target: 2 }];
  assert.equal(chooseAction(observation(hand), legal), 2);
});

test('names the colour it holds most', () => {
  const hand = [card('green-1'), card('green-2'), card('red-9')];
  const legal = ['red', 'yellow', 'green', 'blue'].map((c) => ({ ...simple('choose_color'), color: c }));
  assert.equal(chooseAction(observation(hand, { decision: 'DECISION_KIND_CHOOSE_COLOR' }), legal), 2);
});

test('challenges only an attacker that kept many cards', () => {
  const legal = [simple('accept'), simple('challenge')];
  const events = [{ type: 'play', seat: 2, text: 'play seat=2 wild-draw4' }];
  const few = observation([card('red-1')], { decision: 'DECISION_KIND_RESPOND', events });
  assert.equal(chooseAction(few, legal), 0);
  const many = observation([card('red-1')], {
    decision: 'DECISION_KIND_RESPOND',
    events,
    opponents: [{ seat: 1, count: 3 }, { seat: 2, count: 9 }],
  });
  assert.equal(chooseAction(many, legal), 1);
});

test('uses the dark faces on the dark side', () => {
  const hand = [card('red-9', 'teal-1'), card('blue-1', 'teal-skip-all')];
  const legal = [play(hand[0]), play(hand[1])];
  const obs = observation(hand, { variant: 'VARIANT_FLIP', side: 'SIDE_DARK', color: 'teal' });
  assert.equal(chooseAction(obs, legal), 1);
});

test('attacks a next player about to go out', () => {
  const hand = [card('red-9'), card('red-skip'), card('blue-2'), card('green-3')];
  const legal = [play(hand[0]), play(hand[1])];
  const obs = observation(hand, { opponents: [{ seat: 1, count: 1 }, { seat: 2, count: 6 }] });
  assert.equal(chooseAction(obs, legal), 1);
  assert.equal(nextSeat({ ...obs, direction: 'DIRECTION_CCW' }), 2);
});

test('parses the command line and the environment', () => {
  const options = parseArgs(['--token', 't', '--name=x', '--max-matches', '3'], { UNO_ARENA_TARGET: 'h:1' });
  assert.equal(options.target, 'h:1');
  assert.equal(options.token, 't');
  assert.equal(options.name, 'x');
  assert.equal(options.maxMatches, 3);
  assert.throws(() => parseArgs(['--target', 'h:1'], {}), /missing --token/);
  assert.throws(() => parseArgs(['--bogus'], {}), /unknown argument/);
});
