#!/usr/bin/env bash
# Karmada's own CRDs and admission webhook configuration at a pinned version, from its Go module,
# for the interop tests (every object the project writes validates under the CRDs; a real Karmada
# control plane runs with both). Idempotent: kept in the cache by version.
# Progress goes to stderr; the last line on stdout is the folder holding the CRDs (the webhook
# configuration is in ../deploy beside it).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

KARMADA_CRD_DIR="$KF_CACHE_DIR/karmada-$KARMADA_VERSION/crds"
KARMADA_DEPLOY_DIR="$KF_CACHE_DIR/karmada-$KARMADA_VERSION/deploy"

link_tools_dir
if [ -f "$KARMADA_CRD_DIR/.complete" ] && [ -f "$KARMADA_DEPLOY_DIR/.complete" ]; then
  echo "$KARMADA_CRD_DIR"
  exit 0
fi
command -v go >/dev/null || { echo "go is required to fetch Karmada's module" >&2; exit 1; }

log "fetching Karmada $KARMADA_VERSION's CRDs"
# `go mod download` of one module works outside any module and needs no version list.
module_dir="$(cd "$(mktemp -d)" && go mod download -json "github.com/karmada-io/karmada@$KARMADA_VERSION" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
[ -d "$module_dir/charts/karmada/_crds/bases" ] || { echo "no CRDs in $module_dir" >&2; exit 1; }
rm -rf "$KARMADA_CRD_DIR"
mkdir -p "$KARMADA_CRD_DIR"
find "$module_dir/charts/karmada/_crds/bases" -name '*.yaml' -exec cp {} "$KARMADA_CRD_DIR/" \;
chmod -R u+w "$KARMADA_CRD_DIR"
touch "$KARMADA_CRD_DIR/.complete"
rm -rf "$KARMADA_DEPLOY_DIR"
mkdir -p "$KARMADA_DEPLOY_DIR"
cp "$module_dir/artifacts/deploy/webhook-configuration.yaml" "$KARMADA_DEPLOY_DIR/"
chmod -R u+w "$KARMADA_DEPLOY_DIR"
touch "$KARMADA_DEPLOY_DIR/.complete"
log "Karmada's CRDs ready in $KARMADA_CRD_DIR"
echo "$KARMADA_CRD_DIR"
