package io.wheeltimer;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The new timeouts are handed to the worker on stripes, one per scheduling thread: what each
 * thread schedules keeps its order, nothing from any thread is lost, a burst larger than a round's
 * take still fires at its own tick, and a timeout cancelled by another thread than the one that
 * scheduled it is dropped by the worker (the take-back by the scheduling thread is in
 * {@code CancellationTest}).
 */
class HandOffStripesTest {

    private final ManualTicker ticker = new ManualTicker();
    private final HashedWheelTimer timer = HashedWheelTimer.builder()
            .ticker(ticker)
            .tickDuration(Duration.ofMillis(10))
            .build();

    @AfterEach
    void stop() {
        timer.stop();
    }

    @Test
    void timeoutsDueAtOneTickRunInTheOrderEachThreadScheduledThem() throws Exception {
        int threads = 16; // more threads than stripes: some share one
        int perThread = 200;
        List<String> ran = new ArrayList<>(); // written by the worker only
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Thread> producers = new ArrayList<>();
        timer.start();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            Thread producer = new Thread(() -> {
                try {
                    start.await(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                for (int i = 0; i < perThread; i++) {
                    int n = i;
                    timer.newTimeout(timeout -> ran.add(thread + ":" + n), Duration.ofMillis(10));
                }
            });
            producers.add(producer);
            producer.start();
        }
        for (Thread producer : producers) {
            producer.join(10_000);
        }

        ticker.advance(Duration.ofMillis(10));

        assertThat(ran).hasSize(threads * perThread);
        for (int t = 0; t < threads; t++) {
            String prefix = t + ":";
            List<Integer> own = ran.stream()
                    .filter(s -> s.startsWith(prefix))
                    .map(s -> Integer.parseInt(s.substring(prefix.length())))
                    .toList();
            assertThat(own).as("thread %d's timeouts", t).isSorted().hasSize(perThread);
        }
        assertThat(timer.stats().expired()).isEqualTo(threads * perThread);
    }

    @Test
    void aTimeoutCancelledByAnotherThreadStaysForTheWorkerToDrop() throws Exception {
        timer.start();
        Timeout timeout = timer.newTimeout(t -> {}, Duration.ofSeconds(30));
        CountDownLatch cancelled = new CountDownLatch(1);
        Thread other = new Thread(() -> {
            timeout.cancel();
            cancelled.countDown();
        });
        other.start();
        assertThat(cancelled.await(10, TimeUnit.SECONDS)).isTrue();

        assertThat(timeout.isCancelled()).isTrue();
        assertThat(timer.pendingTimeouts()).isZero();
        ticker.advance(Duration.ofMillis(10)); // the worker takes the stripe and drops it
        assertThat(timer.runtime.handOff.hasNewTimeouts()).isFalse();
        assertThat(timer.upcoming(10)).isEmpty();
    }

    @Test
    void aBurstLargerThanARoundTakesAllFiresAtItsOwnTick() {
        int burst = 10 * Worker.TAKE_LIMIT; // handed over in many rounds
        int[] ran = new int[1];
        timer.start();
        for (int i = 0; i < burst; i++) {
            timer.newTimeout(t -> ran[0]++, Duration.ofMillis(20));
        }

        ticker.advance(Duration.ofMillis(10));
        assertThat(ran[0]).as("none early").isZero();
        ticker.advance(Duration.ofMillis(10));
        assertThat(ran[0]).as("all at their tick, none a tick late").isEqualTo(burst);
    }
}
