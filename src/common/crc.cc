#include "common/crc.h"

#include <zlib.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define FERRY_CRC_PCLMUL 1
#endif

namespace ferry {

namespace detail {

std::uint32_t crc32_zlib(std::uint32_t crc, Bytes data) {
  return static_cast<std::uint32_t>(crc32_z(crc, data.data(), data.size()));
}

}  // namespace detail

#ifdef FERRY_CRC_PCLMUL
namespace {

// Folding CRC-32 with carry-less multiplication, for the bit-reflected polynomial
// P(x) = 0x104C11DB7 (reflected 0x1DB710641). Each 128-bit lane holds a running remainder; a lane
// is moved forward by N bits by multiplying its two 64-bit halves with x^(N+32) mod P and
// x^(N-32) mod P (bit-reflected, shifted by one) and adding (xor) them to the data N bits on.
// The constants are those residues; they depend only on P:
//   fold by 512 bits (four lanes):  x^(4*128+32), x^(4*128-32) mod P
//   fold by 128 bits (one lane):    x^(128+32),   x^(128-32)   mod P
//   128 -> 64 bits:                  x^64 mod P
//   Barrett reduction to 32 bits:    P itself and floor(x^64 / P)
constexpr std::uint64_t kFold512Lo = 0x154442bd4;
constexpr std::uint64_t kFold512Hi = 0x1c6e41596;
constexpr std::uint64_t kFold128Lo = 0x1751997d0;
constexpr std::uint64_t kFold128Hi = 0x0ccaa009e;
constexpr std::uint64_t kFold64 = 0x163cd6124;
constexpr std::uint64_t kPoly = 0x1db710641;
constexpr std::uint64_t kBarrettMu = 0x1f7011641;

__attribute__((target("pclmul,sse4.1"))) inline __m128i fold(__m128i lane, __m128i k, __m128i next) {
  const __m128i lo = _mm_clmulepi64_si128(lane, k, 0x00);  // lane.lo * k.lo
  const __m128i hi = _mm_clmulepi64_si128(lane, k, 0x11);  // lane.hi * k.hi
  return _mm_xor_si128(_mm_xor_si128(lo, hi), next);
}

__attribute__((target("pclmul,sse4.1"))) inline __m128i load(const std::uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

// The running (inverted) CRC state after `len` bytes at `p`. Requires len >= 64, len % 16 == 0.
__attribute__((target("pclmul,sse4.1"))) std::uint32_t fold_state(std::uint32_t state, const std::uint8_t* p,
                                                                    std::size_t len) {
  __m128i x1 = _mm_xor_si128(load(p), _mm_cvtsi32_si128(static_cast<int>(state)));
  __m128i x2 = load(p + 16);
  __m128i x3 = load(p + 32);
  __m128i x4 = load(p + 48);
  p += 64;
  len -= 64;

  const __m128i k512 = _mm_set_epi64x(static_cast<long long>(kFold512Hi), static_cast<long long>(kFold512Lo));
  while (len >= 64) {
    x1 = fold(x1, k512, load(p));
    x2 = fold(x2, k512, load(p + 16));
    x3 = fold(x3, k512, load(p + 32));
    x4 = fold(x4, k512, load(p + 48));
    p += 64;
    len -= 64;
  }

  const __m128i k128 = _mm_set_epi64x(static_cast<long long>(kFold128Hi), static_cast<long long>(kFold128Lo));
  x1 = fold(x1, k128, x2);
  x1 = fold(x1, k128, x3);
  x1 = fold(x1, k128, x4);
  while (len >= 16) {
    x1 = fold(x1, k128, load(p));
    p += 16;
    len -= 16;
  }

  // 128 -> 96 bits: the low half times x^(128-32) mod P, added to the high half.
  const __m128i low32 = _mm_setr_epi32(-1, 0, -1, 0);
  __m128i t = _mm_clmulepi64_si128(x1, k128, 0x10);  // x1.lo * kFold128Hi
  x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), t);
  // 96 -> 64 bits: the low 32 bits times x^64 mod P, added to the rest.
  const __m128i k64 = _mm_set_epi64x(0, static_cast<long long>(kFold64));
  t = _mm_srli_si128(x1, 4);
  x1 = _mm_clmulepi64_si128(_mm_and_si128(x1, low32), k64, 0x00);
  x1 = _mm_xor_si128(x1, t);
  // Barrett reduction of the 64-bit remainder to 32 bits.
  const __m128i barrett = _mm_set_epi64x(static_cast<long long>(kBarrettMu), static_cast<long long>(kPoly));
  t = _mm_clmulepi64_si128(_mm_and_si128(x1, low32), barrett, 0x10);  // * mu
  t = _mm_clmulepi64_si128(_mm_and_si128(t, low32), barrett, 0x00);   // * P
  x1 = _mm_xor_si128(x1, t);
  return static_cast<std::uint32_t>(_mm_extract_epi32(x1, 1));
}

bool cpu_has_pclmul() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}

const bool kHasPclmul = cpu_has_pclmul();

}  // namespace
#endif

std::uint32_t crc32_update(std::uint32_t crc, Bytes data) {
#ifdef FERRY_CRC_PCLMUL
  if (kHasPclmul && data.size() >= 64) {
    const std::size_t bulk = data.size() & ~std::size_t{15};
    crc = ~fold_state(~crc, data.data(), bulk);
    data = data.subspan(bulk);
  }
#endif
  return detail::crc32_zlib(crc, data);
}

const char* crc32_implementation() {
#ifdef FERRY_CRC_PCLMUL
  if (kHasPclmul) return "pclmul";
#endif
  return "zlib";
}

std::int32_t body_crc(Bytes body) {
  return static_cast<std::int32_t>(crc32_update(0, body) & 0x7FFFFFFFu);
}

}  // namespace ferry
