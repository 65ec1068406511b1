#!/usr/bin/env python3
"""Time and peak memory of `ggufscope validate` over 1,000 hostile files and 1,000 real headers.

A benchmark, not a test (issue 18). The hostile files are mutants of the builder's hostile
headers (`testkit::hostile_headers`, written by `write-fixtures` into `hostile-headers/`) and of the
small synthetic fixtures: random bit flips, bytes set to 0xFF, a u64 overwritten with a huge
count, a slice repeated, the file cut short; seeded, so every run checks the same files. The real
headers are the fixtures' files (the vocabulary files of real models, the synthetic models),
linked 1,000 times under names that are no shard's. Both sets are checked two ways:

  * one process over the 1,000 files (`validate F1 … F1000`): wall time, peak RSS;
  * one process per file: total wall time, the largest peak RSS, the slowest file, and the
    exit statuses (each must be 0, 1 or 2).

Then the hostile folders, files and servers of the paths added last (issue 33): upstream folders
with links out, a FIFO and an oversized file; `diff --values` over a 70,000-byte name; `diff`
of two 1,000,000-tensor headers; `edit` with `--set-file /dev/zero`, a value over the header
budget, a FIFO as OUT, a split key, and servers on 127.0.0.1 that claim 2^62 bytes or change
their ETag: each run once, its exit status, time, peak RSS and output. And the page's (in
headless Chromium, scripts/bench-hostile-page.mjs): URLs whose servers lie (206 bodies that never
end, one cut short, no answer), Compare with a 300,000-tensor file, a 16 MiB upstream template:
what the page ended with, the time, the longest main-thread task, the browser's growth.

    python3 scripts/bench-hostile.py [--seed N] [--paths] [--write-docs]
        (builds what it needs; files in /tmp; --paths: only the issue-33 cases; --write-docs:
        the tables into docs/hardening.md)
"""
import argparse
import datetime
import http.server
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
fixtures = os.environ.get("GGUF_FIXTURES", os.path.join(root, "..", "shared", "fixtures"))
cli = os.path.join(root, "target", "release", "ggufscope")
COUNT = 1000
# Mutants are made from files up to this size, so that 1,000 of them stay small on disk.
MAX_BASE = 2 << 20


def run(cmd):
    subprocess.run(cmd, cwd=root, check=True, stdout=subprocess.DEVNULL)


def mutate(data, rng):
    """One to four mutations of `data`, each of a kind a hostile or damaged file shows."""
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(5)
        if not data:
            break
        at = rng.randrange(len(data))
        if kind == 0:  # a bit flipped
            data[at] ^= 1 << rng.randrange(8)
        elif kind == 1:  # a byte set to 0xFF
            data[at] = 0xFF
        elif kind == 2 and at + 8 <= len(data):  # a count or length made huge
            data[at:at + 8] = struct.pack("<Q", rng.choice([2**63, 2**64 - 1, 2**32, 2**24, 2**30]))
        elif kind == 3:  # a slice repeated
            end = min(len(data), at + rng.randint(1, 4096))
            data[at:at] = data[at:end] * rng.randint(1, 16)
        else:  # cut short
            del data[at:]
    return bytes(data)


def rusage_run(args):
    """Runs `args`; returns (wall seconds, peak RSS in KiB, exit status)."""
    start = time.monotonic()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    return time.monotonic() - start, usage.ru_maxrss, os.waitstatus_to_exitcode(status)


def measure(name, files, rows):
    seconds, rss, status = rusage_run([cli, "validate", *files])
    print(f"{name}: one process over {len(files)} files: {seconds:.2f} s, peak RSS {rss / 1024:.1f} MB, exit {status}")
    once = f"{seconds:.2f} s, {rss / 1024:.1f} MB peak RSS"
    total, peak, slowest, statuses = 0.0, 0, (0.0, ""), {}
    for f in files:
        seconds, rss, status = rusage_run([cli, "validate", f])
        total += seconds
        peak = max(peak, rss)
        slowest = max(slowest, (seconds, os.path.basename(f)))
        statuses[status] = statuses.get(status, 0) + 1
    print(f"{name}: one process per file: {total:.2f} s in all, largest peak RSS {peak / 1024:.1f} MB, "
          f"slowest {slowest[0]:.2f} s ({slowest[1]}), exit statuses {dict(sorted(statuses.items()))}")
    exits = ", ".join(f"{s} ×{n}" for s, n in sorted(statuses.items()))
    size = sum(os.path.getsize(f) for f in files)
    rows.append(f"| {name} ({size / 1e6:,.1f} MB) | {once} | {total:.1f} s in all, at most {peak / 1024:.1f} MB, "
                f"slowest {slowest[0]:.2f} s; exit {exits} |")
    return statuses


def gguf(kvs, tensors, data=True):
    """A little-endian GGUF v3 file: string or u32 values, F32 tensors of `n` values each."""
    def s(b):
        return struct.pack("<Q", len(b)) + b
    out = bytearray(b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs)))
    for key, value in kvs:
        if isinstance(value, int):
            out += s(key.encode()) + struct.pack("<II", 4, value)
        else:
            out += s(key.encode()) + struct.pack("<I", 8) + s(value.encode())
    offset = 0
    for name, n in tensors:
        out += s(name) + struct.pack("<IQIQ", 1, n, 0, offset)
        offset += (4 * n + 31) // 32 * 32
    out += b"\0" * (-len(out) % 32)
    if data:
        out += b"\0" * offset
    return bytes(out)


def many_tensors(n, suffix):
    """A header of `n` one-value tensors, every other name ending in `suffix`."""
    names = [f"blk.{i % 100}.t{i}{suffix if i % 2 else ''}".encode() for i in range(n)]
    return gguf([("general.architecture", "llama")], [(name, 1) for name in names])


def lying_server(data, size, etag):
    """A Range server on 127.0.0.1 answering request n with total size(n) and ETag etag(n)."""
    count = [0]

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            n = count[0]
            count[0] += 1
            first, last = 0, len(data) - 1
            r = self.headers.get("Range", "")
            if r.startswith("bytes="):
                a, b = r[6:].split("-")
                first, last = int(a), min(int(b or last), len(data) - 1)
            body = data[first:last + 1]
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {first}-{last}/{size(n)}")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("ETag", etag(n))
            self.end_headers()
            try:
                self.wfile.write(body)
            except BrokenPipeError:  # the client stopped reading, as it should on a change
                pass

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/model.gguf"


def measured_run(args, tmp):
    """Runs `args`: (wall seconds, peak RSS in KiB, exit status, bytes of output). The peak is
    GNU time's: a child forked from this process (which holds the big test headers) would start
    with this process's peak."""
    rss_file = os.path.join(tmp, "rss")
    start = time.monotonic()
    proc = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss_file, *args],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    size = 0
    while chunk := proc.stdout.read(1 << 20):
        size += len(chunk)
    status = proc.wait()
    with open(rss_file) as f:
        rss = int(f.read().split()[-1])
    return time.monotonic() - start, rss, status, size


def paths_cases(tmp):
    """The issue-33 cases: (what, arguments, exit status expected)."""
    model = os.path.join(tmp, "model.gguf")
    with open(model, "wb") as f:
        f.write(gguf([("general.architecture", "llama"), ("general.name", "m")], [(b"a", 100_000), (b"b", 200_000)]))
    secret = os.path.join(tmp, "secret.txt")
    with open(secret, "w") as f:
        f.write("TOKEN=secret\n")

    def folder(name, make):
        d = os.path.join(tmp, name)
        os.mkdir(d)
        with open(os.path.join(d, "config.json"), "w") as f:
            f.write('{"max_position_embeddings": 4096}')
        make(d)
        return d

    def relink(d, name, target):
        path = os.path.join(d, name)
        if os.path.exists(path):
            os.remove(path)
        os.symlink(target, path)

    def huge(d):
        with open(os.path.join(d, "generation_config.json"), "wb") as f:
            f.truncate((16 << 20) + 1)

    up = [
        ("chat_template.jinja linked out of the folder", folder("up-link", lambda d: relink(d, "chat_template.jinja", secret))),
        ("config.json linked to /dev/zero", folder("up-zero", lambda d: relink(d, "config.json", "/dev/zero"))),
        ("tokenizer_config.json a FIFO", folder("up-fifo", lambda d: os.mkfifo(os.path.join(d, "tokenizer_config.json")))),
        ("generation_config.json of 16 MiB + 1 (sparse)", folder("up-huge", huge)),
    ]
    cases = [(f"upstream: {what}", ["upstream", model, d], 2) for what, d in up]

    name = os.path.join(tmp, "huge-name.gguf")
    with open(name, "wb") as f:
        f.write(gguf([("general.architecture", "llama")], [(b"N" * 70_000, 1)] + [(f"t{i}".encode(), 1) for i in range(1, 20_000)]))
    cases.append(("diff --values: a 70,000-byte name among 20,000 tensors", ["diff", "--values", name, name], 0))
    a, b = os.path.join(tmp, "a-1e6.gguf"), os.path.join(tmp, "b-1e6.gguf")
    for path, suffix in [(a, ""), (b, "x")]:
        with open(path, "wb") as f:
            f.write(many_tensors(1_000_000, suffix))
    cases.append(("info: a 1,000,000-tensor header (the peer)", ["info", a], 0))
    cases.append(("diff: two 1,000,000-tensor headers, half the names differing", ["diff", a, b], 1))
    cases.append(("diff --json: the same", ["diff", "--json", a, b], 1))

    out = os.path.join(tmp, "out.gguf")
    big = os.path.join(tmp, "big.jinja")
    with open(big, "wb") as f:
        f.truncate(320 << 20)
    fifo = os.path.join(tmp, "out.fifo")
    os.mkfifo(fifo)
    shard = os.path.join(tmp, "shard-00001-of-00002.gguf")
    with open(shard, "wb") as f:
        f.write(gguf([("general.architecture", "llama"), ("split.count", 2)], [(b"t", 8)]))
    cases += [
        ("edit --set-file /dev/zero", ["edit", model, "-o", out, "--set-file", "tokenizer.chat_template=/dev/zero"], 2),
        ("edit --set-file of 320 MiB, --max-header-bytes 256 MiB",
         ["--max-header-bytes", str(256 << 20), "edit", model, "-o", out, "--set-file", f"tokenizer.chat_template={big}"], 2),
        ("edit --force -o FIFO", ["edit", model, "-o", fifo, "--force"], 2),
        ("edit --set split.count=3 on a shard", ["edit", shard, "-o", out, "--set", "split.count=3"], 2),
    ]
    return cases, model


def measure_paths(tmp, rows):
    """Runs the issue-33 cases; returns False when one exits otherwise than expected."""
    cases, model = paths_cases(tmp)
    with open(model, "rb") as f:
        data = f.read()
    servers = []
    for what, size, etag in [("a server claiming 2^62 bytes", lambda n: 1 << 62, lambda n: '"v1"'),
                             ("a server whose ETag changes", lambda n: len(data), lambda n: '"v1"' if n == 0 else '"v2"')]:
        server, url = lying_server(data, size, etag)
        servers.append(server)
        cases.append((f"edit URL: {what}", ["edit", url, "-o", os.path.join(tmp, "from-url.gguf")], 2))
    ok = True
    for what, args, expected in cases:
        seconds, rss, status, size = measured_run([cli, *args], tmp)
        print(f"{what}: exit {status}, {seconds:.2f} s, peak RSS {rss / 1024:.1f} MB, {size:,} bytes of output")
        ok &= status == expected
        rows.append(f"| {what} | {status} | {seconds:.2f} s | {rss / 1024:.1f} MB | {size:,} B |")
    for server in servers:
        server.shutdown()
    return ok


def measure_page(tmp, rows):
    """The page's issue-33 cases in Chromium (scripts/bench-hostile-page.mjs): lying servers,
    Compare with a hostile file, a 16 MiB upstream template. Builds dist/ when it is missing."""
    if not os.path.exists(os.path.join(root, "dist", "index.html")):
        run(["scripts/build-web.sh"])
    run(["cargo", "run", "--release", "--quiet", "-p", "gguf-test-support", "--bin", "write-fixtures",
         "--", tmp, "heavy-headers"])
    out = subprocess.run(["node", "scripts/bench-hostile-page.mjs", os.path.join(tmp, "heavy-headers")],
                         cwd=root, check=True, stdout=subprocess.PIPE, text=True).stdout
    for line in out.splitlines():
        r = json.loads(line)
        print(f"page: {r['case']}: {r['outcome']}, {r['seconds']:.2f} s, longest main-thread task "
              f"{r['longestTaskMs']} ms, browser grew {r['browserGrowthMB']} MB, server sent {r['serverSentMiB']} MiB")
        rows.append(f"| {r['case']} | {r['outcome']} | {r['seconds']:.2f} s | {r['longestTaskMs']:,} ms | "
                    f"{r['browserGrowthMB']:,} MB | {r['serverSentMiB']:,} MiB |")


def write_docs(file, block, text):
    """Writes `text` into the generated block `block` of `file` (scripts/docs-blocks.mjs)."""
    subprocess.run(["node", "scripts/docs-blocks.mjs", "write", file, block], cwd=root, input=text.encode(), check=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--paths", action="store_true", help="only the issue-33 cases")
    parser.add_argument("--write-docs", action="store_true", help="also write the tables into docs/hardening.md")
    args = parser.parse_args()
    seed, write = args.seed, args.write_docs
    run(["cargo", "build", "--release", "--quiet", "-p", "gguf-cli"])
    tmp = tempfile.mkdtemp(prefix="bench-hostile-")
    paths_rows = []
    try:
        if not measure_paths(tmp, paths_rows):
            print("an issue-33 case exited otherwise than expected", file=sys.stderr)
            return 1
        if write:
            table = [f"Measured {datetime.date.today()}; one run each, release build.", "",
                     "| case | exit | time | peak RSS | output |", "| --- | --- | --- | --- | --- |", *paths_rows]
            write_docs("docs/hardening.md", "bench:hostile-paths", "\n".join(table) + "\n")
        page_rows = []
        measure_page(tmp, page_rows)
        if write:
            table = [f"Measured {datetime.date.today()}; one run each, headless Chromium, the default watchdog (10 s).", "",
                     "| case | the page ended | time | longest main-thread task | browser grew | server sent |",
                     "| --- | --- | --- | --- | --- | --- |", *page_rows]
            write_docs("docs/hardening.md", "bench:hostile-page", "\n".join(table) + "\n")
        if args.paths:
            return 0
        run(["cargo", "run", "--release", "--quiet", "-p", "gguf-test-support", "--bin", "write-fixtures",
             "--", tmp, "hostile-headers"])
        bases_dir = os.path.join(tmp, "hostile-headers")
        synth = os.path.join(fixtures, "synth")
        bases = [os.path.join(bases_dir, f) for f in sorted(os.listdir(bases_dir))]
        bases += [os.path.join(synth, f) for f in sorted(os.listdir(synth)) if f.endswith(".gguf")]
        bases = [b for b in bases if os.path.getsize(b) <= MAX_BASE]
        rng = random.Random(seed)
        hostile_dir = os.path.join(tmp, "hostile")
        os.mkdir(hostile_dir)
        hostile = []
        for i in range(COUNT):
            base = rng.choice(bases)
            with open(base, "rb") as f:
                data = mutate(f.read(), rng)
            path = os.path.join(hostile_dir, f"mutant-{i:04}.gguf")
            with open(path, "wb") as f:
                f.write(data)
            hostile.append(path)

        real_sources = [os.path.join(fixtures, "real", f) for f in sorted(os.listdir(os.path.join(fixtures, "real")))]
        real_sources += [os.path.join(synth, f) for f in sorted(os.listdir(synth))
                         if f.endswith(".gguf") and not f.startswith("truncated")]
        real_dir = os.path.join(tmp, "real")
        os.mkdir(real_dir)
        real = []
        for i in range(COUNT):
            source = real_sources[i % len(real_sources)]
            # Not a shard's name, so that each file is checked alone.
            path = os.path.join(real_dir, f"{i:04}-" + os.path.basename(source).replace("-of-", "-of_"))
            try:
                os.link(source, path)
            except OSError:
                shutil.copyfile(source, path)
            real.append(path)

        print(f"seed {seed}; {len(bases)} bases for the mutants; {len(real_sources)} real headers, linked")
        rows = []
        for name, files in [("hostile", hostile), ("real", real)]:
            size = sum(os.path.getsize(f) for f in files)
            print(f"{name}: {len(files)} files, {size / 1e6:.1f} MB")
            statuses = measure(name, files, rows)
            if set(statuses) - {0, 1, 2}:
                print(f"{name}: an exit status other than 0, 1 or 2: {statuses}", file=sys.stderr)
                return 1
    finally:
        shutil.rmtree(tmp)
    if write:
        table = [f"Measured {datetime.date.today()}, seed {seed}.", "",
                 "| set | one process over the 1,000 | one process per file |", "| --- | --- | --- |", *rows]
        write_docs("docs/hardening.md", "bench:hostile", "\n".join(table) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
