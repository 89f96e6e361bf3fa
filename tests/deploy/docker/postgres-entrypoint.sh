#!/bin/sh
# First start: a cluster whose superuser is $POSTGRES_USER (password auth from the network),
# and the database $POSTGRES_DB; then PostgreSQL in the foreground as the postgres user.
set -eu
mkdir -p "$PGDATA" /var/run/postgresql
chown -R postgres:postgres "$PGDATA" /var/run/postgresql
if [ ! -s "$PGDATA/PG_VERSION" ]; then
	printf '%s' "$POSTGRES_PASSWORD" >/tmp/pwfile
	chown postgres /tmp/pwfile
	runuser -u postgres -- initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile=/tmp/pwfile \
		--auth-local=trust --auth-host=scram-sha-256 >/dev/null
	rm /tmp/pwfile
	echo "host all all 0.0.0.0/0 scram-sha-256" >>"$PGDATA/pg_hba.conf"
	echo "CREATE DATABASE \"$POSTGRES_DB\"" |
		runuser -u postgres -- postgres --single -D "$PGDATA" postgres >/dev/null
fi
exec runuser -u postgres -- postgres -D "$PGDATA" -c listen_addresses='*'
