#!/usr/bin/env bash
# Everything the tests and the demo need, idempotently: Node 24, npm dependencies, the Kubernetes
# binaries built from source, Karmada's CRDs and binaries for the interop tests, and the Prometheus
# Operator's CRDs for the chart tests. Prints the PATH to use on its last line.
# With --demo, only what the demo runs: Node, npm dependencies, the Debian packages and the
# Kubernetes binaries (no Helm, nothing of Karmada's, no Prometheus Operator CRDs).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

only_demo=false
case "${1:-}" in
  --demo) only_demo=true ;;
  "") ;;
  *) echo "usage: scripts/setup.sh [--demo]" >&2; exit 2 ;;
esac

NODE_BIN="$(bash scripts/ensure-node.sh)"
export PATH="$NODE_BIN:$PATH"

# npm ci only when the lock file changed since the last install.
stamp="node_modules/.kf-lock-stamp"
lock_sum="$(sha256sum package-lock.json | cut -d' ' -f1)-$(node --version)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_sum" ]; then
  log "npm ci"
  npm ci --no-audit --no-fund --loglevel=error >&2
  echo "$lock_sum" >"$stamp"
fi

bash scripts/ensure-apt.sh
bash scripts/build-kube.sh >/dev/null
if [ "$only_demo" = true ]; then
  echo "$PATH"
  exit 0
fi
bash scripts/build-helm.sh >/dev/null
bash scripts/fetch-karmada.sh >/dev/null
bash scripts/fetch-prometheus-operator-crds.sh >/dev/null
bash scripts/build-karmada.sh >/dev/null
echo "$PATH"
