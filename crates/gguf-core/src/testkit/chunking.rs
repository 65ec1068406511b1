//! "Fed in every chunking, the decoder gives the same result": the check the incremental tests,
//! the fuzz regressions and the `chunked` fuzz target share.

use alloc::format;

use crate::decoder::{HeaderDecoder, Progress, parse};
use crate::error::Error;
use crate::header::Header;

/// Bytes fed in all the two-piece splittings of one file: a file small enough is split at every
/// point, a larger one at a seeded sample of points that fits (each splitting feeds the whole file).
const SPLIT_BYTES: usize = 64 << 20;
/// Split points tried in a file however large: splittings past the budget are sampled, not dropped.
const MIN_SPLITS: usize = 64;
/// Files up to this many bytes are also fed one byte at a time.
const BYTEWISE_UP_TO: usize = 1 << 20;
/// The largest piece of each random chunking: tiny, item-sized, read-sized, huge.
const RANDOM_PIECES: [usize; 8] = [3, 7, 65, 100, 4096, 1 << 16, 1 << 20, 8 << 20];

/// Asserts that the header decoder, fed `file` in every chunking, gives what [`parse`] gives in
/// one call — the same header, or the same error at the same offset — and that its hint is honest
/// at every step ([`assert_same_in_chunks`]). The chunkings: split in two at every point (a file
/// of more than a few KiB at a seeded sample of points, as many as 64 MiB of feeding allows, at
/// least 64), one byte at a time (up to 1 MiB), and pieces of random lengths from a generator
/// seeded by the file's length. `name` says which file in a failure.
pub fn assert_same_in_every_chunking(name: &str, file: &[u8]) {
    let whole = parse(file);
    let mut rng = SplitMix(0x9E37_79B9_7F4A_7C15 ^ file.len() as u64);
    let splits = (SPLIT_BYTES / file.len().max(1)).max(MIN_SPLITS);
    if splits > file.len() {
        for split in 0..=file.len() {
            check(&format!("{name}, split at {split}"), file, &whole, [split]);
        }
    } else {
        for _ in 0..splits {
            let split = rng.below(file.len() + 1);
            check(&format!("{name}, split at {split}"), file, &whole, [split]);
        }
    }
    if file.len() <= BYTEWISE_UP_TO {
        check(
            &format!("{name}, byte by byte"),
            file,
            &whole,
            core::iter::repeat_n(1, file.len()),
        );
    }
    for max in RANDOM_PIECES {
        let mut pieces = SplitMix(rng.next());
        let cuts = (0..file.len()).map(move |_| 1 + pieces.below(max));
        check(&format!("{name}, pieces of 1 to {max} bytes"), file, &whole, cuts);
    }
}

/// Asserts that the header decoder fed `file` in pieces of the lengths `cuts` gives (a 0 feeds an
/// empty piece; the rest of the file in one piece when they run out) gives what [`parse`] gives,
/// and that each of its answers asks for the bytes right after those fed, at least one, and
/// (when the file has a header) none past the header's end.
pub fn assert_same_in_chunks(name: &str, file: &[u8], cuts: impl IntoIterator<Item = usize>) {
    check(name, file, &parse(file), cuts);
}

/// The check, `fed` naming the file and the chunking in a failure.
fn check(fed: &str, file: &[u8], whole: &Result<Header, Error>, cuts: impl IntoIterator<Item = usize>) {
    let header_end = whole.as_ref().ok().map(|h| h.header_len);
    let mut decoder = HeaderDecoder::new(Some(file.len() as u64));
    let mut at: usize = 0;
    let mut cuts = cuts.into_iter();
    let chunked = loop {
        let end = cuts
            .next()
            .map_or(file.len(), |len| at.saturating_add(len).min(file.len()));
        match decoder.feed(&file[at..end]) {
            Ok(Progress::Done) => break Ok(()),
            Ok(Progress::Need { offset, min_len }) => {
                assert_eq!(
                    offset, end as u64,
                    "{fed}: asked for bytes at {offset} after {end} were fed"
                );
                assert!(min_len > 0, "{fed}: asked for no bytes at {offset}");
                if let Some(header_end) = header_end {
                    assert!(
                        offset + min_len <= header_end,
                        "{fed}: asked for {min_len} bytes at {offset}, but the header ends at {header_end}"
                    );
                }
                assert!(
                    end < file.len(),
                    "{fed}: the whole file was fed and the decoder still needs {min_len} bytes"
                );
            }
            Err(e) => break Err(e),
        }
        at = end;
    };
    match (whole, chunked) {
        (Ok(h), Ok(())) => {
            let header = decoder.header().expect("Done gives a header");
            // Debug text where `==` fails: a NaN value equals itself there.
            assert!(
                h == header || format!("{h:?}") == format!("{header:?}"),
                "{fed}: the header differs from the one-shot one"
            );
        }
        (Err(a), Err(b)) => assert_eq!(a, &b, "{fed}"),
        (a, b) => panic!(
            "{fed}: one-shot {} but chunked {}",
            outcome(a.as_ref().map(|_| ())),
            outcome(b.as_ref().map(|_| ())),
        ),
    }
}

fn outcome(r: Result<(), &Error>) -> alloc::string::String {
    match r {
        Ok(()) => "a header".into(),
        Err(e) => format!("the error \"{e}\" at {}", e.offset()),
    }
}

/// SplitMix64: a seeded generator, so that a failing chunking is the same on the next run.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (the tiny modulo bias does not matter here).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % (n.max(1) as u64)) as usize
    }
}
