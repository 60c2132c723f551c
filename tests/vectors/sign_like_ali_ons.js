// Signs a few requests exactly as ali-ons (the Node RocketMQ client, lib/channel.js beforeRequest)
// does, with nothing but Node's own crypto, and prints one JSON line per request. Its output is
// committed as tests/vectors/acl_signatures_ali_ons.jsonl; acl_test compares Ferry's signer with it.
//
//   node tests/vectors/sign_like_ali_ons.js > tests/vectors/acl_signatures_ali_ons.jsonl
//
// ali-ons: the content is the values of AccessKey, OnsChannel and every header field, sorted by
// key (JavaScript's default sort: UTF-16 order), concatenated, then the body bytes; HMAC-SHA1 with
// the secret key, base64. The request then carries Signature, AccessKey and OnsChannel.
'use strict';
const crypto = require('crypto');

const cases = [
  { name: 'send_v2', accessKey: 'RocketMQ', secretKey: '12345678', onsChannel: 'ALIYUN',
    header: { a: 'PID_demo', b: 'TopicA', c: 'TBW102', d: '4', e: '0', f: '0', g: '1700000000000', h: '0',
      i: 'UNIQ_KEY\u0001AC11000100002A9F0000000000000000\u0002WAIT\u0001true', j: '0', k: 'false', m: 'false' },
    body: Buffer.from('hello ferry', 'utf8') },
  { name: 'pull', accessKey: 'rocketmq2', secretKey: 'secret-of-rocketmq2', onsChannel: 'ALIYUN',
    header: { consumerGroup: 'GID_demo', topic: 'TopicA', queueId: '3', queueOffset: '128', maxMsgNums: '32',
      sysFlag: '6', commitOffset: '0', suspendTimeoutMillis: '15000', subscription: '*', subVersion: '0',
      expressionType: 'TAG' },
    body: null },
  { name: 'create_topic_no_body', accessKey: 'adminUser1', secretKey: 'adminSecret!', onsChannel: 'ALIYUN',
    header: { topic: 'Orders', defaultTopic: 'TBW102', readQueueNums: '8', writeQueueNums: '8', perm: '6',
      topicFilterType: 'SINGLE_TAG', topicSysFlag: '0', order: 'false' },
    body: null },
  { name: 'query_by_msg_id', accessKey: 'RocketMQ', secretKey: '12345678', onsChannel: 'ALIYUN',
    header: { topic: 'TopicA', key: 'AC11000100002A9F0000000000000000', maxNum: '32', beginTimestamp: '0',
      endTimestamp: '9223372036854775807', _UNIQUE_KEY_QUERY: 'true' },
    body: null },
  { name: 'unicode_and_binary_body', accessKey: 'RocketMQ', secretKey: 'pässwörd-ü', onsChannel: 'LOCAL',
    header: { topic: 'Tópico', producerGroup: 'grüppe', properties: 'KEYS\u0001k1 k2' },
    body: Buffer.from([0, 1, 2, 255, 254, 10, 13, 0x80]) },
];

for (const c of cases) {
  const map = new Map();
  map.set('AccessKey', c.accessKey);
  map.set('OnsChannel', c.onsChannel);
  for (const k of Object.keys(c.header)) map.set(k, String(c.header[k]));
  let val = '';
  for (const k of Array.from(map.keys()).sort()) if (k !== 'Signature') val += map.get(k);
  let total = Buffer.from(val, 'utf8');
  if (c.body && c.body.length) total = Buffer.concat([total, c.body]);
  const signature = crypto.createHmac('sha1', c.secretKey).update(total).digest('base64');
  const extFields = Object.assign({}, c.header, { Signature: signature, AccessKey: c.accessKey, OnsChannel: c.onsChannel });
  process.stdout.write(JSON.stringify({ name: c.name, secretKey: c.secretKey, extFields,
    body_base64: c.body ? c.body.toString('base64') : '', signature }) + '\n');
}
