#include "common/metrics.h"

#include <algorithm>
#include <variant>

#include "runtime/assert.h"

namespace ferry::metrics {

std::string_view type_name(Type t) {
  switch (t) {
    case Type::counter: return "counter";
    case Type::gauge: return "gauge";
    case Type::histogram: return "histogram";
  }
  return "untyped";
}

void Histogram::observe(double v) {
  const auto& b = *bounds_;
  const std::size_t i = static_cast<std::size_t>(std::lower_bound(b.begin(), b.end(), v) - b.begin());
  ++counts_[i];
  sum_ += v;
  ++count_;
}

namespace detail {
void check_label_count(std::string_view family, std::size_t want, std::size_t got) {
  FERRY_ASSERT(want == got, "metrics family {}: {} label values given for {} label names", family, got, want);
}
}  // namespace detail

const Sample* FamilySnapshot::find(std::initializer_list<std::string_view> values) const {
  for (const Sample& s : samples) {
    if (std::equal(s.label_values.begin(), s.label_values.end(), values.begin(), values.end(),
                   [](const std::string& a, std::string_view b) { return a == b; })) {
      return &s;
    }
  }
  return nullptr;
}

const FamilySnapshot* Snapshot::family(std::string_view name) const {
  for (const FamilySnapshot& f : families) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

double Snapshot::value(std::string_view name, std::initializer_list<std::string_view> values) const {
  const FamilySnapshot* f = family(name);
  const Sample* s = f ? f->find(values) : nullptr;
  return s ? s->value : 0;
}

double Snapshot::total(std::string_view name) const {
  const FamilySnapshot* f = family(name);
  double sum = 0;
  if (f) {
    for (const Sample& s : f->samples) sum += s.value;
  }
  return sum;
}

Snapshot merge(std::vector<Snapshot> parts) {
  Snapshot out;
  for (Snapshot& part : parts) {
    for (FamilySnapshot& f : part.families) {
      // This part's label names: its common labels, then the family's.
      std::vector<std::string> names;
      for (const auto& [k, v] : part.common_labels) names.push_back(k);
      names.insert(names.end(), f.label_names.begin(), f.label_names.end());
      FamilySnapshot* into = nullptr;
      for (FamilySnapshot& g : out.families) {
        if (g.name == f.name) into = &g;
      }
      if (into == nullptr) {
        out.families.push_back(FamilySnapshot{f.name, f.help, f.type, {}, f.bounds, {}, 0});
        into = &out.families.back();
      } else if (into->type != f.type || into->bounds != f.bounds) {
        FERRY_ASSERT(false, "metrics merge: family {} has two types or bucket sets", f.name);
        continue;
      }
      // Where each of this part's names sits in the merged family's.
      std::vector<std::size_t> at;
      for (const std::string& n : names) {
        auto it = std::find(into->label_names.begin(), into->label_names.end(), n);
        if (it == into->label_names.end()) {
          into->label_names.push_back(n);
          for (Sample& s : into->samples) s.label_values.emplace_back();
          it = into->label_names.end() - 1;
        }
        at.push_back(static_cast<std::size_t>(it - into->label_names.begin()));
      }
      for (Sample& s : f.samples) {
        std::vector<std::string> values(into->label_names.size());
        for (std::size_t i = 0; i < part.common_labels.size(); ++i) values[at[i]] = part.common_labels[i].second;
        for (std::size_t i = 0; i < s.label_values.size(); ++i) values[at[part.common_labels.size() + i]] = std::move(s.label_values[i]);
        s.label_values = std::move(values);
        into->samples.push_back(std::move(s));
      }
      into->overflowed += f.overflowed;
    }
  }
  for (FamilySnapshot& f : out.families) {
    // Samples made before a later part widened the label names are short; all are now full.
    std::sort(f.samples.begin(), f.samples.end(),
              [](const Sample& a, const Sample& b) { return a.label_values < b.label_values; });
  }
  return out;
}

void SampleSink::add(std::initializer_list<std::string_view> values, double value) {
  add(std::vector<std::string>(values.begin(), values.end()), value);
}

void SampleSink::add(std::vector<std::string> values, double value) {
  FERRY_ASSERT(values.size() == label_count_, "metrics callback: {} label values given for {} label names",
               values.size(), label_count_);
  if (auto it = samples_.find(values); it != samples_.end()) {
    it->second = value;
    return;
  }
  if (samples_.size() >= series_max_) {
    ++dropped_;
    return;
  }
  samples_.emplace(std::move(values), value);
}

namespace {

bool valid_name(std::string_view s, bool colon_ok) {
  if (s.empty()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon_ok && c == ':');
    const bool digit = c >= '0' && c <= '9';
    if (!alpha && !(digit && i > 0)) return false;
  }
  return true;
}

}  // namespace

struct Registry::Entry {
  std::string name;
  std::string help;
  Type type;
  std::vector<std::string> label_names;
  // One of: a family kept by the registry, or a callback.
  std::variant<std::monostate, std::unique_ptr<Family<Counter>>, std::unique_ptr<Family<Gauge>>,
               std::unique_ptr<Family<Histogram>>, std::function<void(SampleSink&)>>
      source;
};

Registry::Registry(std::size_t series_max) : series_max_(series_max) {
  FERRY_ASSERT(series_max >= 1, "metrics registry: series_max {}", series_max);
}

Registry::~Registry() = default;

Registry::Entry& Registry::add_entry(std::string name, std::string help, Type type, std::vector<std::string> label_names) {
  FERRY_ASSERT(valid_name(name, true), "metrics: \"{}\" is not a metric name", name);
  for (const auto& l : label_names) FERRY_ASSERT(valid_name(l, false), "metrics {}: \"{}\" is not a label name", name, l);
  for (const auto& f : families_) FERRY_ASSERT(f->name != name, "metrics: family {} registered twice", name);
  auto e = std::make_unique<Entry>();
  e->name = std::move(name);
  e->help = std::move(help);
  e->type = type;
  e->label_names = std::move(label_names);
  families_.push_back(std::move(e));
  return *families_.back();
}

Family<Counter>& Registry::counter(std::string name, std::string help, std::vector<std::string> label_names) {
  Entry& e = add_entry(std::move(name), std::move(help), Type::counter, std::move(label_names));
  auto f = std::unique_ptr<Family<Counter>>(new Family<Counter>(e.name, e.label_names.size(), series_max_));
  auto& ref = *f;
  e.source = std::move(f);
  return ref;
}

Family<Gauge>& Registry::gauge(std::string name, std::string help, std::vector<std::string> label_names) {
  Entry& e = add_entry(std::move(name), std::move(help), Type::gauge, std::move(label_names));
  auto f = std::unique_ptr<Family<Gauge>>(new Family<Gauge>(e.name, e.label_names.size(), series_max_));
  auto& ref = *f;
  e.source = std::move(f);
  return ref;
}

Family<Histogram>& Registry::histogram(std::string name, std::string help, std::vector<std::string> label_names,
                                       std::vector<double> bounds) {
  FERRY_ASSERT(!bounds.empty() && std::is_sorted(bounds.begin(), bounds.end()) &&
                   std::adjacent_find(bounds.begin(), bounds.end()) == bounds.end(),
               "metrics histogram {}: bounds must be ascending and non-empty", name);
  Entry& e = add_entry(std::move(name), std::move(help), Type::histogram, std::move(label_names));
  auto f = std::unique_ptr<Family<Histogram>>(
      new Family<Histogram>(e.name, e.label_names.size(), series_max_, std::move(bounds)));
  auto& ref = *f;
  e.source = std::move(f);
  return ref;
}

void Registry::callback(Type type, std::string name, std::string help, std::vector<std::string> label_names,
                        std::function<void(SampleSink&)> fn) {
  FERRY_ASSERT(type != Type::histogram, "metrics {}: a callback family is a counter or a gauge", name);
  Entry& e = add_entry(std::move(name), std::move(help), type, std::move(label_names));
  e.source = std::move(fn);
}

namespace {

template <typename T>
void copy_series(const std::map<std::vector<std::string>, T, detail::LabelsLess>& series, FamilySnapshot& out) {
  out.samples.reserve(series.size());
  for (const auto& [labels, metric] : series) {
    Sample s;
    s.label_values = labels;
    if constexpr (std::is_same_v<T, Histogram>) {
      s.value = static_cast<double>(metric.count());
      s.bucket_counts = metric.counts();
      s.sum = metric.sum();
    } else {
      s.value = static_cast<double>(metric.value());
    }
    out.samples.push_back(std::move(s));
  }
}

}  // namespace

FamilySnapshot Registry::collect_family(const Entry& e) const {
  FamilySnapshot f;
  f.name = e.name;
  f.help = e.help;
  f.type = e.type;
  f.label_names = e.label_names;
  if (const auto* c = std::get_if<std::unique_ptr<Family<Counter>>>(&e.source)) {
    copy_series((*c)->series_, f);
    f.overflowed = (*c)->overflowed();
  } else if (const auto* g = std::get_if<std::unique_ptr<Family<Gauge>>>(&e.source)) {
    copy_series((*g)->series_, f);
    f.overflowed = (*g)->overflowed();
  } else if (const auto* h = std::get_if<std::unique_ptr<Family<Histogram>>>(&e.source)) {
    f.bounds = (*h)->bounds_;
    copy_series((*h)->series_, f);
    f.overflowed = (*h)->overflowed();
  } else if (const auto* fn = std::get_if<std::function<void(SampleSink&)>>(&e.source)) {
    SampleSink sink(e.label_names.size(), series_max_);
    (*fn)(sink);
    f.samples.reserve(sink.samples_.size());
    for (auto& [labels, value] : sink.samples_) {
      Sample s;
      s.label_values = labels;
      s.value = value;
      f.samples.push_back(std::move(s));
    }
    f.overflowed = sink.dropped_;
  }
  return f;
}

Snapshot Registry::collect() const {
  Snapshot snap;
  snap.common_labels = common_labels_;
  snap.families.reserve(families_.size());
  for (const auto& e : families_) snap.families.push_back(collect_family(*e));
  return snap;
}

Snapshot Registry::collect(std::span<const std::string_view> names) const {
  Snapshot snap;
  snap.common_labels = common_labels_;
  for (const auto& e : families_) {
    if (std::find(names.begin(), names.end(), e->name) != names.end()) snap.families.push_back(collect_family(*e));
  }
  return snap;
}

}  // namespace ferry::metrics
