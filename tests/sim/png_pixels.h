// Just enough of a PNG reader for the report test: the screenshots headless Chromium writes
// (8-bit RGB or RGBA, not interlaced), decoded to RGB pixels so that a test can tell a drawn page
// from a blank one. Errors (invalid_argument / corrupt) say what the file held instead; nothing
// else (palettes, 16-bit, interlacing) is read. At most kPngPixelsMax pixels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/result.h"

namespace ferry::testing {

inline constexpr std::uint64_t kPngPixelsMax = 32ull << 20;

struct RgbImage {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::vector<std::uint32_t> pixels;  // 0xRRGGBB, row by row
};

Result<RgbImage> decode_png(const std::string& bytes);

}  // namespace ferry::testing
