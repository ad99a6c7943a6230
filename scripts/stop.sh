#!/usr/bin/env bash
# Stop everything `make run` / provisioning started, newest first: trapd, beat, worker, web, simnet
# (whole process group, so snmpsim children go too), simnet's network namespace (netns), redis,
# the private PostgreSQL cluster.
# Only processes named by our pidfiles in state/run (and the cluster in state/pg) are touched;
# the machine's own PostgreSQL/redis services never are.
#
# Usage: scripts/stop.sh [NAME ...]   NAME in: trapd beat worker web simnet netns redis postgres
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if [[ ! -d $STATE ]]; then
    echo "nothing to stop (no state/ directory)"
    exit 0
fi

names=("$@")
if ((${#names[@]} == 0)); then
    names=(trapd beat worker web simnet netns redis postgres)
fi

rc=0
for name in "${names[@]}"; do
    case $name in
        trapd | beat | worker | web | simnet | netns | redis | postgres) stop_service "$name" || rc=1 ;;
        *)
            echo "cellar: unknown service '$name' (trapd beat worker web simnet netns redis postgres)" >&2
            rc=2
            ;;
    esac
done
exit "$rc"
