package io.wheeltimer.spring.autoconfigure;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.TimerStats;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The health of one {@link HashedWheelTimer}: UP while it is {@code INIT} or {@code STARTED} and
 * its worker keeps up; DOWN when it was stopped, its worker died, or it lags by more than
 * {@value #MAX_LAG_TICKS} ticks. Details are keyed by the bean name:
 * {@code {"wheelTimer": {"state", "pending", "tickLag"}}}. With several timers, the
 * {@code wheelTimer} component is a composite of these, one per bean name.
 */
public class WheelTimerHealthIndicator extends AbstractHealthIndicator {

    /** Lag beyond this many ticks means the worker does not keep up. */
    static final int MAX_LAG_TICKS = 100;

    private final String name;
    private final HashedWheelTimer timer;

    /**
     * @param name the timer's bean name, the key of its details
     * @param timer the timer to report on
     */
    public WheelTimerHealthIndicator(String name, HashedWheelTimer timer) {
        super("Wheel timer health check failed");
        this.name = Objects.requireNonNull(name, "name must not be null");
        this.timer = Objects.requireNonNull(timer, "timer must not be null");
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        TimerStats stats = timer.stats();
        Duration maxLag = timer.tickDuration().multipliedBy(MAX_LAG_TICKS);
        boolean up = stats.state() != HashedWheelTimer.State.SHUTDOWN
                && stats.tickLag().compareTo(maxLag) <= 0;
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("state", stats.state().name());
        detail.put("pending", stats.pending());
        detail.put("tickLag", stats.tickLag().toString());
        (up ? builder.up() : builder.down()).withDetail(name, detail);
    }
}
