//! `schema/report.schema.json` is the schema the report's view structs derive: regenerated here
//! and compared, so that a change to the report's shape shows in the committed file.

use std::path::Path;

#[test]
fn the_committed_schema_is_the_derived_one() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schema/report.schema.json");
    let derived = gguf_core::report::schema::report_schema_json();
    if std::env::var_os("GGUF_BLESS").is_some() {
        std::fs::write(&path, &derived).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == derived,
        "{} differs from the schema the report's types derive: regenerate it with \
         `GGUF_BLESS=1 cargo test -p gguf-core --test it schema` and commit it",
        path.display()
    );
}
