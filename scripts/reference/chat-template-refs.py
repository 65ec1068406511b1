#!/usr/bin/env python3
"""Writes crates/gguf-template/tests/reference/apply-template.json: the prompts llama.cpp
0c1e570's `llama-server --jinja` builds (`POST /apply-template`) and, with the generation prompt,
the ids it tokenizes them to (`POST /tokenize` with add_special and parse_special, as the server
tokenizes a prompt), for every
chat template among the shared fixtures — each real file's `tokenizer.chat_template` and its named
templates, the fallback of a file with none — and a few of llama.cpp's own templates
(models/templates: reasoning switches, tools, strftime_now, a template without a system role),
over a set of conversations.

llama-server needs weights, and most real files are vocabularies only, so each vocabulary is put
into a host model: the file's tokenizer.* and general.* keys unchanged, the hyperparameters of a
one-layer llama, and zero weights as a sparse file (written as a header, then `truncate -s`). The
server's prompt depends only on the template, the messages and the vocabulary (bos and eos text,
add_bos_token, add_eos_token). A template other than the file's own is given with
--chat-template-file. The server runs on 127.0.0.1, port 0, TZ=UTC (strftime_now and the
date_string it passes depend on the day: the date is recorded).

    scripts/reference/chat-template-refs.py   # builds llama.cpp first if needed (build-llama-cpp.sh)
"""
import datetime
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
build = os.path.join(root, "scripts/reference/build-llama-cpp.sh")
tree = subprocess.check_output([build, "--fetch-only"], text=True).strip()
bindir = subprocess.check_output([build], text=True).strip()
server = os.path.join(bindir, "llama-server")
fixtures = os.environ.get("GGUF_FIXTURES", os.path.join(root, "../shared/fixtures"))
gemma = os.environ.get("GGUF_GEMMA", os.path.expanduser("~/.cache/gguf-fixtures/gemma-3-270m-q4_k_m.gguf"))
OUT = os.path.join(root, "crates/gguf-template/tests/reference/apply-template.json")

TOOLS = [{
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather now in a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "The city, e.g. Zürich"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city"],
        },
    },
}]

SYSTEM = {"role": "system", "content": "You are a helpful assistant. Answer in one sentence."}
TURNS = [
    {"role": "user", "content": "What is a GGUF file?"},
    {"role": "assistant", "content": "A single file holding a model's weights and metadata."},
    {"role": "user", "content": "  How do I look inside one?\n"},
    {"role": "assistant", "content": "Open it with a viewer: \"quotes\", <tags> & 'apostrophes' stay as written."},
    {"role": "user", "content": "Thanks! Größe? 你好 🦙"},
]

# name -> (messages, tools?)
CONVERSATIONS = {
    "user-1": ([TURNS[0]], None),
    "system-user-2": ([SYSTEM, TURNS[0]], None),
    "user-3": (TURNS[:3], None),
    "system-user-4": ([SYSTEM] + TURNS[:3], None),
    "user-5": (TURNS[:5], None),
    "system-user-6": ([SYSTEM] + TURNS[:5], None),
    "content-parts-2": ([SYSTEM, {"role": "user", "content": [
        {"type": "text", "text": "First part."}, {"type": "text", "text": "Second part."}]}], None),
    "assistant-last-2": (TURNS[:2], None),
    "tools-2": ([SYSTEM, TURNS[0]], TOOLS),
    "tools-1": ([TURNS[0]], TOOLS),
}


def real(name):
    return os.path.join(fixtures, "real", name)


def template_file(name):
    return os.path.join(tree, "models/templates", name)


# (label, model file, template file or None for the file's own, conversations' kwargs variants)
THINKING = [None, {"enable_thinking": True}, {"enable_thinking": False}]
SUBJECTS = [
    ("command-r", real("ggml-vocab-command-r.gguf"), None, [None]),
    ("command-r/tool_use", real("ggml-vocab-command-r.gguf"), "named:tool_use", [None]),
    ("command-r/rag", real("ggml-vocab-command-r.gguf"), "named:rag", [None]),
    ("dbrx", real("ggml-vocab-dbrx.gguf"), None, [None]),
    ("phi-3", real("ggml-vocab-phi-3.gguf"), None, [None]),
    ("qwen2", real("ggml-vocab-qwen2.gguf"), None, [None]),
    # llama.cpp refuses stablelm's vocabulary (pre-tokenizer "stablelm"): its template is rendered
    # with qwen2's, whose bos and eos are the same texts.
    ("stablelm", real("ggml-vocab-stablelm.gguf"), None, [None]),
    ("qwen2 + stablelm's template", real("ggml-vocab-qwen2.gguf"), "from:ggml-vocab-stablelm.gguf", [None]),
    ("llama-spm (no template)", real("ggml-vocab-llama-spm.gguf"), None, [None]),
    ("gemma (no template)", gemma, None, [None]),
    ("gemma + google-gemma-2-2b-it.jinja", gemma, "google-gemma-2-2b-it.jinja", [None]),
    ("qwen2 + Qwen-Qwen3-0.6B.jinja", real("ggml-vocab-qwen2.gguf"), "Qwen-Qwen3-0.6B.jinja", THINKING),
    ("qwen2 + Qwen-Qwen2.5-7B-Instruct.jinja", real("ggml-vocab-qwen2.gguf"), "Qwen-Qwen2.5-7B-Instruct.jinja", [None]),
    ("llama-bpe + meta-llama-Llama-3.2-3B-Instruct.jinja", real("ggml-vocab-llama-bpe.gguf"),
     "meta-llama-Llama-3.2-3B-Instruct.jinja", [None]),
    ("llama-bpe + HuggingFaceTB-SmolLM3-3B.jinja", real("ggml-vocab-llama-bpe.gguf"),
     "HuggingFaceTB-SmolLM3-3B.jinja", THINKING),
]


# --- GGUF reading and the host model -------------------------------------------------------

SCALAR = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
STRING, ARRAY = 8, 9


class Reader:
    def __init__(self, data):
        self.d, self.p = data, 0

    def take(self, fmt):
        v = struct.unpack_from("<" + fmt, self.d, self.p)
        self.p += struct.calcsize("<" + fmt)
        return v[0]

    def string(self):
        n = self.take("Q")
        s = self.d[self.p:self.p + n]
        self.p += n
        return s

    def skip_value(self, t):
        if t in SCALAR:
            self.p += SCALAR[t]
        elif t == STRING:
            self.string()
        elif t == ARRAY:
            inner, n = self.take("I"), self.take("Q")
            if inner in SCALAR:
                self.p += SCALAR[inner] * n
            else:
                for _ in range(n):
                    self.skip_value(inner)
        else:
            raise ValueError(f"value type {t}")


def read_kvs(path):
    """The file's key-value pairs as (key, type, raw value bytes), and its string values."""
    with open(path, "rb") as f:
        data = f.read(64 << 20)
    r = Reader(data)
    r.p = 4
    assert data[:4] == b"GGUF" and r.take("I") == 3, path
    r.take("Q")  # tensors
    kvs, strings = [], {}
    for _ in range(r.take("Q")):
        key = r.string().decode()
        t = r.take("I")
        start = r.p
        r.skip_value(t)
        kvs.append((key, t, data[start:r.p]))
        if t == STRING:
            strings[key] = data[start + 8:r.p].decode("utf-8", "replace")
    return kvs, strings


def host_model(vocab, out):
    """Writes a one-layer llama with `vocab`'s tokenizer and zero weights to `out` (sparse)."""
    kvs, _ = read_kvs(vocab)
    arch = next(bytes(v[8:]).decode() for k, t, v in kvs if k == "general.architecture")
    kept, seen = [], set()
    for k, t, v in kvs:
        # The first of duplicate keys (dbrx's file has two general.file_type), as readers take it.
        if k != "general.architecture" and not k.startswith(arch + ".") and k not in seen:
            kept.append((k, t, v))
            seen.add(k)
    n_vocab = next(struct.unpack("<Q", v[4:12])[0] for k, t, v in kvs if k == "tokenizer.ggml.tokens")
    e = 64

    def s(x):
        b = x.encode()
        return struct.pack("<Q", len(b)) + b

    def kv(key, t, raw):
        return s(key) + struct.pack("<I", t) + raw

    own = [("general.architecture", STRING, s("llama")),
           ("llama.block_count", 4, struct.pack("<I", 1)),
           ("llama.context_length", 4, struct.pack("<I", 4096)),
           ("llama.embedding_length", 4, struct.pack("<I", e)),
           ("llama.feed_forward_length", 4, struct.pack("<I", e)),
           ("llama.attention.head_count", 4, struct.pack("<I", 1)),
           ("llama.attention.head_count_kv", 4, struct.pack("<I", 1)),
           ("llama.rope.dimension_count", 4, struct.pack("<I", e)),
           ("llama.attention.layer_norm_rms_epsilon", 6, struct.pack("<f", 1e-5))]
    tensors = [("token_embd.weight", [e, n_vocab]), ("output_norm.weight", [e]),
               ("blk.0.attn_norm.weight", [e]), ("blk.0.ffn_norm.weight", [e])]
    tensors += [(f"blk.0.{n}.weight", [e, e]) for n in
                ("attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down")]
    header = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(own) + len(kept))
    header += b"".join(kv(*x) for x in own + kept)
    offset = 0
    for name, dims in tensors:
        header += s(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
        header += struct.pack("<IQ", 0, offset)  # F32
        size = 4
        for d in dims:
            size *= d
        offset += (size + 31) // 32 * 32
    header += b"\0" * (-len(header) % 32)
    with open(out, "wb") as f:
        f.write(header)
    os.truncate(out, len(header) + offset)


# --- the server ----------------------------------------------------------------------------

class Server:
    def __init__(self, model, template_file=None):
        args = [server, "-m", model, "--jinja", "--host", "127.0.0.1", "--port", "0", "-c", "4096",
                "-np", "1", "--no-warmup", "-t", "1", "--no-webui"]
        if template_file:
            args += ["--chat-template-file", template_file]
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT, env={**os.environ, "TZ": "UTC"})
        self.url = None
        deadline = time.time() + 120
        while time.time() < deadline and self.proc.poll() is None:
            self.log.seek(0)
            text = self.log.read().decode("utf-8", "replace")
            m = re.search(r"listening on (http://127\.0\.0\.1:\d+)", text)
            if m and "model loaded" in text or m and "all slots are idle" in text:
                self.url = m.group(1)
                break
            time.sleep(0.2)
        if not self.url:
            self.log.seek(0)
            log = self.log.read().decode("utf-8", "replace")
            self.close()
            why = re.search(r"error loading model: (.*)", log)
            raise RuntimeError(why.group(1).strip() if why else f"llama-server did not start: {log[-2000:]}")

    def post(self, path, body):
        req = urllib.request.Request(self.url + path, json.dumps(body).encode(), {"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"{}")

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def record(srv, kwargs_variants):
    cases = []
    for conv, (messages, tools) in CONVERSATIONS.items():
        for gen in (True, False):
            for kwargs in kwargs_variants:
                body = {"messages": messages, "add_generation_prompt": gen}
                if tools:
                    body["tools"] = tools
                if kwargs:
                    body["chat_template_kwargs"] = kwargs
                case = {"conversation": conv, "add_generation_prompt": gen}
                if kwargs:
                    case["kwargs"] = kwargs
                status, res = srv.post("/apply-template", body)
                if status != 200:
                    case["error"] = res.get("error", {}).get("message", str(status))
                else:
                    case["prompt"] = res["prompt"]
                    if not gen:
                        # The ids of the prompts with the generation prompt are enough to hold
                        # the tokenizer to the server's (and keep this file small).
                        cases.append(case)
                        continue
                    status, tok = srv.post("/tokenize", {"content": res["prompt"], "add_special": True,
                                                         "parse_special": True})
                    assert status == 200, tok
                    case["ids"] = tok["tokens"]
                cases.append(case)
    return cases


def main():
    doc = {"llama_cpp": "0c1e570", "date_utc": None,
           "conversations": {k: {"messages": m, **({"tools": t} if t else {})} for k, (m, t) in CONVERSATIONS.items()},
           "subjects": []}
    with tempfile.TemporaryDirectory() as tmp:
        hosts = {}
        for label, model, template, variants in SUBJECTS:
            if not os.path.exists(model):
                sys.exit(f"{model} is missing (the Gemma model: sh {fixtures}/fetch-gemma.sh)")
            subject = {"label": label, "file": os.path.relpath(model, fixtures) if model.startswith(fixtures)
                       else "gemma-3-270m-q4_k_m.gguf"}
            host = model
            if model != gemma:
                if model not in hosts:
                    hosts[model] = os.path.join(tmp, f"host-{len(hosts)}.gguf")
                    host_model(model, hosts[model])
                host = hosts[model]
            tfile = None
            if template and template.startswith("from:"):
                source = template.split(":", 1)[1]
                subject["template_from"] = "real/" + source
                text = read_kvs(real(source))[1]["tokenizer.chat_template"]
                tfile = os.path.join(tmp, source + ".jinja")
                with open(tfile, "w") as f:
                    f.write(text)
            elif template and template.startswith("named:"):
                name = template.split(":", 1)[1]
                subject["template"] = name
                text = read_kvs(model)[1]["tokenizer.chat_template." + name]
                tfile = os.path.join(tmp, name + ".jinja")
                with open(tfile, "w") as f:
                    f.write(text)
            elif template:
                tfile = template_file(template)
                with open(tfile) as f:
                    subject["template_file"] = "llama.cpp/models/templates/" + template
                    subject["template_text"] = f.read()
            try:
                srv = Server(host, tfile)
            except RuntimeError as e:
                # Refused by llama.cpp: said so, with the reason its log gives.
                subject["refused"] = str(e.__cause__ or e)
                doc["subjects"].append(subject)
                print(f"{label}: refused", file=sys.stderr)
                continue
            try:
                subject["cases"] = record(srv, variants)
            finally:
                srv.close()
            doc["date_utc"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
            doc["subjects"].append(subject)
            print(f"{label}: {len(subject['cases'])} cases", file=sys.stderr)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        # A line per case, so that a change shows as the cases it changes.
        text = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
        f.write(text.replace(',{"conversation":', ',\n{"conversation":') + "\n")
    print(f"-> {OUT}", file=sys.stderr)


main()
