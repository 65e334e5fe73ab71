package io.wheeltimer.jdbc;

import io.wheeltimer.internal.RepeatLog;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import javax.sql.DataSource;
import org.springframework.transaction.PlatformTransactionManager;

/** Settings for the tests of single parts, built without a builder: the builder's defaults unless named. */
final class TestSettings {

    private TestSettings() {}

    /** The builder's defaults, on table "t" and instance "i", with the executor running in place. */
    static TimerSettings defaults() {
        return of("t", Clock.systemUTC(), JdbcDurableTimer.DEFAULT_LOOKAHEAD, JdbcDurableTimer.DEFAULT_MAX_ATTEMPTS);
    }

    /** On {@code table}, with {@code clock}, {@code lookahead} and {@code maxAttempts}; the rest the defaults. */
    static TimerSettings of(String table, Clock clock, Duration lookahead, int maxAttempts) {
        return of(table, clock, lookahead, maxAttempts, JdbcDurableTimer.DEFAULT_BATCH_SIZE, Runnable::run);
    }

    /** As {@link #of(String, Clock, Duration, int)}, with {@code batchSize} and {@code executor}. */
    static TimerSettings of(
            String table, Clock clock, Duration lookahead, int maxAttempts, int batchSize, Executor executor) {
        return new TimerSettings(
                table,
                JdbcDurableTimer.DEFAULT_POLL_INTERVAL,
                lookahead,
                JdbcDurableTimer.DEFAULT_LEASE,
                batchSize,
                JdbcDurableTimer.DEFAULT_RETRY_DELAY,
                JdbcDurableTimer.DEFAULT_RETRY_MAX_DELAY,
                maxAttempts,
                "i",
                executor,
                clock,
                TimeSource.INSTANCE,
                1000,
                null,
                null);
    }

    /**
     * The context of one timer's parts on the table of {@code settings} in {@code dataSource}, claiming
     * {@code tasks}, always running, with the builder's clock judging.
     */
    static TimerContext context(
            TimerSettings settings,
            DataSource dataSource,
            PlatformTransactionManager manager,
            Set<String> tasks,
            DurableTimerListener listener) {
        Map<String, DurableTimeoutHandler> handlers = new HashMap<>();
        tasks.forEach(task -> handlers.put(task, timeout -> {}));
        return new TimerContext(
                settings,
                new LazyTable(dataSource, settings, tasks),
                new Transactions(manager, dataSource, "test"),
                Map.copyOf(handlers),
                listener,
                () -> true,
                new RepeatLog(TimerLog.LOGGER, "test trouble", 1, System::nanoTime),
                null);
    }
}
