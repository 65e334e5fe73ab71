package io.wheeltimer;

import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.HashedWheelTimer.State;
import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Lazy and explicit start, stop() and what it returns, newTimeout after stop, and a stop racing a running task. */
class StartAndStopTest extends TimerTestFixture {

    @Test
    void workerStartsLazilyOnTheFirstNewTimeout() {
        HashedWheelTimer timer = timers.track(HashedWheelTimer.builder().build());

        assertThat(timer.state()).isEqualTo(State.INIT);
        assertThat(timer.stats().state()).isEqualTo(State.INIT);
        assertThat(timer.workerThread().getState()).isEqualTo(Thread.State.NEW);
        assertThat(timer.upcoming(10)).isEmpty();

        timer.newTimeout(noop(), 1, TimeUnit.HOURS);

        assertThat(timer.state()).isEqualTo(State.STARTED);
        assertThat(timer.workerThread().isAlive()).isTrue();
    }

    @Test
    void startStartsTheWorkerAndMayBeCalledAgain() {
        HashedWheelTimer timer = timers.track(HashedWheelTimer.builder().build());

        timer.start();
        timer.start();

        assertThat(timer.state()).isEqualTo(State.STARTED);
        assertThat(timer.workerThread().isAlive()).isTrue();
        assertThat(timer.stats().scheduled()).isZero();
    }

    @Test
    void startFixesTheStartTimeAtTheTickersCurrentTime() {
        ManualTicker ticker = new ManualTicker(1_000);
        HashedWheelTimer timer = timers.track(
                HashedWheelTimer.builder().ticker(ticker).tickDuration(TICK).build());
        timer.start();
        ticker.advance(Duration.ofMillis(30));
        RecordingTask task = new RecordingTask("t");

        timer.newTimeout(task, Duration.ofMillis(70)); // deadline 100 ms after start: a boundary

        ticker.advance(Duration.ofMillis(70).minusNanos(1));
        assertThat(task.runs()).isZero();
        ticker.advance(Duration.ofNanos(1));
        assertThat(task.runs()).isOne();
    }

    @Test
    void stopBeforeStartReturnsAnEmptySetAndShutsDown() {
        HashedWheelTimer timer = timers.track(HashedWheelTimer.builder().build());

        assertThat(timer.stop()).isEmpty();

        assertThat(timer.state()).isEqualTo(State.SHUTDOWN);
        assertThat(timer.workerThread().getState()).isEqualTo(Thread.State.NEW);
        assertThatThrownBy(timer::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("cannot be started once stopped");
        assertThatThrownBy(() -> timer.newTimeout(noop(), 1, SECONDS))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("cannot be started once stopped");
        assertThat(timer.pendingTimeouts()).isZero();
        assertThat(timer.stats().scheduled()).isZero();
    }

    @ParameterizedTest(name = "maxPendingTimeouts={0}")
    @ValueSource(longs = {0, 1})
    void newTimeoutAfterStopIsIllegalStateAndCountsStayExact(long maxPending) {
        HashedWheelTimer timer = manualTimer(
                HashedWheelTimer.builder().ticker(ticker).tickDuration(TICK).maxPendingTimeouts(maxPending));
        timer.newTimeout(noop(), 1, TimeUnit.HOURS);
        assertThat(timer.stop()).hasSize(1);
        TimerStats before = timer.stats();

        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> timer.newTimeout(noop(), 1, SECONDS))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("cannot be started once stopped");
        }

        assertThat(timer.pendingTimeouts()).isZero();
        assertThat(timer.stats()).isEqualTo(before);
        assertThat(before.pending()).isZero();
        assertThat(before.scheduled()).isOne();
        assertThat(before.cancelled()).isOne();
        assertThat(before.rejected()).isZero();
        assertThat(before.state()).isEqualTo(State.SHUTDOWN);
    }

    @ParameterizedTest(name = "hierarchical={0}")
    @ValueSource(booleans = {true, false})
    void stopReturnsEveryTimeoutThatNeverRanEachCancelledWithItsCallback(boolean hierarchical) throws Exception {
        HashedWheelTimer timer = manualTimer(ticker, hierarchical);
        RecordingTask fired = new RecordingTask("fired");
        RecordingTask cancelledEarlier = new RecordingTask("cancelled");
        RecordingTask far = new RecordingTask("far");
        RecordingTask never = new RecordingTask("never");
        RecordingTask notTaken = new RecordingTask("notTaken");
        HoldingTask holding = new HoldingTask();

        timer.newTimeout(fired, Duration.ofMillis(100));
        timer.newTimeout(cancelledEarlier, Duration.ofHours(1)).cancel();
        Timeout farTimeout = timer.newTimeout(far, Duration.ofDays(3));
        Timeout neverTimeout = timer.newTimeout(never, Long.MAX_VALUE, NANOSECONDS);
        timer.newTimeout(holding, Duration.ofMillis(200));
        Future<?> advance = pool.submit(() -> ticker.advance(Duration.ofMillis(200)));
        holding.awaitHolding();
        // the worker is busy in a task: this one stays in the hand-off stack
        Timeout notTakenTimeout = timer.newTimeout(notTaken, Duration.ofSeconds(1));
        assertThat(timer.runtime.handOff.hasNewTimeouts()).isTrue();

        Future<Set<Timeout>> stop = pool.submit(timer::stop);
        await().atMost(Duration.ofSeconds(10)).until(() -> timer.state() == State.SHUTDOWN);
        Thread.sleep(100);
        assertThat(stop).as("stop() waits for the running task").isNotDone();
        holding.release();
        Set<Timeout> unprocessed = stop.get(10, SECONDS);
        advance.get(10, SECONDS);

        assertThat(unprocessed).containsExactlyInAnyOrder(farTimeout, neverTimeout, notTakenTimeout);
        for (Timeout timeout : unprocessed) {
            assertThat(timeout.isCancelled()).isTrue();
            assertThat(timeout.isExpired()).isFalse();
            assertThat(timeout.cancel()).isFalse();
        }
        for (RecordingTask task : List.of(far, never, notTaken)) {
            assertThat(task.cancels()).as(task + " cancelled once").isOne();
            assertThat(task.runs()).isZero();
            assertThat(task.cancelledFlagSeenInCallback).isTrue();
            assertThat(task.cancelledOn).as("stop() cancels on the worker").isSameAs(timer.workerThread());
        }
        assertThat(fired.runs()).isOne();
        assertThat(fired.cancels()).isZero();
        assertThat(cancelledEarlier.cancels()).isOne();
        TimerStats stats = timer.stats();
        assertThat(stats.pending()).isZero();
        assertThat(stats.scheduled()).isEqualTo(6);
        assertThat(stats.expired()).isEqualTo(2);
        assertThat(stats.cancelled()).isEqualTo(4);
        assertThat(timer.pendingTimeouts()).isZero();
        assertThat(timer.upcoming(10)).isEmpty();
        assertThat(timer.workerThread().isAlive()).isFalse();
    }

    @Test
    void secondStopReturnsAnEmptySet() {
        HashedWheelTimer timer = manualTimer(new ManualTicker(), true);
        timer.newTimeout(noop(), Duration.ofMinutes(1));

        assertThat(timer.stop()).hasSize(1);
        assertThat(timer.stop()).isEmpty();
        assertThat(timer.state()).isEqualTo(State.SHUTDOWN);
    }

    @Test
    void stopFromATaskOnTheWorkerThreadIsIllegalStateAndTheTimerGoesOn() {
        HashedWheelTimer timer = manualTimer(ticker, true);
        AtomicReference<Throwable> caught = new AtomicReference<>();
        RecordingTask later = new RecordingTask("later");

        timer.newTimeout(
                t -> {
                    try {
                        timer.stop();
                    } catch (Throwable e) {
                        caught.set(e);
                    }
                },
                Duration.ofMillis(100));
        timer.newTimeout(later, Duration.ofMillis(200));
        ticker.advance(Duration.ofMillis(200));

        assertThat(caught.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("stop()");
        assertThat(timer.state()).isEqualTo(State.STARTED);
        assertThat(later.runs()).isOne();
        assertThat(timer.stats().failed()).isZero();
    }

    @Test
    void cancelledCallbackAndToStringThatThrowDoNotBreakStop() {
        HashedWheelTimer timer = manualTimer(new ManualTicker(), true);
        TimerTask nasty = ThrowingTask.onCancelled("callback failed").andOnToString("toString failed");
        Timeout first = timer.newTimeout(nasty, Duration.ofHours(1));
        RecordingTask other = new RecordingTask("other");
        Timeout second = timer.newTimeout(other, Duration.ofHours(2));
        timer.newTimeout(nasty, Duration.ofHours(3));

        assertThatCode(first::cancel).doesNotThrowAnyException();
        Set<Timeout> unprocessed = timer.stop();

        assertThat(unprocessed).hasSize(2).contains(second);
        assertThat(other.cancels()).isOne();
        assertThat(timer.pendingTimeouts()).isZero();
    }

    @Test
    void tickerThatFailsOnTheWorkerDoesNotHangStart() throws Exception {
        Ticker broken = () -> {
            throw new IllegalStateException("clock broken");
        };
        // not tracked: stop() would wait for the dead worker as long as start() does
        HashedWheelTimer timer = HashedWheelTimer.builder().ticker(broken).build();

        Future<?> start = pool.submit(timer::start);

        assertThatCode(() -> {
                    try {
                        start.get(10, SECONDS);
                    } catch (java.util.concurrent.ExecutionException expected) {
                        // failing is fine; hanging is not
                    }
                })
                .doesNotThrowAnyException();
    }

    @Test
    void noFurtherTaskStartsOnceStopWasCalled() throws Exception {
        HashedWheelTimer timer = manualTimer(ticker, true);
        HoldingTask holding = new HoldingTask();
        timer.newTimeout(holding, Duration.ofMillis(100));
        RecordingTask second = new RecordingTask("200 ms");
        RecordingTask third = new RecordingTask("300 ms");
        timer.newTimeout(second, Duration.ofMillis(200));
        timer.newTimeout(third, Duration.ofMillis(300));
        Future<?> advance = pool.submit(() -> ticker.advance(Duration.ofMillis(300)));
        holding.awaitHolding();

        Future<Set<Timeout>> stop = pool.submit(timer::stop);
        await().atMost(Duration.ofSeconds(10)).until(() -> timer.state() == State.SHUTDOWN);
        holding.release();
        Set<Timeout> unprocessed = stop.get(10, SECONDS);
        advance.get(10, SECONDS);

        assertThat(second.runs() + third.runs()).isZero();
        assertThat(unprocessed).hasSize(2);
    }
}
