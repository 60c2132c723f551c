// JSON helpers over the golden vectors (tests/vectors/, read through tests/support/vectors.h) for
// the remoting tests.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ferry::remoting::testing {

// Each line of a .jsonl vector file parsed as a JSON document. Fails the calling test (ADD_FAILURE
// with the path) and returns nothing when the file is missing, empty, or a line does not parse.
std::vector<rapidjson::Document> load_jsonl(std::string_view file_name);

std::vector<std::uint8_t> hex_to_bytes(std::string_view hex);
std::string bytes_to_hex(const std::vector<std::uint8_t>& bytes);
std::vector<std::uint8_t> to_bytes(std::string_view s);
std::string to_string(const std::vector<std::uint8_t>& bytes);

// Serializes `v` as compact JSON (numbers and booleans stay raw).
std::string write_json(const rapidjson::Value& v);

// Builds a JSON-header frame from a vector line's fields exactly as given: extFields values keep
// their JSON types (raw numbers/booleans), the body is `body`.
std::vector<std::uint8_t> json_frame_from_fields(const rapidjson::Value& line,
                                                 const std::vector<std::uint8_t>& body);

}  // namespace ferry::remoting::testing
