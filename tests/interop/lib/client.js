'use strict';
// What every interop script shares: the ali-ons options for this cluster, a logger that keeps the
// client's own log in a file and counts the events the checks need, and the error classifier.
//
// Environment (set by interop_test.sh):
//   FERRY_NAMESRV            NameServer address, 127.0.0.1:PORT (required)
//   FERRY_INTEROP_LOG        file the client's log lines are appended to (default: none)
//   FERRY_ACCESS_KEY / FERRY_SECRET_KEY   when both are set, ali-ons signs every request with them
//                            (its Channel adds AccessKey, Signature and OnsChannel extFields);
//                            for the broker's ACL once it has one.

const fs = require('fs');
const util = require('util');

function die(message) {
  process.stderr.write(`FAIL: ${message}\n`);
  process.exit(1);
}

// --name value pairs and bare --flag switches; unknown names are an error.
function parseArgs(argv, spec) {
  const out = {};
  for (const [ name, def ] of Object.entries(spec)) out[name] = def;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) die(`unexpected argument '${a}'`);
    const name = a.slice(2);
    if (!(name in spec)) die(`unknown flag --${name} (known: ${Object.keys(spec).join(', ')})`);
    if (typeof spec[name] === 'boolean') {
      out[name] = true;
    } else {
      if (i + 1 >= argv.length) die(`--${name} needs a value`);
      out[name] = typeof spec[name] === 'number' ? Number(argv[++i]) : argv[++i];
      if (typeof spec[name] === 'number' && !Number.isFinite(out[name])) die(`--${name}: not a number`);
    }
  }
  return out;
}

// A logger in ali-ons' shape (info/warn/error/debug with printf-style arguments). Every line goes
// to FERRY_INTEROP_LOG; `events` keeps the ones the checks read.
class RecordingLogger {
  constructor(tag) {
    this.tag = tag;
    this.path = process.env.FERRY_INTEROP_LOG || '';
    // [mq:consumer] read lastOffset => N from store ... queueId="Q": where a queue resumes.
    this.storedOffsets = [];
    // Messages the broker delivered that the client's own tag check dropped (the broker's filter
    // let them through).
    this.clientFiltered = 0;
  }

  write(level, args) {
    const text = util.format(...args.map(a => (a instanceof Error ? a.stack : a)));
    if (this.path) fs.appendFileSync(this.path, `${new Date().toISOString()} ${this.tag} ${level} ${text}\n`);
    return text;
  }

  info(...args) {
    const text = this.write('INFO', args);
    const m = /read lastOffset => (-?\d+) from store, topic="([^"]*)", brokerName="([^"]*)", queueId="(\d+)"/.exec(text);
    if (m) this.storedOffsets.push({ topic: m[2], brokerName: m[3], queueId: Number(m[4]), offset: Number(m[1]) });
  }

  debug(...args) {
    const text = this.write('DEBUG', args);
    if (text.startsWith('[MQPushConsumer] message filter by tags')) this.clientFiltered++;
  }

  warn(...args) { this.write('WARN', args); }
  error(...args) { this.write('ERROR', args); }
}

function clientOptions(logger, extra) {
  const nameSrv = process.env.FERRY_NAMESRV;
  if (!nameSrv) die('FERRY_NAMESRV is not set (127.0.0.1:PORT of the NameServer)');
  const options = {
    nameSrv,
    // ali-ons asserts an httpclient; it is only used to look up NameServers when nameSrv is unset.
    httpclient: {},
    logger,
  };
  if (process.env.FERRY_ACCESS_KEY && process.env.FERRY_SECRET_KEY) {
    options.accessKey = process.env.FERRY_ACCESS_KEY;
    options.secretKey = process.env.FERRY_SECRET_KEY;
  }
  return Object.assign(options, extra);
}

// The client's 'error' events, sorted: the ones a healthy RocketMQ cluster also produces are
// counted, anything else fails the script at the end.
class ErrorBook {
  constructor() {
    this.expected = {};
    this.unexpected = [];
  }

  // `allowed` maps a name to a predicate over the error.
  watch(emitter, allowed) {
    emitter.on('error', err => {
      for (const [ name, test ] of Object.entries(allowed)) {
        if (test(err)) {
          this.expected[name] = (this.expected[name] || 0) + 1;
          return;
        }
      }
      this.unexpected.push(`${err.name}: ${err.message}`);
    });
  }
}

// Before a consumer's first heartbeat the broker has not created %RETRY%{group} yet, so its first
// route query answers TOPIC_NOT_EXIST (17): RocketMQ's brokers do the same.
function isRetryRouteNotFoundYet(err) {
  return err.code === 17 && /No topic route info in name server for the topic: %RETRY%/.test(err.message);
}

// Resolves with `promise`, or rejects naming `what` after `ms`.
function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no result within ${ms} ms`)), ms);
  });
  return Promise.race([ promise, timeout ]).finally(() => clearTimeout(timer));
}

function readJsonLines(path) {
  let text;
  try {
    text = fs.readFileSync(path, 'utf8');
  } catch (err) {
    die(`cannot read ${path}: ${err.message}`);
  }
  return text.split('\n').filter(l => l.trim() !== '').map((l, n) => {
    try {
      return JSON.parse(l);
    } catch (err) {
      return die(`${path}:${n + 1}: not JSON: ${err.message}`);
    }
  });
}

module.exports = { die, parseArgs, RecordingLogger, clientOptions, ErrorBook, isRetryRouteNotFoundYet, withTimeout, readJsonLines };
