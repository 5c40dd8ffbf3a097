-- Each line: CONTEXT | SQL. CONTEXT is the config ldp query reads (rides.json, orders.json, …)
-- or . for the folder of all of them. duckdb_sql.rs runs each statement with `ldp query
-- CONTEXT SQL --json` and with DuckDB over the same tables (read by pyiceberg), and compares
-- the rows: in order when the statement has ORDER BY, as multisets otherwise.
--
-- The SQL of the Python tool's README (its --release flags left out: a release is gold's).
rides.json | SELECT * FROM rides
rides.json | SELECT count(*) AS n, avg(fare) AS avg_fare FROM rides
rides.json | SELECT count(*) FROM rides
orders.json | SELECT count(*) FROM orders
. | SELECT o.id FROM raw.orders o JOIN raw.customers c ON c.id = o.id
. | SELECT o.id, c.label FROM raw.orders o JOIN raw.customers c ON c.id = o.id
. | SELECT count(*) FROM gold.daily_sales
. | SELECT count(*) FROM robots.gold_episode_stats
-- DuckDB's spellings (docs/tables.md, "DuckDB's SQL").
rides.json | SELECT city, count(*) AS n FROM rides GROUP BY ALL ORDER BY ALL
rides.json | SELECT city, round(sum(fare), 2) AS revenue FROM rides GROUP BY ALL ORDER BY ALL DESC
rides.json | SELECT strftime(pickup_ts, '%Y-%m-%d') AS day, count(*) AS n FROM rides GROUP BY ALL ORDER BY ALL
rides.json | SELECT ride_id, epoch(pickup_ts) AS e, epoch_ms(pickup_ts) AS ms FROM rides ORDER BY ride_id
rides.json | SELECT ride_id, year(pickup_ts) AS y, month(pickup_ts) AS m, day(pickup_ts) AS d, hour(pickup_ts) AS h, minute(pickup_ts) AS mi, dayofweek(pickup_ts) AS dow, dayofyear(pickup_ts) AS doy FROM rides ORDER BY ride_id
rides.json | SELECT ride_id, dayname(pickup_ts) AS dn, monthname(pickup_ts) AS mn FROM rides ORDER BY ride_id
rides.json | SELECT date_trunc('day', pickup_ts) AS day, count(*) AS n FROM rides GROUP BY ALL ORDER BY ALL
rides.json | SELECT ride_id, date_diff('day', TIMESTAMP '2024-01-01 12:00:00', pickup_ts) AS days, date_diff('hour', TIMESTAMP '2024-01-01 00:30:00', pickup_ts) AS hours, date_diff('month', DATE '2023-11-30', pickup_ts) AS months FROM rides ORDER BY ride_id
rides.json | SELECT count_if(fare > 20) AS expensive, count_if(city = 'NYC') AS nyc FROM rides
rides.json | SELECT arg_max(ride_id, fare) AS top, max_by(city, fare) AS top_city, arg_min(ride_id, fare) AS bottom, min_by(city, distance_km) AS nearest FROM rides
rides.json | SELECT city, list(ride_id ORDER BY ride_id) AS ids FROM rides GROUP BY ALL ORDER BY ALL
rides.json | SELECT approx_count_distinct(city) AS cities FROM rides
rides.json | SELECT * EXCLUDE (pickup_ts, distance_km) FROM rides ORDER BY ride_id
rides.json | SELECT * REPLACE (round(fare * 2, 2) AS fare) FROM rides ORDER BY ride_id
rides.json | SELECT ride_id, city, fare FROM rides QUALIFY row_number() OVER (PARTITION BY city ORDER BY fare DESC) = 1 ORDER BY city
rides.json | FROM rides SELECT city, max(fare) AS fare GROUP BY city ORDER BY city
rides.json | SELECT median(fare) AS median, quantile_cont(fare, 0.9) AS p90 FROM rides
rides.json | SELECT string_agg(DISTINCT city, ',' ORDER BY city) AS cities FROM rides
rides.json | SELECT ride_id, fare::INTEGER AS whole FROM rides WHERE city ILIKE 'n%' ORDER BY ride_id
rides.json | SELECT ride_id, len(city) AS l, regexp_matches(city, '^[NS]') AS ns, list_contains([1, 2, 3], ride_id) AS small FROM rides ORDER BY ride_id
rides.json | SELECT extract(epoch FROM pickup_ts) AS e FROM rides ORDER BY e
rides.json | SELECT bool_and(fare > 0) AS all_paid, bool_or(fare > 50) AS any_big FROM rides
