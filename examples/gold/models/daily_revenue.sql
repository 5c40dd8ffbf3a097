-- Orders and revenue of each restaurant on each day it had an order.
SELECT
    o.restaurant_id,
    r.name AS restaurant,
    r.city,
    CAST(o.ordered_at AS DATE) AS day,
    count(*) AS orders,
    CAST(sum(o.amount) AS DECIMAL(12, 2)) AS revenue
FROM orders AS o
JOIN restaurants AS r USING (restaurant_id)
GROUP BY ALL
ORDER BY day, restaurant_id
