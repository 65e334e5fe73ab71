package io.wheeltimer.sample;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the order service, under {@code orders}.
 *
 * @param paymentWindow how long an order waits for its payment before it cancels itself
 */
@ConfigurationProperties("orders")
public record OrdersProperties(@DefaultValue("30s") Duration paymentWindow) {
}
