package io.wheeltimer;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wheeltimer.HashedWheelTimer.State;
import io.wheeltimer.testsupport.LogCapture;
import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** stats() and its counts at quiet moments, and the tick lag. */
class StatsTest extends TimerTestFixture {

    @ParameterizedTest(name = "hierarchical={0}")
    @ValueSource(booleans = {true, false})
    void statsAreExactAtQuietMoments(boolean hierarchical) {
        HashedWheelTimer timer = timers.track(HashedWheelTimer.builder()
                .ticker(ticker)
                .tickDuration(TICK)
                .hierarchical(hierarchical)
                .maxPendingTimeouts(3)
                .build());
        assertThat(timer.stats()).isEqualTo(new TimerStats(0, 0, 0, 0, 0, 0, 0, Duration.ZERO, State.INIT));

        timer.newTimeout(noop(), Duration.ofMillis(100));
        timer.newTimeout(
                t -> {
                    throw new IllegalStateException("expected");
                },
                Duration.ofMillis(200));
        Timeout far = timer.newTimeout(noop(), Duration.ofHours(1));
        assertThatThrownBy(() -> timer.newTimeout(noop(), Duration.ofMillis(1)))
                .isInstanceOf(RejectedExecutionException.class);
        assertThat(timer.stats()).isEqualTo(new TimerStats(3, 3, 0, 0, 1, 0, 0, Duration.ZERO, State.STARTED));

        far.cancel();
        timer.newTimeout(noop(), Duration.ofMillis(300));
        assertThat(timer.stats()).isEqualTo(new TimerStats(3, 4, 0, 1, 1, 0, 0, Duration.ZERO, State.STARTED));

        try (LogCapture log = LogCapture.of(HashedWheelTimer.class)) {
            ticker.advance(Duration.ofMillis(200));
            assertThat(log.records(Level.WARNING)).hasSize(1);
        }
        assertThat(timer.stats()).isEqualTo(new TimerStats(1, 4, 2, 1, 1, 1, 2, Duration.ZERO, State.STARTED));
        assertThat(timer.pendingTimeouts()).isOne();

        ticker.advance(Duration.ofMillis(100));
        assertThat(timer.stats()).isEqualTo(new TimerStats(0, 4, 3, 1, 1, 1, 3, Duration.ZERO, State.STARTED));
        assertThat(timer.pendingTimeouts()).isZero();

        timer.newTimeout(noop(), Duration.ofHours(1));
        assertThat(timer.stop()).hasSize(1);
        assertThat(timer.stats()).isEqualTo(new TimerStats(0, 5, 3, 2, 1, 1, 3, Duration.ZERO, State.SHUTDOWN));
    }

    @Test
    void tickLagShowsHowLateTheWorkerIsWhileATaskHoldsIt() throws Exception {
        HashedWheelTimer timer = manualTimer(ticker, true);
        HoldingTask holding = new HoldingTask();
        Future<?> advance = holdTheWorker(timer, holding, Duration.ofMillis(150));
        assertThat(timer.stats().tickLag()).isEqualTo(Duration.ofMillis(50));
        holding.release();
        advance.get(10, SECONDS);

        assertThat(timer.stats().tickLag()).isZero();
    }
}
