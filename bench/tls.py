"""T of `make bench`: the same cold session over HTTPS/1.1 and over HTTPS/2.

nginx (the benchmark's own, bench/run.py) gets two more server blocks over the
corpus: TLS with HTTP/1.1 only, and TLS with `http2`. Their certificate comes
from a private CA that openssl makes at bench time; prefetch trusts it with
--cacert, as a device behind a private CDN would. Each run is a cold
`prefetch run` of the whole session; its JSON report gives
`totals.connections` (CURLINFO_NUM_CONNECTS summed over the requests).
"""

import os
import shutil
import subprocess


class PrivateCA:
    """A CA certificate and a server certificate it issued for 127.0.0.1 (P-256)."""

    def __init__(self, work):
        self.dir = os.path.join(work, "tls")
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.ca = os.path.join(self.dir, "ca.pem")
        self.cert = os.path.join(self.dir, "server.pem")
        self.key = os.path.join(self.dir, "server.key")
        curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        self.openssl(["req", "-x509", *curve, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
                      "-subj", "/CN=AssetCache bench CA",
                      "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        self.openssl(["req", *curve, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"])
        with open(os.path.join(self.dir, "server.ext"), "w") as f:
            f.write("subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n")
        self.openssl(["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                      "-out", "server.pem", "-days", "2", "-extfile", "server.ext"])

    def openssl(self, args):
        done = subprocess.run(["openssl", *args], cwd=self.dir, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"bench: openssl {' '.join(args)} failed: {done.stderr.strip()}")


class TLSServers:
    """The two HTTPS server blocks for bench/run.py's nginx, on ports of their own."""

    def __init__(self, work, free_port):
        self.ca = PrivateCA(work)
        self.ports = {"HTTPS/1.1": free_port(), "HTTPS/2": free_port()}

    def config(self, www):
        blocks = []
        for name, port in self.ports.items():
            listen = f"127.0.0.1:{port} ssl" + (" http2" if name == "HTTPS/2" else "")
            blocks.append(f"""
    server {{
        listen {listen};
        ssl_certificate {self.ca.cert};
        ssl_certificate_key {self.ca.key};
        root {www};
    }}""")
        return "".join(blocks)

    def url(self, name):
        return f"https://127.0.0.1:{self.ports[name]}"


def manifests(servers, session, plain_base, work):
    """The session manifest with its assets under each HTTPS server."""
    with open(session) as f:
        text = f.read()
    paths = {}
    for name in servers.ports:
        paths[name] = os.path.join(work, "manifests", f"session-{name.replace('/', '').lower()}.json")
        with open(paths[name], "w") as f:
            f.write(text.replace(plain_base, servers.url(name)))
    return paths


def run(bench, servers, paths):
    """One cold run per protocol; T1 and T2 are seconds, their notes the connections."""
    for name, manifest in paths.items():
        key = "T1" if name == "HTTPS/1.1" else "T2"
        result, report = bench.prefetch(["run", manifest, "--cacert", servers.ca.ca], bench.scratch.new(key),
                                        expect_ready=len(bench.assets))
        bench.add(key, result.seconds)
        bench.add(key + "_connections", report["totals"]["connections"])


def rows(s, row):
    if "T1" not in s or "T2" not in s:
        return
    ms = lambda x: f"{x * 1000:.0f} ms"
    connections = lambda n: f"{n:.0f} connection{'' if n == 1 else 's'} (median)"
    row("T  cold run over HTTPS/1.1", ms(s["T1"]), note=connections(s["T1_connections"]))
    row("T  cold run over HTTPS/2", ms(s["T2"]), "<= HTTPS/1.1", s["T2"] <= s["T1"], connections(s["T2_connections"]))
    row("T  HTTPS/2 connections, one host", f"{s['T2_connections']:.0f}", "1", s["T2_connections"] == 1)
