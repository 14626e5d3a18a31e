"""bench/run.py's tools: timing a child (wall, CPU, peak RSS), the benchmark's
nginx, fixture-server's --limit-rate sample, and the manifests and download
lists every run reads."""

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(TOP, "bench")


def log(text):
    print(text, file=sys.stderr, flush=True)


class Result:
    def __init__(self, seconds, rss_kib, status, stdout, cpu_seconds=0.0):
        self.seconds = seconds
        self.rss_kib = rss_kib
        self.status = status
        self.stdout = stdout
        self.cpu_seconds = cpu_seconds


def measure(argv, stdout_file=None, env=None):
    """Wall time and peak RSS of one child, from wait4. Every measured run starts
    after a sync(1), so that none pays for the writeback (or the discards of
    deleted files) left over by the run before it."""
    os.sync()
    out = open(stdout_file, "wb") if stdout_file else subprocess.PIPE
    started = time.perf_counter()
    child = subprocess.Popen(argv, stdout=out, stderr=subprocess.PIPE, env=env)
    captured = b""
    if stdout_file is None:
        captured = child.stdout.read()
    err = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if stdout_file:
        out.close()
    if err.strip():
        log(err.decode(errors="replace").strip()[:2000])
    return Result(seconds, usage.ru_maxrss, child.returncode, captured, usage.ru_utime + usage.ru_stime)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- nginx --------------------------------------------------------------------


class Nginx:
    """nginx in the foreground on two loopback ports over the corpus: the first as
    nginx serves files by default (ETag, Last-Modified), the second adding
    `Cache-Control: no-cache`, and `Repr-Digest` for the paths `set_digests`
    names (docs/publishing.md's map; none until then)."""

    def __init__(self, work, www, extra_servers="", extra_ports=()):
        self.prefix = os.path.join(work, "nginx")
        shutil.rmtree(self.prefix, ignore_errors=True)
        os.makedirs(os.path.join(self.prefix, "logs"))
        self.digests = os.path.join(self.prefix, "digests.map")
        self.digest_paths = set()
        open(self.digests, "w").close()
        self.port = free_port()
        self.no_cache_port = free_port()
        temp = os.path.join(self.prefix, "temp")
        conf = f"""
daemon off;
master_process on;
worker_processes 2;
{"user root;" if os.geteuid() == 0 else ""}
pid {self.prefix}/nginx.pid;
error_log {self.prefix}/logs/error.log warn;
events {{ worker_connections 512; }}
http {{
    access_log off;
    types {{ image/png png; image/jpeg jpg; image/gif gif; image/webp webp; application/zip zip; application/json json; }}
    default_type application/octet-stream;
    map $uri $repr_digest {{ default ""; include {self.digests}; }}
    sendfile on;
    tcp_nopush on;
    keepalive_requests 100000;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
    server {{
        listen 127.0.0.1:{self.port};
        root {www};
    }}
    server {{
        listen 127.0.0.1:{self.no_cache_port};
        root {www};
        add_header Cache-Control no-cache;
        add_header Repr-Digest $repr_digest;
    }}{extra_servers}
}}
"""
        os.makedirs(temp)
        self.conf = os.path.join(self.prefix, "nginx.conf")
        with open(self.conf, "w") as f:
            f.write(conf)
        binary = shutil.which("nginx") or "/usr/sbin/nginx"  # /usr/sbin is not on every user's PATH
        self.process = subprocess.Popen(
            [binary, "-p", self.prefix, "-c", self.conf, "-e", os.path.join(self.prefix, "logs/error.log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 10
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise SystemExit("bench: nginx exited: " + self.process.stderr.read().decode(errors="replace"))
            try:
                for port in (self.port, self.no_cache_port, *extra_ports):
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise SystemExit("bench: nginx did not start listening")

    def set_digests(self, digests):
        """`Repr-Digest` values by URI path on the no-cache port, as a publisher's
        script keeps them (docs/publishing.md): the map rewritten, nginx
        reloaded (SIGHUP), and its answers watched until they carry them."""
        with open(self.digests, "w") as f:
            for path, value in digests.items():
                f.write(f'{path} "{value}";\n')
        self.process.send_signal(signal.SIGHUP)
        paths, self.digest_paths = self.digest_paths | set(digests), set(digests)
        deadline = time.time() + 10
        while time.time() < deadline:
            if all(self.head(path).getheader("Repr-Digest") == digests.get(path) for path in paths):
                return
            time.sleep(0.05)
        raise SystemExit("bench: nginx did not take the new Repr-Digest map")

    def head(self, path):
        connection = http.client.HTTPConnection("127.0.0.1", self.no_cache_port, timeout=5)
        try:
            connection.request("HEAD", path)
            response = connection.getresponse()
            response.read()
            return response
        finally:
            connection.close()

    def url(self, no_cache=False):
        return f"http://127.0.0.1:{self.no_cache_port if no_cache else self.port}"

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


# --- H: --limit-rate -----------------------------------------------------------

LIMIT_RATE = 200 * 1024


def limit_rate_sample(bin_dir, work, files=8, size=256 * 1024):
    """One cold run of `prefetch --limit-rate 200K` over `files` assets of `size`
    bytes from fixture-server (its --log gives each request's start and end).
    Returns (bytes per second as the server saw them, a note)."""
    root = os.path.join(work, "limit-rate")
    www, cache, server_log = os.path.join(root, "www"), os.path.join(root, "cache"), os.path.join(root, "requests.jsonl")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(www)
    for i in range(files):
        with open(os.path.join(www, f"asset{i}.bin"), "wb") as f:
            f.write(bytes((i * 31 + j * 7) % 251 for j in range(size)))
    # The smallest send buffer (Linux raises 1 to its floor of about 4.5 KiB): a
    # response then ends in the log when the client has all but read it.
    server = subprocess.Popen([os.path.join(bin_dir, "fixture-server"), "--root", www, "--log", server_log, "--send-buffer", "1"],
                              stdout=subprocess.PIPE, text=True)
    try:
        base = server.stdout.readline().strip()
        manifest = write_json(os.path.join(root, "m.json"), {"triggers": [
            {"id": f"h{i}", "type": "inapp", "trigger_condition": [{"type": "open"}],
             "data": {"type": "HTML", "asset_urls": [f"{base}/asset{i}.bin"]}} for i in range(files)]})
        run = measure([os.path.join(bin_dir, "prefetch"), "run", manifest, "--limit-rate", "200K", "--cache-dir", cache, "--json"])
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(10)
    if run.status != 0:
        raise SystemExit(f"bench: prefetch --limit-rate exited {run.status}")
    with open(server_log) as f:
        requests = [json.loads(line) for line in f]
    total = sum(r["body_bytes"] for r in requests)
    if total != files * size:
        raise SystemExit(f"bench: --limit-rate run moved {total} bytes, expected {files * size}")
    seconds = max(r["ended"] for r in requests) - min(r["started"] for r in requests)
    return total / seconds, f"{total / 1048576:.0f} MiB in {seconds:.2f} s by the server's log; prefetch's wall time {run.seconds:.2f} s"


# --- manifests ----------------------------------------------------------------


def message(id, asset, base, urgent=False, index=0):
    url = f"{base}/{asset['path']}"
    if asset["kind"] == "archive":
        data = {"type": "HTML_FULL", "message": f"bundle {id}", "zipped_assets_url": url}
    else:
        data = {"type": ["MODAL", "FULL", "SLIDEUP"][index % 3], "message": f"image {id}", "image_url": url}
    condition = [{"type": "open"}] if urgent else [{"type": "custom_event", "data": {"event_name": f"event-{index % 20}"}}]
    return {
        "id": id, "type": "inapp", "priority": index % 5, "start_time": -1, "end_time": -1,
        "min_seconds_since_last_trigger": -1, "trigger_condition": condition, "data": data,
    }


def write_json(path, value):
    with open(path, "w") as f:
        json.dump(value, f, separators=(",", ":"))
    return path


def write_inputs(work, assets, nginx):
    """Manifests for every run, and the baseline's download lists."""
    m = os.path.join(work, "manifests")
    os.makedirs(m, exist_ok=True)
    last = len(assets) - 1

    def session(base):
        return {"triggers": [message(f"m{i:03d}", a, base, urgent=(i == last), index=i) for i, a in enumerate(assets)]}

    def plan(count):
        return {"triggers": [message(f"p{j:05d}", assets[j % len(assets)], nginx.url(), index=j) for j in range(count)]}

    paths = {
        "session": write_json(f"{m}/session.json", session(nginx.url())),
        "session-no-cache": write_json(f"{m}/session-no-cache.json", session(nginx.url(no_cache=True))),
        "single": write_json(f"{m}/single.json", {"triggers": [message(opener_id(assets), assets[last], nginx.url(), urgent=True, index=last)]}),
        "plan-1000": write_json(f"{m}/plan-1000.json", plan(1000)),
        "plan-10000": write_json(f"{m}/plan-10000.json", plan(10000)),
        "big": write_json(f"{m}/big.json", {"triggers": [message("big", {"path": "big/big.zip", "kind": "archive"}, nginx.url())]}),
    }
    lists = os.path.join(work, "lists")
    os.makedirs(lists, exist_ok=True)
    with open(f"{lists}/curl.cfg", "w") as f:
        for a in assets:
            f.write(f'url = "{nginx.url()}/{a["path"]}"\noutput = "{a["path"]}"\n')
    with open(f"{lists}/aria2.txt", "w") as f:
        for a in assets:
            f.write(f'{nginx.url()}/{a["path"]}\n  out={a["path"]}\n')
    # One list per image format, for the checker of that format.
    for name, suffix in (("pngs", ".png"), ("jpegs", ".jpg"), ("gifs", ".gif"), ("webps", ".webp")):
        with open(f"{lists}/{name}.txt", "w") as f:
            f.writelines(a["path"] + "\n" for a in assets if a["path"].endswith(suffix))
    with open(f"{lists}/zips.txt", "w") as f:
        f.writelines(a["path"] + "\n" for a in assets if a["kind"] == "archive")
    return paths, lists


def opener_id(assets):
    """The session-start message: the last one."""
    return f"m{len(assets) - 1:03d}"
