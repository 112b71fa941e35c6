#!/usr/bin/env bash
# Karmada's own CRDs and admission webhook configuration at a pinned version, from its Go module,
# for the interop tests (every object the project writes validates under the CRDs; a real Karmada
# control plane runs with both), and Karmada's third-party resource interpreter customizations
# with their test cases, which the Lua interpreter's fidelity tests run unchanged. Idempotent:
# kept in the cache by version.
# Progress goes to stderr; the last line on stdout is the folder holding the CRDs (the webhook
# configuration is in ../deploy beside it, the customizations in ../thirdparty).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

KARMADA_CRD_DIR="$KF_CACHE_DIR/karmada-$KARMADA_VERSION/crds"
KARMADA_DEPLOY_DIR="$KF_CACHE_DIR/karmada-$KARMADA_VERSION/deploy"
KARMADA_THIRDPARTY_DIR="$KF_CACHE_DIR/karmada-$KARMADA_VERSION/thirdparty"

link_tools_dir
if [ -f "$KARMADA_CRD_DIR/.complete" ] && [ -f "$KARMADA_DEPLOY_DIR/.complete" ] &&
  [ -f "$KARMADA_THIRDPARTY_DIR/.complete" ]; then
  echo "$KARMADA_CRD_DIR"
  exit 0
fi
command -v go >/dev/null || { echo "go is required to fetch Karmada's module" >&2; exit 1; }

log "fetching Karmada $KARMADA_VERSION's CRDs and third-party customizations"
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
thirdparty_src="$module_dir/pkg/resourceinterpreter/default/thirdparty/resourcecustomizations"
[ -d "$thirdparty_src" ] || { echo "no third-party customizations in $module_dir" >&2; exit 1; }
rm -rf "$KARMADA_THIRDPARTY_DIR"
mkdir -p "$KARMADA_THIRDPARTY_DIR"
cp -R "$thirdparty_src/." "$KARMADA_THIRDPARTY_DIR/"
chmod -R u+w "$KARMADA_THIRDPARTY_DIR"
touch "$KARMADA_THIRDPARTY_DIR/.complete"
log "Karmada's CRDs ready in $KARMADA_CRD_DIR, its third-party customizations in $KARMADA_THIRDPARTY_DIR"
echo "$KARMADA_CRD_DIR"
