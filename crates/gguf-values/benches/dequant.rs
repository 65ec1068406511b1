//! Dequantization throughput: 4 MiB of Q4_K, Q6_K, Q5_0 and Q8_0 blocks decoded by the
//! baseline build and by the AVX2 build `gguf_values::avx2` picks, side by side; at once and in 64 KiB
//! pieces, little- and big-endian; and the output written alone, the floor of "at once".
//! `cargo bench -p gguf-values --bench dequant`.
//!
//! Time is the benchmark thread's CPU time: on a machine shared with other work, the figure is
//! then one core's, not the share of it the scheduler happened to give.

use std::hint::black_box;
use std::time::Duration;

use cpu_time::ThreadTime;

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gguf_core::Endian;
use gguf_core::GgmlType;
use gguf_values::dequant::{DequantError, DequantizeTo};

type DequantizeInto = fn(GgmlType, Endian, &[u8], &mut Vec<f32>) -> Result<(), DequantError>;

mod blocks;
use blocks::{TYPES, blocks};

/// The calling thread's CPU time (`cpu_time::ThreadTime`), in criterion's terms.
struct CpuTime;

impl Measurement for CpuTime {
    type Intermediate = ThreadTime;
    type Value = Duration;

    fn start(&self) -> ThreadTime {
        ThreadTime::now()
    }
    fn end(&self, start: ThreadTime) -> Duration {
        start.elapsed()
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        // Durations, as wall time's: criterion's own formatter for them.
        static WALL: WallTime = WallTime;
        WALL.formatter()
    }
}

fn dequant(c: &mut Criterion<CpuTime>) {
    const LEN: usize = 4 << 20;
    const PIECE: usize = 64 << 10;
    let picked = if gguf_values::avx2::has_avx2() {
        "avx2"
    } else {
        "picked: baseline, no AVX2"
    };
    let builds: [(&str, DequantizeInto, DequantizeTo); 2] = [
        (
            "baseline",
            gguf_values::dequant::dequantize_into,
            gguf_values::dequant::dequantize_to,
        ),
        (
            picked,
            gguf_values::avx2::dequantize_into,
            gguf_values::avx2::dequantize_to,
        ),
    ];
    let mut group = c.benchmark_group("dequantize 4 MiB");
    for (ty, scales) in TYPES {
        let block_bytes = ty.type_size().unwrap() as usize;
        group.throughput(Throughput::Bytes((LEN / block_bytes * block_bytes) as u64));
        let mut out = Vec::with_capacity(LEN * 4);
        // The floor of decoding at once: writing the output alone (as many zeros), which for
        // 4 MiB of blocks is 15–29 MiB of `f32`, more than the caches hold. Once in one go, and
        // as the decoders write it, 512 values (2 KiB) at a time.
        let values = LEN / block_bytes * ty.block_size().unwrap() as usize;
        group.bench_function(format!("{ty} output alone, zeroed"), |b| {
            b.iter(|| {
                out.clear();
                out.resize(black_box(values), 0.0);
                black_box(out.last().copied())
            })
        });
        group.bench_function(format!("{ty} output alone, 2 KiB at a time"), |b| {
            b.iter(|| {
                out.clear();
                while out.len() < values {
                    out.resize(black_box(out.len() + 512), 0.0);
                }
                black_box(out.last().copied())
            })
        });
        for (build, dequantize_into, dequantize_to) in builds {
            for endian in [Endian::Little, Endian::Big] {
                let bytes = blocks(ty, endian, LEN, scales);
                group.bench_function(format!("{ty} {build} {}", endian.name()), |b| {
                    b.iter(|| {
                        out.clear();
                        dequantize_into(ty, endian, black_box(&bytes), &mut out).unwrap();
                        black_box(out.last().copied())
                    })
                });
                // As a statistics pass decodes: a piece at a time, written over one buffer, which
                // stays in the cache, so the figure is the decoder's rather than the memory's.
                let piece = PIECE / block_bytes * block_bytes;
                let values_of = |piece: &[u8]| piece.len() / block_bytes * ty.block_size().unwrap() as usize;
                let mut buffer = vec![0.0; values_of(&bytes[..piece])];
                group.bench_function(format!("{ty} {build} {} in 64 KiB pieces", endian.name()), |b| {
                    b.iter(|| {
                        for piece in black_box(&bytes).chunks(piece) {
                            let values = &mut buffer[..values_of(piece)];
                            dequantize_to(ty, endian, piece, values).unwrap();
                            black_box(values.last().copied());
                        }
                    })
                });
            }
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(CpuTime);
    targets = dequant
}
criterion_main!(benches);
