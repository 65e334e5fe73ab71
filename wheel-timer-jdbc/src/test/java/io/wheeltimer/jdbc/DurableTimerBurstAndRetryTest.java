package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A burst due at once meets the default executor's bound, not a thread per timeout, and every
 * timeout still runs once; a retry armed while its failed run is still ending starts when that run
 * ends; a schedule before the first poll adds its delay to the database's time.
 */
class DurableTimerBurstAndRetryTest extends OnEachDatabase {

    private static final String TASK = "request-deadline";

    DurableTimerBurstAndRetryTest(TestDatabase database) {
        super(database);
    }

    @Test
    void aBurstDueAtOnceRunsOnAtMostTheDefaultExecutorsThreadsAndEveryTimeoutRunsOnce() {
        // A connection for every thread the executor may run, and a few for the test and the poll.
        try (com.zaxxer.hikari.HikariDataSource pool = TestDatabase.pool(
                        database.jdbcUrl(), database.username(), JdbcDurableTimer.DEFAULT_EXECUTOR_THREADS + 6);
                DurableFixture fixture = new DurableFixture(database, pool)) {
            burst(fixture);
        }
    }

    private static void burst(DurableFixture fixture) {
        Set<String> threads = ConcurrentHashMap.newKeySet();
        AtomicInteger running = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        RecordingHandler handler = new RecordingHandler(timeout -> {
            threads.add(Thread.currentThread().getName());
            mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                TimeUnit.MILLISECONDS.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                running.decrementAndGet();
            }
            fixture.write(timeout, "burst");
        });
        // A queue of one small batch: most of the burst is refused by the full pool, let go at the
        // next poll and claimed again as threads free up.
        JdbcDurableTimer timer = fixture.start(fixture.builder().batchSize(50).handler(TASK, handler));
        Instant due = Instant.ofEpochMilli(fixture.databaseMillis() + 500);
        List<DurableTimeout> burst = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            burst.add(new DurableTimeout(TASK, "burst-" + i, due));
        }
        timer.scheduleAll(burst);

        await().atMost(Duration.ofSeconds(60))
                .until(() -> fixture.writesPerKey().size() == 600);
        assertThat(fixture.writesPerKey().values()).containsOnly(1L);
        assertThat(mostAtOnce.get()).isLessThanOrEqualTo(JdbcDurableTimer.DEFAULT_EXECUTOR_THREADS);
        assertThat(threads.size()).isLessThanOrEqualTo(JdbcDurableTimer.DEFAULT_EXECUTOR_THREADS);
        await().atMost(Duration.ofSeconds(10)).until(() -> fixture.rows() == 0);
    }

    @Test
    void aRetryArmedWhileItsFailedRunIsStillEndingStartsWhenThatRunEndsNotAPollLater() {
        RecordingHandler handler = new RecordingHandler(timeout -> {
            if (timeout.attempt() == 1) {
                throw new IllegalStateException("downstream refused");
            }
        });
        JdbcDurableTimer timer = fixture.start(fixture.builder()
                .pollInterval(Duration.ofSeconds(2))
                .lease(Duration.ofSeconds(5))
                .retryDelay(Duration.ofMillis(1))
                .retryMaxDelay(Duration.ofMillis(1))
                .handler(TASK, handler));

        timer.schedule(TASK, "flaky", Duration.ofMillis(300));

        await().atMost(Duration.ofSeconds(15)).until(() -> handler.count() == 2);
        Duration between = Duration.between(
                handler.runs().get(0).started(), handler.runs().get(1).started());
        assertThat(between).as("from the failed run to its retry").isLessThan(Duration.ofMillis(1_500));
    }

    @Test
    void aScheduleBeforeTheFirstPollAddsItsDelayToTheDatabasesTimeNotTheLocalClocks() {
        JdbcDurableTimer notStarted = fixture.builder()
                .instanceId("before-start")
                .clock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(10)))
                .handler(TASK, t -> {})
                .build();

        long before = fixture.databaseMillis();
        Instant deadline =
                notStarted.schedule(TASK, "early", Duration.ofHours(1)).deadline();
        long after = fixture.databaseMillis();

        // The reading is taken for the middle of its round trip, so the clock it gives may run ahead of
        // the database's by up to half that round trip (a run's own start is judged by the database):
        // a second of room, against the 10 minutes the local clock is off.
        assertThat(deadline.toEpochMilli())
                .isBetween(
                        before + Duration.ofHours(1).toMillis(),
                        after + Duration.ofHours(1).plusSeconds(1).toMillis());
    }
}
