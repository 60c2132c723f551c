// RocketMQ 5's official Node.js client (rocketmq-client-nodejs, gRPC) against Ferry through
// mqproxy: one case per run, driven by interop_v2_test.sh. Each case asserts what an application
// would check and exits 1 with the reason on the first failure.
//
//   node cases.js CASE --endpoints 127.0.0.1:8081 [--go FILE]
//
// Cases: normal, fifo, delay, transaction, invisible, push, big, restart, tls, acl (its accounts come
// from the environment: FERRY_V2_PRODUCER_KEYS and FERRY_V2_CONSUMER_KEYS, "accessKey:secret").
'use strict';

const fs = require('fs');
const crypto = require('crypto');
const { Producer, SimpleConsumer, PushConsumer, ConsumeResult } = require('rocketmq-client-nodejs');

const args = process.argv.slice(2);
const kase = args[0];
const flag = (name, dflt) => {
  const i = args.indexOf('--' + name);
  return i >= 0 ? args[i + 1] : dflt;
};
const endpoints = flag('endpoints');
if (!kase || !endpoints) {
  console.error('usage: node cases.js CASE --endpoints host:port [--go FILE]');
  process.exit(2);
}

// The client's own log goes to $HOME/logs/rocketmq (the test points HOME at its temp folder);
// shutdown() closes it, so only the first shutdown may log.
const quiet = { info() {}, warn() {}, error(...a) { console.error('client:', ...a); }, debug() {} };

function check(cond, what) {
  if (!cond) throw new Error(what);
}
// An error with its causes ("a <- b <- c"): the client wraps a refusal in its startup error.
function why(e) {
  const parts = [];
  for (let x = e; x && parts.length < 8; x = x.cause) parts.push(String(x.message || x).split('\n')[0]);
  return parts.join(' <- ');
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function startProducer(topics, extra = {}) {
  const p = new Producer({ endpoints, topics, logger: quiet, ...extra });
  await withTimeout(p.startup(), 30000, 'the producer did not start (Telemetry settings)');
  return p;
}
async function startConsumer(group, subscriptions, extra = {}) {
  const c = new SimpleConsumer({
    endpoints, consumerGroup: group, subscriptions: new Map(subscriptions), awaitDuration: 3000, logger: quiet, ...extra,
  });
  await withTimeout(c.startup(), 30000, `the consumer ${group} did not start`);
  return c;
}
function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms); }),
  ]).finally(() => clearTimeout(timer));
}
async function shutdownAll(...clients) {
  for (const c of clients) {
    try { await c.shutdown(); } catch (e) { /* the shared log closed by an earlier shutdown */ }
  }
}

// Receives until `want(seen)` says done or `ms` passes; each message goes to onMessage, which
// says whether to ack it.
async function receiveUntil(consumer, ms, onMessage, done, invisibleMs = 15000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && !done()) {
    const msgs = await consumer.receive(16, invisibleMs);
    for (const m of msgs) {
      if (await onMessage(m)) await consumer.ack(m);
    }
  }
}

const cases = {
  // Tags, keys, properties and bodies as sent; a second group with a tag filter gets only its tag.
  async normal() {
    const topic = 'V2Normal';
    const producer = await startProducer([topic]);
    const sent = new Map();
    for (let i = 0; i < 40; i++) {
      const tag = i % 2 ? 'TagB' : 'TagA';
      const body = Buffer.from(`normal-${i}`);
      const r = await producer.send({ topic, tag, keys: [`key-${i}`], body, properties: new Map([['seq', String(i)]]) });
      check(r.messageId && !sent.has(r.messageId), `send ${i} got message id ${r.messageId}`);
      sent.set(r.messageId, { tag, key: `key-${i}`, body: body.toString(), seq: String(i) });
    }
    console.log(`ok: 40 messages sent through the proxy, 40 distinct message ids`);
    const all = await startConsumer('GID_V2_ALL', [[topic, '*']]);
    const got = new Map();
    await receiveUntil(all, 60000, async (m) => {
      const want = sent.get(m.messageId);
      check(want, `received ${m.messageId}, which was not sent`);
      check(!m.corrupted, `${m.messageId} is marked corrupted (body digest)`);
      check(m.body.toString() === want.body, `${m.messageId}: body ${m.body} != ${want.body}`);
      check(m.tag === want.tag, `${m.messageId}: tag ${m.tag} != ${want.tag}`);
      check(m.keys.length === 1 && m.keys[0] === want.key, `${m.messageId}: keys ${m.keys} != ${want.key}`);
      check(m.properties.get('seq') === want.seq, `${m.messageId}: property seq ${m.properties.get('seq')} != ${want.seq}`);
      check(m.topic === topic, `${m.messageId}: topic ${m.topic}`);
      check(m.deliveryAttempt === 1, `${m.messageId}: delivery attempt ${m.deliveryAttempt} on a first delivery`);
      got.set(m.messageId, true);
      return true;
    }, () => got.size === sent.size);
    check(got.size === 40, `GID_V2_ALL received ${got.size} of 40`);
    console.log('ok: a SimpleConsumer received and acknowledged all 40 with their tags, keys, properties and bodies');
    const tagB = await startConsumer('GID_V2_TAGB', [[topic, 'TagB']]);
    const b = new Set();
    await receiveUntil(tagB, 30000, async (m) => {
      check(m.tag === 'TagB', `the TagB subscription received ${m.messageId} tagged ${m.tag}`);
      b.add(m.messageId);
      return true;
    }, () => b.size === 20);
    check(b.size === 20, `the TagB subscription received ${b.size} of 20`);
    // Nothing more comes: everything was acknowledged.
    const more = await all.receive(16, 15000);
    check(more.length === 0, `GID_V2_ALL received ${more.length} more after acknowledging all`);
    console.log('ok: a TagB subscription received exactly the 20 TagB messages; nothing came back after the acks');
    await shutdownAll(producer, all, tagB);
  },

  // Three message groups interleaved, consumed by an orderly group (mqadmin updateSubGroup -o
  // true): each group's messages are acknowledged in the order sent, although the first delivery
  // of one message is left unacknowledged (the application then leaves the rest of its group in
  // that batch too, as a FIFO application does). The queue waits for it: an ordinary group would
  // get the later messages meanwhile and acknowledge them first.
  async fifo() {
    const topic = 'V2Fifo';
    const producer = await startProducer([topic]);
    const groups = ['order-1', 'order-2', 'order-3'];
    for (let i = 0; i < 15; i++) {
      for (const g of groups) {
        await producer.send({ topic, tag: 'Fifo', messageGroup: g, body: Buffer.from(`${g}:${i}`) });
      }
    }
    const consumer = await startConsumer('GID_V2_FIFO', [[topic, '*']]);
    const acked = new Map(groups.map((g) => [g, []]));
    let left = false;
    let count = 0;
    const deadline = Date.now() + 60000;
    while (Date.now() < deadline && count < 45) {
      const msgs = await consumer.receive(16, 2000);
      const held = new Set();  // groups with a message left in this batch
      for (const m of msgs) {
        const [g, i] = m.body.toString().split(':');
        check(m.messageGroup === g, `${m.messageId}: message group ${m.messageGroup}, body says ${g}`);
        if (!left && g === 'order-1' && i === '0') {
          left = true;
          held.add(g);
          continue;
        }
        if (held.has(g)) continue;
        await consumer.ack(m);
        // At least once: a message handed out again after its ack (a FIFO queue may hand out a
        // batch again from its first unacknowledged message) is acknowledged, not counted twice.
        if (acked.get(g).includes(Number(i))) continue;
        acked.get(g).push(Number(i));
        count++;
      }
    }
    check(left, 'order-1:0 was never received');
    for (const g of groups) {
      const order = acked.get(g);
      check(order.length === 15, `group ${g}: ${order.length} of 15 acknowledged`);
      check(order.every((v, k) => v === k), `group ${g} was acknowledged out of order: ${order.join(',')}`);
    }
    console.log('ok: 3 message groups x 15 on an orderly group, each acknowledged in the order sent, one first delivery left');
    await shutdownAll(producer, consumer);
  },

  // A delivery time 3 to 5 s ahead: never received before it.
  async delay() {
    const topic = 'V2Delay';
    const producer = await startProducer([topic]);
    const consumer = await startConsumer('GID_V2_DELAY', [[topic, '*']]);
    const due = new Map();
    const sentAt = Date.now();
    for (let i = 0; i < 5; i++) {
      const at = new Date(Math.ceil((sentAt + 3000 + i * 500) / 1000) * 1000 + (i % 2) * 250);
      const r = await producer.send({ topic, tag: 'Delay', body: Buffer.from(`delay-${i}`), deliveryTimestamp: at });
      due.set(r.messageId, at.getTime());
    }
    let got = 0;
    await receiveUntil(consumer, 30000, async (m) => {
      const at = due.get(m.messageId);
      check(at !== undefined, `received ${m.messageId}, which was not sent`);
      const now = Date.now();
      check(now >= at, `${m.messageId} received ${at - now} ms before its delivery time`);
      check(m.deliveryTimestamp && m.deliveryTimestamp.getTime() === at,
        `${m.messageId}: delivery timestamp ${m.deliveryTimestamp} != ${new Date(at).toISOString()}`);
      console.log(`  ${m.messageId} due ${new Date(at).toISOString()}, received ${now - at} ms after`);
      got++;
      return true;
    }, () => got === 5);
    check(got === 5, `${got} of 5 delayed messages received within 30 s`);
    console.log('ok: 5 delayed messages, none received before its delivery time');
    await shutdownAll(producer, consumer);
  },

  // A committed transaction's message is delivered; a rolled-back one never; a second commit
  // fails; one left unknown is resolved by the producer's checker when the broker asks (the check
  // relayed over Telemetry as RecoverOrphanedTransactionCommand).
  async transaction() {
    const topic = 'V2Tx';
    const checked = [];
    const checker = {
      async check(m) {
        checked.push(m.messageId);
        return m.body.toString() === 'unknown-then-commit' ? 1 /* COMMIT */ : 2 /* ROLLBACK */;
      },
    };
    const producer = await startProducer([topic], { checker });
    const consumer = await startConsumer('GID_V2_TX', [[topic, '*']]);
    const t1 = producer.beginTransaction();
    const committed = await producer.send({ topic, tag: 'Tx', body: Buffer.from('commit-me') }, t1);
    const t2 = producer.beginTransaction();
    const rolledBack = await producer.send({ topic, tag: 'Tx', body: Buffer.from('roll-me-back') }, t2);
    const t3 = producer.beginTransaction();
    const unknown = await producer.send({ topic, tag: 'Tx', body: Buffer.from('unknown-then-commit') }, t3);
    // Half messages are not delivered before their end.
    const early = await consumer.receive(16, 15000);
    check(early.length === 0, `a half message was delivered before its commit: ${early.map((m) => m.body).join(',')}`);
    await t1.commit();
    await t2.rollback();
    let second = null;
    try { await t1.commit(); } catch (e) { second = e; }
    check(second, 'a second commit of the same transaction succeeded');
    const got = new Map();
    await receiveUntil(consumer, 40000, async (m) => { got.set(m.messageId, m.body.toString()); return true; },
      () => got.has(unknown.messageId));
    check(got.get(committed.messageId) === 'commit-me', `the committed message was not delivered: ${[...got.values()]}`);
    check(got.get(unknown.messageId) === 'unknown-then-commit',
      `the transaction left unknown was not committed through the checker within 40 s (checked: ${checked.join(',') || 'none'})`);
    check(checked.includes(unknown.messageId), `the checker was not asked about ${unknown.messageId}: ${checked.join(',')}`);
    await receiveUntil(consumer, 4000, async (m) => { got.set(m.messageId, m.body.toString()); return true; }, () => false);
    check(!got.has(rolledBack.messageId), 'the rolled-back message was delivered');
    check(got.size === 2, `received ${got.size} messages: ${[...got.values()].join(',')}`);
    console.log(`ok: committed delivered, rolled back never, a second commit refused (${second.message.split('\n')[0]})`);
    console.log(`ok: a transaction left unknown was checked through the proxy (${checked.length} check(s)) and committed by the checker`);
    await shutdownAll(producer, consumer);
  },

  // A message not acknowledged comes back after its invisible duration with attempt 2;
  // changeInvisibleDuration brings one back sooner.
  async invisible() {
    const topic = 'V2Invisible';
    const producer = await startProducer([topic]);
    const consumer = await startConsumer('GID_V2_INVISIBLE', [[topic, '*']]);
    const left = await producer.send({ topic, tag: 'Left', body: Buffer.from('left') });
    const changed = await producer.send({ topic, tag: 'Changed', body: Buffer.from('changed') });
    const firstAt = new Map();
    await receiveUntil(consumer, 20000, async (m) => {
      firstAt.set(m.messageId, Date.now());
      if (m.messageId === changed.messageId) await consumer.changeInvisibleDuration(m, 1000);
      return false;  // neither acknowledged
    }, () => firstAt.size === 2, 4000);
    check(firstAt.size === 2, `received ${firstAt.size} of 2`);
    const again = new Map();
    await receiveUntil(consumer, 20000, async (m) => {
      if (!again.has(m.messageId)) again.set(m.messageId, { at: Date.now(), attempt: m.deliveryAttempt });
      return true;
    }, () => again.size === 2, 30000);
    for (const [id, name, atLeast] of [[left.messageId, 'left', 4000], [changed.messageId, 'changed', 1000]]) {
      const a = again.get(id);
      check(a, `the ${name} message did not come back`);
      const after = a.at - firstAt.get(id);
      check(after >= atLeast - 100, `the ${name} message came back ${after} ms after its delivery, before ${atLeast} ms`);
      check(a.attempt === 2, `the ${name} message came back with delivery attempt ${a.attempt}`);
      console.log(`  ${name}: back after ${after} ms, attempt ${a.attempt}`);
    }
    check(again.get(changed.messageId).at - firstAt.get(changed.messageId) < 4000 - 100,
      'changeInvisibleDuration(1 s) did not bring the message back before its original 4 s');
    console.log('ok: an unacknowledged message came back after its invisible duration; a changed one sooner');
    await shutdownAll(producer, consumer);
  },

  // The PushConsumer (QueryAssignment, then receives per assignment) consumes everything once.
  async push() {
    const topic = 'V2Push';
    const producer = await startProducer([topic]);
    const sent = new Set();
    for (let i = 0; i < 30; i++) sent.add((await producer.send({ topic, tag: 'Push', body: Buffer.from(`push-${i}`) })).messageId);
    const got = new Map();
    const consumer = new PushConsumer({
      endpoints, consumerGroup: 'GID_V2_PUSH', subscriptions: new Map([[topic, '*']]), logger: quiet, longPollingTimeout: 3000,
      messageListener: { async consume(m) { got.set(m.messageId, (got.get(m.messageId) || 0) + 1); return ConsumeResult.SUCCESS; } },
    });
    await withTimeout(consumer.startup(), 30000, 'the push consumer did not start');
    const deadline = Date.now() + 60000;
    while (Date.now() < deadline && got.size < sent.size) await sleep(200);
    check(got.size === 30, `the push consumer consumed ${got.size} of 30`);
    for (const id of got.keys()) check(sent.has(id), `the push consumer got ${id}, which was not sent`);
    await sleep(3000);
    const twice = [...got].filter(([, n]) => n > 1);
    check(twice.length === 0, `consumed more than once although acknowledged: ${twice.map(([id]) => id).join(',')}`);
    console.log('ok: a PushConsumer consumed all 30 once');
    await shutdownAll(producer, consumer);
  },

  // Just under the 4 MiB limit arrives intact; over it is refused with the limit named.
  async big() {
    const topic = 'V2Big';
    const producer = await startProducer([topic]);
    check(producer.publishingSettings.maxBodySizeBytes === 4 * 1024 * 1024,
      `max_body_size from the proxy's settings: ${producer.publishingSettings.maxBodySizeBytes}`);
    const body = crypto.randomBytes(4 * 1024 * 1024 - 4096);
    const r = await producer.send({ topic, tag: 'Big', body });
    let refused = null;
    try {
      await producer.send({ topic, tag: 'Big', body: Buffer.alloc(4 * 1024 * 1024 + 1, 7) });
    } catch (e) { refused = e; }
    check(refused, 'a body of 4 MiB + 1 byte was sent');
    check(/exceed|too large|size/i.test(refused.message), `the refusal does not name the size: ${refused.message}`);
    const consumer = await startConsumer('GID_V2_BIG', [[topic, '*']]);
    let got = null;
    await receiveUntil(consumer, 30000, async (m) => { got = m; return true; }, () => got !== null);
    check(got && got.messageId === r.messageId, 'the big message was not received');
    check(!got.corrupted && Buffer.compare(got.body, body) === 0, 'the big body arrived changed');
    console.log(`ok: a ${body.length}-byte body arrived intact; 4 MiB + 1 refused (${refused.message.split('\n')[0]})`);
    await shutdownAll(producer, consumer);
  },

  // With aclEnable on the proxy: the right keys and permissions pass; a wrong secret, no keys and a
  // topic without the permission are refused with the reason.
  async acl() {
    const topic = 'V2Acl';
    const keys = (name) => {
      const [accessKey, accessSecret] = (process.env[name] || '').split(':');
      check(accessKey && accessSecret, `${name} is not set`);
      return { accessKey, accessSecret };
    };
    const producerKeys = keys('FERRY_V2_PRODUCER_KEYS');
    const consumerKeys = keys('FERRY_V2_CONSUMER_KEYS');
    const producer = await startProducer([topic], { sessionCredentials: producerKeys });
    const sent = new Set();
    for (let i = 0; i < 5; i++) sent.add((await producer.send({ topic, tag: 'Acl', body: Buffer.from(`acl-${i}`) })).messageId);
    console.log('ok: a producer with its keys (PUB on V2Acl) sent 5');
    const consumer = await startConsumer('GID_V2_ACL', [[topic, '*']], { sessionCredentials: consumerKeys });
    const got = new Set();
    await receiveUntil(consumer, 30000, async (m) => { got.add(m.messageId); return true; }, () => got.size === sent.size);
    check(got.size === 5 && [...got].every((id) => sent.has(id)), `the consumer received ${got.size} of the 5`);
    console.log('ok: a consumer with its keys (SUB on V2Acl and GID_V2_ACL) received and acknowledged them');

    let denied = null;
    try { await producer.send({ topic: 'V2Normal', tag: 'Acl', body: Buffer.from('x') }); } catch (e) { denied = e; }
    check(denied && /No permission/.test(denied.message), `a send to V2Normal (DENY) was not refused by permission: ${denied && denied.message}`);
    console.log(`ok: a send to a topic the account may not use refused (${denied.message.split('\n')[0]})`);

    const wrong = new Producer({ endpoints, topics: [topic], logger: quiet,
      sessionCredentials: { accessKey: producerKeys.accessKey, accessSecret: 'not-the-secret' } });
    let refused = null;
    try { await withTimeout(wrong.startup(), 30000, 'startup with a wrong secret'); } catch (e) { refused = e; }
    check(refused && /Check signature failed/.test(why(refused)), `a wrong secret was not refused by signature: ${why(refused)}`);
    console.log(`ok: a producer with a wrong secret could not start (${why(refused)})`);
    const none = new Producer({ endpoints, topics: [topic], logger: quiet });
    refused = null;
    try { await withTimeout(none.startup(), 30000, 'startup without keys'); } catch (e) { refused = e; }
    check(refused && /No accessKey/.test(why(refused)), `a client without keys was not refused: ${why(refused)}`);
    console.log(`ok: a producer without keys could not start (${why(refused)})`);
    await shutdownAll(producer, consumer);
  },

  // A proxy with tls.server.mode=enforcing: a client with sslEnabled (trusting the test's
  // certificate through GRPC_DEFAULT_SSL_ROOTS_FILE_PATH) sends and receives; a plaintext one
  // cannot start.
  async tls() {
    const topic = 'V2Tls';
    const producer = await startProducer([topic], { sslEnabled: true });
    const sent = await producer.send({ topic, tag: 'Tls', body: Buffer.from('over tls') });
    const consumer = await startConsumer('GID_V2_TLS', [[topic, '*']], { sslEnabled: true });
    let got = null;
    await receiveUntil(consumer, 30000, async (m) => { got = m; return true; }, () => got !== null);
    check(got && got.messageId === sent.messageId && got.body.toString() === 'over tls', 'the message sent over TLS was not received');
    console.log('ok: a producer and a consumer with sslEnabled sent and received through the TLS port');
    const plain = new Producer({ endpoints, topics: [topic], logger: quiet });
    let refused = null;
    try { await withTimeout(plain.startup(), 20000, 'a plaintext startup'); } catch (e) { refused = e; }
    check(refused, 'a plaintext client started against the TLS port');
    console.log(`ok: a plaintext client could not start against the TLS port (${why(refused).slice(0, 160)})`);
    await shutdownAll(producer, consumer);
  },

  // A proxy restarted under running clients: after it, the same producer and consumer go on.
  async restart() {
    const topic = 'V2Restart';
    const go = flag('go');
    check(go, '--go FILE is needed');
    const producer = await startProducer([topic]);
    const consumer = await startConsumer('GID_V2_RESTART', [[topic, '*']]);
    const before = await producer.send({ topic, tag: 'R', body: Buffer.from('before') });
    let got = null;
    await receiveUntil(consumer, 20000, async (m) => { got = m; return true; }, () => got !== null);
    check(got && got.messageId === before.messageId, 'the message before the restart was not received');
    console.log('READY');
    const wait = Date.now() + 60000;
    while (!fs.existsSync(go)) {
      check(Date.now() < wait, 'the proxy was not restarted within 60 s');
      await sleep(100);
    }
    const t0 = Date.now();
    let after = null;
    let lastError = null;
    while (!after && Date.now() - t0 < 30000) {
      try { after = await producer.send({ topic, tag: 'R', body: Buffer.from('after') }); } catch (e) { lastError = e; await sleep(500); }
    }
    check(after, `no send succeeded within 30 s of the restart: ${lastError && lastError.message}`);
    got = null;
    const t1 = Date.now();
    while (!got && Date.now() - t1 < 30000) {
      try {
        await receiveUntil(consumer, 5000, async (m) => { if (m.messageId === after.messageId) got = m; return true; }, () => got !== null);
      } catch (e) { lastError = e; await sleep(500); }
    }
    check(got, `the message sent after the restart was not received: ${lastError && lastError.message}`);
    console.log(`ok: after the proxy restarted, the same producer sent in ${Date.now() - t0} ms and the same consumer received`);
    await shutdownAll(producer, consumer);
  },
};

(async () => {
  const run = cases[kase];
  if (!run) {
    console.error(`unknown case ${kase}; cases: ${Object.keys(cases).join(', ')}`);
    process.exit(2);
  }
  await run();
  process.exit(0);
})().catch((e) => {
  console.error(`FAIL (${kase}): ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});
