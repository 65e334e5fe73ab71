-- MariaDB's counterpart of db/migration/V1__orders.sql (H2 and PostgreSQL), version for version.
-- One row per order. status moves only from PENDING_PAYMENT, by conditional updates.
-- Times are DATETIME(6): MariaDB has no TIMESTAMP WITH TIME ZONE. Connector/J writes and reads an
-- instant in the connection's time zone (the JVM's, unless the URL sets connectionTimeZone), so the
-- instants come back as they went in; with connectionTimeZone=UTC the column holds UTC.
-- The character set is the table's own, whatever the server's default: an item may be any text. Ids
-- compare exactly (utf8mb4_nopad_bin), as they do on H2 and PostgreSQL.
CREATE TABLE orders (
    id         VARCHAR(36)   NOT NULL,
    item       VARCHAR(1000) NOT NULL,
    status     VARCHAR(20)   NOT NULL,
    created_at DATETIME(6)   NOT NULL,
    pay_by     DATETIME(6)   NOT NULL,
    PRIMARY KEY (id)
) ENGINE = InnoDB DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin;

-- The same index as on H2 and PostgreSQL.
CREATE INDEX orders_status_pay_by ON orders (status, pay_by);
