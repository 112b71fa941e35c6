#!/usr/bin/env bash
# Brings up a local federation on loopback (control plane, 3 members with KWOK nodes: member1 and
# member2 joined in Push mode, member3 with its agent; DNS probes, the control plane process,
# Prometheus) and plays the failover demo with a timeline.
# Pass --keep to leave it running until Ctrl-C, --nodes N for N KWOK nodes (and probes) per member.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"
# Builds only what the demo runs; the test command's set-up adds Karmada's binaries and the rest.
export PATH="$(bash scripts/setup.sh --demo | tail -n 1)"
exec node lib/testing/src/cli/federation-main.ts demo "$@"
