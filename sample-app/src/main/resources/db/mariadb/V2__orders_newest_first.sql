-- GET /orders pages newest first (ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?): read from this index, not sorted.
CREATE INDEX orders_created_at ON orders (created_at, id);
