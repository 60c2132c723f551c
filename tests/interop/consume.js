'use strict';
// Consumes with ali-ons' push Consumer (clustering) until every expected message arrived, waits
// --settle-ms more for extras and duplicates, closes (which commits the offsets) and checks what
// a user would: nothing lost, nothing unexpected, each body with its tag and key, duplicates
// reported. Prints one summary line, "consume: {...}" (JSON).
//
//   node consume.js --topic T --group G --expect FILE [--sub EXPR | --sql EXPR] [--only-tag TAG]
//                   [--from first|default] [--throw-once] [--expect-compressed]
//                   [--resume-after FILE] [--timeout-ms N] [--settle-ms N]
//
// --expect FILE       JSON lines {body or bodySha, tag, key, [msgId]} (produce.js writes them);
//                     with msgId, the delivered message must carry that offset msgId
// --sql EXPR          subscribe with SQL92 ({expressionType: 'SQL92', subString: EXPR}); the
//                     broker alone filters (ali-ons re-checks tags only)
// --only-tag TAG      expect only the lines with this tag (a tag-filtered --sub); the client's own
//                     tag check must drop nothing (the broker filtered)
// --from default      ali-ons' default consumeFromWhere (CONSUME_FROM_LAST_OFFSET): a new group
//                     still starts at 0 when the broker answers QUERY_CONSUMER_OFFSET with 0
// --throw-once        the handler throws at the first delivery of each message; the second must
//                     come back through %RETRY%{group} (reconsumeTimes 1, RETRY_TOPIC = --topic,
//                     ORIGIN_MESSAGE_ID = the first delivery's msgId)
// --expect-compressed every message arrives with sysFlag bit 0 (the producer compressed it)
// --resume-after FILE the group consumed and committed exactly the messages of FILE before: each
//                     queue of --topic must resume at (its last offset in FILE) + 1, or 0
const crypto = require('crypto');
const { Consumer } = require('ali-ons');
const {
  die, parseArgs, RecordingLogger, clientOptions, ErrorBook, isRetryRouteNotFoundYet, withTimeout, readJsonLines,
} = require('./lib/client');

const args = parseArgs(process.argv.slice(2), {
  topic: '', group: '', expect: '', sub: '*', sql: '', 'only-tag': '', from: 'first', 'throw-once': false,
  'expect-compressed': false, 'resume-after': '', 'timeout-ms': 30000, 'settle-ms': 1500,
});
if (!args.topic || !args.group || !args.expect) die('consume needs --topic, --group and --expect');
if (![ 'first', 'default' ].includes(args.from)) die(`--from ${args.from}: first or default`);

const sha = buf => crypto.createHash('sha256').update(buf).digest('hex');

const expected = new Map();  // bodySha -> expected line
for (const line of readJsonLines(args.expect)) {
  if (args['only-tag'] && line.tag !== args['only-tag']) continue;
  const key = line.bodySha || sha(Buffer.from(line.body));
  if (expected.has(key)) die(`${args.expect}: two lines with the same body (${line.body || key})`);
  expected.set(key, line);
}
if (expected.size === 0) die(`${args.expect}: nothing to expect`);

const problems = [];
const delivered = new Map();  // bodySha -> successful deliveries
const failedOnce = new Map();  // bodySha -> msgId of the delivery that threw
let deliveries = 0;
let retried = 0;

function show(line) {
  return line.body !== undefined ? `'${line.body}'` : `${line.bodyLen}-byte body ${line.bodySha.slice(0, 12)}`;
}

async function handle(msg) {
  deliveries++;
  const body = msg.body || Buffer.alloc(0);
  const key = sha(body);
  const want = expected.get(key);
  if (!want) {
    problems.push(`unexpected message ${msg.msgId} on ${msg.topic}: body '${body.toString().slice(0, 80)}'`);
    return;
  }
  if (msg.topic !== args.topic) problems.push(`${show(want)} arrived with topic '${msg.topic}'`);
  if (msg.tags !== want.tag) problems.push(`${show(want)} arrived with tag '${msg.tags}', sent '${want.tag}'`);
  if (msg.keys !== want.key) problems.push(`${show(want)} arrived with keys '${msg.keys}', sent '${want.key}'`);
  if (args['expect-compressed'] && (msg.sysFlag & 1) !== 1) {
    problems.push(`${show(want)} arrived with sysFlag ${msg.sysFlag}: not marked compressed`);
  }
  const firstMsgId = failedOnce.get(key);
  if (args['throw-once'] && firstMsgId === undefined) {
    failedOnce.set(key, msg.msgId);
    if (want.msgId && msg.msgId !== want.msgId) problems.push(`${show(want)}: msgId ${msg.msgId}, the producer got ${want.msgId}`);
    throw new Error(`interop: the first delivery of ${show(want)} fails on purpose`);
  }
  if (args['throw-once']) {
    retried++;
    if (msg.reconsumeTimes !== 1) problems.push(`${show(want)} redelivered with reconsumeTimes ${msg.reconsumeTimes}, expected 1`);
    if (msg.retryTopic !== args.topic) problems.push(`${show(want)} redelivered with RETRY_TOPIC '${msg.retryTopic}'`);
    if (msg.originMessageId !== firstMsgId) {
      problems.push(`${show(want)} redelivered with ORIGIN_MESSAGE_ID '${msg.originMessageId}', first delivery was ${firstMsgId}`);
    }
    if (msg.msgId === firstMsgId) problems.push(`${show(want)} redelivered as the same stored message ${msg.msgId}, not a retry copy`);
  } else if (want.msgId && msg.msgId !== want.msgId) {
    problems.push(`${show(want)}: msgId ${msg.msgId}, the producer got ${want.msgId}`);
  }
  delivered.set(key, (delivered.get(key) || 0) + 1);
}

function expectedResumeOffsets() {
  const next = new Map();  // queueId -> offset to resume at
  for (const line of readJsonLines(args['resume-after'])) {
    next.set(line.queueId, Math.max(next.get(line.queueId) || 0, line.queueOffset + 1));
  }
  return next;
}

async function main() {
  const logger = new RecordingLogger('consumer');
  const errors = new ErrorBook();
  const options = { consumerGroup: args.group };
  if (args.from === 'first') options.consumeFromWhere = 'CONSUME_FROM_FIRST_OFFSET';
  const consumer = new Consumer(clientOptions(logger, options));
  errors.watch(consumer, {
    'retry topic route not there before the first heartbeat': isRetryRouteNotFoundYet,
    'handler threw on purpose': err => args['throw-once'] && /fails on purpose/.test(err.message),
  });
  const subscription = args.sql ? { expressionType: 'SQL92', subString: args.sql } : args.sub;
  consumer.subscribe(args.topic, subscription, handle);
  await withTimeout(consumer.ready(), 20000, 'consumer start');

  const started = Date.now();
  while (delivered.size < expected.size && Date.now() - started < args['timeout-ms']) {
    await new Promise(r => setTimeout(r, 100));
  }
  const waitedMs = Date.now() - started;
  await new Promise(r => setTimeout(r, args['settle-ms']));
  await withTimeout(consumer.close(), 15000, 'consumer close');

  const missing = [ ...expected.entries() ].filter(([ k ]) => !delivered.has(k)).map(([ , line ]) => line);
  const duplicates = [ ...delivered.values() ].reduce((n, c) => n + c - 1, 0);
  if (missing.length) {
    problems.push(`${missing.length} of ${expected.size} messages never arrived within ${args['timeout-ms']} ms, e.g. ` +
      missing.slice(0, 5).map(show).join(', '));
  }
  if (args['only-tag'] && logger.clientFiltered) {
    problems.push(`the broker delivered ${logger.clientFiltered} messages the '${args.sub}' subscription does not match (ali-ons dropped them)`);
  }
  let resumed;
  if (args['resume-after']) {
    const want = expectedResumeOffsets();
    const got = logger.storedOffsets.filter(o => o.topic === args.topic);
    resumed = got.map(o => `q${o.queueId}@${o.offset}`).join(' ');
    if (got.length === 0) problems.push(`the consumer never read a stored offset for ${args.topic}`);
    for (const o of got) {
      const w = want.get(o.queueId) || 0;
      if (o.offset !== w) problems.push(`queue ${o.queueId} resumed at stored offset ${o.offset}, committed was ${w}`);
    }
    for (const q of want.keys()) {
      if (!got.some(o => o.queueId === q)) problems.push(`queue ${q} (with committed messages) was never resumed`);
    }
  }
  if (errors.unexpected.length) problems.push(`the client reported errors:\n    ${errors.unexpected.join('\n    ')}`);

  const summary = {
    topic: args.topic, group: args.group, sub: args.sql ? `SQL92 ${args.sql}` : args.sub, expected: expected.size, received: delivered.size,
    deliveries, duplicates, retried, waitedMs, clientFiltered: logger.clientFiltered, tolerated: errors.expected,
  };
  if (resumed !== undefined) summary.resumed = resumed;
  console.log(`consume: ${JSON.stringify(summary)}`);
  if (problems.length) die(`consume ${args.topic} as ${args.group}:\n  ${problems.join('\n  ')}`);
}

main().then(() => process.exit(0), err => die(`consume: ${err.stack || err}`));
