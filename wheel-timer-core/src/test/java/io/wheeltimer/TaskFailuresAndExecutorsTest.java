package io.wheeltimer;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.HashedWheelTimer.State;
import io.wheeltimer.testsupport.LogCapture;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/** Tasks that throw, executors that refuse, and which thread a task runs on. */
class TaskFailuresAndExecutorsTest extends TimerTestFixture {

    @Test
    void taskThatThrowsIsLoggedAndCountedAndTheWorkerGoesOn() {
        // Both are due at the same tick and run in the order scheduled.
        HashedWheelTimer timer = manualTimer(ticker, true);
        RecordingTask later = new RecordingTask("later");
        Timeout throwing = timer.newTimeout(
                t -> {
                    throw new Exception("task failed");
                },
                Duration.ofMillis(100));
        timer.newTimeout(
                t -> {
                    throw new AssertionError("an Error too");
                },
                Duration.ofMillis(100));
        timer.newTimeout(later, Duration.ofMillis(200));

        List<LogRecord> warnings;
        try (LogCapture log = LogCapture.of(HashedWheelTimer.class)) {
            ticker.advance(Duration.ofMillis(100));
            warnings = log.records(Level.WARNING);
        }
        ticker.advance(Duration.ofMillis(100));

        // The first failure is logged with its stack trace; the second is only counted (summarised later).
        assertThat(warnings).hasSize(1);
        assertThat(warnings.get(0).getThrown()).hasMessage("task failed");
        assertThat(throwing.isExpired()).isTrue();
        assertThat(later.runs()).isOne();
        assertThat(timer.state()).isEqualTo(State.STARTED);
        TimerStats stats = timer.stats();
        assertThat(stats.failed()).isEqualTo(2);
        assertThat(stats.expired()).isEqualTo(3);
        assertThat(stats.pending()).isZero();
    }

    @Test
    void executorThatRefusesIsLoggedAndCountedAsFailedAndTheWorkerGoesOn() {
        AtomicInteger calls = new AtomicInteger();
        Executor refusesFirst = command -> {
            if (calls.incrementAndGet() == 1) {
                throw new RejectedExecutionException("queue full");
            }
            command.run();
        };
        HashedWheelTimer timer = manualTimer(
                HashedWheelTimer.builder().ticker(ticker).tickDuration(TICK).taskExecutor(refusesFirst));
        RecordingTask refused = new RecordingTask("refused");
        RecordingTask accepted = new RecordingTask("accepted");
        Timeout refusedTimeout = timer.newTimeout(refused, Duration.ofMillis(100));
        timer.newTimeout(accepted, Duration.ofMillis(200));

        try (LogCapture log = LogCapture.of(HashedWheelTimer.class)) {
            ticker.advance(Duration.ofMillis(200));

            assertThat(log.records(Level.WARNING)).hasSize(1);
            assertThat(log.records(Level.WARNING).get(0).getThrown())
                    .isInstanceOf(RejectedExecutionException.class)
                    .hasMessage("queue full");
            assertThat(log.messages(Level.WARNING).get(0)).contains("refused");
        }
        assertThat(refused.runs()).isZero();
        assertThat(refusedTimeout.isExpired()).isTrue();
        assertThat(accepted.runs()).isOne();
        TimerStats stats = timer.stats();
        assertThat(stats.failed()).isOne();
        assertThat(stats.expired()).isEqualTo(2);
        assertThat(stats.pending()).isZero();
        assertThat(timer.state()).isEqualTo(State.STARTED);
    }

    @Test
    void tasksRunOnTheGivenExecutorsThread() throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> new Thread(r, "task-executor"));
        try {
            HashedWheelTimer timer = manualTimer(
                    HashedWheelTimer.builder().ticker(ticker).tickDuration(TICK).taskExecutor(executor));
            RecordingTask task = new RecordingTask("t");
            Timeout timeout = timer.newTimeout(task, Duration.ofMillis(100));

            ticker.advance(Duration.ofMillis(100));

            assertThat(task.ran.await(10, SECONDS)).isTrue();
            assertThat(task.ranOn.getName()).isEqualTo("task-executor");
            assertThat(task.ranOn).isNotSameAs(timer.workerThread());
            assertThat(timeout.isExpired()).isTrue();
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void tasksRunOnTheWorkerThreadByDefault() {
        HashedWheelTimer timer = manualTimer(ticker, true);
        RecordingTask task = new RecordingTask("t");
        timer.newTimeout(task, Duration.ofMillis(100));

        ticker.advance(Duration.ofMillis(100));

        assertThat(task.ranOn).isSameAs(timer.workerThread());
        assertThat(task.ranOn.getName()).isEqualTo("manual-timer");
    }

    @Test
    void taskWhoseRunAndToStringThrowDoesNotKillTheWorker() {
        HashedWheelTimer timer = manualTimer(ticker, true);
        RecordingTask later = new RecordingTask("later");
        timer.newTimeout(ThrowingTask.onRun("task failed").andOnToString("toString failed"), Duration.ofMillis(100));
        Timeout laterTimeout = timer.newTimeout(later, Duration.ofMillis(200));

        ticker.advance(Duration.ofMillis(200));

        assertThat(timer.state()).isEqualTo(State.STARTED);
        assertThat(later.runs()).isOne();
        assertThat(laterTimeout.isCancelled()).isFalse();
        assertThat(timer.stats().failed()).isOne();
    }
}
