#!/usr/bin/env python3
"""Validates real outputs of prefetch against the JSON Schemas in docs/schemas/.

    scripts/schema-check.py --bin DIR
    scripts/schema-check.py --validate SCHEMA FILE   one saved output, e.g. report out.json

`make test` runs it after `swift test`. With the fixture server on loopback and
throwaway caches it makes: the demo's report, and its runs under a byte budget,
on a metered link and under a free-space floor; a run and a plan of the manifest
that uses one URL as two kinds (one entry per kind); runs of a manifest with one
message per fault route, so that every outcome and every error kind the routes
can cause appears; `plan`, `ready`, `ls`, `status`, `verify`, `gc` and
`simulate` with --json; and the readiness index (readiness.json) those runs and
gc leave, every file it names there.
Each output must validate, keep its keys in the schema's order, and together
they must use every value of the schemas' enums (outcomes, error kinds,
statuses, reasons, decisions) except those named in NOT_PRODUCED with the reason.
Every manifest under fixtures/ that the tool accepts must validate; every one
under fixtures/manifests/refused/ must be refused by the tool (exit 2) and by
the schema, or be named in BEYOND_THE_SCHEMA with the rule no schema can state.
Last, a report altered by hand (an undocumented key, an unknown status) must be
rejected. Exits 1 naming every failure.

--validate checks one saved output (a JSON document, or JSON Lines for
simulate-decision) against docs/schemas/SCHEMA.schema.json (`ready`: an array of
readiness.schema.json's messages), key order included,
and exits 1 naming each problem.
"""
import argparse
import copy
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

try:
    import jsonschema
except ImportError:
    sys.exit("schema-check: Python's jsonschema is missing: apt-get install python3-jsonschema (make test does)")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMAS = os.path.join(ROOT, "docs", "schemas")

# Enum values the fault routes cannot cause, and why.
NOT_PRODUCED = {
    ("report", "error.kind", "storage"):
        "a cache that cannot be written (disk full, permissions) is not a server fault; "
        "Tests/EndToEndTests covers it",
    ("report", "error.kind", "insecure_redirect"):
        "an https asset redirected to http needs a TLS server, which this check's fixture server is not; "
        "Tests/EndToEndTests/DowngradeAndSecretsTests covers it",
}

# Refused manifests whose rule JSON Schema cannot state.
BEYOND_THE_SCHEMA = {
    "duplicate-key.json": "a key given twice in one object: JSON Schema sees the parsed object, with one of the two",
    "duplicate-id.json": "unique ids across the triggers array: uniqueItems compares whole items, not one key",
    "too-deep.json": "nesting deeper than 128 levels: JSON Schema has no depth limit",
    "invalid-utf8.json": "invalid UTF-8: not JSON text at all, so no schema applies",
    "trailing-comma.json": "a trailing comma: not JSON text at all, so no schema applies",
}

failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message)


def load_schema(name):
    if name == "ready":
        return ready_schema(load_schema("readiness"))
    with open(os.path.join(SCHEMAS, name + ".schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


def ready_schema(readiness):
    """`prefetch ready --json`: an array of the readiness index's message objects."""
    return {"$schema": readiness["$schema"], "$defs": readiness["$defs"],
            "type": "array", "items": {"$ref": "#/$defs/message"}}


def check_index(schemas, cache, what):
    """The readiness index a writer left in `cache`: valid, keys in order, and
    every path it names there."""
    path = os.path.join(cache, "readiness.json")
    try:
        with open(path, encoding="utf-8") as f:
            instance = json.load(f)
    except (OSError, json.JSONDecodeError) as error:
        fail(f"{what}: no readable readiness index: {error}")
        return None
    if not check("readiness", schemas["readiness"], instance, f"{what}: readiness.json"):
        return None
    missing = [a[key] for m in instance["messages"] for a in m["assets"] for key in ("path", "entry")
               if key in a and not os.path.exists(a[key])]
    if missing:
        fail(f"{what}: readiness.json names files that are not there: {missing[:3]}")
        return None
    print(f"ok: {what}: readiness.json, {len(instance['messages'])} messages")
    return instance


def validator(schema):
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def errors(schema, instance):
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}"
            for e in validator(schema).iter_errors(instance)]


def resolve(schema, root):
    while isinstance(schema, dict) and "$ref" in schema and schema["$ref"].startswith("#/"):
        node = root
        for part in schema["$ref"][2:].split("/"):
            node = node[part]
        schema = node
    return schema


def order_problems(instance, schema, root, where="(top)"):
    """Keys of every object must come in the order of its schema's `properties`."""
    schema = resolve(schema, root)
    problems = []
    if not isinstance(schema, dict):
        return problems
    if isinstance(instance, dict):
        branches = [schema] + [resolve(s, root) for s in schema.get("oneOf", []) + schema.get("anyOf", [])]
        for branch in branches:
            properties = branch.get("properties") if isinstance(branch, dict) else None
            if not properties:
                continue
            order = list(properties)
            keys = [k for k in instance if k in properties]
            if keys != sorted(keys, key=order.index):
                problems.append(f"{where}: keys {keys} are not in the documented order {order}")
            for key in keys:
                problems += order_problems(instance[key], properties[key], root, f"{where}/{key}")
    elif isinstance(instance, list) and "items" in schema:
        for index, item in enumerate(instance):
            problems += order_problems(item, schema["items"], root, f"{where}/{index}")
    return problems


def check(name, schema, instance, what):
    found = errors(schema, instance) + order_problems(instance, schema, schema)
    for problem in found:
        fail(f"{what}: {problem}")
    return not found


class Server:
    def __init__(self, bin_dir, root):
        self.process = subprocess.Popen([os.path.join(bin_dir, "fixture-server"), "--root", root, "--port", "0"],
                                        stdout=subprocess.PIPE, text=True)
        self.url = self.process.stdout.readline().strip()
        if not self.url.startswith("http://"):
            sys.exit("schema-check: fixture-server did not start")

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait()


class Tool:
    def __init__(self, bin_dir, prefix=()):
        self.binary = os.path.join(bin_dir, "prefetch")
        # A command the binary runs under, such as faketime and its time.
        self.prefix = list(prefix)

    def run(self, *args, statuses=(0, 1)):
        result = subprocess.run([*self.prefix, self.binary, *args], capture_output=True, text=True)
        if result.returncode not in statuses:
            fail(f"prefetch {' '.join(args)} exited {result.returncode}: {result.stderr.strip()}")
        return result

    def json(self, *args, statuses=(0, 1)):
        result = self.run(*args, statuses=statuses)
        try:
            return json.loads(result.stdout)
        except json.JSONDecodeError as error:
            fail(f"prefetch {' '.join(args)} printed no JSON ({error}): {result.stdout[:200]!r}")
            return None


def fault_manifest(url):
    """One message per fault route: every outcome and error kind the routes cause."""
    def image(id, path, **extra):
        message = {"id": id, "type": "inapp", "trigger_condition": [{"type": "open"}],
                   "data": {"type": "MODAL", "image_url": url + path}}
        message.update(extra)
        return message

    def archive(id, path):
        return {"id": id, "type": "inapp", "data": {"type": "HTML_FULL", "zipped_assets_url": url + path}}

    return {
        "triggers": [
            image("downloaded", "/img/rgb.png?cache_control=max-age=3600"),
            image("revalidated", "/img/gray.png?cache_control=no-cache"),
            image("skipped", "/img/palette.png", prefetch=False),
            image("expired", "/img/rgba.png", end_time=1000),
            image("http-status", "/img/missing.png"),
            image("timeout", "/img/rgb16.png?stall_after=10"),
            image("network", "/img/interlaced.png?truncate=0"),
            image("too-large", "/img/gray-alpha.png?endless=1"),
            image("redirects", "/img/rgb.png?redirect_loop=1"),
            image("unsupported-scheme", "/img/rgb.png?redirect=ftp://127.0.0.1/x.png"),
            image("invalid-image", "/img/corrupt-crc.png"),
            archive("invalid-archive", "/html/not-a-zip.zip"),
            archive("unsafe-archive", "/html/slip.zip"),
            archive("archive-limits", "/html/understated.zip"),
            image("integrity", "/img/photo.jpg"),
            archive("bundle", "/html/bundle.zip?cache_control=no-cache"),
            {"id": "unsupported-type", "type": "inapp", "data": {"type": "CAROUSEL"}},
            {"id": "full-without-image", "type": "inapp", "data": {"type": "FULL"}},
            {"id": "graphic-without-image", "type": "inapp", "data": {"type": "MODAL", "image_style": "GRAPHIC"}},
        ],
        "integrity": {url + "/img/photo.jpg": "sha256-" + "A" * 43 + "="},
    }


def used(reports, simulate_lines):
    seen = {("report", "status", m["status"]) for r in reports for m in r["messages"]}
    seen |= {("report", "reason", m["reason"]) for r in reports for m in r["messages"] if "reason" in m}
    seen |= {("report", "outcome", a["outcome"]) for r in reports for a in r["assets"]}
    seen |= {("report", "kind", a["kind"]) for r in reports for a in r["assets"]}
    seen |= {("report", "error.kind", a["error"]["kind"]) for r in reports for a in r["assets"] if a["error"]}
    seen |= {("simulate", "action", d["action"]) for d in simulate_lines}
    seen |= {("simulate", "reason", d["reason"]) for d in simulate_lines}
    return seen


def enums(report_schema, simulate_schema):
    defs = report_schema["$defs"]
    wanted = {("report", "status", v) for v in defs["message"]["properties"]["status"]["enum"]}
    wanted |= {("report", "reason", v) for v in defs["message"]["properties"]["reason"]["enum"]}
    wanted |= {("report", "outcome", v) for v in defs["asset"]["properties"]["outcome"]["enum"]}
    wanted |= {("report", "kind", v) for v in defs["kind"]["enum"]}
    wanted |= {("report", "error.kind", v)
               for v in defs["asset"]["properties"]["error"]["oneOf"][1]["properties"]["kind"]["enum"]}
    wanted |= {("simulate", "action", v) for v in simulate_schema["properties"]["action"]["enum"]}
    return wanted


def check_manifests(tool, manifest_schema, work):
    events = os.path.join(work, "none.jsonl")
    open(events, "w").close()
    # An empty cache directory: a --cache-dir that does not exist is refused.
    cache = os.path.join(work, "manifest-cache")
    os.makedirs(cache, exist_ok=True)
    accepted = sorted(glob.glob(os.path.join(ROOT, "fixtures", "manifests", "*.json")))
    accepted.append(os.path.join(ROOT, "fixtures", "simulate", "manifest.json"))
    for path in accepted:
        name = os.path.relpath(path, ROOT)
        result = tool.run("simulate", path, "--events", events, "--cache-dir", cache, "--quiet", statuses=(0,))
        with open(path) as f:
            found = errors(manifest_schema, json.load(f))
        for problem in found:
            fail(f"{name} is accepted by prefetch but not by the schema: {problem}")
        print(f"ok: {name}: accepted by prefetch and by manifest.schema.json")
    for path in sorted(glob.glob(os.path.join(ROOT, "fixtures", "manifests", "refused", "*.json"))):
        name = os.path.relpath(path, ROOT)
        base = os.path.basename(path)
        result = subprocess.run([tool.binary, "simulate", path, "--events", events, "--cache-dir", cache],
                                capture_output=True, text=True)
        if result.returncode != 2:
            fail(f"{name}: prefetch accepted it (exit {result.returncode}); a refused manifest must exit 2")
            continue
        why = result.stderr.strip().splitlines()[-1] if result.stderr.strip() else ""
        why = why.split("invalid manifest: ")[-1].split("; correct it there")[0][:160]
        try:
            with open(path, "rb") as f:
                instance = json.loads(f.read().decode("utf-8"))
            schema_refuses = bool(errors(manifest_schema, instance))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            schema_refuses = False
        if base in BEYOND_THE_SCHEMA:
            if schema_refuses:
                fail(f"{name}: the schema refuses it after all; take it off BEYOND_THE_SCHEMA")
            print(f"ok: {name}: refused by prefetch ({why}); beyond a schema: {BEYOND_THE_SCHEMA[base]}")
        elif schema_refuses:
            print(f"ok: {name}: refused by prefetch ({why}) and by the schema")
        else:
            fail(f"{name}: refused by prefetch ({why}) but valid for the schema")


def validate_file(name, path):
    schema = load_schema(name)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    documents = [json.loads(line) for line in text.splitlines() if line.strip()] \
        if name == "simulate-decision" else [json.loads(text)]
    for number, instance in enumerate(documents, 1):
        check(name, schema, instance, path if len(documents) == 1 else f"{path}:{number}")
    print(f"schema-check: {path}: {len(documents)} document(s) against {name}.schema.json, {len(failures)} problems")
    return 1 if failures else 0


def signed_report(bin_dir, url, work, report):
    """manifest_expired: a signed manifest accepted while true, then run again
    two hours after its expires (under faketime), still the newest there is."""
    key = os.path.join(work, "publisher")
    subprocess.run(["signify-openbsd", "-G", "-n", "-c", "schema-check", "-p", key + ".pub", "-s", key + ".sec"], check=True)
    expires = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3600))
    manifest = {"version": 1, "expires": expires, "audience": "schema-check", "triggers": [
        {"id": "signed", "type": "inapp", "data": {"type": "MODAL", "image_url": url + "/img/rgb.png"}}]}
    path = os.path.join(work, "signed.json")
    with open(path, "w") as f:
        json.dump(manifest, f)
    subprocess.run(["signify-openbsd", "-S", "-s", key + ".sec", "-m", path], check=True)
    arguments = ["run", path, "--trusted-key", key + ".pub", "--audience", "schema-check", "--cache-dir", os.path.join(work, "signed-cache")]
    report("signed run", *arguments)
    later = Tool(bin_dir, prefix=["faketime", "@%d" % (time.time() + 3 * 3600)])
    instance = later.json(*arguments, "--json")
    if instance is not None and check("report", load_schema("report"), instance, "signed run, after expires"):
        print(f"ok: signed run, after expires: {instance['totals']}")
        return instance
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", help="directory of the built prefetch and fixture-server")
    parser.add_argument("--validate", nargs=2, metavar=("SCHEMA", "FILE"),
                        help="check one saved output against docs/schemas/SCHEMA.schema.json")
    args = parser.parse_args()
    if args.validate:
        return validate_file(*args.validate)
    if not args.bin:
        parser.error("--bin DIR is required")
    bin_dir = os.path.abspath(args.bin)
    # Outputs of these commands alone, whatever /etc/prefetch/prefetch.conf this machine has.
    os.environ["PREFETCH_CONFIG"] = "/dev/null"
    schemas = {name: load_schema(name) for name in
               [os.path.basename(p)[:-len(".schema.json")] for p in glob.glob(os.path.join(SCHEMAS, "*.schema.json"))]}
    schemas["ready"] = ready_schema(schemas["readiness"])
    print(f"schemas: {', '.join(sorted(schemas))} are valid draft 2020-12 schemas")
    tool = Tool(bin_dir)
    work = tempfile.mkdtemp(prefix="schema-check.")
    server = Server(bin_dir, os.path.join(ROOT, "fixtures", "assets"))
    reports, lines = [], []
    try:
        def report(what, *args, statuses=(0, 1)):
            instance = tool.json(*args, "--json", statuses=statuses)
            if instance is not None and check("report", schemas["report"], instance, what):
                print(f"ok: {what}: {instance['totals']}")
                reports.append(instance)
            return instance

        with open(os.path.join(ROOT, "fixtures", "manifests", "demo.json")) as f:
            demo = f.read().replace("http://fixtures.test", server.url)
        demo_path = os.path.join(work, "demo.json")
        with open(demo_path, "w") as f:
            f.write(demo)
        demo_cache = os.path.join(work, "demo-cache")
        report("demo run", "run", demo_path, "--cache-dir", demo_cache)
        report("demo plan", "plan", demo_path, "--cache-dir", demo_cache)
        check_index(schemas, demo_cache, "demo run")
        # The download limits: a budget of one byte, and a metered link on which
        # nothing over a byte is fetched but session-start messages' assets,
        # defer what they can (byte_budget, metered), in the report and the
        # index; so does a free-space floor of the whole file system (storage_low).
        for what, flags in [("byte budget", ["--max-download-bytes", "1"]),
                            ("metered", ["--metered", "yes", "--metered-max-asset-bytes", "1"]),
                            ("free space", ["--min-free", "100%"])]:
            limited_cache = os.path.join(work, what.replace(" ", "-") + "-cache")
            report(f"demo run, {what}", "run", demo_path, *flags, "--cache-dir", limited_cache)
            check_index(schemas, limited_cache, f"demo run, {what}")
        ready = tool.json("ready", "--cache-dir", demo_cache, "--json", statuses=(0,))
        if ready is not None and check("ready", schemas["ready"], ready, "ready --json"):
            print(f"ok: ready --json, {len(ready)} messages")

        # One URL used as two kinds: two entries for it, one per kind.
        with open(os.path.join(ROOT, "fixtures", "manifests", "two-kinds.json")) as f:
            two_kinds = f.read().replace("http://fixtures.test", server.url)
        two_kinds_path = os.path.join(work, "two-kinds.json")
        with open(two_kinds_path, "w") as f:
            f.write(two_kinds)
        two_kinds_cache = os.path.join(work, "two-kinds-cache")
        for what, command in [("two kinds run", "run"), ("two kinds plan", "plan")]:
            instance = report(what, command, two_kinds_path, "--cache-dir", two_kinds_cache)
            kinds = instance and [a["kind"] for a in instance["assets"]]
            if instance is not None and kinds != ["image", "archive"]:
                fail(f"{what}: the URL used as two kinds has the entries {kinds}, not one per kind")

        faults_path = os.path.join(work, "faults.json")
        with open(faults_path, "w") as f:
            json.dump(fault_manifest(server.url), f)
        cache = os.path.join(work, "faults-cache")
        limits = ["--retries", "0", "--stall-timeout", "1", "--max-asset-size", "256K", "--cache-dir", cache]
        report("faults run, cold", "run", faults_path, *limits)
        report("faults run, warm", "run", faults_path, *limits)
        report("faults run, offline", "run", faults_path, "--offline", *limits)
        report("faults plan", "plan", faults_path, "--cache-dir", cache)
        report("faults plan, pins required", "plan", faults_path, "--require-integrity", "--cache-dir", cache)
        check_index(schemas, cache, "faults run, offline")
        expired = signed_report(bin_dir, server.url, work, report)
        if expired is not None:
            reports.append(expired)

        # An empty directory, as before a first run: a missing one is refused.
        os.makedirs(os.path.join(work, "none"), exist_ok=True)
        status_none = tool.json("status", "--cache-dir", os.path.join(work, "none"), "--json", statuses=(0,))
        if status_none is not None and check("status", schemas["status"], status_none, "status --json, no cache"):
            print("ok: status --json, no cache yet")
        for name in ["status", "verify", "gc", "ls"]:
            result = tool.run(name, "--cache-dir", cache, "--json", statuses=(0,))
            try:
                instance = json.loads(result.stdout)
            except json.JSONDecodeError:
                instance = None
            if name not in schemas:
                # Until a subcommand prints JSON there is nothing to describe;
                # once it does, an undocumented output fails here.
                if instance is None:
                    print(f"ok: {name} --json prints no JSON yet, and has no schema")
                else:
                    fail(f"{name} --json prints JSON, but docs/schemas/{name}.schema.json does not exist")
                continue
            if instance is None:
                fail(f"{name} --json printed no JSON: {result.stdout[:200]!r}")
            elif check(name, schemas[name], instance, f"{name} --json"):
                print(f"ok: {name} --json")

        check_index(schemas, cache, "after gc")

        simulate_manifest = os.path.join(work, "simulate.json")
        with open(os.path.join(ROOT, "fixtures", "simulate", "manifest.json")) as f:
            text = f.read().replace("http://fixtures.test", server.url)
        with open(simulate_manifest, "w") as f:
            f.write(text)
        simulate_cache = os.path.join(work, "simulate-cache")
        tool.run("run", simulate_manifest, "--cache-dir", simulate_cache, "--quiet")
        result = tool.run("simulate", simulate_manifest, "--events", os.path.join(ROOT, "fixtures", "simulate", "events.jsonl"),
                          "--start-time", "1767225600", "--cache-dir", simulate_cache, "--json", statuses=(0,))
        for number, text in enumerate(result.stdout.splitlines(), 1):
            line = json.loads(text)
            if check("simulate-decision", schemas["simulate-decision"], line, f"simulate --json line {number}"):
                lines.append(line)
        print(f"ok: simulate --json: {len(lines)} lines")

        # The stale outcome: revalidation fails while the server is away.
        server.stop()
        report("faults run, server gone", "run", faults_path, "--connect-timeout", "1", *limits)
    finally:
        if server.process.poll() is None:
            server.stop()

    seen = used(reports, lines)
    for key in sorted(enums(schemas["report"], schemas["simulate-decision"]) - seen):
        if key in NOT_PRODUCED:
            print(f"ok: {key[0]} {key[1]} '{key[2]}' never appears here: {NOT_PRODUCED[key]}")
        else:
            fail(f"{key[0]} {key[1]} '{key[2]}' is in the schema but no run produced it")

    check_manifests(tool, schemas["manifest"], work)

    # The schema must reject what the tool does not print.
    if reports:
        altered = copy.deepcopy(reports[0])
        altered["totals"]["stored_bytes"] = 1
        rejected_key = errors(schemas["report"], altered)
        if not rejected_key:
            fail("a report with an undocumented key in totals validates")
        altered = copy.deepcopy(reports[0])
        altered["messages"][0]["status"] = "postponed"
        rejected_status = errors(schemas["report"], altered)
        if not rejected_status:
            fail("a report with an unknown status validates")
        if rejected_key and rejected_status:
            print(f"ok: altered reports are rejected: {rejected_key[0]}; {rejected_status[0]}")

    shutil.rmtree(work, ignore_errors=True)
    print(f"schema-check: {len(reports)} reports, {len(lines)} simulate lines, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
