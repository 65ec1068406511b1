//! Replays the inputs kept from fuzzing (`fuzz/corpus/*/regressions/*`, committed) on stable,
//! with the fuzz targets' own checks — decoding fails inside the input or succeeds, every chunking
//! gives the one-shot result (`testkit::assert_same_in_every_chunking`), summary and validation never panic, the header writer gives the
//! header back — and each file's name says
//! what it must give: a finding code (`tensor-size-overflow`), `clean`, or for inputs that must
//! not decode, the error's code (`string-too-long`, `not-gguf`).

use std::path::Path;

use gguf_core::testkit::assert_same_in_every_chunking;

/// What a regression input named `name` must give.
fn check_expected(name: &str, whole: &Result<gguf_core::Header, gguf_core::Error>) {
    match whole {
        Ok(header) => {
            let codes: Vec<&str> = gguf_core::validate(header, None)
                .findings
                .iter()
                .map(|f| f.code.id())
                .collect();
            if name == "clean" {
                assert!(codes.is_empty(), "{name}: {codes:?}");
            } else {
                assert!(codes.contains(&name), "{name}: the file gives {codes:?}");
            }
        }
        Err(e) => assert_eq!(e.kind().code(), name, "{name}: {e}"),
    }
}

fn check(name: &str, data: &[u8]) {
    let whole = gguf_core::parse(data);
    match &whole {
        Ok(header) => {
            assert!(header.header_len <= data.len() as u64, "{name}");
            let _ = header.summary();
            for finding in gguf_core::validate(header, None).findings {
                assert!(finding.span.start <= finding.span.end, "{name}: {finding:?}");
            }
            // The writer gives the header back: as long, and the same when decoded again.
            let written = gguf_core::write::write_header(header).expect(name);
            assert_eq!(written.bytes.len() as u64, header.header_len, "{name}");
            let again = gguf_core::parse(&written.bytes).expect(name);
            assert_eq!(
                format!("{:?} {:?}", again.metadata, again.tensors),
                format!("{:?} {:?}", header.metadata, header.tensors),
                "{name}"
            );
        }
        Err(e) => assert!(e.offset() <= data.len() as u64, "{name}: {e}"),
    }
    assert_same_in_every_chunking(name, data);
}

#[test]
fn fuzz_regressions_replay() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus");
    let mut replayed = 0;
    for target in std::fs::read_dir(&corpus).unwrap() {
        let dir = target.unwrap().path().join("regressions");
        let Ok(files) = std::fs::read_dir(&dir) else {
            continue;
        };
        for file in files {
            let path = file.unwrap().path();
            let data = std::fs::read(&path).unwrap();
            check(&path.display().to_string(), &data);
            check_expected(
                path.file_name().unwrap().to_str().unwrap(),
                &gguf_core::parse(&data),
            );
            replayed += 1;
        }
    }
    assert!(replayed > 0, "no regression inputs under {}", corpus.display());
}
