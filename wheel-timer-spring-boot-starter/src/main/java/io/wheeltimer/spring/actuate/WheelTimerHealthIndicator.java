package io.wheeltimer.spring.actuate;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.TimerStats;
import java.time.Duration;
import java.util.Objects;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The health of one {@link HashedWheelTimer}: UP while it is {@code INIT} or {@code STARTED} and
 * its worker keeps up; DOWN when it was stopped, its worker died, or it lags by more than
 * {@value #MAX_LAG_TICKS} ticks. Details: {@code state}, {@code pending}, {@code tickLag}. With
 * several timers, the {@code wheelTimer} component is a composite of these, one per bean name.
 */
public class WheelTimerHealthIndicator extends AbstractHealthIndicator {

    /** Lag beyond this many ticks means the worker does not keep up. */
    static final int MAX_LAG_TICKS = 100;

    private final HashedWheelTimer timer;

    /** @param timer the timer to report on */
    public WheelTimerHealthIndicator(HashedWheelTimer timer) {
        super("Wheel timer health check failed");
        this.timer = Objects.requireNonNull(timer, "timer must not be null");
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        TimerStats stats = timer.stats();
        Duration maxLag = timer.tickDuration().multipliedBy(MAX_LAG_TICKS);
        boolean up = stats.state() != HashedWheelTimer.State.SHUTDOWN && stats.tickLag().compareTo(maxLag) <= 0;
        (up ? builder.up() : builder.down())
                .withDetail("state", stats.state().name())
                .withDetail("pending", stats.pending())
                .withDetail("tickLag", stats.tickLag().toString());
    }
}
