#include "sim/scenario/toml_reader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/scenario/duration_text.h"

namespace ferry::sim::scenario {

namespace {

const char* type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    default: return "nothing";
  }
}

}  // namespace

void Diagnostics::add(int line, std::string_view key, std::string_view what) {
  if (errors_.size() >= kDiagnosticsMax) {
    ++dropped_;
    return;
  }
  if (line > 0) {
    errors_.push_back(fmt::format("{}:{}: {}: {}", file_, line, key, what));
  } else {
    errors_.push_back(fmt::format("{}: {}: {}", file_, key, what));
  }
}

Status Diagnostics::status() const {
  if (errors_.empty()) return {};
  std::string text = fmt::format("{}", fmt::join(errors_, "\n"));
  if (dropped_ > 0) text += fmt::format("\n{}: {} more problems not shown", file_, dropped_);
  return Error(Errc::invalid_argument, std::move(text));
}

int line_of(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

TableReader::TableReader(Diagnostics& diag, const toml::table& table, std::string path)
    : diag_(diag), table_(table), path_(std::move(path)) {}

int TableReader::line(std::string_view key) const {
  const toml::node* n = table_.get(key);
  const int l = n != nullptr ? line_of(*n) : 0;
  return l > 0 ? l : line();
}

std::string TableReader::path(std::string_view key) const {
  return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
}

std::string TableReader::not_one_of(std::string_view text, const std::vector<std::string_view>& choices) {
  return fmt::format("\"{}\" is not one of \"{}\"", text, fmt::join(choices, "\", \""));
}

const toml::node* TableReader::find(std::string_view key) {
  known_.insert(std::string(key));
  return table_.get(key);
}

void TableReader::read(std::string_view key, bool& out) {
  const toml::node* n = find(key);
  if (n == nullptr) return;
  if (const auto* b = n->as_boolean()) {
    out = b->get();
    return;
  }
  fail(key, fmt::format("expected true or false, found {}", type_name(*n)));
}

bool TableReader::read_string_checked(std::string_view key, std::string& out) {
  const toml::node* n = find(key);
  if (n == nullptr) return false;
  if (const auto* s = n->as_string()) {
    out = s->get();
    return true;
  }
  fail(key, fmt::format("expected a string, found {}", type_name(*n)));
  return false;
}

void TableReader::read(std::string_view key, std::string& out) {
  std::string v;
  if (!read_string_checked(key, v)) return;
  if (v.empty()) {
    fail(key, "is empty");
    return;
  }
  out = std::move(v);
}

void TableReader::read(std::string_view key, std::int64_t& out, std::int64_t min, std::int64_t max) {
  const toml::node* n = find(key);
  if (n == nullptr) return;
  const auto* i = n->as_integer();
  if (i == nullptr) {
    fail(key, fmt::format("expected an integer, found {}", type_name(*n)));
    return;
  }
  if (i->get() < min || i->get() > max) {
    fail(key, fmt::format("{} is out of range {}..{}", i->get(), min, max));
    return;
  }
  out = i->get();
}

void TableReader::read(std::string_view key, double& out, double min, double max) {
  const toml::node* n = find(key);
  if (n == nullptr) return;
  double v = 0;
  if (const auto* i = n->as_integer()) {
    v = static_cast<double>(i->get());
  } else if (const auto* f = n->as_floating_point()) {
    v = f->get();
  } else {
    fail(key, fmt::format("expected a number, found {}", type_name(*n)));
    return;
  }
  if (!(v >= min && v <= max)) {  // NaN fails too
    fail(key, fmt::format("{} is out of range {}..{}", v, min, max));
    return;
  }
  out = v;
}

void TableReader::read_duration(std::string_view key, Duration& out, Duration min, Duration max, bool sign_allowed) {
  std::string text;
  const toml::node* n = table_.get(key);
  if (n != nullptr && (n->is_integer() || n->is_floating_point())) {
    known_.insert(std::string(key));
    fail(key, "a duration needs a unit: write it as a string, \"30s\", \"500ms\", \"2m\"");
    return;
  }
  if (!read_string_checked(key, text)) return;
  auto d = parse_duration(text, sign_allowed);
  if (!d.ok()) {
    fail(key, d.error().detail);
    return;
  }
  if (*d < min || *d > max) {
    fail(key, fmt::format("{} is out of range {}..{}", text, format_duration(min), format_duration(max)));
    return;
  }
  out = *d;
}

void TableReader::read_strings(std::string_view key, std::vector<std::string>& out) {
  const toml::node* n = find(key);
  if (n == nullptr) return;
  if (const auto* s = n->as_string()) {
    if (s->get().empty()) {
      fail(key, "is empty");
      return;
    }
    out = {s->get()};
    return;
  }
  const auto* a = n->as_array();
  if (a == nullptr) {
    fail(key, fmt::format("expected a string or an array of strings, found {}", type_name(*n)));
    return;
  }
  std::vector<std::string> v;
  for (std::size_t i = 0; i < a->size(); ++i) {
    const auto* s = a->get(i)->as_string();
    if (s == nullptr || s->get().empty()) {
      fail(key, fmt::format("element {} is {}; expected a non-empty string", i,
                            s == nullptr ? type_name(*a->get(i)) : "empty"));
      return;
    }
    v.push_back(s->get());
  }
  out = std::move(v);
}

const toml::table* TableReader::table(std::string_view key) {
  const toml::node* n = find(key);
  if (n == nullptr) return nullptr;
  if (const auto* t = n->as_table()) return t;
  fail(key, fmt::format("expected a table ([{}]), found {}", path(key), type_name(*n)));
  return nullptr;
}

const toml::array* TableReader::tables(std::string_view key, std::size_t entries_max) {
  const toml::node* n = find(key);
  if (n == nullptr) return nullptr;
  const auto* a = n->as_array();
  if (a != nullptr && a->empty()) return a;
  if (a == nullptr || !a->is_array_of_tables()) {
    fail(key, fmt::format("expected [[{}]] entries, found {}", path(key), type_name(*n)));
    return nullptr;
  }
  if (a->size() > entries_max) {
    fail(key, fmt::format("{} entries; at most {}", a->size(), entries_max));
    return nullptr;
  }
  return a;
}

void TableReader::finish() {
  for (auto&& [k, v] : table_) {
    if (known_.count(std::string(k.str())) > 0) continue;
    const std::string names = fmt::format("{}", fmt::join(known_, ", "));
    const int l = static_cast<int>(k.source().begin.line);
    diag_.add(l > 0 ? l : line_of(v), path(k.str()), "unknown key (known here: " + names + ")");
  }
}

}  // namespace ferry::sim::scenario
