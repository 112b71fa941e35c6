#!/usr/bin/env bash
# The Prometheus Operator's monitoring.coreos.com/v1 CRDs (ServiceMonitor, PodMonitor,
# PrometheusRule and the rest of the group) at a pinned version, for the chart tests: what the
# charts render for the Prometheus Operator must pass a server-side dry run against them.
# Idempotent: kept in the cache by version.
# The module proxy refuses the operator's root module but serves its API module, so the CRDs are
# generated from the API's Go types with controller-gen, as the operator's own build does; both
# are resolved in throwaway modules (an explicit version needs no version list).
# Progress goes to stderr; the last line on stdout is the folder holding the CRDs.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PROMETHEUS_OPERATOR_CRD_DIR="$KF_CACHE_DIR/prometheus-operator-$PROMETHEUS_OPERATOR_VERSION/crds"
MONITORING_MODULE="github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring"

link_tools_dir
if [ -f "$PROMETHEUS_OPERATOR_CRD_DIR/.complete" ]; then
  echo "$PROMETHEUS_OPERATOR_CRD_DIR"
  exit 0
fi
command -v go >/dev/null || { echo "go is required to generate the Prometheus Operator's CRDs" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export GOFLAGS="-buildvcs=false -mod=mod"
# Runs a command, showing its output (go's long list of added modules) only when it fails.
quiet() {
  local out
  out="$("$@" 2>&1)" || { printf '%s\n' "$out" >&2; return 1; }
}

log "building controller-gen $CONTROLLER_TOOLS_VERSION"
mkdir -p "$work/controller-gen"
(
  cd "$work/controller-gen"
  quiet go mod init kf.local/controller-gen
  quiet go get "sigs.k8s.io/controller-tools/cmd/controller-gen@$CONTROLLER_TOOLS_VERSION"
  go build -trimpath -o "$work/bin/controller-gen" sigs.k8s.io/controller-tools/cmd/controller-gen
)

log "generating the Prometheus Operator $PROMETHEUS_OPERATOR_VERSION's monitoring.coreos.com/v1 CRDs"
mkdir -p "$work/monitoring" "$work/crds"
(
  cd "$work/monitoring"
  quiet go mod init kf.local/prometheus-operator-crds
  quiet go get "$MONITORING_MODULE/v1@$PROMETHEUS_OPERATOR_VERSION"
  "$work/bin/controller-gen" crd paths="$MONITORING_MODULE/v1" output:crd:dir="$work/crds"
)
for kind in servicemonitors podmonitors prometheusrules; do
  [ -f "$work/crds/monitoring.coreos.com_$kind.yaml" ] || { echo "controller-gen wrote no $kind CRD" >&2; exit 1; }
done
rm -rf "$PROMETHEUS_OPERATOR_CRD_DIR"
mkdir -p "$PROMETHEUS_OPERATOR_CRD_DIR"
cp "$work"/crds/*.yaml "$PROMETHEUS_OPERATOR_CRD_DIR/"
touch "$PROMETHEUS_OPERATOR_CRD_DIR/.complete"
log "the Prometheus Operator's CRDs ready in $PROMETHEUS_OPERATOR_CRD_DIR"
echo "$PROMETHEUS_OPERATOR_CRD_DIR"
