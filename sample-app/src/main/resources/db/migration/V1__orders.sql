-- One row per order. status moves only from PENDING_PAYMENT, by conditional updates.
CREATE TABLE orders (
    id         VARCHAR(36)              PRIMARY KEY,
    item       VARCHAR(1000)            NOT NULL,
    status     VARCHAR(20)              NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL,
    pay_by     TIMESTAMP WITH TIME ZONE NOT NULL
);

-- The recovery sweep (status = 'PENDING_PAYMENT' AND pay_by <= now) and the startup re-arm read this index only.
CREATE INDEX orders_status_pay_by ON orders (status, pay_by);
