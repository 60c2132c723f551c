// Java's String.hashCode() of UTF-8 text, and the IndexFile key hash built on it.
//
// Java hashes UTF-16 code units: h = 31 * h + unit, in wrapping 32-bit arithmetic. The UTF-8
// input is decoded to code points; those above U+FFFF count as their two surrogate units.
// Invalid UTF-8 is decoded the way Java's `new String(bytes, UTF_8)` does: each maximal
// ill-formed subsequence (Unicode's "maximal subpart" practice: a lone continuation byte, a
// truncated sequence, an overlong form, a surrogate encoding, a code point above U+10FFFF) becomes
// one U+FFFD. So a Ferry hash equals the hash a Java broker computes for the same bytes.
#pragma once

#include <cstdint>
#include <string_view>

namespace ferry {

std::int32_t java_string_hash(std::string_view utf8);

// The IndexFile key hash: abs(java_string_hash(key)), with abs(INT32_MIN) taken as 0 (RocketMQ's
// IndexService: `int keyHash = Math.abs(key.hashCode()); if (keyHash < 0) keyHash = 0;`).
std::int32_t index_key_hash(std::string_view key);

}  // namespace ferry
