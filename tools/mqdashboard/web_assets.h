// The dashboard page's files (web/), embedded in the binary at build time (embed_web.cmake), so
// mqdashboard is one file to install and needs nothing from the network.
#pragma once

#include <string_view>

namespace ferry::dashboard {

struct WebAsset {
  std::string_view path;  // "/app.js"; "/" serves index.html
  std::string_view content_type;
  std::string_view body;
};

// The file served at `path`, or nullptr.
const WebAsset* find_web_asset(std::string_view path);

}  // namespace ferry::dashboard
