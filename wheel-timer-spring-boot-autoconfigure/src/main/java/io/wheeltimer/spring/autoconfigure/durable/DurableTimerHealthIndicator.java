package io.wheeltimer.spring.autoconfigure.durable;

import io.wheeltimer.jdbc.JdbcDurableTimer;
import java.util.Objects;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The health of a durable timer, {@code wheelTimerDurable}: DOWN when its polls do not keep up (the
 * last successful poll is older than three poll intervals, at least 2 s, or than half the lease:
 * the database cannot be reached, or a poll hangs waiting for a connection) or after
 * {@value #FAILED_POLLS_DOWN} polls in a row failed; UP otherwise. Details: {@code instance} (this
 * instance's id), {@code held} (the timeouts it holds), {@code lastPoll} (when the last successful
 * poll ended, ISO-8601; absent before the first) and {@code clockOffset} (the database's clock less
 * this instance's, ISO-8601, when the database's clock judges; a second or more is logged at WARN).
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
        boolean up = timer.isPollingOnTime() && timer.failedPollsInARow() < FAILED_POLLS_DOWN;
        (up ? builder.up() : builder.down())
                .withDetail("instance", timer.instanceId())
                .withDetail("held", timer.held());
        timer.lastSuccessfulPoll().ifPresent(last -> builder.withDetail("lastPoll", last.toString()));
        timer.databaseClockOffset().ifPresent(offset -> builder.withDetail("clockOffset", offset.toString()));
    }
}
