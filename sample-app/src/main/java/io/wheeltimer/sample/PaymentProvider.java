package io.wheeltimer.sample;

import io.wheeltimer.spring.WheelTimeLimit;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.stereotype.Component;

/**
 * A simulated payment provider: it charges an order after {@code orders.provider-latency}, and, like
 * real providers, once per idempotency key (here the order id). A charge goes on at the provider when
 * the caller stops waiting for it (a 504); a retry with the same key gets that charge, finished or
 * under way, instead of a second one.
 *
 * <p>Keys are kept for the payment window plus {@link OrdersProperties#paymentClaim()}: only a payment
 * that arrived before its order's {@code payBy} reaches the provider, so no retry comes later.
 */
@Component
public class PaymentProvider {

    private final OrdersProperties properties;
    private final Clock clock;
    private final Duration keyRetention;
    private final AtomicLong charges = new AtomicLong();

    /** The charge of each key, oldest first; guarded by {@code this}. */
    private final Map<String, Kept> byKey = new LinkedHashMap<>();

    private record Kept(CompletableFuture<String> charge, Instant until) {}

    PaymentProvider(OrdersProperties properties, Clock clock) {
        this.properties = properties;
        this.clock = clock;
        this.keyRetention = properties.paymentWindow().plus(properties.paymentClaim());
    }

    /**
     * Charges an order, once however often it is called for that order.
     *
     * @param orderId the order to charge, also the idempotency key
     * @return the provider's charge reference; fails with
     *     {@link java.util.concurrent.TimeoutException} after {@code orders.payment-timeout}
     */
    @WheelTimeLimit("${orders.payment-timeout:2s}")
    public CompletableFuture<String> charge(String orderId) {
        // The caller's own copy: the time limit cancels it when it passes, never the provider's charge.
        return charge(orderId, clock.instant()).copy();
    }

    /**
     * How many charges the provider has made.
     *
     * @return charges made, one per key at most
     */
    public long charges() {
        return charges.get();
    }

    private synchronized CompletableFuture<String> charge(String key, Instant now) {
        for (Iterator<Kept> oldest = byKey.values().iterator(); oldest.hasNext(); ) {
            if (oldest.next().until().isAfter(now)) {
                break;
            }
            oldest.remove();
        }
        Kept kept = byKey.get(key);
        if (kept == null) {
            Executor later = CompletableFuture.delayedExecutor(
                    properties.providerLatency().toNanos(), TimeUnit.NANOSECONDS);
            kept = new Kept(
                    CompletableFuture.supplyAsync(
                            () -> {
                                charges.incrementAndGet();
                                return "charge-" + key;
                            },
                            later),
                    now.plus(keyRetention));
            byKey.put(key, kept);
        }
        return kept.charge();
    }
}
