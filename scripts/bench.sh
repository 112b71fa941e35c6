#!/usr/bin/env bash
# Runs every benchmark and prints its figures: the scheduler's pure assignment, rescheduling
# through the control-plane process after a cluster failure, the same failover under Karmada's
# own control plane and the project's (Pull members, then Push members), 10 Push members beside 10
# Pull members with 2,000 bindings, 10,000 bindings over 100 members (placement, memory, restart,
# a member lost and the API server's placement floor), the same 10,000 under Karmada's own
# controller-manager and scheduler beside the project's (placement, CPU, RSS, a member lost), the health monitor over 1,000 members for
# KF_HEALTH_MINUTES (default 30), 1,000 CloneSets through Karmada's Lua customization against 1,000
# Deployments, the DNS probe's per-lookup CPU and
# RSS (against a local federation) and the memory floor under it, and the agent's status sync
# and RSS on a member with 500 KWOK nodes and 5,000 pods; last, 30 minutes of random partitions
# counting false evictions (KF_SOAK_MINUTES sets the length).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"
export PATH="$(bash scripts/setup.sh | tail -n 1)"

log "scheduler: 10,000 bindings x 100 clusters"
node controlplane/bench/assign.bench.ts
log "control plane: 1,000 bindings evicted from a NoExecute-tainted cluster (default pacing)"
node controlplane/bench/eviction.bench.ts
log "control plane: 1,000 bindings rescheduled after a cluster failure"
node controlplane/bench/reschedule.bench.ts
log "control plane: the same failover under Karmada's own control plane and the project's (200 and 1,000 bindings)"
node controlplane/bench/side-by-side.bench.ts
log "control plane: the same failover with Push members under Karmada's own control plane and the project's"
node controlplane/bench/side-by-side.bench.ts --mode=push --bindings=200
log "control plane: 10 Push members beside 10 Pull members, 2,000 bindings (applied, CPU and RSS, status sync, a member lost)"
node controlplane/bench/push.bench.ts
log "control plane: scale, 10,000 bindings over 100 simulated members (set-up, memory, restart, a member lost, floor)"
node controlplane/bench/scale.bench.ts
log "control plane: 10,000 bindings over 100 simulated members under Karmada's controller-manager and scheduler beside the project's"
node controlplane/bench/beside-karmada.bench.ts
log "control plane: health monitor over 1,000 simulated members, 20 of them silenced (detection, false Unknowns, cost)"
node controlplane/bench/health.bench.ts
log "control plane: custom kinds, 1,000 CloneSets (Karmada's customization, Lua) against 1,000 Deployments"
node controlplane/bench/custom-kinds.bench.ts
log "probe: lookups and RSS"
node probe/bench/lookup.bench.ts --federation --seconds=20
log "probe: the memory floor of any probe on Node (Node, TLS, HTTP/2, undici)"
node probe/bench/floor.bench.ts
log "agent: 500 nodes, 5,000 pods"
npm run --silent bench -w @kf/agent
log "partitions: ${KF_SOAK_MINUTES:-30} minutes of random agent-link partitions on 3 members"
node controlplane/bench/partition-soak.bench.ts
