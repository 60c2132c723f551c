#include "tools/mqdashboard/users.h"

#include <fmt/format.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <optional>
#include <vector>

#include "daemon/properties_file.h"

namespace ferry::dashboard {

namespace {

// Standard base64 with padding; nullopt when `text` is not.
std::optional<std::string> base64_decode(std::string_view text) {
  if (text.empty() || text.size() % 4 != 0) return std::nullopt;
  std::vector<unsigned char> out(text.size() / 4 * 3 + 1);
  const int n = EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (n < 0) return std::nullopt;
  std::size_t size = static_cast<std::size_t>(n);
  for (std::size_t i = text.size(); i > 0 && text[i - 1] == '=' && size > 0; --i) --size;  // EVP counts the padding
  return std::string(reinterpret_cast<const char*>(out.data()), size);
}

}  // namespace

Result<Users> Users::read(const std::string& path) {
  Result<daemon::PropertiesFile> file = daemon::read_properties(path);
  if (!file.ok()) return std::move(file).error();
  Users users;
  for (const daemon::Property& p : file->entries) {
    const std::string where = fmt::format("{}:{}: user {}", file->file, p.line, p.key);
    const std::size_t comma = p.value.rfind(',');
    Entry e;
    e.password = p.value.substr(0, comma);
    if (comma != std::string::npos) {
      const std::string role = p.value.substr(comma + 1);
      if (role != "1" && role != "0") return Error(Errc::invalid_argument, fmt::format("{}: role \"{}\" is not 1 (admin) or 0", where, role));
      e.admin = role == "1";
    }
    if (e.password.empty()) return Error(Errc::invalid_argument, fmt::format("{}: empty password", where));
    if (p.key.find(':') != std::string::npos) return Error(Errc::invalid_argument, fmt::format("{}: a name may not hold ':'", where));
    users.users_[p.key] = std::move(e);
  }
  if (users.users_.empty()) return Error(Errc::invalid_argument, fmt::format("{}: no user in it", path));
  return users;
}

Access Users::check(std::string_view authorization, std::string* name) const {
  constexpr std::string_view kBasic = "Basic ";
  if (authorization.substr(0, kBasic.size()) != kBasic) return Access::denied;
  std::optional<std::string> pair = base64_decode(authorization.substr(kBasic.size()));
  if (!pair) return Access::denied;
  const std::size_t colon = pair->find(':');
  if (colon == std::string::npos) return Access::denied;
  const std::string_view user = std::string_view(*pair).substr(0, colon);
  const std::string_view password = std::string_view(*pair).substr(colon + 1);
  if (name != nullptr) *name = std::string(user);
  auto it = users_.find(user);
  if (it == users_.end()) return Access::denied;
  const std::string& want = it->second.password;
  // Constant time in the password's bytes: a wrong guess's timing says nothing of how close it was.
  if (want.size() != password.size() || CRYPTO_memcmp(want.data(), password.data(), want.size()) != 0) return Access::denied;
  return it->second.admin ? Access::admin : Access::viewer;
}

}  // namespace ferry::dashboard
