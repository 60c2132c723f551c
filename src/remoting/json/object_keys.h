// fastjson's object keys. Java RocketMQ serializes a Map<MessageQueue, V> (ResetOffsetBody,
// GetConsumerStatusBody, ConsumerRunningInfo.mqTable, ConsumeStats) with the key object itself as
// the member name, which no standard JSON parser accepts:
//   {"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:12}}
// quote_object_keys() rewrites every such key into a JSON string holding the key object's text,
//   {"offsetTable":{"{\"brokerName\":\"broker-a\",\"queueId\":0,\"topic\":\"T\"}":12}}
// so the document parses (json_text.h) and the reader parses each key again
// (body/mq_keyed_map.h). Text without object keys comes back unchanged.
#pragma once

#include <string>
#include <string_view>

#include "runtime/result.h"

namespace ferry::remoting::json {

// Errors (Errc::corrupt, with the byte offset): nesting deeper than kDepthMax (json_text.h), a key
// object that never closes. Other syntax errors are left for the parser to report.
Result<std::string> quote_object_keys(std::string_view text);

}  // namespace ferry::remoting::json
