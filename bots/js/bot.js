#!/usr/bin/env node
'use strict';
/**
 * uno-arena example bot in Node.js.
 *
 *   node bots/js/bot.js --target HOST:PORT --token TOKEN [--name NAME] [--max-matches N]
 *                       [--proto-dir DIR] [--tls] [--log-level debug|info|warn|error]
 *
 * The target and token may also come from UNO_ARENA_TARGET and UNO_ARENA_TOKEN (the command line
 * wins); UNO_ARENA_PROTO_DIR names the proto/ folder when the bot runs outside the repository.
 *
 * Exit codes: 0 after SIGINT/SIGTERM (clean shutdown), 2 on a usage error, 3 when the arena refuses
 * the bot for good (wrong token, unsupported protocol version).
 */

const { ArenaBot, makeLogger } = require('./lib/client');
const { DEFAULT_PROTO_DIR } = require('./lib/proto');

const USAGE = `usage: node bot.js --target HOST:PORT --token TOKEN [--name NAME] [--max-matches N]
                   [--proto-dir DIR] [--tls] [--log-level debug|info|warn|error]
environment: UNO_ARENA_TARGET, UNO_ARENA_TOKEN, UNO_ARENA_PROTO_DIR`;

/** Parses argv into options; throws an Error with a usage message on anything wrong. */
function parseArgs(argv, env) {
  const options = {
    target: env.UNO_ARENA_TARGET || '',
    token: env.UNO_ARENA_TOKEN || '',
    name: 'js-bot',
    maxMatches: 4,
    protoDir: env.UNO_ARENA_PROTO_DIR || DEFAULT_PROTO_DIR,
    tls: false,
    logLevel: 'info',
    help: false,
  };
  const valued = {
    '--target': 'target',
    '--token': 'token',
    '--name': 'name',
    '--max-matches': 'maxMatches',
    '--proto-dir': 'protoDir',
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
  if (!options.token) throw new Error('missing --token (or UNO_ARENA_TOKEN)');
  const max = Number(options.maxMatches);
  if (!Number.isInteger(max) || max < 1) throw new Error(`--max-matches must be a positive integer, not ${options.maxMatches}`);
  options.maxMatches = max;
  if (!['debug', 'info', 'warn', 'error'].includes(options.logLevel)) throw new Error(`unknown --log-level ${options.logLevel}`);
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

module.exports = { parseArgs };
