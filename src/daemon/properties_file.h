// PropertiesFile: RocketMQ's broker.conf / namesrv.conf format, the subset of Java's
// java.util.Properties that RocketMQ's shipped examples use.
//
//   # a comment (also "!" at the start of a line)
//   brokerClusterName = DefaultCluster
//   namesrvAddr=10.0.0.1:9876;10.0.0.2:9876
//
// Rules: one `key=value` per line; whitespace around key and value is trimmed; blank lines and
// lines whose first non-blank character is `#` or `!` are ignored; the first `=` splits (a
// value may contain `=`); an empty value is allowed (`key=`). Not supported, and reported as
// errors rather than misread: `key:value` and `key value` separators (no `=`), an empty key,
// backslash line continuations. A key given twice keeps the last value (as Java does) and the
// earlier line is reported in `duplicates`.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/result.h"

namespace ferry::daemon {

struct Property {
  std::size_t line = 0;  // 1-based line number in the file
  std::string key;
  std::string value;
};

struct PropertiesFile {
  std::string file;                // the name errors and warnings use (the path as given)
  std::vector<Property> entries;   // in file order, one per key (the last occurrence wins)
  std::vector<std::string> duplicates;  // "broker.conf:3: key listenPort given again on line 9"
};

// Parses `text`. Errors (Errc::invalid_argument) read "{file}:{line}: {what}", e.g.
// "broker.conf:7: expected key=value, got \"listenPort 10911\"".
Result<PropertiesFile> parse_properties(std::string_view text, std::string file);

// Reads `path` and parses it. A missing or unreadable file is Errc::not_found / io_error naming
// the path ("cannot read config file conf/x.conf: No such file or directory").
Result<PropertiesFile> read_properties(const std::string& path);

}  // namespace ferry::daemon
