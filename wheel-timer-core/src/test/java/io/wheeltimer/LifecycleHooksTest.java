package io.wheeltimer;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.HashedWheelTimer.State;
import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link HashedWheelTimer#close()} and {@link HashedWheelTimer#setLatenessListener}. */
class LifecycleHooksTest {

    private static HashedWheelTimer timer(ManualTicker ticker) {
        return HashedWheelTimer.builder()
                .name("hooks")
                .tickDuration(Duration.ofMillis(10))
                .ticker(ticker)
                .build();
    }

    @Test
    void closeStopsTheTimerAndCancelsWhatNeverRan() {
        AtomicInteger cancelled = new AtomicInteger();
        Timeout timeout;
        try (HashedWheelTimer timer = timer(new ManualTicker())) {
            timeout = timer.newTimeout(
                    new TimerTask() {
                        @Override
                        public void run(Timeout t) {}

                        @Override
                        public void cancelled(Timeout t) {
                            cancelled.incrementAndGet();
                        }
                    },
                    Duration.ofSeconds(5));
        }
        assertThat(timeout.timer())
                .isInstanceOfSatisfying(
                        HashedWheelTimer.class, t -> assertThat(t.state()).isEqualTo(State.SHUTDOWN));
        assertThat(timeout.isCancelled()).isTrue();
        assertThat(cancelled).hasValue(1);
    }

    @Test
    void closeIsIdempotent() {
        HashedWheelTimer timer = timer(new ManualTicker());
        timer.start();
        timer.close();
        timer.close();
        assertThat(timer.state()).isEqualTo(State.SHUTDOWN);
    }

    @Test
    void latenessListenerHearsEveryFiredTimeoutWithItsLateness() {
        ManualTicker ticker = new ManualTicker();
        List<Long> lateness = new CopyOnWriteArrayList<>();
        try (HashedWheelTimer timer = timer(ticker)) {
            timer.setLatenessListener(lateness::add);
            timer.newTimeout(t -> {}, Duration.ofMillis(20)); // on a tick boundary: fires on time
            timer.newTimeout(t -> {}, Duration.ofMillis(25)); // fires at the 30 ms boundary
            Timeout cancelled = timer.newTimeout(t -> {}, Duration.ofMillis(25));
            cancelled.cancel();
            ticker.advance(Duration.ofMillis(100)); // one jump: both run 80 and 75 ms late
            assertThat(lateness).containsExactlyInAnyOrder(80_000_000L, 75_000_000L);
        }
    }

    @Test
    void aThrowingLatenessListenerDoesNotStopTheTask() {
        ManualTicker ticker = new ManualTicker();
        AtomicInteger ran = new AtomicInteger();
        try (HashedWheelTimer timer = timer(ticker)) {
            timer.setLatenessListener(nanos -> {
                throw new IllegalStateException("listener broke");
            });
            timer.newTimeout(t -> ran.incrementAndGet(), Duration.ofMillis(10));
            ticker.advance(Duration.ofMillis(10));
            assertThat(ran).hasValue(1);
        }
    }

    @Test
    void removedLatenessListenerIsNoLongerTold() {
        ManualTicker ticker = new ManualTicker();
        AtomicInteger told = new AtomicInteger();
        try (HashedWheelTimer timer = timer(ticker)) {
            timer.setLatenessListener(nanos -> told.incrementAndGet());
            timer.newTimeout(t -> {}, Duration.ofMillis(10));
            ticker.advance(Duration.ofMillis(10));
            timer.setLatenessListener(null);
            timer.newTimeout(t -> {}, Duration.ofMillis(10));
            ticker.advance(Duration.ofMillis(10));
            assertThat(told).hasValue(1);
        }
    }
}
