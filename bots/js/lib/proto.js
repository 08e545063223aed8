'use strict';
/**
 * Loads the uno-arena contract (proto/uno_arena/v1/*.proto, proto/google/rpc/status.proto) at run time
 * with @grpc/proto-loader: no generated code, the .proto files of the repository are the only source.
 *
 * Decoding options: field names stay snake_case as in the .proto files (`keepCase`), enum values come
 * as their names (`DECISION_KIND_PLAY`), 64-bit integers as decimal strings (a Ping nonce is echoed
 * back unchanged), unset message fields as null and repeated fields as [] (`defaults`), and each
 * oneof's set member is named by a virtual field (`payload: 'decision_request'`).
 */

const fs = require('node:fs');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

/** The repository's proto/ folder, seen from bots/js/lib/. */
const DEFAULT_PROTO_DIR = path.resolve(__dirname, '..', '..', '..', 'proto');

const LOADER_OPTIONS = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
};

/**
 * Loads the bot protocol and returns the BotService client constructor.
 * @param {string} [protoDir] the folder holding uno_arena/ and google/ (default: the repository's proto/)
 * @returns {{BotService: Function, protoDir: string}}
 */
function loadBotService(protoDir = DEFAULT_PROTO_DIR) {
  const root = path.resolve(protoDir);
  const entry = path.join(root, 'uno_arena', 'v1', 'bot.proto');
  if (!fs.existsSync(entry)) {
    throw new Error(`cannot find ${entry}: pass --proto-dir (or UNO_ARENA_PROTO_DIR) pointing at the repository's proto/ folder`);
  }
  // Include the proto root so `import "google/rpc/status.proto"` and `import "uno_arena/v1/cards.proto"` resolve.
  const definition = protoLoader.loadSync(entry, { ...LOADER_OPTIONS, includeDirs: [root] });
  const loaded = grpc.loadPackageDefinition(definition);
  const BotService = loaded.uno_arena && loaded.uno_arena.v1 && loaded.uno_arena.v1.BotService;
  if (typeof BotService !== 'function') {
    throw new Error(`${entry} does not define uno_arena.v1.BotService`);
  }
  return { BotService, protoDir: root };
}

module.exports = { loadBotService, DEFAULT_PROTO_DIR, LOADER_OPTIONS };
