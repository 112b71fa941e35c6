#!/usr/bin/env bash
# Builds helm from its Go module (helm.sh/helm/v3/cmd/helm) with this machine's Go toolchain, for
# the chart tests (helm lint, helm template). Idempotent: a binary already in the cache is kept.
# Progress goes to stderr; the last line on stdout is the folder holding the binary.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# v3.22's go.mod asks for go 1.26.0.
HELM_VERSION="v3.22.0"
HELM_BIN_DIR="$KF_CACHE_DIR/helm-$HELM_VERSION/bin"

link_tools_dir
if [ -x "$HELM_BIN_DIR/helm" ]; then echo "$HELM_BIN_DIR"; exit 0; fi
command -v go >/dev/null || { echo "go is required to build helm" >&2; exit 1; }

log "building helm $HELM_VERSION"
mkdir -p "$HELM_BIN_DIR"
export GOFLAGS="-buildvcs=false"
# `helm version` prints the version stamped here (it is empty in a plain go install).
GOBIN="$HELM_BIN_DIR" go install -trimpath \
  -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION" \
  "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" >&2
log "helm ready in $HELM_BIN_DIR"
echo "$HELM_BIN_DIR"
