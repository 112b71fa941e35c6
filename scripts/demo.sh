#!/usr/bin/env bash
# Brings up a local federation (control plane + members with KWOK nodes) on loopback and runs the
# demo on it. Pass --keep to leave it running until Ctrl-C, --members N / --nodes N to resize it.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"
export PATH="$(bash scripts/setup.sh | tail -n 1)"
exec node lib/testing/src/cli/federation-main.ts up "$@"
