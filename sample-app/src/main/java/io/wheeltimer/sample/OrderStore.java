package io.wheeltimer.sample;

import java.time.Clock;
import java.time.Duration;
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
 *
 * <p>A payment that arrives before {@code pay_by} first claims its order: it writes its arrival time
 * into {@code payment_arrived_at}, if no other payment holds the order. Only the claimant may mark it
 * paid, so at most one payment per order reaches the provider at a time; and the deadline leaves a
 * claimed order alone, so a payment that arrived in time is not cancelled under it. A claim older than
 * {@link OrdersProperties#paymentClaim()} is abandoned (its payment will not finish) and no longer
 * counts.
 *
 * <p>A cancellation records when it happened ({@code cancelled_at}), so how late a deadline was is
 * {@code cancelled_at - pay_by}.
 */
@Component
class OrderStore {

    private static final String PENDING = Order.Status.PENDING_PAYMENT.name();

    private final JdbcClient jdbc;
    private final Clock clock;
    private final Duration claim;

    OrderStore(JdbcClient jdbc, Clock clock, OrdersProperties properties) {
        this.jdbc = jdbc;
        this.clock = clock;
        this.claim = properties.paymentClaim();
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

    /**
     * Claims a pending order for the payment that arrived at {@code arrived}: only if it arrived before
     * {@code pay_by} and no other payment holds the order.
     *
     * @return true if this payment now holds the order
     */
    boolean claim(String id, Instant arrived) {
        return jdbc.sql("UPDATE orders SET payment_arrived_at = ? WHERE id = ? AND status = ? AND pay_by > ?"
                                + " AND (payment_arrived_at IS NULL OR payment_arrived_at <= ?)")
                        .params(utc(arrived), id, PENDING, utc(arrived), utc(claimedBefore()))
                        .update()
                == 1;
    }

    /** Pays an order that the payment which arrived at {@code arrived} still holds; true if it did. */
    boolean pay(String id, Instant arrived) {
        return jdbc.sql("UPDATE orders SET status = 'PAID', payment_arrived_at = NULL"
                                + " WHERE id = ? AND status = ? AND payment_arrived_at = ?")
                        .params(id, PENDING, utc(arrived))
                        .update()
                == 1;
    }

    /**
     * Lets go of an order whose payment failed: pending again if its window is still open at
     * {@code now}, else cancelled, since its deadline has passed it by.
     *
     * @return true if this call cancelled the order
     */
    boolean release(String id, Instant arrived, Instant now) {
        boolean cancelled =
                jdbc.sql("UPDATE orders SET status = 'CANCELLED', payment_arrived_at = NULL, cancelled_at = ?"
                                        + " WHERE id = ? AND status = ? AND payment_arrived_at = ? AND pay_by <= ?")
                                .params(utc(now), id, PENDING, utc(arrived), utc(now))
                                .update()
                        == 1;
        if (!cancelled) {
            jdbc.sql(
                            "UPDATE orders SET payment_arrived_at = NULL WHERE id = ? AND status = ? AND payment_arrived_at = ?")
                    .params(id, PENDING, utc(arrived))
                    .update();
        }
        return cancelled;
    }

    /** Cancels an order still pending that no payment holds; true if this call cancelled it. */
    boolean cancel(String id) {
        Instant now = clock.instant();
        return jdbc.sql(
                                "UPDATE orders SET status = 'CANCELLED', payment_arrived_at = NULL, cancelled_at = ?"
                                        + " WHERE id = ? AND status = ? AND (payment_arrived_at IS NULL OR payment_arrived_at <= ?)")
                        .params(utc(now), id, PENDING, utc(now.minus(claim)))
                        .update()
                == 1;
    }

    /**
     * When the claim on a pending order lapses: the payment that holds it has until then to mark it
     * paid or let it go.
     *
     * @return when the claim lapses; empty if the order is not pending, or no payment holds it
     */
    Optional<Instant> claimLapses(String id) {
        return jdbc.sql("SELECT payment_arrived_at FROM orders WHERE id = ? AND status = ?")
                .params(id, PENDING)
                .query((rs, row) -> Optional.ofNullable(rs.getObject("payment_arrived_at", OffsetDateTime.class)))
                .optional()
                .flatMap(arrived -> arrived)
                .map(arrived -> arrived.toInstant().plus(claim));
    }

    /** Claims made before this instant have lapsed. */
    private Instant claimedBefore() {
        return clock.instant().minus(claim);
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
