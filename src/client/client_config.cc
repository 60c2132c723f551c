#include "client/client_config.h"

#include "runtime/assert.h"

namespace ferry::client {

void ClientConfig::check() const {
  FERRY_ASSERT(!namesrv_addrs.empty(), "ClientConfig: no NameServer address");
  FERRY_ASSERT(poll_name_server_interval > Duration::zero(), "ClientConfig: poll_name_server_interval {} ms",
               to_ms(poll_name_server_interval));
  FERRY_ASSERT(heartbeat_broker_interval > Duration::zero(), "ClientConfig: heartbeat_broker_interval {} ms",
               to_ms(heartbeat_broker_interval));
  FERRY_ASSERT(rebalance_interval > Duration::zero(), "ClientConfig: rebalance_interval {} ms", to_ms(rebalance_interval));
  FERRY_ASSERT(persist_consumer_offset_interval > Duration::zero(), "ClientConfig: persist_consumer_offset_interval {} ms",
               to_ms(persist_consumer_offset_interval));
  FERRY_ASSERT(api_timeout > Duration::zero(), "ClientConfig: api_timeout {} ms", to_ms(api_timeout));
  FERRY_ASSERT(!instance_name.empty(), "ClientConfig: empty instance_name");
}

}  // namespace ferry::client
