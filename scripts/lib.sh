# Sourced by the other scripts: paths, pinned versions and small helpers.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Built binaries live outside the work tree so that every clone on a machine shares them;
# .tools in the repo (git-ignored) points there.
KF_CACHE_DIR="${KF_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/karmada-failover}"

NODE_VERSION="24.21.0"
KUBE_VERSION="v1.36.3"
ETCD_VERSION="v3.6.16"
KWOK_VERSION="v0.7.0"
# The Karmada release the interop tests hold the project to.
KARMADA_VERSION="v1.18.2"
# The Prometheus Operator API the charts' ServiceMonitor, PodMonitor and PrometheusRule are
# checked against, and the controller-gen that turns its Go types into CRDs.
PROMETHEUS_OPERATOR_VERSION="v0.95.2"
CONTROLLER_TOOLS_VERSION="v0.23.0"

NODE_DIR="$KF_CACHE_DIR/node-$NODE_VERSION"
KUBE_BIN_DIR="$KF_CACHE_DIR/kube-$KUBE_VERSION-etcd-$ETCD_VERSION-kwok-$KWOK_VERSION/bin"

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

link_tools_dir() {
  mkdir -p "$KF_CACHE_DIR"
  if [ ! -e "$REPO_ROOT/.tools" ]; then ln -s "$KF_CACHE_DIR" "$REPO_ROOT/.tools"; fi
}
