//! Incremental decoding gives exactly the one-shot result — headers and errors, offsets included —
//! however the input is cut: at every split point, one byte at a time, and in random chunks.
//! And the decoder's "need" hint is honest: it never asks for more than the header still holds.

mod common;

use common::{Rng, fixture, same_value};
use gguf_core::{Error, Header, HeaderDecoder, Progress};

fn same(a: &Result<Header, Error>, b: &Result<Header, Error>) -> bool {
    match (a, b) {
        (Ok(x), Ok(y)) => {
            let (ex, ey) = (x.metadata.entries(), y.metadata.entries());
            ex.len() == ey.len()
                && ex
                    .iter()
                    .zip(ey)
                    .all(|(p, q)| p.key == q.key && p.span == q.span && same_value(&p.value, &q.value))
                && x.tensors == y.tensors
                && (
                    x.version,
                    x.endian,
                    x.alignment,
                    x.header_len,
                    x.data_offset,
                    x.file_len,
                ) == (
                    y.version,
                    y.endian,
                    y.alignment,
                    y.header_len,
                    y.data_offset,
                    y.file_len,
                )
        }
        (Err(x), Err(y)) => x == y,
        _ => false,
    }
}

fn show(r: &Result<Header, Error>) -> String {
    match r {
        Ok(h) => format!("Ok(header of {} bytes)", h.header_len),
        Err(e) => format!("Err({e})"),
    }
}

/// Feeds `file` in the chunks `cuts` gives (each a length; the rest at the end), checking the
/// hint at every step against the header's true end when known.
fn feed_in_chunks(
    file: &[u8],
    cuts: impl IntoIterator<Item = usize>,
    header_end: Option<u64>,
) -> Result<Header, Error> {
    let mut d = HeaderDecoder::new(Some(file.len() as u64));
    let mut at = 0;
    let check = |p: Progress| {
        if let (Progress::Need { offset, min_len }, Some(end)) = (p, header_end) {
            assert!(min_len > 0);
            assert!(
                offset + min_len <= end,
                "asked for {min_len} at {offset}, but the header ends at {end}"
            );
        }
        p
    };
    for len in cuts {
        let end = (at + len).min(file.len());
        if check(d.feed(&file[at..end])?) == Progress::Done {
            return Ok(d.into_header().unwrap());
        }
        at = end;
    }
    d.feed(&file[at..])?;
    Ok(d.into_header().expect("the whole file was fed"))
}

fn small_fixtures() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for dir in ["synth", "real"] {
        for entry in std::fs::read_dir(fixture(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "gguf") {
                let bytes = std::fs::read(&path).unwrap();
                out.push((path.file_name().unwrap().to_string_lossy().into_owned(), bytes));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_split_point_of_small_files() {
    for (name, file) in small_fixtures().into_iter().filter(|(_, f)| f.len() <= 70_000) {
        let whole = gguf_core::parse(&file);
        let end = whole.as_ref().ok().map(|h| h.header_len);
        for split in 0..=file.len() {
            let split_result = feed_in_chunks(&file, [split], end);
            assert!(
                same(&split_result, &whole),
                "{name}: split at {split}: {} vs {}",
                show(&split_result),
                show(&whole)
            );
        }
    }
}

#[test]
fn one_byte_at_a_time() {
    for (name, file) in small_fixtures().into_iter().filter(|(_, f)| f.len() <= 1 << 20) {
        let whole = gguf_core::parse(&file);
        let end = whole.as_ref().ok().map(|h| h.header_len);
        let bytewise = feed_in_chunks(&file, std::iter::repeat_n(1, file.len()), end);
        assert!(
            same(&bytewise, &whole),
            "{name}: byte by byte: {} vs {}",
            show(&bytewise),
            show(&whole)
        );
    }
}

#[test]
fn random_chunks_of_every_fixture() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for (name, file) in small_fixtures() {
        let whole = gguf_core::parse(&file);
        let end = whole.as_ref().ok().map(|h| h.header_len);
        for round in 0..8 {
            let max = [7, 100, 4096, 1 << 16, 1 << 20, 8 << 20, 3, 65][round];
            let cuts: Vec<usize> = (0..file.len()).map(|_| 1 + rng.below(0..max) as usize).collect();
            let chunked = feed_in_chunks(&file, cuts, end);
            assert!(
                same(&chunked, &whole),
                "{name}: round {round}: {} vs {}",
                show(&chunked),
                show(&whole)
            );
        }
    }
}

/// Every prefix of a real header, taken as a whole (shorter) file, fails with the same error
/// incrementally as in one go, and the error's offset lies inside the prefix's last item.
#[test]
fn truncation_errors_are_the_same_both_ways() {
    let file = std::fs::read(fixture("synth/all-types.gguf")).unwrap();
    let header_len = gguf_core::parse(&file).unwrap().header_len as usize;
    let mut rng = Rng(42);
    for cut in (0..header_len).step_by(7) {
        let prefix = &file[..cut];
        let whole = gguf_core::parse(prefix);
        let err = whole.as_ref().expect_err("a cut header cannot parse");
        assert!(err.offset() <= cut as u64, "cut {cut}: error at {}", err.offset());
        assert_eq!(err.kind().code(), "truncated", "cut {cut}: {err}");
        let cuts: Vec<usize> = (0..64).map(|_| 1 + rng.below(0..300) as usize).collect();
        let chunked = feed_in_chunks(prefix, cuts, None);
        assert!(
            same(&chunked, &whole),
            "cut {cut}: {} vs {}",
            show(&chunked),
            show(&whole)
        );
    }
}

/// Feeding exactly what the hint asks for always finishes in few rounds: the hint is not a
/// trickle of tiny reads. The header of the 24 MB vocabulary is read in a handful of steps.
#[test]
fn feeding_exactly_the_hint_converges() {
    let file = std::fs::read(fixture("synth/vocab-262k.gguf")).unwrap();
    let mut d = HeaderDecoder::new(Some(file.len() as u64));
    let mut rounds = 0;
    let mut next = d.first_need();
    while let Progress::Need { offset, min_len } = next {
        let (start, end) = (offset as usize, (offset + min_len) as usize);
        next = d.feed(&file[start..end]).unwrap();
        rounds += 1;
        assert!(rounds < 2_000_000, "no progress");
    }
    let header = d.header().unwrap();
    assert_eq!(d.bytes_fed(), header.header_len, "never read past the header");
    // One round per array element at worst would be 777k; the hint covers whole arrays.
    assert!(rounds < 1000, "{rounds} rounds");
}
