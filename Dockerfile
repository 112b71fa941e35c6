# syntax=docker/dockerfile:1
# One image, three programs: the member agent, the DNS probe and the control plane, each a single
# esbuild bundle (no node_modules at run time). The image starts the agent by default; the Helm
# charts pass the program explicitly:
#   agent         node --max-semi-space-size=1 --optimize-for-size --liftoff-only dist/agent.mjs run ...
#   probe         node --max-semi-space-size=1 --optimize-for-size --liftoff-only --max-opt=0 --minor-ms --bytecode-old-age=2 dist/probe.mjs ...
#   control plane node dist/controlplane.mjs run ...
#
#   docker build -t karmada-failover:0.1.0 .
#
# The base is Node on Debian bookworm slim, tagged with the exact Node version that development
# and CI run (NODE_VERSION in scripts/lib.sh; test/packaging checks they match) and pinned by
# digest. To move both:
#   docker buildx imagetools inspect node:<version>-bookworm-slim   # take the index digest
ARG NODE_IMAGE=node:24.21.0-bookworm-slim@sha256:2fe369e969550cde8e867afc3fe370b260140cab4a23d467074295b42163d553

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
COPY lib/interpreter/package.json lib/interpreter/
COPY lib/member/package.json lib/member/
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
# leader Lease and flushes its logs within the grace period. Pinned to bookworm's build, so that a
# rebuild gets the same init. The bundles need no package manager: npm, npx, corepack and yarn
# (and the vulnerabilities reported against them) leave the image.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini=0.19.0-1+b3 \
 && rm -rf /var/lib/apt/lists/* \
 && rm -rf /usr/local/lib/node_modules /opt/yarn-* \
      /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack /usr/local/bin/yarn /usr/local/bin/yarnpkg
WORKDIR /app
ENV NODE_ENV=production
# glue.wasm: the resource interpreter's Lua VM, loaded by the agent and the control plane from their
# own folder (the same file in both builds).
COPY --from=build --chown=0:0 /src/agent/dist/agent.mjs /src/agent/dist/agent.mjs.map /src/agent/dist/agent.mjs.LEGAL.txt /src/agent/dist/glue.wasm dist/
COPY --from=build --chown=0:0 /src/probe/dist/probe.mjs /src/probe/dist/probe.mjs.map /src/probe/dist/probe.mjs.LEGAL.txt dist/
COPY --from=build --chown=0:0 /src/controlplane/dist/controlplane.mjs /src/controlplane/dist/controlplane.mjs.map /src/controlplane/dist/controlplane.mjs.LEGAL.txt dist/
# A numeric user: the kubelet can check runAsNonRoot without a passwd lookup. Files stay root's
# and read-only to the process.
USER 1000:1000
EXPOSE 8080 10357
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--max-semi-space-size=1", "--optimize-for-size", "--liftoff-only", "dist/agent.mjs", "run"]
