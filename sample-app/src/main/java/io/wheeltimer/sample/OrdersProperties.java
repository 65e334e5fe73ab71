package io.wheeltimer.sample;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * Settings of the order service, under {@code orders}.
 *
 * @param paymentWindow how long an order waits for its payment before it cancels itself
 * @param recoveryInterval how often each instance cancels overdue orders whose deadline no timer holds
 *     (placed by an instance that has since gone, or before a restart)
 * @param providerLatency how long the simulated payment provider takes to answer
 * @param paymentTimeout how long a payment may take before the client gets 504
 * @param maxRequestSize the largest request body accepted; larger ones get 413
 * @param maxItemLength the most characters (code points) an order's item may have
 */
@ConfigurationProperties("orders")
public record OrdersProperties(
        @DefaultValue("30s") Duration paymentWindow,
        @DefaultValue("10s") Duration recoveryInterval,
        @DefaultValue("100ms") Duration providerLatency,
        @DefaultValue("2s") Duration paymentTimeout,
        @DefaultValue("4KB") DataSize maxRequestSize,
        @DefaultValue("200") int maxItemLength) {}
