//! Table rows: create, load, commit, drop, rename.

use crate::common::{Engine, new_catalog};
use ldp_catalog::{ErrorKind, TableRecord};

on_both_engines!(
    create_load_commit,
    stale_commit_is_a_retryable_conflict_and_changes_nothing,
    create_existing_and_bad_names,
    drop_and_rename,
    a_row_without_metadata_location_is_corrupt,
);

fn create_load_commit(engine: Engine) {
    let (place, c) = new_catalog(engine, "nyc");
    c.create_namespace_if_missing("nyc").unwrap();
    c.create_table("nyc", "rides", "file:///w/m0.json").unwrap();
    assert_eq!(
        c.load_table("nyc", "rides").unwrap(),
        Some(TableRecord {
            metadata_location: "file:///w/m0.json".into(),
            previous_metadata_location: None,
        })
    );
    assert!(c.table_exists("nyc", "rides").unwrap());
    assert_eq!(c.load_table("nyc", "other").unwrap(), None);

    c.commit("nyc", "rides", "file:///w/m0.json", "file:///w/m1.json")
        .unwrap();
    let rec = c.load_table("nyc", "rides").unwrap().unwrap();
    assert_eq!(rec.metadata_location, "file:///w/m1.json");
    assert_eq!(
        rec.previous_metadata_location.as_deref(),
        Some("file:///w/m0.json")
    );
    let s = |v: &str| Some(v.to_string());
    assert_eq!(
        place.table_rows(),
        [[
            s("nyc"),
            s("nyc"),
            s("rides"),
            s("file:///w/m1.json"),
            s("file:///w/m0.json"),
            s("TABLE")
        ]]
    );
}

fn stale_commit_is_a_retryable_conflict_and_changes_nothing(engine: Engine) {
    let (place, c) = new_catalog(engine, "c");
    c.create_namespace_if_missing("ns").unwrap();
    c.create_table("ns", "t", "m0").unwrap();
    c.commit("ns", "t", "m0", "m1").unwrap();
    let e = c.commit("ns", "t", "m0", "m2").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::CommitConflict);
    assert!(e.is_retryable());
    assert_eq!(
        e.to_string(),
        format!(
            "commit to Iceberg table ns.t lost a race in the catalog at {}: it expected metadata m0, \
             the catalog holds m1; reload the table and retry",
            place.shown()
        )
    );
    let rec = c.load_table("ns", "t").unwrap().unwrap();
    assert_eq!(
        (
            rec.metadata_location.as_str(),
            rec.previous_metadata_location.as_deref()
        ),
        ("m1", Some("m0"))
    );

    let e = c.commit("ns", "gone", "m0", "m1").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    assert!(!e.is_retryable());
    assert_eq!(
        e.to_string(),
        format!(
            "Iceberg table ns.gone does not exist in the catalog at {}",
            place.shown()
        )
    );
}

fn create_existing_and_bad_names(engine: Engine) {
    let (place, c) = new_catalog(engine, "c");
    c.create_namespace_if_missing("ns").unwrap();
    c.create_table("ns", "t", "m0").unwrap();
    let e = c.create_table("ns", "t", "other").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AlreadyExists);
    assert_eq!(
        e.to_string(),
        format!(
            "Iceberg table ns.t already exists in the catalog at {}",
            place.shown()
        )
    );
    assert_eq!(
        c.load_table("ns", "t").unwrap().unwrap().metadata_location,
        "m0"
    );
    for (ns, name) in [("ns", ""), ("ns", "a.b"), ("", "t"), ("ns.", "t")] {
        let e = c.create_table(ns, name, "m").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidName, "{ns:?} {name:?}: {e}");
        assert!(e.to_string().contains(&place.shown()));
    }
}

fn drop_and_rename(engine: Engine) {
    let (_place, c) = new_catalog(engine, "c");
    c.create_namespace_if_missing("ns").unwrap();
    c.create_namespace_if_missing("other").unwrap();
    c.create_table("ns", "t", "m0").unwrap();
    c.create_table("ns", "u", "u0").unwrap();

    assert_eq!(
        c.rename_table("ns", "t", "ns", "u").unwrap_err().kind(),
        ErrorKind::AlreadyExists
    );
    assert_eq!(
        c.rename_table("ns", "t", "nope", "t").unwrap_err().kind(),
        ErrorKind::NotFound
    );
    assert_eq!(
        c.rename_table("ns", "zz", "ns", "yy").unwrap_err().kind(),
        ErrorKind::NotFound
    );
    c.rename_table("ns", "t", "other", "t2").unwrap();
    assert_eq!(c.list_tables("ns").unwrap(), ["u"]);
    assert_eq!(c.list_tables("other").unwrap(), ["t2"]);
    assert_eq!(
        c.load_table("other", "t2")
            .unwrap()
            .unwrap()
            .metadata_location,
        "m0"
    );

    let dropped = c.drop_table("other", "t2").unwrap();
    assert_eq!(dropped.metadata_location, "m0");
    assert_eq!(
        c.drop_table("other", "t2").unwrap_err().kind(),
        ErrorKind::NotFound
    );
    assert!(c.list_tables("other").unwrap().is_empty());
}

fn a_row_without_metadata_location_is_corrupt(engine: Engine) {
    let (place, c) = new_catalog(engine, "c");
    c.create_namespace_if_missing("ns").unwrap();
    place.exec("INSERT INTO iceberg_tables VALUES ('c', 'ns', 't', NULL, NULL, 'TABLE')");
    let e = c.load_table("ns", "t").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Corrupt);
    assert!(
        e.to_string()
            .contains("table ns.t has no metadata_location"),
        "{e}"
    );
}
