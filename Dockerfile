# syntax=docker/dockerfile:1
# TSUKA for Slack and Discord: a slim Node 22 LTS image that runs as a non-root user.
# Build:  docker build -t tsuka .
# Run:    docker run --env-file .env -v "$PWD/data:/data" -v "$PWD/workspace:/workspace" tsuka

# --- build stage: compile TypeScript to dist/, then keep production dependencies only ---
FROM node:22-bookworm-slim AS build
WORKDIR /app
# sqlite3 builds from source when no prebuilt binary can be fetched; it needs python3, make and g++.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# Everything, typescript included, for the build. Install scripts must run: sqlite3 needs its own
# (package.json "allowScripts").
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY bin ./bin
COPY src ./src
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && npm cache clean --force

# --- runtime stage ---
FROM node:22-bookworm-slim
# The repository address is given at build time (docker build --build-arg SOURCE_URL=...), not guessed here.
ARG SOURCE_URL=""
LABEL org.opencontainers.image.title="tsuka" \
      org.opencontainers.image.description="TSUKA for Slack and Discord: a self-hosted chat-ops bot running a team of local-LLM agents" \
      org.opencontainers.image.source="${SOURCE_URL}" \
      org.opencontainers.image.licenses="MIT"
# tini is PID 1: it forwards SIGTERM to node (graceful shutdown) and reaps orphaned grandchildren
# of agent commands. Agents run git; ca-certificates lets git and the model client use TLS.
# The default command sandbox (docs/docker.md): bubblewrap, where the container may create user
# namespaces; slirp4netns, the user-mode network agent commands and MCP servers reach the internet
# through (without it they have no network at all); util-linux for the unshare and prlimit it runs
# (essential in Debian: listed so that the image says what the sandbox needs).
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini git ca-certificates bubblewrap slirp4netns util-linux iproute2 \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 tsuka \
 && useradd --system --uid 10001 --gid tsuka --home-dir /home/tsuka --create-home --shell /usr/sbin/nologin tsuka \
 && mkdir -p /data /workspace \
 && chown tsuka:tsuka /data /workspace
WORKDIR /app
# Code stays owned by root: the bot cannot rewrite itself; only /data and /workspace are writable.
# The runtime gets compiled JavaScript and production dependencies only: no src/, no tsx, no esbuild,
# no typescript. bin/tsuka.js runs dist/ because there are no sources beside it.
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
COPY characters ./characters
COPY roles ./roles
COPY teams ./teams
COPY traits ./traits
COPY tools_schemas ./tools_schemas
COPY providers.json slack-app-manifest.yaml ./
COPY docker/entrypoint.sh ./docker/entrypoint.sh
RUN chmod 0755 /app/docker/entrypoint.sh
ENV NODE_ENV=production \
    TSUKA_DATA_DIR=/data \
    TSUKA_WORKSPACE=/workspace \
    TSUKA_HTTP_HOST=0.0.0.0 \
    TSUKA_HTTP_PORT=3000 \
    GIT_AUTHOR_NAME=TSUKA \
    GIT_AUTHOR_EMAIL=tsuka@localhost \
    GIT_COMMITTER_NAME=TSUKA \
    GIT_COMMITTER_EMAIL=tsuka@localhost
VOLUME ["/data", "/workspace"]
EXPOSE 3000
USER tsuka
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.TSUKA_HTTP_PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["tini", "--", "/app/docker/entrypoint.sh"]
CMD ["start"]
