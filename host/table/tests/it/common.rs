//! Helpers shared by the tests: a warehouse with a catalog, sample batches, file listings.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{
    BooleanArray, Date32Array, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray,
    TimestampNanosecondArray,
};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use ldp_catalog::{Catalog, Mode};
use ldp_table::{DataFiles, DataWriter, Table, WriterOptions};

/// The catalog (and namespace) name of the tests.
pub const CATALOG: &str = "nyc";

/// A warehouse folder with a catalog file, removed at the end of the test.
pub struct Warehouse {
    pub dir: tempfile::TempDir,
    pub catalog: Catalog,
}

impl Warehouse {
    pub fn new() -> Warehouse {
        let dir = tempfile::tempdir().expect("temp dir");
        let catalog =
            Catalog::open(Self::file_in(dir.path()), CATALOG, Mode::Create).expect("catalog");
        Warehouse { dir, catalog }
    }

    fn file_in(dir: &Path) -> PathBuf {
        ldp_catalog::catalog_file(&dir.join("warehouse"), CATALOG)
    }

    pub fn root(&self) -> PathBuf {
        self.dir.path().join("warehouse")
    }

    pub fn catalog_file(&self) -> PathBuf {
        Self::file_in(self.dir.path())
    }

    /// Another connection to the catalog (for another thread).
    pub fn open(&self, mode: Mode) -> Catalog {
        Catalog::open(self.catalog_file(), CATALOG, mode).expect("open catalog")
    }

    /// `<warehouse>/nyc/<name>`.
    pub fn location(&self, name: &str) -> PathBuf {
        self.root().join(CATALOG).join(name)
    }

    /// Creates `nyc.<name>` with the schema of [`rides`].
    pub fn create(&self, name: &str) -> Table {
        Table::create(
            &self.catalog,
            CATALOG,
            name,
            &rides(0, 1).schema(),
            &self.location(name),
        )
        .expect("create table")
    }
}

/// A batch of `rows` rides with ids from `start`: id int32 (stored as int), fare double,
/// borough string (nulls every 5th row), pickup timestamp[ns, Europe/Paris] (stored µs UTC),
/// dropoff naive timestamp[ns], day date32, paid bool.
pub fn rides(start: i64, rows: usize) -> RecordBatch {
    let ids: Vec<i64> = (start..start + rows as i64).collect();
    let schema = Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("vendor", DataType::Int32, true),
        Field::new("fare", DataType::Float64, true),
        Field::new("borough", DataType::Utf8, true),
        Field::new(
            "pickup",
            DataType::Timestamp(TimeUnit::Nanosecond, Some("Europe/Paris".into())),
            true,
        ),
        Field::new(
            "dropoff",
            DataType::Timestamp(TimeUnit::Nanosecond, None),
            true,
        ),
        Field::new("day", DataType::Date32, true),
        Field::new("paid", DataType::Boolean, true),
    ]);
    let base_ns: i64 = 1_785_542_400_000_000_000; // 2026-08-01T00:00:00Z
    RecordBatch::try_new(
        Arc::new(schema),
        vec![
            Arc::new(Int64Array::from(ids.clone())),
            Arc::new(Int32Array::from(
                ids.iter().map(|i| (i % 3) as i32).collect::<Vec<_>>(),
            )),
            Arc::new(Float64Array::from(
                ids.iter().map(|i| *i as f64 * 1.5).collect::<Vec<_>>(),
            )),
            Arc::new(StringArray::from(
                ids.iter()
                    .map(|i| {
                        (i % 5 != 0).then(|| {
                            ["Bronx", "Brooklyn", "Manhattan", "Queens"][(*i % 4) as usize]
                        })
                    })
                    .collect::<Vec<_>>(),
            )),
            Arc::new(
                TimestampNanosecondArray::from(
                    ids.iter()
                        .map(|i| base_ns + i * 60_000_000_123)
                        .collect::<Vec<_>>(),
                )
                .with_timezone("Europe/Paris"),
            ),
            Arc::new(TimestampNanosecondArray::from(
                ids.iter()
                    .map(|i| base_ns + i * 90_000_000_456)
                    .collect::<Vec<_>>(),
            )),
            Arc::new(Date32Array::from(
                ids.iter()
                    .map(|i| 20_666 + (*i % 7) as i32)
                    .collect::<Vec<_>>(),
            )),
            Arc::new(BooleanArray::from(
                ids.iter().map(|i| i % 2 == 0).collect::<Vec<_>>(),
            )),
        ],
    )
    .expect("batch")
}

/// Writes `batches` with default options.
pub fn write(table: &Table, batches: &[RecordBatch]) -> DataFiles {
    write_with(table, batches, &WriterOptions::default())
}

pub fn write_with(table: &Table, batches: &[RecordBatch], options: &WriterOptions) -> DataFiles {
    let mut writer = DataWriter::new(table, options).expect("writer");
    for batch in batches {
        writer.write(batch).expect("write batch");
    }
    writer.finish().expect("finish")
}

/// Rows in a list of batches.
pub fn row_count(batches: &[RecordBatch]) -> usize {
    batches.iter().map(RecordBatch::num_rows).sum()
}

/// Every file under `dir`, recursively.
pub fn files_under(dir: &Path) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&next) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.insert(path);
            }
        }
    }
    out
}

/// The ids in a list of batches, sorted.
pub fn ids(batches: &[RecordBatch]) -> Vec<i64> {
    let mut ids: Vec<i64> = batches
        .iter()
        .flat_map(|b| {
            let column = b.column_by_name("id").expect("id column");
            column
                .as_any()
                .downcast_ref::<Int64Array>()
                .expect("long ids")
                .values()
                .to_vec()
        })
        .collect();
    ids.sort_unstable();
    ids
}
