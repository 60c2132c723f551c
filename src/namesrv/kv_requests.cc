// PUT_KV_CONFIG (100), GET_KV_CONFIG (101), DELETE_KV_CONFIG (102), GET_KVLIST_BY_NAMESPACE (219).
#include "namesrv/request_processor.h"
#include "remoting/header/kv_config_header.h"
#include "remoting/response_code.h"

namespace ferry::namesrv {

using remoting::RemotingCommand;
using remoting::make_response;
namespace response_code = remoting::response_code;

RemotingCommand RequestProcessor::put_kv(const RemotingCommand& request) {
  auto header = remoting::PutKvConfigRequestHeader::from_fields(request.ext_fields);
  if (!header) return error_reply(request, header.error().detail);
  Status put = kv_.put(header->name_space, header->key, header->value);
  if (!put) return error_reply(request, put.error().detail);
  // A value is logged up to 256 bytes: the log must not become the unbounded store.
  constexpr std::size_t kLoggedValueBytes = 256;
  const std::string& v = header->value;
  if (v.size() <= kLoggedValueBytes) {
    rt_.log().info("KV config put: {} {} = {}", header->name_space, header->key, v);
  } else {
    rt_.log().info("KV config put: {} {} = {}... ({} bytes)", header->name_space, header->key,
                   std::string_view(v).substr(0, kLoggedValueBytes), v.size());
  }
  return make_response(request, response_code::SUCCESS);
}

RemotingCommand RequestProcessor::get_kv(const RemotingCommand& request) {
  auto header = remoting::GetKvConfigRequestHeader::from_fields(request.ext_fields);
  if (!header) return error_reply(request, header.error().detail);
  std::optional<std::string> value = kv_.get(header->name_space, header->key);
  if (!value) {
    return make_response(request, response_code::QUERY_NOT_FOUND,
                         "No config item, Namespace: " + header->name_space + " Key: " + header->key);
  }
  RemotingCommand reply = make_response(request, response_code::SUCCESS);
  remoting::GetKvConfigResponseHeader reply_header;
  reply_header.value = std::move(value);
  reply.ext_fields = reply_header.to_fields();
  return reply;
}

RemotingCommand RequestProcessor::delete_kv(const RemotingCommand& request) {
  auto header = remoting::DeleteKvConfigRequestHeader::from_fields(request.ext_fields);
  if (!header) return error_reply(request, header.error().detail);
  if (kv_.remove(header->name_space, header->key)) {
    rt_.log().info("KV config deleted: {} {}", header->name_space, header->key);
  }
  return make_response(request, response_code::SUCCESS);  // as RocketMQ, also for a missing key
}

RemotingCommand RequestProcessor::kv_list(const RemotingCommand& request) {
  auto header = remoting::GetKvListByNamespaceRequestHeader::from_fields(request.ext_fields);
  if (!header) return error_reply(request, header.error().detail);
  auto table = kv_.encode_namespace(header->name_space);
  if (!table) {
    return make_response(request, response_code::QUERY_NOT_FOUND, "No config item, Namespace: " + header->name_space);
  }
  RemotingCommand reply = make_response(request, response_code::SUCCESS);
  reply.body = std::move(*table);
  return reply;
}

}  // namespace ferry::namesrv
