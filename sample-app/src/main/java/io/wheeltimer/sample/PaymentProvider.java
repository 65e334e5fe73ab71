package io.wheeltimer.sample;

import io.wheeltimer.spring.WheelTimeLimit;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.springframework.stereotype.Component;

/** A simulated payment provider: it charges an order after {@code orders.provider-latency}. */
@Component
public class PaymentProvider {

    private final OrdersProperties properties;

    PaymentProvider(OrdersProperties properties) {
        this.properties = properties;
    }

    /**
     * Charges an order.
     *
     * @param orderId the order to charge
     * @return the provider's charge reference; fails with
     *     {@link java.util.concurrent.TimeoutException} after {@code orders.payment-timeout}
     */
    @WheelTimeLimit("${orders.payment-timeout:2s}")
    public CompletableFuture<String> charge(String orderId) {
        Executor later =
                CompletableFuture.delayedExecutor(properties.providerLatency().toNanos(), TimeUnit.NANOSECONDS);
        // The deadline is the annotation's: on the wheel, and it cancels this future when it passes.
        return CompletableFuture.supplyAsync(() -> "charge-" + orderId, later);
    }
}
