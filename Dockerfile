# The ingest daemon in a small image: `docker build -t discord-manager .`, then see README
# ("Running the daemon") for a compose file. The store lives on the /data volume.
FROM rust:1.95-slim-bookworm AS build
WORKDIR /build
COPY . .
RUN cargo build --release --locked --bin discord-manager

FROM debian:bookworm-slim
# CA roots for Discord's TLS; nothing else is installed.
RUN apt-get update \
    && apt-get install --yes --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /data --shell /usr/sbin/nologin discord-manager \
    && mkdir /data && chown discord-manager /data
COPY --from=build /build/target/release/discord-manager /usr/local/bin/discord-manager
USER discord-manager
WORKDIR /data
ENV DISCORD_MANAGER_DB=/data/store.sqlite3
VOLUME ["/data"]
# Healthy while the store opens and answers; `docker exec <container> discord-manager status`
# shows when the daemon last reported in and every known gap.
HEALTHCHECK --interval=60s --timeout=10s --start-period=60s --retries=3 \
    CMD ["discord-manager", "status", "--json"]
ENTRYPOINT ["discord-manager"]
CMD ["ingest"]
