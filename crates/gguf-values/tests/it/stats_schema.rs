//! Stats serialize as the report's `TensorStats`, valid against the committed schema
//! (`schema/report.schema.json`).

use gguf_values::stats::Stats;

#[test]
fn tensor_stats_are_valid() {
    let to_checked = |stats: &Stats| {
        gguf_test_support::schema::checked("TensorStats", serde_json::to_value(stats).unwrap())
    };
    let values = [1.5, -2.0, 0.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY];
    let stats = to_checked(&Stats::of(&values, 4, 3));
    assert_eq!(stats["first"][2], 0.0);
    to_checked(&Stats::of(&[], 0, 0));
}
