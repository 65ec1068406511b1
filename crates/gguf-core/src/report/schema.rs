//! The JSON Schema of the documents the report module writes, derived from its view structs
//! (feature `schema`). The repository keeps it as `schema/report.schema.json`; a test rewrites
//! it from here and fails when the two differ.

use alloc::string::String;

use schemars::generate::SchemaSettings;
use schemars::transform::RecursiveTransform;
use schemars::{JsonSchema, Schema};

use super::tokenizer::{Piece, TokenPage, TokenizerReport};
use super::view::{GgufReport, MetadataValue, TensorStats};

/// The schema of [`GgufReport`] (`ggufscope info --json`), draft 2020-12, as the documents are
/// written (a field skipped when empty is optional). Its `$defs` also hold the other documents
/// the CLI and the wasm modules hand out, by name: `TokenizerReport` (`ggufscope tokens --json`),
/// `TokenPage` (`tokens --json` with a query, the token browser), `Piece` (`splitSpecial`),
/// `MetadataValue` (an `arrayPage` element) and `TensorStats` (`ggufscope tensor --json`'s
/// `stats`). Objects are closed (`additionalProperties: false`): a field the types do not
/// declare, or a misspelled one, is an error to a validator and to generated TypeScript.
pub fn report_schema() -> Schema {
    let mut generator = SchemaSettings::draft2020_12()
        .for_serialize()
        .with_transform(RecursiveTransform(close_objects))
        .into_generator();
    define::<TokenizerReport<'static>>(&mut generator);
    define::<TokenPage<'static>>(&mut generator);
    define::<Piece<'static>>(&mut generator);
    define::<MetadataValue<'static>>(&mut generator);
    define::<TensorStats<'static>>(&mut generator);
    generator.into_root_schema_for::<GgufReport<'static>>()
}

fn close_objects(schema: &mut Schema) {
    if schema.get("properties").is_some() && schema.get("additionalProperties").is_none() {
        schema.insert("additionalProperties".into(), false.into());
    }
}

fn define<T: JsonSchema>(generator: &mut schemars::SchemaGenerator) {
    generator.subschema_for::<T>();
}

/// [`report_schema`] as the committed file holds it: pretty JSON and a final newline.
pub fn report_schema_json() -> String {
    let mut text = serde_json::to_string_pretty(&report_schema()).unwrap_or_default();
    text.push('\n');
    text
}
