package io.wheeltimer.sample;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * Settings of the order service, under {@code orders}.
 *
 * @param paymentWindow how long an order waits for its payment before it cancels itself
 * @param providerLatency how long the simulated payment provider takes to answer
 * @param paymentTimeout how long a payment may take before the client gets 504
 * @param maxRequestSize the largest request body accepted; larger ones get 413
 * @param maxItemLength the most characters (code points) an order's item may have
 */
@ConfigurationProperties("orders")
public record OrdersProperties(
        @DefaultValue("30s") Duration paymentWindow,
        @DefaultValue("100ms") Duration providerLatency,
        @DefaultValue("2s") Duration paymentTimeout,
        @DefaultValue("4KB") DataSize maxRequestSize,
        @DefaultValue("200") int maxItemLength) {

    /** Time a payment may take beyond its charge's limit, for the database round trips around the charge. */
    static final Duration CLAIM_MARGIN = Duration.ofSeconds(10);

    /**
     * How long a payment holds its order: {@code payment-timeout} plus {@link #CLAIM_MARGIN}. A claim
     * older than that belongs to a payment that will not finish (its instance died, or lost the
     * database): the deadline may cancel the order, or another payment take it over. A deadline that
     * finds its order claimed waits for the claim to lapse.
     *
     * @return how long a claim lasts
     */
    public Duration paymentClaim() {
        return paymentTimeout.plus(CLAIM_MARGIN);
    }
}
