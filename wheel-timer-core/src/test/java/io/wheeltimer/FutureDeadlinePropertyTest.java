package io.wheeltimer;

import static io.wheeltimer.FutureDeadlineTest.failureOf;
import static io.wheeltimer.FutureDeadlineTest.manualTimer;
import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** {@link Timer#orTimeout} against a model, on a {@link ManualTicker} with a 10 ms tick. */
class FutureDeadlinePropertyTest {

    /**
     * Futures with random limits, completed at random times; the clock moves a random number of
     * milliseconds at a time. A future completed before its limit keeps its value; any other
     * times out exactly when its limit has passed (never before); nothing stays in the timer.
     */
    @Property(tries = 200)
    void eachFutureEndsWithItsValueOrTimesOutNeverBeforeItsLimit(
            @ForAll @Size(min = 1, max = 30) List<@IntRange(min = 0, max = 300) Integer> limitsMillis,
            @ForAll @Size(min = 1, max = 30) List<@IntRange(min = 0, max = 300) Integer> completionsMillis,
            @ForAll @IntRange(min = 1, max = 40) int stepMillis) {
        ManualTicker ticker = new ManualTicker();
        HashedWheelTimer timer = manualTimer(ticker);
        try {
            int n = Math.min(limitsMillis.size(), completionsMillis.size());
            List<CompletableFuture<Integer>> futures = new ArrayList<>();
            AtomicInteger[] completions = new AtomicInteger[n];
            for (int i = 0; i < n; i++) {
                CompletableFuture<Integer> future = new CompletableFuture<>();
                AtomicInteger count = new AtomicInteger();
                completions[i] = count;
                future.whenComplete((value, failure) -> count.incrementAndGet());
                futures.add(timer.orTimeout(future, Duration.ofMillis(limitsMillis.get(i))));
            }
            for (int now = 0; now <= 400; now += stepMillis) {
                for (int i = 0; i < n; i++) {
                    CompletableFuture<Integer> future = futures.get(i);
                    int limit = limitsMillis.get(i);
                    if (now < limit && future.isDone()) {
                        assertThat(failureOf(future))
                                .as("future %d at %d ms, limit %d ms", i, now, limit)
                                .isNull();
                    }
                    if (now >= firesAt(limit)) {
                        assertThat(future)
                                .as("future %d at %d ms, limit %d ms", i, now, limit)
                                .isDone();
                    }
                    if (completionsMillis.get(i) <= now) {
                        future.complete(i);
                    }
                }
                ticker.advance(Duration.ofMillis(stepMillis));
            }
            ticker.advance(Duration.ofMillis(20));
            for (int i = 0; i < n; i++) {
                CompletableFuture<Integer> future = futures.get(i);
                assertThat(completions[i]).as("completions of future %d", i).hasValue(1);
                int completedAt = (completionsMillis.get(i) + stepMillis - 1) / stepMillis * stepMillis;
                if (completedAt < firesAt(limitsMillis.get(i))) {
                    assertThat(future.join()).as("future %d", i).isEqualTo(i);
                } else {
                    assertThat(failureOf(future)).as("future %d", i).isInstanceOf(TimeoutException.class);
                }
            }
            assertThat(timer.pendingTimeouts()).isZero();
            assertThat(timer.upcoming(1)).isEmpty();
        } finally {
            timer.stop();
        }
    }

    /** A 10 ms tick: a deadline fires at the first tick boundary at or after it, and never on tick 0. */
    private static long firesAt(int limitMillis) {
        return Math.max((limitMillis + 9) / 10 * 10L, 10L);
    }
}
