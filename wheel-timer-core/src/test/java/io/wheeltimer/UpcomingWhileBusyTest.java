package io.wheeltimer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** upcoming() is answered by the worker between tasks; a task that holds the worker does not hang callers. */
class UpcomingWhileBusyTest {

    @Test
    void upcomingGivesUpWithAClearErrorWhileATaskHoldsTheWorker() throws Exception {
        HashedWheelTimer timer =
                HashedWheelTimer.builder().tickDuration(Duration.ofMillis(10)).build();
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try {
            timer.newTimeout(
                    t -> {
                        running.countDown();
                        release.await(60, TimeUnit.SECONDS);
                    },
                    Duration.ZERO);
            timer.newTimeout(t -> {}, Duration.ofMinutes(1));
            assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();

            long start = System.nanoTime();
            assertThatThrownBy(() -> timer.upcoming(10))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("has not answered within " + HashedWheelTimer.UPCOMING_WAIT_SECONDS + " s");
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .isGreaterThanOrEqualTo(Duration.ofSeconds(HashedWheelTimer.UPCOMING_WAIT_SECONDS));

            release.countDown();
            assertThat(timer.upcoming(10))
                    .as("answered again once the task is done")
                    .hasSize(1);
        } finally {
            release.countDown();
            timer.stop();
        }
    }
}
