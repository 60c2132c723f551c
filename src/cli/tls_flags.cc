#include "cli/tls_flags.h"

#include <string>
#include <vector>

#include "daemon/tls_keys.h"

namespace ferry::cli {

Result<TlsOptions> client_tls_from_flags(const ParsedFlags& flags) {
  TlsOptions tls;
  const std::optional<std::string> file = flags.get("tls-config");
  if (file && file->empty()) return Error(Errc::invalid_argument, "--tls-config needs a file name");
  if (file) {
    tls.client.enable = true;
    const std::string key_file = *file;
    daemon::ConfigBinder b;
    std::string nested;
    daemon::bind_tls_keys(b, tls, nested);
    auto props = daemon::read_properties(key_file);
    if (!props) return Error(props.error().code, "--tls-config: " + props.error().detail);
    auto applied = b.apply(*props);  // unknown keys only warn; a client tool prints no warnings
    if (!applied) return Error(applied.error().code, "--tls-config: " + applied.error().detail);
  }
  if (flags.has("tls")) tls.client.enable = true;
  tls.server = TlsServerOptions{};  // a client tool listens nowhere
  if (Status ok = check_tls_options(tls); !ok) return Error(ok.error().code, "--tls-config: " + ok.error().detail);
  return tls;
}

}  // namespace ferry::cli
