#!/usr/bin/env node
'use strict';
/**
 * uno-arena example bot in Node.js.
 *
 *   node bots/js/bot.js --target HOST:PORT --token-file FILE [--name NAME] [--max-matches N]
 *                       [--proto-dir DIR] [--tls] [--tls-ca FILE] [--log-level debug|info|warn|error]
 *
 * --tls: the arena serves TLS (`uno-arena serve --tls-cert ... --tls-key ...`), trusted through the system's
 * roots; --tls-ca FILE: trust this PEM CA (or the arena's self-signed certificate) instead (implies --tls).
 *
 * The token: --token TOKEN (visible to every user of the machine in `ps`: prefer the others), else
 * --token-file FILE (a file holding it), else UNO_ARENA_TOKEN (or UNO_ARENA_BOT_TOKEN), else the file
 * UNO_ARENA_TOKEN_FILE (or UNO_ARENA_BOT_TOKEN_FILE) names. The target may also come from
 * UNO_ARENA_TARGET (the command line wins); UNO_ARENA_PROTO_DIR names the proto/ folder when the bot
 * runs outside the repository.
 *
 * Exit codes: 0 after SIGINT/SIGTERM (clean shutdown), 2 on a usage error, 3 when the arena refuses
 * the bot for good (wrong token, unsupported protocol version).
 */

const fs = require('fs');
const { ArenaBot, makeLogger } = require('./lib/client');
const { DEFAULT_PROTO_DIR } = require('./lib/proto');

const USAGE = `usage: node bot.js --target HOST:PORT (--token-file FILE | --token TOKEN) [--name NAME]
                   [--max-matches N] [--human-games] [--proto-dir DIR] [--tls] [--tls-ca FILE]
                   [--log-level debug|info|warn|error]
--token is visible to every user of the machine (ps): prefer --token-file or the environment
environment: UNO_ARENA_TARGET, UNO_ARENA_TOKEN (or UNO_ARENA_BOT_TOKEN), UNO_ARENA_TOKEN_FILE
             (or UNO_ARENA_BOT_TOKEN_FILE), UNO_ARENA_PROTO_DIR`;

/** The token in a file (surrounding whitespace removed); throws naming the file when it holds none. */
function readTokenFile(path) {
  let text;
  try {
    text = fs.readFileSync(path, 'utf8').trim();
  } catch (err) {
    throw new Error(`cannot read the token file ${path}: ${err.code || err.message}`);
  }
  if (!text || /\s/.test(text)) throw new Error(`the token file ${path} must hold one token`);
  return text;
}

/** Parses argv into options; throws an Error with a usage message on anything wrong. */
function parseArgs(argv, env) {
  const options = {
    target: env.UNO_ARENA_TARGET || '',
    token: '',
    tokenFile: '',
    name: 'js-bot',
    maxMatches: 4,
    protoDir: env.UNO_ARENA_PROTO_DIR || DEFAULT_PROTO_DIR,
    tls: false,
    humanGames: false,
    tlsCa: '',
    logLevel: 'info',
    help: false,
  };
  const valued = {
    '--target': 'target',
    '--token': 'token',
    '--token-file': 'tokenFile',
    '--name': 'name',
    '--max-matches': 'maxMatches',
    '--proto-dir': 'protoDir',
    '--tls-ca': 'tlsCa',
    '--log-level': 'logLevel',
  };
  for (let i = 0; i < argv.length; i += 1) {
    let arg = argv[i];
    let value;
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0) {
      value = arg.slice(eq + 1);
      arg = arg.slice(0, eq);
    }
    if (arg === '--help' || arg === '-h') {
      options.help = true;
    } else if (arg === '--tls') {
      options.tls = true;
    } else if (arg === '--human-games') {
      options.humanGames = true;
    } else if (valued[arg]) {
      if (value === undefined) {
        i += 1;
        if (i >= argv.length) throw new Error(`${arg} needs a value`);
        value = argv[i];
      }
      options[valued[arg]] = value;
    } else {
      throw new Error(`unknown argument ${arg}`);
    }
  }
  if (options.help) return options;
  if (!options.target) throw new Error('missing --target (or UNO_ARENA_TARGET)');
  if (!options.token) {
    const envToken = (env.UNO_ARENA_TOKEN || env.UNO_ARENA_BOT_TOKEN || '').trim();
    const file = options.tokenFile || (envToken ? '' : env.UNO_ARENA_TOKEN_FILE || env.UNO_ARENA_BOT_TOKEN_FILE || '');
    options.token = file ? readTokenFile(file) : envToken;
  }
  if (!options.token) throw new Error('missing --token-file (or --token, UNO_ARENA_TOKEN, UNO_ARENA_TOKEN_FILE)');
  const max = Number(options.maxMatches);
  if (!Number.isInteger(max) || max < 1) throw new Error(`--max-matches must be a positive integer, not ${options.maxMatches}`);
  options.maxMatches = max;
  if (!['debug', 'info', 'warn', 'error'].includes(options.logLevel)) throw new Error(`unknown --log-level ${options.logLevel}`);
  if (options.tlsCa) {
    try {
      options.tlsCaPem = fs.readFileSync(options.tlsCa);
    } catch (err) {
      throw new Error(`cannot read the TLS CA file ${options.tlsCa}: ${err.code || err.message}`);
    }
    options.tls = true;
  }
  return options;
}

async function main() {
  let options;
  try {
    options = parseArgs(process.argv.slice(2), process.env);
  } catch (err) {
    process.stderr.write(`${err.message}\n${USAGE}\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const logger = makeLogger(options.logLevel);
  let bot;
  try {
    bot = new ArenaBot({ ...options, logger });
  } catch (err) {
    logger.error(err.message);
    return 2;
  }
  let signals = 0;
  const onSignal = (signal) => {
    signals += 1;
    if (signals > 1) {
      logger.warn(`${signal} again: exiting now`);
      process.exit(130);
    }
    bot.stop(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return bot.run();
}

if (require.main === module) {
  main().then(
    (code) => {
      process.exit(code);
    },
    (err) => {
      process.stderr.write(`${err.stack || err}\n`);
      process.exit(1);
    },
  );
}

module.exports = { parseArgs, readTokenFile };
