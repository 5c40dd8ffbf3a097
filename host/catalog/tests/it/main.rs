//! Integration tests of `ldp-catalog` on real SQLite files and a real PostgreSQL server (see
//! `ldp_test_servers::postgres`; PostgreSQL's server programs must be installed).

/// Runs each listed test function, which takes an [`common::Engine`], once per engine: as
/// `<name>::sqlite` and `<name>::postgres`.
macro_rules! on_both_engines {
    ($($test:ident),* $(,)?) => {$(
        mod $test {
            #[test]
            fn sqlite() {
                super::$test(crate::common::Engine::Sqlite)
            }

            #[test]
            fn postgres() {
                super::$test(crate::common::Engine::Postgres)
            }
        }
    )*};
}

mod common;
mod concurrency;
mod files;
mod namespaces;
mod postgres;
mod tables;
