// proxy.conf onto the proxy's core and gRPC edge (src/daemon/proxy_conf.h): RocketMQ 5's
// ProxyConfig names and defaults, Ferry's keys, and errors that name file, line and key.
#include "daemon/proxy_conf.h"

#include <gtest/gtest.h>

namespace ferry::daemon {
namespace {

using namespace std::chrono_literals;

Result<ProxyConf> parse(std::string_view text) {
  auto file = parse_properties(text, "/etc/ferry/proxy.conf");
  EXPECT_TRUE(file.ok());
  return parse_proxy_conf(*file, "/srv/ferry");
}

TEST(ProxyConf, DefaultsAreRocketMqsProxyConfig) {
  auto c = parse("");
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_EQ(c->proxy.route.grpc_port, 8081);
  EXPECT_EQ(c->proxy.send.max_body_bytes, 4 * 1024 * 1024);
  EXPECT_EQ(c->proxy.send.max_delay_ms, 86'400'000);
  EXPECT_EQ(c->proxy.min_long_polling, 5s);
  EXPECT_EQ(c->proxy.max_long_polling, 20s);
  EXPECT_EQ(c->proxy.min_invisible, 10s);
  EXPECT_EQ(c->proxy.transaction_data_expire, 30s);
  EXPECT_EQ(c->edge.max_inbound_bytes, 136'314'880);
  EXPECT_EQ(c->edge.listen_address, "0.0.0.0");
  EXPECT_EQ(c->namesrv_addrs, std::vector<std::string>{"127.0.0.1:9876"});
  EXPECT_EQ(c->data_dir, "/srv/ferry/proxy");
  EXPECT_FALSE(c->acl_enable);
}

TEST(ProxyConf, KeysOverrideAndUnusedOnesWarn) {
  auto c = parse(
      "namesrvAddr=10.0.0.1:9876;10.0.0.2:9876\ngrpcServerPort=18081\nmaxMessageSize=1048576\n"
      "minInvisibleTimeMillsForRecv=1000\nlistenAddress=127.0.0.1\naclEnable=true\naclFilePath=acl/plain_acl.yml\n"
      "accessKey=proxyKey\nsecretKey=proxy-secret\ngrpcReceivesPerClientMax=8\nremotingListenPort=8080\nnoSuchKey=1\n");
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_EQ(c->namesrv_addrs, (std::vector<std::string>{"10.0.0.1:9876", "10.0.0.2:9876"}));
  EXPECT_EQ(c->proxy.route.grpc_port, 18081);
  EXPECT_EQ(c->proxy.send.max_body_bytes, 1048576);
  EXPECT_EQ(c->proxy.min_invisible, 1s);
  EXPECT_EQ(c->edge.listen_address, "127.0.0.1");
  EXPECT_EQ(c->edge.receives_per_client_max, 8u);
  EXPECT_TRUE(c->acl_enable);
  EXPECT_EQ(c->acl_file, "/etc/ferry/acl/plain_acl.yml") << "beside proxy.conf";
  EXPECT_EQ(c->credentials.access_key, "proxyKey");
  ASSERT_EQ(c->warnings.size(), 2u);
  EXPECT_NE(c->warnings[0].find("remotingListenPort"), std::string::npos) << c->warnings[0];
  EXPECT_NE(c->warnings[1].find("noSuchKey"), std::string::npos) << c->warnings[1];
  EXPECT_NE(c->warnings[1].find("proxy.conf:12"), std::string::npos) << c->warnings[1];
}

TEST(ProxyConf, BadValuesNameFileLineAndKey) {
  auto bad_port = parse("\ngrpcServerPort=0\n");
  ASSERT_FALSE(bad_port.ok());
  EXPECT_NE(bad_port.error().detail.find("/etc/ferry/proxy.conf:2: grpcServerPort:"), std::string::npos) << bad_port.error().detail;
  auto local = parse("proxyMode=LOCAL\n");
  ASSERT_FALSE(local.ok());
  EXPECT_NE(local.error().detail.find("only CLUSTER"), std::string::npos) << local.error().detail;
  auto addr = parse("namesrvAddr=nowhere\n");
  ASSERT_FALSE(addr.ok());
  EXPECT_NE(addr.error().detail.find("namesrvAddr"), std::string::npos) << addr.error().detail;
  auto polling = parse("grpcClientConsumerMinLongPollingTimeoutMillis=30000\n");
  ASSERT_FALSE(polling.ok());
  EXPECT_NE(polling.error().detail.find("more than grpcClientConsumerMaxLongPollingTimeoutMillis"), std::string::npos);
  auto permissive = parse("tls.server.mode=permissive\n");
  ASSERT_FALSE(permissive.ok());
  EXPECT_NE(permissive.error().detail.find("tls.server.mode: permissive is not served on the gRPC port"), std::string::npos)
      << permissive.error().detail;
  auto enforcing = parse("tls.server.mode=enforcing\ntls.server.certPath=/etc/ferry/c.pem\ntls.server.keyPath=/etc/ferry/k.pem\n");
  ASSERT_TRUE(enforcing.ok()) << enforcing.error().to_string();
  EXPECT_EQ(enforcing->tls.server.mode, TlsServerMode::enforcing);
  auto half_keys = parse("accessKey=onlyTheKey\n");
  ASSERT_FALSE(half_keys.ok());
  EXPECT_NE(half_keys.error().detail.find("accessKey and secretKey go together"), std::string::npos);
}

}  // namespace
}  // namespace ferry::daemon
