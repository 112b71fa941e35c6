#!/usr/bin/env bash
# Builds etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl and kwok from their
# Go modules with this machine's Go toolchain. Idempotent: a binary already in the cache is kept.
# Progress goes to stderr; the last line on stdout is the folder holding the binaries.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

link_tools_dir
mkdir -p "$KUBE_BIN_DIR"
WORK="$KF_CACHE_DIR/build"
mkdir -p "$WORK"
export GOFLAGS="-buildvcs=false"

have_all() {
  for b in etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kwok; do
    [ -x "$KUBE_BIN_DIR/$b" ] || return 1
  done
}
if have_all; then echo "$KUBE_BIN_DIR"; exit 0; fi
command -v go >/dev/null || { echo "go is required to build the Kubernetes binaries" >&2; exit 1; }

build_etcd() {
  [ -x "$KUBE_BIN_DIR/etcd" ] && return 0
  log "building etcd $ETCD_VERSION"
  local d="$WORK/etcd-$ETCD_VERSION"
  mkdir -p "$d"
  cat >"$d/main.go" <<'GO'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
  (cd "$d" && [ -f go.mod ] || go mod init kf/etcd >/dev/null 2>&1
   cd "$d" && go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION" && go mod tidy && go build -trimpath -o "$KUBE_BIN_DIR/etcd" .)
}

build_kube() {
  local need=0
  for b in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
    [ -x "$KUBE_BIN_DIR/$b" ] || need=1
  done
  [ "$need" = 1 ] || return 0
  log "building Kubernetes $KUBE_VERSION (kube-apiserver, kube-controller-manager, kube-scheduler, kubectl)"
  local d="$WORK/kubernetes-$KUBE_VERSION"
  local staging="v0.${KUBE_VERSION#v1.}"
  mkdir -p "$d"
  local gomod
  gomod=$(go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
  {
    echo "module kf/kubernetes"
    echo
    echo "go 1.26.0"
    echo
    echo "require k8s.io/kubernetes $KUBE_VERSION"
    echo
    echo "replace ("
    # Each staging module k8s.io/kubernetes replaces with a local folder is published as v0.X.Y.
    sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\t\1 => \1 '"$staging"'#p' "$gomod"
    echo ")"
  } >"$d/go.mod"
  for b in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
    mkdir -p "$d/cmd/$b"
  done
  cat >"$d/cmd/kube-apiserver/main.go" <<'GO'
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() { os.Exit(cli.Run(app.NewAPIServerCommand())) }
GO
  cat >"$d/cmd/kube-controller-manager/main.go" <<'GO'
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

func main() { os.Exit(cli.Run(app.NewControllerManagerCommand())) }
GO
  cat >"$d/cmd/kube-scheduler/main.go" <<'GO'
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
)

func main() { os.Exit(cli.Run(app.NewSchedulerCommand())) }
GO
  cat >"$d/cmd/kubectl/main.go" <<'GO'
package main

import (
	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	command := cmd.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		util.CheckErr(err)
	}
}
GO
  local minor="${KUBE_VERSION#v1.}"; minor="${minor%%.*}"
  local ldflags="-s -w"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags="$ldflags -X $p.gitVersion=$KUBE_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
  done
  (cd "$d" && go mod tidy)
  for b in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
    [ -x "$KUBE_BIN_DIR/$b" ] && continue
    log "  go build $b"
    (cd "$d" && go build -trimpath -ldflags "$ldflags" -o "$KUBE_BIN_DIR/$b" "./cmd/$b")
  done
}

build_kwok() {
  [ -x "$KUBE_BIN_DIR/kwok" ] && return 0
  log "building kwok $KWOK_VERSION"
  # Its own module: kwok pins k8s.io libraries of its own.
  GOBIN="$KUBE_BIN_DIR" go install "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
}

# Build output goes to stderr so that stdout carries only the folder.
build_etcd >&2
build_kwok >&2
build_kube >&2
have_all
log "kube binaries ready in $KUBE_BIN_DIR"
echo "$KUBE_BIN_DIR"
