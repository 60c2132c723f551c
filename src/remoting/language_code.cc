#include "remoting/language_code.h"

#include <array>

namespace ferry::remoting {
namespace {

constexpr std::array<std::string_view, kLanguageCodeMax + 1> kNames = {
    "JAVA", "CPP", "DOTNET", "PYTHON", "DELPHI", "ERLANG", "RUBY",
    "OTHER", "HTTP", "GO", "PHP", "OMS", "RUST",
};
static_assert(kNames.size() == static_cast<std::size_t>(LanguageCode::RUST) + 1);

}  // namespace

std::string_view language_name(LanguageCode c) {
  const auto i = static_cast<std::size_t>(c);
  return i < kNames.size() ? kNames[i] : std::string_view("OTHER");
}

std::optional<LanguageCode> language_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<LanguageCode>(i);
  }
  return std::nullopt;
}

std::optional<LanguageCode> language_from_code(int code) {
  if (code < 0 || code > kLanguageCodeMax) return std::nullopt;
  return static_cast<LanguageCode>(code);
}

}  // namespace ferry::remoting
