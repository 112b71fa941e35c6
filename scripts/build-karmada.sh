#!/usr/bin/env bash
# Builds Karmada's agent, controller-manager, scheduler, aggregated-apiserver and webhook, and its
# CLI karmadactl (joining Push clusters), at a pinned version from its Go module, for the interop
# tests that run a real Karmada beside the project. Idempotent: the binaries are kept in the cache by version.
# Progress goes to stderr; the last line on stdout is the folder holding the binaries.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

KARMADA_BIN_DIR="$KF_CACHE_DIR/karmada-$KARMADA_VERSION/bin"
COMPONENTS=(agent controller-manager scheduler aggregated-apiserver webhook)
# Binary name → package under cmd/.
declare -A BINARIES=([karmadactl]=karmadactl)
for c in "${COMPONENTS[@]}"; do BINARIES["karmada-$c"]="$c"; done

have_all() {
  for b in "${!BINARIES[@]}"; do
    [ -x "$KARMADA_BIN_DIR/$b" ] || return 1
  done
}
link_tools_dir
if have_all; then echo "$KARMADA_BIN_DIR"; exit 0; fi
command -v go >/dev/null || { echo "go is required to build Karmada" >&2; exit 1; }

# The module proxy refuses Karmada's version list, so `go install pkg@version` cannot resolve it;
# downloading the one module and building its commands inside the module folder needs no list.
module_dir="$(cd "$(mktemp -d)" && go mod download -json "github.com/karmada-io/karmada@$KARMADA_VERSION" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
[ -f "$module_dir/go.mod" ] || { echo "could not download Karmada $KARMADA_VERSION's module" >&2; exit 1; }
mkdir -p "$KARMADA_BIN_DIR"
export GOFLAGS="-buildvcs=false -mod=mod"
for b in "${!BINARIES[@]}"; do
  [ -x "$KARMADA_BIN_DIR/$b" ] && continue
  log "building $b $KARMADA_VERSION"
  (cd "$module_dir" && go build -trimpath -o "$KARMADA_BIN_DIR/$b.partial" "./cmd/${BINARIES[$b]}")
  mv "$KARMADA_BIN_DIR/$b.partial" "$KARMADA_BIN_DIR/$b"
done
log "Karmada's binaries ready in $KARMADA_BIN_DIR"
echo "$KARMADA_BIN_DIR"
