//! The three shapes a derive cannot say: a float JSON cannot hold, a list written as it is
//! produced, and an object whose keys are data.

use alloc::boxed::Box;
use alloc::vec::Vec;

use serde::ser::{Serialize, Serializer};

/// A float, or its name when JSON cannot hold it (`"nan"`, `"inf"`, `"-inf"`): the rule of every
/// JSON document the project writes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Float(pub f64);

impl Serialize for Float {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            v if v.is_nan() => s.serialize_str("nan"),
            v if v == f64::INFINITY => s.serialize_str("inf"),
            v if v == f64::NEG_INFINITY => s.serialize_str("-inf"),
            v => s.serialize_f64(v),
        }
    }
}

/// A list written element by element as it is serialized, so that a long one (a vocabulary's
/// tokens, a model's tensors) is never copied whole: the elements are `element(i)` for `i` in
/// `0..len`, those that are `None` left out.
pub struct Stream<'a, T> {
    len: usize,
    element: Box<dyn Fn(usize) -> Option<T> + 'a>,
}

impl<'a, T> Stream<'a, T> {
    /// The list of `element(i)` for `i` in `0..len`.
    pub fn new(len: usize, element: impl Fn(usize) -> Option<T> + 'a) -> Stream<'a, T> {
        Stream {
            len,
            element: Box::new(element),
        }
    }
}

impl<T: Serialize> Serialize for Stream<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq((0..self.len).filter_map(|i| (self.element)(i)))
    }
}

/// A JSON object whose keys are data (tensor type names, flag names), in this order.
#[derive(Debug, Clone, PartialEq)]
pub struct Map<K, V>(pub Vec<(K, V)>);

impl<K: Serialize, V: Serialize> Serialize for Map<K, V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

#[cfg(feature = "schema")]
mod schema {
    use alloc::borrow::Cow;
    use alloc::vec::Vec;

    use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

    use super::{Float, Map, Stream};

    impl JsonSchema for Float {
        fn schema_name() -> Cow<'static, str> {
            "Float".into()
        }

        fn json_schema(_: &mut SchemaGenerator) -> Schema {
            json_schema!({
                "description": "A float; NaN and the infinities, which JSON cannot hold, as the strings \"nan\", \"inf\" and \"-inf\".",
                "anyOf": [
                    { "type": "number", "format": "double" },
                    { "type": "string", "enum": ["nan", "inf", "-inf"] }
                ]
            })
        }
    }

    impl<T: JsonSchema> JsonSchema for Stream<'_, T> {
        fn inline_schema() -> bool {
            true
        }

        fn schema_name() -> Cow<'static, str> {
            Vec::<T>::schema_name()
        }

        fn json_schema(generator: &mut SchemaGenerator) -> Schema {
            Vec::<T>::json_schema(generator)
        }
    }

    impl<K, V: JsonSchema> JsonSchema for Map<K, V> {
        fn inline_schema() -> bool {
            true
        }

        fn schema_name() -> Cow<'static, str> {
            alloc::format!("Map_of_{}", V::schema_name()).into()
        }

        fn json_schema(generator: &mut SchemaGenerator) -> Schema {
            json_schema!({
                "type": "object",
                "additionalProperties": generator.subschema_for::<V>(),
            })
        }
    }
}
