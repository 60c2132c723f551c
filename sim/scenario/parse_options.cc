#include "sim/scenario/parse_options.h"

#include <fmt/format.h>

#include <algorithm>

namespace ferry::sim::scenario {

void read_option(TableReader& r, const OptionSpec& o, const Scenario& s, OptionValue& value,
                 const std::function<std::string(const OptionSpec&)>& missing) {
  const std::string key(o.name);
  if (o.required && !r.has(key)) r.fail(key, missing(o));
  if (auto* b = std::get_if<bool>(&value)) {
    r.read(key, *b);
  } else if (auto* i = std::get_if<std::int64_t>(&value)) {
    r.read(key, *i, o.min, o.max);
  } else if (auto* d = std::get_if<Duration>(&value)) {
    r.read_duration(key, *d, o.min_duration, o.max_duration, o.signed_ms);
  } else if (auto* str = std::get_if<std::string>(&value)) {
    if (!o.choices.empty()) {
      if (r.has(key)) r.read_choice(key, *str, o.choices);
    } else {
      r.read(key, *str);
    }
    if (o.names_group) {
      if (str->empty() && !o.optional) r.fail(key, missing(o));
      bool found = str->empty();
      for (const cluster::BrokerGroupSpec& g : s.cluster.brokers) found = found || g.name == *str;
      if (!found) r.fail(key, fmt::format("\"{}\" is not a broker group of the cluster", *str));
    }
    if (o.names_topic) {
      const bool known = std::any_of(s.cluster.topics.begin(), s.cluster.topics.end(),
                                     [&](const cluster::TopicSpec& t) { return t.name == *str; });
      if (!known) r.fail(key, fmt::format("\"{}\" is not a topic of the scenario ([[topics]])", *str));
    }
  }
}

OptionValues read_options(TableReader& r, const std::vector<OptionSpec>& specs, const Scenario& s,
                          const std::function<std::string(const OptionSpec&)>& missing) {
  OptionValues out;
  for (const OptionSpec& o : specs) {
    OptionValue v = o.default_value;
    read_option(r, o, s, v, missing);
    out.emplace(std::string(o.name), std::move(v));
  }
  return out;
}

}  // namespace ferry::sim::scenario
