//! `tojson` as llama.cpp 0c1e570's Jinja engine writes it (`common/jinja/value.cpp`), which differs
//! from minijinja's: keys in their order, `", "` and `": "` between items without an indent,
//! nothing escaped for HTML, floats as C++'s `ostream` writes a double (six significant digits),
//! `ensure_ascii`, `separators`.

use std::fmt::Write as _;

use minijinja::value::{Kwargs, Value, ValueKind};
use minijinja::{Error, ErrorKind, State};

/// The `tojson` filter: `value|tojson(ensure_ascii=False, indent=None, separators=None)`.
pub fn tojson_filter(state: &State<'_, '_>, value: &Value, args: Kwargs) -> Result<Value, Error> {
    let indent = match args.get::<Option<Value>>("indent")? {
        Some(v) if v.is_integer() => v.as_i64(),
        _ => None,
    };
    let ensure_ascii = args.get::<Option<bool>>("ensure_ascii")?.unwrap_or(false);
    if args.get::<Option<bool>>("sort_keys")?.unwrap_or(false) {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            "tojson sort_keys=true is not implemented (as in llama.cpp)",
        ));
    }
    let separators: Option<Vec<String>> = args.get("separators")?;
    args.assert_all_used()?;
    let separators = separators.unwrap_or_default();
    let item = separators
        .first()
        .cloned()
        .unwrap_or_else(|| if indent.is_none() { ", ".into() } else { ",".into() });
    let key = separators.get(1).cloned().unwrap_or_else(|| ": ".into());
    let text = to_json(value, indent, &item, &key, ensure_ascii);
    state.consume_fuel(text.len() as u64 / 64)?;
    Ok(Value::from(text))
}

/// `value` as JSON: `indent` None for one line (a negative indent too), else one item per line.
pub fn to_json(value: &Value, indent: Option<i64>, item: &str, key: &str, ensure_ascii: bool) -> String {
    let mut out = String::new();
    write_value(&mut out, value, 0, indent.filter(|&i| i >= 0), item, key);
    if ensure_ascii { escape_non_ascii(&out) } else { out }
}

fn write_value(out: &mut String, value: &Value, level: usize, indent: Option<i64>, item: &str, key: &str) {
    let pad = |level: usize| " ".repeat(level * indent.unwrap_or(0).max(0) as usize);
    let newline = if indent.is_some() { "\n" } else { "" };
    match value.kind() {
        ValueKind::Undefined | ValueKind::None => out.push_str("null"),
        ValueKind::Bool => out.push_str(if value.is_true() { "true" } else { "false" }),
        ValueKind::Number if value.is_integer() => {
            let _ = write!(out, "{value}");
        }
        ValueKind::Number => out.push_str(&double(f64::try_from(value.clone()).unwrap_or(0.0))),
        ValueKind::String => write_string(out, value.as_str().unwrap_or_default()),
        ValueKind::Seq | ValueKind::Iterable => {
            let items: Vec<Value> = value.try_iter().map(Iterator::collect).unwrap_or_default();
            out.push('[');
            if !items.is_empty() {
                out.push_str(newline);
                for (i, v) in items.iter().enumerate() {
                    out.push_str(&pad(level + 1));
                    write_value(out, v, level + 1, indent, item, key);
                    if i + 1 < items.len() {
                        out.push_str(item);
                    }
                    out.push_str(newline);
                }
                out.push_str(&pad(level));
            }
            out.push(']');
        }
        ValueKind::Map => {
            let keys: Vec<Value> = value.try_iter().map(Iterator::collect).unwrap_or_default();
            out.push('{');
            if !keys.is_empty() {
                out.push_str(newline);
                for (i, k) in keys.iter().enumerate() {
                    out.push_str(&pad(level + 1));
                    match k.as_str() {
                        Some(s) => write_string(out, s),
                        None => write_string(out, &k.to_string()),
                    }
                    out.push_str(key);
                    let v = value.get_item(k).unwrap_or_default();
                    write_value(out, &v, level + 1, indent, item, key);
                    if i + 1 < keys.len() {
                        out.push_str(item);
                    }
                    out.push_str(newline);
                }
                out.push_str(&pad(level));
            }
            out.push('}');
        }
        _ => out.push_str("null"),
    }
}

fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Every character past ASCII as `\uXXXX` (UTF-16, lower-case hex).
fn escape_non_ascii(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{u:04x}");
            }
        }
    }
    out
}

/// A double as C++'s `ostream <<` writes it by default: `%g` with six significant digits.
pub fn double(x: f64) -> String {
    if x.is_nan() {
        return if x.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.into();
    }
    const P: i32 = 6;
    // The exponent as %e would write it with P - 1 decimals (after rounding).
    let e = format!("{:.*e}", (P - 1) as usize, x);
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..P).contains(&exp) {
        let decimals = (P - 1 - exp).max(0) as usize;
        strip_zeros(&format!("{x:.decimals$}"))
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", strip_zeros(mantissa), exp.abs())
    }
}

fn strip_zeros(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        s.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_as_cpp_writes_them() {
        for (x, s) in [
            (0.1, "0.1"),
            (1.5, "1.5"),
            (3.0, "3"),
            (1e-5, "1e-05"),
            (123456.0, "123456"),
            (1234567.0, "1.23457e+06"),
            (0.0001, "0.0001"),
            (-2.5e-7, "-2.5e-07"),
            (999999.5, "1e+06"),
        ] {
            assert_eq!(double(x), s, "{x}");
        }
    }

    #[test]
    fn objects_keep_their_order_and_spacing() {
        let v: Value = serde_json::from_str(r#"{"b": [1, 2.5, "x\n"], "a": {"<": null}, "c": []}"#).unwrap();
        assert_eq!(
            to_json(&v, None, ", ", ": ", false),
            r#"{"b": [1, 2.5, "x\n"], "a": {"<": null}, "c": []}"#
        );
        assert_eq!(
            to_json(&v, Some(2), ",", ": ", false),
            "{\n  \"b\": [\n    1,\n    2.5,\n    \"x\\n\"\n  ],\n  \"a\": {\n    \"<\": null\n  },\n  \"c\": []\n}"
        );
        let s: Value = serde_json::from_str(r#""Zürich 🦙""#).unwrap();
        assert_eq!(
            to_json(&s, None, ", ", ": ", true),
            r#""Z\u00fcrich \ud83e\udd99""#
        );
    }
}
