#include "remoting/header/broker_registration_header.h"

#include "remoting/header/field_codec.h"

namespace ferry::remoting {

Result<RegisterBrokerRequestHeader> RegisterBrokerRequestHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "RegisterBrokerRequestHeader");
  RegisterBrokerRequestHeader h;
  h.broker_name = r.string("brokerName");
  h.broker_addr = r.string("brokerAddr");
  h.cluster_name = r.string("clusterName");
  h.ha_server_addr = r.string("haServerAddr");
  h.broker_id = r.int64("brokerId");
  h.compressed = r.boolean_or("compressed", false);
  h.body_crc32 = r.optional_int32("bodyCrc32").value_or(0);
  FERRY_TRY(r.status());
  return h;
}

ExtFields RegisterBrokerRequestHeader::to_fields() const {
  ExtFields f;
  put_string(f, "brokerName", broker_name);
  put_string(f, "brokerAddr", broker_addr);
  put_string(f, "clusterName", cluster_name);
  put_string(f, "haServerAddr", ha_server_addr);
  put_int(f, "brokerId", broker_id);
  put_bool(f, "compressed", compressed);
  put_int(f, "bodyCrc32", body_crc32);
  return f;
}

Result<RegisterBrokerResponseHeader> RegisterBrokerResponseHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "RegisterBrokerResponseHeader");
  RegisterBrokerResponseHeader h;
  h.ha_server_addr = r.optional_string("haServerAddr");
  h.master_addr = r.optional_string("masterAddr");
  FERRY_TRY(r.status());
  return h;
}

ExtFields RegisterBrokerResponseHeader::to_fields() const {
  ExtFields f;
  put_optional_string(f, "haServerAddr", ha_server_addr);
  put_optional_string(f, "masterAddr", master_addr);
  return f;
}

Result<UnregisterBrokerRequestHeader> UnregisterBrokerRequestHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "UnregisterBrokerRequestHeader");
  UnregisterBrokerRequestHeader h;
  h.broker_name = r.string("brokerName");
  h.broker_addr = r.string("brokerAddr");
  h.cluster_name = r.string("clusterName");
  h.broker_id = r.int64("brokerId");
  FERRY_TRY(r.status());
  return h;
}

ExtFields UnregisterBrokerRequestHeader::to_fields() const {
  ExtFields f;
  put_string(f, "brokerName", broker_name);
  put_string(f, "brokerAddr", broker_addr);
  put_string(f, "clusterName", cluster_name);
  put_int(f, "brokerId", broker_id);
  return f;
}

}  // namespace ferry::remoting
