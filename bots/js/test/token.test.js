'use strict';
// The token's sources (node --test): --token, --token-file, UNO_ARENA_TOKEN / UNO_ARENA_BOT_TOKEN, and the file
// UNO_ARENA_TOKEN_FILE / UNO_ARENA_BOT_TOKEN_FILE names, in that order.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { parseArgs } = require('../bot');

function tokenFile(text) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'uno-arena-token-'));
  const file = path.join(dir, 'token');
  fs.writeFileSync(file, text, { mode: 0o600 });
  return file;
}

test('the token comes from --token-file, with surrounding whitespace removed', () => {
  const file = tokenFile('mybot.from-file\n');
  assert.equal(parseArgs(['--target', 'h:1', '--token-file', file], {}).token, 'mybot.from-file');
  assert.equal(parseArgs(['--target', 'h:1', `--token-file=${file}`], {}).token, 'mybot.from-file');
});

test('the token comes from the environment, a variable or a file', () => {
  const file = tokenFile('mybot.env-file');
  assert.equal(parseArgs(['--target', 'h:1'], { UNO_ARENA_TOKEN: 'mybot.env' }).token, 'mybot.env');
  assert.equal(parseArgs(['--target', 'h:1'], { UNO_ARENA_BOT_TOKEN: 'mybot.env2' }).token, 'mybot.env2');
  assert.equal(parseArgs(['--target', 'h:1'], { UNO_ARENA_TOKEN_FILE: file }).token, 'mybot.env-file');
  assert.equal(parseArgs(['--target', 'h:1'], { UNO_ARENA_BOT_TOKEN_FILE: file }).token, 'mybot.env-file');
});

test('the command line wins over the environment', () => {
  const file = tokenFile('mybot.from-file');
  const env = { UNO_ARENA_TOKEN: 'mybot.env' };
  assert.equal(parseArgs(['--target', 'h:1', '--token', 'mybot.cli'], env).token, 'mybot.cli');
  assert.equal(parseArgs(['--target', 'h:1', '--token-file', file], env).token, 'mybot.from-file');
});

test('a missing, unreadable or empty token file is a usage error', () => {
  assert.throws(() => parseArgs(['--target', 'h:1'], {}), /missing --token-file/);
  assert.throws(() => parseArgs(['--target', 'h:1', '--token-file', '/nonexistent/token'], {}), /cannot read the token file/);
  assert.throws(() => parseArgs(['--target', 'h:1', '--token-file', tokenFile('  \n')], {}), /must hold one token/);
});

test('--human-games offers the bot to people on the web front (Hello.accepts_human_games)', () => {
  const env = { UNO_ARENA_TOKEN: 't' };
  assert.equal(parseArgs(['--target', 'h:1'], env).humanGames, false);
  assert.equal(parseArgs(['--target', 'h:1', '--human-games'], env).humanGames, true);
});
