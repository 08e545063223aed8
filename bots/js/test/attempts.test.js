'use strict';
// Every attempt of a match is distinct (MatchStarted.attempt): the same attempt again (a reconnect) keeps the
// match's state, a new attempt (the arena plays an aborted match again) starts afresh; the end of an older
// attempt ends nothing of the current one.

const test = require('node:test');
const assert = require('node:assert/strict');
const { ArenaBot } = require('../lib/client');

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

function bot() {
  const states = [];
  const arena = new ArenaBot({
    target: '127.0.0.1:1',
    token: 't',
    logger: quiet,
    strategy: (_observation, _legal, state) => {
      state.seen = (state.seen || 0) + 1;
      states.push(state);
      return 0;
    },
  });
  const written = [];
  const call = { write: (message) => written.push(message) };
  return { arena, call, states, written };
}

const started = (attempt) => ({ payload: 'match_started', match_started: { match_id: 'm-1', seat: 0, attempt } });
const request = { payload: 'decision_request', decision_request: { match_id: 'm-1', request_id: 'r', legal_actions: [{}] } };
const ended = (attempt) => ({ payload: 'match_ended', match_ended: { match_id: 'm-1', attempt, result: {} } });

test('a new attempt of a match starts afresh, the same attempt keeps its state', () => {
  const { arena, call, states } = bot();
  const state = {};
  arena.handle(call, started(1), state);
  arena.handle(call, request, state);
  arena.handle(call, started(1), state); // sent again after a reconnect
  arena.handle(call, request, state);
  assert.equal(states[1], states[0]);
  assert.equal(states[1].seen, 2);
  arena.handle(call, started(2), state); // the match played again
  arena.handle(call, request, state);
  assert.notEqual(states[2], states[0]);
  assert.equal(states[2].seen, 1);
  arena.handle(call, ended(1), state); // a late end of attempt 1
  assert.equal(arena.matches.get('m-1').attempt, 2);
  arena.handle(call, ended(2), state);
  assert.equal(arena.matches.has('m-1'), false);
  arena.client.close();
});

test('a request of an aborted attempt never reaches the new attempt', () => {
  const { arena, call, states, written } = bot();
  const state = {};
  arena.handle(call, started(1), state);
  arena.handle(call, started(2), state);
  const stale = { payload: 'decision_request', decision_request: { match_id: 'm-1', request_id: 'old', attempt: 1, legal_actions: [{}] } };
  arena.handle(call, stale, state);
  assert.equal(states.length, 0);
  assert.equal(written.length, 0);
  arena.client.close();
});

test('a decision asked again after a fault gets the same answer without asking the strategy twice', () => {
  const { arena, call, states, written } = bot();
  const state = {};
  arena.handle(call, started(1), state);
  const ask = (requestId) => ({ payload: 'decision_request', decision_request: { match_id: 'm-1', request_id: requestId, decision_number: 4, attempt: 1, legal_actions: [{}, {}] } });
  arena.handle(call, ask('first'), state);
  arena.handle(call, ask('again'), state);
  assert.equal(states.length, 1);
  assert.deepEqual(written.map((m) => m.decision.request_id), ['first', 'again']);
  assert.equal(written[1].decision.action_index, written[0].decision.action_index);
  arena.client.close();
});
