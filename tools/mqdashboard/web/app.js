// Ferry dashboard: one page, a screen per hash route (#/cluster, #/topic/NAME, ...), each drawn
// from the JSON API (tools/mqdashboard/api.h). Every value cell carries data-k="ROW/FIELD" so a
// test (and a curious operator) can find it; <body data-ready> is "1" once a screen has loaded,
// "error" when it could not, with the reason in #error.
'use strict';

const main = document.getElementById('main');
const errorBox = document.getElementById('error');
let timer = null;  // a screen's refresh (the consumer page's lag chart)

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

async function api(path, params, body) {
  const query = params ? '?' + new URLSearchParams(params).toString() : '';
  const res = await fetch(path + query, body === undefined ? {} : {
    method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)});
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}: ${(await res.text()).trim()}`);
  const json = await res.json();
  if (json.status !== 0) throw new Error(json.errMsg || `${path} failed`);
  return json.data;
}

const fmtInt = (n) => (n === undefined || n === null) ? '-' : Number(n).toLocaleString('en-US');
const fmtRate = (n) => (n === undefined || n === null) ? '-' : Number(n).toFixed(1);
const fmtTime = (ms) => !ms ? '-' : new Date(Number(ms)).toISOString().replace('T', ' ').replace('Z', ' UTC');
const fmtPct = (r) => (r === undefined || r < 0) ? '-' : (r * 100).toFixed(1) + '%';
const link = (hash, text) => h('a', {href: hash}, text);
const enc = encodeURIComponent;

// columns: [{title, field, fmt?, num?, cell?(row)}]; key(row) names the row for data-k.
function table(name, columns, rows, key) {
  const head = h('tr', {}, columns.map(c => h('th', {class: c.num ? 'num' : null}, c.title)));
  const body = rows.map(r => h('tr', {'data-row': key(r)}, columns.map(c => {
    const content = c.cell ? c.cell(r) : (c.fmt ? c.fmt(r[c.field]) : (r[c.field] ?? '-'));
    return h('td', {class: c.num ? 'num' : null, 'data-k': `${key(r)}/${c.field || c.title}`}, content);
  })));
  if (rows.length === 0) body.push(h('tr', {}, h('td', {colspan: columns.length, class: 'muted'}, 'none')));
  return h('table', {'data-table': name}, h('thead', {}, head), h('tbody', {}, body));
}

function card(key, label, value) {
  return h('div', {class: 'card'}, h('div', {class: 'v', 'data-k': `card/${key}`}, value), h('div', {class: 'k'}, label));
}

function showError(message) {
  errorBox.textContent = message;
  errorBox.hidden = false;
}

// ---- screens ----

async function clusterScreen() {
  const d = await api('/cluster/list.query');
  const clusters = new Set(d.brokers.map(b => b.cluster));
  const putTps = d.brokers.reduce((s, b) => s + (b.putTps || 0), 0);
  return [
    h('h1', {}, 'Cluster'),
    h('div', {class: 'cards'}, card('clusters', 'clusters', clusters.size), card('brokers', 'brokers', d.brokers.length),
      card('putTps', 'messages in / s (10 s)', fmtRate(putTps)), card('namesrv', 'NameServers', d.namesrvAddrs.join('; '))),
    table('brokers', [
      {title: 'Cluster', field: 'cluster'}, {title: 'Broker', field: 'brokerName'}, {title: 'Id', field: 'brokerId', num: true},
      {title: 'Address', field: 'addr'}, {title: 'Role', field: 'role'}, {title: 'Version', field: 'version'},
      {title: 'Epoch', field: 'epoch', num: true, fmt: v => v ? v : '-'}, {title: 'Put TPS', field: 'putTps', num: true, fmt: fmtRate},
      {title: 'Get TPS', field: 'getTps', num: true, fmt: fmtRate},
      {title: 'Messages in', field: 'msgPutTotal', num: true, fmt: fmtInt},
      {title: 'Messages out', field: 'msgGetTotal', num: true, fmt: fmtInt},
      {title: 'Disk used', field: 'diskRatio', num: true, fmt: fmtPct},
      {title: 'Writable', field: 'writable', cell: b => b.error ? h('span', {class: 'bad'}, b.error)
        : b.writable ? h('span', {class: 'good'}, 'yes') : h('span', {class: 'bad'}, 'no: ' + b.writeRefusal)},
      {title: 'Replication', field: 'ha'}, {title: 'Uptime', field: 'uptime'},
    ], d.brokers, b => `${b.brokerName}:${b.brokerId}`),
  ];
}

async function topicsScreen(query) {
  const d = await api('/topic/list.query');
  const showSystem = query.get('system') === 'true';
  const filter = (query.get('filter') || '').toLowerCase();
  const rows = d.topics.filter(t => (showSystem || t.kind === 'normal') && t.topic.toLowerCase().includes(filter));
  const go = (f, s) => { location.hash = `#/topics?filter=${enc(f)}&system=${s}`; };
  const input = h('input', {placeholder: 'filter', value: query.get('filter') || '', 'data-input': 'filter',
    onchange: e => go(e.target.value, showSystem)});
  const box = h('input', {type: 'checkbox', checked: showSystem, onchange: e => go(input.value, e.target.checked)});
  return [
    h('h1', {}, 'Topics'),
    h('div', {class: 'toolbar'}, input, h('label', {style: 'flex-direction:row;gap:6px'}, box, 'retry, DLQ and system topics')),
    table('topics', [
      {title: 'Topic', field: 'topic', cell: t => link(`#/topic/${enc(t.topic)}`, t.topic)}, {title: 'Kind', field: 'kind'},
    ], rows, t => t.topic),
  ];
}

async function topicScreen(topic) {
  const [route, stats, consumers] = await Promise.all([
    api('/topic/route.query', {topic}), api('/topic/stats.query', {topic}), api('/topic/queryConsumerByTopic.query', {topic})]);
  const perm = (p) => ((p & 4) ? 'R' : '-') + ((p & 2) ? 'W' : '-');
  const result = h('div', {'data-k': 'sent'});
  const form = h('form', {onsubmit: async (e) => {
    e.preventDefault();
    const f = new FormData(form);
    result.replaceChildren();
    try {
      const r = await api('/topic/sendTopicMessage.do', undefined,
        {topic, key: f.get('key'), tag: f.get('tag'), messageBody: f.get('body')});
      result.append(h('div', {class: 'result'}, `${r.sendStatus}: msgId `, h('span', {'data-k': 'sent/msgId'}, r.msgId),
        ` on ${r.brokerName} queue ${r.queueId} at offset `, h('span', {'data-k': 'sent/queueOffset'}, r.queueOffset)));
    } catch (err) { showError(err.message); }
  }},
    h('label', {}, 'Key', h('input', {name: 'key'})), h('label', {}, 'Tag', h('input', {name: 'tag'})),
    h('label', {}, 'Body', h('textarea', {name: 'body', required: true})), h('button', {type: 'submit'}, 'Send'));
  return [
    h('h1', {}, 'Topic ', h('span', {'data-k': 'topic/name'}, topic)),
    h('div', {class: 'cards'}, card('stored', 'messages stored', fmtInt(stats.messagesStored)),
      card('putTps', 'messages in / s (last minute)', fmtRate(stats.putTps)),
      card('putMinute', 'messages in, last minute', fmtInt(stats.putLastMinute))),
    h('h2', {}, 'Route'),
    table('route', [
      {title: 'Broker', field: 'brokerName'},
      {title: 'Addresses', field: 'addrs', cell: q => {
        const b = route.brokerDatas.find(x => x.brokerName === q.brokerName);
        return b ? Object.entries(b.brokerAddrs).map(([id, a]) => `${id}: ${a}`).join(', ') : '-';
      }},
      {title: 'Read queues', field: 'readQueueNums', num: true}, {title: 'Write queues', field: 'writeQueueNums', num: true},
      {title: 'Perm', field: 'perm', fmt: perm},
    ], route.queueDatas, q => q.brokerName),
    h('h2', {}, 'Queues'),
    table('queues', [
      {title: 'Broker', field: 'brokerName'}, {title: 'Queue', field: 'queueId', num: true},
      {title: 'Min offset', field: 'minOffset', num: true}, {title: 'Max offset', field: 'maxOffset', num: true},
      {title: 'Last stored', field: 'lastUpdateTimestamp', fmt: fmtTime},
    ], stats.queues, q => `${q.brokerName}:${q.queueId}`),
    h('h2', {}, 'Consumer groups'),
    table('consumers', [
      {title: 'Group', field: 'consumerGroup', cell: g => link(`#/consumer/${enc(g.consumerGroup)}`, g.consumerGroup)},
      {title: 'Lag', field: 'diffTotal', num: true, fmt: fmtInt}, {title: 'Consume TPS', field: 'consumeTps', num: true, fmt: fmtRate},
    ], consumers.groups, g => g.consumerGroup),
    h('h2', {}, 'Send a test message'), form, result,
    h('h2', {}, 'Producers'), producerForm(topic),
  ];
}

// A producer group's members online on the topic's brokers.
function producerForm(topic) {
  const out = h('div', {});
  const form = h('form', {onsubmit: async (e) => {
    e.preventDefault();
    out.replaceChildren();
    try {
      const d = await api('/producer/producerConnection.query', {topic, producerGroup: new FormData(form).get('group')});
      out.append(table('producers', [{title: 'Client id', field: 'clientId'}, {title: 'Address', field: 'clientAddr'},
        {title: 'Language', field: 'language'}, {title: 'Version', field: 'version', num: true}], d.connections, c => c.clientId));
    } catch (err) { showError(err.message); }
  }}, h('label', {}, 'Producer group', h('input', {name: 'group', required: true})), h('button', {type: 'submit'}, 'Show members'));
  return h('div', {}, form, out);
}

async function consumersScreen(query) {
  const all = query.get('system') === 'true';
  const d = await api('/consumer/groupList.query', all ? {all: 'true'} : undefined);
  const box = h('input', {type: 'checkbox', checked: all, onchange: e => { location.hash = `#/consumers?system=${e.target.checked}`; }});
  return [
    h('h1', {}, 'Consumer groups'),
    h('div', {class: 'toolbar'}, h('label', {style: 'flex-direction:row;gap:6px'}, box, 'system groups')),
    table('groups', [
      {title: 'Group', field: 'group', cell: g => link(`#/consumer/${enc(g.group)}`, g.group)},
      {title: 'Members', field: 'count', num: true}, {title: 'Type', field: 'consumeType'}, {title: 'Model', field: 'messageModel'},
      {title: 'Consume TPS', field: 'consumeTps', num: true, fmt: fmtRate}, {title: 'Lag', field: 'diffTotal', num: true, fmt: fmtInt},
    ], d.groups, g => g.group),
  ];
}

// The lag history as an SVG line: time across, messages up.
function lagChart(history) {
  const W = 760, H = 220, L = 64, R = 16, T = 14, B = 28;
  const pts = history.points;
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  const last = pts.length ? pts[pts.length - 1][1] : 0;
  for (const [k, v] of Object.entries({width: W, height: H, class: 'chart', 'data-k': 'lag/chart',
    'data-points': pts.length, 'data-last': last})) svg.setAttribute(k, v);
  const add = (tag, attrs, text) => {
    const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    if (text !== undefined) el.textContent = text;
    svg.append(el);
    return el;
  };
  add('line', {class: 'axis', x1: L, y1: H - B, x2: W - R, y2: H - B});
  add('line', {class: 'axis', x1: L, y1: T, x2: L, y2: H - B});
  if (pts.length === 0) {
    add('text', {x: L + 10, y: H / 2}, `no sample yet (one every ${history.intervalMs / 1000} s)`);
    return svg;
  }
  const t0 = pts[0][0], t1 = Math.max(pts[pts.length - 1][0], t0 + 1);
  const max = Math.max(1, ...pts.map(p => p[1]));
  const x = (t) => L + (W - L - R) * (t - t0) / (t1 - t0);
  const y = (v) => H - B - (H - B - T) * v / max;
  add('text', {x: 4, y: T + 4}, fmtInt(max));
  add('text', {x: 4, y: H - B}, '0');
  add('text', {x: L, y: H - 8}, fmtTime(t0));
  add('text', {x: W - R, y: H - 8, 'text-anchor': 'end'}, fmtTime(t1));
  add('polyline', {class: 'line', points: pts.map(p => `${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`).join(' ')});
  for (const p of pts) {
    const c = add('circle', {cx: x(p[0]).toFixed(1), cy: y(p[1]).toFixed(1), r: 2.5, fill: '#2a62c9'});
    const title = document.createElementNS('http://www.w3.org/2000/svg', 'title');
    title.textContent = `${fmtTime(p[0])}: ${fmtInt(p[1])} behind`;
    c.append(title);
  }
  return svg;
}

async function consumerScreen(group) {
  const [conn, progress, history] = await Promise.all([
    api('/consumer/consumerConnection.query', {consumerGroup: group}),
    api('/consumer/queryTopicByConsumer.query', {consumerGroup: group}),
    api('/consumer/lagHistory.query', {consumerGroup: group})]);
  const chartBox = h('div', {}, lagChart(history));
  timer = setInterval(async () => {
    try { chartBox.replaceChildren(lagChart(await api('/consumer/lagHistory.query', {consumerGroup: group}))); } catch (e) { showError(e.message); }
  }, 5000);
  const topics = [...new Set([...progress.topics.map(t => t.topic), ...conn.subscriptions.map(s => s.topic)])]
    .filter(t => !t.startsWith('%RETRY%'));
  const result = h('div', {});
  const form = h('form', {onsubmit: async (e) => {
    e.preventDefault();
    const f = new FormData(form);
    result.replaceChildren();
    try {
      const r = await api('/consumer/resetOffset.do', undefined, {consumerGroup: group, topic: f.get('topic'),
        resetTime: f.get('time'), force: f.get('force') === 'on'});
      const rows = r.groups.flatMap(g => g.queues);
      result.append(h('div', {class: 'result', 'data-k': 'reset/done'},
        `reset ${group} on ${r.topic} to ${fmtTime(r.resetTime)}` + (r.groups[0].throughConsumers ? ' through its online consumers' : '')),
      table('reset', [{title: 'Broker', field: 'brokerName'}, {title: 'Queue', field: 'queueId', num: true},
        {title: 'Was', field: 'previousOffset', num: true}, {title: 'Now', field: 'resetOffset', num: true}],
      rows, q => `${q.brokerName}:${q.queueId}`));
    } catch (err) { showError(err.message); }
  }},
    h('label', {}, 'Topic', h('select', {name: 'topic'}, topics.map(t => h('option', {value: t}, t)))),
    h('label', {}, 'Time (ISO 8601, ms, or now)', h('input', {name: 'time', required: true, placeholder: '2026-01-01T08:30:00Z'})),
    h('label', {style: 'flex-direction:row;gap:6px'}, h('input', {type: 'checkbox', name: 'force', checked: true}), 'also forward'),
    h('button', {type: 'submit'}, 'Reset offsets'));
  const queueRows = progress.topics.flatMap(t => t.queues.map(q => ({...q, topic: t.topic})));
  return [
    h('h1', {}, 'Consumer group ', h('span', {'data-k': 'group/name'}, group)),
    h('div', {class: 'cards'}, card('members', 'members online', conn.connections.length), card('lag', 'messages behind', fmtInt(progress.diffTotal)),
      card('tps', 'consumed / s', fmtRate(progress.consumeTps)),
      card('model', 'type / model', conn.online ? `${conn.consumeType} / ${conn.messageModel}` : 'offline')),
    h('h2', {}, 'Lag over time'), chartBox,
    h('h2', {}, 'Members'),
    table('members', [{title: 'Client id', field: 'clientId'}, {title: 'Address', field: 'clientAddr'},
      {title: 'Language', field: 'language'}, {title: 'Version', field: 'version', num: true}], conn.connections, c => c.clientId),
    h('h2', {}, 'Subscriptions'),
    table('subscriptions', [{title: 'Topic', field: 'topic'}, {title: 'Expression', field: 'subString'}], conn.subscriptions, s => s.topic),
    h('h2', {}, 'Offsets'),
    table('offsets', [
      {title: 'Topic', field: 'topic'}, {title: 'Broker', field: 'brokerName'}, {title: 'Queue', field: 'queueId', num: true},
      {title: 'Broker offset', field: 'brokerOffset', num: true}, {title: 'Consumer offset', field: 'consumerOffset', num: true},
      {title: 'Lag', field: 'diff', num: true}, {title: 'Last consumed', field: 'lastTimestamp', fmt: fmtTime},
    ], queueRows, q => `${q.topic}|${q.brokerName}:${q.queueId}`),
    h('h2', {}, 'Reset offsets by time'), form, result,
  ];
}

function messageForms(query) {
  const field = (name, label, extra) => h('label', {}, label, h('input', {name, value: query.get(name) || '', ...(extra || {})}));
  const submit = (screen, names) => (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    location.hash = `#/${screen}?` + names.map(n => `${n}=${enc(f.get(n) || '')}`).join('&');
  };
  return [
    h('h2', {}, 'By key'),
    h('form', {onsubmit: submit('messages', ['topic', 'key'])}, field('topic', 'Topic', {required: true}),
      field('key', 'Key', {required: true}), h('button', {type: 'submit'}, 'Search')),
    h('h2', {}, 'By message id'),
    h('form', {onsubmit: submit('message', ['msgId', 'topic'])}, field('msgId', 'Message id', {required: true, size: 34}),
      field('topic', 'Topic (for a client msgId)'), h('button', {type: 'submit'}, 'Show')),
    h('h2', {}, 'By queue offset'),
    h('form', {onsubmit: submit('message', ['topic', 'brokerName', 'queueId', 'offset'])}, field('topic', 'Topic', {required: true}),
      field('brokerName', 'Broker', {required: true}), field('queueId', 'Queue', {required: true}),
      field('offset', 'Offset', {required: true}), h('button', {type: 'submit'}, 'Show')),
  ];
}

async function messagesScreen(query) {
  const out = [h('h1', {}, 'Messages'), ...messageForms(query)];
  if (query.get('topic') && query.get('key')) {
    const d = await api('/message/queryMessageByTopicAndKey.query', {topic: query.get('topic'), key: query.get('key')});
    out.push(h('h2', {}, `Messages of ${query.get('topic')} with key ${query.get('key')}`), table('found', [
      {title: 'Message id', field: 'msgId', cell: m => link(`#/message?msgId=${enc(m.offsetMsgId)}`, m.msgId)},
      {title: 'Tags', field: 'tags'}, {title: 'Keys', field: 'keys', fmt: k => k.join(' ')},
      {title: 'Queue', field: 'brokerQueueId', num: true}, {title: 'Offset', field: 'queueOffset', num: true},
      {title: 'Stored', field: 'storeTimestamp', fmt: fmtTime}, {title: 'Size', field: 'bodyLength', num: true},
    ], d.messages, m => m.msgId));
  }
  return out;
}

async function messageScreen(query) {
  const params = Object.fromEntries([...query.entries()].filter(([, v]) => v !== ''));
  const m = params.msgId ? await api('/message/viewMessage.query', params) : await api('/message/queryMessageByOffset.query', params);
  const rows = [['topic', m.topic], ['msgId', m.msgId], ['offsetMsgId', m.offsetMsgId], ['tags', m.tags || '-'],
    ['keys', m.keys.join(' ') || '-'], ['queueId', m.brokerQueueId], ['queueOffset', m.queueOffset],
    ['commitLogOffset', m.commitLogOffset], ['bornHost', m.bornHost], ['bornTimestamp', fmtTime(m.bornTimestamp)],
    ['storeHost', m.storeHost], ['storeTimestamp', fmtTime(m.storeTimestamp)], ['reconsumeTimes', m.reconsumeTimes],
    ['bodyCRC', m.bodyCRC], ['bodyLength', m.bodyLength], ['sysFlag', m.sysFlag]].map(([k, v]) => ({k, v}));
  const props = Object.entries(m.properties).map(([k, v]) => ({k, v}));
  return [
    h('h1', {}, 'Message'),
    h('div', {class: 'row'},
      table('message', [{title: 'Field', field: 'k'}, {title: 'Value', field: 'v'}], rows, r => `msg.${r.k}`),
      h('div', {class: 'grow'},
        h('h2', {style: 'margin-top:0'}, `Body (${m.bodyEncoding === 'text' ? 'text' : 'binary, base64'})`),
        h('pre', {class: 'body', 'data-k': 'msg/body'}, m.body),
        h('h2', {}, 'Properties'),
        table('properties', [{title: 'Key', field: 'k'}, {title: 'Value', field: 'v'}], props, r => `prop.${r.k}`))),
  ];
}

async function haScreen() {
  const d = await api('/ha/status.query');
  const rows = d.brokers.map(b => {
    const ha = b.ha || {};
    const r = {brokerName: b.brokerName, brokerId: b.brokerId, addr: b.addr, error: b.error, role: ha.brokerRole};
    if (ha.master) {
      r.maxOffset = ha.masterCommitLogMaxOffset;
      r.inSync = ha.inSyncSlaveNums;
      r.peers = (ha.haConnectionInfo || []).map(c => `slave at ${c.addr}: acked ${fmtInt(c.slaveAckOffset)}, ` +
        `behind ${fmtInt(c.diff)} B / ${fmtInt(c.diffMs)} ms, ${c.inSync ? 'in sync' : 'NOT in sync'}`);
      if (r.peers.length === 0) r.peers = ['no slave connected'];
    } else if (b.ha) {
      const c = ha.haClientRuntimeInfo || {};
      r.maxOffset = c.maxOffset;
      r.peers = [`${c.connected ? 'linked to' : 'NOT linked to'} master ${c.masterAddr || '-'}, last read ${fmtTime(c.lastReadTimestamp)}`];
    }
    return r;
  });
  const out = [
    h('h1', {}, 'High availability'),
    table('ha', [
      {title: 'Broker', field: 'brokerName'}, {title: 'Id', field: 'brokerId', num: true}, {title: 'Address', field: 'addr'},
      {title: 'Role', field: 'role', cell: r => r.error ? h('span', {class: 'bad'}, r.error) : r.role},
      {title: 'CommitLog max', field: 'maxOffset', num: true, fmt: fmtInt}, {title: 'In sync slaves', field: 'inSync', num: true},
      {title: 'Replication', field: 'peers', cell: r => (r.peers || []).map(p => h('div', {}, p))},
    ], rows, r => `${r.brokerName}:${r.brokerId}`),
  ];
  if (d.controllers.length) {
    out.push(h('h2', {}, 'Controllers'), table('controllers', [
      {title: 'Address', field: 'addr'}, {title: 'Leader', field: 'isLeader', fmt: v => v ? 'yes' : 'no'},
      {title: 'Leader known', field: 'leaderAddr'}, {title: 'Error', field: 'error'}], d.controllers, c => c.addr));
    out.push(h('h2', {}, 'SyncStateSets'), table('syncstate', [
      {title: 'Broker', field: 'brokerName'}, {title: 'Master', field: 'masterAddr'}, {title: 'Master epoch', field: 'masterEpoch', num: true},
      {title: 'Set epoch', field: 'syncStateSetEpoch', num: true},
      {title: 'In sync', field: 'inSync', fmt: l => l.map(r => `${r.brokerId}@${r.addr}${r.alive ? '' : ' (down)'}`).join(', ')},
      {title: 'Not in sync', field: 'notInSync', fmt: l => l.map(r => `${r.brokerId}@${r.addr}`).join(', ') || '-'},
    ], d.syncStateSets, s => s.brokerName));
  }
  return out;
}

// ---- routing ----

async function route() {
  clearInterval(timer);
  timer = null;
  errorBox.hidden = true;
  const hash = location.hash || '#/cluster';
  const [path, q] = hash.slice(2).split('?');
  const query = new URLSearchParams(q || '');
  const [screen, ...rest] = path.split('/');
  const arg = decodeURIComponent(rest.join('/'));
  document.body.dataset.screen = screen;
  document.body.dataset.ready = '0';
  for (const a of document.querySelectorAll('nav a')) {
    a.classList.toggle('active', a.dataset.nav === screen || a.dataset.nav === screen + 's');
  }
  const screens = {
    cluster: () => clusterScreen(), topics: () => topicsScreen(query), topic: () => topicScreen(arg),
    consumers: () => consumersScreen(query), consumer: () => consumerScreen(arg), messages: () => messagesScreen(query),
    message: () => messageScreen(query), ha: () => haScreen(),
  };
  try {
    if (!screens[screen]) throw new Error(`no such screen: ${screen}`);
    main.replaceChildren(...await screens[screen]());
    document.getElementById('refreshed').textContent = 'loaded ' + new Date().toLocaleTimeString();
    document.body.dataset.ready = '1';
  } catch (e) {
    showError(e.message);
    document.body.dataset.ready = 'error';
    if (screen === 'messages' || screen === 'message') main.replaceChildren(h('h1', {}, 'Messages'), ...messageForms(query));
    else main.replaceChildren();
  }
}

window.addEventListener('hashchange', route);
route();
