#!/usr/bin/env bash
# A real S3 server for the S3 store's tests and benchmarks: a single-node Ceph cluster (mon + mgr + one
# OSD) with a RADOS Gateway in front, all on 127.0.0.1, all state in one directory, no systemd.
#
#   scripts/rgw.sh start DIR   bootstraps a cluster in DIR (created; keep the path short, the daemons'
#                              admin sockets live under it), prints "endpoint: http://127.0.0.1:PORT"
#                              once S3 answers and the user exists, and leaves the daemons running
#   scripts/rgw.sh stop DIR    stops the daemons recorded in DIR/pids (rgw, then mgr and osd, then mon)
#
# Environment (all optional):
#   RGW_PORT       S3 port: unset = 7480 when free, else a free port; 0 = a free port; N = exactly N
#   MON_PORT       monitor port, chosen the same way around 3300
#   RGW_STORE      memstore (default: objects in RAM, ~2.4x their size) | bluestore (sparse file DIR/osd/block)
#   S3_ACCESS_KEY  S3 access key (default ciaccesskey)
#   S3_SECRET_KEY  S3 secret key (default cisecretkey123)
#
# Needs the packages of scripts/install-rgw.sh. Clients use path-style addressing and any region
# (e.g. us-east-1); bucket names need at least 3 characters. Exits non-zero with the reason (and the tail
# of the daemons' logs) on stderr when the cluster does not come up, after stopping what it started.
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
command=$1
dir=$2

# Stops each pid gracefully (SIGTERM, up to 15 s), then kills it. Only processes that are still the
# daemon recorded (same program name), so a recycled pid is never touched.
stop_pids() {
  local pid
  for pid in "$@"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "$@"; do
    for _ in $(seq 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
}
# The pids recorded for daemon $1 that still run that daemon.
recorded() {
  local name pid
  [ -f "$dir/pids" ] || return 0
  while read -r name pid; do
    if [ "$name" = "$1" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$1" ]; then echo "$pid"; fi
  done <"$dir/pids"
}
stop_cluster() {
  # Order matters: an rgw whose OSD is gone waits ~120 s for it before exiting; the mon goes last so the
  # others can still reach it while they shut down.
  stop_pids $(recorded radosgw)
  stop_pids $(recorded ceph-mgr) $(recorded ceph-osd)
  stop_pids $(recorded ceph-mon)
}

case "$command" in
  stop)
    stop_cluster
    exit 0
    ;;
  start) ;;
  *) usage ;;
esac

for program in ceph-mon ceph-mgr ceph-osd radosgw radosgw-admin ceph ceph-authtool monmaptool curl timeout; do
  if ! command -v "$program" >/dev/null 2>&1; then
    echo "rgw: $program is missing; install the packages with scripts/install-rgw.sh (root, apt-get)" >&2
    exit 1
  fi
done

mkdir -p "$dir"
dir=$(cd "$dir" && pwd -P)
if [ -e "$dir/pids" ] || [ -e "$dir/ceph.conf" ]; then
  echo "rgw: $dir already holds a cluster; stop it and use an empty directory" >&2
  exit 1
fi
mkdir -p "$dir"/{mon,mgr,osd,rgw,run,log,crash}

store=${RGW_STORE:-memstore}
case "$store" in memstore | bluestore) ;; *) echo "rgw: RGW_STORE must be memstore or bluestore, not $store" >&2; exit 1 ;; esac
access_key=${S3_ACCESS_KEY:-ciaccesskey}
secret_key=${S3_SECRET_KEY:-cisecretkey123}

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# A port nothing listens on, from the ephemeral-looking range the kernel does not hand out by default.
free_port() {
  local port
  for _ in $(seq 200); do
    port=$((20000 + RANDOM % 12000))
    if ! listening "$port"; then echo "$port"; return 0; fi
  done
  echo "rgw: no free port found" >&2
  return 1
}
# $1 = the variable's value, $2 = the preferred port.
choose_port() {
  if [ -z "$1" ]; then
    if listening "$2"; then free_port; else echo "$2"; fi
  elif [ "$1" = 0 ]; then
    free_port
  else
    echo "$1"
  fi
}
port=$(choose_port "${RGW_PORT:-}" 7480)
mon_port=$(choose_port "${MON_PORT:-}" 3300)
for p in "$port" "$mon_port"; do
  if listening "$p"; then echo "rgw: port $p is in use" >&2; exit 1; fi
done

export CEPH_CONF=$dir/ceph.conf
started=$(date +%s.%N)
step() { awk -v now="$(date +%s.%N)" -v t0="$started" -v m="$*" 'BEGIN { printf "rgw: [%4.1fs] %s\n", now - t0, m }' >&2; }

fail() {
  echo "rgw: $* (logs in $dir/log)" >&2
  for log in "$dir"/log/*.log; do
    [ -s "$log" ] || continue
    echo "--- $log" >&2
    tail -n 15 "$log" >&2
  done
  stop_cluster
  exit 1
}
trap 'fail "failed at line $LINENO"' ERR

# Daemons run in the foreground (-f) as background jobs of this script, detached from its stdin and
# stdout so a caller reading our output sees it end when we exit; the pid file drives stop.
daemon() {
  local name=$1
  shift
  "$name" "$@" -f </dev/null >>"$dir/log/stdout.log" 2>&1 &
  echo "$name $!" >>"$dir/pids"
}
alive() { [ -n "$(recorded "$1")" ]; }
# Waits up to $1 seconds for command $3 while daemon $2 stays alive.
wait_for() {
  local seconds=$1 name=$2
  shift 2
  for _ in $(seq $((seconds * 4))); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    alive "$name" || fail "$name exited while waiting for: $*"
    sleep 0.25
  done
  fail "timed out after ${seconds}s waiting for: $*"
}
# Every ceph command is bounded: with no monitor it would retry forever.
ceph_cmd() { timeout 30 ceph --connect-timeout 10 "$@"; }

cat >"$CEPH_CONF" <<EOF
[global]
fsid = $(cat /proc/sys/kernel/random/uuid)
mon host = v2:127.0.0.1:$mon_port
# Loopback only: without cluster addr the OSD listens on every interface.
public addr = 127.0.0.1
cluster addr = 127.0.0.1
ms bind ipv6 = false
keyring = $dir/keyring
run dir = $dir/run
crash dir = $dir/crash
log file = $dir/log/\$name.log
mon cluster log file = $dir/log/cluster.log
mon data = $dir/mon
mgr data = $dir/mgr
osd data = $dir/osd
auth allow insecure global id reclaim = false
# One OSD holds every replica.
mon allow pool size one = true
mon warn on pool no redundancy = false
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mgr initial modules = iostat
# The monitor commits map changes every 0.1 s instead of every 1 s: bootstrap takes ~3 s instead of ~14 s.
paxos propose interval = 0.1
osd objectstore = $store
# memstore: a cap, not an allocation. bluestore: a sparse file that grows with the data.
memstore device bytes = 8589934592
bluestore block create = true
bluestore block size = 21474836480
osd memory target = 1073741824
[client.rgw.gw]
rgw data = $dir/rgw
# tcp_nodelay: without it a response RGW writes in two parts (CopyObject's headers, then its XML) waits
# for the client's delayed ACK, 40 ms per copy on loopback (seen in RGW's log as a 44 ms gap after each copy).
rgw frontends = beast endpoint=127.0.0.1:$port tcp_nodelay=1
# No lifecycle worker: nothing here sets lifecycle rules, and its 5 s retry sleep held up every stop.
rgw enable lc threads = false
EOF

# One keyring with every entity and its capabilities; ceph-mon --mkfs imports them all into the auth database.
keyring=$dir/keyring
ceph-authtool "$keyring" --create-keyring --gen-key -n mon. --cap mon 'allow *' >/dev/null
ceph-authtool "$keyring" --gen-key -n client.admin --cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' --cap mds 'allow *' >/dev/null
ceph-authtool "$keyring" --gen-key -n mgr.x --cap mon 'allow profile mgr' --cap osd 'allow *' --cap mds 'allow *' >/dev/null
ceph-authtool "$keyring" --gen-key -n osd.0 --cap mon 'allow profile osd' --cap mgr 'allow profile osd' --cap osd 'allow *' >/dev/null
ceph-authtool "$keyring" --gen-key -n client.rgw.gw --cap mon 'allow rw' --cap osd 'allow rwx' --cap mgr 'allow rw' >/dev/null
monmaptool --create --fsid "$(sed -n 's/^fsid = //p' "$CEPH_CONF")" --addv a "[v2:127.0.0.1:$mon_port]" "$dir/monmap" >/dev/null
ceph-mon --mkfs -i a --monmap "$dir/monmap" --keyring "$keyring" >>"$dir/log/stdout.log" 2>&1

daemon ceph-mon -i a
wait_for 60 ceph-mon ceph_cmd mon stat
step "mon up on 127.0.0.1:$mon_port"

daemon ceph-mgr -i x
osd_uuid=$(cat /proc/sys/kernel/random/uuid)
ceph_cmd osd new "$osd_uuid" >/dev/null
timeout 120 ceph-osd -i 0 --mkfs --osd-uuid "$osd_uuid" >>"$dir/log/stdout.log" 2>&1
daemon ceph-osd -i 0
osd_up() { ceph_cmd osd dump | grep -q '^osd.0 up'; }
wait_for 120 ceph-osd osd_up
step "osd up ($store)"

daemon radosgw -n client.rgw.gw
wait_for 120 radosgw curl -sf "http://127.0.0.1:$port/"
step "rgw answering"

timeout 60 radosgw-admin user create --uid=ci --display-name=CI \
  --access-key="$access_key" --secret-key="$secret_key" >/dev/null
step "S3 user ci (access key $access_key)"

trap - ERR
echo "endpoint: http://127.0.0.1:$port"
