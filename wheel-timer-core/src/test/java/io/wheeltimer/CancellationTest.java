package io.wheeltimer;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.testing.ManualTicker;
import io.wheeltimer.testsupport.LogCapture;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.concurrent.Future;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** cancel(): once, never after expiry, releasing the task, and the cancelled() callback. */
class CancellationTest extends TimerTestFixture {

    @ParameterizedTest(name = "hierarchical={0}")
    @ValueSource(booleans = {true, false})
    void cancelReturnsTrueOnceThenFalseAndTheTaskNeverRuns(boolean hierarchical) {
        HashedWheelTimer timer = manualTimer(ticker, hierarchical);
        RecordingTask task = new RecordingTask("t");
        Timeout timeout = timer.newTimeout(task, Duration.ofMillis(200));
        ticker.advance(Duration.ofMillis(100));

        assertThat(timeout.isCancelled()).isFalse();
        assertThat(timeout.cancel()).isTrue();
        assertThat(timeout.cancel()).isFalse();
        assertThat(timeout.isCancelled()).isTrue();
        assertThat(timeout.isExpired()).isFalse();
        assertThat(task.cancels()).isOne();
        assertThat(task.cancelledFlagSeenInCallback).isTrue();
        assertThat(task.cancelledOn).isSameAs(Thread.currentThread());

        ticker.advance(Duration.ofSeconds(1));
        assertThat(task.runs()).isZero();
        assertThat(task.cancels()).isOne();
        assertThat(timeout.cancel()).isFalse();
        TimerStats stats = timer.stats();
        assertThat(stats.cancelled()).isOne();
        assertThat(stats.expired()).isZero();
        assertThat(stats.pending()).isZero();
        assertThat(timer.stop()).isEmpty();
        assertThat(task.cancels()).isOne();
    }

    @ParameterizedTest(name = "hierarchical={0}")
    @ValueSource(booleans = {true, false})
    void cancelAfterExpiryReturnsFalse(boolean hierarchical) {
        HashedWheelTimer timer = manualTimer(ticker, hierarchical);
        RecordingTask task = new RecordingTask("t");
        Timeout timeout = timer.newTimeout(task, Duration.ofMillis(100));
        assertThat(timeout.isExpired()).isFalse();

        ticker.advance(Duration.ofMillis(100));

        assertThat(timeout.isExpired()).isTrue();
        assertThat(timeout.cancel()).isFalse();
        assertThat(timeout.isCancelled()).isFalse();
        assertThat(task.cancels()).isZero();
        assertThat(task.runs()).isOne();
        assertThat(timer.stats().cancelled()).isZero();
    }

    @Test
    void timeoutCancelledBeforeTheWorkerTookItHandsNothingToTheWorker() throws Exception {
        HashedWheelTimer timer = manualTimer(ticker, true);
        HoldingTask holding = new HoldingTask();
        Future<?> advance = holdTheWorker(timer, holding, Duration.ofMillis(100));
        RecordingTask task = new RecordingTask("t");

        Timeout older = timer.newTimeout(new RecordingTask("older"), Duration.ofHours(1));
        Timeout timeout = timer.newTimeout(task, Duration.ofHours(1));
        assertThat(timer.runtime.handOff.hasNewTimeouts()).as("not taken yet").isTrue();
        assertThat(timeout.cancel()).isTrue();

        assertThat(timer.runtime.handOff.cancelledTimeouts.isEmpty())
                .as("nothing for the worker to unlink")
                .isTrue();
        assertThat(task.cancels()).isOne();
        // The newest of this thread's stripe was taken back; the older one waits for the worker,
        // which drops it, cancelled, when it takes the stripe; once it is cancelled too, nothing waits.
        assertThat(timer.runtime.handOff.hasNewTimeouts())
                .as("the older one waits")
                .isTrue();
        assertThat(older.cancel()).isTrue();
        assertThat(timer.runtime.handOff.hasNewTimeouts()).as("both taken back").isFalse();
        holding.release();
        advance.get(10, SECONDS);
        ticker.advance(Duration.ofHours(2));
        assertThat(task.runs()).isZero();
        assertThat(timer.pendingTimeouts()).isZero();
        assertThat(timer.stats().cancelled()).isEqualTo(2);
        assertThat(timer.upcoming(10)).isEmpty();
    }

    @ParameterizedTest(name = "hierarchical={0}")
    @ValueSource(booleans = {true, false})
    void cancelledTimeoutIsUnlinkedAndItsTaskReleasedWithinOneTick(boolean hierarchical) {
        HashedWheelTimer timer = manualTimer(ticker, hierarchical);

        WeakReference<TimerTask> task = scheduleTakeAndCancel(timer, ticker);
        ticker.advance(TICK);

        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    System.gc();
                    return task.get() == null;
                });
        assertThat(timer.pendingTimeouts()).isZero();
    }

    /** Returns only a weak reference, so that nothing in the test keeps the task alive. */
    private static WeakReference<TimerTask> scheduleTakeAndCancel(HashedWheelTimer timer, ManualTicker ticker) {
        TimerTask task = new RecordingTask("released");
        Timeout timeout = timer.newTimeout(task, Duration.ofHours(1));
        // Taken into the wheel within a tick: a timeout handed off while the worker was already
        // planning to sleep until the next tick (it had seen the schedule counted) does not wake it,
        // and is taken at that tick. Advancing no time at all would leave it waiting then.
        ticker.advance(TICK);
        await().atMost(Duration.ofSeconds(10)).until(() -> !timer.runtime.handOff.hasNewTimeouts());
        assertThat(timeout.cancel()).isTrue();
        return new WeakReference<>(task);
    }

    @Test
    void exceptionFromTheCancelledCallbackIsLoggedAndIgnored() {
        HashedWheelTimer timer = manualTimer(ticker, true);
        TimerTask task = ThrowingTask.onCancelled("callback failed");
        Timeout timeout = timer.newTimeout(task, Duration.ofSeconds(1));

        try (LogCapture log = LogCapture.of(HashedWheelTimer.class)) {
            assertThat(timeout.cancel()).isTrue();
            assertThat(log.records(Level.WARNING)).hasSize(1);
            assertThat(log.records(Level.WARNING).get(0).getThrown()).hasMessage("callback failed");
        }
        assertThat(timeout.isCancelled()).isTrue();
        assertThat(timer.stats().cancelled()).isOne();
        assertThat(timer.stats().failed()).isZero();
    }
}
