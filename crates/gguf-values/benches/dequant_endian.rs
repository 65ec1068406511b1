//! What a big-endian file costs the dequantizers: the blocks of `dequant` (4 MiB of each type)
//! decoded little- and big-endian in turns, at once and in 64 KiB pieces, and the medians of
//! both with their ratio. `cargo bench -p gguf-values --bench dequant_endian [ROUNDS]` (default 201), with
//! the decoders [`gguf_values::avx2::dequantize_into`] picks for this CPU.
//!
//! criterion's runs of the two orders (`dequant`) are a minute apart; on a machine shared with
//! other work their load moves between them, and the at-once figures move 10–30%. Here each
//! round decodes both, in alternating order, so both see the same load and their ratio holds.
//! Time is the thread's CPU time, as in `dequant`.

use std::hint::black_box;
use std::time::Duration;

use cpu_time::ThreadTime;
use gguf_core::Endian;
use gguf_values::avx2::{dequantize_into, dequantize_to};

mod blocks;
use blocks::{TYPES, blocks};

const LEN: usize = 4 << 20;
const PIECE: usize = 64 << 10;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort_unstable();
    times[times.len() / 2]
}

fn main() {
    // `cargo bench` passes `--bench`; a number is the rounds to run.
    let rounds = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(201);
    println!(
        "{:<16} {:>10} {:>10} {:>7}",
        "4 MiB of", "little", "big", "big/little"
    );
    for (ty, scales) in TYPES {
        let little = blocks(ty, Endian::Little, LEN, scales);
        let big = blocks(ty, Endian::Big, LEN, scales);
        let block_bytes = ty.type_size().unwrap() as usize;
        let piece = PIECE / block_bytes * block_bytes;
        let mut out = Vec::with_capacity(LEN * 4);
        // In pieces, as a statistics pass decodes: written over one buffer, made once.
        let values_of = |part: &[u8]| part.len() / block_bytes * ty.block_size().unwrap() as usize;
        let mut buffer = vec![0.0; values_of(&little[..piece])];
        for pieces in [false, true] {
            let mut decode = |endian: Endian, bytes: &[u8]| {
                let start = ThreadTime::now();
                if pieces {
                    for part in black_box(bytes).chunks(piece) {
                        let values = &mut buffer[..values_of(part)];
                        dequantize_to(ty, endian, part, values).unwrap();
                        black_box(values.last().copied());
                    }
                } else {
                    out.clear();
                    dequantize_into(ty, endian, black_box(bytes), &mut out).unwrap();
                    black_box(out.last().copied());
                }
                start.elapsed()
            };
            // Two rounds to warm the caches and fault in the output, not counted.
            let (mut times_little, mut times_big) = (Vec::new(), Vec::new());
            for round in 0..rounds + 2 {
                let (l, b) = if round % 2 == 0 {
                    let l = decode(Endian::Little, &little);
                    (l, decode(Endian::Big, &big))
                } else {
                    let b = decode(Endian::Big, &big);
                    (decode(Endian::Little, &little), b)
                };
                if round >= 2 {
                    times_little.push(l);
                    times_big.push(b);
                }
            }
            let (l, b) = (median(times_little), median(times_big));
            let gib = |t: Duration| little.len() as f64 / t.as_secs_f64() / f64::from(1 << 30);
            let how = if pieces { "in pieces" } else { "at once" };
            println!(
                "{:<16} {:>5.2} GiB/s {:>5.2} GiB/s {:>7.3}",
                format!("{ty} {how}"),
                gib(l),
                gib(b),
                l.as_secs_f64() / b.as_secs_f64()
            );
        }
    }
}
