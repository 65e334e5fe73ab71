package io.wheeltimer.sample;

import java.time.Instant;

/**
 * An order as the API shows it.
 *
 * @param id its identifier
 * @param item what was ordered
 * @param status where it stands
 * @param createdAt when it was placed
 * @param payBy when it cancels itself unless paid
 */
public record Order(String id, String item, Status status, Instant createdAt, Instant payBy) {

    /** Where an order stands. */
    public enum Status {
        PENDING_PAYMENT,
        PAID,
        CANCELLED
    }

    Order withStatus(Status newStatus) {
        return new Order(id, item, newStatus, createdAt, payBy);
    }
}
