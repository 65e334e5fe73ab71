package io.wheeltimer.spring.actuate;

import io.wheeltimer.jdbc.JdbcDurableTimer;
import java.util.Objects;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The health of a durable timer, {@code wheelTimerDurable}: DOWN after {@value #FAILED_POLLS_DOWN}
 * polls in a row failed (the database cannot be reached: nothing is claimed, no lease renewed), UP
 * otherwise. Details: {@code instance} (this instance's id), {@code held} (the timeouts it holds) and
 * {@code lastPoll} (when the last poll succeeded, ISO-8601; absent before the first).
 */
public class DurableTimerHealthIndicator extends AbstractHealthIndicator {

    /** Failed polls in a row that make the timer DOWN. */
    public static final int FAILED_POLLS_DOWN = 3;

    private final JdbcDurableTimer timer;

    public DurableTimerHealthIndicator(JdbcDurableTimer timer) {
        super("Durable timer health check failed");
        this.timer = Objects.requireNonNull(timer, "timer must not be null");
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        boolean up = timer.failedPollsInARow() < FAILED_POLLS_DOWN;
        (up ? builder.up() : builder.down())
                .withDetail("instance", timer.instanceId())
                .withDetail("held", timer.held());
        timer.lastSuccessfulPoll().ifPresent(last -> builder.withDetail("lastPoll", last.toString()));
    }
}
