-- When the payment now in flight arrived (always before pay_by); NULL when none is. A payment claims
-- its order by setting it, so one payment at a time reaches the provider, and the deadline leaves
-- a claimed order alone until the claim lapses (orders.payment-timeout plus 10 s).
ALTER TABLE orders ADD COLUMN payment_arrived_at DATETIME(6) NULL;
