// Metrics: one node's counters, gauges and histograms, read as a Snapshot — by the daemons'
// Prometheus endpoint (daemon/metrics_exporter.h: the text exposition format, written by
// prometheus-cpp) and by the simulator, which samples every node's registry in virtual time
// (docs/operations.md "Monitoring", docs/simulator.md).
//
// Why a registry of our own and not prometheus-cpp's: component code is single-threaded and
// deterministic (docs/runtime.md). prometheus-cpp's Registry is built for threads (a mutex per
// family lookup, atomics per increment), keeps series in unordered maps (collect order varies
// with the hash), and has no gauges computed at collect time. Here an increment is an add on
// the loop thread, a snapshot comes out in the same order for the same history, and a callback
// family reads the node's state when it is collected (a consumer group's lag, say) instead of
// being kept up to date on every change.
//
// Model (Prometheus's): a family has a name, a help text, a type and fixed label names; each
// distinct list of label values is one series. Values:
//   Counter    a count that only goes up (uint64: exact; shown as a float by the exporter);
//   Gauge      a value set or moved either way;
//   Histogram  observations counted into buckets of fixed upper bounds (plus +Inf), with their
//              sum and count.
// The node's common labels (cluster, node_type, node_id — RocketMQ 5's) belong to the registry
// and are added to every series by the reader.
//
// Bounded: a family holds at most `series_max` series (the registry's, default 4096, the same
// as the broker's per-key stats), plus one: a new label set beyond it is counted into one overflow series
// whose label values are all kOverflowValue, and the family's dropped count says how many label
// sets went there; a client that invents topics cannot grow the node's memory or the scrape.
// Series are never removed (a topic deleted keeps its counters until the node restarts, as a
// Prometheus client library does).
//
// References returned by a family (Counter&, Gauge&, Histogram&) stay valid as long as the
// registry. Loop thread only.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace ferry::metrics {

enum class Type : std::uint8_t { counter, gauge, histogram };
std::string_view type_name(Type t);

// The label value of a family's overflow series.
inline constexpr std::string_view kOverflowValue = "_other";

class Counter {
 public:
  void inc(std::uint64_t n = 1) { value_ += n; }
  std::uint64_t value() const { return value_; }

 private:
  std::uint64_t value_ = 0;
};

class Gauge {
 public:
  void set(double v) { value_ = v; }
  void add(double d) { value_ += d; }
  double value() const { return value_; }

 private:
  double value_ = 0;
};

// Buckets: counts_[i] holds observations v with bounds[i-1] < v <= bounds[i]; the last slot
// holds those above every bound (+Inf).
class Histogram {
 public:
  explicit Histogram(const std::vector<double>* bounds) : bounds_(bounds), counts_(bounds->size() + 1, 0) {}
  void observe(double v);
  const std::vector<double>& bounds() const { return *bounds_; }
  // Per bucket, not cumulative; size bounds().size() + 1.
  const std::vector<std::uint64_t>& counts() const { return counts_; }
  double sum() const { return sum_; }
  std::uint64_t count() const { return count_; }

 private:
  const std::vector<double>* bounds_;
  std::vector<std::uint64_t> counts_;
  double sum_ = 0;
  std::uint64_t count_ = 0;
};

// One series in a snapshot.
struct Sample {
  std::vector<std::string> label_values;  // in the family's label_names order
  double value = 0;                       // counter or gauge (a histogram: its count)
  // Histogram only: per-bucket counts (as Histogram::counts()) and the sum.
  std::vector<std::uint64_t> bucket_counts;
  double sum = 0;
};

struct FamilySnapshot {
  std::string name;
  std::string help;
  Type type = Type::gauge;
  std::vector<std::string> label_names;
  std::vector<double> bounds;  // histogram only: the buckets' upper bounds, ascending
  std::vector<Sample> samples;  // sorted by label values
  std::uint64_t overflowed = 0;  // label sets counted into the overflow series (or dropped by a callback)

  const Sample* find(std::initializer_list<std::string_view> values) const;
};

struct Snapshot {
  std::vector<std::pair<std::string, std::string>> common_labels;
  std::vector<FamilySnapshot> families;  // in registration order

  const FamilySnapshot* family(std::string_view name) const;
  // The value of one series (a histogram's count); 0 when the family or the series is absent.
  double value(std::string_view name, std::initializer_list<std::string_view> values = {}) const;
  // The sum of every series of a family; 0 when absent.
  double total(std::string_view name) const;
};

// Several nodes' snapshots as one (a NameServer with its embedded controller on one endpoint):
// each part's common labels move into its series, and families of the same name and type become
// one, their label names the union in order of appearance (a series without one of them has
// it empty, which Prometheus reads as absent). A family whose type differs from an earlier
// one's of the same name is left out (asserted in debug builds: names are registered by us).
Snapshot merge(std::vector<Snapshot> parts);

// Labels-to-series map of one family; T is Counter, Gauge or Histogram.
template <typename T>
class Family;

// What a callback family's function adds its samples to, at collect time.
class SampleSink {
 public:
  // `values` matches the family's label names in number (asserted). A label set given twice
  // keeps the later value; beyond series_max the sample is dropped and counted.
  void add(std::initializer_list<std::string_view> values, double value);
  void add(std::vector<std::string> values, double value);

 private:
  friend class Registry;
  SampleSink(std::size_t label_count, std::size_t series_max) : label_count_(label_count), series_max_(series_max) {}
  std::size_t label_count_;
  std::size_t series_max_;
  std::map<std::vector<std::string>, double> samples_;
  std::uint64_t dropped_ = 0;
};

class Registry {
 public:
  static constexpr std::size_t kDefaultSeriesMax = 4096;

  explicit Registry(std::size_t series_max = kDefaultSeriesMax);
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // Labels added to every series of this node, first (RocketMQ 5: cluster, node_type, node_id).
  void set_common_labels(std::vector<std::pair<std::string, std::string>> labels) { common_labels_ = std::move(labels); }
  const std::vector<std::pair<std::string, std::string>>& common_labels() const { return common_labels_; }

  // Families, registered once per name (asserted): a name is [a-zA-Z_:][a-zA-Z0-9_:]* and label
  // names [a-zA-Z_][a-zA-Z0-9_]* (asserted, so an exporter needs no escaping of names).
  Family<Counter>& counter(std::string name, std::string help, std::vector<std::string> label_names = {});
  Family<Gauge>& gauge(std::string name, std::string help, std::vector<std::string> label_names = {});
  // `bounds` ascending, non-empty (asserted).
  Family<Histogram>& histogram(std::string name, std::string help, std::vector<std::string> label_names,
                               std::vector<double> bounds);
  // A family whose samples `fn` gives when the registry is collected: a gauge of the node's state
  // (a lag, a size), or a counter kept elsewhere (type counter). `fn` runs on the loop thread,
  // inside collect(); it must not touch the registry.
  void callback(Type type, std::string name, std::string help, std::vector<std::string> label_names,
                std::function<void(SampleSink&)> fn);

  Snapshot collect() const;
  // Only the families named in `names` (others are neither read nor copied; their callbacks do
  // not run): what the simulator samples every second.
  Snapshot collect(std::span<const std::string_view> names) const;
  std::size_t series_max() const { return series_max_; }

 private:
  struct Entry;
  Entry& add_entry(std::string name, std::string help, Type type, std::vector<std::string> label_names);
  FamilySnapshot collect_family(const Entry& e) const;

  std::size_t series_max_;
  std::vector<std::pair<std::string, std::string>> common_labels_;
  std::vector<std::unique_ptr<Entry>> families_;
};

namespace detail {
// std::less over label lists that also compares a list of views, for lookups without a copy.
struct LabelsLess {
  using is_transparent = void;
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                        [](std::string_view x, std::string_view y) { return x < y; });
  }
};
void check_label_count(std::string_view family, std::size_t want, std::size_t got);
}  // namespace detail

template <typename T>
class Family {
 public:
  // The series of `values` (as many as the family's label names, asserted), made on first use;
  // the overflow series when the family is full.
  T& with(std::initializer_list<std::string_view> values) {
    detail::check_label_count(name_, label_count_, values.size());
    if (auto it = series_.find(values); it != series_.end()) return it->second;
    if (series_.size() >= series_max_) return overflow();
    return series_.try_emplace(std::vector<std::string>(values.begin(), values.end()), make()).first->second;
  }
  // The one series of a family without labels.
  T& only() { return with({}); }

  std::size_t size() const { return series_.size(); }
  std::uint64_t overflowed() const { return overflowed_; }
  const std::string& name() const { return name_; }

 private:
  friend class Registry;
  Family(std::string name, std::size_t label_count, std::size_t series_max, std::vector<double> bounds = {})
      : name_(std::move(name)), label_count_(label_count), series_max_(series_max), bounds_(std::move(bounds)) {}
  T make() const {
    if constexpr (std::is_same_v<T, Histogram>) {
      return Histogram(&bounds_);
    } else {
      return T();
    }
  }
  T& overflow() {
    ++overflowed_;
    std::vector<std::string> other(label_count_, std::string(kOverflowValue));
    return series_.try_emplace(std::move(other), make()).first->second;
  }

  std::string name_;
  std::size_t label_count_;
  std::size_t series_max_;
  std::vector<double> bounds_;
  std::uint64_t overflowed_ = 0;
  std::map<std::vector<std::string>, T, detail::LabelsLess> series_;
};

}  // namespace ferry::metrics
