//! Every report a test produces is checked against the committed JSON Schema
//! (`schema/report.schema.json`) by this one helper, shared by the core's, the values' and the
//! CLI's tests.

use std::cell::RefCell;
use std::collections::HashMap;

use boon::{Compiler, SchemaIndex, Schemas};
use serde_json::Value;

const LOCATION: &str = "file:///ggufscope/report.schema.json";

/// The compiled schema, with the documents compiled so far by name.
struct Compiled {
    compiler: Compiler,
    schemas: Schemas,
    by_name: HashMap<String, SchemaIndex>,
}

fn compiled() -> Compiled {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../schema/report.schema.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut compiler = Compiler::new();
    compiler
        .add_resource(LOCATION, serde_json::from_str(&text).unwrap())
        .unwrap();
    Compiled {
        compiler,
        schemas: Schemas::new(),
        by_name: HashMap::new(),
    }
}

thread_local! {
    // Per test thread: boon's compiler cannot cross threads.
    static COMPILED: RefCell<Compiled> = RefCell::new(compiled());
}

/// Whether `json` is a valid `document`: `"GgufReport"` (the schema's root, `info --json`) or
/// the name of one of its `$defs` (`"TokenizerReport"`, `"TokenPage"`, `"TensorStats"`…).
pub fn check(document: &str, json: &Value) -> Result<(), String> {
    COMPILED.with_borrow_mut(|c| check_with(c, document, json))
}

fn check_with(c: &mut Compiled, document: &str, json: &Value) -> Result<(), String> {
    let index = match c.by_name.get(document) {
        Some(&index) => index,
        None => {
            let location = match document {
                "GgufReport" => LOCATION.to_string(),
                name => format!("{LOCATION}#/$defs/{name}"),
            };
            let index = c
                .compiler
                .compile(&location, &mut c.schemas)
                .map_err(|e| format!("{document}: {e}"))?;
            c.by_name.insert(document.to_string(), index);
            index
        }
    };
    c.schemas.validate(json, index).map_err(|e| format!("{e:#}"))
}

/// `json`, after asserting that it is a valid `document` (see [`check`]).
pub fn checked(document: &str, json: Value) -> Value {
    if let Err(e) = check(document, &json) {
        panic!("a {document} the schema rejects: {e}");
    }
    json
}
