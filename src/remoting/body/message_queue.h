// MessageQueue (common/message_queue.h) as it travels in JSON bodies:
// {"topic":..,"brokerName":..,"queueId":..}. The body types hold common's MessageQueue; this is
// its JSON codec, which read_array / write_array (body_json.h) find through JsonCodec.
#pragma once

#include <rapidjson/document.h>

#include <string>

#include "common/message_queue.h"
#include "remoting/body/body_json.h"
#include "remoting/json/json_reader.h"
#include "remoting/json/json_writer.h"

namespace ferry::remoting::body {

template <>
struct JsonCodec<MessageQueue> {
  // Records an error naming `path` in `errors` when a field is missing or mistyped.
  static MessageQueue read(const rapidjson::Value& v, std::string path, json::JsonErrors& errors);
  static void write(json::Writer& w, const MessageQueue& mq);
};

}  // namespace ferry::remoting::body
