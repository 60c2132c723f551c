# npm_cached_install: installs a Node.js test client once (npm ci from a package-lock.json) into a
# cache outside the build tree, shared by every checkout and run. Sourced by the interop tests
# (tests/interop, tests/interop_v2); the caller defines fail() and step().
#
#   npm_cached_install PACKAGE VERSION LOCK_DIR CACHE TMP
#
# LOCK_DIR holds package.json and package-lock.json; CACHE is the install's folder; TMP a scratch
# folder for npm's logs. On return NODE_PATH names CACHE/node_modules and PACKAGE is VERSION.
# Exits 77 (ctest's SKIP_RETURN_CODE) only when the package is not cached and the npm registry
# cannot be reached; any other failure calls fail. One installer at a time: concurrent runs wait
# on CACHE.lock and find it installed; only a complete install takes CACHE's name.
npm_cached_install() {
  local package="$1" version="$2" lock_dir="$3" cache="$4" tmp="$5"
  command -v node >/dev/null || fail "node is not installed (tools/bootstrap.sh installs nodejs and npm)"
  command -v npm >/dev/null || fail "npm is not installed (tools/bootstrap.sh installs nodejs and npm)"
  local lock_sum
  lock_sum="$(sha256sum "$lock_dir/package-lock.json" | cut -d' ' -f1)"
  _npm_installed() {
    [ -f "$cache/node_modules/$package/package.json" ] && [ "$(cat "$cache/.ferry-lock-sha256" 2>/dev/null)" = "$lock_sum" ]
  }
  if ! _npm_installed; then
    mkdir -p "$(dirname "$cache")" || fail "cannot create $(dirname "$cache")"
    exec 9>"$cache.lock" || fail "cannot open $cache.lock"
    flock -w 900 9 || fail "another run held $cache.lock for 15 minutes"
  fi
  if ! _npm_installed; then
    step "installing $package $version into $cache (npm ci from $lock_dir/package-lock.json)"
    # One look-up of the package itself, with short retries: an unreachable registry answers in
    # seconds, not after npm's default minute of retries.
    if ! timeout 30 npm view "$package@$version" version --fetch-retries=1 --fetch-retry-mintimeout=1000 \
        --fetch-retry-maxtimeout=2000 --fetch-timeout=10000 >"$tmp/npm-view.log" 2>&1; then
      echo "SKIP: $package $version is not in $cache and the npm registry ($(npm config get registry 2>/dev/null)) cannot be reached:"
      if [ -s "$tmp/npm-view.log" ]; then tail -n 5 "$tmp/npm-view.log"; else echo "  (no answer within 30 s)"; fi
      exit 77
    fi
    rm -rf "$cache".partial-*  # left by an interrupted install (none runs: this run holds the lock)
    local stage
    stage="$(mktemp -d "$cache.partial-XXXXXX")" || fail "cannot create a folder beside $cache"
    chmod 755 "$stage"  # mktemp made it 0700
    cp "$lock_dir/package.json" "$lock_dir/package-lock.json" "$stage/"
    if ! timeout 600 npm ci --prefix "$stage" --no-audit --no-fund --loglevel=error >"$tmp/npm-ci.log" 2>&1; then
      cat "$tmp/npm-ci.log" >&2
      rm -rf "$stage"
      fail "npm ci of $package $version failed (the registry answered a moment ago)"
    fi
    echo "$lock_sum" >"$stage/.ferry-lock-sha256"
    rm -rf "$cache"
    mv -T "$stage" "$cache" || fail "cannot rename $stage to $cache"
    _npm_installed || fail "$package is still not in $cache after npm ci"
  fi
  exec 9>&-
  export NODE_PATH="$cache/node_modules"
  node -e 'const [p, v] = process.argv.slice(1); const got = require(p + "/package.json").version;
           if (got !== v) { console.error(p + " " + got); process.exit(1); }' "$package" "$version" ||
    fail "the cached $package in $cache is not $version"
  echo "$package $version from $cache, node $(node --version)"
}
