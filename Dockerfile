# syntax=docker/dockerfile:1
# invoice-intake: one image for every role (api, ftp, mail, worker); the role is chosen by
# ROLES or `--role` at run time. The build stage compiles src/ to dist/ (`npm run build`, which
# type-checks and fails the build on an error); the runtime stage runs dist/ with production
# dependencies only, no TypeScript loader in the process.

# Node 24 (LTS, security releases until April 2028; Node 20 left maintenance on 2026-04-30).
# Dependencies want Node >= 22 at run time (content-disposition 3 under @fastify/static, cookie 2
# under @fastify/cookie); the build, start-up and API edge tests pass on Node 24.21. Development
# still works on Node 20.19+ (engines in package.json), where the whole suite runs.
ARG NODE_IMAGE=node:24-bookworm-slim

# --- build: all dependencies, type-check and compile -----------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: npm ci would run the package's `prepare` (the build) before src/ is here; the
# build runs below, once the sources are copied
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# --- deps: production dependencies only (tsx among them, for the admin CLI) -------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && npm cache clean --force

# --- runtime: non-root, read-only code, state in /data ------------------------------------
FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
# the official image's unprivileged user "node" (uid 1000) runs the service
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/package.json /app/tsconfig.json ./
COPY --from=build --chown=root:root /app/dist ./dist
COPY --from=build --chown=root:root /app/src ./src
COPY --chown=root:root config ./config
RUN mkdir -p /data && chown node:node /data
USER node
# HOST=0.0.0.0: the API answers outside the container, so PUBLIC_URL must be set (the links it
# mails are built on it; the service refuses to start without it).
# PORT serves the API; OPS_PORT serves /healthz /readyz /metrics in a process without the api
# role. Both 8080: whatever the role, the container answers its health check on 8080.
ENV DATA_DIR=/data \
    HOST=0.0.0.0 \
    PORT=8080 \
    OPS_PORT=8080 \
    FTP_PORT=2121
# 8080: API or health/metrics; 2121: FTP control; the passive range must match FTP_PASV_RANGE
# (default 30000-30100)
EXPOSE 8080 2121 30000-30100
VOLUME ["/data"]
# every role answers /readyz on 8080 (the API on PORT, or the health listener on OPS_PORT)
HEALTHCHECK --interval=10s --timeout=3s --start-period=40s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM starts the graceful stop (SHUTDOWN_GRACE_MS, default 25 s): give the container longer
STOPSIGNAL SIGTERM
# exec form: node is PID 1 and receives the signal itself
CMD ["node", "dist/main.js"]
