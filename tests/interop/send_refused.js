'use strict';
// One ali-ons Producer.send that an ACL broker must refuse (interop_test.sh, case 10). Signs with
// FERRY_ACCESS_KEY / FERRY_SECRET_KEY when both are set, else sends no keys.
//
//   node send_refused.js --topic T --remark REGEX [--close-refused]
//
// What ali-ons 3.12.0 does with the broker's refusal (SYSTEM_ERROR, remark "AclException: ..."):
// MQClientAPI turns the reply into an MQClientException whose message is the remark, and
// Producer.send catches that (SYSTEM_ERROR is one of the codes it retries), retries only on
// another broker (selectOneMessageQueue skips the last one; with one broker it sends once), then
// throws its own "Send [4] times, still failed, ..." (the loop's count) without the remark. So the checks are: send rejects with
// that error, no message is stored (interop_test.sh counts), and every SEND_MESSAGE_V2 reply
// the client received was SYSTEM_ERROR (1) with a remark matching --remark. The replies are read
// by wrapping the client's own invoke (it only records what came back; nothing is changed).
// Producer.close() unregisters the client; when the broker refuses that too (a bad signature, no
// keys) ali-ons rejects close() with MQClientException(code 1, message = the remark): there the
// user does see "AclException: ...". --close-refused requires that; without it a close error
// must still be such an exception with a matching remark.
const { Producer, Message } = require('ali-ons');
const { die, parseArgs, RecordingLogger, clientOptions, withTimeout } = require('./lib/client');

const SEND_MESSAGE_V2 = 310;
const SYSTEM_ERROR = 1;

const args = parseArgs(process.argv.slice(2), {
  topic: '', remark: '', group: 'PID_FERRY_INTEROP_ACL', 'close-refused': false,
});
if (!args.topic || !args.remark) die('send_refused needs --topic and --remark');
const remarkRe = new RegExp(args.remark);

async function main() {
  const logger = new RecordingLogger('producer');
  const producer = new Producer(clientOptions(logger, { producerGroup: args.group }));
  const client = producer._mqClient;
  if (!client || typeof client.invoke !== 'function') die('ali-ons Producer has no _mqClient.invoke to observe');
  const replies = [];
  const invoke = client.invoke.bind(client);
  client.invoke = async (addr, command, timeout) => {
    const response = await invoke(addr, command, timeout);
    if (command.code === SEND_MESSAGE_V2) replies.push({ code: response.code, remark: response.remark });
    return response;
  };
  await withTimeout(producer.ready(), 20000, 'producer start');

  let error;
  try {
    const r = await withTimeout(producer.send(new Message(args.topic, 'Acl', Buffer.from('must-be-refused'))), 30000, 'send');
    die(`the send was not refused: ${JSON.stringify(r)}`);
  } catch (err) {
    error = err;
  }
  // close() unregisters the client (UNREGISTER_CLIENT, signed the same way): a refusal of that
  // is the one place ali-ons surfaces the broker's remark, as an MQClientException.
  let closeError;
  try {
    await withTimeout(producer.close(), 10000, 'producer close');
  } catch (err) {
    closeError = err;
  }

  const problems = [];
  if (closeError) {
    if (closeError.name !== 'MQClientException' || closeError.code !== SYSTEM_ERROR || !/^AclException: /.test(closeError.message) ||
        !remarkRe.test(closeError.message)) {
      problems.push(`close failed otherwise than with an MQClientException (SYSTEM_ERROR) carrying a matching remark: ${closeError.stack || closeError}`);
    }
  } else if (args['close-refused']) {
    problems.push('close() succeeded: its UNREGISTER_CLIENT was not refused');
  }
  if (!/^Send \[\d+\] times, still failed/.test(error.message)) problems.push(`ali-ons threw '${error.message}', not its "Send [N] times, still failed"`);
  if (replies.length === 0) problems.push('the client received no SEND_MESSAGE_V2 reply');
  for (const r of replies) {
    if (r.code !== SYSTEM_ERROR) problems.push(`a reply with code ${r.code}, not SYSTEM_ERROR (1): ${r.remark}`);
    if (!/^AclException: /.test(r.remark || '')) problems.push(`a reply remark does not start with 'AclException: ': '${r.remark}'`);
    if (!remarkRe.test(r.remark || '')) problems.push(`a reply remark does not match /${args.remark}/: '${r.remark}'`);
  }
  console.log(`send_refused: send threw '${error.message}'; ${replies.length} SEND_MESSAGE_V2 replies, first: ` +
    `code ${replies.length ? replies[0].code : '-'} '${replies.length ? replies[0].remark : ''}'; close ` +
    (closeError ? `threw ${closeError.name} (code ${closeError.code}) '${closeError.message}'` : 'succeeded'));
  if (problems.length) die(`send_refused ${args.topic}:\n  ${problems.join('\n  ')}`);
}

main().then(() => process.exit(0), err => die(`send_refused: ${err.stack || err}`));
