package io.wheeltimer.sample;

import java.time.Instant;

/**
 * What an order's payment deadline carries, stored with it as JSON: what its cancellation tells
 * without reading the order again.
 *
 * @param item what was ordered
 * @param payBy when the order had to be paid
 */
public record PaymentDeadline(String item, Instant payBy) {}
