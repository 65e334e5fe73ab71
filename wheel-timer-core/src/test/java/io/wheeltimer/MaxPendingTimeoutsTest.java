package io.wheeltimer;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wheeltimer.testing.ManualTicker;
import io.wheeltimer.testsupport.LogCapture;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

/** The limit on pending timeouts: Netty's refusal, and the room a finished or refused timeout makes. */
class MaxPendingTimeoutsTest extends TimerTestFixture {

    @Test
    void newTimeoutPastMaxPendingTimeoutsIsRejectedWithNettysMessage() {
        HashedWheelTimer timer = manualTimer(
                HashedWheelTimer.builder().ticker(ticker).tickDuration(TICK).maxPendingTimeouts(1));
        RecordingTask first = new RecordingTask("first");
        timer.newTimeout(first, Duration.ofMillis(100));

        assertThatThrownBy(() -> timer.newTimeout(noop(), Duration.ofMillis(100)))
                .isExactlyInstanceOf(RejectedExecutionException.class)
                .hasMessage(NETTY_MESSAGE);
        assertThat(timer.stats().rejected()).isOne();
        assertThat(timer.stats().scheduled()).isOne();
        assertThat(timer.pendingTimeouts()).isOne();

        ticker.advance(Duration.ofMillis(100)); // the pending one fires: room again
        assertThat(first.runs()).isOne();
        Timeout second = timer.newTimeout(noop(), Duration.ofHours(1));
        assertThatThrownBy(() -> timer.newTimeout(noop(), 1, SECONDS)).isInstanceOf(RejectedExecutionException.class);

        assertThat(second.cancel()).isTrue(); // cancelled: room again
        Timeout third = timer.newTimeout(noop(), Duration.ofHours(1));
        assertThat(third.isCancelled()).isFalse();

        TimerStats stats = timer.stats();
        assertThat(stats.rejected()).isEqualTo(2);
        assertThat(stats.scheduled()).isEqualTo(3);
        assertThat(stats.pending()).isOne();
    }

    @Test
    void timeoutRefusedByTheExecutorMakesRoomForANewOne() {
        HashedWheelTimer timer = manualTimer(HashedWheelTimer.builder()
                .ticker(ticker)
                .tickDuration(TICK)
                .maxPendingTimeouts(1)
                .taskExecutor(command -> {
                    throw new RejectedExecutionException("no");
                }));
        timer.newTimeout(noop(), Duration.ofMillis(100));
        try (LogCapture log = LogCapture.of(HashedWheelTimer.class)) {
            ticker.advance(Duration.ofMillis(100));
            assertThat(log.records(Level.WARNING)).hasSize(1);
        }

        assertThatCode(() -> timer.newTimeout(noop(), Duration.ofMillis(100))).doesNotThrowAnyException();
        assertThat(timer.stats().failed()).isOne();
    }

    @Test
    void nonPositiveMaxPendingTimeoutsMeansNoLimit() {
        HashedWheelTimer timer = manualTimer(
                HashedWheelTimer.builder().ticker(new ManualTicker()).maxPendingTimeouts(-5));
        for (int i = 0; i < 1_000; i++) {
            timer.newTimeout(noop(), Duration.ofHours(1));
        }
        assertThat(timer.maxPendingTimeouts()).isEqualTo(-5);
        assertThat(timer.pendingTimeouts()).isEqualTo(1_000);
        assertThat(timer.stats().rejected()).isZero();
    }
}
