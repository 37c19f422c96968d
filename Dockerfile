# syntax=docker/dockerfile:1
# Mohar office server (`mohar serve`), for one instance on SQLite or several on PostgreSQL (compose.yaml).
# docs/deployment.md explains every choice; test/deploy/dockerfile.test.ts runs this file's install, build and
# start commands in a clean copy of the repository (images cannot be built where the suite runs).

# The Node 24 LTS line, as .nvmrc and package.json `engines` say. Debian (glibc), not Alpine: better-sqlite3 and
# pkcs11js are compiled in the build stage and must load in the runtime stage, so both stages use the same base.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
# The toolchain node-gyp needs to compile better-sqlite3 and pkcs11js; it stays in this stage.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# The desktop app's Electron binary is never needed on a server (its postinstall is also off in allowScripts).
ENV ELECTRON_SKIP_BINARY_DOWNLOAD=1
# Dependencies first, in their own layer: a change of Mohar's sources does not reinstall or recompile them.
# --ignore-scripts: `prepare` would build sources that are not copied yet; the two native modules are
# compiled by the rebuild right after.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
RUN npm rebuild better-sqlite3 pkcs11js
COPY . .
# tsc to dist/, the signing page to renderer/dist, the console to renderer/dist-console (package.json `build`).
RUN npm run build
# Only the runtime dependencies go on to the runtime stage.
RUN npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
# No system packages: `mohar serve` starts no external program (server/ and pdf/ spawn nothing), Node brings
# its own CA certificates for the outbound HTTPS (OCSP, CRL, TSA, webhooks, SMTP over TLS). A PKCS#11 seal or
# ASP key (MOHAR_SEAL_PKCS11_MODULE) needs its vendor's module: add it in an image built FROM this one.
RUN groupadd --system --gid 10001 mohar \
 && useradd --system --uid 10001 --gid mohar --home-dir /var/lib/mohar --shell /usr/sbin/nologin mohar \
 && mkdir -p /var/lib/mohar \
 && chown mohar:mohar /var/lib/mohar \
 && chmod 0700 /var/lib/mohar
WORKDIR /app
# What `mohar serve` reads, and nothing else: the code stays owned by root, so the server cannot change it.
# package.json marks dist/ as ES modules and is how the server finds renderer/ (rendererBuildDir);
# server/trust/anchors holds the CCA India roots read at run time (dist/ has no .pem files).
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
COPY --from=build /app/renderer/dist ./renderer/dist
COPY --from=build /app/renderer/dist-console ./renderer/dist-console
COPY --from=build /app/server/trust/anchors ./server/trust/anchors
# Inside a container the server must listen on all interfaces (it defaults to loopback, docs/configuration.md).
ENV NODE_ENV=production \
    MOHAR_HOST=0.0.0.0 \
    MOHAR_PORT=8080 \
    MOHAR_DATA_DIR=/var/lib/mohar
USER 10001:10001
VOLUME ["/var/lib/mohar"]
EXPOSE 8080
# `mohar serve` stops gracefully on SIGTERM (it finishes what is running, then exits).
STOPSIGNAL SIGTERM
# Liveness only (the process answers HTTP); slim images have no curl, Node's fetch does the request.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.MOHAR_PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# --max-semi-space-size=4: the flag `npm start` passes (flat memory under a long bulk send, docs/configuration.md).
# ENTRYPOINT is the `mohar` command, so `docker run IMAGE migrate` or `… admin create …` work too.
ENTRYPOINT ["node", "--max-semi-space-size=4", "dist/cli/main.js"]
CMD ["serve"]
