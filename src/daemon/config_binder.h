// ConfigBinder: binds property names to typed fields and applies a PropertiesFile to them.
//
//   BrokerConfig c;
//   ConfigBinder b;
//   b.bind_int("listenPort", c.listen_port, 1, 65535);
//   b.bind_bool("autoCreateTopicEnable", c.auto_create_topic_enable);
//   auto applied = b.apply(file);     // error: "broker.conf:4: listenPort: \"x\" is not an integer"
//
// Values are validated the strict way (where Java would quietly read "yes" as false, this
// refuses it): booleans are `true`/`false` in any case; integers are decimal with an optional
// sign and must fit the field and the bound range; enums are their exact names. The first bad
// value stops apply() with Errc::invalid_argument, "{file}:{line}: {key}: {what}"; fields bound
// earlier in the file may already be set (callers throw the target away on error). Unknown keys
// are not errors: each becomes a warning naming file, line and key. Keys bound with ignore()
// are known but unused here: a warning says why.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "daemon/properties_file.h"
#include "runtime/result.h"
#include "runtime/time.h"

namespace ferry::daemon {

// Parses a decimal integer within [min, max]. The error text names the value and the range,
// not the key (the caller adds file, line and key).
Result<std::int64_t> parse_int_in(std::string_view text, std::int64_t min, std::int64_t max);
Result<bool> parse_bool(std::string_view text);

class ConfigBinder {
 public:
  // Parses `value` into its field, or says what is wrong with it (without file/line/key).
  using Setter = std::function<Status(std::string_view value)>;

  void bind(std::string key, Setter set);
  void bind_bool(std::string key, bool& field);
  void bind_string(std::string key, std::string& field, bool allow_empty = false);
  // Milliseconds in the file, a Duration in the field.
  void bind_ms(std::string key, Duration& field, std::int64_t min_ms, std::int64_t max_ms);

  template <typename Int>
  void bind_int(std::string key, Int& field, std::int64_t min, std::int64_t max) {
    static_assert(std::is_integral_v<Int> && !std::is_same_v<Int, bool>);
    if constexpr (std::is_signed_v<Int>) {
      min = std::max<std::int64_t>(min, std::numeric_limits<Int>::min());
      max = std::min<std::int64_t>(max, std::numeric_limits<Int>::max());
    } else {
      min = std::max<std::int64_t>(min, 0);
      if constexpr (sizeof(Int) < sizeof(std::int64_t)) {
        max = std::min<std::int64_t>(max, static_cast<std::int64_t>(std::numeric_limits<Int>::max()));
      }
    }
    bind(std::move(key), [&field, min, max](std::string_view v) -> Status {
      auto n = parse_int_in(v, min, max);
      if (!n) return std::move(n).error();
      field = static_cast<Int>(*n);
      return Status();
    });
  }

  template <typename E>
  void bind_enum(std::string key, E& field, std::vector<std::pair<std::string, E>> names) {
    bind(std::move(key), [&field, names = std::move(names)](std::string_view v) -> Status {
      std::string all;
      for (const auto& [name, value] : names) {
        if (name == v) {
          field = value;
          return Status();
        }
        all += all.empty() ? name : " / " + name;
      }
      return Error(Errc::invalid_argument, fmt::format("\"{}\" is not one of {}", v, all));
    });
  }

  // A known key this program accepts but does not use; applying it warns with `why`.
  void ignore(std::string key, std::string why);

  struct Applied {
    std::vector<std::string> warnings;       // unknown and ignored keys, duplicates
    std::map<std::string, std::size_t> lines;  // key -> line, for every key that was applied
  };
  Result<Applied> apply(const PropertiesFile& file) const;

  bool knows(std::string_view key) const;

 private:
  std::map<std::string, Setter, std::less<>> setters_;
  std::map<std::string, std::string, std::less<>> ignored_;
};

// "{file}:{line}: {key}: {what}" — the shape of every config error ("{file}: {key}: {what}" when
// line is 0: a combination involving a key the file did not set).
Error config_error(const std::string& file, std::size_t line, std::string_view key, std::string_view what);

// A value that must be an IPv4 address ("a.b.c.d"): invalid_argument saying so otherwise.
Status check_ipv4(std::string_view host);

// "ip:port;ip:port" (RocketMQ's namesrvAddr, also `mqbroker -n`): empty items are skipped,
// whitespace trimmed; each must be an IPv4 "a.b.c.d:port". Errors name the bad item.
Result<std::vector<std::string>> parse_namesrv_addr(std::string_view text);

}  // namespace ferry::daemon
