// Test helpers: find and read the shared, independently made test vectors
// (/work/shared/vectors; see its README for provenance).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace ferry::test {

// The vectors directory: $FERRY_SOURCE_DIR/../shared/vectors (set by ctest), else a few paths
// relative to the working directory. Fails the current test (and returns "") when not found.
std::filesystem::path vectors_dir();

// The lines of a vector file (without line ends), skipping empty lines and '#' comments.
// Fails the current test when the file cannot be read.
std::vector<std::string> read_vector_lines(std::string_view file_name);

std::vector<std::uint8_t> from_hex(std::string_view hex);

// Splits on '\t' keeping empty fields.
std::vector<std::string> split_tabs(std::string_view line);

}  // namespace ferry::test
