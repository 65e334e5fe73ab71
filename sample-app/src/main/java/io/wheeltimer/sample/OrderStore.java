package io.wheeltimer.sample;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The orders, as rows of table {@code orders}. A status changes only from {@code PENDING_PAYMENT}, by a
 * conditional update, so a payment and the deadline racing each other (also on two instances) have
 * exactly one winner: the one whose update counted a row.
 */
@Component
class OrderStore {

    private static final String PENDING = Order.Status.PENDING_PAYMENT.name();

    private final JdbcClient jdbc;

    OrderStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    void add(Order order) {
        jdbc.sql("INSERT INTO orders (id, item, status, created_at, pay_by) VALUES (?, ?, ?, ?, ?)")
                .params(order.id(), order.item(), order.status().name(), utc(order.createdAt()), utc(order.payBy()))
                .update();
    }

    Optional<Order> find(String id) {
        return jdbc.sql("SELECT id, item, status, created_at, pay_by FROM orders WHERE id = ?")
                .param(id)
                .query(OrderStore::order)
                .optional();
    }

    /** Up to {@code limit} orders, newest first, after skipping {@code offset}; index {@code orders_created_at}. */
    List<Order> newestFirst(long offset, int limit) {
        return jdbc.sql("SELECT id, item, status, created_at, pay_by FROM orders"
                        + " ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?")
                .params(limit, offset)
                .query(OrderStore::order)
                .list();
    }

    long count() {
        return jdbc.sql("SELECT COUNT(*) FROM orders").query(Long.class).single();
    }

    /** The pending orders and their deadlines, to arm them again at startup. */
    List<Order> pending() {
        return jdbc.sql("SELECT id, item, status, created_at, pay_by FROM orders WHERE status = ? ORDER BY pay_by")
                .param(PENDING)
                .query(OrderStore::order)
                .list();
    }

    /** Pays an order still pending whose window is open at {@code now}; true if this call paid it. */
    boolean pay(String id, Instant now) {
        return jdbc.sql("UPDATE orders SET status = 'PAID' WHERE id = ? AND status = ? AND pay_by > ?")
                        .params(id, PENDING, utc(now))
                        .update()
                == 1;
    }

    /** Cancels an order still pending; true if this call cancelled it. */
    boolean cancel(String id) {
        return jdbc.sql("UPDATE orders SET status = 'CANCELLED' WHERE id = ? AND status = ?")
                        .params(id, PENDING)
                        .update()
                == 1;
    }

    /** Cancels every pending order whose deadline has passed at {@code now}; one indexed query. */
    int cancelOverdue(Instant now) {
        return jdbc.sql("UPDATE orders SET status = 'CANCELLED' WHERE status = ? AND pay_by <= ?")
                .params(PENDING, utc(now))
                .update();
    }

    private static OffsetDateTime utc(Instant instant) {
        return instant.atOffset(ZoneOffset.UTC);
    }

    private static Order order(java.sql.ResultSet rs, int row) throws java.sql.SQLException {
        return new Order(
                rs.getString("id"),
                rs.getString("item"),
                Order.Status.valueOf(rs.getString("status")),
                rs.getObject("created_at", OffsetDateTime.class).toInstant(),
                rs.getObject("pay_by", OffsetDateTime.class).toInstant());
    }
}
