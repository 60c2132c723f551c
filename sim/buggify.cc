#include "sim/buggify.h"

namespace ferry::sim {

Buggify::Buggify(BuggifyOptions options, Random random) : options_(options), random_(random) {
  options_.check();
}

bool Buggify::decide(const char* file, int line) {
  if (!options_.enabled) return false;
  auto key = std::make_pair(std::string(file), line);
  auto it = sites_.find(key);
  if (it == sites_.end()) {
    const bool on = random_.chance_ppm(options_.site_enabled_ppm);
    it = sites_.emplace(std::move(key), on).first;
  }
  return it->second && random_.chance_ppm(options_.fire_ppm);
}

}  // namespace ferry::sim
