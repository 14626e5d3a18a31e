#!/usr/bin/env bash
# make fleet: N devices behind a shared caching proxy, watched by node_exporter,
# all on loopback. nginx serves the corpus (the origin); a second nginx with
# proxy_cache is the fleet's forward caching proxy, reached through http_proxy as
# libcurl reads it; every device runs `prefetch run` at once with a cache of its
# own and --metrics-file into one textfile directory that a real
# prometheus-node-exporter reads. Round 1 is cold; before round 2 the manifest
# points one message at a new asset. Prints the origin's requests, each device's
# verdicts and what node_exporter's /metrics says; stops everything it started.
#
#   scripts/fleet.sh BIN_DIR        FLEET_DEVICES (8), FLEET_ASSETS (48), FLEET_KEEP=1 keeps the work folder
set -euo pipefail
bin=${1:?usage: fleet.sh BIN_DIR}
top=$(cd "$(dirname "$0")/.." && pwd)
devices=${FLEET_DEVICES:-8}
assets=${FLEET_ASSETS:-48}
work=$(mktemp -d /tmp/prefetch-fleet.XXXXXX)
helper="python3 $top/scripts/fleet.py"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    if [ "${FLEET_KEEP:-}" = 1 ]; then echo "fleet: work folder kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 143' TERM INT

nginx=$(command -v nginx || echo /usr/sbin/nginx)
exporter=$(command -v prometheus-node-exporter || echo /usr/bin/prometheus-node-exporter)
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_for_port() {
    for _ in $(seq 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.1
    done
    echo "fleet: nothing listens on 127.0.0.1:$1; see $work/*.log" >&2
    return 1
}

origin_port=$(free_port)
proxy_port=$(free_port)
exporter_port=$(free_port)
origin="http://127.0.0.1:$origin_port"
mkdir -p "$work/textfile" "$work/nginx/temp" "$work/proxy-cache"
$helper corpus "$work" "$origin" "$assets"

# The origin answers as a CDN origin commonly does: devices (private caches) must
# revalidate every time (max-age=0), the shared proxy may keep a copy for a day.
cat >"$work/nginx/nginx.conf" <<CONF
daemon off;
worker_processes 2;
$([ "$(id -u)" = 0 ] && echo "user root;")
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 1024; }
http {
    types { image/png png; application/zip zip; }
    default_type application/octet-stream;
    client_body_temp_path $work/nginx/temp/body;
    proxy_temp_path $work/nginx/temp/proxy;
    fastcgi_temp_path $work/nginx/temp/fastcgi;
    uwsgi_temp_path $work/nginx/temp/uwsgi;
    scgi_temp_path $work/nginx/temp/scgi;
    log_format origin '\$status \$request_method \$request_uri';
    log_format proxy '\$upstream_cache_status \$status \$request_uri';

    server {
        listen 127.0.0.1:$origin_port;
        root $work/www;
        access_log $work/origin-round1.log origin;
        add_header Cache-Control "max-age=0, s-maxage=86400";
    }

    # A forward proxy for the origin only: the devices ask it for absolute
    # http://127.0.0.1:$origin_port/... URLs. proxy_cache_lock lets one request
    # per URL through to the origin while the other devices wait for its copy;
    # a device's revalidation of a copy the proxy holds is answered here (304).
    proxy_cache_path $work/proxy-cache levels=1:2 keys_zone=fleet:10m max_size=1g inactive=1d use_temp_path=off;
    server {
        listen 127.0.0.1:$proxy_port;
        access_log $work/proxy-round1.log proxy;
        location / {
            if (\$http_host != "127.0.0.1:$origin_port") { return 403; }
            proxy_pass http://\$http_host;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_cache fleet;
            proxy_cache_lock on;
            proxy_cache_lock_timeout 60s;
            proxy_cache_revalidate on;
            add_header X-Cache-Status \$upstream_cache_status;
        }
    }
}
CONF
"$nginx" -p "$work/nginx" -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" &
pids+=($!)
"$exporter" --web.listen-address="127.0.0.1:$exporter_port" --collector.disable-defaults --collector.textfile \
    --collector.textfile.directory="$work/textfile" >"$work/node-exporter.log" 2>&1 &
pids+=($!)
wait_for_port "$origin_port"
wait_for_port "$proxy_port"
wait_for_port "$exporter_port"
echo "origin $origin; caching proxy http://127.0.0.1:$proxy_port; node_exporter http://127.0.0.1:$exporter_port/metrics"
echo "$devices devices, each: http_proxy=http://127.0.0.1:$proxy_port prefetch run manifest.json --cache-dir device-N/cache --metrics-file textfile/device-N.prom"

# Every device at once, as timers without RandomizedDelaySec would start them.
round() {
    local n=$1 run_pids=() status=0
    for i in $(seq "$devices"); do
        mkdir -p "$work/device-$i"
        env -u no_proxy -u NO_PROXY -u https_proxy -u HTTPS_PROXY -u all_proxy -u ALL_PROXY \
            http_proxy="http://127.0.0.1:$proxy_port" \
            "$bin/prefetch" run "$work/manifest.json" --cache-dir "$work/device-$i/cache" --json --quiet \
            --max-run-time 120 --metrics-file "$work/textfile/device-$i.prom" >"$work/device-$i/round$n.json" &
        run_pids+=($!)
    done
    for pid in "${run_pids[@]}"; do wait "$pid" || status=$?; done
    [ "$status" -le 1 ] || { echo "fleet: a device's run exited $status" >&2; return 1; }
}

scrape() {
    curl -sf --max-time 10 "http://127.0.0.1:$exporter_port/metrics" >"$work/metrics-round$1.txt"
    local pairs=()
    for i in $(seq "$devices"); do pairs+=("device-$i=$work/device-$i/cache"); done
    $helper scrape "$work/metrics-round$1.txt" "${pairs[@]}"
}

echo
echo "== round 1: every cache empty"
round 1
reports=(); for i in $(seq "$devices"); do reports+=("$work/device-$i/round1.json"); done
$helper verdicts "${reports[@]}"
$helper proxy "$work/proxy-round1.log"
$helper origin "$work/origin-round1.log" "$assets"
scrape 1

echo
echo "== round 2: the manifest changes one asset"
$helper change "$work" "$origin"
sed -i "s#origin-round1.log#origin-round2.log#; s#proxy-round1.log#proxy-round2.log#" "$work/nginx/nginx.conf"
"$nginx" -p "$work/nginx" -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" -s reload
for _ in $(seq 100); do [ -e "$work/origin-round2.log" ] && [ -e "$work/proxy-round2.log" ] && break; sleep 0.1; done
round 2
reports=(); for i in $(seq "$devices"); do reports+=("$work/device-$i/round2.json"); done
$helper verdicts "${reports[@]}"
$helper proxy "$work/proxy-round2.log"
$helper origin "$work/origin-round2.log" 1
scrape 2
echo
echo "The origin served each asset once for the whole fleet; the devices' revalidations were answered by the proxy."
echo "device-1's series in node_exporter's /metrics, as Prometheus scrapes them (excerpt):"
grep -E '^prefetch_(messages|assets|downloaded_bytes_total|connections_total|runs_total|last_success_timestamp_seconds)\{cache_dir="[^"]*/device-1/cache"' \
    "$work/metrics-round2.txt" | grep -vE ' 0(\.0)?$' | sed 's/^/  /'
echo "(make fleet FLEET_DEVICES=N FLEET_ASSETS=M; FLEET_KEEP=1 keeps the logs, reports and metrics files)"
