'use strict';
/**
 * The connection side of the Node.js example bot: one BotService.Connect stream per process, many
 * matches multiplexed on it, reconnection with capped exponential backoff and jitter, a heartbeat
 * watchdog, and a clean shutdown. A Goodbye (the gateway drains: it is being stopped or replaced) makes it
 * reconnect at once, on a fresh channel, to the same target: another gateway behind it takes over.
 *
 * The session (bot.proto): send Hello first; wait for Welcome; then answer every DecisionRequest with a
 * Decision echoing match_id and request_id (an index into legal_actions), every Ping with a Pong
 * carrying the same nonce; log MatchStarted / MatchEnded and in-band Errors.
 *
 * The strategy's bug costs one decision: when it throws (or returns no legal index), the error is logged with its
 * stack, the match id, the decision number and the observation's short form, and the decision is answered with the
 * safe legal action (the one the arena's own fallback would play: draw or pass, accept, the first colour; never a
 * challenge or a catch), in time, without a strike; the other matches go on. Connecting, disconnecting and
 * reconnecting are logged at info; a bot the arena refuses for good (a wrong token) ends with one error line and
 * exit code 3.
 */

const grpc = require('@grpc/grpc-js');
const { loadBotService } = require('./proto');
const { chooseAction, enumName, safeAction } = require('./strategy');

const STATUS_NAMES = Object.fromEntries(Object.entries(grpc.status).map(([name, code]) => [code, name]));
/** Stream statuses after which reconnecting cannot help: the token or the protocol is wrong. */
const FATAL_CODES = new Set([grpc.status.UNAUTHENTICATED, grpc.status.PERMISSION_DENIED, grpc.status.UNIMPLEMENTED]);

function statusName(code) {
  return STATUS_NAMES[code] || `CODE_${code}`;
}

/** A minimal levelled logger writing one line per entry to stderr. */
function makeLogger(level = 'info', sink = process.stderr) {
  const order = { debug: 10, info: 20, warn: 30, error: 40 };
  const threshold = order[level] || order.info;
  const write = (lvl) => (message) => {
    if (order[lvl] >= threshold) sink.write(`${new Date().toISOString()} ${lvl.toUpperCase()} ${message}\n`);
  };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

class ArenaBot {
  /**
   * @param {object} options
   * @param {string} options.target host:port of the arena's gRPC gateway
   * @param {string} options.token the bot's bearer token (from ArenaService.RegisterBot)
   * @param {string} [options.name] shown in logs and in Hello.bot_version
   * @param {number} [options.maxMatches] Hello.max_concurrent_matches
   * @param {boolean} [options.humanGames] Hello.accepts_human_games: the web front may seat the bot against people
   * @param {string} [options.protoDir] the repository's proto/ folder
   * @param {boolean} [options.tls] use TLS with the system roots instead of a plaintext channel
   * @param {Buffer} [options.tlsCaPem] PEM of the CA (or self-signed certificate) to trust instead (implies TLS)
   * @param {Function} [options.strategy] (observation, legal_actions, matchState) => index; matchState is a fresh
   *   object per attempt of a match (MatchStarted.attempt), the strategy's to keep per-match state in
   * @param {object} [options.logger]
   * @param {number} [options.backoffInitialMs] first reconnection delay
   * @param {number} [options.backoffMaxMs] longest reconnection delay
   */
  constructor(options) {
    this.target = options.target;
    this.token = options.token;
    this.name = options.name || 'js-bot';
    this.version = options.version || '0.1.0';
    this.maxMatches = Math.max(1, options.maxMatches || 4);
    this.humanGames = Boolean(options.humanGames);
    this.strategy = options.strategy || chooseAction;
    this.log = options.logger || makeLogger('info');
    this.backoffInitialMs = options.backoffInitialMs || 500;
    this.backoffMaxMs = options.backoffMaxMs || 30000;
    const { BotService } = loadBotService(options.protoDir);
    const credentials = options.tls || options.tlsCaPem
      ? grpc.credentials.createSsl(options.tlsCaPem || null)
      : grpc.credentials.createInsecure();
    // A fresh channel after a Goodbye: the old one's connection went to the gateway that left.
    this.makeClient = () =>
      new BotService(this.target, credentials, {
        // Transport keepalive (about 20 s / 10 s) on top of the arena's in-band Ping.
        'grpc.keepalive_time_ms': 20000,
        'grpc.keepalive_timeout_ms': 10000,
      });
    this.client = this.makeClient();
    this.movingUntil = 0; // after a Goodbye, reconnection attempts back off to at most 1 s for 30 s
    this.stopping = false;
    this.call = null;
    this.wakeUp = null; // resolves the backoff sleep early on stop()
    // match_id -> {seat, attempt, decisions, startedAt, state}: one fresh entry per attempt of a match (a match the
    // arena aborted is played again as a new attempt, from the same seed); `state` is the strategy's own, per match.
    this.matches = new Map();
    this.stats = { sessions: 0, welcomes: 0, matches: 0, wins: 0, decisions: 0, errors: 0, strategyErrors: 0 };
    this.exitCode = 0;
  }

  /** Runs sessions until stop() or a fatal status; resolves with the process exit code. */
  async run() {
    let delay = this.backoffInitialMs;
    while (!this.stopping) {
      const outcome = await this.session();
      if (this.stopping) break;
      if (outcome.fatal) {
        this.log.error(`the arena refused the bot: ${outcome.reason}`);
        this.exitCode = 3;
        this.client.close();
        return this.exitCode;
      }
      if (outcome.goodbye) {
        // The gateway drains: reconnect at once (after the pause it asked for) on a fresh channel.
        this.client.close();
        this.client = this.makeClient();
        this.movingUntil = Date.now() + 30000;
        delay = this.backoffInitialMs;
        const pause = Number(outcome.goodbye.reconnect_after_ms || 0);
        this.log.info(`goodbye from the arena (${outcome.goodbye.reason}); reconnecting in ${pause} ms`);
        if (pause > 0) await this.sleep(pause);
        continue;
      }
      if (outcome.welcomed) delay = this.backoffInitialMs; // a session that got going resets the backoff
      const wait = Math.round(delay / 2 + Math.random() * (delay / 2));
      this.log.info(`disconnected from ${this.target} (${outcome.reason}); reconnecting in ${wait} ms`);
      await this.sleep(wait);
      delay = Math.min(delay * 2, Date.now() < this.movingUntil ? Math.min(1000, this.backoffMaxMs) : this.backoffMaxMs);
    }
    this.client.close();
    this.log.info(
      `stopped: ${this.stats.matches} matches ended (${this.stats.wins} won), ${this.stats.decisions} decisions, ` +
        `${this.stats.errors} errors, ${this.stats.strategyErrors} strategy errors, ${this.stats.sessions} sessions`,
    );
    return this.exitCode;
  }

  /** Ends the session: half-closes the stream, cancels it if the arena does not end it soon. */
  stop(reason = 'stop requested') {
    if (this.stopping) return;
    this.stopping = true;
    this.log.info(`shutting down: ${reason}`);
    if (this.wakeUp) this.wakeUp();
    const call = this.call;
    if (call) {
      try {
        call.end();
      } catch (err) {
        this.log.debug(`end: ${err.message}`);
      }
      setTimeout(() => call.cancel(), 2000).unref();
    }
  }

  sleep(ms) {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wakeUp = null;
        resolve();
      }, ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        this.wakeUp = null;
        resolve();
      };
    });
  }

  /** One BotService.Connect stream, from Hello to its status; resolves with {welcomed, fatal, reason}. */
  session() {
    return new Promise((resolve) => {
      const metadata = new grpc.Metadata();
      metadata.set('authorization', `Bearer ${this.token}`);
      const call = this.client.Connect(metadata);
      this.call = call;
      this.stats.sessions += 1;
      const state = { welcomed: false, fatal: false, reason: '', lastHeard: Date.now(), silenceMs: 15000 };
      let settled = false;
      const finish = (reason) => {
        if (settled) return;
        settled = true;
        clearInterval(watchdog);
        this.call = null;
        if (!state.reason) state.reason = reason;
        resolve(state);
      };
      // Watchdog: before Welcome allow 15 s; after it, three heartbeat intervals of silence mean the
      // arena (or the path to it) is gone, so cancel and reconnect.
      const watchdog = setInterval(() => {
        if (Date.now() - state.lastHeard > state.silenceMs) {
          state.reason = `no message from the arena for ${state.silenceMs} ms`;
          call.cancel();
        }
      }, 1000);
      watchdog.unref();

      call.on('data', (message) => {
        state.lastHeard = Date.now();
        try {
          this.handle(call, message, state);
        } catch (err) {
          this.log.error(`handling ${message && message.payload}: ${err.stack || err}`);
        }
      });
      call.on('error', (err) => {
        if ((this.stopping || state.goodbye) && err.code === grpc.status.CANCELLED) return;
        // Refused for good: a wrong token, or (before Welcome) a protocol the arena does not speak.
        if (FATAL_CODES.has(err.code) || (!state.welcomed && err.code === grpc.status.FAILED_PRECONDITION)) {
          state.fatal = true;
          state.reason = `${statusName(err.code)}: ${err.details}`;
        }
        if (!state.fatal) this.log.debug(`stream error ${statusName(err.code)}: ${err.details}`);
      });
      call.on('status', (status) => {
        finish(`status ${statusName(status.code)}${status.details ? `: ${status.details}` : ''}`);
      });
      call.on('end', () => {
        // The server closed its side; 'status' follows with the code.
        this.log.debug('arena closed the stream');
      });

      this.log.info(`${this.stats.welcomes ? 'reconnecting' : 'connecting'} to ${this.target} as ${this.name}`);
      call.write({
        hello: {
          protocol_version: 'PROTOCOL_VERSION_1',
          bot_version: `${this.name} (uno-arena-bot-js ${this.version})`,
          max_concurrent_matches: this.maxMatches,
          // Several waiting messages may then come in one ArenaBatch (handled below, in order).
          accepts_batches: true,
          accepts_human_games: this.humanGames,
        },
      });
      if (this.stopping) call.end();
    });
  }

  /** Dispatches one ArenaMessage. */
  handle(call, message, state) {
    switch (message.payload) {
      case 'batch':
        for (const inner of message.batch.messages) this.handle(call, inner, state);
        break;
      case 'welcome': {
        const w = message.welcome;
        state.welcomed = true;
        this.stats.welcomes += 1;
        if (w.heartbeat_interval_ms > 0) state.silenceMs = Math.max(3 * w.heartbeat_interval_ms, 5000);
        this.log.info(
          `${this.stats.welcomes > 1 ? 'reconnected' : 'connected'} to ${this.target}; welcome: session ${w.session_id}, ` +
            `bot ${w.bot_name} (${w.bot_id}), ${w.protocol_version}, ` +
            `heartbeat ${w.heartbeat_interval_ms} ms, ${w.max_concurrent_matches} concurrent matches` +
            `${w.batches ? ', batches' : ''}`,
        );
        break;
      }
      case 'ping':
        call.write({ pong: { nonce: message.ping.nonce } });
        break;
      case 'goodbye':
        // The gateway drains: leave this stream now; run() reconnects at once.
        state.goodbye = message.goodbye;
        state.reason = `goodbye: ${message.goodbye.reason}`;
        call.cancel();
        break;
      case 'decision_request': {
        const r = message.decision_request;
        const known = this.matches.get(r.match_id);
        // A request of an aborted attempt: the new attempt's bot must not see it (the arena no longer waits for it).
        if (r.attempt && known && known.attempt && r.attempt < known.attempt) {
          this.log.info(`match ${r.match_id}: ignoring a request of attempt ${r.attempt} (attempt ${known.attempt} is on)`);
          break;
        }
        this.decide(call, r);
        break;
      }
      case 'match_started': {
        const m = message.match_started;
        const attempt = m.attempt || 0;
        const known = this.matches.get(m.match_id);
        // The same attempt again (after a reconnect): keep what we have. A new attempt: start afresh.
        if (known && known.attempt === attempt) break;
        if (known) this.log.info(`match ${m.match_id}: attempt ${attempt} replaces attempt ${known.attempt}`);
        this.matches.set(m.match_id, { seat: m.seat, attempt, decisions: 0, startedAt: Date.now(), state: {} });
        const table = (m.seats || []).map((s) => `${s.seat}:${s.bot_name}`).join(' ');
        this.log.info(
          `match ${m.match_id} started: seat ${m.seat}, table [${table}], ${(m.rules && m.rules.variant) || 'default rules'}, ` +
            `${m.decision_time_limit_ms} ms per decision${m.tournament_id ? `, tournament ${m.tournament_id}` : ''}`,
        );
        break;
      }
      case 'match_events': {
        const e = message.match_events;
        for (const event of e.events || []) this.log.debug(`match ${e.match_id}: ${event.text || event.type}`);
        break;
      }
      case 'match_ended': {
        const e = message.match_ended;
        let match = this.matches.get(e.match_id);
        // The end of an older attempt (it may come after the next attempt started) ends nothing of this one.
        if (match && e.attempt && match.attempt && e.attempt < match.attempt) match = undefined;
        else this.matches.delete(e.match_id);
        this.stats.matches += 1;
        const result = e.result || {};
        const winner = result.winner === undefined || result.winner === null ? 'none' : result.winner;
        const won = match && result.winner === match.seat;
        if (won) this.stats.wins += 1;
        this.log.info(
          `match ${e.match_id} ended: ${e.reason}, winner ${winner}${match ? ` (we were seat ${match.seat}${won ? ', won' : ''})` : ''}, ` +
            `scores [${(result.scores || []).join(', ')}], ${result.rounds} rounds${e.detail ? `: ${e.detail}` : ''}`,
        );
        break;
      }
      case 'error': {
        const err = message.error;
        const status = err.status || {};
        this.stats.errors += 1;
        const where = [err.match_id && `match ${err.match_id}`, err.request_id && `request ${err.request_id}`].filter(Boolean).join(', ');
        this.log.warn(`arena error ${statusName(status.code)}${where ? ` (${where})` : ''}: ${status.message}`);
        if (!state.welcomed && (status.code === grpc.status.FAILED_PRECONDITION || status.code === grpc.status.UNAUTHENTICATED)) {
          // The session was refused outright (e.g. an unsupported protocol version).
          state.fatal = true;
          state.reason = `session refused: ${statusName(status.code)}: ${status.message}`;
        }
        break;
      }
      default:
        this.log.debug(`ignoring unknown message ${message.payload}`);
    }
  }

  /** Answers one DecisionRequest by index, well inside its time limit. */
  decide(call, request) {
    const started = process.hrtime.bigint();
    const legal = request.legal_actions || [];
    let index = 0;
    const known = this.matches.get(request.match_id);
    // The same decision asked again (its first request was lost with a gateway): the same answer, without asking
    // the strategy twice, so its state is as in a run without the fault.
    if (known && request.decision_number && known.last && known.last.number === request.decision_number) {
      call.write({ decision: { match_id: request.match_id, request_id: request.request_id, action_index: known.last.index } });
      return;
    }
    try {
      index = this.strategy(request.observation, legal, known ? known.state : {});
      if (!Number.isInteger(index) || index < 0 || index >= legal.length) {
        throw new RangeError(`the strategy returned ${index}: not an index into the ${legal.length} legal actions`);
      }
    } catch (err) {
      index = safeAction(legal);
      this.stats.strategyErrors += 1;
      const chosen = (legal[index] && legal[index].text) || `index ${index}`;
      this.log.error(
        `match ${request.match_id}, decision ${request.decision_number} (${shortForm(request)}): the strategy ` +
          `failed; answered with the safe legal action ${index} (${chosen}) instead: ${err.stack || err}`,
      );
    }
    if (known && request.decision_number) known.last = { number: request.decision_number, index };
    call.write({ decision: { match_id: request.match_id, request_id: request.request_id, action_index: index } });
    this.stats.decisions += 1;
    const match = this.matches.get(request.match_id);
    if (match) match.decisions += 1;
    const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
    if (request.time_limit_ms && elapsedMs > request.time_limit_ms / 2) {
      this.log.warn(`decision ${request.request_id} took ${elapsedMs.toFixed(1)} ms of ${request.time_limit_ms} ms`);
    }
    this.log.debug(`match ${request.match_id} #${request.decision_number}: ${(legal[index] && legal[index].text) || index}`);
  }
}

/** One line about a decision request for a log: the bot's own view only (never another seat's cards). */
function shortForm(request) {
  const o = request.observation || {};
  const top = (o.top && (o.top.text || [o.top.color, o.top.kind].filter(Boolean).join('-'))) || '?';
  return (
    `seat ${o.seat ?? '?'}, ${enumName(o.decision, 'DECISION_KIND_') || '?'} decision, round ${o.round ?? '?'}, ` +
    `top ${top}, ` +
    `${(o.hand || []).length} cards in hand, ${(request.legal_actions || []).length} legal actions`
  );
}

module.exports = { ArenaBot, makeLogger, statusName, shortForm };
