#include "tests/sim/png_pixels.h"

#include <fmt/format.h>
#include <zlib.h>

#include <cstdlib>

namespace ferry::testing {

namespace {

std::uint32_t be32(const std::string& b, std::size_t at) {
  return (std::uint32_t{static_cast<unsigned char>(b[at])} << 24) | (std::uint32_t{static_cast<unsigned char>(b[at + 1])} << 16) |
         (std::uint32_t{static_cast<unsigned char>(b[at + 2])} << 8) | std::uint32_t{static_cast<unsigned char>(b[at + 3])};
}

int paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

}  // namespace

Result<RgbImage> decode_png(const std::string& bytes) {
  static const std::string kSignature = "\x89PNG\r\n\x1a\n";
  if (bytes.size() < 8 + 25 || bytes.compare(0, 8, kSignature) != 0) {
    return Error(Errc::invalid_argument, fmt::format("not a PNG file ({} bytes, no PNG signature)", bytes.size()));
  }
  RgbImage img;
  std::uint32_t channels = 0;
  std::string idat;
  for (std::size_t at = 8; at + 12 <= bytes.size();) {
    const std::uint32_t length = be32(bytes, at);
    const std::string type = bytes.substr(at + 4, 4);
    if (at + 12 + std::uint64_t{length} > bytes.size()) return Error(Errc::corrupt, fmt::format("chunk {} runs past the end", type));
    if (type == "IHDR") {
      img.width = be32(bytes, at + 8);
      img.height = be32(bytes, at + 12);
      const int depth = static_cast<unsigned char>(bytes[at + 16]), colour = static_cast<unsigned char>(bytes[at + 17]);
      const int interlace = static_cast<unsigned char>(bytes[at + 20]);
      if (depth != 8 || (colour != 2 && colour != 6) || interlace != 0) {
        return Error(Errc::invalid_argument, fmt::format("PNG of depth {}, colour type {}, interlace {}: only 8-bit RGB(A) is read", depth, colour, interlace));
      }
      channels = colour == 6 ? 4 : 3;
      if (std::uint64_t{img.width} * img.height > kPngPixelsMax || img.width == 0 || img.height == 0) {
        return Error(Errc::invalid_argument, fmt::format("PNG of {}x{} pixels", img.width, img.height));
      }
    } else if (type == "IDAT") {
      idat.append(bytes, at + 8, length);
    } else if (type == "IEND") {
      break;
    }
    at += 12 + length;
  }
  if (channels == 0) return Error(Errc::corrupt, "no IHDR chunk");
  const std::size_t stride = std::size_t{img.width} * channels;
  std::string raw((stride + 1) * img.height, '\0');
  uLongf raw_size = raw.size();
  const int z = uncompress(reinterpret_cast<Bytef*>(raw.data()), &raw_size, reinterpret_cast<const Bytef*>(idat.data()), idat.size());
  if (z != Z_OK || raw_size != raw.size()) {
    return Error(Errc::corrupt, fmt::format("image data: zlib says {}, {} of {} bytes", z, raw_size, raw.size()));
  }
  std::vector<std::uint8_t> prev(stride, 0), row(stride, 0);
  img.pixels.reserve(std::size_t{img.width} * img.height);
  for (std::uint32_t y = 0; y < img.height; ++y) {
    const std::size_t base = y * (stride + 1);
    const int filter = static_cast<unsigned char>(raw[base]);
    for (std::size_t i = 0; i < stride; ++i) {
      const int x = static_cast<unsigned char>(raw[base + 1 + i]);
      const int a = i >= channels ? row[i - channels] : 0, b = prev[i], c = i >= channels ? prev[i - channels] : 0;
      int v = 0;
      switch (filter) {
        case 0: v = x; break;
        case 1: v = x + a; break;
        case 2: v = x + b; break;
        case 3: v = x + (a + b) / 2; break;
        case 4: v = x + paeth(a, b, c); break;
        default: return Error(Errc::corrupt, fmt::format("row {}: filter type {}", y, filter));
      }
      row[i] = static_cast<std::uint8_t>(v & 0xFF);
    }
    for (std::uint32_t px = 0; px < img.width; ++px) {
      const std::uint8_t* p = &row[px * channels];
      img.pixels.push_back((std::uint32_t{p[0]} << 16) | (std::uint32_t{p[1]} << 8) | p[2]);
    }
    prev.swap(row);
  }
  return img;
}

}  // namespace ferry::testing
