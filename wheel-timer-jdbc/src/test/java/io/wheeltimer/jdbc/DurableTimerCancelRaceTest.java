package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * A cancel racing the firing of its timeout: exactly one of the two wins, every time. Either cancel
 * returns true and the handler never commits (it never runs), or the handler commits its write and
 * cancel returns false.
 */
class DurableTimerCancelRaceTest extends OnEachDatabase {

    private static final String TASK = "order-payment";
    private static final int TIMEOUTS = 300;
    private static final int CANCELLERS = 4;

    DurableTimerCancelRaceTest(TestDatabase database) {
        super(database);
    }

    @Test
    void exactlyOneOfCancelAndTheHandlerWinsEachRace() throws Exception {
        RecordingHandler handler = new RecordingHandler(timeout -> {
            fixture.write(timeout, "handler");
            // Hold the row a little while, so that some cancels arrive during the firing transaction.
            LockSupport.parkNanos(
                    TimeUnit.MICROSECONDS.toNanos(ThreadLocalRandom.current().nextInt(3000)));
        });
        JdbcDurableTimer durable = fixture.start(fixture.builder().handler(TASK, handler));

        // Each timeout is due 60 ms after it is scheduled, and its cancel lands up to 30 ms either side
        // of its deadline.
        Map<String, Boolean> cancelled = new ConcurrentHashMap<>();
        ScheduledExecutorService cancellers = Executors.newScheduledThreadPool(CANCELLERS);
        List<Future<?>> done = new ArrayList<>();
        for (int i = 0; i < TIMEOUTS; i++) {
            String key = "race-" + i;
            Instant deadline =
                    durable.schedule(TASK, key, Duration.ofMillis(60)).deadline();
            Instant cancelAt = deadline.plusMillis(ThreadLocalRandom.current().nextInt(-30, 31));
            long delay = Math.max(0, Duration.between(Instant.now(), cancelAt).toNanos());
            done.add(cancellers.schedule(
                    () -> cancelled.put(key, durable.cancel(TASK, key)), delay, TimeUnit.NANOSECONDS));
            if (i % 4 == 3) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5)); // spread the races over time
            }
        }
        for (Future<?> f : done) {
            f.get(60, TimeUnit.SECONDS);
        }
        cancellers.shutdown();
        await().atMost(Duration.ofSeconds(20)).until(() -> fixture.rows() == 0 && durable.held() == 0);

        Map<String, Long> writes = fixture.writesPerKey();
        int cancelWon = 0;
        int handlerWon = 0;
        for (int i = 0; i < TIMEOUTS; i++) {
            String key = "race-" + i;
            boolean cancelReturnedTrue = cancelled.get(key);
            long committed = writes.getOrDefault(key, 0L);
            assertThat(committed).as("commits of %s", key).isLessThanOrEqualTo(1);
            assertThat(cancelReturnedTrue ^ committed == 1)
                    .as("%s: cancel returned %s, handler commits %s", key, cancelReturnedTrue, committed)
                    .isTrue();
            if (cancelReturnedTrue) {
                assertThat(handler.count(key)).as("runs of cancelled %s", key).isZero();
                cancelWon++;
            } else {
                handlerWon++;
            }
        }
        System.out.println("CANCEL-RACE (" + database + "): " + TIMEOUTS + " races, cancel won " + cancelWon
                + ", handler won " + handlerWon);
        assertThat(cancelWon).as("races cancel won").isPositive();
        assertThat(handlerWon).as("races the handler won").isPositive();
    }

    @Test
    void aCancelDuringTheFiringTransactionWaitsForItsCommitAndReturnsFalse() throws Exception {
        CountDownLatch handlerStarted = new CountDownLatch(1);
        CountDownLatch releaseHandler = new CountDownLatch(1);
        RecordingHandler handler = new RecordingHandler(timeout -> {
            fixture.write(timeout, "handler");
            handlerStarted.countDown();
            releaseHandler.await();
        });
        JdbcDurableTimer durable = fixture.start(fixture.builder().handler(TASK, handler));
        durable.schedule(TASK, "firing", Duration.ZERO);
        assertThat(handlerStarted.await(10, TimeUnit.SECONDS)).isTrue();

        CompletableFuture<Boolean> cancel = CompletableFuture.supplyAsync(() -> durable.cancel(TASK, "firing"));
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> !cancel.isDone());
        releaseHandler.countDown();

        assertThat(cancel.get(10, TimeUnit.SECONDS)).isFalse();
        assertThat(fixture.writes("firing")).isEqualTo(1);
    }

    @Test
    void aFiringDuringTheCancellingTransactionWaitsForItsCommitAndDoesNotRun() throws Exception {
        RecordingHandler handler = fixture.writingHandler("handler");
        JdbcDurableTimer durable = fixture.start(fixture.builder().handler(TASK, handler));
        durable.schedule(TASK, "cancelling", Duration.ofMillis(200));
        durable.schedule(TASK, "marker", Duration.ofMillis(1000));

        fixture.transactions.executeWithoutResult(status -> {
            assertThat(durable.cancel(TASK, "cancelling")).isTrue();
            // The deadline passes while the cancel is not committed: the wheel may fire, but the firing
            // waits for the row and then finds it gone.
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
        });

        await().atMost(Duration.ofSeconds(10)).until(() -> handler.count("marker") == 1);
        assertThat(handler.count("cancelling")).isZero();
        assertThat(fixture.writes("cancelling")).isZero();
    }
}
