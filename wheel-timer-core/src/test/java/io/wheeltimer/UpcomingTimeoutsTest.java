package io.wheeltimer;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.HashedWheelTimer.State;
import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** upcoming(limit): the soonest pending timeouts with their remaining time. */
class UpcomingTimeoutsTest extends TimerTestFixture {

    @ParameterizedTest(name = "hierarchical={0}")
    @ValueSource(booleans = {true, false})
    void upcomingListsSoonestFirstWithExactRemainingAndRespectsTheLimit(boolean hierarchical) {
        HashedWheelTimer timer = manualTimer(ticker, hierarchical);
        timer.newTimeout(new RecordingTask("in 10 min"), Duration.ofMinutes(10));
        timer.newTimeout(new RecordingTask("in 5 s"), Duration.ofSeconds(5));
        timer.newTimeout(new RecordingTask("in 200 ms"), Duration.ofMillis(200));
        timer.newTimeout(new RecordingTask("in 3 days"), Duration.ofDays(3));
        timer.newTimeout(new RecordingTask("cancelled"), Duration.ofSeconds(1)).cancel();
        timer.newTimeout(new RecordingTask("in 1 s"), Duration.ofSeconds(1));

        ticker.advance(Duration.ofMillis(250));

        assertThat(timer.upcoming(10))
                .containsExactly(
                        new TimeoutInfo("in 1 s", Duration.ofMillis(750)),
                        new TimeoutInfo("in 5 s", Duration.ofMillis(4_750)),
                        new TimeoutInfo("in 10 min", Duration.ofMinutes(10).minusMillis(250)),
                        new TimeoutInfo("in 3 days", Duration.ofDays(3).minusMillis(250)));
        assertThat(timer.upcoming(2))
                .containsExactly(
                        new TimeoutInfo("in 1 s", Duration.ofMillis(750)),
                        new TimeoutInfo("in 5 s", Duration.ofMillis(4_750)));
        assertThat(timer.upcoming(1)).extracting(TimeoutInfo::task).containsExactly("in 1 s");
    }

    @Test
    void upcomingRemainingIsZeroForATimeoutPastItsDeadlineAwaitingItsBoundary() {
        HashedWheelTimer timer = manualTimer(ticker, true);
        timer.newTimeout(new RecordingTask("t"), Duration.ofMillis(120));

        ticker.advance(Duration.ofMillis(150)); // deadline passed, boundary (200 ms) not reached

        assertThat(timer.upcoming(5)).containsExactly(new TimeoutInfo("t", Duration.ZERO));
    }

    @Test
    void upcomingIncludesTimeoutsTheWorkerHasNotTakenYet() throws Exception {
        HashedWheelTimer timer = manualTimer(ticker, true);
        HoldingTask holding = new HoldingTask();
        timer.newTimeout(holding, Duration.ofMillis(100));
        timer.newTimeout(new RecordingTask("taken"), Duration.ofSeconds(3));
        Future<?> advance = pool.submit(() -> ticker.advance(Duration.ofMillis(100)));
        holding.awaitHolding();

        timer.newTimeout(new RecordingTask("not taken, 2 s"), Duration.ofSeconds(2));
        timer.newTimeout(new RecordingTask("not taken, 1 s"), Duration.ofSeconds(1));
        assertThat(timer.runtime.handOff.hasNewTimeouts()).isTrue();
        AtomicReference<List<TimeoutInfo>> result = new AtomicReference<>();
        Thread caller = new Thread(() -> result.set(timer.upcoming(10)));
        caller.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> caller.getState() == Thread.State.TIMED_WAITING);
        assertThat(timer.runtime.handOff.hasNewTimeouts())
                .as("still not taken while the caller waits")
                .isTrue();
        holding.release(); // the worker answers between tasks, before it takes the new ones
        caller.join(10_000);
        advance.get(10, SECONDS);

        assertThat(result.get())
                .containsExactly(
                        new TimeoutInfo("not taken, 1 s", Duration.ofSeconds(1)),
                        new TimeoutInfo("not taken, 2 s", Duration.ofSeconds(2)),
                        new TimeoutInfo("taken", Duration.ofMillis(2_900)));
    }

    @Test
    void upcomingCanBeCalledFromInsideATask() {
        HashedWheelTimer timer = manualTimer(ticker, true);
        timer.newTimeout(new RecordingTask("later"), Duration.ofSeconds(10));
        AtomicReference<List<TimeoutInfo>> seen = new AtomicReference<>();
        timer.newTimeout(
                t -> {
                    timer.newTimeout(new RecordingTask("scheduled by the task"), Duration.ofSeconds(1));
                    seen.set(timer.upcoming(5));
                },
                Duration.ofMillis(100));

        ticker.advance(Duration.ofMillis(100));

        assertThat(seen.get())
                .containsExactly(
                        new TimeoutInfo("scheduled by the task", Duration.ofSeconds(1)),
                        new TimeoutInfo("later", Duration.ofMillis(9_900)));
        assertThat(timer.stats().failed()).isZero();
    }

    @Test
    void upcomingOfANegativeLimitIsIllegalArgument() {
        HashedWheelTimer timer = manualTimer(new ManualTicker(), true);
        assertThatThrownBy(() -> timer.upcoming(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1");
    }

    @Test
    void upcomingIsEmptyForLimitZeroBeforeStartAndAfterStop() {
        HashedWheelTimer timer = timers.track(
                HashedWheelTimer.builder().ticker(new ManualTicker()).build());
        assertThat(timer.upcoming(10)).isEmpty(); // INIT

        timer.newTimeout(new RecordingTask("t"), Duration.ofSeconds(1));
        assertThat(timer.upcoming(0)).isEmpty();
        assertThat(timer.upcoming(10)).hasSize(1);

        timer.stop();
        assertThat(timer.upcoming(10)).isEmpty();
    }

    @Test
    void upcomingDescribesATaskWhoseToStringThrowsWithoutFailing() {
        HashedWheelTimer timer = manualTimer(new ManualTicker(), true);
        timer.newTimeout(ThrowingTask.onToString("no description"), Duration.ofSeconds(1));

        List<TimeoutInfo> upcoming = timer.upcoming(1);

        assertThat(upcoming).hasSize(1);
        assertThat(upcoming.get(0).task()).contains("no description");
        assertThat(timer.state()).isEqualTo(State.STARTED);
    }

    @Test
    void upcomingWithAHugeLimitReturnsEveryPendingTimeoutAndKeepsTheTimerRunning() {
        HashedWheelTimer timer = manualTimer(new ManualTicker(), true);
        Timeout timeout = timer.newTimeout(new RecordingTask("t"), Duration.ofHours(1));

        assertThat(timer.upcoming(Integer.MAX_VALUE)).containsExactly(new TimeoutInfo("t", Duration.ofHours(1)));
        assertThat(timer.state()).isEqualTo(State.STARTED);
        assertThat(timeout.isCancelled()).isFalse();
        assertThat(timer.stop()).containsExactly(timeout);
    }
}
