//! Property tests with the builder's input as the oracle: for any model — GGUF v1, v2 or v3, either
//! byte order, any values (nested arrays, non-UTF-8 bytes, NaN), any tensor infos — decoding what
//! the builder wrote gives the model back, feeding it in random chunks gives the same, and the
//! header writer gives the builder's bytes back.

use gguf_core::header::StringArray;
use gguf_core::testkit::{GgufBuilder, assert_same_in_chunks};
use gguf_core::{Array, Endian, GgmlType, Value};
use gguf_test_support::same_value;
use proptest::prelude::*;

fn bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..max)
}

fn leaf_array() -> impl Strategy<Value = Array> {
    let n = 0..6;
    prop_oneof![
        prop::collection::vec(any::<u8>(), n.clone()).prop_map(Array::U8),
        prop::collection::vec(any::<i8>(), n.clone()).prop_map(Array::I8),
        prop::collection::vec(any::<u16>(), n.clone()).prop_map(Array::U16),
        prop::collection::vec(any::<i16>(), n.clone()).prop_map(Array::I16),
        prop::collection::vec(any::<u32>(), n.clone()).prop_map(Array::U32),
        prop::collection::vec(any::<i32>(), n.clone()).prop_map(Array::I32),
        prop::collection::vec(any::<f32>(), n.clone()).prop_map(Array::F32),
        prop::collection::vec(any::<bool>(), n.clone()).prop_map(Array::Bool),
        prop::collection::vec(bytes(12), n.clone())
            .prop_map(|v| Array::String(v.iter().collect::<StringArray>())),
        prop::collection::vec(any::<u64>(), n.clone()).prop_map(Array::U64),
        prop::collection::vec(any::<i64>(), n.clone()).prop_map(Array::I64),
        prop::collection::vec(any::<f64>(), n).prop_map(Array::F64),
    ]
}

fn array() -> impl Strategy<Value = Array> {
    leaf_array().prop_recursive(3, 24, 4, |inner| {
        prop::collection::vec(inner, 0..4).prop_map(Array::Array)
    })
}

fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<u8>().prop_map(Value::U8),
        any::<i8>().prop_map(Value::I8),
        any::<u16>().prop_map(Value::U16),
        any::<i16>().prop_map(Value::I16),
        any::<u32>().prop_map(Value::U32),
        any::<i32>().prop_map(Value::I32),
        any::<f32>().prop_map(Value::F32),
        any::<bool>().prop_map(Value::Bool),
        bytes(40).prop_map(|b| Value::String(b.into())),
        any::<u64>().prop_map(Value::U64),
        any::<i64>().prop_map(Value::I64),
        any::<f64>().prop_map(Value::F64),
        array().prop_map(Value::Array),
    ]
}

#[derive(Debug, Clone)]
struct Tensor {
    name: Vec<u8>,
    dims: Vec<u64>,
    ty: u32,
    offset: u64,
}

fn tensor(narrow: bool) -> impl Strategy<Value = Tensor> {
    let dim = if narrow {
        (0..=u64::from(u32::MAX)).boxed()
    } else {
        any::<u64>().boxed()
    };
    (
        bytes(70),
        prop::collection::vec(dim, 0..=8),
        0u32..60,
        any::<u64>(),
    )
        .prop_map(|(name, dims, ty, offset)| Tensor {
            name,
            dims,
            ty,
            offset,
        })
}

#[derive(Debug, Clone)]
struct Model {
    version: u32,
    endian: Endian,
    kvs: Vec<(Vec<u8>, Value)>,
    tensors: Vec<Tensor>,
}

fn model() -> impl Strategy<Value = Model> {
    (1u32..=3, any::<bool>()).prop_flat_map(|(version, big)| {
        let endian = if big { Endian::Big } else { Endian::Little };
        (
            prop::collection::vec((bytes(24), value()), 0..12),
            prop::collection::vec(tensor(version == 1), 0..6),
        )
            .prop_map(move |(kvs, tensors)| Model {
                version,
                endian,
                kvs,
                tensors,
            })
    })
}

fn build(m: &Model) -> Vec<u8> {
    let mut b = GgufBuilder::new().version(m.version).endian(m.endian);
    for (k, v) in &m.kvs {
        b = b.kv(k, v.clone());
    }
    for t in &m.tensors {
        b = b.tensor_at(&t.name, &t.dims, GgmlType(t.ty), t.offset);
    }
    b.build()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn decoding_gives_the_model_back(m in model(), cuts in prop::collection::vec(1usize..64, 1..64)) {
        let file = build(&m);
        let header = gguf_core::parse(&file).expect("the builder writes valid headers");
        prop_assert_eq!(header.version, m.version);
        prop_assert_eq!(header.endian, m.endian);
        prop_assert_eq!(header.metadata.len(), m.kvs.len());
        for (entry, (key, value)) in header.metadata.entries().iter().zip(&m.kvs) {
            prop_assert_eq!(entry.key.as_bytes(), &key[..]);
            prop_assert!(same_value(&entry.value, value), "{:?} != {:?}", entry.value, value);
        }
        prop_assert_eq!(header.tensors.len(), m.tensors.len());
        for (info, t) in header.tensors.iter().zip(&m.tensors) {
            prop_assert_eq!(info.name.as_bytes(), &t.name[..]);
            prop_assert_eq!(&info.dims, &t.dims);
            prop_assert_eq!(info.ty, GgmlType(t.ty));
            prop_assert_eq!(info.offset, t.offset);
        }
        prop_assert_eq!(header.header_len, file.len() as u64);
        // The writer gives the builder's bytes back exactly.
        prop_assert_eq!(gguf_core::write::write_header(&header).unwrap().bytes, file.clone());

        // The same bytes in random chunks.
        let cuts = cuts.iter().copied().cycle().take(file.len());
        assert_same_in_chunks("the built file", &file, cuts);
    }
}
