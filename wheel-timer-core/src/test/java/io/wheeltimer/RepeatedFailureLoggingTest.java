package io.wheeltimer;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.testing.ManualTicker;
import io.wheeltimer.testsupport.LogCapture;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * A flood of refusals or task failures must not stall the worker with one stack trace per
 * occurrence: the first is logged in full, repeats are counted and logged as one line per interval,
 * and the {@code failed} count stays exact.
 */
class RepeatedFailureLoggingTest {

    private static final Duration TICK = Duration.ofMillis(100);
    private static final Duration INTERVAL = Duration.ofNanos(Dispatch.REPEAT_LOG_INTERVAL_NANOS);

    private final ManualTicker ticker = new ManualTicker();
    private HashedWheelTimer timer;

    @AfterEach
    void stop() {
        if (timer != null) {
            timer.stop();
        }
    }

    private HashedWheelTimer timer(Executor executor) {
        timer = HashedWheelTimer.builder()
                .name("repeat-log")
                .ticker(ticker)
                .tickDuration(TICK)
                .taskExecutor(executor)
                .build();
        timer.start();
        return timer;
    }

    private void scheduleDueInOneTick(int count) {
        for (int i = 0; i < count; i++) {
            timer.newTimeout(
                    t -> {
                        throw new IllegalStateException("task failed");
                    },
                    TICK);
        }
    }

    @Nested
    class Refusals {

        private final Executor refusing = command -> {
            throw new RejectedExecutionException("queue full");
        };

        @Test
        void onlyTheFirstOfAFloodIsLoggedWithItsStackTraceAndEveryOneIsCounted() {
            timer(refusing);
            scheduleDueInOneTick(1_000);
            try (LogCapture log = LogCapture.of(HashedWheelTimer.class)) {
                ticker.advance(TICK);

                assertThat(log.records(Level.WARNING)).hasSize(1);
                assertThat(log.records(Level.WARNING).get(0).getThrown())
                        .isInstanceOf(RejectedExecutionException.class)
                        .hasMessage("queue full");
            }
            assertThat(timer.stats().failed()).isEqualTo(1_000);
        }

        @Test
        void repeatsAreSummarisedAsOneCountOnceTheIntervalHasPassed() {
            timer(refusing);
            scheduleDueInOneTick(1_000);
            try (LogCapture log = LogCapture.of(HashedWheelTimer.class)) {
                ticker.advance(TICK);
                ticker.advance(INTERVAL); // the worker's next round after the interval writes the count

                assertThat(log.records(Level.WARNING)).hasSize(2);
                assertThat(log.messages(Level.WARNING).get(1)).contains("999 more tasks refused by the task executor");
                assertThat(log.records(Level.WARNING).get(1).getThrown()).isNull();
            }
        }

        @Test
        void noSummaryIsWrittenBeforeTheIntervalHasPassed() {
            timer(refusing);
            scheduleDueInOneTick(10);
            try (LogCapture log = LogCapture.of(HashedWheelTimer.class)) {
                ticker.advance(TICK);
                ticker.advance(INTERVAL.minus(TICK.multipliedBy(2)));

                assertThat(log.records(Level.WARNING)).hasSize(1);
            }
        }

        @Test
        void theCountNotYetWrittenIsLoggedOnStop() {
            timer(refusing);
            scheduleDueInOneTick(5);
            try (LogCapture log = LogCapture.of(HashedWheelTimer.class)) {
                ticker.advance(TICK);
                timer.stop();

                assertThat(log.count(Level.WARNING, "4 more tasks refused")).isOne();
            }
        }

        @Test
        void aRefusalAfterAQuietIntervalIsLoggedInFullAgain() {
            timer(refusing);
            scheduleDueInOneTick(1);
            try (LogCapture log = LogCapture.of(HashedWheelTimer.class)) {
                ticker.advance(TICK);
                ticker.advance(INTERVAL);
                scheduleDueInOneTick(1);
                ticker.advance(TICK);

                assertThat(log.records(Level.WARNING))
                        .hasSize(2)
                        .allSatisfy(r -> assertThat(r.getThrown()).isInstanceOf(RejectedExecutionException.class));
            }
            assertThat(timer.stats().failed()).isEqualTo(2);
        }
    }

    @Nested
    class TaskFailures {

        @Test
        void aFloodOfFailingTasksLogsOneStackTraceThenOneCount() {
            timer(Runnable::run);
            scheduleDueInOneTick(500);
            try (LogCapture log = LogCapture.of(HashedWheelTimer.class)) {
                ticker.advance(TICK);
                ticker.advance(INTERVAL);

                assertThat(log.records(Level.WARNING)).hasSize(2);
                assertThat(log.records(Level.WARNING).get(0).getThrown()).hasMessage("task failed");
                assertThat(log.messages(Level.WARNING).get(1)).contains("499 more exceptions thrown by TimerTasks");
            }
            assertThat(timer.stats().failed()).isEqualTo(500);
        }
    }

    /**
     * A pool shut down before its timer refuses every due task, and builds an exception with a stack
     * trace each time: once it refused, the worker does not ask it again.
     */
    @Nested
    class ShutDownExecutorService {

        /** Counts the tasks offered to it. */
        final class CountingPool extends ThreadPoolExecutor {
            final AtomicInteger offered = new AtomicInteger();

            CountingPool(BlockingQueue<Runnable> queue) {
                super(1, 1, 0, TimeUnit.SECONDS, queue);
            }

            @Override
            public void execute(Runnable command) {
                offered.incrementAndGet();
                super.execute(command);
            }
        }

        @Test
        void isOfferedTheFirstDueTaskOnlyAndEveryOneIsCountedAsRefused() {
            CountingPool pool = new CountingPool(new LinkedBlockingQueue<>());
            pool.shutdown();
            timer(pool);
            scheduleDueInOneTick(1_000);
            try (LogCapture log = LogCapture.of(HashedWheelTimer.class)) {
                ticker.advance(TICK);
                timer.stop();

                assertThat(log.records(Level.WARNING)).hasSize(2);
                assertThat(log.records(Level.WARNING).get(0).getThrown())
                        .isInstanceOf(RejectedExecutionException.class);
                assertThat(log.messages(Level.WARNING).get(1)).contains("999 more tasks refused by the task executor");
            }
            assertThat(pool.offered).hasValue(1);
            assertThat(timer.stats().failed()).isEqualTo(1_000);
        }

        @Test
        void aServiceThatRefusesWhileRunningIsStillOfferedEveryTask() throws InterruptedException {
            CountingPool pool = new CountingPool(new SynchronousQueue<>());
            CountDownLatch release = new CountDownLatch(1);
            pool.execute(() -> awaitQuietly(release)); // holds its only thread: every later task is refused
            try {
                timer(pool);
                scheduleDueInOneTick(100);
                ticker.advance(TICK);

                assertThat(pool.offered).hasValue(1 + 100);
                assertThat(timer.stats().failed()).isEqualTo(100);
            } finally {
                release.countDown();
                pool.shutdown();
                assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
            }
        }

        private void awaitQuietly(CountDownLatch latch) {
            try {
                latch.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
