# syntax=docker/dockerfile:1
# Hearth in one image: embedded mode by default (all roles, SQLite in the /data volume); set
# HEARTH_DATABASE_URL, HEARTH_REDIS_URL, HEARTH_SECRET and HEARTH_ROLES for a cluster node
# (compose.yaml). Not built in CI (no container engine there): test/e2e/image-command.test.ts
# runs this file's CMD, ENV and HEALTHCHECK outside a container instead.

# --- build: the toolchain better-sqlite3 compiles with when no prebuilt binary fits (python3,
# make, g++ are in the full Debian image), every dependency, then the build to dist/
FROM node:20-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts && npm rebuild better-sqlite3 esbuild
COPY scripts/build.mjs scripts/build-console.ts scripts/
COPY config config
COPY src src
COPY broker broker
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# --- runtime: Node and the built server only, as the unprivileged `node` user
FROM node:20-slim
ENV NODE_ENV=production
ENV HEARTH_DATA_DIR=/data
ENV HEARTH_HOST=0.0.0.0
ENV HEARTH_HTTP_PORT=8080
ENV HEARTH_MQTT_PORT=1883
ENV HEARTH_LOG_FORMAT=json
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/config ./config
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 8080 1883
# no curl in the slim image: node's own fetch
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.HEARTH_HTTP_PORT || 8080) + '/healthz').then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/src/main.js"]
