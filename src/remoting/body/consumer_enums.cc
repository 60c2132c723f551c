#include "remoting/body/consumer_enums.h"

#include <array>
#include <cstddef>

namespace ferry::remoting::body {
namespace {

constexpr std::array<std::string_view, 2> kConsumeType = {"CONSUME_ACTIVELY", "CONSUME_PASSIVELY"};
constexpr std::array<std::string_view, 2> kMessageModel = {"BROADCASTING", "CLUSTERING"};
constexpr std::array<std::string_view, 6> kConsumeFromWhere = {
    "CONSUME_FROM_LAST_OFFSET", "CONSUME_FROM_LAST_OFFSET_AND_FROM_MIN_WHEN_BOOT_FIRST",
    "CONSUME_FROM_MIN_OFFSET",  "CONSUME_FROM_MAX_OFFSET",
    "CONSUME_FROM_FIRST_OFFSET", "CONSUME_FROM_TIMESTAMP",
};
static_assert(static_cast<std::size_t>(ConsumeFromWhere::CONSUME_FROM_TIMESTAMP) + 1 ==
              kConsumeFromWhere.size());

template <typename E, std::size_t N>
std::optional<E> find(const std::array<std::string_view, N>& names, std::string_view s) {
  for (std::size_t i = 0; i < N; ++i) {
    if (names[i] == s) return static_cast<E>(i);
  }
  return std::nullopt;
}

}  // namespace

std::string_view name(ConsumeType v) { return kConsumeType.at(static_cast<std::size_t>(v)); }
std::string_view name(MessageModel v) { return kMessageModel.at(static_cast<std::size_t>(v)); }
std::string_view name(ConsumeFromWhere v) {
  return kConsumeFromWhere.at(static_cast<std::size_t>(v));
}

std::optional<ConsumeType> consume_type_from_name(std::string_view s) {
  return find<ConsumeType>(kConsumeType, s);
}
std::optional<MessageModel> message_model_from_name(std::string_view s) {
  return find<MessageModel>(kMessageModel, s);
}
std::optional<ConsumeFromWhere> consume_from_where_from_name(std::string_view s) {
  return find<ConsumeFromWhere>(kConsumeFromWhere, s);
}

}  // namespace ferry::remoting::body
