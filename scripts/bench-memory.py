#!/usr/bin/env python3
"""Peak memory of `ggufscope validate` on hostile headers and on the largest real ones.

A benchmark script, not a test. Every hostile file claims far more than it holds (counts of
2^64-1, strings of 2^63 bytes, a million nesting levels, ...); peak memory must follow the bytes
present, never the claims. Prints file size, peak RSS (max of 3 runs; the process's own baseline
is the first row), the exit status and the first line of output.

    python3 scripts/bench-memory.py        (builds what it needs)
"""
import os
import subprocess
import sys
import tempfile

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
fixtures = os.environ.get("GGUF_FIXTURES", os.path.join(root, "..", "shared", "fixtures"))
cli = os.path.join(root, "target", "release", "ggufscope")


def run(cmd):
    subprocess.run(cmd, cwd=root, check=True, stdout=subprocess.DEVNULL)


def peak_rss(path):
    """Runs the CLI on `path`; returns (max RSS in KiB over 3 runs, exit status, first output line)."""
    best, status, line = 0, None, ""
    for _ in range(3):
        proc = subprocess.Popen([cli, "validate", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = proc.stdout.read().decode(errors="replace")
        _, wait_status, usage = os.wait4(proc.pid, 0)
        best = max(best, usage.ru_maxrss)
        status = os.waitstatus_to_exitcode(wait_status)
        line = out.splitlines()[0] if out else ""
    return best, status, line


def main():
    run(["cargo", "build", "--release", "--quiet", "-p", "gguf-cli"])
    with tempfile.TemporaryDirectory() as tmp:
        run(["cargo", "run", "--release", "--quiet", "-p", "gguf-test-support", "--bin", "write-fixtures",
             "--", tmp, "hostile-headers"])
        hostile = os.path.join(tmp, "hostile-headers")
        files = [os.path.join(fixtures, "synth", "minimal.gguf")]
        files += sorted(os.path.join(hostile, f) for f in os.listdir(hostile))
        files += [os.path.join(fixtures, "real", "ggml-vocab-command-r.gguf"),
                  os.path.join(fixtures, "synth", "vocab-262k.gguf")]
        print(f"{'file':40} {'bytes':>12} {'peak RSS':>10} {'exit':>4}  first line")
        for path in files:
            rss, status, line = peak_rss(path)
            name = os.path.basename(path)
            size = os.path.getsize(path)
            print(f"{name:40} {size:12,} {rss / 1024:8.1f} MB {status:4}  {line[:90]}")


if __name__ == "__main__":
    sys.exit(main())
