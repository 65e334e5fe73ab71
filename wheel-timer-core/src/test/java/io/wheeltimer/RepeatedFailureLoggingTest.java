package io.wheeltimer;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
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
    private static final Duration INTERVAL = Duration.ofNanos(HashedWheelTimer.REPEAT_LOG_INTERVAL_NANOS);

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
            try (LogCapture log = LogCapture.timerLog()) {
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
            try (LogCapture log = LogCapture.timerLog()) {
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
            try (LogCapture log = LogCapture.timerLog()) {
                ticker.advance(TICK);
                ticker.advance(INTERVAL.minus(TICK.multipliedBy(2)));

                assertThat(log.records(Level.WARNING)).hasSize(1);
            }
        }

        @Test
        void theCountNotYetWrittenIsLoggedOnStop() {
            timer(refusing);
            scheduleDueInOneTick(5);
            try (LogCapture log = LogCapture.timerLog()) {
                ticker.advance(TICK);
                timer.stop();

                assertThat(log.count(Level.WARNING, "4 more tasks refused")).isOne();
            }
        }

        @Test
        void aRefusalAfterAQuietIntervalIsLoggedInFullAgain() {
            timer(refusing);
            scheduleDueInOneTick(1);
            try (LogCapture log = LogCapture.timerLog()) {
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
            try (LogCapture log = LogCapture.timerLog()) {
                ticker.advance(TICK);
                ticker.advance(INTERVAL);

                assertThat(log.records(Level.WARNING)).hasSize(2);
                assertThat(log.records(Level.WARNING).get(0).getThrown()).hasMessage("task failed");
                assertThat(log.messages(Level.WARNING).get(1)).contains("499 more exceptions thrown by TimerTasks");
            }
            assertThat(timer.stats().failed()).isEqualTo(500);
        }
    }
}
