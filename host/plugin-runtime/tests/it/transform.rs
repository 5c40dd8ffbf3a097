//! The identity transform: what goes in comes out, for every common Arrow type.

use crate::common::testing;
use arrow_array::builder::{Int64Builder, ListBuilder, StringDictionaryBuilder};
use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray, StructArray,
    TimestampMicrosecondArray,
};
use arrow_schema::{DataType, Field, Schema};
use ldp_plugin_runtime::{RuntimeError, Sandbox};
use std::sync::Arc;

pub fn mixed_batch() -> RecordBatch {
    let mut dict = StringDictionaryBuilder::<Int32Type>::new();
    dict.append_value("paris");
    dict.append_null();
    dict.append_value("paris");
    let mut list = ListBuilder::new(Int64Builder::new());
    list.append_value([Some(1), None]);
    list.append_null();
    list.append_value([]);
    let point = StructArray::from(vec![
        (
            Arc::new(Field::new("x", DataType::Float64, true)),
            Arc::new(Float64Array::from(vec![1.5, f64::NAN, -0.0])) as ArrayRef,
        ),
        (
            Arc::new(Field::new("ok", DataType::Boolean, true)),
            Arc::new(BooleanArray::from(vec![Some(true), None, Some(false)])) as ArrayRef,
        ),
    ]);
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(vec![Some(1), None, Some(i64::MAX)])),
        Arc::new(StringArray::from(vec![Some("é"), Some(""), None])),
        Arc::new(
            TimestampMicrosecondArray::from(vec![Some(0), Some(1_785_000_000_000_000), None])
                .with_timezone("UTC"),
        ),
        Arc::new(dict.finish()),
        Arc::new(list.finish()),
        Arc::new(point),
    ];
    let fields: Vec<Field> = ["id", "name", "ts", "city", "list", "point"]
        .iter()
        .zip(&columns)
        .map(|(n, c)| Field::new(*n, c.data_type().clone(), true))
        .collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
}

#[test]
fn identity_gives_back_every_type_unchanged() {
    let plugin = testing("identity");
    let batch = mixed_batch();
    let mut t = plugin
        .open_transform("{}", batch.schema_ref(), &Sandbox::default())
        .unwrap();
    assert_eq!(t.output_schema().fields(), batch.schema().fields());
    for _ in 0..3 {
        let out = t.push(&batch).unwrap();
        assert_eq!(out.len(), 1);
        // NaN != NaN, so compare the IPC-independent debug form.
        assert_eq!(format!("{:?}", out[0]), format!("{batch:?}"));
    }
    assert!(t.flush().unwrap().is_empty());
}

/// Batches are framed straight into the plugin's memory (`direct.rs`): an empty batch, and
/// batches large enough to grow that memory (which moves it) between the allocation and the
/// write, come back unchanged.
#[test]
fn identity_gives_back_empty_and_growing_batches() {
    let plugin = testing("identity");
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, true),
        Field::new("name", DataType::Utf8, true),
    ]));
    let batch = |rows: i64| {
        RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(Int64Array::from_iter_values(0..rows)) as ArrayRef,
                Arc::new(StringArray::from_iter_values(
                    (0..rows).map(|i| format!("row {i}")),
                )),
            ],
        )
        .unwrap()
    };
    let mut t = plugin
        .open_transform("{}", &schema, &Sandbox::default())
        .unwrap();
    for rows in [0, 1, 1_000, 200_000, 0, 1_000_000, 3] {
        let b = batch(rows);
        let out = t.push(&b).unwrap();
        assert_eq!(out, vec![b], "a batch of {rows} rows");
    }
}

#[test]
fn a_batch_of_another_schema_is_refused() {
    let plugin = testing("identity");
    let batch = mixed_batch();
    let mut t = plugin
        .open_transform("{}", batch.schema_ref(), &Sandbox::default())
        .unwrap();
    let other = RecordBatch::try_new(
        Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, true)])),
        vec![Arc::new(Int64Array::from(vec![1]))],
    )
    .unwrap();
    let err = t.push(&other).unwrap_err();
    assert!(matches!(err, RuntimeError::Contract { .. }), "{err}");
}

#[test]
fn a_plugin_of_another_kind_is_refused() {
    let plugin = testing("identity");
    let err = plugin.open_source("{}", &Sandbox::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "plugin 'identity' is a transform plugin; a source plugin is needed here"
    );
}

#[test]
fn compiled_code_is_cached_by_sha256() {
    let plugin = testing("identity");
    let cached: Vec<_> = std::fs::read_dir(crate::common::cache_dir())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(plugin.sha256()))
        .collect();
    assert_eq!(cached.len(), 1, "{cached:?}");
    assert!(cached[0].contains("wasmtime-48.0.8"), "{cached:?}");
}
