package io.wheeltimer.sample;

import io.wheeltimer.Timeout;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.stereotype.Component;

/**
 * The orders and the payment deadlines of the pending ones, in memory. A status changes only from
 * {@code PENDING_PAYMENT}, atomically, so a payment and the deadline racing each other have
 * exactly one winner.
 */
@Component
public class OrderStore {

    private final Map<String, Order> orders = new ConcurrentHashMap<>();
    private final Map<String, Timeout> deadlines = new ConcurrentHashMap<>();

    void add(Order order) {
        orders.put(order.id(), order);
    }

    Optional<Order> find(String id) {
        return Optional.ofNullable(orders.get(id));
    }

    Collection<Order> all() {
        return List.copyOf(orders.values());
    }

    /**
     * Moves a pending order to {@code status}; an order in any other status stays as it is.
     *
     * @return the order as it was before the call; empty if there is no such order
     */
    Optional<Order> settle(String id, Order.Status status) {
        AtomicReference<Order> before = new AtomicReference<>();
        orders.computeIfPresent(id, (key, order) -> {
            before.set(order);
            return order.status() == Order.Status.PENDING_PAYMENT ? order.withStatus(status) : order;
        });
        return Optional.ofNullable(before.get());
    }

    /** Keeps a pending order's deadline, to cancel it on payment; not if it has already run. */
    void rememberDeadline(String id, Timeout deadline) {
        deadlines.put(id, deadline);
        if (deadline.isExpired()) {
            deadlines.remove(id); // it ran before we got here (a very short window)
        }
    }

    /** Forgets an order's deadline, cancelling it unless it is the one running. */
    void forgetDeadline(String id) {
        Timeout deadline = deadlines.remove(id);
        if (deadline != null) {
            deadline.cancel();
        }
    }
}
