package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A step of an instance's wall clock (an NTP step, a VM resumed, an operator) changes nothing about
 * when its timeouts fire: with its clock stepped 30 s forward and then 30 s back behind the true time
 * in the middle of a run, no timeout starts before its deadline by the database's clock, and none
 * starts more than one poll interval after it.
 */
class DurableTimerClockStepTest extends OnEachDatabase {

    private static final String TASK = "lease-renewal";
    private static final Duration POLL = Duration.ofSeconds(1);
    private static final Duration STEP = Duration.ofSeconds(30);

    DurableTimerClockStepTest(TestDatabase database) {
        super(database);
    }

    @Test
    void noTimeoutStartsBeforeItsDeadlineByTheDatabasesClockNorMoreThanAPollAfterWhenTheWallClockSteps() {
        SteppingClock wall = SteppingClock.ofSystem();
        String now = fixture.timeoutTable().databaseMillisExpression();
        /** Per key: the deadline and the database's time when its run started, in epoch milliseconds. */
        Map<String, long[]> runs = new ConcurrentHashMap<>();
        AtomicInteger runCount = new AtomicInteger();
        JdbcDurableTimer timer = fixture.start(fixture.builder()
                .instanceId("stepping")
                .clock(wall)
                .pollInterval(POLL)
                .lookahead(Duration.ofSeconds(2))
                .lease(Duration.ofSeconds(3))
                .handler(TASK, timeout -> {
                    // In the run's transaction, just after the statement that deleted its row.
                    Long startedMillis = fixture.jdbc.queryForObject("SELECT " + now, Long.class);
                    runs.put(timeout.key(), new long[] {timeout.deadline().toEpochMilli(), startedMillis});
                    runCount.incrementAndGet();
                }));

        // Beyond the lookahead (claimed by later polls) as well as within it (armed at once).
        for (int i = 0; i < 60; i++) {
            timer.schedule(TASK, "before-" + i, Duration.ofMillis(1_500 + 100L * i));
        }
        pause(Duration.ofMillis(1_200));
        wall.step(STEP); // 30 s ahead of the true time
        for (int i = 0; i < 40; i++) {
            timer.schedule(TASK, "ahead-" + i, Duration.ofMillis(500 + 100L * i));
        }
        pause(Duration.ofMillis(2_500));
        wall.step(STEP.multipliedBy(-2)); // 30 s behind the true time
        for (int i = 0; i < 40; i++) {
            timer.schedule(TASK, "behind-" + i, Duration.ofMillis(500 + 100L * i));
        }

        await().atMost(Duration.ofSeconds(30)).until(() -> runCount.get() == 140);
        long earliest = Long.MAX_VALUE;
        long latest = Long.MIN_VALUE;
        for (Map.Entry<String, long[]> run : runs.entrySet()) {
            long lateMillis = run.getValue()[1] - run.getValue()[0];
            assertThat(lateMillis)
                    .as("how late %s started by the database's clock, in ms", run.getKey())
                    .isBetween(0L, POLL.toMillis());
            earliest = Math.min(earliest, lateMillis);
            latest = Math.max(latest, lateMillis);
        }
        assertThat(runs).hasSize(140);
        assertThat(fixture.rows()).isZero();
        System.out.println("CLOCK STEP (" + database + "): 140 timeouts, wall clock stepped +30 s then -60 s;"
                + " started " + earliest + " to " + latest + " ms after their deadlines by the database's clock");
    }

    private static void pause(Duration duration) {
        try {
            TimeUnit.NANOSECONDS.sleep(duration.toNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
