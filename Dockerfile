# syntax=docker/dockerfile:1
# One image, three programs: the member agent, the DNS probe and the control plane, each a single
# esbuild bundle (no node_modules at run time). The image starts the agent by default; the Helm
# charts pass the program explicitly:
#   agent         node --max-semi-space-size=1 --optimize-for-size --liftoff-only dist/agent.mjs run ...
#   probe         node --max-semi-space-size=1 --optimize-for-size --liftoff-only --max-opt=0 dist/probe.mjs ...
#   control plane node dist/controlplane.mjs run ...
#
#   docker build -t karmada-failover:0.1.0 .
#
# The base is node:24-bookworm-slim pinned by digest (Node 24.18.0 when pinned). To move it:
#   docker buildx imagetools inspect node:24-bookworm-slim   # take the index digest
ARG NODE_IMAGE=node:24-bookworm-slim@sha256:6f7b03f7c2c8e2e784dcf9295400527b9b1270fd37b7e9a7285cf83b6951452d

# --- build: the workspace with its dev dependencies (TypeScript runs as source; esbuild bundles).
FROM ${NODE_IMAGE} AS build
WORKDIR /src
ENV NODE_ENV=development \
    npm_config_fund=false \
    npm_config_audit=false \
    npm_config_update_notifier=false
COPY package.json package-lock.json ./
COPY lib/api/package.json lib/api/
COPY lib/runtime/package.json lib/runtime/
COPY lib/kube/package.json lib/kube/
COPY lib/testing/package.json lib/testing/
COPY agent/package.json agent/
COPY probe/package.json probe/
COPY controlplane/package.json controlplane/
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts
COPY tsconfig.base.json tsconfig.json ./
COPY lib/ lib/
COPY agent/ agent/
COPY probe/ probe/
COPY controlplane/ controlplane/
RUN npm run build -w @kf/agent \
 && npm run build -w @kf/probe \
 && npm run build -w @kf/controlplane

# --- runtime: Node, tini and the three bundles; nothing else.
FROM ${NODE_IMAGE} AS runtime
# tini reaps zombies and forwards SIGTERM to node, which then stops its watches, releases its
# leader Lease and flushes its logs within the grace period.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build --chown=0:0 /src/agent/dist/agent.mjs /src/agent/dist/agent.mjs.map /src/agent/dist/agent.mjs.LEGAL.txt dist/
COPY --from=build --chown=0:0 /src/probe/dist/probe.mjs /src/probe/dist/probe.mjs.map /src/probe/dist/probe.mjs.LEGAL.txt dist/
COPY --from=build --chown=0:0 /src/controlplane/dist/controlplane.mjs /src/controlplane/dist/controlplane.mjs.map /src/controlplane/dist/controlplane.mjs.LEGAL.txt dist/
# A numeric user: the kubelet can check runAsNonRoot without a passwd lookup. Files stay root's
# and read-only to the process.
USER 1000:1000
EXPOSE 8080 10357
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--max-semi-space-size=1", "--optimize-for-size", "--liftoff-only", "dist/agent.mjs", "run"]
