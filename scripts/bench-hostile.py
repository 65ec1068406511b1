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

    python3 scripts/bench-hostile.py [--seed N]        (builds what it needs; files in /tmp)
"""
import argparse
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
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


def measure(name, files):
    seconds, rss, status = rusage_run([cli, "validate", *files])
    print(f"{name}: one process over {len(files)} files: {seconds:.2f} s, peak RSS {rss / 1024:.1f} MB, exit {status}")
    total, peak, slowest, statuses = 0.0, 0, (0.0, ""), {}
    for f in files:
        seconds, rss, status = rusage_run([cli, "validate", f])
        total += seconds
        peak = max(peak, rss)
        slowest = max(slowest, (seconds, os.path.basename(f)))
        statuses[status] = statuses.get(status, 0) + 1
    print(f"{name}: one process per file: {total:.2f} s in all, largest peak RSS {peak / 1024:.1f} MB, "
          f"slowest {slowest[0]:.2f} s ({slowest[1]}), exit statuses {dict(sorted(statuses.items()))}")
    return statuses


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=18)
    seed = parser.parse_args().seed
    run(["cargo", "build", "--release", "--quiet", "-p", "gguf-cli"])
    tmp = tempfile.mkdtemp(prefix="bench-hostile-")
    try:
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
        for name, files in [("hostile", hostile), ("real", real)]:
            size = sum(os.path.getsize(f) for f in files)
            print(f"{name}: {len(files)} files, {size / 1e6:.1f} MB")
            statuses = measure(name, files)
            if set(statuses) - {0, 1, 2}:
                print(f"{name}: an exit status other than 0, 1 or 2: {statuses}", file=sys.stderr)
                return 1
    finally:
        shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
