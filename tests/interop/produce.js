'use strict';
// Sends --count messages with ali-ons' Producer, one at a time, and checks each result as a user
// would: SEND_OK, a 32-hex-digit msgId naming this broker, a queue of the topic and an offset
// that grows by one per message on that queue. Writes one JSON line per message to --out:
//   {"i":0,"body":"...","bodySha":"<sha256 hex>","bodyLen":N,"tag":"TagA","key":"k-0",
//    "msgId":"7F000001...","queueId":2,"queueOffset":17}
// ("body" only for bodies up to 256 bytes).
//
//   node produce.js --topic T --count N --out FILE [--prefix P] [--tags A,B,C] [--body-bytes N]
//                   [--group PID_...]
// Bodies are "<prefix>-<i>", or with --body-bytes a deterministic text of exactly that size
// (ali-ons compresses bodies of 4096 bytes and more). Tags cycle through --tags; keys are
// "<prefix>-key-<i>". With FERRY_BROKER_HEX set (interop_test.sh: 7F000001 and the broker's port,
// 16 hex digits), every msgId must start with it: the offset msgId of this broker.
const crypto = require('crypto');
const fs = require('fs');
const { Producer, Message } = require('ali-ons');
const { die, parseArgs, RecordingLogger, clientOptions, ErrorBook, withTimeout } = require('./lib/client');

const args = parseArgs(process.argv.slice(2), {
  topic: '', count: 0, out: '', prefix: 'm', tags: 'TagA', 'body-bytes': 0, group: 'PID_FERRY_INTEROP',
});
if (!args.topic || !args.out || args.count <= 0) die('produce needs --topic, --out and --count > 0');

function bodyOf(i) {
  const base = `${args.prefix}-${i}`;
  if (args['body-bytes'] <= 0) return Buffer.from(base);
  let text = '';
  for (let line = 0; text.length < args['body-bytes']; line++) text += `${base} line ${line} ${(line * 7919) % 10007}\n`;
  return Buffer.from(text.slice(0, args['body-bytes']));
}

async function main() {
  const logger = new RecordingLogger('producer');
  const errors = new ErrorBook();
  const producer = new Producer(clientOptions(logger, { producerGroup: args.group }));
  errors.watch(producer, {});
  await withTimeout(producer.ready(), 20000, 'producer start');

  const tags = args.tags.split(',');
  const lastOffset = new Map();  // queueId -> the previous queueOffset this run saw
  const lines = [];
  const storeHost = process.env.FERRY_BROKER_HEX || '';
  for (let i = 0; i < args.count; i++) {
    const body = bodyOf(i);
    const tag = tags[i % tags.length];
    const key = `${args.prefix}-key-${i}`;
    const msg = new Message(args.topic, tag, body);
    msg.keys = [ key ];
    const r = await withTimeout(producer.send(msg), 10000, `send #${i}`);
    if (r.sendStatus !== 'SEND_OK') die(`send #${i}: status ${r.sendStatus}, expected SEND_OK`);
    if (!/^[0-9A-F]{32}$/.test(r.msgId || '')) die(`send #${i}: msgId '${r.msgId}' is not 32 upper-case hex digits`);
    if (storeHost && !r.msgId.startsWith(storeHost)) die(`send #${i}: msgId ${r.msgId} does not start with the broker's address ${storeHost}`);
    const q = r.messageQueue.queueId;
    const off = r.queueOffset;
    if (r.messageQueue.topic !== args.topic) die(`send #${i}: queue of topic '${r.messageQueue.topic}'`);
    if (!Number.isInteger(q) && !/^\d+$/.test(String(q))) die(`send #${i}: queueId '${q}' is not a number`);
    if (!Number.isInteger(off) || off < 0) die(`send #${i}: queueOffset '${off}' is not an offset`);
    const prev = lastOffset.get(Number(q));
    if (prev !== undefined && off !== prev + 1) die(`send #${i}: queue ${q} offset ${off} after ${prev} (expected ${prev + 1})`);
    lastOffset.set(Number(q), off);
    const line = {
      i, bodySha: crypto.createHash('sha256').update(body).digest('hex'), bodyLen: body.length,
      tag, key, msgId: r.msgId, queueId: Number(q), queueOffset: off,
    };
    if (body.length <= 256) line.body = body.toString();
    lines.push(JSON.stringify(line));
  }
  fs.writeFileSync(args.out, lines.join('\n') + '\n');
  await withTimeout(producer.close(), 10000, 'producer close');
  if (errors.unexpected.length) die(`producer reported errors:\n  ${errors.unexpected.join('\n  ')}`);
  const perQueue = [ ...lastOffset.entries() ].sort((a, b) => a[0] - b[0]).map(([ q, o ]) => `q${q}..${o}`).join(' ');
  console.log(`produce: ${args.count} x SEND_OK to ${args.topic} (last offsets ${perQueue})`);
}

main().then(() => process.exit(0), err => die(`produce: ${err.stack || err}`));
