# Herald's container image: the release tarball (bin/release) on Debian 12 slim, run as a non-root user.
#   bin/release && docker build -t herald .
#   docker run -d --name herald -p 127.0.0.1:8642:8642 -v herald-data:/data -e HERALD_API_KEY=... \
#     --stop-timeout 90 --restart unless-stopped herald
# Data lives in the /data volume (HERALD_HOME). A stop (SIGTERM) drains running turns for up to
# gateway.drain_timeout_seconds (60 s), so give `docker stop` a longer timeout (--stop-timeout 90 /
# compose's stop_grace_period: 90s) or turns still running are cut off and resumed at the next start.
# packaging/container/compose.yaml runs it with PostgreSQL.

FROM debian:bookworm-slim AS unpack
COPY herald-app/target/release/herald-*-linux-x64.tar.gz /tmp/
RUN mkdir -p /opt/herald \
 && tar -xzf /tmp/herald-*-linux-x64.tar.gz -C /opt/herald --strip-components=1 --no-same-owner
COPY packaging/container/entrypoint.sh /opt/herald/bin/herald-container
COPY packaging/container/container.yaml /opt/herald/share/container.yaml
RUN chmod 755 /opt/herald/bin/herald-container && chmod 644 /opt/herald/share/container.yaml

FROM debian:bookworm-slim
# procps: /bin/kill, which `herald restart` uses
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends procps \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --user-group --home-dir /data --no-create-home --shell /usr/sbin/nologin herald \
 && mkdir -p /data && chown herald:herald /data && chmod 700 /data
COPY --from=unpack /opt/herald /opt/herald
RUN ln -s /opt/herald/bin/herald /usr/local/bin/herald \
 && ln -s /opt/herald/bin/herald-container /usr/local/bin/herald-container
ENV HERALD_HOME=/data
USER herald
WORKDIR /data
VOLUME /data
EXPOSE 8642
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 CMD ["/opt/herald/bin/herald-container", "health"]
ENTRYPOINT ["/opt/herald/bin/herald-container"]
CMD ["run"]
