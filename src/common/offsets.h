// Distinct types for distinct numbers (STYLE.md item 7).
//
//   PhysicalOffset  a byte offset in the CommitLog (global across its files). Adding a byte count
//                   gives another PhysicalOffset; the difference of two is a byte count.
//   QueueOffset     an index in a ConsumeQueue: the position of a message in its queue, and what a
//                   consumer offset counts. Adding a message count gives another QueueOffset; the
//                   difference of two is a message count.
//   QueueId         which queue of a topic. Compared and hashed, never added to.
//
// Construction is explicit and `.value()` gets the raw number back; the types never convert into
// each other, so a ConsumeQueue index cannot be passed where a CommitLog offset is wanted.
// Each prints as its raw number with fmt ("{}").
#pragma once

#include <fmt/format.h>

#include <compare>
#include <cstdint>
#include <functional>

namespace ferry {

namespace detail {

// A number with a tag. `Arith` enables `+ Rep`, `- Rep` and `a - b -> Rep` (a count in the
// number's unit); without it only comparison is available.
template <typename Tag, typename Rep, bool Arith>
class Tagged {
 public:
  using rep = Rep;
  constexpr Tagged() = default;
  constexpr explicit Tagged(Rep v) : v_(v) {}
  constexpr Rep value() const { return v_; }
  constexpr auto operator<=>(const Tagged&) const = default;

  constexpr friend Tagged operator+(Tagged a, Rep n) requires Arith { return Tagged(a.v_ + n); }
  constexpr friend Tagged operator-(Tagged a, Rep n) requires Arith { return Tagged(a.v_ - n); }
  constexpr friend Rep operator-(Tagged a, Tagged b) requires Arith { return a.v_ - b.v_; }
  constexpr Tagged& operator+=(Rep n) requires Arith {
    v_ += n;
    return *this;
  }

 private:
  Rep v_ = 0;
};

}  // namespace detail

using PhysicalOffset = detail::Tagged<struct PhysicalOffsetTag, std::int64_t, true>;
using QueueOffset = detail::Tagged<struct QueueOffsetTag, std::int64_t, true>;
using QueueId = detail::Tagged<struct QueueIdTag, std::int32_t, false>;

}  // namespace ferry

template <typename Tag, typename Rep, bool Arith>
struct fmt::formatter<ferry::detail::Tagged<Tag, Rep, Arith>> : fmt::formatter<Rep> {
  template <typename FormatContext>
  auto format(const ferry::detail::Tagged<Tag, Rep, Arith>& t, FormatContext& ctx) const {
    return fmt::formatter<Rep>::format(t.value(), ctx);
  }
};

template <typename Tag, typename Rep, bool Arith>
struct std::hash<ferry::detail::Tagged<Tag, Rep, Arith>> {
  std::size_t operator()(const ferry::detail::Tagged<Tag, Rep, Arith>& t) const noexcept {
    return std::hash<Rep>{}(t.value());
  }
};
