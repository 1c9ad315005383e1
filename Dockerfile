# syntax=docker/dockerfile:1.7
# podconfig-agent image: build the workspace, then ship only @podconfig/agent with its production
# dependencies on node:20-slim, running as a non-root user.
#
#   docker build -t podconfig-agent:0.1.0 .
#   docker run --rm --network host -v /etc/kubernetes/manifests:/etc/kubernetes/manifests:ro \
#     podconfig-agent:0.1.0 --pod-manifest-path /etc/kubernetes/manifests --node-name "$(hostname)"
#
# Arguments after the image replace CMD (the manifest path below), so give it again with any flag; with
# --network host the status server's 127.0.0.1:10265 is the host's (curl 127.0.0.1:10265/readyz there).

ARG NODE_IMAGE=node:20-slim

# --- build: install the workspace with the pnpm pinned in package.json (corepack), compile, deploy ---
FROM ${NODE_IMAGE} AS build
# corepack verifies pnpm against the sha512 pinned in package.json; the registry-signature check is
# skipped because npm mirrors often serve no signatures (see README).
ENV COREPACK_INTEGRITY_KEYS=0 \
    COREPACK_ENABLE_DOWNLOAD_PROMPT=0 \
    npm_config_store_dir=/pnpm/store
WORKDIR /src
RUN corepack enable
COPY . .
RUN --mount=type=cache,id=pnpm-store,target=/pnpm/store \
    pnpm install --frozen-lockfile
# Compile the agent and every workspace package it references (tsc -b follows the references).
RUN pnpm exec tsc -b agent
# A self-contained copy of @podconfig/agent: its dist/ plus production dependencies only (workspace
# packages copied with their "files": dist). --legacy: the workspace does not inject workspace packages.
RUN --mount=type=cache,id=pnpm-store,target=/pnpm/store \
    pnpm --filter @podconfig/agent --prod deploy --legacy /out \
 && chmod 0755 /out/dist/bin/podconfig-agent.js

# --- runtime ---
FROM ${NODE_IMAGE} AS runtime
LABEL org.opencontainers.image.title="podconfig-agent" \
      org.opencontainers.image.description="kubelet-style pod config source agent: static manifests, a manifest URL and the apiserver -> sync handlers"
ENV NODE_ENV=production
# Owned by root and read-only for the agent's user: the application cannot modify itself.
COPY --from=build /out /opt/podconfig
RUN ln -s /opt/podconfig/dist/bin/podconfig-agent.js /usr/local/bin/podconfig-agent
WORKDIR /opt/podconfig
# The image's "node" user, by number so that Kubernetes runAsNonRoot can verify it.
USER 1000:1000
ENTRYPOINT ["podconfig-agent"]
CMD ["--pod-manifest-path", "/etc/kubernetes/manifests"]
