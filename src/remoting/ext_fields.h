// ExtFields: a command's string→string header fields, kept in insertion order so that encoding
// is deterministic and a decoded command re-encodes its fields in the order they arrived. They
// are common's OrderedStringMap (common/ordered_string_map.h): set() replaces a present key in
// place, find() looks one up, == is order-sensitive and same_entries() is not. The header
// decoders fill one through an OrderedStringMapBuilder, so decoding stays linear in the number of
// fields, and refuse more than kExtFieldsMax.
#pragma once

#include <cstddef>

#include "common/ordered_string_map.h"

namespace ferry::remoting {

// The most extFields a decoded header may carry; more is reported as a bad header.
inline constexpr std::size_t kExtFieldsMax = 1024;

using ExtFields = OrderedStringMap;

}  // namespace ferry::remoting
