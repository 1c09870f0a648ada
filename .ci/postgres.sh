#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests of the PostgreSQL table store (issue 16).
#
#   .ci/postgres.sh start      installs PostgreSQL from Debian's packages if no initdb is found,
#                              creates a cluster in a new temporary folder, starts it on a free
#                              port of 127.0.0.1, and prints two lines: the base URL (for
#                              FACEDOWN_TEST_POSTGRES) and the folder (for `stop`).
#   .ci/postgres.sh stop DIR   stops the cluster of DIR at once and removes DIR.
#
# initdb and pg_ctl refuse to run as root: as root they run as the `postgres` user (which the
# Debian package creates), on a folder owned by that user. Only the base URL and the folder go
# to standard output; everything else goes to standard error.
set -euo pipefail

say() { echo "postgres.sh: $*" >&2; }

# The newest installed server's bin folder, or nothing.
pg_bin() {
    local dir
    dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
    if [ -n "$dir" ] && [ -x "$dir/initdb" ]; then
        echo "$dir"
    fi
}

# Runs a command as the cluster's owner: `postgres` when we are root, else ourselves.
as_owner() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

# True when nothing answers on 127.0.0.1:PORT.
port_free() {
    ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

start() {
    local bin
    bin=$(pg_bin)
    if [ -z "$bin" ]; then
        say "no initdb under /usr/lib/postgresql: installing PostgreSQL from Debian's packages"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update >&2
        apt-get install -y postgresql >&2
        bin=$(pg_bin)
        [ -n "$bin" ] || { say "PostgreSQL installed, but no initdb found"; exit 1; }
    fi
    local dir
    # In /tmp, which the postgres user can reach (a TMPDIR under /root could not be).
    dir=$(mktemp -d /tmp/facedown-pg.XXXXXX)
    mkdir -p "$dir/data" "$dir/sock"
    if [ "$(id -u)" = 0 ]; then
        chown -R postgres: "$dir"
    fi
    # Trust authentication on a cluster only this machine's loopback reaches, for the tests.
    as_owner "$bin/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 >"$dir/initdb.log" 2>&1 || {
        cat "$dir/initdb.log" >&2
        exit 1
    }
    # A free port: try a few at random (another process may take one between the check and
    # the start, so a failed start tries the next).
    local tries port
    for tries in 1 2 3 4 5 6 7 8; do
        port=$((20000 + RANDOM % 20000))
        port_free "$port" || continue
        if as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" \
            -o "-k $dir/sock -c listen_addresses=127.0.0.1 -p $port" -w -t 60 start >&2; then
            echo "postgres://postgres@127.0.0.1:$port"
            echo "$dir"
            return 0
        fi
        say "could not start on port $port (try $tries):"
        tail -n 5 "$dir/server.log" >&2 || true
    done
    say "no port found to start PostgreSQL on"
    exit 1
}

stop() {
    local dir=${1:?usage: postgres.sh stop DIR}
    local bin
    bin=$(pg_bin)
    if [ -n "$bin" ] && [ -f "$dir/data/postmaster.pid" ]; then
        as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >&2 || true
    fi
    case "$dir" in
        /tmp/facedown-pg.*) rm -rf "$dir" ;;
        *) say "leaving $dir in place (not a folder this script made)" ;;
    esac
}

case "${1:-}" in
    start) start ;;
    stop) stop "${2:-}" ;;
    *)
        echo "usage: $0 start | stop DIR" >&2
        exit 2
        ;;
esac
