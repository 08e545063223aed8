'use strict';
// The strategy's bug costs one decision (node --test): a strategy that throws, or returns no legal index, gets
// the decision answered with the safe legal action (as the arena's fallback would play it), logged at error with
// the match id, the decision number and the observation's short form; the next decision is the strategy's again.

const test = require('node:test');
const assert = require('node:assert/strict');
const { ArenaBot, shortForm } = require('../lib/client');
const { safeAction } = require('../lib/strategy');

const legal = [
  { kind: 'ACTION_KIND_PLAY', text: 'red-7' },
  { kind: 'ACTION_KIND_CHALLENGE', text: 'challenge' },
  { kind: 'ACTION_KIND_DRAW', text: 'draw' },
];

function request(number) {
  return {
    match_id: 'm-1',
    request_id: `r${number}`,
    decision_number: number,
    legal_actions: legal,
    observation: { seat: 2, decision: 'DECISION_KIND_PLAY', round: 3, top: { text: 'red-5' }, hand: [{}, {}] },
  };
}

function bot(strategy) {
  const lines = [];
  const logger = { debug() {}, info() {}, warn: (m) => lines.push(`WARN ${m}`), error: (m) => lines.push(`ERROR ${m}`) };
  const arena = new ArenaBot({ target: '127.0.0.1:1', token: 't', logger, strategy });
  const written = [];
  const call = { write: (message) => written.push(message) };
  return { arena, call, lines, written };
}

test('the safe legal action is the arena fallback: pass, draw, accept, colour, play; never a challenge or catch', () => {
  assert.equal(safeAction(legal), 2);
  assert.equal(safeAction([{ kind: 'ACTION_KIND_CHALLENGE' }, { kind: 'ACTION_KIND_ACCEPT' }]), 1);
  assert.equal(safeAction([{ kind: 'ACTION_KIND_CATCH' }, { kind: 'ACTION_KIND_PASS' }]), 1);
  assert.equal(safeAction([{ kind: 'ACTION_KIND_PLAY' }, { kind: 'ACTION_KIND_PLAY' }]), 0);
});

test('a strategy that throws costs that decision only, logged with where and what', () => {
  let calls = 0;
  const { arena, call, lines, written } = bot(() => {
    calls += 1;
    if (calls === 1) throw new TypeError('cannot read hand of undefined');
    return 0;
  });
  arena.decide(call, request(1));
  arena.decide(call, request(2));
  assert.deepEqual(written.map((m) => m.decision.action_index), [2, 0]);
  assert.deepEqual(written.map((m) => m.decision.request_id), ['r1', 'r2']);
  assert.equal(arena.stats.strategyErrors, 1);
  assert.equal(lines.length, 1);
  assert.match(lines[0], /^ERROR match m-1, decision 1 \(seat 2, play decision, round 3, top red-5, 2 cards in hand/);
  assert.match(lines[0], /answered with the safe legal action 2 \(draw\) instead: TypeError: cannot read hand/);
  arena.client.close();
});

test('an index out of range is answered with the safe action too', () => {
  const { arena, call, lines, written } = bot(() => 7);
  arena.decide(call, request(1));
  assert.equal(written[0].decision.action_index, 2);
  assert.match(lines[0], /the strategy returned 7: not an index into the 3 legal actions/);
  arena.client.close();
});

test('the short form names only the bot\'s own view', () => {
  assert.equal(shortForm(request(4)), 'seat 2, play decision, round 3, top red-5, 2 cards in hand, 3 legal actions');
  assert.equal(shortForm({}), 'seat ?, ? decision, round ?, top ?, 0 cards in hand, 0 legal actions');
});
