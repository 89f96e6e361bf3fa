# Stands in for postgres:16 where Docker Hub cannot be reached: Debian's PostgreSQL 15 with
# the official image's interface (POSTGRES_USER / _PASSWORD / _DB, data in PGDATA).
FROM gpuprice-test/bookworm
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/*
COPY postgres-entrypoint.sh /usr/local/bin/
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
EXPOSE 5432
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]
