package io.wheeltimer.spring.autoconfigure;

import io.lettuce.core.resource.ClientResources;
import io.wheeltimer.Timer;
import io.wheeltimer.netty.NettyTimer;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;

/**
 * Runs Lettuce's command timeouts (and its other delays, such as reconnect back-off) on the wheel:
 * with Spring Data Redis on Lettuce and {@code wheel-timer-netty} on the class path, a
 * {@link ClientResourcesBuilderCustomizer} sets the timer of the {@link ClientResources} that Boot
 * builds to a {@link NettyTimer} view of the timer bean. Lettuce then makes no Netty
 * {@code HashedWheelTimer} of its own, and no {@code lettuce-timer} thread that wakes every 100 ms.
 * Lettuce does not stop a timer it is given; the wheel stops with the context.
 *
 * <p>{@code wheel-timer.lettuce.enabled=false} turns it off; {@code wheel-timer.enabled=false} too.
 * The customizer runs before those without an order, so that a customizer of the application's
 * own can still set another timer.
 */
@AutoConfiguration(after = WheelTimerAutoConfiguration.class)
@ConditionalOnClass({ClientResources.class, ClientResourcesBuilderCustomizer.class, NettyTimer.class})
@ConditionalOnBooleanProperty(name = "wheel-timer.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "wheel-timer.lettuce.enabled", matchIfMissing = true)
public final class WheelTimerLettuceAutoConfiguration {

    @Bean
    @ConditionalOnSingleCandidate(Timer.class)
    WheelTimerClientResourcesCustomizer wheelTimerClientResourcesCustomizer(Timer timer) {
        return new WheelTimerClientResourcesCustomizer(timer);
    }

    /** Gives Lettuce's client resources the wheel as their timer. */
    static final class WheelTimerClientResourcesCustomizer implements ClientResourcesBuilderCustomizer, Ordered {

        private final Timer timer;

        WheelTimerClientResourcesCustomizer(Timer timer) {
            this.timer = timer;
        }

        @Override
        public void customize(ClientResources.Builder builder) {
            builder.timer(new LettuceTimer(timer));
        }

        @Override
        public int getOrder() {
            return 0;
        }

        @Override
        public String toString() {
            return "WheelTimerClientResourcesCustomizer(" + timer + ")";
        }
    }
}
