//! The data of `ldp demo`: synthetic NYC-taxi-like rides, bit-exact with the Python tool's
//! `local_data_platform.demo.generate_rides` (the draws are listed on [`rides`]), and the CSV
//! the demo writes.
//!
//! * [`Random`] is the Mersenne Twister as CPython's `random.Random(seed)` seeds and draws it.
//! * [`rides`] generates the rides table from a seed; [`round2`] is Python's `round(x, 2)`.
//! * [`write_csv`] writes a batch as `pyarrow.csv.write_csv` does (quoted header and strings,
//!   `YYYY-MM-DD HH:MM:SS.ffffff` timestamps, shortest floats without a trailing `.0`).
//!
//! ```
//! use arrow_array::cast::AsArray;
//! use arrow_array::types::Float64Type;
//!
//! let batch = ldp_demo::rides(1000, 42, 1);
//! assert_eq!(batch.num_rows(), 1000);
//! let fare = batch.column(4).as_primitive::<Float64Type>();
//! assert_eq!(fare.value(0), 32.28);
//! ```

mod csv;
mod random;

use std::sync::Arc;

use arrow_array::TimestampMicrosecondArray;
use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, TimeUnit};

pub use crate::csv::write_csv;
pub use crate::random::Random;

/// The cities a ride is drawn from, in the order `below(4)` indexes them.
pub const CITIES: [&str; 4] = ["NYC", "BKK", "LDN", "SFO"];

/// 2024-01-01T00:00:00, the first pickup day, in seconds since the Unix epoch.
const START_SECONDS: i64 = 1_704_067_200;
const DAYS: usize = 7;
const SECONDS_PER_DAY: u32 = 86_400;

/// Python's `round(x, 2)`: the double nearest to the exact binary value of `x` rounded to two
/// decimals, ties to even (`round2(2.675) == 2.67`, `round2(0.125) == 0.12`). NaN and the
/// infinities are returned unchanged.
pub fn round2(x: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    // An exact tie (a 5 right after the second decimal) needs x·200 to be an odd integer, which
    // for a binary value means x = j/8 with j odd. Those are rounded to even here; every other
    // value is not a tie, and `{:.2}` rounds its exact decimal expansion correctly.
    let eighths = x * 8.0; // exact: a power-of-two scale
    let text = if eighths.fract() == 0.0 && eighths.abs() < 9_007_199_254_740_992.0 {
        let j = eighths as i64; // exact: an integer below 2^53
        if j % 2 != 0 {
            // x·100 = 25·j/2 = half of an odd integer: round it to the even neighbour.
            let twice = 25 * i128::from(j);
            let down = twice.div_euclid(2);
            let hundredths = if down % 2 == 0 { down } else { down + 1 };
            format!("{hundredths}e-2")
        } else {
            format!("{x:.2}")
        }
    } else {
        format!("{x:.2}")
    };
    let value = text.parse::<f64>().unwrap_or(x);
    // Keep the sign of a value that rounds to zero, as Python does (round(-0.001, 2) = -0.0).
    if value == 0.0 {
        0.0f64.copysign(x)
    } else {
        value
    }
}

/// The schema of [`rides`]: `ride_id` int64, `pickup_ts` timestamp\[us\] (no time zone), `city`
/// string, `distance_km` double, `fare` double; every field nullable, as pyarrow makes them.
pub fn rides_schema() -> Schema {
    Schema::new(vec![
        Field::new("ride_id", DataType::Int64, true),
        Field::new(
            "pickup_ts",
            DataType::Timestamp(TimeUnit::Microsecond, None),
            true,
        ),
        Field::new("city", DataType::Utf8, true),
        Field::new("distance_km", DataType::Float64, true),
        Field::new("fare", DataType::Float64, true),
    ])
}

/// `rows` synthetic rides from `seed`, numbered from `start_id`: the Python tool's
/// `generate_rides(rows, seed, start_id)`, value for value.
///
/// Ride `i` (0-based) draws, in this order: `distance_km = round2(uniform(0.5, 25.0))`; a pickup
/// at 2024-01-01 00:00 plus `i mod 7` days plus `below(86400)` seconds; `city =
/// CITIES[below(4)]`; `fare = round2(3.0 + 1.75 * distance_km + uniform(0.0, 4.0))`. Its
/// `ride_id` is `start_id + i` (wrapping on `i64` overflow, where Python would fail).
pub fn rides(rows: usize, seed: u64, start_id: i64) -> RecordBatch {
    let mut rng = Random::new(seed);
    let mut ride_ids = Vec::with_capacity(rows);
    let mut pickups = Vec::with_capacity(rows);
    let mut cities = Vec::with_capacity(rows);
    let mut distances = Vec::with_capacity(rows);
    let mut fares = Vec::with_capacity(rows);
    for i in 0..rows {
        let distance = round2(rng.uniform(0.5, 25.0));
        let day = (i % DAYS) as i64; // below 7
        let second = i64::from(rng.below(SECONDS_PER_DAY));
        let pickup = START_SECONDS + day * i64::from(SECONDS_PER_DAY) + second;
        let city = CITIES[rng.below(CITIES.len() as u32) as usize];
        let fare = round2(3.0 + 1.75 * distance + rng.uniform(0.0, 4.0));
        ride_ids.push(start_id.wrapping_add(i as i64));
        pickups.push(pickup * 1_000_000);
        cities.push(city);
        distances.push(distance);
        fares.push(fare);
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(ride_ids)),
        Arc::new(TimestampMicrosecondArray::from(pickups)),
        Arc::new(StringArray::from(cities)),
        Arc::new(Float64Array::from(distances)),
        Arc::new(Float64Array::from(fares)),
    ];
    RecordBatch::try_new(Arc::new(rides_schema()), columns)
        .expect("the rides columns match their schema by construction")
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Float64Type, Int64Type, TimestampMicrosecondType};
    use std::collections::BTreeMap;

    type Row = (i64, String, String, f64, f64);

    /// Seconds since the epoch as `YYYY-MM-DD HH:MM:SS` (the tests' dates are all after 1970).
    fn civil(seconds: i64) -> String {
        let (days, rest) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
        let (y, m, d) = csv::civil_from_days(days);
        let (h, mi, s) = (rest / 3600, rest / 60 % 60, rest % 60);
        format!("{y:04}-{m:02}-{d:02} {h:02}:{mi:02}:{s:02}")
    }

    fn rows_of(batch: &RecordBatch) -> Vec<Row> {
        let ids = batch.column(0).as_primitive::<Int64Type>();
        let pickups = batch.column(1).as_primitive::<TimestampMicrosecondType>();
        let cities = batch.column(2).as_string::<i32>();
        let distances = batch.column(3).as_primitive::<Float64Type>();
        let fares = batch.column(4).as_primitive::<Float64Type>();
        (0..batch.num_rows())
            .map(|i| {
                (
                    ids.value(i),
                    civil(pickups.value(i).div_euclid(1_000_000)),
                    cities.value(i).to_owned(),
                    distances.value(i),
                    fares.value(i),
                )
            })
            .collect()
    }

    fn owned(expected: &[(i64, &str, &str, f64, f64)]) -> Vec<Row> {
        expected
            .iter()
            .map(|&(id, ts, city, d, f)| (id, ts.to_owned(), city.to_owned(), d, f))
            .collect()
    }

    #[test]
    fn round2_is_pythons_round() {
        // (x, round(x, 2)) as printed by CPython 3.11.
        let cases = [
            (0.125, 0.12),
            (0.375, 0.38),
            (2.625, 2.62),
            (-0.125, -0.12),
            (1.005, 1.0),
            (2.675, 2.67),
            (1e300, 1e300),
            (123_456_789.125, 123_456_789.12),
            (0.001, 0.0),
            (5e-324, 0.0),
            (0.015, 0.01),
        ];
        for (x, expected) in cases {
            assert_eq!(round2(x).to_bits(), f64::to_bits(expected), "round2({x})");
        }
        assert_eq!(round2(-0.001).to_bits(), (-0.0f64).to_bits());
        assert!(round2(f64::NAN).is_nan());
        assert_eq!(round2(f64::INFINITY), f64::INFINITY);
    }

    #[test]
    fn schema_is_the_references() {
        let batch = rides(3, 42, 1);
        assert_eq!(batch.schema().as_ref(), &rides_schema());
        assert_eq!(rides(0, 42, 1).num_rows(), 0);
    }

    #[test]
    fn seed_42_first_rows_and_totals() {
        let batch = rides(1000, 42, 1);
        let rows = rows_of(&batch);
        assert_eq!(
            rows[..3],
            owned(&[
                (1, "2024-01-01 00:54:38", "LDN", 16.17, 32.28),
                (2, "2024-01-02 03:43:54", "NYC", 3.92, 12.22),
                (3, "2024-01-03 03:24:40", "BKK", 1.28, 6.17),
            ])[..]
        );
        // Python: round(sum(...), 2) with floats summed in row order.
        let fare_sum: f64 = rows.iter().map(|r| r.4).sum();
        let distance_sum: f64 = rows.iter().map(|r| r.3).sum();
        assert_eq!(round2(fare_sum), 27_415.82);
        assert_eq!(round2(distance_sum), 12_784.61);
        let mut cities = BTreeMap::new();
        for row in &rows {
            *cities.entry(row.2.as_str()).or_insert(0) += 1;
        }
        assert_eq!(
            cities,
            BTreeMap::from([("BKK", 248), ("LDN", 250), ("NYC", 240), ("SFO", 262)])
        );
        let newest = rows.iter().map(|r| r.1.as_str()).max();
        assert_eq!(newest, Some("2024-01-07 23:52:09"));
        let min_fare = rows.iter().map(|r| r.4).fold(f64::INFINITY, f64::min);
        let max_fare = rows.iter().map(|r| r.4).fold(f64::NEG_INFINITY, f64::max);
        assert_eq!((min_fare, max_fare), (4.16, 50.23));
        assert_eq!(rows.last().map(|r| r.0), Some(1000));
    }

    // The expected rows of the next two tests were printed by an independent reimplementation
    // of the generator in Python (`rides(rows, seed, start)`, verified equal to the Python
    // tool's `generate_rides`), run with Python 3.11.
    #[test]
    fn ten_rides_seed_43_from_1001() {
        let expected = [
            (1001, "2024-01-01 05:14:25", "SFO", 1.44, 7.0),
            (1002, "2024-01-02 03:30:20", "SFO", 17.61, 36.21),
            (1003, "2024-01-03 18:43:01", "SFO", 15.42, 32.29),
            (1004, "2024-01-04 19:54:54", "SFO", 15.8, 32.23),
            (1005, "2024-01-05 03:54:24", "NYC", 1.91, 7.85),
            (1006, "2024-01-06 18:39:25", "SFO", 2.85, 8.5),
            (1007, "2024-01-07 18:26:51", "LDN", 9.98, 22.77),
            (1008, "2024-01-01 01:46:52", "NYC", 9.73, 20.77),
            (1009, "2024-01-02 06:02:02", "LDN", 2.0, 7.6),
            (1010, "2024-01-03 22:42:06", "NYC", 2.39, 11.14),
        ];
        assert_eq!(rows_of(&rides(10, 43, 1001)), owned(&expected));
    }

    #[test]
    #[allow(clippy::approx_constant, reason = "3.14 is a distance, not π")]
    fn twenty_rides_seed_44_from_1011() {
        let expected = [
            (1011, "2024-01-01 19:43:57", "NYC", 10.51, 22.1),
            (1012, "2024-01-02 01:03:33", "BKK", 6.02, 14.0),
            (1013, "2024-01-03 05:42:17", "LDN", 0.72, 7.03),
            (1014, "2024-01-04 14:44:50", "LDN", 9.77, 21.53),
            (1015, "2024-01-05 10:17:37", "BKK", 8.8, 18.85),
            (1016, "2024-01-06 03:26:43", "LDN", 2.22, 10.72),
            (1017, "2024-01-07 22:46:01", "LDN", 3.14, 8.64),
            (1018, "2024-01-01 17:22:38", "SFO", 9.95, 24.08),
            (1019, "2024-01-02 09:24:22", "BKK", 5.12, 15.07),
            (1020, "2024-01-03 15:53:15", "NYC", 1.56, 8.68),
            (1021, "2024-01-04 23:47:28", "LDN", 17.52, 35.14),
            (1022, "2024-01-05 16:30:58", "BKK", 12.04, 25.0),
            (1023, "2024-01-06 12:35:38", "NYC", 11.66, 24.52),
            (1024, "2024-01-07 00:31:52", "LDN", 0.73, 8.26),
            (1025, "2024-01-01 07:14:49", "SFO", 9.24, 19.62),
            (1026, "2024-01-02 08:08:53", "NYC", 8.83, 22.45),
            (1027, "2024-01-03 22:41:09", "SFO", 19.14, 36.98),
            (1028, "2024-01-04 23:23:27", "NYC", 4.9, 14.05),
            (1029, "2024-01-05 23:29:42", "NYC", 7.7, 17.56),
            (1030, "2024-01-06 09:58:22", "BKK", 0.67, 6.93),
        ];
        assert_eq!(rows_of(&rides(20, 44, 1011)), owned(&expected));
    }

    #[test]
    fn python_random_draws() {
        // CPython 3.11: r = random.Random(42); r.random(), r.randrange(86400), r.choice('abcd')
        let mut rng = Random::new(42);
        assert_eq!(rng.random(), 0.639_426_798_457_883_7);
        assert_eq!(rng.below(86_400), 3278);
        assert_eq!(rng.below(4), 2);
        // r = random.Random(3); [r.randrange(5) for _ in range(5)], r.uniform(0.5, 25.0)
        let mut rng = Random::new(3);
        let draws: Vec<u32> = (0..5).map(|_| rng.below(5)).collect();
        assert_eq!(draws, [1, 4, 4, 1, 2]);
        assert_eq!(rng.uniform(0.5, 25.0), 22.940_647_887_409_035);
    }
}
