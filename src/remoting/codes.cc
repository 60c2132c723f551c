// Names of request and response codes, for logs.
#include "remoting/request_code.h"
#include "remoting/response_code.h"

namespace ferry::remoting {

std::string_view request_code::name(std::int32_t code) {
  switch (code) {
    case SEND_MESSAGE: return "SEND_MESSAGE";
    case PULL_MESSAGE: return "PULL_MESSAGE";
    case QUERY_MESSAGE: return "QUERY_MESSAGE";
    case QUERY_CONSUMER_OFFSET: return "QUERY_CONSUMER_OFFSET";
    case UPDATE_CONSUMER_OFFSET: return "UPDATE_CONSUMER_OFFSET";
    case UPDATE_AND_CREATE_TOPIC: return "UPDATE_AND_CREATE_TOPIC";
    case SEARCH_OFFSET_BY_TIMESTAMP: return "SEARCH_OFFSET_BY_TIMESTAMP";
    case GET_MAX_OFFSET: return "GET_MAX_OFFSET";
    case GET_MIN_OFFSET: return "GET_MIN_OFFSET";
    case GET_EARLIEST_MSG_STORETIME: return "GET_EARLIEST_MSG_STORETIME";
    case VIEW_MESSAGE_BY_ID: return "VIEW_MESSAGE_BY_ID";
    case HEART_BEAT: return "HEART_BEAT";
    case UNREGISTER_CLIENT: return "UNREGISTER_CLIENT";
    case CONSUMER_SEND_MSG_BACK: return "CONSUMER_SEND_MSG_BACK";
    case GET_CONSUMER_LIST_BY_GROUP: return "GET_CONSUMER_LIST_BY_GROUP";
    case NOTIFY_CONSUMER_IDS_CHANGED: return "NOTIFY_CONSUMER_IDS_CHANGED";
    case LOCK_BATCH_MQ: return "LOCK_BATCH_MQ";
    case UNLOCK_BATCH_MQ: return "UNLOCK_BATCH_MQ";
    case PUT_KV_CONFIG: return "PUT_KV_CONFIG";
    case GET_KV_CONFIG: return "GET_KV_CONFIG";
    case DELETE_KV_CONFIG: return "DELETE_KV_CONFIG";
    case REGISTER_BROKER: return "REGISTER_BROKER";
    case UNREGISTER_BROKER: return "UNREGISTER_BROKER";
    case GET_ROUTEINFO_BY_TOPIC: return "GET_ROUTEINFO_BY_TOPIC";
    case GET_BROKER_CLUSTER_INFO: return "GET_BROKER_CLUSTER_INFO";
    case GET_ALL_TOPIC_LIST_FROM_NAMESERVER: return "GET_ALL_TOPIC_LIST_FROM_NAMESERVER";
    case SEND_MESSAGE_V2: return "SEND_MESSAGE_V2";
    case SEND_BATCH_MESSAGE: return "SEND_BATCH_MESSAGE";
    default: return {};
  }
}

std::string_view response_code::name(std::int32_t code) {
  switch (code) {
    case SUCCESS: return "SUCCESS";
    case SYSTEM_ERROR: return "SYSTEM_ERROR";
    case SYSTEM_BUSY: return "SYSTEM_BUSY";
    case REQUEST_CODE_NOT_SUPPORTED: return "REQUEST_CODE_NOT_SUPPORTED";
    case FLUSH_DISK_TIMEOUT: return "FLUSH_DISK_TIMEOUT";
    case SLAVE_NOT_AVAILABLE: return "SLAVE_NOT_AVAILABLE";
    case FLUSH_SLAVE_TIMEOUT: return "FLUSH_SLAVE_TIMEOUT";
    case MESSAGE_ILLEGAL: return "MESSAGE_ILLEGAL";
    case SERVICE_NOT_AVAILABLE: return "SERVICE_NOT_AVAILABLE";
    case NO_PERMISSION: return "NO_PERMISSION";
    case TOPIC_NOT_EXIST: return "TOPIC_NOT_EXIST";
    case TOPIC_EXIST_ALREADY: return "TOPIC_EXIST_ALREADY";
    case PULL_NOT_FOUND: return "PULL_NOT_FOUND";
    case PULL_RETRY_IMMEDIATELY: return "PULL_RETRY_IMMEDIATELY";
    case PULL_OFFSET_MOVED: return "PULL_OFFSET_MOVED";
    case QUERY_NOT_FOUND: return "QUERY_NOT_FOUND";
    case SUBSCRIPTION_PARSE_FAILED: return "SUBSCRIPTION_PARSE_FAILED";
    case SUBSCRIPTION_NOT_EXIST: return "SUBSCRIPTION_NOT_EXIST";
    case SUBSCRIPTION_NOT_LATEST: return "SUBSCRIPTION_NOT_LATEST";
    case SUBSCRIPTION_GROUP_NOT_EXIST: return "SUBSCRIPTION_GROUP_NOT_EXIST";
    default: return {};
  }
}

}  // namespace ferry::remoting
