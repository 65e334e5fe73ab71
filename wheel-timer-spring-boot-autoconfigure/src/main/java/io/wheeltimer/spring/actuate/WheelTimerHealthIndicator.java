package io.wheeltimer.spring.actuate;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.TimerStats;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * UP while every {@link HashedWheelTimer} bean is {@code INIT} or {@code STARTED} and its worker
 * keeps up; DOWN when one was stopped, its worker died, or it lags by more than
 * {@value #MAX_LAG_TICKS} ticks. Details by bean name: state, pending, tickLag.
 */
public class WheelTimerHealthIndicator extends AbstractHealthIndicator {

    /** Lag beyond this many ticks means the worker does not keep up. */
    static final int MAX_LAG_TICKS = 100;

    private final Supplier<Map<String, HashedWheelTimer>> timers;

    /** @param timers the timers by bean name, looked up on each check */
    public WheelTimerHealthIndicator(Supplier<Map<String, HashedWheelTimer>> timers) {
        super("Wheel timer health check failed");
        this.timers = timers;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        boolean up = true;
        Map<String, Object> details = new LinkedHashMap<>();
        for (Map.Entry<String, HashedWheelTimer> entry : timers.get().entrySet()) {
            HashedWheelTimer timer = entry.getValue();
            TimerStats stats = timer.stats();
            Duration maxLag = timer.tickDuration().multipliedBy(MAX_LAG_TICKS);
            up &= stats.state() != HashedWheelTimer.State.SHUTDOWN && stats.tickLag().compareTo(maxLag) <= 0;
            Map<String, Object> detail = new LinkedHashMap<>();
            detail.put("state", stats.state().name());
            detail.put("pending", stats.pending());
            detail.put("tickLag", stats.tickLag().toString());
            details.put(entry.getKey(), detail);
        }
        (up ? builder.up() : builder.down()).withDetails(details);
    }
}
