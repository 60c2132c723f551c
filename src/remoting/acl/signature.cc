#include "remoting/acl/signature.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <array>
#include <vector>

#include "remoting/acl/acl_format.h"
#include "runtime/assert.h"

namespace ferry::remoting::acl {

std::string signing_content(const ExtFields& fields, Bytes body, UniqueKeyQuery mode) {
  std::vector<const ExtFields::Entry*> signed_fields;
  signed_fields.reserve(fields.size());
  std::size_t bytes = body.size();
  for (const ExtFields::Entry& e : fields) {
    if (e.first == kSignatureField) continue;
    if (mode == UniqueKeyQuery::excluded && e.first == kUniqueKeyQueryField) continue;
    signed_fields.push_back(&e);
    bytes += e.second.size();
  }
  // Keys are unique in an ExtFields, so the order is total.
  std::sort(signed_fields.begin(), signed_fields.end(),
            [](const ExtFields::Entry* a, const ExtFields::Entry* b) { return a->first < b->first; });
  std::string out;
  out.reserve(bytes);
  for (const ExtFields::Entry* e : signed_fields) out += e->second;
  out.append(reinterpret_cast<const char*>(body.data()), body.size());
  return out;
}

namespace {
std::array<unsigned char, 20> hmac_sha1(std::string_view data, std::string_view secret) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
  unsigned int mac_len = 0;
  const unsigned char* ok =
      HMAC(EVP_sha1(), secret.data(), static_cast<int>(secret.size()), reinterpret_cast<const unsigned char*>(data.data()),
           data.size(), mac.data(), &mac_len);
  FERRY_ASSERT(ok != nullptr, "OpenSSL HMAC-SHA1 failed (data {} bytes, key {} bytes)", data.size(), secret.size());
  FERRY_ASSERT(mac_len == 20, "HMAC-SHA1 gave {} bytes, not 20", mac_len);
  std::array<unsigned char, 20> out{};
  std::copy_n(mac.begin(), 20, out.begin());
  return out;
}
}  // namespace

std::string hmac_sha1_base64(std::string_view data, std::string_view secret) {
  const std::array<unsigned char, 20> mac = hmac_sha1(data, secret);
  const unsigned int mac_len = 20;
  std::array<unsigned char, 32> text{};  // base64 of 20 bytes: 28 characters and a NUL
  const int n = EVP_EncodeBlock(text.data(), mac.data(), static_cast<int>(mac_len));
  FERRY_ASSERT(n == 28, "base64 of a 20-byte MAC gave {} characters, not 28", n);
  return std::string(reinterpret_cast<const char*>(text.data()), static_cast<std::size_t>(n));
}

void sign(RemotingCommand& request, const Credentials& credentials) {
  request.ext_fields.set(kAccessKeyField, credentials.access_key);
  if (credentials.security_token) request.ext_fields.set(kSecurityTokenField, *credentials.security_token);
  request.ext_fields.erase(kSignatureField);
  // The body as sent: `body` and the views after it (a producer's message travels as a view).
  std::vector<std::uint8_t> joined;
  Bytes body(request.body.data(), request.body.size());
  if (!request.body_views.empty()) {
    joined = request.body_bytes();
    body = Bytes(joined.data(), joined.size());
  }
  const std::string content = signing_content(request.ext_fields, body);
  request.ext_fields.set(kSignatureField, hmac_sha1_base64(content, credentials.secret_key));
}

namespace {
bool same(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}
}  // namespace

bool hex_hmac_sha1_matches(std::string_view data, std::string_view secret, std::string_view hex) {
  const std::array<unsigned char, 20> mac = hmac_sha1(data, secret);
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string want(40, '0');
  for (std::size_t i = 0; i < mac.size(); ++i) {
    want[2 * i] = kDigits[mac[i] >> 4];
    want[2 * i + 1] = kDigits[mac[i] & 0xF];
  }
  std::string given(hex);
  for (char& ch : given) {
    if (ch >= 'a' && ch <= 'f') ch = static_cast<char>(ch - 'a' + 'A');
  }
  return same(want, given);
}

bool signature_matches(const RemotingCommand& request, std::string_view signature, std::string_view secret) {
  const Bytes body(request.body.data(), request.body.size());
  if (same(hmac_sha1_base64(signing_content(request.ext_fields, body), secret), signature)) return true;
  if (!request.ext_fields.contains(kUniqueKeyQueryField)) return false;
  return same(hmac_sha1_base64(signing_content(request.ext_fields, body, UniqueKeyQuery::included), secret),
              signature);
}

}  // namespace ferry::remoting::acl
