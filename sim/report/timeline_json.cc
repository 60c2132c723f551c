#include "sim/report/timeline_json.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace ferry::sim::report {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void write_lane(Writer& w, const Lane& l) {
  w.StartObject();
  w.Key("kind");
  w.String(l.kind);
  w.Key("name");
  w.String(l.name);
  w.Key("note");
  w.String(l.note);
  w.Key("series");
  w.StartArray();
  for (const std::string& s : l.series) w.String(s);
  w.EndArray();
  w.Key("cols");
  w.StartArray();
  for (const auto& [index, counts] : l.columns) {
    w.StartArray();
    w.Int64(index);
    for (std::int64_t c : counts) w.Int64(c);
    w.EndArray();
  }
  w.EndArray();
  w.Key("marks");
  w.StartArray();
  for (const Mark& m : l.marks) {
    w.StartArray();
    w.Int64(m.at_ms);
    w.String(m.kind);
    w.String(m.text);
    w.EndArray();
  }
  w.EndArray();
  w.Key("marksDropped");
  w.Int64(l.marks_dropped);
  w.EndObject();
}

}  // namespace

std::string timeline_json(const Timeline& t) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  w.Key("spanMs");
  w.Int64(t.span_ms());
  w.Key("columnMs");
  w.Int64(t.column_ms());
  w.Key("lanesDropped");
  w.Int64(t.lanes_dropped());
  w.Key("windowsDropped");
  w.Int64(t.windows_dropped());
  w.Key("windows");
  w.StartArray();
  for (const Window& win : t.windows()) {
    w.StartObject();
    w.Key("from");
    w.Int64(win.from_ms);
    w.Key("to");
    w.Int64(win.to_ms);
    w.Key("text");
    w.String(win.text);
    w.EndObject();
  }
  w.EndArray();
  w.Key("lanes");
  w.StartArray();
  for (const Lane& l : t.lanes()) write_lane(w, l);
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace ferry::sim::report
