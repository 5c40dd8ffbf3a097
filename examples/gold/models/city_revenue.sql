-- Revenue of each city over every day, from the gold daily table.
SELECT
    city,
    count(DISTINCT day) AS days,
    CAST(sum(orders) AS BIGINT) AS orders,
    CAST(sum(revenue) AS DECIMAL(12, 2)) AS revenue
FROM daily_revenue
GROUP BY city
ORDER BY city
