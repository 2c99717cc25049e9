#!/bin/sh
# Herald's container entry point (/opt/herald/bin/herald-container).
#   run (default)   start Herald in the foreground as PID 1's exec: SIGTERM (docker stop) drains running turns,
#                   exit 75 (herald restart, /restart) asks the container's restart policy for a new start
#   health          the HEALTHCHECK: exit 0 when GET /health/ready answers 200 (the gateway is running)
#   anything else   passed to herald, e.g. `docker exec herald herald-container status`
# The configuration is $HERALD_CONFIG, else $HERALD_HOME/config.yaml when it exists, else the image's
# container.yaml, which takes everything from environment variables (see the compose example).
set -eu

: "${HERALD_HOME:=/data}"
export HERALD_HOME
base=$(dirname "$(dirname "$(readlink -f "$0")")")
herald="$base/bin/herald"

if [ -z "${HERALD_CONFIG:-}" ]; then
  if [ -f "$HERALD_HOME/config.yaml" ]; then
    HERALD_CONFIG="$HERALD_HOME/config.yaml"
  else
    HERALD_CONFIG="$base/share/container.yaml"
  fi
fi
export HERALD_CONFIG

port=${HERALD_PORT:-8642}

case "${1:-run}" in
  run)
    [ $# -gt 0 ] && shift
    if ! [ -w "$HERALD_HOME" ]; then
      echo "container - $HERALD_HOME is not writable by uid $(id -u); mount a volume there owned by that user" >&2
      exit 78
    fi
    if [ "$HERALD_CONFIG" = "$base/share/container.yaml" ] && [ -z "${HERALD_API_KEY:-}" ] \
        && [ "${HERALD_HOST:-0.0.0.0}" != 127.0.0.1 ]; then
      echo "container - set HERALD_API_KEY: the API, the web chat and the admin page listen on ${HERALD_HOST:-0.0.0.0}:$port" \
        "and need a bearer key there (or mount your own $HERALD_HOME/config.yaml)" >&2
      exit 78
    fi
    exec "$herald" run --foreground "$@"
    ;;
  health)
    # no curl in the image: a plain HTTP/1.0 request over bash's /dev/tcp
    exec bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
      printf "GET /health/ready HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n" >&3
      IFS= read -r status <&3 || exit 1
      case "$status" in *" 200 "*) exit 0 ;; *) exit 1 ;; esac' health "$port"
    ;;
  *)
    exec "$herald" "$@"
    ;;
esac
