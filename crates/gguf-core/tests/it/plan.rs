//! `memory::plan` on hand-computed models: one that fits whole, one that needs a split, an MoE
//! whose experts go to the CPU; and against llama-fit-params's own answers
//! (`tests/reference/memory/fit-params-0c1e570.json`, from `scripts/reference/fit-params-refs.py`).

use gguf_core::memory::{self, CacheType, Devices, FlashAttention, MIB, Options, Plan, Verdict, plan};
use gguf_core::testkit::GgufBuilder;
use gguf_core::{GgmlType, Header};
use gguf_test_support::{gemma, read_header};
use serde_json::Value;

/// 4 layers of one 4 MiB matrix (1024 × 1024 f32), 256-wide embeddings of 1000 tokens (f32,
/// 1,024,000 B) and an output matrix as large. With 4 KV heads of 64, a layer's cache at -c 4096
/// and f16 is 4096 × 256 × 2 B for K and as much for V: 4 MiB.
fn dense(experts: bool) -> Header {
    let mut b = GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv("llama.context_length", 4096u32)
        .kv("llama.block_count", 4u32)
        .kv("llama.embedding_length", 256u32)
        .kv("llama.feed_forward_length", 1024u32)
        .kv("llama.attention.head_count", 4u32)
        .kv("llama.attention.head_count_kv", 4u32)
        .kv("llama.vocab_size", 1000u32)
        .tensor("token_embd.weight", &[256, 1000], GgmlType::F32);
    if experts {
        b = b
            .kv("llama.expert_count", 4u32)
            .kv("llama.expert_used_count", 2u32);
    }
    for il in 0..4 {
        b = b.tensor(format!("blk.{il}.ffn_up.weight"), &[1024, 1024], GgmlType::F32);
        if experts {
            // 4 experts of 1024 × 1024 f32: 16 MiB a layer.
            b = b.tensor(
                format!("blk.{il}.ffn_up_exps.weight"),
                &[1024, 1024, 4],
                GgmlType::F32,
            );
        }
    }
    let b = b.tensor("output.weight", &[256, 1000], GgmlType::F32);
    gguf_core::parse(&b.build()).unwrap()
}

const EMBD: u64 = 1_024_000;
const LAYER: u64 = 4 * MIB;
const KV: u64 = 4 * MIB;
const EXPERTS: u64 = 16 * MIB;

fn one_sequence() -> Options {
    Options {
        parallel: Some(1),
        ..Options::default()
    }
}

fn devices(ram: u64, gpus: &[u64]) -> Devices {
    Devices {
        ram,
        gpus: gpus.to_vec(),
        margin: 0,
    }
}

/// The compute buffer and output buffer the core sizes (not hand-computed: `memory_reference`
/// holds them to llama.cpp's), and the host's inputs when the CPU runs no layer.
fn compute(h: &Header, o: &Options) -> (u64, u64) {
    let b = memory::buffers(h, o).unwrap();
    (b.compute.bytes, b.output)
}

fn totals(p: &Plan) -> Vec<(u64, u64, u64)> {
    p.devices.iter().map(|d| (d.layers, d.model, d.context)).collect()
}

#[test]
fn a_model_that_fits_whole_on_one_gpu() {
    let h = dense(false);
    let o = one_sequence();
    let (compute, output) = compute(&h, &o);
    let p = plan(&h, &o, &devices(GIB, &[GIB]), Vec::new()).unwrap();
    assert_eq!(p.verdict, Verdict::Fits);
    assert_eq!((p.n_gpu_layers, p.layers, p.n_cpu_moe), (5, 5, 0));
    assert!(p.tensor_split.is_empty());
    // RAM: the embeddings only; the GPU: 4 layers, the output matrix, 4 caches.
    assert_eq!(totals(&p), [(0, EMBD, 0), (5, 4 * LAYER + EMBD, 4 * KV)]);
    assert_eq!(p.devices[1].compute, compute);
    assert_eq!(p.devices[1].total, 4 * LAYER + EMBD + 4 * KV + compute);
    // The host keeps the logits and the batch's embeddings (256 × 512 f32).
    assert_eq!(p.devices[0].compute, output + 256 * 512 * 4);
    // Every cache type fits the trained context.
    assert!(p.max_context.iter().all(|m| m.ctx == 4096), "{:?}", p.max_context);
    assert_eq!(p.max_context.len(), CacheType::ALL.len());
}

#[test]
fn without_gpus_it_fits_in_ram_or_does_not() {
    let h = dense(false);
    let o = one_sequence();
    let (compute, output) = compute(&h, &o);
    let whole = 2 * EMBD + 4 * LAYER + 4 * KV + compute + output;
    let p = plan(&h, &o, &devices(whole, &[]), Vec::new()).unwrap();
    assert_eq!((p.verdict, p.n_gpu_layers), (Verdict::Fits, 0));
    assert_eq!(p.devices.len(), 1);
    assert_eq!(p.devices[0].total, whole);
    let p = plan(&h, &o, &devices(whole - 1, &[]), Vec::new()).unwrap();
    assert_eq!(p.verdict, Verdict::DoesNotFit);
}

#[test]
fn two_gpus_split_the_layers_by_free_memory() {
    let h = dense(false);
    let o = one_sequence();
    let p = plan(&h, &o, &devices(GIB, &[GIB, GIB]), Vec::new()).unwrap();
    assert_eq!(p.verdict, Verdict::Fits);
    // llama.cpp's split of 5 layers at 1/2: layers 0, 1, 2 on the first, 3 and the output on the second.
    assert_eq!(p.tensor_split, [3, 2]);
    assert_eq!(
        totals(&p),
        [(0, EMBD, 0), (3, 3 * LAYER, 3 * KV), (2, LAYER + EMBD, KV)]
    );
}

#[test]
fn a_model_that_needs_a_split_between_gpu_and_cpu() {
    let h = dense(false);
    let o = one_sequence();
    let (compute, _) = compute(&h, &o);
    // Room for the output layer and two layers with their caches, not a third.
    let gpu = compute + EMBD + 2 * (LAYER + KV) + LAYER + KV - 1;
    let p = plan(&h, &o, &devices(GIB, &[gpu]), Vec::new()).unwrap();
    assert_eq!(p.verdict, Verdict::FitsPartly);
    assert_eq!(p.n_gpu_layers, 3);
    assert_eq!(
        totals(&p),
        [(2, EMBD + 2 * LAYER, 2 * KV), (3, EMBD + 2 * LAYER, 2 * KV)]
    );
    // The CPU runs layers: it has a compute buffer of its own.
    assert!(p.devices[0].compute > compute);
    // The margin is left free: with 1 GiB of it, nothing but the CPU.
    let mut d = devices(GIB, &[gpu]);
    d.margin = gpu;
    assert_eq!(plan(&h, &o, &d, Vec::new()).unwrap().n_gpu_layers, 0);
}

#[test]
fn an_moe_keeps_its_first_layers_experts_on_the_cpu() {
    let h = dense(true);
    let o = one_sequence();
    let (compute, _) = compute(&h, &o);
    let dense_part = EMBD + 4 * (LAYER + KV);
    // Every dense part and the experts of two layers: --n-cpu-moe 2.
    let gpu = compute + dense_part + 2 * EXPERTS + EXPERTS / 2;
    let p = plan(&h, &o, &devices(GIB, &[gpu]), Vec::new()).unwrap();
    assert_eq!(p.verdict, Verdict::FitsWithExpertsOnCpu);
    assert_eq!((p.n_gpu_layers, p.n_cpu_moe), (5, 2));
    assert_eq!(p.devices[0].model, EMBD + 2 * EXPERTS);
    assert_eq!(p.devices[1].model, EMBD + 4 * LAYER + 2 * EXPERTS);
    // Not even the dense parts: fewer layers, every expert on the CPU.
    let p = plan(
        &h,
        &o,
        &devices(GIB, &[compute + EMBD + 2 * (LAYER + KV)]),
        Vec::new(),
    )
    .unwrap();
    assert_eq!(
        (p.verdict, p.n_gpu_layers, p.n_cpu_moe),
        (Verdict::FitsPartly, 3, 4)
    );
    assert_eq!(p.devices[0].model, EMBD + 2 * LAYER + 4 * EXPERTS);
}

#[test]
fn a_sidecar_is_counted_on_the_first_gpu() {
    let h = dense(false);
    let side = memory::Sidecar::new("mmproj-x.gguf".into(), "mmproj", &dense(false));
    assert_eq!(side.bytes, 2 * EMBD + 4 * LAYER);
    let p = plan(&h, &one_sequence(), &devices(GIB, &[GIB]), vec![side]).unwrap();
    assert_eq!(p.devices[1].model, 4 * LAYER + EMBD + 2 * EMBD + 4 * LAYER);
}

#[test]
fn the_largest_context_shrinks_with_the_cache_type() {
    let h = dense(false);
    let o = one_sequence();
    let (compute, output) = compute(&h, &o);
    // RAM for the weights and about half the trained context's f16 cache.
    let ram = 2 * EMBD + 4 * LAYER + 2 * KV + compute + output;
    let p = plan(&h, &Options { ctx: 1024, ..o }, &devices(ram, &[]), Vec::new()).unwrap();
    let of = |t: CacheType| p.max_context.iter().find(|m| m.cache_type == t).unwrap().ctx;
    assert!(of(CacheType::F32) < of(CacheType::F16), "{:?}", p.max_context);
    assert!(of(CacheType::F16) < of(CacheType::Q4_0), "{:?}", p.max_context);
    // The compute buffer shrinks with the context: a little more than the half.
    assert!((2048..=2560).contains(&of(CacheType::F16)), "{:?}", p.max_context);
    // Without flash attention llama.cpp refuses a quantized V cache: those types are left out.
    let off = Options {
        flash_attn: FlashAttention::Off,
        ..o
    };
    let p = plan(&h, &off, &devices(ram, &[]), Vec::new()).unwrap();
    assert_eq!(p.max_context.len(), 3, "{:?}", p.max_context);
}

const GIB: u64 = 1024 * MIB;

fn reference() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/reference/memory/fit-params-0c1e570.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn flag_options(flags: &[Value]) -> Options {
    let mut o = Options::default();
    let f: Vec<&str> = flags.iter().map(|v| v.as_str().unwrap()).collect();
    for pair in f.chunks(2) {
        match pair {
            ["-np", n] => o.parallel = Some(n.parse().unwrap()),
            ["-ctk", t] => o.type_k = CacheType::from_name(t).unwrap(),
            ["-ctv", t] => o.type_v = CacheType::from_name(t).unwrap(),
            ["-fa", w] => o.flash_attn = FlashAttention::from_name(w).unwrap(),
            other => panic!("flag {other:?}"),
        }
    }
    o
}

/// llama-fit-params on a CPU fits the context to a host memory target. Its compute buffer is
/// sized for every token of a batch to be an output (514 MiB for Gemma's 262k vocabulary, the
/// same at every context), llama-server's (ours) for one output a sequence, growing with the
/// context; and its host model leaves out what the CPU repacks. So the target is moved by the
/// difference of those fixed parts at the context it chose: then that context fits our plan too,
/// and the largest we find is at most the 256 cells a stream llama.cpp rounds down to above it.
/// Its context figure is our KV cache, to the MiB it prints.
#[test]
fn the_context_llama_fit_params_fits_to_a_memory_target() {
    let h = read_header(&gemma()).0.unwrap();
    let doc = reference();
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.len() >= 10);
    let mib = |v: &Value, k: &str| v[k].as_u64().unwrap() * MIB;
    for case in cases {
        let o = flag_options(case["flags"].as_array().unwrap());
        let what = format!("{:?} at {} MiB", case["flags"], case["target_mib"]);
        let streams = if o.unified() { 1 } else { u64::from(o.sequences()) };
        let at_min = &case["at_min"];
        let min = memory::buffers(
            &h,
            &Options {
                ctx: 4096 * streams,
                ..o
            },
        )
        .unwrap();
        assert_eq!(
            min.kv_cache() / MIB,
            at_min["context"].as_u64().unwrap(),
            "{what}"
        );
        let (at, ctx) = match case["ctx"].as_u64() {
            Some(ctx) => (&case["at_ctx"], ctx),
            None => (at_min, 4096 * streams),
        };
        let b = memory::buffers(&h, &Options { ctx, ..o }).unwrap();
        assert_eq!(
            b.kv_cache() / MIB,
            at["context"].as_u64().unwrap(),
            "{what}: the cache at -c {ctx}"
        );
        let ours_fixed = b.model.bytes + b.output + b.compute.bytes;
        let theirs_fixed = mib(at, "model") + mib(at, "compute");
        let ram = (mib(case, "target_mib") + ours_fixed).saturating_sub(theirs_fixed);
        let p = plan(&h, &o, &devices(ram, &[]), Vec::new()).unwrap();
        match case["ctx"].as_u64() {
            None => assert_eq!(p.verdict, Verdict::DoesNotFit, "{what}: llama-fit-params refuses"),
            Some(ctx) => {
                assert_eq!(p.verdict, Verdict::Fits, "{what}");
                let ours = p.context.n_ctx;
                assert!(
                    ours >= ctx && ours - ctx <= 2 * 256 * streams,
                    "{what}: llama-fit-params -c {ctx}, we -c {ours}"
                );
            }
        }
    }
}
