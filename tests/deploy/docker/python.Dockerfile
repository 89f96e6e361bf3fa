# Stands in for python:3.11-slim where Docker Hub cannot be reached: Debian's Python 3.11 in
# a virtualenv on PATH, so `pip` and the installed commands work as in the official image.
FROM gpuprice-test/bookworm
COPY ca/ /usr/local/share/ca-certificates/
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates python3 python3-venv \
 && update-ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && python3 -m venv /opt/python
ENV PATH=/opt/python/bin:$PATH VIRTUAL_ENV=/opt/python \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt PIP_DISABLE_PIP_VERSION_CHECK=1
